// Package ref is the float64 reference implementation of rigid-body dynamics on a model.Robot: forward
// kinematics, frame Jacobians, RNEA, CRBA, ABA and the inverse mass matrix. It favours plainness over
// speed and is the oracle the generated code is checked against.
//
// Conventions (docs/architecture.md): spatial vectors are [ω; v]; q and v follow the model's joint order;
// a free-flyer's velocity and effort are [v_lin; ω] / [f; n] in its body frame.
package ref

import (
	"fmt"

	"github.com/grid-rbd/grid-rbd/codegen/model"
	"github.com/grid-rbd/grid-rbd/codegen/spatial"
)

// checkSizes panics with a clear message when vectors do not match the robot; callers pass slices they
// built from the robot, so a mismatch is a programming error.
func checkSizes(r *model.Robot, q []float64, vs ...[]float64) {
	if len(q) != r.NQ {
		panic(fmt.Sprintf("ref: q has length %d, robot %s has nq = %d", len(q), r.Name, r.NQ))
	}
	for _, v := range vs {
		if v != nil && len(v) != r.NV {
			panic(fmt.Sprintf("ref: vector has length %d, robot %s has nv = %d", len(v), r.Name, r.NV))
		}
	}
}

// jointTransforms returns, per joint, the transform from the parent body to the body at q.
func jointTransforms(r *model.Robot, q []float64) []spatial.Transform {
	xs := make([]spatial.Transform, len(r.Joints))
	for i := range r.Joints {
		j := &r.Joints[i]
		xs[i] = j.Transform(q[j.Q : j.Q+j.Type.NQ()])
	}
	return xs
}

// BodyTransforms returns, per joint, the transform from world coordinates to the body frame at q.
func BodyTransforms(r *model.Robot, q []float64) []spatial.Transform {
	checkSizes(r, q)
	xs := jointTransforms(r, q)
	world := make([]spatial.Transform, len(xs))
	for i, j := range r.Joints {
		if j.Parent < 0 {
			world[i] = xs[i]
		} else {
			world[i] = world[j.Parent].Then(xs[i])
		}
	}
	return world
}

// Pose is a frame's placement in the world: Rotation's columns are the frame axes in world coordinates.
type Pose struct {
	Rotation spatial.Mat3
	Position spatial.Vec3
}

// FramePoses returns the world pose of every frame at q, in the robot's frame order.
func FramePoses(r *model.Robot, q []float64) []Pose {
	bodies := BodyTransforms(r, q)
	poses := make([]Pose, len(r.Frames))
	for i, f := range r.Frames {
		x := f.Placement
		if f.Joint >= 0 {
			x = bodies[f.Joint].Then(f.Placement)
		}
		rot, pos := x.Pose()
		poses[i] = Pose{Rotation: rot, Position: pos}
	}
	return poses
}

// FrameJacobian returns the 6×nv world-aligned Jacobian of frame f at q: rows [ω; v] give the frame's
// angular velocity and the velocity of its origin, both in world coordinates, per unit velocity coordinate.
func FrameJacobian(r *model.Robot, q []float64, f int) [][]float64 {
	bodies := BodyTransforms(r, q)
	jac := make([][]float64, 6)
	for k := range jac {
		jac[k] = make([]float64, r.NV)
	}
	frame := r.Frames[f]
	if frame.Joint < 0 {
		return jac
	}
	_, p := bodies[frame.Joint].Then(frame.Placement).Pose()
	for _, a := range r.Ancestors[frame.Joint] {
		j := &r.Joints[a]
		for c, s := range j.Subspace() {
			// The column's motion in world coordinates, then the velocity it gives the point p.
			m := bodies[a].InvApplyMotion(s)
			w := m.Ang()
			v := m.Lin().Add(w.Cross(p))
			for k := 0; k < 3; k++ {
				jac[k][j.V+c] = w[k]
				jac[3+k][j.V+c] = v[k]
			}
		}
	}
	return jac
}

// FrameJacobianDerivative returns the derivative of frame f's world-aligned Jacobian along every tangent
// direction at q: d[r][c][k] = ∂J[r][c]/∂θ_k (r of [ω; v], c a velocity coordinate, k a tangent direction
// as in RNEADerivatives). With S_c a column's motion at the world origin and p the frame origin,
// J_c = [ω_c; v_c + ω_c × p]. Moving along column k of an ancestor-or-same joint turns S_c by S_k ×
// (∂S_c/∂θ_k = S_k × S_c), and moves p by the point velocity v_k + ω_k × p of every supporting column.
func FrameJacobianDerivative(r *model.Robot, q []float64, f int) [][][]float64 {
	bodies := BodyTransforms(r, q)
	d := make([][][]float64, 6)
	for k := range d {
		d[k] = make([][]float64, r.NV)
		for c := range d[k] {
			d[k][c] = make([]float64, r.NV)
		}
	}
	frame := r.Frames[f]
	if frame.Joint < 0 {
		return d
	}
	_, p := bodies[frame.Joint].Then(frame.Placement).Pose()
	// world motion at the origin and the owning joint of every supporting column
	type column struct {
		s     spatial.Motion
		joint int
	}
	var cols []column
	index := map[int]int{}
	for _, a := range r.Ancestors[frame.Joint] {
		j := &r.Joints[a]
		for c, s := range j.Subspace() {
			index[j.V+c] = len(cols)
			cols = append(cols, column{bodies[a].InvApplyMotion(s), a})
		}
	}
	isAncestorOrSame := func(a, b int) bool {
		for _, x := range r.Ancestors[b] {
			if x == a {
				return true
			}
		}
		return false
	}
	for vc, ic := range index {
		sc := cols[ic].s
		for vk, ik := range index {
			sk := cols[ik].s
			dp := sk.Lin().Add(sk.Ang().Cross(p))
			var ds spatial.Motion
			if isAncestorOrSame(cols[ik].joint, cols[ic].joint) {
				ds = sk.CrossMotion(sc)
			}
			w := ds.Ang()
			v := ds.Lin().Add(w.Cross(p)).Add(sc.Ang().Cross(dp))
			for k := 0; k < 3; k++ {
				d[k][vc][vk] = w[k]
				d[3+k][vc][vk] = v[k]
			}
		}
	}
	return d
}
