// The robot as data: the types a generated robot description is written in, and compile-time views of it
// that the algorithm templates (grid/algorithms/) are specialised on.
//
// A generated grid.cuh defines one `struct Robot` with static constexpr members:
//   NQ, NV, NB (bodies = movable joints), NF (frames), NLEVELS (BFS levels of the tree)
//   joint[NB]        JointData in depth-first order (parent before child)
//   frame[NF]        FrameData, one per URDF link
//   level_start[NLEVELS + 1], level_order[NB]   the bodies of each BFS level
// Values are read only in constant expressions (through the views below), never indexed at run time, so
// every body's joint kind, axis, placement and inertia are constants the compiler folds into its code.
#pragma once

#include "glass/scope.cuh"

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace grid {

// Joint kinds. Continuous joints are revolute joints without limits.
enum JointKind : int { JOINT_REVOLUTE = 0, JOINT_PRISMATIC = 1, JOINT_FREE_FLYER = 2 };

// Direction of a revolute or prismatic joint's axis: one of the six signed coordinate axes, or general.
enum AxisClass : int {
    AXIS_X = 0, AXIS_Y = 1, AXIS_Z = 2,
    AXIS_NEG_X = 3, AXIS_NEG_Y = 4, AXIS_NEG_Z = 5,
    AXIS_GENERAL = 6
};

// One movable joint and the rigid body it carries.
struct JointData {
    int kind;        // JointKind
    int parent;      // index of the parent joint, -1 for the world
    int q, v;        // first configuration and velocity coordinate
    int axis_class;  // AxisClass
    double axis[3];  // unit axis in the joint frame
    // Placement: parent-body-to-joint-frame transform at q = 0. E rotates parent coordinates into joint
    // coordinates (column-major: E(i, j) at [i + 3j]); r is the joint frame's origin in parent coordinates.
    double E[9];
    double r[3];
    // Inertia of the body (fixed-joint links merged) about its origin, in body coordinates:
    // [m, hx, hy, hz, Ixx, Ixy, Ixz, Iyy, Iyz, Izz] with h = m·c.
    double inertia[10];
};

// One frame (URDF link): the body it is attached to (-1: the world) and its constant placement on it.
struct FrameData {
    int joint;
    double E[9];
    double r[3];
};

// Velocity and configuration coordinates of a joint kind.
GLASS_HD constexpr int kind_nv(int kind) { return kind == JOINT_FREE_FLYER ? 6 : 1; }
GLASS_HD constexpr int kind_nq(int kind) { return kind == JOINT_FREE_FLYER ? 7 : 1; }

// A compile-time integer passed by value (what static_for hands its body).
template <int I>
struct Index {
    static constexpr int value = I;
    GLASS_HD constexpr operator int() const { return I; }
};

namespace model_detail {
template <class F, int... I>
GLASS_HD void static_for_impl(F& f, std::integer_sequence<int, I...>) {
    (f(Index<I>{}), ...);
}
template <class F, int... I>
GLASS_HD void static_for_reverse_impl(F& f, std::integer_sequence<int, I...>) {
    constexpr int n = sizeof...(I);
    (f(Index<n - 1 - I>{}), ...);
}
}  // namespace model_detail

// Calls f(Index<0>{}), ..., f(Index<N - 1>{}) in order: a loop the compiler sees fully unrolled, with the
// index a constant expression in each copy of the body.
template <int N, class F>
GLASS_HD void static_for(F&& f) {
    if constexpr (N > 0) model_detail::static_for_impl(f, std::make_integer_sequence<int, N>{});
}

// The same from N - 1 down to 0.
template <int N, class F>
GLASS_HD void static_for_reverse(F&& f) {
    if constexpr (N > 0) model_detail::static_for_reverse_impl(f, std::make_integer_sequence<int, N>{});
}

// Compile-time view of joint I of robot R.
template <class R, int I>
struct JointAt {
    static constexpr int index = I;
    static constexpr int kind = R::joint[I].kind;
    static constexpr int parent = R::joint[I].parent;
    static constexpr int q = R::joint[I].q;
    static constexpr int v = R::joint[I].v;
    static constexpr int nv = kind_nv(kind);
    static constexpr int nq = kind_nq(kind);
    static constexpr int axis_class = R::joint[I].axis_class;
    static constexpr bool is_root = parent < 0;
    GLASS_HD static constexpr double axis(int k) { return R::joint[I].axis[k]; }
    GLASS_HD static constexpr double E(int i, int j) { return R::joint[I].E[i + 3 * j]; }
    GLASS_HD static constexpr double r(int k) { return R::joint[I].r[k]; }
    GLASS_HD static constexpr double inertia(int k) { return R::joint[I].inertia[k]; }
};

// Compile-time view of frame F of robot R.
template <class R, int F>
struct FrameAt {
    static constexpr int index = F;
    static constexpr int joint = R::frame[F].joint;
    GLASS_HD static constexpr double E(int i, int j) { return R::frame[F].E[i + 3 * j]; }
    GLASS_HD static constexpr double r(int k) { return R::frame[F].r[k]; }
};

// Whether joint A is B or an ancestor of B.
template <class R>
GLASS_HD constexpr bool is_ancestor_or_self(int a, int b) {
    while (b >= 0) {
        if (b == a) return true;
        b = R::joint[b].parent;
    }
    return false;
}

// Velocity coordinates of the subtree rooted at joint I (I and its descendants; they are contiguous in the
// depth-first joint order, starting at the joint's own v).
template <class R>
GLASS_HD constexpr int subtree_nv(int i) {
    int n = 0;
    for (int j = i; j < R::NB; ++j)
        if (is_ancestor_or_self<R>(i, j)) n += kind_nv(R::joint[j].kind);
    return n;
}

// The velocity coordinate that owns tangent direction k (its joint index).
template <class R>
GLASS_HD constexpr int joint_of_velocity(int k) {
    for (int j = 0; j < R::NB; ++j)
        if (k >= R::joint[j].v && k < R::joint[j].v + kind_nv(R::joint[j].kind)) return j;
    return -1;
}

}  // namespace grid
