// Forward kinematics: the world pose of every body, parents first, and of every frame (URDF link) from its
// body's. A pose is the (E, r) pair of a world-to-body transform: E rotates world coordinates into body
// coordinates, r is the body origin in world coordinates.
#pragma once

#include "glass/quaternion.cuh"
#include "grid/body.cuh"
#include "grid/model.cuh"
#include "grid/schedule.cuh"

namespace grid {
namespace algorithms {

// The world poses of the bodies: registers in ThreadScope, the group's scratch in GroupScope.
template <class R, typename T>
struct KinematicsState {
    Mat3<T> E[R::NB];  // world → body rotations
    Vec<T> r[R::NB];   // body origins in world coordinates
};

// Body i's world pose from q and, for a child, its parent's (left in the state by an earlier level).
template <class R, class I, typename T>
GLASS_HD void body_pose(I i, const T* q, KinematicsState<R, T>& st) {
    const auto j = joint<R>(i);
    using J = decltype(j);
    const int p = J::is_root ? int(i) : j.parent;  // a root's parent is the world; joint_world_pose reads none
    joint_world_pose(j, joint_pose(j, q + j.q), st.E[p], st.r[p], st.E[i], st.r[i]);
}

// Frame F's world origin: r_b + E_bᵀ·r_F on its body b.
template <class R, class Fr, typename T>
GLASS_HD Vec<T> frame_origin(const Fr& fr, const KinematicsState<R, T>& st) {
    return apply_add<T>(st.r[fr.joint], Transposed<Mat3<T>>{st.E[fr.joint]}, frame_r<T>(fr));
}

// Frame fr's world pose written as a position, a row-major rotation (columns = frame axes in world) and a
// quaternion (x, y, z, w), w >= 0. A frame fixed to the world has its constant placement.
template <class R, class Fr, typename T>
GLASS_HD void write_frame_pose(const Fr& fr, const KinematicsState<R, T>& st, T* pos, T* rot, T* quat) {
    Mat3<T> E;
    Vec<T> r;
    const auto on_world = [&] {
        E = mul<T>(ConstMat3<IdentitySource, T>{}, frame_E<T>(fr));
        r = apply<T>(ConstMat3<IdentitySource, T>{}, frame_r<T>(fr));
    };
    const auto on_body = [&] {
        E = mul<T>(frame_E<T>(fr), st.E[fr.joint]);
        r = frame_origin(fr, st);
    };
    if constexpr (Fr::rolled) {
        if (fr.joint < 0) {
            on_world();
        } else {
            on_body();
        }
    } else if constexpr (Fr::joint < 0) {
        on_world();
    } else {
        on_body();
    }
    for (int k = 0; k < 3; ++k) pos[k] = r[k];
    // The rotation is Eᵀ, whose row-major layout is E's column-major one.
    for (int k = 0; k < 9; ++k) rot[k] = E.m[k];
    // E is Rᵀ, so its quaternion (w >= 0) is the conjugate of the frame's.
    T e[4];
    glass::lie_detail::rot_to_quat_core<T, glass::QuatLayout::xyzw, 3>(E.m, e);
    quat[0] = -e[0];
    quat[1] = -e[1];
    quat[2] = -e[2];
    quat[3] = e[3];
}

// The number of leading frames a thread that visits the bodies in index order has written once it has done
// body B (B = -1: only the frames fixed to the world): frames are listed by URDF link, which mostly follows the
// bodies, so the final frames grow as a prefix.
template <class R>
GLASS_HD constexpr int frames_final_after(int b) {
    int f = 0;
    while (f < R::NF && R::frame[f].joint <= b) ++f;
    return f;
}

// The reports of the templates that write one block per frame (frame poses, frame Jacobians):
// frames_final(Index<first>{}, Index<end>{}) says that frames [first, end) hold their final values (and every
// frame before them already did). In thread scope on an unrolled robot they come as the leading frames
// complete (report_frames_final after each body's frames, Index<-1> after the world's); otherwise once for all
// frames at the end (report_all_frames_final). A caller staging the outputs can store those frames early.
template <class R, class S, int B, class FramesFinal>
GLASS_HD void report_frames_final(Index<B>, FramesFinal& frames_final) {
    if constexpr (!S::cooperative && !rolled_v<R>) {
        constexpr int first = frames_final_after<R>(B - 1), end = frames_final_after<R>(B);
        if constexpr (first < end) frames_final(Index<first>{}, Index<end>{});
    }
}
template <class R, class S, class I, class FramesFinal>
GLASS_HD void report_frames_final(I, FramesFinal&) {}  // a rolled body: reported at the end
template <class R, class S, class FramesFinal>
GLASS_HD void report_all_frames_final(FramesFinal& frames_final) {
    if constexpr (S::cooperative || rolled_v<R>) frames_final(Index<0>{}, Index<R::NF>{});
}

// pos [NF, 3], rot [NF, 3, 3] and quat [NF, 4] of every frame from q (NQ). Each frame is written by the
// thread that owns its body, right after the body's pose; frames fixed to the world are dealt out. Frames are
// reported final as report_frames_final says.
template <class R, typename T, class S, class FramesFinal = IgnoreFinalRows>
GLASS_HD void frame_poses(const S& scope, T* pos, T* rot, T* quat, const T* q, KinematicsState<R, T>& st,
                          FramesFinal&& frames_final = {}) {
    for_each_world_frame<R>([&](auto f) {
        if (scope.owns(f)) write_frame_pose(frame_of<R>(f), st, pos + 3 * f, rot + 9 * f, quat + 4 * f);
    });
    report_frames_final<R, S>(Index<-1>{}, frames_final);
    forward_sweep<R>(scope, [&](auto i) {
        body_pose<R>(i, q, st);
        for_each_frame<R>(i, [&](auto f) { write_frame_pose(frame_of<R>(f), st, pos + 3 * f, rot + 9 * f, quat + 4 * f); });
        report_frames_final<R, S>(i, frames_final);
    });
    report_all_frames_final<R, S>(frames_final);
}

}  // namespace algorithms
}  // namespace grid
