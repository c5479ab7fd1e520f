// Who runs which body: the execution scopes of the algorithm templates and the sweeps over the tree.
//
// An algorithm template is written once, per body, and runs in two scopes:
//   ThreadScope  one thread runs the whole sample: bodies in joint order (depth-first, parent first), no
//                barriers; with every index a compile-time constant the compiler keeps the state in
//                registers (the one-thread-per-sample kernels).
//   GroupScope   the threads of a sample group (grid/launch.cuh) share the sample: the bodies of one BFS
//                level are dealt out over the group (the body in slot k of its level goes to the same
//                thread in every sweep, GroupScope::owner), with a barrier after each level. State that
//                crosses bodies lives in group-visible memory; a body's private state stays in its thread.
// Sweeps call f(Index<i>{}) for every body i the calling thread owns, parents before children (forward)
// or children before parents (backward).
#pragma once

#include "glass/scope.cuh"
#include "grid/launch.cuh"
#include "grid/model.cuh"

namespace grid {

struct ThreadScope {
    static constexpr bool cooperative = false;
    GLASS_HD static constexpr bool owns(int) { return true; }
    GLASS_HD static constexpr uint32_t rank() { return 0; }
    GLASS_HD static constexpr uint32_t size() { return 1; }
    GLASS_HD static void sync() {}
};

struct GroupScope {
    static constexpr bool cooperative = true;
    // The rank that runs slot k of a group of size threads. A group of several whole warps deals slots to its
    // warps first: each body's code is its own, so bodies on lanes of one warp would run one after another
    // (divergent paths), while bodies on different warps run side by side. Otherwise rank k mod size.
    GLASS_HD static constexpr uint32_t owner(uint32_t slot, uint32_t size) {
        const uint32_t warps = size % 32 == 0 ? size / 32 : 1;
        return warps > 1 ? (slot % warps) * 32 + (slot / warps) % 32 : slot % size;
    }
    GLASS_HD bool owns(int slot) const { return owner(uint32_t(slot), group_size()) == group_rank(); }
    GLASS_HD uint32_t rank() const { return group_rank(); }
    GLASS_HD uint32_t size() const { return group_size(); }
    GLASS_HD void sync() const { group_sync(); }
};

namespace schedule_detail {
// The bodies of a rolled robot level by level (parents first, or children first when REVERSE), each
// dispatched to its class; one thread runs every body in ThreadScope, so the order is the same in both.
template <class R, bool REVERSE, class S, class F>
GLASS_HD void rolled_sweep(const S& s, F& f) {
    for (int n = 0; n < R::NLEVELS; ++n) {
        const int l = REVERSE ? R::NLEVELS - 1 - n : n;
        const int begin = R::level_start(l), end = R::level_start(l + 1);
        for (int k = begin; k < end; ++k)
            if (s.owns(k - begin)) with_joint_class<R>(R::level_order(k), f);
        s.sync();
    }
}
}  // namespace schedule_detail

// An array of an algorithm's state where its scope wants it: the caller's (`st.x`) in group scope, where it
// is the group's scratch that its threads share, and for a rolled robot; an array of its own in thread scope
// on an unrolled robot. The compiler keeps a local aggregate in registers only up to a size: the whole state
// of a large robot is past it (atlas's ABA state went to an 8.5 KB stack frame, every access to local
// memory) while each array alone is not. Indexed as the array: `auto pose = scope_array<own>(st.pose);`.
template <class A, bool OWN>
struct ScopeArray {
    A& a;
    template <class I>
    GLASS_HD auto& operator[](I i) {
        return a[i];
    }
};
template <class A>
struct ScopeArray<A, true> {
    A a;
    template <class I>
    GLASS_HD auto& operator[](I i) {
        return a[i];
    }
};

template <bool OWN, class A>
GLASS_HD ScopeArray<A, OWN> scope_array(A& caller) {
    if constexpr (OWN) {
        return {};
    } else {
        return {caller};
    }
}

// Whether an algorithm in scope S on robot R keeps its state arrays as ScopeArrays of their own.
template <class R, class S>
constexpr bool own_arrays = !S::cooperative && !rolled_v<R>;

// Bodies parents first. Ends with a barrier in GroupScope.
template <class R, class S, class F>
GLASS_HD void forward_sweep(const S& s, F&& f) {
    if constexpr (rolled_v<R>) {
        schedule_detail::rolled_sweep<R, false>(s, f);
    } else if constexpr (S::cooperative) {
        static_for<R::NLEVELS>([&](auto l) {
            constexpr int begin = R::level_start[l], end = R::level_start[l + 1];
            static_for<end - begin>([&](auto k) {
                if (s.owns(k)) f(Index<R::level_order[begin + k]>{});
            });
            s.sync();
        });
    } else {
        static_for<R::NB>(f);
    }
}

// Bodies children first. Ends with a barrier in GroupScope.
template <class R, class S, class F>
GLASS_HD void backward_sweep(const S& s, F&& f) {
    if constexpr (rolled_v<R>) {
        schedule_detail::rolled_sweep<R, true>(s, f);
    } else if constexpr (S::cooperative) {
        static_for_reverse<R::NLEVELS>([&](auto l) {
            constexpr int begin = R::level_start[l], end = R::level_start[l + 1];
            static_for<end - begin>([&](auto k) {
                if (s.owns(k)) f(Index<R::level_order[begin + k]>{});
            });
            s.sync();
        });
    } else {
        static_for_reverse<R::NB>(f);
    }
}

// Every body once, in joint order, for work without dependencies between bodies (body i to rank
// GroupScope::owner(i) in GroupScope). Ends with a barrier in GroupScope.
template <class R, class S, class F>
GLASS_HD void for_each_body(const S& s, F&& f) {
    if constexpr (rolled_v<R>) {
        for (int b = 0; b < R::NB; ++b)
            if (s.owns(b)) with_joint_class<R>(b, f);
        s.sync();
    } else if constexpr (S::cooperative) {
        static_for<R::NB>([&](auto i) {
            if (s.owns(i)) f(i);
        });
        s.sync();
    } else {
        static_for<R::NB>(f);
    }
}

// Work items 0..N-1 dealt over the scope (a group-stride loop); no barrier.
template <int N, class S, class F>
GLASS_HD void for_each_item(const S& s, F&& f) {
    if constexpr (S::cooperative) {
        for (uint32_t k = s.rank(); k < uint32_t(N); k += s.size()) f(int(k));
    } else {
        for (int k = 0; k < N; ++k) f(k);
    }
}

// Number of children of joint i, and the k-th of them in joint order.
template <class R>
GLASS_HD constexpr int child_count(int i) {
    int n = 0;
    for (int j = 0; j < R::NB; ++j) n += R::joint[j].parent == i ? 1 : 0;
    return n;
}

template <class R>
GLASS_HD constexpr int child_at(int i, int k) {
    for (int j = 0; j < R::NB; ++j)
        if (R::joint[j].parent == i && k-- == 0) return j;
    return -1;
}

// The default rows_final of the templates that report the rows of their matrix outputs final (the mass
// matrix, ∇ID): nothing to do.
struct IgnoreFinalRows {
    template <class First, class End>
    GLASS_HD void operator()(First, End) const {}
};

// Calls f(c) for every child c of body i: Index<c>{} for an unrolled robot, the plain body number for a
// rolled one.
template <class R, int I, class F>
GLASS_HD void for_each_child(Index<I>, F&& f) {
    static_for<child_count<R>(I)>([&](auto k) { f(Index<child_at<R>(I, k)>{}); });
}
template <class R, int C, class F>
GLASS_HD void for_each_child(RolledIndex<C> i, F&& f) {
    for (int k = R::child_start(i), end = R::child_start(i + 1); k < end; ++k) f(R::children(k));
}

// Calls f(a) for the ancestors a of body i as index objects (joint<R>(a) is each one's joint), nearest
// first, and i itself first when SELF.
template <class R, bool SELF, int I, class F>
GLASS_HD void for_each_ancestor(Index<I> i, F&& f) {
    if constexpr (SELF) f(i);
    if constexpr (R::joint[I].parent >= 0) for_each_ancestor<R, true>(Index<R::joint[I].parent>{}, f);
}
template <class R, bool SELF, int C, class F>
GLASS_HD void for_each_ancestor(RolledIndex<C> i, F&& f) {
    if constexpr (SELF) f(i);
    if constexpr (!RolledJoint<R, C>::is_root)
        for (int a = R::parent(i); a >= 0; a = R::parent(a)) with_joint_class<R>(a, f);
}

// Depth of joint i in the tree: 0 for a root (its BFS level).
template <class R>
GLASS_HD constexpr int joint_depth(int i) {
    int d = 0;
    for (int j = R::joint[i].parent; j >= 0; j = R::joint[j].parent) ++d;
    return d;
}

}  // namespace grid
