module github.com/grid-rbd/grid-rbd

go 1.24.0

tool github.com/magefile/mage

require gonum.org/v1/gonum v0.17.0

require (
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/magefile/mage v1.17.2 // indirect
)
