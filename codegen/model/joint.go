package model

import (
	"math"
	"math/rand/v2"

	"github.com/grid-rbd/grid-rbd/codegen/spatial"
)

// Motion returns the transform across the joint, from the joint frame to the body frame, for the joint's
// own coordinates q (length Type.NQ()).
func (j *Joint) Motion(q []float64) spatial.Transform {
	switch j.Type {
	case Revolute, Continuous:
		return spatial.FromPose(spatial.AxisAngle(j.Axis, q[0]), spatial.Vec3{})
	case Prismatic:
		return spatial.FromPose(spatial.Identity3, j.Axis.Scale(q[0]))
	default:
		return spatial.FromPose(spatial.QuatToMat(q[3], q[4], q[5], q[6]), spatial.Vec3{q[0], q[1], q[2]})
	}
}

// Transform returns the parent-body-to-body transform at the joint's coordinates q.
func (j *Joint) Transform(q []float64) spatial.Transform { return j.Placement.Then(j.Motion(q)) }

// Subspace returns the columns of the motion subspace S in body coordinates, one per velocity coordinate.
// A free-flyer's velocity is [v_lin; ω], so its columns are the unit motions [0; e_k] then [e_k; 0].
func (j *Joint) Subspace() []spatial.Motion {
	switch j.Type {
	case Revolute, Continuous:
		return []spatial.Motion{spatial.MakeMotion(j.Axis, spatial.Vec3{})}
	case Prismatic:
		return []spatial.Motion{spatial.MakeMotion(spatial.Vec3{}, j.Axis)}
	default:
		s := make([]spatial.Motion, 6)
		for k := 0; k < 3; k++ {
			s[k][3+k] = 1
			s[3+k][k] = 1
		}
		return s
	}
}

// Neutral returns the zero configuration (identity quaternions for free-flyers).
func (r *Robot) Neutral() []float64 {
	q := make([]float64, r.NQ)
	for _, j := range r.Joints {
		if j.Type == FreeFlyer {
			q[j.Q+6] = 1
		}
	}
	return q
}

// Integrate returns q ⊕ v·dt: coordinates add, and a free-flyer follows its body twist through the SE(3)
// exponential (Pinocchio's integrate).
func (r *Robot) Integrate(q, v []float64, dt float64) []float64 {
	out := append([]float64(nil), q...)
	for _, j := range r.Joints {
		if j.Type != FreeFlyer {
			out[j.Q] += v[j.V] * dt
			continue
		}
		qj := q[j.Q : j.Q+7]
		rot := spatial.QuatToMat(qj[3], qj[4], qj[5], qj[6])
		var tw spatial.Motion
		for k := 0; k < 3; k++ {
			tw[3+k] = v[j.V+k] * dt
			tw[k] = v[j.V+3+k] * dt
		}
		dr, dp := spatial.ExpSE3(tw)
		p := spatial.Vec3{qj[0], qj[1], qj[2]}.Add(rot.MulVec(dp))
		x, y, z, w := spatial.MatToQuat(rot.Mul(dr))
		// Keep the quaternion's sign continuous along a trajectory.
		if x*qj[3]+y*qj[4]+z*qj[5]+w*qj[6] < 0 {
			x, y, z, w = -x, -y, -z, -w
		}
		copy(out[j.Q:], []float64{p[0], p[1], p[2], x, y, z, w})
	}
	return out
}

// RandomConfiguration draws a configuration: bounded joints uniformly within their limits (clipped to
// [-π, π] for revolute joints), other angles in [-π, π], free-flyer positions in [-1, 1]³ with a uniformly
// random orientation.
func (r *Robot) RandomConfiguration(rng *rand.Rand) []float64 {
	q := make([]float64, r.NQ)
	uniform := func(lo, hi float64) float64 { return lo + (hi-lo)*rng.Float64() }
	for _, j := range r.Joints {
		switch j.Type {
		case Revolute, Continuous:
			lo, hi := -math.Pi, math.Pi
			if j.Limits.Bounded {
				lo, hi = math.Max(lo, j.Limits.Lower), math.Min(hi, j.Limits.Upper)
			}
			q[j.Q] = uniform(lo, hi)
		case Prismatic:
			lo, hi := -1.0, 1.0
			if j.Limits.Bounded {
				lo, hi = j.Limits.Lower, j.Limits.Upper
			}
			q[j.Q] = uniform(lo, hi)
		case FreeFlyer:
			var n float64
			quat := make([]float64, 4)
			for n < 1e-6 {
				n = 0
				for k := range quat {
					quat[k] = rng.NormFloat64()
					n += quat[k] * quat[k]
				}
			}
			n = math.Sqrt(n)
			for k := 0; k < 3; k++ {
				q[j.Q+k] = uniform(-1, 1)
			}
			for k := range quat {
				q[j.Q+3+k] = quat[k] / n
			}
		}
	}
	return q
}
