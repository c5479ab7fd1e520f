// Time integration of forward dynamics, and whole rollouts with their forward- and reverse-mode derivatives,
// one sample per thread.
//
// One step from the state (q, qd) under efforts u held over the step, a(q, qd) = FD(q, qd, u):
//   semi-implicit (symplectic) Euler   qd₁ = qd + dt·a(q, qd),  q₁ = q ⊕ dt·qd₁
//   classical Runge-Kutta (RK4)        a₁ = a(q, qd); v₂ = qd + dt/2·a₁, a₂ = a(q ⊕ dt/2·qd, v₂);
//                                      v₃ = qd + dt/2·a₂, a₃ = a(q ⊕ dt/2·v₂, v₃); v₄ = qd + dt·a₃,
//                                      a₄ = a(q ⊕ dt·v₃, v₄); q₁ = q ⊕ dt/6·(qd + 2v₂ + 2v₃ + v₄),
//                                      qd₁ = qd + dt/6·(a₁ + 2a₂ + 2a₃ + a₄)
// ⊕ is the configuration update: q + v for one-coordinate joints; a free-flyer [p; quat] moves by the
// exponential of its body twist [v_lin; ω]: p + R(quat)·V(ω)·v_lin and quat ⊗ exp(ω/2). The formulas are
// python/grid_rbd/configuration.py's term for term (the quaternion is not renormalised), so the kernels and
// the JAX composition of single steps agree to rounding.
//
// Derivatives are taken in configuration coordinates (a free-flyer's 7), as JAX differentiates q:
//   tangent (forward mode)  one dual-number run of the steps (grid/dual.cuh) seeded with the tangent;
//   adjoint (reverse mode)  the steps backwards from the stored trajectory, each step's vector-Jacobian
//                           product from the articulated-body algorithm and inverse dynamics' derivatives:
//                           with μ = M⁻¹·ā, the efforts get μ, qd gets −(∂τ/∂qd)ᵀ·μ and q gets
//                           −(∂τ/∂q)ᵀ·μ mapped to coordinates; ⊕'s own Jacobian comes from dual numbers.
// Configurations are read through the kernels' normalised quaternion, so a radial change of a free-flyer's
// quaternion does not move the dynamics (it does move ⊕'s output, which is bilinear in the quaternion).
#pragma once

#include "grid/algorithms/aba.cuh"
#include "grid/algorithms/directions.cuh"
#include "grid/algorithms/rnea_gradient.cuh"
#include "grid/dual.cuh"
#include "grid/model.cuh"
#include "grid/schedule.cuh"

#include <cmath>

// The steps' large pieces (the articulated-body algorithm, a step, a step's reverse mode) are outlined: the
// rollouts call them at several places, and a copy per place made nvcc's time for the rollout handlers 4×
// longer (137 s against 32 s for a four-body robot). GRID_ROLLOUT_INLINE inlines them, for comparing speed.
// The forward rollout inlines `integrator` for semi-implicit Euler (one more copy of the articulated-body
// algorithm): its state then stays in registers, which made the forward rollout 37 % faster on an H100.
#if defined(GRID_ROLLOUT_INLINE)
#define GRID_ROLLOUT_PIECE GLASS_HD
#else
#define GRID_ROLLOUT_PIECE GLASS_HD_OUTLINED
#endif

namespace grid {
namespace algorithms {

enum IntegratorMethod : int { INTEGRATOR_SEMI_IMPLICIT = 0, INTEGRATOR_RK4 = 1 };

constexpr bool valid_integrator_method(long long m) {
    return m == INTEGRATOR_SEMI_IMPLICIT || m == INTEGRATOR_RK4;
}

// A free-flyer's [p; quat] (xyzw) ⊕ [v_lin; ω]; S is a float type or a dual number.
template <typename S>
GLASS_HD void free_flyer_integrate(S* out, const S* q, const S* v) {
    using std::cos;
    using std::sin;
    using std::sqrt;
    const S lx = v[0], ly = v[1], lz = v[2], wx = v[3], wy = v[4], wz = v[5];
    const S theta2 = wx * wx + wy * wy + wz * wz;
    // below this the trigonometric ratios are their Taylor series (as configuration.py)
    const bool small = primal(theta2) < 1e-6;
    const S theta = sqrt(small ? S(1) : theta2);
    S b, c, half_sinc, cos_half;
    if (small) {
        b = S(0.5) - theta2 / S(24.0);
        c = S(1.0 / 6.0) - theta2 / S(120.0);
        half_sinc = S(0.5) - theta2 / S(48.0);
        cos_half = S(1.0) - theta2 / S(8.0) + theta2 * theta2 / S(384.0);
    } else {
        b = (S(1.0) - cos(theta)) / (theta * theta);
        c = (theta - sin(theta)) / (theta * theta * theta);
        half_sinc = sin(S(0.5) * theta) / theta;
        cos_half = cos(S(0.5) * theta);
    }
    // x = V(ω)·v_lin = v_lin + b·ω×v_lin + c·ω×(ω×v_lin)
    const S ax = wy * lz - wz * ly, ay = wz * lx - wx * lz, az = wx * ly - wy * lx;
    const S bx = wy * az - wz * ay, by = wz * ax - wx * az, bz = wx * ay - wy * ax;
    const S x0 = lx + b * ax + c * bx, x1 = ly + b * ay + c * by, x2 = lz + b * az + c * bz;
    // R(quat)·x = x + w·t + u×t with t = 2·u×x, u the quaternion's vector part
    const S ux = q[3], uy = q[4], uz = q[5], uw = q[6];
    const S tx = S(2.0) * (uy * x2 - uz * x1), ty = S(2.0) * (uz * x0 - ux * x2), tz = S(2.0) * (ux * x1 - uy * x0);
    out[0] = q[0] + (x0 + uw * tx + (uy * tz - uz * ty));
    out[1] = q[1] + (x1 + uw * ty + (uz * tx - ux * tz));
    out[2] = q[2] + (x2 + uw * tz + (ux * ty - uy * tx));
    // quat ⊗ exp(ω/2), exp(ω/2) = [half_sinc·ω; cos_half]
    const S ex = half_sinc * wx, ey = half_sinc * wy, ez = half_sinc * wz, ew = cos_half;
    out[3] = uw * ex + ew * ux + (uy * ez - uz * ey);
    out[4] = uw * ey + ew * uy + (uz * ex - ux * ez);
    out[5] = uw * ez + ew * uz + (ux * ey - uy * ex);
    out[6] = uw * ew - (ux * ex + uy * ey + uz * ez);
}

// The acceleration a (NV) = FD(q, qd, u) of one thread.
template <class R, typename S>
GRID_ROLLOUT_PIECE void accelerate(S* a, const S* q, const S* qd, const S* u, Vec3<S> gravity, AbaState<R, S>& st) {
    aba<R>(ThreadScope{}, a, q, qd, u, st, gravity);
}

// q_out (NQ) = q ⊕ v (NV), each joint by the thread of the scope that owns its body.
template <class R, typename S, class Scope>
GLASS_HD void integrate_configuration(const Scope& scope, S* q_out, const S* q, const S* v) {
    forward_sweep<R>(scope, [&](auto i) {
        const auto j = joint<R>(i);
        using J = decltype(j);
        if constexpr (J::kind == JOINT_FREE_FLYER) {
            free_flyer_integrate(q_out + j.q, q + j.q, v + j.v);
        } else {
            for (int k = 0; k < J::nv; ++k) q_out[j.q + k] = q[j.q + k] + v[j.v + k];
        }
    });
}

// Reverse mode of ⊕ at (q, v): gq (NQ) += (∂(q ⊕ v)/∂q)ᵀ·g and gv (NV) = (∂(q ⊕ v)/∂v)ᵀ·g for g (NQ). A
// free-flyer's 7×13 Jacobian comes column by column from dual numbers.
template <class R, typename T>
GRID_ROLLOUT_PIECE void integrate_configuration_vjp(T* gq, T* gv, const T* q, const T* v, const T* g) {
    forward_sweep<R>(ThreadScope{}, [&](auto i) {
        const auto j = joint<R>(i);
        using J = decltype(j);
        if constexpr (J::kind == JOINT_FREE_FLYER) {
            for (int k = 0; k < 13; ++k) {
                Dual<T> dq[7], dv[6], out[7];
                for (int c = 0; c < 7; ++c) dq[c] = Dual<T>(q[j.q + c], T(c == k));
                for (int c = 0; c < 6; ++c) dv[c] = Dual<T>(v[j.v + c], T(c + 7 == k));
                free_flyer_integrate(out, dq, dv);
                T s = T(0);
                for (int c = 0; c < 7; ++c) s += out[c].d * g[j.q + c];
                if (k < 7) {
                    gq[j.q + k] += s;
                } else {
                    gv[j.v + k - 7] = s;
                }
            }
        } else {
            for (int k = 0; k < J::nv; ++k) {
                gq[j.q + k] += g[j.q + k];
                gv[j.v + k] = g[j.q + k];
            }
        }
    });
}

// rot (row-major 3×3) = R(quat / |quat|) for quat = (x, y, z, w) and s = 2 / |quat|², as
// python/grid_rbd/_autodiff.py's _rotation.
template <typename T>
GLASS_HD void quaternion_rotation(T* rot, T x, T y, T z, T w, T s) {
    rot[0] = T(1) - s * (y * y + z * z);
    rot[1] = s * (x * y - z * w);
    rot[2] = s * (x * z + y * w);
    rot[3] = s * (x * y + z * w);
    rot[4] = T(1) - s * (x * x + z * z);
    rot[5] = s * (y * z - x * w);
    rot[6] = s * (x * z - y * w);
    rot[7] = s * (y * z + x * w);
    rot[8] = T(1) - s * (x * x + y * y);
}

// gq (NQ) += Cᵀ·gθ for the tangent map dθ = C·dq of the kernels' derivatives (python/grid_rbd/_autodiff.py's
// configuration_tangent): the identity for one-coordinate joints; for a free-flyer v_lin = Rᵀ·dp and
// ω = 2·Im(conj(quat) ⊗ dquat)/|quat|², R the rotation of quat/|quat|.
template <class R, typename T>
GLASS_HD void configuration_tangent_vjp(T* gq, const T* q, const T* gtheta) {
    forward_sweep<R>(ThreadScope{}, [&](auto i) {
        const auto j = joint<R>(i);
        using J = decltype(j);
        if constexpr (J::kind == JOINT_FREE_FLYER) {
            const T x = q[j.q + 3], y = q[j.q + 4], z = q[j.q + 5], w = q[j.q + 6];
            const T n2 = x * x + y * y + z * z + w * w, s = T(2) / n2;
            T rot[9];
            quaternion_rotation(rot, x, y, z, w, s);
            const T* gl = gtheta + j.v;
            const T* ga = gtheta + j.v + 3;
            for (int r = 0; r < 3; ++r) gq[j.q + r] += rot[3 * r] * gl[0] + rot[3 * r + 1] * gl[1] + rot[3 * r + 2] * gl[2];
            // ω = s·(w·dv − dw·u − u×dv) for dquat = (dv, dw): transposed, dv gets s·(w·gω + u×gω), dw −s·u·gω
            gq[j.q + 3] += s * (w * ga[0] + (y * ga[2] - z * ga[1]));
            gq[j.q + 4] += s * (w * ga[1] + (z * ga[0] - x * ga[2]));
            gq[j.q + 5] += s * (w * ga[2] + (x * ga[1] - y * ga[0]));
            gq[j.q + 6] -= s * (x * ga[0] + y * ga[1] + z * ga[2]);
        } else {
            for (int k = 0; k < J::nv; ++k) gq[j.q + k] += gtheta[j.v + k];
        }
    });
}

// The integrator's state: registers in ThreadScope, the group's scratch in GroupScope.
template <class R, typename T>
struct IntegratorState {
    T a[R::NV];      // the stage's acceleration
    T v[R::NV];      // the stage's velocity
    T w[R::NV];      // the configuration step to the stage
    T sum_v[R::NV];  // RK4's weighted sums of the stages' velocities and accelerations
    T sum_a[R::NV];
    T p[R::NQ];      // the stage's configuration
    AbaState<R, T> aba;
};

// One step of `method` (valid_integrator_method; any other runs RK4) from (q, qd) under u held over the
// step dt[0]: q_next (NQ), qd_next (NV). S is a float type or a dual number. One call site of the
// articulated-body algorithm serves every stage.
template <class R, typename S, class Scope>
GLASS_HD void integrator(const Scope& scope, S* q_next, S* qd_next, const S* q, const S* qd, const S* u, const S* dt,
                         IntegratorState<R, S>& st, int method, Vec3<S> gravity) {
    constexpr int NV = R::NV;
    const S h = dt[0];
    const S half = S(0.5) * h, sixth = h / S(6.0);
    for (int stage = 1;; ++stage) {
        aba<R>(scope, st.a, stage == 1 ? q : st.p, stage == 1 ? qd : st.v, u, st.aba, gravity);
        scope.sync();
        if (method == INTEGRATOR_SEMI_IMPLICIT) {
            for_each_item<NV>(scope, [&](int k) {
                qd_next[k] = qd[k] + h * st.a[k];
                st.w[k] = h * qd_next[k];
            });
            break;
        }
        // RK4: v_k = qd + c·dt·a_{k-1} at p_k = q ⊕ c·dt·v_{k-1}; the sums weigh the stages 1, 2, 2, 1
        for_each_item<NV>(scope, [&](int k) {
            if (stage == 1) {
                st.sum_v[k] = qd[k];
                st.sum_a[k] = st.a[k];
            } else {
                const S weight = stage == 4 ? S(1.0) : S(2.0);
                st.sum_v[k] = st.sum_v[k] + weight * st.v[k];
                st.sum_a[k] = st.sum_a[k] + weight * st.a[k];
            }
            if (stage < 4) {
                const S step = stage == 3 ? h : half;
                st.w[k] = step * (stage == 1 ? qd[k] : st.v[k]);
                st.v[k] = qd[k] + step * st.a[k];
            } else {
                st.w[k] = sixth * st.sum_v[k];
                qd_next[k] = qd[k] + sixth * st.sum_a[k];
            }
        });
        scope.sync();
        if (stage == 4) break;
        integrate_configuration<R>(scope, st.p, q, st.w);
        scope.sync();
    }
    scope.sync();
    integrate_configuration<R>(scope, q_next, q, st.w);
    scope.sync();
}

// integrator for one thread: q1 (NQ), qd1 (NV) one step of `method` from (q, qd) under u.
template <class R, typename S>
GRID_ROLLOUT_PIECE void integrator_step(int method, S* q1, S* qd1, const S* q, const S* qd, const S* u, S dt,
                                        Vec3<S> gravity, IntegratorState<R, S>& st) {
    integrator<R>(ThreadScope{}, q1, qd1, q, qd, u, &dt, st, method, gravity);
}

// theta (NV) = C·dq, the tangent coordinates of a configuration change dq (NQ) at q: the identity for
// one-coordinate joints; for a free-flyer v_lin = Rᵀ·dp and ω = 2·Im(conj(quat) ⊗ dquat)/|quat|² (the
// transpose of configuration_tangent_vjp).
template <class R, typename T>
GLASS_HD void configuration_tangent(T* theta, const T* q, const T* dq) {
    forward_sweep<R>(ThreadScope{}, [&](auto i) {
        const auto j = joint<R>(i);
        using J = decltype(j);
        if constexpr (J::kind == JOINT_FREE_FLYER) {
            const T x = q[j.q + 3], y = q[j.q + 4], z = q[j.q + 5], w = q[j.q + 6];
            const T s = T(2) / (x * x + y * y + z * z + w * w);
            T rot[9];
            quaternion_rotation(rot, x, y, z, w, s);
            const T* dp = dq + j.q;
            const T dx = dq[j.q + 3], dy = dq[j.q + 4], dz = dq[j.q + 5], dw = dq[j.q + 6];
            for (int c = 0; c < 3; ++c) theta[j.v + c] = rot[c] * dp[0] + rot[3 + c] * dp[1] + rot[6 + c] * dp[2];
            // s·(w·dv − dw·u − u×dv)
            theta[j.v + 3] = s * (w * dx - dw * x - (y * dz - z * dy));
            theta[j.v + 4] = s * (w * dy - dw * y - (z * dx - x * dz));
            theta[j.v + 5] = s * (w * dz - dw * z - (x * dy - y * dx));
        } else {
            for (int k = 0; k < J::nv; ++k) theta[j.v + k] = dq[j.q + k];
        }
    });
}

// Column `item` of the step's Jacobian [∂x₁/∂x | ∂x₁/∂u] in tangent coordinates, x = (θ, qd) with θ the
// tangent of q (q ⊕ θ) and x₁ = (θ₁, qd₁) at q₁: one dual-number run of the step seeded along tangent direction
// item of q (item < NV), velocity coordinate item − NV, or effort item − 2·NV. q_next and qd_next receive
// the step itself.
template <class R, typename T>
GLASS_HD void integrator_direction(T* col, T* q_next, T* qd_next, int item, const T* q, const T* qd, const T* u,
                                   const T* dt, int method, Vec3<T> gravity) {
    constexpr int NV = R::NV, NQ = R::NQ;
    const int along = item / NV, b = item % NV;  // 0: q, 1: qd, 2: u
    Dual<T> dq[NQ], dqd[NV], du[NV], q1[NQ], qd1[NV];
    seed_direction<R>(dq, dqd, du, q, qd, u, along == 0, b);
    if (along == 2) {
        dqd[b].d = T(0);
        du[b].d = T(1);
    }
    IntegratorState<R, Dual<T>> st;
    integrator_step<R>(method, q1, qd1, dq, dqd, du, Dual<T>(dt[0], T(0)), dual_gravity(gravity), st);
    T moved[NQ];
    for (int k = 0; k < NQ; ++k) {
        moved[k] = q1[k].d;
        q_next[k] = q1[k].v;
    }
    configuration_tangent<R>(col, q_next, moved);
    for (int k = 0; k < NV; ++k) {
        col[NV + k] = qd1[k].d;
        qd_next[k] = qd1[k].v;
    }
}

// The directions run in each thread's own registers; the group shares nothing.
template <class R, typename T>
struct IntegratorGradientState {
    T unused;
};

// One step and its Jacobians in tangent coordinates (integrator_direction): q_next (NQ), qd_next (NV),
// dxnext_dx ([2·NV, 2·NV] row-major, row = (θ₁, qd₁) index, column = (θ, qd) direction) and dxnext_du
// ([2·NV, NV]), one direction per item of the scope (3·NV of them).
template <class R, typename T, class S>
GLASS_HD void integrator_gradient(const S& scope, T* q_next, T* qd_next, T* dxnext_dx, T* dxnext_du, const T* q,
                                  const T* qd, const T* u, const T* dt, IntegratorGradientState<R, T>& st,
                                  int method, Vec3<T> gravity) {
    (void)st;
    constexpr int NV = R::NV, NQ = R::NQ, NX = 2 * R::NV;
    for_each_item<3 * NV>(scope, [&](int item) {
        T col[NX], qn[NQ], qdn[NV];
        integrator_direction<R>(col, qn, qdn, item, q, qd, u, dt, method, gravity);
        if (item < NX) {
            for (int r = 0; r < NX; ++r) dxnext_dx[r * NX + item] = col[r];
        } else {
            for (int r = 0; r < NX; ++r) dxnext_du[r * NV + item - NX] = col[r];
        }
        if (item == 0) {
            for (int k = 0; k < NQ; ++k) q_next[k] = qn[k];
            for (int k = 0; k < NV; ++k) qd_next[k] = qdn[k];
        }
    });
    scope.sync();
}

// Reverse mode of forward dynamics a = FD(q, qd, u) at a state whose acceleration a (NV) the step has already
// computed: for the cotangent ga (NV) of a, gq (NQ) += the cotangent of q, gqd (NV) += that of qd and gu (NV)
// += that of u.
template <class R, typename T>
struct FdVjpState {
    T dtau_dq[R::NV * R::NV];
    T dtau_dqd[R::NV * R::NV];
    union {
        AbaState<R, T> aba;
        RneaGradientState<R, T> gradient;
    };
};

template <class R, typename T>
GRID_ROLLOUT_PIECE void forward_dynamics_vjp(T* gq, T* gqd, T* gu, const T* a, const T* q, const T* qd, const T* ga,
                                             Vec3<T> gravity, FdVjpState<R, T>& st) {
    constexpr int NV = R::NV;
    T zero[NV], mu[NV], gtheta[NV];
    for (int k = 0; k < NV; ++k) zero[k] = T(0);
    // μ = M⁻¹·ga: the articulated-body algorithm without velocity or gravity
    accelerate<R>(mu, q, zero, ga, Vec3<T>{T(0), T(0), T(0)}, st.aba);
    inverse_dynamics_gradient<R>(ThreadScope{}, st.dtau_dq, st.dtau_dqd, q, qd, a, st.gradient, gravity);
    for (int c = 0; c < NV; ++c) {
        T sq = T(0), sv = T(0);
        for (int r = 0; r < NV; ++r) {
            sq += st.dtau_dq[r * NV + c] * mu[r];
            sv += st.dtau_dqd[r * NV + c] * mu[r];
        }
        gtheta[c] = -sq;
        gqd[c] += -sv;
        gu[c] += mu[c];
    }
    configuration_tangent_vjp<R>(gq, q, gtheta);
}

template <typename T>
GLASS_HD T dot_n(const T* a, const T* b, int n) {
    T s = T(0);
    for (int k = 0; k < n; ++k) s += a[k] * b[k];
    return s;
}

// Reverse mode of one integrator_step at (q, qd, u, dt): given the cotangents lq (NQ) and lqd (NV) of
// (q1, qd1), gq (NQ) and gqd (NV) receive those of q and qd, gu (NV) that of u, and gdt += that of dt.
template <class R, typename T>
GLASS_HD void integrator_step_vjp(int method, T* gq, T* gqd, T* gu, T& gdt, const T* q, const T* qd, const T* u,
                                  T dt, const T* lq, const T* lqd, Vec3<T> gravity, FdVjpState<R, T>& st) {
    constexpr int NV = R::NV, NQ = R::NQ;
    for (int k = 0; k < NQ; ++k) gq[k] = T(0);
    for (int k = 0; k < NV; ++k) gu[k] = T(0);
    if (method == INTEGRATOR_SEMI_IMPLICIT) {
        T a[NV], qd1[NV], v[NV], gv[NV], ga[NV];
        accelerate<R>(a, q, qd, u, gravity, st.aba);
        for (int k = 0; k < NV; ++k) {
            qd1[k] = qd[k] + dt * a[k];
            v[k] = dt * qd1[k];
        }
        integrate_configuration_vjp<R>(gq, gv, q, v, lq);
        for (int k = 0; k < NV; ++k) {
            gqd[k] = lqd[k] + dt * gv[k];  // the cotangent of qd1
        }
        gdt += dot_n(qd1, gv, NV) + dot_n(a, gqd, NV);
        for (int k = 0; k < NV; ++k) ga[k] = dt * gqd[k];
        forward_dynamics_vjp<R>(gq, gqd, gu, a, q, qd, ga, gravity, st);
        return;
    }
    // RK4: the stages forward (p_k = q ⊕ w_k, v_k, a_k), then their cotangents backwards
    const T half = T(0.5) * dt, sixth = dt / T(6.0);
    T p[3][NQ], w[4][NV], v[4][NV], a[4][NV];
    accelerate<R>(a[0], q, qd, u, gravity, st.aba);
    for (int k = 0; k < NV; ++k) v[0][k] = qd[k];
    for (int s = 1; s < 4; ++s) {
        const T step = s == 3 ? dt : half;
        for (int k = 0; k < NV; ++k) {
            w[s - 1][k] = step * v[s - 1][k];
            v[s][k] = qd[k] + step * a[s - 1][k];
        }
        integrate_configuration<R>(ThreadScope{}, p[s - 1], q, w[s - 1]);
        accelerate<R>(a[s], p[s - 1], v[s], u, gravity, st.aba);
    }
    T sum_v[NV], sum_a[NV];
    for (int k = 0; k < NV; ++k) {
        sum_v[k] = ((v[0][k] + T(2.0) * v[1][k]) + T(2.0) * v[2][k]) + v[3][k];
        sum_a[k] = ((a[0][k] + T(2.0) * a[1][k]) + T(2.0) * a[2][k]) + a[3][k];
        w[3][k] = sixth * sum_v[k];
    }
    T gw[NV], gv[4][NV], gacc[4][NV];
    integrate_configuration_vjp<R>(gq, gw, q, w[3], lq);
    gdt += (dot_n(sum_v, gw, NV) + dot_n(sum_a, lqd, NV)) / T(6.0);
    for (int k = 0; k < NV; ++k) {
        gqd[k] = lqd[k];
        for (int s = 0; s < 4; ++s) {
            const T weight = s == 0 || s == 3 ? sixth : T(2.0) * sixth;
            gv[s][k] = weight * gw[k];
            gacc[s][k] = weight * lqd[k];
        }
    }
    for (int s = 3; s >= 1; --s) {
        // a_s = FD(p_{s-1}, v_s, u) with p_{s-1} = q ⊕ step·v_{s-1} and v_s = qd + step·a_{s-1}
        const T step = s == 3 ? dt : half, dstep = s == 3 ? T(1) : T(0.5);
        T gp[NQ];
        for (int k = 0; k < NQ; ++k) gp[k] = T(0);
        forward_dynamics_vjp<R>(gp, gv[s], gu, a[s], p[s - 1], v[s], gacc[s], gravity, st);
        integrate_configuration_vjp<R>(gq, gw, q, w[s - 1], gp);
        gdt += dstep * (dot_n(v[s - 1], gw, NV) + dot_n(a[s - 1], gv[s], NV));
        for (int k = 0; k < NV; ++k) {
            gv[s - 1][k] += step * gw[k];
            gqd[k] += gv[s][k];
            gacc[s - 1][k] += step * gv[s][k];
        }
    }
    forward_dynamics_vjp<R>(gq, gv[0], gu, a[0], q, qd, gacc[0], gravity, st);
    for (int k = 0; k < NV; ++k) gqd[k] += gv[0][k];
}

// ---------------------------------------------------------------------------------------------------------
// Rollouts of T steps, one sample: the per-sample layouts are q0 [NQ], qd0 [NV], u [T, NV], dt a scalar, and
// the trajectory qs [T, NQ], qds [T, NV] holds the states after each step.
// ---------------------------------------------------------------------------------------------------------

template <class R, typename T>
GLASS_HD void rollout(int method, int steps, T* qs, T* qds, const T* q0, const T* qd0, const T* u, T dt,
                      Vec3<T> gravity) {
    constexpr int NV = R::NV, NQ = R::NQ;
    T q[NQ], qd[NV];
    for (int k = 0; k < NQ; ++k) q[k] = q0[k];
    for (int k = 0; k < NV; ++k) qd[k] = qd0[k];
    IntegratorState<R, T> st;
    T q1[NQ], qd1[NV];
    for (int t = 0; t < steps; ++t) {
        const T* ut = u + size_t(t) * NV;
        if (method == INTEGRATOR_SEMI_IMPLICIT) {
            // inlined with its method known, so that the state stays in registers
            integrator<R>(ThreadScope{}, q1, qd1, q, qd, ut, &dt, st, INTEGRATOR_SEMI_IMPLICIT, gravity);
        } else {
            integrator_step<R>(method, q1, qd1, q, qd, ut, dt, gravity, st);
        }
        for (int k = 0; k < NQ; ++k) qs[size_t(t) * NQ + k] = q[k] = q1[k];
        for (int k = 0; k < NV; ++k) qds[size_t(t) * NV + k] = qd[k] = qd1[k];
    }
}

// Forward mode: the trajectory's tangent (dqs [T, NQ], dqds [T, NV]) along the tangent (dq0, dqd0, du, ddt)
// of the inputs.
template <class R, typename T>
GLASS_HD void rollout_tangent(int method, int steps, T* dqs, T* dqds, const T* q0, const T* qd0, const T* u, T dt,
                              const T* dq0, const T* dqd0, const T* du, T ddt, Vec3<T> gravity) {
    constexpr int NV = R::NV, NQ = R::NQ;
    using D = Dual<T>;
    D q[NQ], qd[NV], q1[NQ], qd1[NV], uu[NV];
    for (int k = 0; k < NQ; ++k) q[k] = D(q0[k], dq0[k]);
    for (int k = 0; k < NV; ++k) qd[k] = D(qd0[k], dqd0[k]);
    const D h(dt, ddt);
    IntegratorState<R, D> st;
    for (int t = 0; t < steps; ++t) {
        for (int k = 0; k < NV; ++k) uu[k] = D(u[size_t(t) * NV + k], du[size_t(t) * NV + k]);
        integrator_step<R>(method, q1, qd1, q, qd, uu, h, dual_gravity(gravity), st);
        for (int k = 0; k < NQ; ++k) {
            q[k] = q1[k];
            dqs[size_t(t) * NQ + k] = q1[k].d;
        }
        for (int k = 0; k < NV; ++k) {
            qd[k] = qd1[k];
            dqds[size_t(t) * NV + k] = qd1[k].d;
        }
    }
}

// Reverse mode: for the cotangents (gqs [T, NQ], gqds [T, NV]) of the trajectory (qs, qds) that rollout
// computed, those of the inputs: gq0 [NQ], gqd0 [NV], gu [T, NV] and *gdt.
template <class R, typename T>
GLASS_HD void rollout_adjoint(int method, int steps, T* gq0, T* gqd0, T* gu, T* gdt, const T* q0, const T* qd0,
                              const T* u, T dt, const T* qs, const T* qds, const T* gqs, const T* gqds,
                              Vec3<T> gravity) {
    constexpr int NV = R::NV, NQ = R::NQ;
    T lq[NQ], lqd[NV], gq[NQ], gqd[NV];
    for (int k = 0; k < NQ; ++k) lq[k] = T(0);
    for (int k = 0; k < NV; ++k) lqd[k] = T(0);
    T sum_dt = T(0);
    FdVjpState<R, T> st;
    for (int t = steps - 1; t >= 0; --t) {
        for (int k = 0; k < NQ; ++k) lq[k] += gqs[size_t(t) * NQ + k];
        for (int k = 0; k < NV; ++k) lqd[k] += gqds[size_t(t) * NV + k];
        const T* q = t == 0 ? q0 : qs + size_t(t - 1) * NQ;
        const T* qd = t == 0 ? qd0 : qds + size_t(t - 1) * NV;
        integrator_step_vjp<R>(method, gq, gqd, gu + size_t(t) * NV, sum_dt, q, qd, u + size_t(t) * NV, dt, lq,
                               lqd, gravity, st);
        for (int k = 0; k < NQ; ++k) lq[k] = gq[k];
        for (int k = 0; k < NV; ++k) lqd[k] = gqd[k];
    }
    for (int k = 0; k < NQ; ++k) gq0[k] = lq[k];
    for (int k = 0; k < NV; ++k) gqd0[k] = lqd[k];
    *gdt = sum_dt;
}

// Reverse mode of a window of `steps` semi-implicit Euler steps from each step's dynamics Jacobians, formed
// beforehand for all steps at once (adjoint="jacobians": the batched derivative kernels fill the GPU, and this
// recursion is a few matrix-vector products a step). Step t takes (q_t, qd_t) to qd_{t+1} = qd_t + dt·a_t and
// q_{t+1} = q_t ⊕ dt·qd_{t+1}. Per sample: q_first (NQ) the configuration before the window's first step,
// qs [T, NQ] and qds [T, NV] the states after each step, gqs and gqds their cotangents, da_dq and da_dqd
// [T, NV, NV] (row = acceleration index; ∂/∂q along tangent directions), minv [T, NV, NV] and acc [T, NV] each
// step's M⁻¹ and acceleration. lq (NQ) and lqd (NV) hold the cotangents of the state after the window and
// receive those of the state before it; gu [T, NV] receives u's cotangents and *gdt dt's.
template <class R, typename T>
GLASS_HD void rollout_adjoint_jacobians(int steps, T* lq, T* lqd, T* gu, T* gdt, const T* q_first, const T* qs,
                                        const T* qds, const T* gqs, const T* gqds, const T* da_dq,
                                        const T* da_dqd, const T* minv, const T* acc, T dt) {
    constexpr int NV = R::NV, NQ = R::NQ;
    constexpr size_t NN = size_t(NV) * NV;
    T sum_dt = T(0);
    for (int t = steps - 1; t >= 0; --t) {
        for (int k = 0; k < NQ; ++k) lq[k] += gqs[size_t(t) * NQ + k];
        for (int k = 0; k < NV; ++k) lqd[k] += gqds[size_t(t) * NV + k];
        const T* q = t == 0 ? q_first : qs + size_t(t - 1) * NQ;
        const T* qd1 = qds + size_t(t) * NV;
        const T* a = acc + size_t(t) * NV;
        // ⊕ passes lq to q and λ_v = gv to its step v = dt·qd1; qd1 gets c_v = lqd + dt·λ_v, a gets λ = dt·c_v
        T v[NV], gq[NQ], gv[NV], lam[NV];
        for (int k = 0; k < NV; ++k) v[k] = dt * qd1[k];
        for (int k = 0; k < NQ; ++k) gq[k] = T(0);
        integrate_configuration_vjp<R>(gq, gv, q, v, lq);
        for (int k = 0; k < NV; ++k) {
            const T c_v = lqd[k] + dt * gv[k];
            sum_dt += qd1[k] * gv[k] + a[k] * c_v;
            lqd[k] = c_v;
            lam[k] = dt * c_v;
        }
        // u gets M⁻¹ᵀ·λ, q gets ∂a/∂qᵀ·λ (tangent, then coordinates), qd gets c_v + ∂a/∂qdᵀ·λ
        const T* Aq = da_dq + size_t(t) * NN;
        const T* Aqd = da_dqd + size_t(t) * NN;
        const T* Mi = minv + size_t(t) * NN;
        T w[NV];
        for (int c = 0; c < NV; ++c) {
            T su = T(0), sq = T(0), sqd = T(0);
            for (int r = 0; r < NV; ++r) {
                su += Mi[r * NV + c] * lam[r];
                sq += Aq[r * NV + c] * lam[r];
                sqd += Aqd[r * NV + c] * lam[r];
            }
            gu[size_t(t) * NV + c] = su;
            w[c] = sq;
            lqd[c] += sqd;
        }
        configuration_tangent_vjp<R>(gq, q, w);
        for (int k = 0; k < NQ; ++k) lq[k] = gq[k];
    }
    *gdt = sum_dt;
}

#if defined(__CUDACC__)
// One sample per thread over num_samples samples, each a rollout of `steps` steps.
template <class R, typename T>
__global__ void rollout_kernel(int method, int steps, T* qs, T* qds, const T* q0, const T* qd0, const T* u,
                               const T* dt, Vec3<T> gravity, int num_samples) {
    constexpr size_t NV = R::NV, NQ = R::NQ;
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < num_samples; k += gridDim.x * blockDim.x) {
        const size_t s = size_t(k), n = size_t(steps);
        rollout<R>(method, steps, qs + s * n * NQ, qds + s * n * NV, q0 + s * NQ, qd0 + s * NV, u + s * n * NV,
                   dt[s], gravity);
    }
}

template <class R, typename T>
__global__ void rollout_tangent_kernel(int method, int steps, T* dqs, T* dqds, const T* q0, const T* qd0,
                                       const T* u, const T* dt, const T* dq0, const T* dqd0, const T* du,
                                       const T* ddt, Vec3<T> gravity, int num_samples) {
    constexpr size_t NV = R::NV, NQ = R::NQ;
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < num_samples; k += gridDim.x * blockDim.x) {
        const size_t s = size_t(k), n = size_t(steps);
        rollout_tangent<R>(method, steps, dqs + s * n * NQ, dqds + s * n * NV, q0 + s * NQ, qd0 + s * NV,
                           u + s * n * NV, dt[s], dq0 + s * NQ, dqd0 + s * NV, du + s * n * NV, ddt[s], gravity);
    }
}

template <class R, typename T>
__global__ void rollout_adjoint_kernel(int method, int steps, T* gq0, T* gqd0, T* gu, T* gdt, const T* q0,
                                       const T* qd0, const T* u, const T* dt, const T* qs, const T* qds,
                                       const T* gqs, const T* gqds, Vec3<T> gravity, int num_samples) {
    constexpr size_t NV = R::NV, NQ = R::NQ;
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < num_samples; k += gridDim.x * blockDim.x) {
        const size_t s = size_t(k), n = size_t(steps);
        rollout_adjoint<R>(method, steps, gq0 + s * NQ, gqd0 + s * NV, gu + s * n * NV, gdt + s, q0 + s * NQ,
                           qd0 + s * NV, u + s * n * NV, dt[s], qs + s * n * NQ, qds + s * n * NV,
                           gqs + s * n * NQ, gqds + s * n * NV, gravity);
    }
}

template <class R, typename T>
__global__ void rollout_adjoint_jacobians_kernel(int steps, T* lq_out, T* lqd_out, T* gu, T* gdt, const T* q_first,
                                                 const T* lq, const T* lqd, const T* qs, const T* qds, const T* gqs,
                                                 const T* gqds, const T* da_dq, const T* da_dqd, const T* minv,
                                                 const T* acc, const T* dt, int num_samples) {
    constexpr size_t NV = R::NV, NQ = R::NQ;
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < num_samples; k += gridDim.x * blockDim.x) {
        const size_t s = size_t(k), n = size_t(steps);
        T cq[NQ], cqd[NV];
        for (size_t i = 0; i < NQ; ++i) cq[i] = lq[s * NQ + i];
        for (size_t i = 0; i < NV; ++i) cqd[i] = lqd[s * NV + i];
        rollout_adjoint_jacobians<R>(steps, cq, cqd, gu + s * n * NV, gdt + s, q_first + s * NQ, qs + s * n * NQ,
                                     qds + s * n * NV, gqs + s * n * NQ, gqds + s * n * NV, da_dq + s * n * NV * NV,
                                     da_dqd + s * n * NV * NV, minv + s * n * NV * NV, acc + s * n * NV, dt[s]);
        for (size_t i = 0; i < NQ; ++i) lq_out[s * NQ + i] = cq[i];
        for (size_t i = 0; i < NV; ++i) lqd_out[s * NV + i] = cqd[i];
    }
}
#endif

}  // namespace algorithms
}  // namespace grid
