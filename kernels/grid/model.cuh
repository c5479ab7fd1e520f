// The robot as data: the types a generated robot description is written in, and the views of it that the
// algorithm templates (grid/algorithms/) are specialised on.
//
// A generated grid.cuh defines one `struct Robot` with static constexpr members:
//   NQ, NV, NB (bodies = movable joints), NF (frames), NLEVELS (BFS levels of the tree)
//   joint[NB]        JointData in depth-first order (parent before child)
//   frame[NF]        FrameData, one per URDF link
//   level_start[NLEVELS + 1], level_order[NB]   the bodies of each BFS level
// Values are read only in constant expressions (through the views below), never indexed at run time, so
// every body's joint kind, axis, placement and inertia are constants the compiler folds into its code.
//
// A *rolled* robot (ROLLED = true; large trees, whose unrolled code would not compile in reasonable time)
// has instead a few joint classes, joint_classes[NCLASSES] (what the code of a body depends on: kind, axis
// class, root or not), and static accessors of run-time tables for everything else (RolledRobot below).
// Its bodies are iterated at run time and each is dispatched to its class's code.
//
// The templates reach a body through an index object: Index<I> (unrolled: a compile-time body number) or
// RolledIndex<C> (rolled: a run-time body of class C), both convertible to int for indexing state, and
// turn it into a joint object with joint<R>(i): JointAt<R, I> or RolledJoint<R, C>. Either has kind, nv,
// nq, axis_class and is_root as compile-time constants (so `if constexpr` on them reads the same) and
// index, parent, q and v as members (constants of an unrolled joint).
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

// The value of an index variable from its type: index_of<decltype(i)>. Inside a nested lambda a captured
// index is not a constant expression to every front end (NVRTC's refuses i's conversion there, and some take
// decltype of the capture as a reference), its type's value is.
template <class I>
constexpr int index_of = std::remove_cv_t<std::remove_reference_t<I>>::value;

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
    static constexpr bool rolled = false;
    static constexpr int index = F;
    static constexpr int joint = R::frame[F].joint;
    GLASS_HD static constexpr double E(int i, int j) { return R::frame[F].E[i + 3 * j]; }
    GLASS_HD static constexpr double r(int k) { return R::frame[F].r[k]; }
};

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

// ---- rolled robots ---------------------------------------------------------------------------------------

// What the code of a rolled body depends on.
struct JointClassData {
    int kind;        // JointKind
    int axis_class;  // AxisClass
    bool is_root;
};

// Whether R is a rolled robot description (has `static constexpr bool ROLLED = true`).
template <class R, class = void>
struct is_rolled : std::false_type {};
template <class R>
struct is_rolled<R, std::void_t<decltype(R::ROLLED)>> : std::integral_constant<bool, R::ROLLED> {};
template <class R>
constexpr bool rolled_v = is_rolled<R>::value;

// A run-time body of joint class C.
template <int C>
struct RolledIndex {
    static constexpr int joint_class = C;
    int value;
    GLASS_HD constexpr operator int() const { return value; }
};

// Joint b of rolled robot R, whose class is C: class members compile-time, the rest read from R's tables.
// R provides static accessors (generated): parent(b), q_index(b), v_index(b), and the real-valued tables
// axis<T>(b), placement_E<T>(b), placement_r<T>(b), inertia<T>(b) as pointers to b's entries.
template <class R, int C>
struct RolledJoint {
    static constexpr JointClassData cls = R::joint_classes[C];
    static constexpr int kind = cls.kind;
    static constexpr int axis_class = cls.axis_class;
    static constexpr bool is_root = cls.is_root;
    static constexpr int nv = kind_nv(kind);
    static constexpr int nq = kind_nq(kind);
    int index, parent, q, v;
    GLASS_HD explicit RolledJoint(int b)
        : index(b), parent(is_root ? -1 : R::parent(b)), q(R::q_index(b)), v(R::v_index(b)) {}
};

// Calls f(RolledIndex<C>{b}) for the class C of rolled body b: one copy of f per class.
template <class R, class F>
GLASS_HD void with_joint_class(int b, F&& f) {
    const int c = R::joint_class(b);
    static_for<R::NCLASSES>([&](auto C) {
        if (c == C) f(RolledIndex<C>{b});
    });
}

// Frame f of rolled robot R: its body read from R's tables (frame_joint(f); frame_E<T>(f) and
// frame_r<T>(f) its placement).
template <class R>
struct RolledFrame {
    static constexpr bool rolled = true;
    int index, joint;
    GLASS_HD explicit RolledFrame(int f) : index(f), joint(R::frame_joint(f)) {}
};

// The frame object of a frame index: Index<F> (unrolled) or a run-time frame number (rolled).
template <class R, int F>
GLASS_HD constexpr FrameAt<R, F> frame_of(Index<F>) {
    return {};
}
template <class R>
GLASS_HD RolledFrame<R> frame_of(int f) {
    return RolledFrame<R>(f);
}

// Calls f(frame index) for every frame on body i, in frame order, and for every frame fixed to the world.
// R lists a rolled robot's frames by body: frame_list(k) for k in [frame_start(b + 1), frame_start(b + 2)),
// b = -1 for the world.
template <class R, int B, class F>
GLASS_HD void for_each_frame(Index<B>, F&& f) {
    static_for<frame_count<R>(B)>([&](auto k) { f(Index<frame_at<R>(B, k)>{}); });
}
template <class R, class F>
GLASS_HD void for_each_rolled_frame(int b, F&& f) {
    for (int k = R::frame_start(b + 1), end = R::frame_start(b + 2); k < end; ++k) f(R::frame_list(k));
}
template <class R, int C, class F>
GLASS_HD void for_each_frame(RolledIndex<C> i, F&& f) {
    for_each_rolled_frame<R>(i, f);
}
template <class R, class F>
GLASS_HD void for_each_world_frame(F&& f) {
    if constexpr (rolled_v<R>) {
        for_each_rolled_frame<R>(-1, f);
    } else {
        for_each_frame<R>(Index<-1>{}, f);
    }
}

// A body index as point_jacobian and the like take it: Index<I> as it is, a rolled body as its number.
template <int I>
GLASS_HD constexpr Index<I> body_number(Index<I> i) {
    return i;
}
template <int C>
GLASS_HD int body_number(RolledIndex<C> i) {
    return i.value;
}

// Velocity coordinates of body 0 when it is a free-flyer root (6), else 0.
template <class R>
GLASS_HD constexpr int root_joint_nv() {
    if constexpr (rolled_v<R>) {
        return R::FLOATING_BASE ? 6 : 0;
    } else {
        return R::joint[0].kind == JOINT_FREE_FLYER ? 6 : 0;
    }
}

// The joint object of a body index.
template <class R, int I>
GLASS_HD constexpr JointAt<R, I> joint(Index<I>) {
    return {};
}
template <class R, int C>
GLASS_HD RolledJoint<R, C> joint(RolledIndex<C> i) {
    return RolledJoint<R, C>(i.value);
}

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

// The same for a body index (compile-time for an unrolled robot, a table of a rolled one).
template <class R, int I>
GLASS_HD constexpr int subtree_nv_of(Index<I>) {
    constexpr int n = subtree_nv<R>(I);
    return n;
}
template <class R, int C>
GLASS_HD int subtree_nv_of(RolledIndex<C> i) {
    return R::nv_subtree(i);
}

// The velocity coordinate that owns tangent direction k (its joint index).
template <class R>
GLASS_HD constexpr int joint_of_velocity(int k) {
    for (int j = 0; j < R::NB; ++j)
        if (k >= R::joint[j].v && k < R::joint[j].v + kind_nv(R::joint[j].kind)) return j;
    return -1;
}

}  // namespace grid
