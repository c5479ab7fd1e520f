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

// Body I's world pose from q and, for a child, its parent's (left in the state by an earlier level).
template <class R, int I, typename T>
GLASS_HD void body_pose(const T* q, KinematicsState<R, T>& st) {
    using J = JointAt<R, I>;
    constexpr int p = J::is_root ? I : J::parent;  // a root's parent is the world; joint_world_pose reads none
    joint_world_pose<J>(joint_pose<J>(q + J::q), st.E[p], st.r[p], st.E[I], st.r[I]);
}

// Number of frames on body B (-1: the world), and the k-th of them in frame order.
template <class R>
GLASS_HD constexpr int frame_count(int b) {
    int n = 0;
    for (int f = 0; f < R::NF; ++f) n += R::frame[f].joint == b ? 1 : 0;
    return n;
}

template <class R>
GLASS_HD constexpr int frame_at(int b, int k) {
    for (int f = 0; f < R::NF; ++f)
        if (R::frame[f].joint == b && k-- == 0) return f;
    return -1;
}

// Calls f(Index<frame>{}) for every frame on body B (-1: the world).
template <class R, int B, class F>
GLASS_HD void for_each_frame(F&& f) {
    static_for<frame_count<R>(B)>([&](auto k) { f(Index<frame_at<R>(B, k)>{}); });
}

// Frame F's origin in world coordinates: r_b + E_bᵀ·r_F on body b.
template <class R, int F, typename T>
GLASS_HD Vec<T> frame_origin(const KinematicsState<R, T>& st) {
    using Fr = FrameAt<R, F>;
    static_assert(Fr::joint >= 0, "a frame on a body");
    return apply_add<T>(st.r[Fr::joint], Transposed<Mat3<T>>{st.E[Fr::joint]}, ConstVec<Fr, T>{});
}

// Frame F's world pose written as a position, a row-major rotation (columns = frame axes in world) and a
// quaternion (x, y, z, w), w >= 0. A frame fixed to the world has its constant placement.
template <class R, int F, typename T>
GLASS_HD void write_frame_pose(const KinematicsState<R, T>& st, T* pos, T* rot, T* quat) {
    using Fr = FrameAt<R, F>;
    Mat3<T> E;
    Vec<T> r;
    if constexpr (Fr::joint < 0) {
        E = mul<T>(ConstMat3<IdentitySource, T>{}, ConstMat3<Fr, T>{});
        r = apply<T>(ConstMat3<IdentitySource, T>{}, ConstVec<Fr, T>{});
    } else {
        E = mul<T>(ConstMat3<Fr, T>{}, st.E[Fr::joint]);
        r = frame_origin<R, F>(st);
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

// pos [NF, 3], rot [NF, 3, 3] and quat [NF, 4] of every frame from q (NQ). Each frame is written by the
// thread that owns its body, right after the body's pose; frames fixed to the world are dealt out.
template <class R, typename T, class S>
GLASS_HD void frame_poses(const S& scope, T* pos, T* rot, T* quat, const T* q, KinematicsState<R, T>& st) {
    for_each_frame<R, -1>([&](auto f) {
        if (scope.owns(f)) write_frame_pose<R, f>(st, pos + 3 * f, rot + 9 * f, quat + 4 * f);
    });
    forward_sweep<R>(scope, [&](auto i) {
        body_pose<R, i>(q, st);
        for_each_frame<R, i>([&](auto f) { write_frame_pose<R, f>(st, pos + 3 * f, rot + 9 * f, quat + 4 * f); });
    });
}

}  // namespace algorithms
}  // namespace grid
