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
//   LimbScope    one warp per limb of the tree, a limb being a chain of bodies each of which but the last has
//                one child (limbs numbered in joint order): lane 0 of warp L runs limb L's bodies, its state
//                in registers as in ThreadScope but for the bodies at a limb's ends, whose state crosses to
//                other limbs through the caller's scratch; a block barrier between rounds (a limb waits for
//                the limb above it going down the tree and for those below it going up). The kernel runs
//                each warp's limb as a compile-time instantiation of its own (LimbScope<L>), so that a warp
//                streams only its limb's code: one sample's latency at batch 1 is then the longest path of
//                limbs, not the whole tree. Independent algorithms of one sample may run side by side on
//                teams of such warps, each team with a barrier of its own (BlockBarrier).
// Sweeps call f(Index<i>{}) for every body i the calling thread owns, parents before children (forward)
// or children before parents (backward).
#pragma once

#include "glass/scope.cuh"
#include "grid/launch.cuh"
#include "grid/model.cuh"

namespace grid {

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

// Limbs: body b heads a limb where it is a root or its parent has several children. In joint order (depth
// first, parents first) a body's first child follows it, so a limb's bodies are consecutive.
template <class R>
GLASS_HD constexpr bool limb_head(int b) {
    const int p = R::joint[b].parent;
    return p < 0 || child_count<R>(p) != 1;
}

template <class R>
GLASS_HD constexpr int limb_of(int b) {
    int n = -1;
    for (int k = 0; k <= b; ++k) n += limb_head<R>(k) ? 1 : 0;
    return n;
}

template <class R>
GLASS_HD constexpr int limb_count() {
    return limb_of<R>(R::NB - 1) + 1;
}

template <class R>
GLASS_HD constexpr int limb_first_body(int l) {
    int b = 0;
    while (limb_of<R>(b) != l) ++b;
    return b;
}

// The limb above limb l (the limb of its first body's parent), -1 for a root limb.
template <class R>
GLASS_HD constexpr int limb_parent(int l) {
    const int p = R::joint[limb_first_body<R>(l)].parent;
    return p < 0 ? -1 : limb_of<R>(p);
}

// Round of limb l going down the tree (its depth among limbs) and going up (its height: leaves 0).
template <class R>
GLASS_HD constexpr int limb_round_down(int l) {
    int d = 0;
    for (int a = limb_parent<R>(l); a >= 0; a = limb_parent<R>(a)) ++d;
    return d;
}

template <class R>
GLASS_HD constexpr int limb_round_up(int l) {
    int h = 0;
    for (int c = l + 1; c < limb_count<R>(); ++c)
        if (limb_parent<R>(c) == l && limb_round_up<R>(c) + 1 > h) h = limb_round_up<R>(c) + 1;
    return h;
}

template <class R>
GLASS_HD constexpr int limb_rounds() {
    int n = 0;
    for (int l = 0; l < limb_count<R>(); ++l) n = limb_round_down<R>(l) + 1 > n ? limb_round_down<R>(l) + 1 : n;
    return n;
}

// Whether body b's state is read by another limb's thread: a limb's first body with a parent (which reads what
// it passes up) and a body with children in other limbs (which read its motion).
template <class R>
GLASS_HD constexpr bool limb_boundary(int b) {
    if (R::joint[b].parent >= 0 && limb_of<R>(R::joint[b].parent) != limb_of<R>(b)) return true;
    for (int c = b + 1; c < R::NB; ++c)
        if (R::joint[c].parent == b && limb_of<R>(c) != limb_of<R>(b)) return true;
    return false;
}

// Whether limb l has limbs below it (hanging from its last body), which read its bodies' motion as that of
// their ancestors.
template <class R>
GLASS_HD constexpr bool limb_has_limbs_below(int l) {
    for (int c = l + 1; c < limb_count<R>(); ++c)
        if (limb_parent<R>(c) == l) return true;
    return false;
}

// The body whose joint has velocity coordinate c.
template <class R>
GLASS_HD constexpr int coordinate_body(int c) {
    int b = 0;
    while (R::joint[b].v + kind_nv(R::joint[b].kind) <= c) ++b;
    return b;
}

// The barriers of LimbScope on the GPU. A block runs TEAMS teams of limb_count warps side by side, team t on
// warps [t·NL, (t+1)·NL), each team an algorithm of its own (∇FD's limb kernel: ABA then ∇ID on one, M⁻¹ on
// the other): arrive_and_wait meets the warps of the caller's team (named barrier 1 + t over the team's
// threads; the block's barrier 0 where there is one team), arrive_and_wait_all the whole block. Every warp
// arrives from its own limb's code, so not the aligned barrier of __syncthreads, which wants every thread at
// the same instruction.
template <int TEAM = 0, int TEAMS = 1>
struct BlockBarrier {
    static_assert(TEAM >= 0 && TEAM < TEAMS && TEAMS <= 15, "a named barrier per team, ids 1 to 15");
    static constexpr int team = TEAM, teams = TEAMS;
    GLASS_HD void arrive_and_wait() const {
#if defined(__CUDA_ARCH__)
        if constexpr (TEAMS == 1) {
            asm volatile("barrier.sync 0;" ::: "memory");
        } else {
            asm volatile("barrier.sync %0, %1;" ::"n"(1 + TEAM), "r"(blockDim.x / TEAMS) : "memory");
        }
#endif
    }
    GLASS_HD void arrive_and_wait_all() const {
#if defined(__CUDA_ARCH__)
        asm volatile("barrier.sync 0;" ::: "memory");
#endif
    }
};

// The whole block of a LimbScope, every team's warps as one group: work without dependencies between bodies
// after the teams' algorithms (for_each_item), and the barrier that joins the teams. On the host, the limbs'
// threads of every team.
template <class Barrier>
struct LimbBlock {
    static constexpr bool cooperative = true;
    Barrier barrier;
    uint32_t host_rank;  // the calling limb's thread among all teams' (the host's rank)
    GLASS_HD void sync() const { barrier.arrive_and_wait_all(); }
    GLASS_HD uint32_t rank() const {
#if defined(__CUDA_ARCH__)
        return threadIdx.x;
#else
        return host_rank;
#endif
    }
    GLASS_HD uint32_t size() const {
#if defined(__CUDA_ARCH__)
        return blockDim.x;
#else
        return barrier.parties() * uint32_t(Barrier::teams);
#endif
    }
};

template <int L, class Barrier = BlockBarrier<>>
struct LimbScope {
    static constexpr bool cooperative = true;
    static constexpr int limb = L, team = Barrier::team, teams = Barrier::teams;
    Barrier barrier;
    // Lane 0 of the warp runs the bodies; the other lanes keep it company at the barriers.
    GLASS_HD bool runs() const {
#if defined(__CUDA_ARCH__)
        return (threadIdx.x & 31u) == 0;
#else
        return true;
#endif
    }
    // The barrier of the calling limb's team.
    GLASS_HD void sync() const { barrier.arrive_and_wait(); }
    // The team's threads as one group, for work without dependencies between bodies (for_each_item); on the
    // host, the team's limbs' threads (the barrier's parties).
    GLASS_HD uint32_t rank() const {
#if defined(__CUDA_ARCH__)
        return threadIdx.x - uint32_t(team) * (blockDim.x / uint32_t(teams));
#else
        return uint32_t(L);
#endif
    }
    GLASS_HD uint32_t size() const {
#if defined(__CUDA_ARCH__)
        return blockDim.x / uint32_t(teams);
#else
        return barrier.parties();
#endif
    }
    // Every team's threads: see LimbBlock.
    GLASS_HD LimbBlock<Barrier> block() const { return {barrier, uint32_t(team) * size() + uint32_t(L)}; }
};

template <class S>
struct is_limb_scope : std::false_type {};
template <int L, class B>
struct is_limb_scope<LimbScope<L, B>> : std::true_type {};
template <class S>
constexpr bool is_limb_scope_v = is_limb_scope<S>::value;

#if defined(__CUDACC__)
// Calls f(LimbScope<L, BlockBarrier<t, TEAMS>>{}) on warp t·NL + L of the block (a block of TEAMS·NL warps, NL
// = limb_count<R>()): each warp's limb its own instantiation of f, a team of NL warps per algorithm f runs.
template <class R, int TEAMS = 1, class F>
__device__ __forceinline__ void run_limbs(F&& f) {
    constexpr int NL = limb_count<R>();
    const uint32_t warp = threadIdx.x / 32u;
    static_for<TEAMS>([&](auto t) {
        static_for<NL>([&](auto L) {
            if (warp == uint32_t(index_of<decltype(t)> * NL + index_of<decltype(L)>))
                f(LimbScope<index_of<decltype(L)>, BlockBarrier<index_of<decltype(t)>, TEAMS>>{});
        });
    });
}
#endif

// Copies the entries of limb L's joints (velocity coordinates) of a vector of NV values from src to dst.
template <class R, int L, typename D, typename T>
GLASS_HD void copy_limb_velocities(D* dst, const T* src) {
    static_for<R::NB>([&](auto b) {
        using J = JointAt<R, index_of<decltype(b)>>;
        if constexpr (limb_of<R>(J::index) == L)
            for (int k = 0; k < J::nv; ++k) dst[J::v + k] = src[J::v + k];
    });
}

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

// Limb L's bodies in its round, parents first (or children first when UP), a barrier between rounds: every
// warp passes each barrier, whatever its round. The bodies are called from here, not from a lambda per round:
// a lambda holding a whole limb is past what the compiler inlines, and outlined it keeps the state in memory.
template <class R, bool UP, class S, class F>
GLASS_HD void limb_sweep(const S& s, F& f) {
    constexpr int L = S::limb, rounds = limb_rounds<R>();
    constexpr int mine = UP ? limb_round_up<R>(L) : limb_round_down<R>(L);
    static_for<mine>([&](auto) { s.sync(); });
    if (s.runs()) {
        const auto body = [&](auto b) GLASS_INLINE_LAMBDA {
            if constexpr (limb_of<R>(index_of<decltype(b)>) == L) f(b);
        };
        if constexpr (UP) {
            static_for_reverse<R::NB>(body);
        } else {
            static_for<R::NB>(body);
        }
    }
    static_for<rounds - 1 - mine>([&](auto) { s.sync(); });
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

// Which entries of a LimbScope array other limbs read. LimbBodies: an array over bodies passed between a body
// and its parent (limb_boundary). LimbColumns: an array over velocity coordinates that descendants read as
// their ancestors' columns: every coordinate of a limb with limbs below it.
struct LimbBodies {
    template <class R>
    GLASS_HD static constexpr bool shared(int b) {
        return limb_boundary<R>(b);
    }
};
struct LimbColumns {
    template <class R>
    GLASS_HD static constexpr bool shared(int c) {
        return limb_has_limbs_below<R>(limb_of<R>(coordinate_body<R>(c)));
    }
};

// An array of a LimbScope<L>: an entry is limb L's own (registers) unless other limbs read it (Share), then
// the caller's. Indexed by Index<n> only.
template <class A, class R, int L, class Share>
struct LimbArray {
    A& shared;
    A own;
    template <int I>
    GLASS_HD auto& operator[](Index<I> i) {
        if constexpr (Share::template shared<R>(I)) {
            return shared[i];
        } else {
            return own[i];
        }
    }
};

// An algorithm's state array `st.x` where scope S on robot R wants it: `auto x = scope_array<R, S>(st.x);`
// (an array over bodies), `scope_array<R, S, LimbColumns>(st.x)` (over velocity coordinates, read by
// descendants).
template <class R, class S, class Share = LimbBodies, class A>
GLASS_HD auto scope_array(A& caller) {
    if constexpr (is_limb_scope_v<S>) {
        return LimbArray<A, R, S::limb, Share>{caller, {}};
    } else {
        return scope_array<own_arrays<R, S>>(caller);
    }
}

// Whether bodies a and b (index types: Index<n>, or a rolled body) run on the same thread in scope S: every
// body in thread scope on an unrolled robot, a limb's bodies in a LimbScope, none where a group deals bodies at
// run time (nor in a rolled robot's sweeps, which name bodies at run time).
template <class R, class S>
GLASS_HD constexpr bool same_thread_bodies(int a, int b) {
    if constexpr (is_limb_scope_v<S>) {
        return limb_of<R>(a) == limb_of<R>(b);
    } else {
        return own_arrays<R, S>;
    }
}

template <class R, class S, class A, class B>
struct SameThread : std::false_type {};
template <class R, class S, int A, int B>
struct SameThread<R, S, Index<A>, Index<B>> : std::integral_constant<bool, same_thread_bodies<R, S>(A, B)> {};
template <class R, class S, class A, class B>
constexpr bool same_thread = SameThread<R, S, std::decay_t<A>, std::decay_t<B>>::value;

// The children of body p that run on p's thread in scope S, and the last of them in joint order (the first
// to run in a backward sweep, which starts p's sums); for a rolled body none.
template <class R, class S>
GLASS_HD constexpr int children_on_thread(int p) {
    int n = 0;
    for (int c = 0; c < R::NB; ++c) n += R::joint[c].parent == p && same_thread_bodies<R, S>(c, p) ? 1 : 0;
    return n;
}

template <class R, class S>
GLASS_HD constexpr int last_child_on_thread(int p) {
    int last = -1;
    for (int c = 0; c < R::NB; ++c)
        if (R::joint[c].parent == p && same_thread_bodies<R, S>(c, p)) last = c;
    return last;
}

template <class R, class S, class I>
struct ChildrenOnThread : std::integral_constant<int, 0> {};
template <class R, class S, int I>
struct ChildrenOnThread<R, S, Index<I>> : std::integral_constant<int, children_on_thread<R, S>(I)> {};
template <class R, class S, class I>
constexpr int children_on_thread_v = ChildrenOnThread<R, S, std::decay_t<I>>::value;

// Bodies parents first. Ends with a barrier in GroupScope.
template <class R, class S, class F>
GLASS_HD void forward_sweep(const S& s, F&& f) {
    if constexpr (rolled_v<R>) {
        schedule_detail::rolled_sweep<R, false>(s, f);
    } else if constexpr (is_limb_scope_v<S>) {
        schedule_detail::limb_sweep<R, false>(s, f);
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
    } else if constexpr (is_limb_scope_v<S>) {
        schedule_detail::limb_sweep<R, true>(s, f);
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

// The default rows_final of the templates that report the rows of their matrix outputs final (the mass
// matrix, ∇ID): nothing to do.
struct IgnoreFinalRows {
    template <class First, class End>
    GLASS_HD void operator()(First, End) const {}
};

// Body i's parent: Index<p>{} for an unrolled robot, the plain body number for a rolled one.
template <class R, int I>
GLASS_HD constexpr Index<R::joint[I].parent> parent_of(Index<I>) {
    return {};
}
template <class R, int C>
GLASS_HD int parent_of(RolledIndex<C> i) {
    return R::parent(i);
}

// Velocity coordinate k of joint jt: Index<v + k>{} for an unrolled robot's joint (what a LimbScope's arrays
// over coordinates are indexed by), the plain number for a rolled one.
template <class R, int I, int K>
GLASS_HD constexpr Index<JointAt<R, I>::v + K> coordinate(JointAt<R, I>, Index<K>) {
    return {};
}
template <class J, class K>
GLASS_HD int coordinate(const J& jt, K k) {
    return jt.v + int(k);
}

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
