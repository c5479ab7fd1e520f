package model

import "github.com/grid-rbd/grid-rbd/codegen/urdf"

// Load parses a URDF file with the given parser options and builds its tree.
func Load(path string, parse urdf.Options, opt Options) (*Robot, error) {
	u, err := urdf.ParseFileWith(path, parse)
	if err != nil {
		return nil, err
	}
	return Build(u, opt)
}
