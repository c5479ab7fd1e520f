// Second-order derivatives of inverse dynamics by forward-mode differentiation of the analytical first-order
// algorithm: each tangent direction b of q (and each velocity coordinate b) is one run of
// inverse_dynamics_gradient (and mass_matrix) on dual numbers seeded along b, whose derivative parts are
// column b of every second-order output. Cost: 2·NV runs of a first-order algorithm, instead of a
// second-order recursion per pair of directions. Those of forward dynamics follow from them and the first
// derivatives of forward dynamics by the implicit-function identities (fdsva_so).
//
// Index convention of every output: [i][a][b] = ∂(first derivative [i][a]) / ∂(direction b), where the
// first derivative is the one of the same name (∂τ/∂q, ∂τ/∂qd, M, ...), q directions are tangent
// directions (a free-flyer's body twist [v_lin; ω]) and the second-order tensors are NV×NV×NV, row-major.
#pragma once

#include "glass/quaternion.cuh"
#include "grid/algorithms/crba.cuh"
#include "grid/algorithms/fd_gradient.cuh"
#include "grid/algorithms/rnea_gradient.cuh"
#include "grid/dual.cuh"
#include "grid/model.cuh"
#include "grid/schedule.cuh"

namespace grid {
namespace algorithms {

// float and double outputs share one run per direction in double precision: one instantiation of the
// dual-number algorithms per robot instead of two (they dominate a robot's compile time), and float outputs
// without float's cancellation in second differences. Other scalar types (the flop counter's) run in their
// own type.

// An output array of either precision, so that one compiled direction run serves float and double callers.
struct AnyOutput {
    float* f;
    double* d;
    GLASS_HD void store(size_t k, double v) const {
        if (f) {
            f[k] = float(v);
        } else {
            d[k] = v;
        }
    }
};

// An output array of the working type itself.
template <typename T>
struct TypedOutput {
    T* p;
    GLASS_HD void store(size_t k, const T& v) const { p[k] = v; }
};

// The working type W of the direction runs for outputs of type T, and how their outputs are passed.
template <typename T>
struct SecondOrderPrecision {
    using W = T;
    using Out = TypedOutput<T>;
    GLASS_HD static Out output(T* p) { return Out{p}; }
    GLASS_HD static W input(const T& x) { return x; }
};
template <>
struct SecondOrderPrecision<float> {
    using W = double;
    using Out = AnyOutput;
    GLASS_HD static Out output(float* p) { return AnyOutput{p, nullptr}; }
    GLASS_HD static W input(float x) { return W(x); }
};
template <>
struct SecondOrderPrecision<double> {
    using W = double;
    using Out = AnyOutput;
    GLASS_HD static Out output(double* p) { return AnyOutput{nullptr, p}; }
    GLASS_HD static W input(double x) { return x; }
};

// Writes the derivative part of entry k to out[k·NV + b]: column b of a second-order tensor.
template <typename W, class Out>
struct DerivativeColumn {
    Out out;
    int nv, b;
    struct Slot {
        Out out;
        size_t at;
        GLASS_HD void operator=(const Dual<W>& x) { out.store(at, x.d); }
    };
    GLASS_HD Slot operator[](int k) const { return Slot{out, size_t(k) * size_t(nv) + size_t(b)}; }
};

// An output nobody reads: its entries are not stored.
template <typename W>
struct DiscardOutput {
    struct Slot {
        GLASS_HD void operator=(const Dual<W>&) {}
    };
    GLASS_HD Slot operator[](int) const { return Slot{}; }
};

// Dual-number copies of (q, qd, x) with tangent direction b of q seeded (along_q) or velocity coordinate b.
// A revolute or prismatic coordinate moves by ε; a free-flyer moves by its body twist e_b·ε:
// position by R·e_b (linear directions), quaternion by quat ⊗ [e_b/2; 0] (angular directions).
template <class R, typename W, typename T>
GLASS_HD void seed_direction(Dual<W>* dq, Dual<W>* dqd, Dual<W>* dx, const T* q, const T* qd, const T* x,
                             bool along_q, int b) {
    for (int k = 0; k < R::NQ; ++k) dq[k] = Dual<W>(W(q[k]), W(0));
    for (int k = 0; k < R::NV; ++k) {
        dqd[k] = Dual<W>(W(qd[k]), W(0));
        dx[k] = Dual<W>(W(x[k]), W(0));
    }
    if (!along_q) {
        dqd[b].d = W(1);
        return;
    }
    static_for<R::NB>([&](auto i) {
        using J = JointAt<R, i>;
        if (b < J::v || b >= J::v + J::nv) return;
        if constexpr (J::kind == JOINT_FREE_FLYER) {
            const W quat[4] = {W(q[J::q + 3]), W(q[J::q + 4]), W(q[J::q + 5]), W(q[J::q + 6])};  // x, y, z, w
            const int k = b - J::v;
            if (k < 3) {
                W unit[4], rot[9];
                glass::lie_detail::quat_normalize_core<W, glass::QuatLayout::xyzw, false>(quat, unit);
                glass::lie_detail::quat_to_rot_core<W, glass::QuatLayout::xyzw>(unit, rot);
                for (int c = 0; c < 3; ++c) dq[J::q + c].d = rot[c + 3 * k];  // column k of R
            } else {
                // quat ⊗ [p; 0] = [w·p + v × p; −v·p] with p = e_{k−3}/2
                W p[3] = {W(0), W(0), W(0)};
                p[k - 3] = W(0.5);
                const W vx = quat[0], vy = quat[1], vz = quat[2], w = quat[3];
                dq[J::q + 3].d = w * p[0] + vy * p[2] - vz * p[1];
                dq[J::q + 4].d = w * p[1] + vz * p[0] - vx * p[2];
                dq[J::q + 5].d = w * p[2] + vx * p[1] - vy * p[0];
                dq[J::q + 6].d = -(vx * p[0] + vy * p[1] + vz * p[2]);
            }
        } else {
            dq[J::q].d = W(1);
        }
    });
}

template <typename W>
GLASS_HD Vec3<Dual<W>> dual_gravity(Vec3<W> g) {
    return Vec3<Dual<W>>{Dual<W>(g.x, W(0)), Dual<W>(g.y, W(0)), Dual<W>(g.z, W(0))};
}

// Nothing crosses threads: every direction runs in its thread's own (local) memory.
template <class R, typename T>
struct SecondOrderState {
    T unused;
};

// One tangent direction of idsva_so: column b of each of its outputs, along q (item < NV) or along qd.
// Outlined: the dual-number algorithms are compiled once per robot, not once per kernel and precision.
template <class R, typename W, class Out>
GLASS_HD_OUTLINED void idsva_so_direction(int item, Out d2tau_dq2, Out d2tau_dqdqd, Out d2tau_dqd2, Out dM_dq, const W* q,
                                          const W* qd, const W* qdd, Vec3<W> gravity) {
    using D = Dual<W>;
    const bool along_q = item < R::NV;
    const int b = along_q ? item : item - R::NV;
    D dq[R::NQ], dqd[R::NV], dqdd[R::NV];
    seed_direction<R>(dq, dqd, dqdd, q, qd, qdd, along_q, b);
    RneaGradientState<R, D> st;
    if (along_q) {
        inverse_dynamics_gradient<R>(ThreadScope{}, DerivativeColumn<W, Out>{d2tau_dq2, R::NV, b},
                                     DerivativeColumn<W, Out>{d2tau_dqdqd, R::NV, b}, dq, dqd, dqdd, st,
                                     dual_gravity(gravity));
        CrbaState<R, D> mst;
        D M[R::NV * R::NV];
        mass_matrix<R>(ThreadScope{}, M, dq, mst);
        for (int k = 0; k < R::NV * R::NV; ++k) dM_dq.store(size_t(k) * R::NV + b, M[k].d);
    } else {
        // along qd only ∂²τ/∂qd² is new (∂(∂τ/∂q)/∂qd mirrors d2tau_dqdqd)
        inverse_dynamics_gradient<R>(ThreadScope{}, DiscardOutput<W>{}, DerivativeColumn<W, Out>{d2tau_dqd2, R::NV, b},
                                     dq, dqd, dqdd, st, dual_gravity(gravity));
    }
}

// The inputs of a direction run in its working precision.
template <class R, typename T, class P = SecondOrderPrecision<T>>
struct SecondOrderInputs {
    using W = typename P::W;
    W q[R::NQ], qd[R::NV], x[R::NV];
    Vec3<W> gravity;
    GLASS_HD SecondOrderInputs(const T* q_, const T* qd_, const T* x_, Vec3<T> g) {
        for (int k = 0; k < R::NQ; ++k) q[k] = P::input(q_[k]);
        for (int k = 0; k < R::NV; ++k) {
            qd[k] = P::input(qd_[k]);
            x[k] = P::input(x_[k]);
        }
        gravity = Vec3<W>{P::input(g.x), P::input(g.y), P::input(g.z)};
    }
};

// d2tau_dq2 = ∂²τ/∂q², d2tau_dqdqd = ∂(∂τ/∂qd)/∂q, d2tau_dqd2 = ∂²τ/∂qd², dM_dq = ∂M/∂q at (q, qd, qdd).
// The outputs are written straight from each direction's run (they may be global memory).
template <class R, typename T, class S>
GLASS_HD void idsva_so(const S& scope, T* d2tau_dq2, T* d2tau_dqdqd, T* d2tau_dqd2, T* dM_dq, const T* q,
                       const T* qd, const T* qdd, SecondOrderState<R, T>&, Vec3<T> gravity) {
    using P = SecondOrderPrecision<T>;
    const SecondOrderInputs<R, T> in(q, qd, qdd, gravity);  // each thread's own copy in working precision
    for_each_item<2 * R::NV>(scope, [&](int item) {
        idsva_so_direction<R>(item, P::output(d2tau_dq2), P::output(d2tau_dqdqd), P::output(d2tau_dqd2),
                              P::output(dM_dq), in.q, in.qd, in.x, in.gravity);
    });
    scope.sync();
}

// fdsva_so's working set: the first derivatives of forward dynamics and M⁻¹, and their algorithm's state
// (whose qdd is FD(q, qd, τ) afterwards).
template <class R, typename T>
struct FdsvaState {
    T dqdd_dq[R::NV * R::NV], dqdd_dqd[R::NV * R::NV], Minv[R::NV * R::NV];
    FdGradientState<R, T> fd;
};

// d2qdd_dq2 = ∂²qdd/∂q², d2qdd_dqdqd = ∂(∂qdd/∂qd)/∂q, d2qdd_dqd2 = ∂²qdd/∂qd², dMinv_dq = ∂M⁻¹/∂q of
// qdd = FD(q, qd, τ) at fixed τ (total derivatives: qdd moves with q and qd). Differentiating
// M·∂qdd/∂q_a + ∂τ/∂q_a = 0 (∂τ at qdd, where ∂(∂τ/∂q_a)/∂qdd = ∂M/∂q_a) along b gives, with X = ∂qdd/∂q and
// Y = ∂qdd/∂qd,
//     ∂_b X_a = −M⁻¹·(∂²τ/∂q_a∂q_b + ∂_b M·X_a + ∂_a M·X_b),   ∂_b Y_a = −M⁻¹·(∂_b(∂τ/∂qd_a) + ∂_b M·Y_a),
//     ∂_{qd_b} Y_a = −M⁻¹·∂²τ/∂qd_a∂qd_b,                      ∂_b M⁻¹ = −M⁻¹·∂_b M·M⁻¹,
// so one idsva_so at (q, qd, qdd) and O(NV⁴) products give every output. The idsva_so outputs are formed in
// the fdsva_so outputs and transformed in place (∂M last, as the others read it).
template <class R, typename T, class S>
GLASS_HD void fdsva_so(const S& scope, T* d2qdd_dq2, T* d2qdd_dqdqd, T* d2qdd_dqd2, T* dMinv_dq, const T* q,
                       const T* qd, const T* tau, FdsvaState<R, T>& st, Vec3<T> gravity) {
    constexpr int NV = R::NV;
    constexpr size_t NV2 = size_t(NV) * NV;
    forward_dynamics_gradient<R>(scope, st.dqdd_dq, st.dqdd_dqd, st.Minv, q, qd, tau, st.fd, gravity);
    SecondOrderState<R, T> none;
    idsva_so<R>(scope, d2qdd_dq2, d2qdd_dqdqd, d2qdd_dqd2, dMinv_dq, q, qd, st.fd.qdd, none, gravity);
    const T* dM = dMinv_dq;  // ∂M/∂q until the last phase: [i][j][b]
    const T* X = st.dqdd_dq;
    const T* Y = st.dqdd_dqd;
    const T* Minv = st.Minv;
    // out[:, a, b] = −M⁻¹·r for the three second derivatives, one (output, a, b) column per item
    for_each_item<3 * NV * NV>(scope, [&](int item) {
        const int which = item / (NV * NV);
        const int a = (item / NV) % NV, b = item % NV;
        T* out = which == 0 ? d2qdd_dq2 : which == 1 ? d2qdd_dqdqd : d2qdd_dqd2;
        T r[NV];
        for (int i = 0; i < NV; ++i) {
            T x = out[i * NV2 + a * NV + b];
            if (which == 0) {
                for (int j = 0; j < NV; ++j)
                    x += dM[i * NV2 + j * NV + b] * X[j * NV + a] + dM[i * NV2 + j * NV + a] * X[j * NV + b];
            } else if (which == 1) {
                for (int j = 0; j < NV; ++j) x += dM[i * NV2 + j * NV + b] * Y[j * NV + a];
            }
            r[i] = x;
        }
        for (int i = 0; i < NV; ++i) {
            T x = T(0);
            for (int j = 0; j < NV; ++j) x += Minv[i * NV + j] * r[j];
            out[i * NV2 + a * NV + b] = -x;
        }
    });
    scope.sync();
    // ∂_b M⁻¹ = −M⁻¹·∂_b M·M⁻¹, one direction b per item, in place of ∂_b M
    for_each_item<NV>(scope, [&](int b) {
        T P[NV * NV];  // ∂_b M·M⁻¹
        for (int i = 0; i < NV; ++i)
            for (int k = 0; k < NV; ++k) {
                T x = T(0);
                for (int j = 0; j < NV; ++j) x += dMinv_dq[i * NV2 + j * NV + b] * Minv[j * NV + k];
                P[i * NV + k] = x;
            }
        for (int i = 0; i < NV; ++i)
            for (int k = 0; k < NV; ++k) {
                T x = T(0);
                for (int j = 0; j < NV; ++j) x += Minv[i * NV + j] * P[j * NV + k];
                dMinv_dq[i * NV2 + k * NV + b] = -x;
            }
    });
    scope.sync();
}

}  // namespace algorithms
}  // namespace grid
