// Frame Jacobians: J(q)·qd = [ω; v], a frame's angular velocity and the velocity of its origin, both in
// world coordinates (world-aligned), for one frame, for every frame (end_effector_pose_gradient: with a
// tangent direction δ, δpos = J_v·δ and δR = [J_ω·δ]ₓ·R), and the derivative of one frame's Jacobian along
// every tangent direction (end_effector_pose_hessian). A free-flyer's columns follow its velocity
// [v_lin; ω] in the base frame. Jacobians are 6×NV row-major blocks, row k and column c at k·NV + c; a block of
// POSITION_ROWS holds the rows of v alone.
#pragma once

#include "grid/algorithms/kinematics.cuh"
#include "grid/body.cuh"
#include "grid/model.cuh"
#include "grid/schedule.cuh"

namespace grid {
namespace algorithms {

// The rows a Jacobian block holds: all six, [ω; v], or the three of the point's velocity v alone (the
// derivative of a position, multi_target_position_gradient).
constexpr int JACOBIAN_ROWS = 6;
constexpr int POSITION_ROWS = 3;

// Columns [BEGIN, END) of a ROWS×NV block set to zero.
template <int NV, int BEGIN, int END, int ROWS = JACOBIAN_ROWS, typename T>
GLASS_HD void zero_columns(T* J) {
    for (int k = 0; k < ROWS; ++k)
        for (int c = BEGIN; c < END; ++c) J[k * NV + c] = T(0);
}

// Joint a's columns of the world-aligned Jacobian at the point p, ROWS rows: its subspace in world
// coordinates, ω = Eᵀ·S_ω (JACOBIAN_ROWS only), and the velocity it gives p, Eᵀ·S_v + (r − p) × ω.
template <class R, int ROWS = JACOBIAN_ROWS, class A, typename T>
GLASS_HD void joint_columns(A a, const KinematicsState<R, T>& st, const Vec<T>& p, T* J) {
    static_assert(ROWS == JACOBIAN_ROWS || ROWS == POSITION_ROWS, "a Jacobian block has rows [ω; v] or v");
    const auto ja = joint<R>(a);
    using Ja = decltype(ja);
    constexpr int NV = R::NV;
    constexpr int v_row = ROWS - 3;
    const Mat3<T>& E = st.E[a];
    const auto put = [&](int c, const Vec<T>& w, const Vec<T>& v) {
        for (int k = 0; k < 3; ++k) {
            if constexpr (ROWS == JACOBIAN_ROWS) J[k * NV + ja.v + c] = w[k];
            J[(v_row + k) * NV + ja.v + c] = v[k];
        }
    };
    const Vec<T> zero{{T(0), T(0), T(0)}};
    if constexpr (Ja::kind == JOINT_PRISMATIC) {
        put(0, zero, apply_t<T>(E, joint_axis<T>(ja)));
    } else {
        const Vec<T> d = st.r[a] - p;
        if constexpr (Ja::kind == JOINT_REVOLUTE) {
            const Vec<T> w = apply_t<T>(E, joint_axis<T>(ja));
            put(0, w, cross<T>(d, w));
        } else {
            // Eᵀ·e_c is row c of E: the base's linear directions, then its angular ones.
            for (int c = 0; c < 3; ++c) {
                const Vec<T> e{{E(c, 0), E(c, 1), E(c, 2)}};
                put(c, zero, e);
                put(3 + c, e, cross<T>(d, e));
            }
        }
    }
}

// The columns of joint A and its ancestors in the world-aligned Jacobian at the point p, and the zero
// columns that follow each of them up to END, the first column of the next joint on the path (side
// branches in between) or NV (the subtree of the path's last body and everything later in joint order);
// the root also zeroes the columns before it (other roots). Every element is written exactly once.
// Recursion up the path rather than a loop over a lambda, here and below: these are reached from several
// kernels, and a generic lambda that large, called from more than one, is left out of line, which moves
// the state to the stack.
template <class R, int A, int END, int ROWS, typename T>
GLASS_HD void path_columns(const KinematicsState<R, T>& st, const Vec<T>& p, T* J) {
    using Ja = JointAt<R, A>;
    joint_columns<R, ROWS>(Index<A>{}, st, p, J);
    zero_columns<R::NV, Ja::v + Ja::nv, END, ROWS>(J);
    if constexpr (Ja::is_root) {
        zero_columns<R::NV, 0, Ja::v, ROWS>(J);
    } else {
        path_columns<R, Ja::parent, Ja::v, ROWS>(st, p, J);
    }
}

// The ROWS×NV world-aligned Jacobian of the point p moved by body b: for a rolled robot every column is
// zeroed and then the path's are written.
template <class R, int ROWS = JACOBIAN_ROWS, int B, typename T>
GLASS_HD void point_jacobian(Index<B>, const KinematicsState<R, T>& st, const Vec<T>& p, T* J) {
    path_columns<R, B, R::NV, ROWS>(st, p, J);
}
template <class R, int ROWS = JACOBIAN_ROWS, typename T>
GLASS_HD void point_jacobian(int b, const KinematicsState<R, T>& st, const Vec<T>& p, T* J) {
    static_assert(rolled_v<R>, "a run-time body of a rolled robot");
    for (int k = 0; k < ROWS * R::NV; ++k) J[k] = T(0);
    for (int a = b; a >= 0; a = R::parent(a))
        with_joint_class<R>(a, [&](auto ai) { joint_columns<R, ROWS>(ai, st, p, J); });
}

// One body of the sweep for the Jacobian of a point on body B, rF in body coordinates: the bodies on the
// path to B get their poses, and the thread that owns B writes the whole Jacobian.
template <class R, int B, typename T>
struct PathJacobianStep {
    const T* q;
    KinematicsState<R, T>& st;
    const Vec<T>& rF;
    T* J;
    template <int I>
    GLASS_HD void operator()(Index<I>) const {
        if constexpr (is_ancestor_or_self<R>(I, B)) {
            body_pose<R>(Index<I>{}, q, st);
            if constexpr (I == B) {
                point_jacobian<R>(Index<B>{}, st, apply_add<T>(st.r[B], Transposed<Mat3<T>>{st.E[B]}, rF), J);
            }
        }
    }
};

// The body of frame `frame` (-1: the world, or no such frame) and the frame's origin on it, looked up
// among the frames from F on; as run-time values, so that the frames of one body share its code.
template <class R, int F, typename T>
GLASS_HD void frame_on_body(int frame, int& body, Vec<T>& rF) {
    if constexpr (F < R::NF) {
        if (frame != F) {
            frame_on_body<R, F + 1>(frame, body, rF);
        } else {
            body = FrameAt<R, F>::joint;
            rF = apply<T>(ConstMat3<IdentitySource, T>{}, ConstVec<FrameAt<R, F>, T>{});
        }
    }
}

// The Jacobian of the point rF of body `body`, a chain of tests over the bodies from B on, each body's
// code specialised on it.
template <class R, int B, typename T, class S>
GLASS_HD void body_jacobian_from(const S& scope, T* J, const T* q, KinematicsState<R, T>& st, int body,
                                 const Vec<T>& rF) {
    if constexpr (B < R::NB) {
        if (body != B) {
            body_jacobian_from<R, B + 1>(scope, J, q, st, body, rF);
        } else {
            forward_sweep<R>(scope, PathJacobianStep<R, B, T>{q, st, rF, J});
        }
    }
}

// J [6, NV] of frame `frame` (0 <= frame < NF) from q (NQ); zero for a frame fixed to the world. Only the
// poses of the path to the frame's body are computed.
template <class R, typename T, class S>
GLASS_HD void frame_jacobian(const S& scope, T* J, const T* q, KinematicsState<R, T>& st, int frame) {
    int body = -1;
    Vec<T> rF{{T(0), T(0), T(0)}};
    if constexpr (rolled_v<R>) {
        if (frame >= 0 && frame < R::NF) {
            const RolledFrame<R> fr(frame);
            body = fr.joint;
            rF = apply<T>(ConstMat3<IdentitySource, T>{}, frame_r<T>(fr));
        }
    } else {
        frame_on_body<R, 0>(frame, body, rF);
    }
    if (body < 0) {
        for_each_item<6 * R::NV>(scope, [&](int k) { J[k] = T(0); });
    } else if constexpr (rolled_v<R>) {
        // every body's pose (the path's would do; a rolled robot's bodies are not specialised anyway)
        forward_sweep<R>(scope, [&](auto i) { body_pose<R>(i, q, st); });
        if (scope.rank() == 0)
            point_jacobian<R>(body, st, apply_add<T>(st.r[body], Transposed<Mat3<T>>{st.E[body]}, rF), J);
    } else {
        body_jacobian_from<R, 0>(scope, J, q, st, body, rF);
    }
}

// J [NF, ROWS, NV]: ROWS rows of the world-aligned Jacobian of every frame from q (NQ). Each frame's block is
// written by the thread that owns its body, right after the body's pose; the zero blocks of frames fixed to
// the world are dealt out. Frames are reported final as report_frames_final (kinematics.cuh) says.
template <class R, int ROWS, typename T, class S, class FramesFinal = IgnoreFinalRows>
GLASS_HD void frame_jacobian_blocks(const S& scope, T* J, const T* q, KinematicsState<R, T>& st,
                                    FramesFinal&& frames_final = {}) {
    constexpr int block = ROWS * R::NV;
    for_each_world_frame<R>([&](auto f) {
        if (scope.owns(f)) zero_columns<R::NV, 0, R::NV, ROWS>(J + f * block);
    });
    report_frames_final<R, S>(Index<-1>{}, frames_final);
    forward_sweep<R>(scope, [&](auto i) {
        body_pose<R>(i, q, st);
        for_each_frame<R>(i, [&](auto f) {
            point_jacobian<R, ROWS>(body_number(i), st, frame_origin(frame_of<R>(f), st), J + f * block);
        });
        report_frames_final<R, S>(i, frames_final);
    });
    report_all_frames_final<R, S>(frames_final);
}

// J [NF, 6, NV]: the world-aligned Jacobian of every frame from q (NQ), rows [ω; v]; frames_final as for
// frame_jacobian_blocks.
template <class R, typename T, class S, class FramesFinal = IgnoreFinalRows>
GLASS_HD void end_effector_pose_gradient(const S& scope, T* J, const T* q, KinematicsState<R, T>& st,
                                         FramesFinal&& frames_final = {}) {
    frame_jacobian_blocks<R, JACOBIAN_ROWS>(scope, J, q, st, frames_final);
}

template <class R, typename T>
struct JacobianDerivativeState {
    KinematicsState<R, T> kinematics;
    T J[6 * R::NV];  // the frame's Jacobian (GroupScope)
};

// H [6, NV, NV], H[(r·NV + c)·NV + k] = ∂J[r][c]/∂θ_k for frame `frame`'s Jacobian J and tangent
// directions θ_k of q (a free-flyer's: its body twist), from q (NQ). With J's columns [ω_c; v_c] taken at
// the frame origin, moving along column k turns the columns of its joint and the joints below by
// [ω_k; v_k] × (a spatial cross product) and moves the origin by v_k, which leaves
//     ∂J_c/∂θ_k = [ω_k × ω_c; ω_k × v_c]   when k's joint is c's or one of its ancestors,
//                 [0; ω_c × v_k]            otherwise.
// Only the columns of the frame's path are nonzero, and on a path a joint precedes its descendants, so the
// first case is k <= c, or k and c both of a free-flyer root; pairs off the path come out zero either way.
template <class R, typename T, class S>
GLASS_HD void end_effector_pose_hessian(const S& scope, T* H, const T* q, JacobianDerivativeState<R, T>& st,
                                        int frame) {
    constexpr int NV = R::NV;
    constexpr int root_nv = root_joint_nv<R>();
    // The pair loop indexes J at run time, which puts it in local memory in ThreadScope; kept apart from
    // the state there, it leaves the body poses in registers.
    T local_J[S::cooperative ? 1 : 6 * NV];
    T* J = S::cooperative ? st.J : local_J;
    frame_jacobian<R>(scope, J, q, st.kinematics, frame);
    scope.sync();
    for_each_item<NV * NV>(scope, [&](int e) {
        const int c = e / NV, k = e % NV;
        const Vec<T> wc{{J[c], J[NV + c], J[2 * NV + c]}}, vc{{J[3 * NV + c], J[4 * NV + c], J[5 * NV + c]}};
        const Vec<T> wk{{J[k], J[NV + k], J[2 * NV + k]}}, vk{{J[3 * NV + k], J[4 * NV + k], J[5 * NV + k]}};
        Vec<T> dw, dv;
        if (k <= c || k < root_nv) {
            dw = cross<T>(wk, wc);
            dv = cross<T>(wk, vc);
        } else {
            dw = Vec<T>{{T(0), T(0), T(0)}};
            dv = cross<T>(wc, vk);
        }
        for (int r = 0; r < 3; ++r) {
            H[(r * NV + c) * NV + k] = dw[r];
            H[((3 + r) * NV + c) * NV + k] = dv[r];
        }
    });
}

}  // namespace algorithms
}  // namespace grid
