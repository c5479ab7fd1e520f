module github.com/grid-rbd/grid-rbd

go 1.24.0

tool github.com/magefile/mage

require (
	github.com/google/go-cmp v0.7.0
	github.com/magefile/mage v1.17.2
	gonum.org/v1/gonum v0.17.0
)
