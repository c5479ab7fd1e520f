// Pose errors: the shortest-path rotation error between two unit quaternions (frame-tagged), the decoupled
// 6-D pose error and the geodesic angle.
//
// A pose is [p(3); q(4)] (position, then a unit quaternion stored in layout L — the se3_retract layout). The
// pose error is linear-first, e = [p − p_des; quat_error(q, q_des)], matching the [ρ; φ] order of SE(3)
// tangents, but it is the R³ × SO(3) product error that goal costs minimise, NOT the coupled SE(3) log: the
// translation difference is a plain world-frame difference whatever the frame tag of the rotation block.
//
// Frames (ErrorFrame): both are the tangent step FROM q_des TO q (|e| <= π, double cover folded):
//   LOCAL  e = log(q_des⁻¹ ⊗ q), in the body frame of q_des: quat_retract(q_des, e) == q;
//   WORLD  e = log(q ⊗ q_des⁻¹), in the world frame: quat_exp(e) ⊗ q_des == q, e_WORLD = R(q_des)·e_LOCAL.
// Scopes follow glass/quaternion.cuh (block scope in glass::, then glass::warp and glass::thread over the
// same lie_detail cores); quat_angle is a scalar and exists once.
#pragma once

#include "quaternion.cuh"
#include "scope.cuh"

#include <cmath>
#include <cstdint>

namespace glass {

// Frame in which a pose error is resolved (after Pinocchio's ReferenceFrame::{LOCAL, WORLD}).
enum class ErrorFrame { LOCAL, WORLD };

namespace lie_detail {

// The relative rotation whose log is the error: q_des* ⊗ q (LOCAL) or q ⊗ q_des* (WORLD). The conjugate is
// the inverse because both inputs are unit.
template <typename T, QuatLayout L, ErrorFrame F>
GLASS_HD void quat_relative(const T* q, const T* q_des, T* d) {
    T c[4];
    quat_conj_core<T, L>(q_des, c);
    if constexpr (F == ErrorFrame::LOCAL) {
        quat_mul_core<T, L>(c, q, d);
    } else {
        quat_mul_core<T, L>(q, c, d);
    }
}

// e = the frame-tagged shortest-path rotation error from q_des to q (3 entries).
template <typename T, QuatLayout L, ErrorFrame F = ErrorFrame::LOCAL>
GLASS_HD void quat_error_core(const T* q, const T* q_des, T* e) {
    T d[4];
    quat_relative<T, L, F>(q, q_des, d);
    quat_log_core<T, L>(d, e);
}

// e = [p − p_des; quat_error(q, q_des)] for poses [p; q] (6 entries). The inputs are read before the first
// store.
template <typename T, QuatLayout L, ErrorFrame F = ErrorFrame::LOCAL>
GLASS_HD void pose_error_core(const T* pose, const T* pose_des, T* e) {
    const T dx = pose[0] - pose_des[0], dy = pose[1] - pose_des[1], dz = pose[2] - pose_des[2];
    T r[3];
    quat_error_core<T, L, F>(pose + 3, pose_des + 3, r);
    e[0] = dx;
    e[1] = dy;
    e[2] = dz;
    e[3] = r[0];
    e[4] = r[1];
    e[5] = r[2];
}

}  // namespace lie_detail

// =======================================================================================================
// Scalar (scope-free)
// =======================================================================================================

// Geodesic angle θ ∈ [0, π] between two unit quaternions: 2·atan2(|vec(d)|, |w(d)|) with d = q_des* ⊗ q.
// atan2 keeps full precision at θ → 0 (where acos(|w|) loses half the digits) and |w| folds the double
// cover. The LOCAL and WORLD errors differ only by a rotation, so this one angle serves both frames.
template <typename T, QuatLayout L = QuatLayout::xyzw>
GLASS_HD T quat_angle(const T* q, const T* q_des) {
    using std::atan2;
    using std::fabs;
    using std::sqrt;
    using I = lie_detail::layout<L>;
    T d[4];
    lie_detail::quat_relative<T, L, ErrorFrame::LOCAL>(q, q_des, d);
    const T s = sqrt(d[I::X] * d[I::X] + d[I::Y] * d[I::Y] + d[I::Z] * d[I::Z]);
    return T(2) * atan2(s, fabs(d[I::W]));
}

// =======================================================================================================
// Block scope
// =======================================================================================================

// e = LOCAL log(q_des⁻¹ ⊗ q) or WORLD log(q ⊗ q_des⁻¹) (3 entries, |e| <= π). Both inputs unit; e must not
// alias them.
template <typename T, QuatLayout L = QuatLayout::xyzw, ErrorFrame F = ErrorFrame::LOCAL, bool TRAILING_SYNC = true>
GLASS_HD void quat_error(const T* q, const T* q_des, T* e) {
    T tmp[3];
    lie_detail::quat_error_core<T, L, F>(q, q_des, tmp);
    lie_detail::copy_out<T, 3>(block_rank(), block_size(), tmp, e);
    trailing_sync<TRAILING_SYNC>();
}

// e = [p − p_des; quat_error<L, F>(q, q_des)] for 7-entry poses [p; q] (6 entries). e must not alias the
// poses.
template <typename T, QuatLayout L = QuatLayout::xyzw, ErrorFrame F = ErrorFrame::LOCAL, bool TRAILING_SYNC = true>
GLASS_HD void pose_error(const T* pose, const T* pose_des, T* e) {
    T tmp[6];
    lie_detail::pose_error_core<T, L, F>(pose, pose_des, tmp);
    lie_detail::copy_out<T, 6>(block_rank(), block_size(), tmp, e);
    trailing_sync<TRAILING_SYNC>();
}

// =======================================================================================================
// Warp scope
// =======================================================================================================
namespace warp {

// Single-warp frame-tagged rotation error. See glass::quat_error.
template <typename T, QuatLayout L = QuatLayout::xyzw, ErrorFrame F = ErrorFrame::LOCAL>
GLASS_HD void quat_error(const T* q, const T* q_des, T* e) {
    T tmp[3];
    lie_detail::quat_error_core<T, L, F>(q, q_des, tmp);
    lie_detail::copy_out<T, 3>(warp_rank(), warp_size(), tmp, e);
    warp_sync();
}

// Single-warp decoupled 6-D pose error. See glass::pose_error.
template <typename T, QuatLayout L = QuatLayout::xyzw, ErrorFrame F = ErrorFrame::LOCAL>
GLASS_HD void pose_error(const T* pose, const T* pose_des, T* e) {
    T tmp[6];
    lie_detail::pose_error_core<T, L, F>(pose, pose_des, tmp);
    lie_detail::copy_out<T, 6>(warp_rank(), warp_size(), tmp, e);
    warp_sync();
}

}  // namespace warp

// =======================================================================================================
// Thread scope
// =======================================================================================================
namespace thread {

// Single-thread frame-tagged rotation error. See glass::quat_error.
template <typename T, QuatLayout L = QuatLayout::xyzw, ErrorFrame F = ErrorFrame::LOCAL>
GLASS_HD void quat_error(const T* q, const T* q_des, T* e) {
    lie_detail::quat_error_core<T, L, F>(q, q_des, e);
}

// Single-thread decoupled 6-D pose error. See glass::pose_error.
template <typename T, QuatLayout L = QuatLayout::xyzw, ErrorFrame F = ErrorFrame::LOCAL>
GLASS_HD void pose_error(const T* pose, const T* pose_des, T* e) {
    lie_detail::pose_error_core<T, L, F>(pose, pose_des, e);
}

}  // namespace thread

}  // namespace glass
