// Articulated-body inertias (6×6, column-major) and the joint-space terms built from them, for ABA and the
// analytical inverse mass matrix. Thread scope: one thread handles one body.
#pragma once

#include "glass/linalg.cuh"
#include "glass/scope.cuh"
#include "glass/spatial.cuh"
#include "grid/joints.cuh"

namespace grid {

// out = Xᵀ·A·X (+ out when ACCUMULATE) for the motion transform X = [E 0; -E[r]× E]: expresses an
// articulated inertia A given in child coordinates in parent coordinates. out must not alias A.
template <typename T, bool ACCUMULATE>
GLASS_HD void articulated_to_parent(const T* E, const T* r, const T* A, T* out) {
    T X[36];
    glass::thread::motion_transform<T>(E, r, X);
    // AX = A·X, then out = Xᵀ·AX; both column-major.
    T AX[36];
    for (int j = 0; j < 6; ++j)
        for (int i = 0; i < 6; ++i) {
            T s = T(0);
            for (int k = 0; k < 6; ++k) s += A[i + 6 * k] * X[k + 6 * j];
            AX[i + 6 * j] = s;
        }
    for (int j = 0; j < 6; ++j)
        for (int i = 0; i < 6; ++i) {
            T s = T(0);
            for (int k = 0; k < 6; ++k) s += X[k + 6 * i] * AX[k + 6 * j];
            out[i + 6 * j] = ACCUMULATE ? out[i + 6 * j] + s : s;
        }
}

// U = A·S (6×nv, column-major) and D⁻¹ = (Sᵀ·A·S)⁻¹ (nv×nv) for the joint's motion subspace S; nv is
// joint_nv(kind). Returns false (D⁻¹ filled with NaN) when D is not positive definite.
template <typename T>
GLASS_HD bool joint_articulated_terms(int kind, const T* axis, const T* A, T* U, T* Dinv) {
    const int nv = joint_nv(kind);
    for (int c = 0; c < nv; ++c) {
        T s[6];
        joint_subspace_column<T>(kind, axis, c, s);
        for (int i = 0; i < 6; ++i) {
            T acc = T(0);
            for (int k = 0; k < 6; ++k) acc += A[i + 6 * k] * s[k];
            U[i + 6 * c] = acc;
        }
    }
    if (nv == 1) {
        T dv[6];  // joint_project writes nv values; sized for the widest joint so no path can overrun
        joint_project<T>(kind, axis, U, dv);
        const T d = dv[0];
        if (!(d > T(0))) {
            Dinv[0] = glass::linalg_detail::quiet_nan<T>();
            return false;
        }
        Dinv[0] = T(1) / d;
        return true;
    }
    T D[36];
    for (int c = 0; c < 6; ++c) joint_project<T>(kind, axis, U + 6 * c, D + 6 * c);
    return glass::thread::spd_inverse<T, 6>(D, Dinv);
}

// A ← A − U·D⁻¹·Uᵀ: the articulated inertia a body passes to its parent.
template <typename T>
GLASS_HD void articulated_remove_joint(int nv, const T* U, const T* Dinv, T* A) {
    for (int j = 0; j < 6; ++j)
        for (int i = 0; i < 6; ++i) {
            T s = T(0);
            for (int a = 0; a < nv; ++a)
                for (int b = 0; b < nv; ++b) s += U[i + 6 * a] * Dinv[a + nv * b] * U[j + 6 * b];
            A[i + 6 * j] -= s;
        }
}

// u = τ − Sᵀ·pA (nv values): the joint effort left once the articulated bias force pA is accounted for.
// u may alias tau.
template <typename T>
GLASS_HD void articulated_joint_bias(int kind, const T* axis, const T* tau, const T* pA, T* u) {
    T s[6];
    joint_project<T>(kind, axis, pA, s);
    const int nv = joint_nv(kind);
    for (int k = 0; k < nv; ++k) u[k] = tau[k] - s[k];
}

// pA ← pA + A·c + U·D⁻¹·u: the articulated bias force a body passes to its parent (still in body
// coordinates), where A is the articulated inertia with the joint already removed
// (articulated_remove_joint), c the velocity-product acceleration v × S·qd and u = τ − Sᵀ·pA.
template <typename T>
GLASS_HD void articulated_bias_remove_joint(int nv, const T* A, const T* c, const T* U, const T* Dinv, const T* u,
                                            T* pA) {
    T du[6];
    for (int a = 0; a < nv; ++a) {
        T s = T(0);
        for (int b = 0; b < nv; ++b) s += Dinv[a + nv * b] * u[b];
        du[a] = s;
    }
    for (int i = 0; i < 6; ++i) {
        T s = pA[i];
        for (int k = 0; k < 6; ++k) s += A[i + 6 * k] * c[k];
        for (int a = 0; a < nv; ++a) s += U[i + 6 * a] * du[a];
        pA[i] = s;
    }
}

// The joint step of the articulated-body forward pass: on entry a holds X·a_parent + c; computes
// qdd = D⁻¹·(u − Uᵀ·a) (nv values) and then a ← a + S·qdd, the body's acceleration. qdd may alias u.
template <typename T>
GLASS_HD void articulated_joint_acceleration(int kind, const T* axis, const T* U, const T* Dinv, const T* u, T* a,
                                             T* qdd) {
    const int nv = joint_nv(kind);
    T r[6];
    for (int c = 0; c < nv; ++c) {
        T s = u[c];
        for (int k = 0; k < 6; ++k) s -= U[k + 6 * c] * a[k];
        r[c] = s;
    }
    T x[6];
    for (int i = 0; i < nv; ++i) {
        T s = T(0);
        for (int k = 0; k < nv; ++k) s += Dinv[i + nv * k] * r[k];
        x[i] = s;
    }
    for (int i = 0; i < nv; ++i) qdd[i] = x[i];
    joint_motion<T, true>(kind, axis, x, a);
}

}  // namespace grid
