// Many targets at once: the world positions of every frame (the frames frame_poses covers) and their
// derivatives in tangent coordinates, the rows of the frame Jacobians that move each origin. A horizon of T
// states is T samples of these entry points, one state each with its own scratch, so that a trajectory's
// targets are one batched call.
#pragma once

#include "grid/algorithms/jacobian.cuh"
#include "grid/algorithms/kinematics.cuh"
#include "grid/body.cuh"
#include "grid/model.cuh"
#include "grid/schedule.cuh"

namespace grid {
namespace algorithms {

template <typename T>
GLASS_HD void write_position(const Vec<T>& r, T* pos) {
    for (int k = 0; k < 3; ++k) pos[k] = r[k];
}

// pos [NF, 3]: every frame's origin in world coordinates from q (NQ), frame_poses' positions without the
// rotations. Each frame is written by the thread that owns its body, right after the body's pose; frames
// fixed to the world, at their constant placement, are dealt out.
template <class R, typename T, class S>
GLASS_HD void multi_target_position(const S& scope, T* pos, const T* q, KinematicsState<R, T>& st) {
    for_each_world_frame<R>([&](auto f) {
        if (scope.owns(f))
            write_position(apply<T>(ConstMat3<IdentitySource, T>{}, frame_r<T>(frame_of<R>(f))), pos + 3 * f);
    });
    forward_sweep<R>(scope, [&](auto i) {
        body_pose<R>(i, q, st);
        for_each_frame<R>(i, [&](auto f) { write_position(frame_origin(frame_of<R>(f), st), pos + 3 * f); });
    });
}

// dpos [NF, 3, NV]: ∂pos/∂θ, θ the tangent of q (a free-flyer's body twist), from q (NQ): the linear rows of
// every frame's world-aligned Jacobian (end_effector_pose_gradient's rows 3 to 5); zero for frames fixed to
// the world.
template <class R, typename T, class S>
GLASS_HD void multi_target_position_gradient(const S& scope, T* dpos, const T* q, KinematicsState<R, T>& st) {
    frame_jacobian_blocks<R, POSITION_ROWS>(scope, dpos, q, st);
}

}  // namespace algorithms
}  // namespace grid
