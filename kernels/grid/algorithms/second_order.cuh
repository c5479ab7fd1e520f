// Second-order derivatives of inverse dynamics by forward-mode differentiation of the analytical first-order
// algorithm: each tangent direction b of q (and each velocity coordinate b) is one run of
// inverse_dynamics_gradient (and mass_matrix) on dual numbers seeded along b, whose derivative parts are
// column b of every second-order output. Cost: 2·NV runs of a first-order algorithm, instead of a
// second-order recursion per pair of directions. Those of forward dynamics follow from them and the first
// derivatives of forward dynamics by the implicit-function identities (fdsva_so), whose products M⁻¹·r are
// solves with M's factor along the kinematic tree and whose products with ∂M/∂q skip its structural zeros.
//
// Index convention of every output: [i][a][b] = ∂(first derivative [i][a]) / ∂(direction b), where the
// first derivative is the one of the same name (∂τ/∂q, ∂τ/∂qd, M, ...), q directions are tangent
// directions (a free-flyer's body twist [v_lin; ω]) and the second-order tensors are NV×NV×NV, row-major.
#pragma once

#include "grid/algorithms/crba.cuh"
#include "grid/algorithms/directions.cuh"
#include "grid/algorithms/fd_gradient.cuh"
#include "grid/algorithms/rnea_gradient.cuh"
#include "grid/dual.cuh"
#include "grid/model.cuh"
#include "grid/schedule.cuh"

#include <cstring>

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

namespace fdsva_detail {

// The velocity coordinates as a tree: a joint's first coordinate hangs below its parent joint's last, and a
// free-flyer's six coordinates form a chain (its 6×6 block of M is dense). M[i][j] ≠ 0 only for i and j
// ancestor and descendant in this tree, so M = Lᵀ·D·L with L unit lower triangular and L[k][j] ≠ 0 only
// for j an ancestor of k: the factor has no fill-in (Featherstone, RBDA §6.5).
template <class R>
GLASS_HD constexpr int coordinate_parent(int k) {
    const int j = joint_of_velocity<R>(k);
    if (k > R::joint[j].v) return k - 1;
    const int p = R::joint[j].parent;
    return p < 0 ? -1 : R::joint[p].v + kind_nv(R::joint[p].kind) - 1;
}

// Number of ancestors of coordinate k.
template <class R>
GLASS_HD constexpr int coordinate_depth(int k) {
    int d = 0;
    for (int p = coordinate_parent<R>(k); p >= 0; p = coordinate_parent<R>(p)) ++d;
    return d;
}

// The ancestor of coordinate k at depth e < coordinate_depth(k) (e = 0: the root coordinate).
template <class R>
GLASS_HD constexpr int coordinate_ancestor(int k, int e) {
    for (int d = coordinate_depth<R>(k); d > e; --d) k = coordinate_parent<R>(k);
    return k;
}

// The factor packed row by row: row k holds L[k][j] at offset(k) + depth(j) for its ancestors j, then D⁻¹_k.
template <class R>
GLASS_HD constexpr int factor_offset(int k) {
    int n = 0;
    for (int m = 0; m < k; ++m) n += coordinate_depth<R>(m) + 1;
    return n;
}

template <class R>
GLASS_HD constexpr int factor_size() {
    return factor_offset<R>(R::NV);
}

// Where ∂M/∂q_b can be nonzero. M[i][j] = S_iᵀ·Ic·S_j (Ic the composite inertia of the deeper joint) moves
// with q_b only through the bodies below b's joint B, and a rigid motion of all three factors changes
// nothing; so ∂_b M[i][j] ≠ 0 only for one of i, j a coordinate of a strict ancestor joint of B and the
// other of an ancestor joint of B or of B's subtree (and ∂_b M = 0 for b of a free-flyer root: M is
// expressed in the base frame). The strict ancestors' coordinates are the `na` ancestors of B's first
// coordinate; the subtree's are [first, end), contiguous in depth-first order.
template <class R, int B>
struct DmPattern {
    static constexpr int joint = joint_of_velocity<R>(B);
    static constexpr int first = R::joint[joint].v;
    static constexpr int end = first + subtree_nv<R>(joint);
    static constexpr int na = coordinate_depth<R>(first);
    GLASS_HD static constexpr int ancestor(int e) { return coordinate_ancestor<R>(first, e); }
};

// Calls f(Index<b>{}) for a run-time coordinate b: the code for each b has its sparsity pattern compiled in.
template <class R, class F>
GLASS_HD void with_coordinate(int b, F&& f) {
    static_for<R::NV>([&](auto B) {
        if (b == int(B)) f(B);
    });
}

// The factor of M (NV × NV row-major) into L (packed as above), by eliminating each coordinate, leaves
// first, from its ancestors' rows.
template <class R, typename T>
GLASS_HD void ltdl_factor(T* L, const T* M) {
    constexpr int NV = R::NV;
    static_for<NV>([&](auto kk) {
        constexpr int k = decltype(kk)::value, o = factor_offset<R>(k), dk = coordinate_depth<R>(k);
        static_for<dk>([&](auto e) { L[o + e] = M[k * NV + coordinate_ancestor<R>(k, decltype(e)::value)]; });
        L[o + dk] = M[k * NV + k];
    });
    static_for_reverse<NV>([&](auto kk) {
        constexpr int k = decltype(kk)::value, o = factor_offset<R>(k), dk = coordinate_depth<R>(k);
        const T dinv = T(1) / L[o + dk];  // D_k is final: k's descendants are eliminated
        L[o + dk] = dinv;
        // ancestors i from the parent up; row i's entries are its own ancestors-or-self, which are k's too
        static_for_reverse<dk>([&](auto ee) {
            constexpr int e = decltype(ee)::value, oi = factor_offset<R>(coordinate_ancestor<R>(k, e));
            const T a = L[o + e] * dinv;
            static_for<e + 1>([&](auto f) { L[oi + f] -= L[o + f] * a; });
            L[o + e] = a;
        });
    });
}

// x ← M⁻¹·x by the factor (L[k] its packed entries): Lᵀ (children first), D⁻¹, L (parents first);
// O(Σ depth) instead of O(NV²).
template <class R, class F, typename W>
GLASS_HD void ltdl_solve(const F& L, W* x) {
    static_for_reverse<R::NV>([&](auto kk) {
        constexpr int k = decltype(kk)::value, o = factor_offset<R>(k), dk = coordinate_depth<R>(k);
        static_for<dk>([&](auto e) { x[coordinate_ancestor<R>(k, decltype(e)::value)] -= L[o + e] * x[k]; });
    });
    static_for<R::NV>([&](auto kk) {
        constexpr int k = decltype(kk)::value, o = factor_offset<R>(k), dk = coordinate_depth<R>(k);
        W s = x[k] * L[o + dk];
        static_for<dk>([&](auto e) { s -= L[o + e] * x[coordinate_ancestor<R>(k, decltype(e)::value)]; });
        x[k] = s;
    });
}

// r += ∂_b M·x for x a column of an NV × NV row-major matrix (x[j·NV]), dM = ∂M/∂q as [i][j][b]; the
// pattern's entries only, each (symmetric) entry read once for both of its places. r in the working type W.
template <class R, typename T, class P = SecondOrderPrecision<T>, typename W = typename P::W>
GLASS_HD void add_dM_times(W* r, const T* dM, int b, const T* x) {
    constexpr int NV = R::NV;
    with_coordinate<R>(b, [&](auto bb) {
        using D = DmPattern<R, decltype(bb)::value>;
        const auto dm = [&](int i, int j) { return P::input(dM[(size_t(i) * NV + j) * NV + int(bb)]); };
        static_for<D::na>([&](auto ee) {
            constexpr int i = D::ancestor(decltype(ee)::value);
            W s = r[i];
            static_for<D::na>([&](auto ff) {
                constexpr int j = D::ancestor(decltype(ff)::value);
                s += dm(i, j) * P::input(x[j * NV]);
            });
            for (int j = D::first; j < D::end; ++j) {
                const W m = dm(i, j);
                s += m * P::input(x[j * NV]);
                r[j] += m * P::input(x[i * NV]);
            }
            r[i] = s;
        });
    });
}

// Whether ∂²qdd/∂q_a∂q_b is symmetric in (a, b): tangent directions commute unless both are a free-flyer's.
template <class R>
GLASS_HD bool q_pair_symmetric(int a, int b) {
    return a >= root_joint_nv<R>() || b >= root_joint_nv<R>();
}

// The most rows (strict ancestors and subtree) of any coordinate's pattern, at least 1: an array size.
template <class R>
GLASS_HD constexpr int max_pattern_rows() {
    int n = 1;
    for (int b = 0; b < R::NV; ++b) {
        const int j = joint_of_velocity<R>(b);
        const int rows = coordinate_depth<R>(R::joint[j].v) + subtree_nv<R>(j);
        n = rows > n ? rows : n;
    }
    return n;
}

// Scratch of fdsva_dminv's P, max_pattern_rows × NV: a variable template, since GCC 13 crashes (internal
// compiler error in tsubst_copy) on that product written as an array bound inside the generic lambda.
template <class R>
constexpr int pattern_scratch = max_pattern_rows<R>() * R::NV;

}  // namespace fdsva_detail

// M's factor (packed as ltdl_factor packs it) in the working precision W, kept in storage of the output
// type T (a double as two floats, copied bitwise): formed, factorised and used in W, since M⁻¹·r with a
// float factor loses accuracy where M is ill-conditioned (M⁻¹ by the articulated-body algorithm does not).
template <class R, typename T, typename W>
struct WorkingFactor {
    static constexpr int size = fdsva_detail::factor_size<R>();
    static_assert(sizeof(W) % sizeof(T) == 0, "the working type is made of whole output elements");
    T raw[size * (sizeof(W) / sizeof(T))];
    GLASS_HD W operator[](int k) const {
        W x;
        memcpy(&x, raw + k * int(sizeof(W) / sizeof(T)), sizeof(W));
        return x;
    }
};

// The factor of M(q) into dst (a WorkingFactor's storage). Outlined: float and double callers share it.
template <class R, typename W>
GLASS_HD_OUTLINED void mass_matrix_factor(void* dst, const W* q) {
    CrbaState<R, W> st;
    W M[R::NV * R::NV], L[fdsva_detail::factor_size<R>()];
    mass_matrix<R>(ThreadScope{}, M, q, st);
    fdsva_detail::ltdl_factor<R>(L, M);
    memcpy(dst, L, sizeof(L));
}

// fdsva_so's working set: the first derivatives of forward dynamics and M⁻¹, and their algorithm's state
// (whose qdd is FD(q, qd, τ) afterwards). Once they are done, M's factor takes that state's place after qdd
// (the common initial member, still idsva_so's input): the entry's scratch size stays that of the
// first-order state.
template <class R, typename T>
struct FdsvaState {
    T dqdd_dq[R::NV * R::NV], dqdd_dqd[R::NV * R::NV], Minv[R::NV * R::NV];
    struct Factor {
        T qdd[R::NV];
        WorkingFactor<R, T, typename SecondOrderPrecision<T>::W> L;
    };
    union {
        FdGradientState<R, T> fd;
        Factor so;
    };
    static_assert(sizeof(Factor) <= sizeof(FdGradientState<R, T>), "M's factor fits in the first derivatives' state");
};

// The first three outputs in place: out[:, a, b] = −M⁻¹·r, one (output, a, b) column per item, r and the
// solve in the working precision; of a symmetric pair only a ≤ b is solved, and written to both.
template <class R, typename T, class S>
GLASS_HD void fdsva_columns(const S& scope, T* d2qdd_dq2, T* d2qdd_dqdqd, T* d2qdd_dqd2, const T* dM,
                            const FdsvaState<R, T>& st) {
    using P = SecondOrderPrecision<T>;
    constexpr int NV = R::NV;
    constexpr size_t NV2 = size_t(NV) * NV;
    for_each_item<3 * NV * NV>(scope, [&](int item) {
        const int which = item / (NV * NV);
        const int a = (item / NV) % NV, b = item % NV;
        const bool mirrored = which == 2 || (which == 0 && fdsva_detail::q_pair_symmetric<R>(a, b));
        if (mirrored && a > b) return;
        T* out = which == 0 ? d2qdd_dq2 : which == 1 ? d2qdd_dqdqd : d2qdd_dqd2;
        typename P::W r[R::NV];
        for (int i = 0; i < NV; ++i) r[i] = P::input(out[i * NV2 + a * NV + b]);
        if (which == 0) {
            fdsva_detail::add_dM_times<R>(r, dM, b, st.dqdd_dq + a);
            fdsva_detail::add_dM_times<R>(r, dM, a, st.dqdd_dq + b);
        } else if (which == 1) {
            fdsva_detail::add_dM_times<R>(r, dM, b, st.dqdd_dqd + a);
        }
        fdsva_detail::ltdl_solve<R>(st.so.L, r);
        const auto o = P::output(out);
        for (int i = 0; i < NV; ++i) {
            o.store(i * NV2 + a * NV + b, -r[i]);
            if (mirrored) o.store(i * NV2 + b * NV + a, -r[i]);
        }
    });
    scope.sync();
}

// ∂_b M⁻¹ = −M⁻¹·∂_b M·M⁻¹ in place of ∂_b M, one direction b per item: P = ∂_b M·M⁻¹ on the rows of the
// pattern only (b's strict ancestors, then its subtree), then −M⁻¹·P through those rows on the upper
// triangle, mirrored (∂_b M⁻¹ is symmetric). The terms that remain are those of the dense products, in the
// same order.
template <class R, typename T, class S>
GLASS_HD void fdsva_dminv(const S& scope, T* dMinv_dq, const T* Minv) {
    constexpr int NV = R::NV;
    for_each_item<NV>(scope, [&](int b) {
        T P[fdsva_detail::pattern_scratch<R>];  // one array for every b's code
        fdsva_detail::with_coordinate<R>(b, [&](auto bb) {
            using D = fdsva_detail::DmPattern<R, decltype(bb)::value>;
            const auto at = [&](int i, int j) -> T& { return dMinv_dq[(size_t(i) * NV + j) * NV + int(bb)]; };
            if constexpr (D::na == 0) {
                for (int k = 0; k < NV * NV; ++k) dMinv_dq[size_t(k) * NV + int(bb)] = T(0);
            } else {
                // rows of the ancestors: columns ancestors and subtree; rows of the subtree: ancestors
                static_for<D::na>([&](auto ee) {
                    constexpr int e = decltype(ee)::value, i = D::ancestor(e);
                    for (int k = 0; k < NV; ++k) {
                        T x = T(0);
                        static_for<D::na>([&](auto ff) {
                            constexpr int j = D::ancestor(decltype(ff)::value);
                            x += at(i, j) * Minv[j * NV + k];
                        });
                        for (int j = D::first; j < D::end; ++j) x += at(i, j) * Minv[j * NV + k];
                        P[e * NV + k] = x;
                    }
                });
                for (int i = D::first; i < D::end; ++i)
                    for (int k = 0; k < NV; ++k) {
                        T x = T(0);
                        static_for<D::na>([&](auto ff) {
                            constexpr int j = D::ancestor(decltype(ff)::value);
                            x += at(i, j) * Minv[j * NV + k];
                        });
                        P[(D::na + i - D::first) * NV + k] = x;
                    }
                for (int i = 0; i < NV; ++i)
                    for (int k = i; k < NV; ++k) {
                        T x = T(0);
                        static_for<D::na>([&](auto ee) {
                            constexpr int e = decltype(ee)::value;
                            x += Minv[i * NV + D::ancestor(e)] * P[e * NV + k];
                        });
                        for (int j = D::first; j < D::end; ++j)
                            x += Minv[i * NV + j] * P[(D::na + j - D::first) * NV + k];
                        at(i, k) = -x;
                        at(k, i) = -x;
                    }
            }
        });
    });
    scope.sync();
}

// d2qdd_dq2 = ∂²qdd/∂q², d2qdd_dqdqd = ∂(∂qdd/∂qd)/∂q, d2qdd_dqd2 = ∂²qdd/∂qd², dMinv_dq = ∂M⁻¹/∂q of
// qdd = FD(q, qd, τ) at fixed τ (total derivatives: qdd moves with q and qd). Differentiating
// M·∂qdd/∂q_a + ∂τ/∂q_a = 0 (∂τ at qdd, where ∂(∂τ/∂q_a)/∂qdd = ∂M/∂q_a) along b gives, with X = ∂qdd/∂q and
// Y = ∂qdd/∂qd,
//     ∂_b X_a = −M⁻¹·(∂²τ/∂q_a∂q_b + ∂_b M·X_a + ∂_a M·X_b),   ∂_b Y_a = −M⁻¹·(∂_b(∂τ/∂qd_a) + ∂_b M·Y_a),
//     ∂_{qd_b} Y_a = −M⁻¹·∂²τ/∂qd_a∂qd_b,                      ∂_b M⁻¹ = −M⁻¹·∂_b M·M⁻¹,
// so one idsva_so at (q, qd, qdd) gives every output. M⁻¹·r is a solve with M's factor along the kinematic
// tree (O(Σ depth), not O(NV²)); ∂_b M is sparse (DmPattern), so ∂_b M·X_a and ∂_b M·M⁻¹ cost little;
// ∂²qdd/∂q_a∂q_b (a, b not both a free-flyer's) and ∂²qdd/∂qd² are symmetric in (a, b), so half of their
// columns are mirrored. The idsva_so outputs are formed in the fdsva_so outputs and transformed in place
// (∂M last, as the others read it).
template <class R, typename T, class S>
GLASS_HD void fdsva_so(const S& scope, T* d2qdd_dq2, T* d2qdd_dqdqd, T* d2qdd_dqd2, T* dMinv_dq, const T* q,
                       const T* qd, const T* tau, FdsvaState<R, T>& st, Vec3<T> gravity) {
    forward_dynamics_gradient<R>(scope, st.dqdd_dq, st.dqdd_dqd, st.Minv, q, qd, tau, st.fd, gravity);
    using P = SecondOrderPrecision<T>;
    for_each_item<1>(scope, [&](int) {
        typename P::W qw[R::NQ];
        for (int k = 0; k < R::NQ; ++k) qw[k] = P::input(q[k]);
        mass_matrix_factor<R>(st.so.L.raw, qw);
    });
    scope.sync();
    SecondOrderState<R, T> none;
    idsva_so<R>(scope, d2qdd_dq2, d2qdd_dqdqd, d2qdd_dqd2, dMinv_dq, q, qd, st.so.qdd, none, gravity);
    fdsva_columns<R>(scope, d2qdd_dq2, d2qdd_dqdqd, d2qdd_dqd2, dMinv_dq, st);
    fdsva_dminv<R>(scope, dMinv_dq, st.Minv);
}

}  // namespace algorithms
}  // namespace grid
