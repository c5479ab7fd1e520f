// Inverse kinematics (HJCD-IK): a frame's configuration for a target pose, by many random restarts of an
// orientation-aware greedy coordinate descent (PO-CCD), the best of which are polished by Levenberg-Marquardt.
//
// The pieces that act on one candidate (ik_chain_poses, ik_evaluate, ik_ccd_step, ik_descend) are GLASS_HD,
// take the candidate's state as caller-owned scratch and touch nothing else, so that one candidate runs per
// thread; ik_polish runs one candidate per warp (its normal equations go through glass::warp::gn_step). The
// drivers that deal restarts, pick the candidates to polish and the distinct solutions are the host's
// (xla_ffi/ik_driver.h), with the CPU and the GPU running the candidates.
//
// The frame is given by its body B (a template parameter: the chain's joints are compile-time) and its
// placement on the body at run time, so that the frames of one body share one instantiation. Unrolled robots
// only. A floating base is held where the problem's rest configuration puts it (a target is reached with the
// joints, as a leg or an arm of a robot standing at a given pose does); the joints off the frame's chain
// keep their rest values too.
//
// Error: r = [p − p*; w·log(R·R*ᵀ)], the position difference in metres and the world-frame rotation error
// (glass::quat_error, WORLD) scaled by w (metres per radian), which puts the two in one cost |r|².
#pragma once

#include <cstdint>

#include "glass/gauss_newton.cuh"
#include "glass/pose.cuh"
#include "glass/quaternion.cuh"
#include "grid/algorithms/kinematics.cuh"

namespace grid {
namespace algorithms {

// The path of body b: the joints from the root to b (inclusive), and the k-th of them counted from the root.
template <class R>
GLASS_HD constexpr int ik_path_length(int b) {
    int n = 0;
    for (; b >= 0; b = R::joint[b].parent) ++n;
    return n;
}
template <class R>
GLASS_HD constexpr int ik_path_body(int b, int k) {
    for (int i = ik_path_length<R>(b) - 1; i > k; --i) b = R::joint[b].parent;
    return b;
}
// The chain of body b: the joints of its path that IK moves, all but a free-flyer base, which stays where the
// problem's rest configuration puts it. ik_chain_body(b, k) is the k-th of them counted from the root.
template <class R>
GLASS_HD constexpr int ik_chain_length(int b) {
    int n = 0;
    for (; b >= 0; b = R::joint[b].parent) n += R::joint[b].kind != JOINT_FREE_FLYER;
    return n;
}
template <class R>
GLASS_HD constexpr int ik_chain_body(int b, int k) {
    const int n = ik_path_length<R>(b);
    for (int i = 0, seen = 0; i < n; ++i) {
        const int body = ik_path_body<R>(b, i);
        if (R::joint[body].kind == JOINT_FREE_FLYER) continue;
        if (seen++ == k) return body;
    }
    return -1;
}
// Whether IK solves for frames on body b: its chain has a joint, and a free flyer, if any, is the root's.
template <class R>
GLASS_HD constexpr bool ik_chain_supported(int b) {
    if (b < 0 || ik_chain_length<R>(b) == 0) return false;
    for (; b >= 0; b = R::joint[b].parent)
        if (R::joint[b].kind == JOINT_FREE_FLYER && R::joint[b].parent >= 0) return false;
    return true;
}

// A target: the frame's world position and orientation (unit quaternion, xyzw), the frame's placement on its
// body (E rotates body coordinates into frame coordinates, r is the frame origin in body coordinates), the
// joint limits (NQ each; ±inf where there are none) and the rest configuration (NQ), which holds the
// coordinates IK does not move: a floating base's pose and the joints off the frame's chain.
template <typename T>
struct IkProblem {
    T pos[3];
    T quat[4];
    Mat3<T> frame_E;
    Vec<T> frame_r;
    const T* lower;
    const T* upper;
    const T* rest;
};

// Tuning of one solve. Defaults are what the panda, fetch and panda_ext_24dof benchmarks use.
template <typename T>
struct IkSettings {
    T rot_weight = T(0.1);      // w, metres per radian of orientation error
    int ccd_iters = 48;         // greedy coordinate moves per restart
    int lm_iters = 60;          // Levenberg-Marquardt iterations per polished candidate
    T lambda0 = T(1e-3);        // initial damping (Marquardt: times diag(JᵀJ))
    T lambda_max = T(1e8);      // damping at which a step counts as failed and the fallback runs
    T radius0 = T(0.5);         // trust region: largest joint move per step (rad or m)
    T pos_stop = T(1e-7);       // polishing stops below these errors (m, rad)
    T ang_stop = T(1e-6);
};

// One candidate's scratch: the configuration, a trial one, the chain's poses and the LM system.
template <class R, int B, typename T>
struct IkCandidate {
    static_assert(!rolled_v<R>, "IK needs an unrolled robot description");
    static_assert(ik_chain_supported<R>(B), "IK needs a frame on a body that a revolute or prismatic joint moves");
    static constexpr int N = ik_chain_length<R>(B);
    T q[R::NQ];
    T trial[R::NQ];
    KinematicsState<R, T> kin;
    T J[6 * N];  // column-major, column k = d r / d q of the chain's k-th joint
    T A[N * N];
    T r[6];
    T dq[N];
    T cost, pos_err, ang_err;
    // ik_polish's outcomes, shared by the lanes of its warp: the factorisation failed, the line search's
    // ik_detail::STEP_*, the fallback coordinate move lowered the cost.
    int fail, step, moved;
};

// The world poses of the bodies on the path to B, from q.
template <class R, int B, typename T>
GLASS_HD void ik_chain_poses(const T* q, KinematicsState<R, T>& kin) {
    static_for<ik_path_length<R>(B)>([&](auto k) { body_pose<R>(Index<ik_path_body<R>(B, k)>{}, q, kin); });
}

namespace ik_detail {

template <typename T>
GLASS_HD T clamp(T x, T lo, T hi) {
    return x < lo ? lo : (x > hi ? hi : x);
}

// The frame's world position p and rotation Rf (column-major, columns = frame axes in world).
template <class R, int B, typename T>
GLASS_HD void frame_pose(const IkProblem<T>& pb, const KinematicsState<R, T>& kin, Vec<T>& p, Mat3<T>& Rf) {
    p = apply_add<T>(kin.r[B], Transposed<Mat3<T>>{kin.E[B]}, pb.frame_r);
    const Mat3<T> E = mul<T>(pb.frame_E, kin.E[B]);  // world → frame
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) Rf(i, j) = E(j, i);
}

// splitmix64: a counter-based generator, so every restart's draw depends on (seed, goal, candidate) only.
GLASS_HD uint64_t mix(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

}  // namespace ik_detail

// Evaluates c.q: the chain's poses, the residual c.r, c.cost = |r|², c.pos_err (m) and c.ang_err (rad); with
// JACOBIAN also c.J, whose columns are the chain joints' [v; w·ω] at the frame origin (world-aligned).
template <bool JACOBIAN, class R, int B, typename T>
GLASS_HD void ik_evaluate(const IkProblem<T>& pb, const IkSettings<T>& s, const T* q, IkCandidate<R, B, T>& c) {
    using std::sqrt;
    ik_chain_poses<R, B>(q, c.kin);
    Vec<T> p;
    Mat3<T> Rf;
    ik_detail::frame_pose<R, B>(pb, c.kin, p, Rf);
    T quat[4], e[3];
    glass::lie_detail::rot_to_quat_core<T, glass::QuatLayout::xyzw, 3>(Rf.m, quat);
    glass::lie_detail::quat_error_core<T, glass::QuatLayout::xyzw, glass::ErrorFrame::WORLD>(quat, pb.quat, e);
    T pp = T(0), ee = T(0);
    for (int k = 0; k < 3; ++k) {
        c.r[k] = p[k] - pb.pos[k];
        c.r[3 + k] = s.rot_weight * e[k];
        pp += c.r[k] * c.r[k];
        ee += e[k] * e[k];
    }
    c.pos_err = sqrt(pp);
    c.ang_err = sqrt(ee);
    c.cost = pp + s.rot_weight * s.rot_weight * ee;
    if constexpr (JACOBIAN) {
        static_for<IkCandidate<R, B, T>::N>([&](auto k) {
            constexpr int b = ik_chain_body<R>(B, k);
            const auto j = joint<R>(Index<b>{});
            const Vec<T> a = apply_t<T>(c.kin.E[b], joint_axis<T>(j));  // the axis in world coordinates
            T* col = c.J + 6 * k;
            if constexpr (decltype(j)::kind == JOINT_PRISMATIC) {
                for (int i = 0; i < 3; ++i) {
                    col[i] = a[i];
                    col[3 + i] = T(0);
                }
            } else {
                const Vec<T> v = cross<T>(a, p - c.kin.r[b]);
                for (int i = 0; i < 3; ++i) {
                    col[i] = v[i];
                    col[3 + i] = s.rot_weight * a[i];
                }
            }
        });
    }
}

// One orientation-aware greedy coordinate move from c.q (whose poses ik_evaluate left in c.kin): for each
// chain joint the move that minimises |p − p*|² + w²·(3 − tr(R*ᵀR)) with the others held, in closed form
// (for a revolute joint the cost is A·(1 − cos θ) − B·sin θ, least at θ = atan2(B, A), or at a limit), and
// the one that lowers the cost most is taken. Returns the decrease (0: no joint can improve).
template <class R, int B, typename T>
GLASS_HD T ik_ccd_step(const IkProblem<T>& pb, const IkSettings<T>& s, IkCandidate<R, B, T>& c) {
    using std::atan2;
    using std::cos;
    using std::sin;
    Vec<T> p;
    Mat3<T> Rf, Rt;
    ik_detail::frame_pose<R, B>(pb, c.kin, p, Rf);
    glass::lie_detail::quat_to_rot_core<T, glass::QuatLayout::xyzw>(pb.quat, Rt.m);
    // M = Rf·R*ᵀ: tr(R(θ)·M) is the orientation term after a rotation R(θ) about a world axis.
    Mat3<T> M;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            T acc = T(0);
            for (int k = 0; k < 3; ++k) acc += Rf(i, k) * Rt(j, k);
            M(i, j) = acc;
        }
    const T trM = M(0, 0) + M(1, 1) + M(2, 2);
    const Vec<T> m{{M(1, 2) - M(2, 1), M(2, 0) - M(0, 2), M(0, 1) - M(1, 0)}};
    const T w2 = s.rot_weight * s.rot_weight;
    T best_gain = T(0), best_move = T(0);
    int best_q = -1;
    static_for<IkCandidate<R, B, T>::N>([&](auto k) {
        constexpr int b = ik_chain_body<R>(B, k);
        const auto j = joint<R>(Index<b>{});
        const int qi = decltype(j)::q;
        const Vec<T> a = apply_t<T>(c.kin.E[b], joint_axis<T>(j));
        const T lo = pb.lower[qi] - c.q[qi], hi = pb.upper[qi] - c.q[qi];
        T move, gain;
        if constexpr (decltype(j)::kind == JOINT_PRISMATIC) {
            // |e − d·a|² with e = p* − p: least at d = e·a
            T ea = T(0);
            for (int i = 0; i < 3; ++i) ea += (pb.pos[i] - p[i]) * a[i];
            move = ik_detail::clamp(ea, lo, hi);
            gain = T(2) * move * ea - move * move;
        } else {
            const Vec<T> o = c.kin.r[b];
            const Vec<T> t = Vec<T>{{pb.pos[0], pb.pos[1], pb.pos[2]}} - o, v = p - o;
            const Vec<T> axv = cross<T>(a, v);
            T tv = T(0), ta = T(0), av = T(0), taxv = T(0), ma = T(0), aMa = T(0);
            for (int i = 0; i < 3; ++i) {
                tv += t[i] * v[i];
                ta += t[i] * a[i];
                av += a[i] * v[i];
                taxv += t[i] * axv[i];
                ma += m[i] * a[i];
                for (int l = 0; l < 3; ++l) aMa += a[i] * M(i, l) * a[l];
            }
            const T A = T(2) * (tv - ta * av) + w2 * (trM - aMa);
            const T Bc = T(2) * taxv + w2 * ma;
            const auto gain_at = [&](T th) { return A * (cos(th) - T(1)) + Bc * sin(th); };
            const T th = atan2(Bc, A);
            if (th >= lo && th <= hi) {
                move = th;
            } else {
                // a sinusoid has one peak per period: inside the limits the best is that peak (or its 2π
                // neighbours) or an end
                const T gl = gain_at(lo), gh = gain_at(hi);
                move = gl > gh ? lo : hi;
                const T period = T(6.283185307179586);
                for (T alt : {th - period, th + period})
                    if (alt >= lo && alt <= hi && gain_at(alt) > gain_at(move)) move = alt;
            }
            gain = gain_at(move);
        }
        if (gain > best_gain) {
            best_gain = gain;
            best_move = move;
            best_q = qi;
        }
    });
    if (best_q >= 0) c.q[best_q] = ik_detail::clamp(c.q[best_q] + best_move, pb.lower[best_q], pb.upper[best_q]);
    return best_gain;
}

// PO-CCD from c.q: up to s.ccd_iters greedy coordinate moves; leaves c's errors at the final c.q.
template <class R, int B, typename T>
GLASS_HD void ik_descend(const IkProblem<T>& pb, const IkSettings<T>& s, IkCandidate<R, B, T>& c) {
    ik_evaluate<false>(pb, s, c.q, c);
    for (int it = 0; it < s.ccd_iters; ++it) {
        if (ik_ccd_step(pb, s, c) <= T(0)) break;
        ik_evaluate<false>(pb, s, c.q, c);
    }
}

namespace ik_detail {

// What a Levenberg-Marquardt step did: rejected, accepted at its full (trust-region-cut) length, or accepted
// shortened by the line search.
enum : int { STEP_REJECTED = 0, STEP_FULL = 1, STEP_SHORTENED = 2 };

// The line search of ik_polish on the step c.dq (unless the factorisation failed, c.fail): the step cut to
// the trust region, projected on the limits, tried at full, half and quarter length; the first trial below
// cost becomes c.q. One thread.
template <class R, int B, typename T>
GLASS_HD int line_search(const IkProblem<T>& pb, const IkSettings<T>& s, T cost, T radius, IkCandidate<R, B, T>& c) {
    using std::fabs;
    constexpr int N = IkCandidate<R, B, T>::N;
    if (c.fail) return STEP_REJECTED;
    T big = T(0);
    for (int k = 0; k < N; ++k) big = fabs(c.dq[k]) > big ? fabs(c.dq[k]) : big;
    T alpha = big > radius ? radius / big : T(1);
    for (int ls = 0; ls < 3; ++ls, alpha *= T(0.5)) {
        for (int k = 0; k < R::NQ; ++k) c.trial[k] = c.q[k];
        static_for<N>([&](auto k) {
            constexpr int qi = JointAt<R, ik_chain_body<R>(B, k)>::q;
            c.trial[qi] = clamp(c.q[qi] - alpha * c.dq[k], pb.lower[qi], pb.upper[qi]);
        });
        ik_evaluate<false>(pb, s, c.trial, c);
        if (c.cost < cost) {
            for (int k = 0; k < R::NQ; ++k) c.q[k] = c.trial[k];
            return ls == 0 ? STEP_FULL : STEP_SHORTENED;
        }
    }
    return STEP_REJECTED;
}

}  // namespace ik_detail

// Levenberg-Marquardt from c.q: (JᵀJ + λ·diag(JᵀJ))·Δ = Jᵀr by Cholesky, the step cut to a trust region
// (largest joint move) and projected on the joint limits, then a backtracking line search (Δ, Δ/2, Δ/4)
// that takes the first trial lowering the cost. A failed step raises λ and shrinks the region; once λ passes
// s.lambda_max a greedy coordinate move is tried instead, and when that cannot lower the cost either the
// candidate stops (a local minimum under the limits). Leaves c's errors at the final c.q.
//
// Warp scope: every lane of one warp calls it with the same c in warp-shared memory (on the host, one
// thread). The normal equations are the warp's (glass::warp::gn_step); the chain's kinematics and the line
// search run on lane 0, and the other lanes follow their outcome through c, so that λ and the trust region
// stay the same on every lane.
template <class R, int B, typename T>
GLASS_HD void ik_polish(const IkProblem<T>& pb, const IkSettings<T>& s, IkCandidate<R, B, T>& c) {
    constexpr int N = IkCandidate<R, B, T>::N;
    const bool lead = glass::warp_rank() == 0u;
    T lambda = s.lambda0, radius = s.radius0;
    for (int it = 0; it < s.lm_iters; ++it) {
        if (lead) ik_evaluate<true>(pb, s, c.q, c);
        glass::warp_sync();
        if (c.pos_err <= s.pos_stop && c.ang_err <= s.ang_stop) return;
        const T cost = c.cost;
        glass::warp::gn_step<T, 6, N>(c.J, c.r, lambda, c.dq, c.A, &c.fail);
        if (lead) c.step = ik_detail::line_search<R, B>(pb, s, cost, radius, c);
        glass::warp_sync();
        if (c.step != ik_detail::STEP_REJECTED) {
            if (c.step == ik_detail::STEP_FULL) radius = radius * T(2) < T(3) ? radius * T(2) : T(3);
            lambda = lambda * T(0.3) > T(1e-9) ? lambda * T(0.3) : T(1e-9);
            continue;
        }
        lambda *= T(8);
        radius *= T(0.5);
        if (lambda > s.lambda_max) {
            if (lead) {
                ik_evaluate<false>(pb, s, c.q, c);
                c.moved = ik_ccd_step(pb, s, c) > T(0);
            }
            glass::warp_sync();
            if (!c.moved) break;
            lambda = s.lambda0;
            radius = s.radius0;
        }
    }
    if (lead) ik_evaluate<false>(pb, s, c.q, c);
    glass::warp_sync();
}

// A restart's starting configuration: chain joints uniform within their limits ([-π, π] where a limit is
// infinite), the other coordinates (a floating base, joints off the chain) at the problem's rest values.
template <class R, int B, typename T>
GLASS_HD void ik_random_start(const IkProblem<T>& pb, uint64_t seed, uint64_t goal, uint64_t candidate, T* q) {
    for (int k = 0; k < R::NQ; ++k) q[k] = pb.rest[k];
    uint64_t state = ik_detail::mix(ik_detail::mix(ik_detail::mix(seed) ^ goal) ^ candidate);
    static_for<ik_chain_length<R>(B)>([&](auto k) {
        constexpr int qi = JointAt<R, ik_chain_body<R>(B, k)>::q;
        state = ik_detail::mix(state);
        const T u = T(state >> 11) * T(1.0 / 9007199254740992.0);  // 53 random bits in [0, 1)
        const T big = T(1e300) > T(3.4e38) ? T(3.4e38) : T(1e300);
        const T lo = pb.lower[qi] > -big ? pb.lower[qi] : T(-3.141592653589793);
        const T hi = pb.upper[qi] < big ? pb.upper[qi] : T(3.141592653589793);
        q[qi] = lo + u * (hi - lo);
    });
}

// Whether two configurations differ by more than tol in some chain coordinate.
template <class R, int B, typename T>
GLASS_HD bool ik_distinct(const T* a, const T* b, T tol) {
    bool d = false;
    static_for<ik_chain_length<R>(B)>([&](auto k) {
        constexpr int qi = JointAt<R, ik_chain_body<R>(B, k)>::q;
        const T x = a[qi] - b[qi];
        d = d || x > tol || -x > tol;
    });
    return d;
}

}  // namespace algorithms
}  // namespace grid
