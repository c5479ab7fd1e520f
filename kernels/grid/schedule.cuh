// Who runs which body: the execution scopes of the algorithm templates and the sweeps over the tree.
//
// An algorithm template is written once, per body, and runs in two scopes:
//   ThreadScope  one thread runs the whole sample: bodies in joint order (depth-first, parent first), no
//                barriers; with every index a compile-time constant the compiler keeps the state in
//                registers (the one-thread-per-sample kernels).
//   GroupScope   the threads of a sample group (grid/launch.cuh) share the sample: the bodies of one BFS
//                level are dealt out over the group (the body in slot k of its level goes to rank
//                k mod size, the same thread in every sweep), with a barrier after each level. State that
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
    GLASS_HD bool owns(int slot) const { return uint32_t(slot) % group_size() == group_rank(); }
    GLASS_HD uint32_t rank() const { return group_rank(); }
    GLASS_HD uint32_t size() const { return group_size(); }
    GLASS_HD void sync() const { group_sync(); }
};

// Bodies parents first. Ends with a barrier in GroupScope.
template <class R, class S, class F>
GLASS_HD void forward_sweep(const S& s, F&& f) {
    if constexpr (S::cooperative) {
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
    if constexpr (S::cooperative) {
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
// i mod size in GroupScope). Ends with a barrier in GroupScope.
template <class R, class S, class F>
GLASS_HD void for_each_body(const S& s, F&& f) {
    if constexpr (S::cooperative) {
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

// Calls f(Index<c>{}) for every child c of joint I.
template <class R, int I, class F>
GLASS_HD void for_each_child(F&& f) {
    static_for<child_count<R>(I)>([&](auto k) { f(Index<child_at<R>(I, k)>{}); });
}

// Calls f(Index<a>{}) for the ancestors a of joint I, nearest first (and I itself first when SELF).
template <class R, int I, bool SELF, class F>
GLASS_HD void for_each_ancestor(F&& f) {
    if constexpr (SELF) f(Index<I>{});
    if constexpr (R::joint[I].parent >= 0) for_each_ancestor<R, R::joint[I].parent, true>(f);
}

// Depth of joint i in the tree: 0 for a root (its BFS level).
template <class R>
GLASS_HD constexpr int joint_depth(int i) {
    int d = 0;
    for (int j = R::joint[i].parent; j >= 0; j = R::joint[j].parent) ++d;
    return d;
}

}  // namespace grid
