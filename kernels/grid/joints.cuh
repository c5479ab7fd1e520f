// Joint models for the generated dynamics: the transform across a joint, its motion subspace S and the
// projection Sᵀ, per joint kind. Thread scope: one thread handles one joint.
//
// Conventions (docs/architecture.md): transforms are (E, r) pairs with E rotating parent coordinates into
// body coordinates (column-major) and r the body origin in parent coordinates; spatial vectors are
// [ω; v]. A free-flyer's q is [x y z qx qy qz qw] and its velocity [v_lin; ω] in the body frame.
#pragma once

#include "glass/quaternion.cuh"
#include "glass/scope.cuh"
#include "glass/so3.cuh"
#include "glass/spatial.cuh"
#include "grid/model.cuh"
#include "grid/transforms.cuh"

#include <cmath>

namespace grid {


// Velocity coordinates of a joint kind.
GLASS_HD int joint_nv(int kind) { return kind == JOINT_FREE_FLYER ? 6 : 1; }

// Configuration coordinates of a joint kind.
GLASS_HD int joint_nq(int kind) { return kind == JOINT_FREE_FLYER ? 7 : 1; }

namespace joint_detail {

template <typename T>
GLASS_HD T sin_of(T x) { using std::sin; return sin(x); }

template <typename T>
GLASS_HD T cos_of(T x) { using std::cos; return cos(x); }

}  // namespace joint_detail

// Parent-to-body transform of a joint at its coordinates q: the constant placement (Ep, rp) from the
// parent body to the joint frame followed by the joint's own motion. E is column-major; E and r must not
// alias the inputs.
template <typename T>
GLASS_HD void joint_transform(int kind, const T* axis, const T* Ep, const T* rp, const T* q, T* E, T* r) {
    using namespace joint_detail;
    if (kind == JOINT_PRISMATIC) {
        T d[3] = {axis[0] * q[0], axis[1] * q[0], axis[2] * q[0]};
        T shift[3];
        glass::spatial_detail::rot_apply_t(Ep, d, shift);
        for (int k = 0; k < 9; ++k) E[k] = Ep[k];
        for (int k = 0; k < 3; ++k) r[k] = rp[k] + shift[k];
        return;
    }
    // Ej = Rᵀ for the joint rotation R (columns: rotated axes).
    T Ej[9];
    T p[3] = {T(0), T(0), T(0)};
    if (kind == JOINT_REVOLUTE) {
        // Rodrigues about the unit axis: Rᵀ = I − sin q·[a]× + (1 − cos q)·[a]×²
        glass::lie_detail::rodrigues_core(axis, -sin_of(q[0]), T(1) - cos_of(q[0]), Ej);
    } else {
        // The rotation of quat/|quat|: only the quaternion's direction matters, so derivatives with respect
        // to the raw quaternion are well defined. Rᵀ is the rotation of the conjugate.
        T unit[4], conj[4];
        glass::lie_detail::quat_normalize_core<T, glass::QuatLayout::xyzw, false>(q + 3, unit);
        glass::lie_detail::quat_conj_core<T, glass::QuatLayout::xyzw>(unit, conj);
        glass::lie_detail::quat_to_rot_core<T, glass::QuatLayout::xyzw>(conj, Ej);
        p[0] = q[0]; p[1] = q[1]; p[2] = q[2];
    }
    glass::lie_detail::mat3_mul_core(Ej, Ep, E);
    T shift[3];
    glass::spatial_detail::rot_apply_t(Ep, p, shift);
    for (int k = 0; k < 3; ++k) r[k] = rp[k] + shift[k];
}

// Column c of the motion subspace S in body coordinates.
template <typename T>
GLASS_HD void joint_subspace_column(int kind, const T* axis, int c, T* s) {
    for (int k = 0; k < 6; ++k) s[k] = T(0);
    if (kind == JOINT_REVOLUTE) {
        s[0] = axis[0]; s[1] = axis[1]; s[2] = axis[2];
    } else if (kind == JOINT_PRISMATIC) {
        s[3] = axis[0]; s[4] = axis[1]; s[5] = axis[2];
    } else {
        // velocity [v_lin; ω] maps to the spatial motion [ω; v_lin]
        s[c < 3 ? c + 3 : c - 3] = T(1);
    }
}

// y = S·x (+ y when ACCUMULATE): the spatial motion of joint velocity coordinates x.
template <typename T, bool ACCUMULATE = false>
GLASS_HD void joint_motion(int kind, const T* axis, const T* x, T* y) {
    T m[6] = {T(0), T(0), T(0), T(0), T(0), T(0)};
    if (kind == JOINT_REVOLUTE) {
        m[0] = axis[0] * x[0]; m[1] = axis[1] * x[0]; m[2] = axis[2] * x[0];
    } else if (kind == JOINT_PRISMATIC) {
        m[3] = axis[0] * x[0]; m[4] = axis[1] * x[0]; m[5] = axis[2] * x[0];
    } else {
        m[0] = x[3]; m[1] = x[4]; m[2] = x[5]; m[3] = x[0]; m[4] = x[1]; m[5] = x[2];
    }
    for (int k = 0; k < 6; ++k) y[k] = ACCUMULATE ? y[k] + m[k] : m[k];
}

// tau = Sᵀ·f: the joint effort of a spatial force (nv values).
template <typename T>
GLASS_HD void joint_project(int kind, const T* axis, const T* f, T* tau) {
    if (kind == JOINT_REVOLUTE) {
        tau[0] = axis[0] * f[0] + axis[1] * f[1] + axis[2] * f[2];
    } else if (kind == JOINT_PRISMATIC) {
        tau[0] = axis[0] * f[3] + axis[1] * f[4] + axis[2] * f[5];
    } else {
        tau[0] = f[3]; tau[1] = f[4]; tau[2] = f[5]; tau[3] = f[0]; tau[4] = f[1]; tau[5] = f[2];
    }
}

}  // namespace grid
