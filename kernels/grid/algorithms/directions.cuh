// Derivatives one tangent direction per thread, by dual numbers (grid/dual.cuh). Every thread of a sample
// group runs the same instructions on its own seed, so no thread waits for another and nothing crosses
// threads: one sample's latency is that of one dual-number run. That costs more arithmetic than the
// analytical recursions (a dual-number run of inverse dynamics per direction, 2·NV of them, against one
// O(NB·depth) pass), so it serves latency: groups of at most one warp, where the analytical recursions would
// run a BFS level's bodies on lanes of one warp one after another, and which a batch of a few samples
// launches. Forward dynamics' derivatives take these directions at (q, qd, qdd) after ABA runs for qdd and
// M⁻¹'s columns (fd_gradient.cuh). The second-order algorithms seed their directions the same way.
#pragma once

#include "glass/quaternion.cuh"
#include "grid/algorithms/rnea.cuh"
#include "grid/dual.cuh"
#include "grid/model.cuh"
#include "grid/schedule.cuh"

#include <type_traits>

namespace grid {
namespace algorithms {

// Whether a scope can run the first derivatives by directions: a sample group of an unrolled robot (a rolled
// robot's joints are not compile-time types, which seed_direction needs; a limb scope's threads each run
// their own limb)...
template <class R, class S>
constexpr bool directions_capable = S::cooperative && !is_limb_scope_v<S> && !rolled_v<R>;

// ... and whether it does for an algorithm of `directions` tangent directions: a group of at most one warp, or
// one with fewer than two threads per direction (the launch table picks such a shape where one sample's
// latency matters; a larger group runs the level-parallel recursions).
template <class S>
GLASS_HD bool directions_group(const S& scope, int directions) {
    return scope.size() <= 32 || int(scope.size()) < 2 * directions;
}

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

// Column item of [∂τ/∂q | ∂τ/∂qd] at (q, qd, qdd) into col (NV): item < NV is tangent direction item of q,
// the others velocity coordinate item − NV.
template <class R, typename T>
GLASS_HD void inverse_dynamics_direction(T* col, int item, const T* q, const T* qd, const T* qdd, Vec3<T> gravity) {
    const bool along_q = item < R::NV;
    Dual<T> dq[R::NQ], dqd[R::NV], dqdd[R::NV], tau[R::NV];
    seed_direction<R>(dq, dqd, dqdd, q, qd, qdd, along_q, along_q ? item : item - R::NV);
    RneaState<R, Dual<T>> st;
    rnea<R>(ThreadScope{}, tau, dq, dqd, dqdd, st, dual_gravity(gravity));
    for (int k = 0; k < R::NV; ++k) col[k] = tau[k].d;
}

// ∂τ/∂q and ∂τ/∂qd at (q, qd, qdd) ([NV, NV] row-major, row = τ index, column = direction), one column per
// work item.
template <class R, typename T, class S>
GLASS_HD void inverse_dynamics_gradient_by_directions(const S& scope, T* dtau_dq, T* dtau_dqd, const T* q,
                                                      const T* qd, const T* qdd, Vec3<T> gravity) {
    for_each_item<2 * R::NV>(scope, [&](int item) {
        T col[R::NV];
        inverse_dynamics_direction<R>(col, item, q, qd, qdd, gravity);
        T* out = item < R::NV ? dtau_dq : dtau_dqd;
        for (int k = 0; k < R::NV; ++k) out[k * R::NV + item % R::NV] = col[k];
    });
    scope.sync();
}

}  // namespace algorithms
}  // namespace grid
