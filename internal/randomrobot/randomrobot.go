// Package randomrobot writes URDFs of random kinematic trees and chains: the large and ill-conditioned
// robots the test suites and the scaling measurements of docs/architecture.md run on. The same shape and
// seed always give the same file.
package randomrobot

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// Shape is the topology of a random robot.
type Shape int

const (
	// Tree: each link hangs from the previous one or, one time in eight, from a random earlier link (deep
	// branches, so that the mass matrix is ill-conditioned).
	Tree Shape = iota
	// Chain: each link hangs from the previous one, revolute joints about alternating coordinate axes
	// (the serial chains of the scaling measurements).
	Chain
)

// ParseShape reads "tree" or "chain".
func ParseShape(s string) (Shape, error) {
	switch s {
	case "tree":
		return Tree, nil
	case "chain":
		return Chain, nil
	}
	return Tree, fmt.Errorf("robot shape %q: want tree or chain", s)
}

func (s Shape) String() string {
	if s == Chain {
		return "chain"
	}
	return "tree"
}

// URDF returns a robot of the given shape with `links` moving links (one joint each) below a base link.
// Trees mix revolute joints about coordinate and general axes, continuous and prismatic joints, and a
// few fixed joints (whose links the model merges); every inertia is physically valid (its principal
// moments obey the triangle inequality), so the mass matrix is positive definite and, deep in a long
// branch, badly conditioned.
func URDF(shape Shape, links int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 0x6772696472626421))
	name := fmt.Sprintf("random_%s_%d_%d", shape, links, seed)
	var b strings.Builder
	fmt.Fprintf(&b, "<?xml version=\"1.0\"?>\n<robot name=%q>\n", name)
	link := func(i int) {
		m := 0.05 * math.Pow(100, rng.Float64()) // 0.05 to 5 kg, log-uniform
		// principal moments with a + b >= c in every order: the sum of two of three values in [1, 2]
		p := [3]float64{1 + rng.Float64(), 1 + rng.Float64(), 1 + rng.Float64()}
		s := 0.02 * m
		I := [3]float64{s * (p[1] + p[2]), s * (p[0] + p[2]), s * (p[0] + p[1])}
		R := rotation(rng.Float64()*2*math.Pi, rng.Float64()*math.Pi-math.Pi/2, rng.Float64()*2*math.Pi)
		var full [3][3]float64
		for r := 0; r < 3; r++ {
			for c := 0; c < 3; c++ {
				for k := 0; k < 3; k++ {
					full[r][c] += R[r][k] * I[k] * R[c][k]
				}
			}
		}
		fmt.Fprintf(&b, "  <link name=\"link%d\">\n    <inertial>\n", i)
		fmt.Fprintf(&b, "      <origin xyz=\"%s\" rpy=\"0 0 0\"/>\n", vec(uniform3(rng, 0.05)))
		fmt.Fprintf(&b, "      <mass value=\"%.6g\"/>\n", m)
		fmt.Fprintf(&b, "      <inertia ixx=\"%.9g\" ixy=\"%.9g\" ixz=\"%.9g\" iyy=\"%.9g\" iyz=\"%.9g\" izz=\"%.9g\"/>\n",
			full[0][0], full[0][1], full[0][2], full[1][1], full[1][2], full[2][2])
		fmt.Fprintf(&b, "    </inertial>\n  </link>\n")
	}
	link(0)
	for i := 1; i <= links; i++ {
		link(i)
		parent := i - 1
		if shape == Tree && i > 1 && rng.IntN(8) == 0 {
			parent = rng.IntN(i - 1)
		}
		kind, axis := "revolute", [3]float64{}
		if shape == Chain {
			axis[(i-1)%3] = 1
		} else {
			switch u := rng.Float64(); {
			case u < 0.05:
				kind = "fixed"
			case u < 0.15:
				kind = "prismatic"
			case u < 0.25:
				kind = "continuous"
			}
			if rng.Float64() < 0.7 {
				axis[rng.IntN(3)] = []float64{1, -1}[rng.IntN(2)]
			} else {
				a := uniform3(rng, 1)
				n := math.Sqrt(a[0]*a[0] + a[1]*a[1] + a[2]*a[2])
				axis = [3]float64{a[0] / n, a[1] / n, a[2] / n}
			}
		}
		origin := [3]float64{0, 0, 0.1 + 0.1*rng.Float64()}
		rpy := [3]float64{}
		if shape == Tree {
			origin = uniform3(rng, 0.2)
			if rng.Float64() < 0.5 {
				rpy = uniform3(rng, math.Pi)
			}
		}
		fmt.Fprintf(&b, "  <joint name=\"joint%d\" type=%q>\n", i, kind)
		fmt.Fprintf(&b, "    <parent link=\"link%d\"/>\n    <child link=\"link%d\"/>\n", parent, i)
		fmt.Fprintf(&b, "    <origin xyz=\"%s\" rpy=\"%s\"/>\n", vec(origin), vec(rpy))
		if kind != "fixed" {
			fmt.Fprintf(&b, "    <axis xyz=\"%s\"/>\n", vec(axis))
		}
		switch kind {
		case "revolute":
			b.WriteString("    <limit lower=\"-3.1\" upper=\"3.1\" effort=\"100\" velocity=\"5\"/>\n")
		case "prismatic":
			b.WriteString("    <limit lower=\"-0.5\" upper=\"0.5\" effort=\"100\" velocity=\"1\"/>\n")
		}
		b.WriteString("  </joint>\n")
	}
	b.WriteString("</robot>\n")
	return b.String()
}

func uniform3(rng *rand.Rand, scale float64) [3]float64 {
	return [3]float64{scale * (2*rng.Float64() - 1), scale * (2*rng.Float64() - 1), scale * (2*rng.Float64() - 1)}
}

func vec(v [3]float64) string { return fmt.Sprintf("%.9g %.9g %.9g", v[0], v[1], v[2]) }

// rotation is Rz(yaw)·Ry(pitch)·Rx(roll).
func rotation(roll, pitch, yaw float64) [3][3]float64 {
	cr, sr := math.Cos(roll), math.Sin(roll)
	cp, sp := math.Cos(pitch), math.Sin(pitch)
	cy, sy := math.Cos(yaw), math.Sin(yaw)
	return [3][3]float64{
		{cy * cp, cy*sp*sr - sy*cr, cy*sp*cr + sy*sr},
		{sy * cp, sy*sp*sr + cy*cr, sy*sp*cr - cy*sr},
		{-sp, cp * sr, cp * cr},
	}
}
