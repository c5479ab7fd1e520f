// 3×3 algebra on operands whose structure is known at compile time: constant placements and inertias of
// the robot description, rotations about coordinate axes, and general run-time matrices, all behind one
// small interface, so that the algorithm templates are written once and every zero or unit entry of a
// particular robot costs nothing.
//
// A matrix view M (3×3) provides
//   template <int I, int J> static constexpr int kind();   // ZERO, ONE, MINUS_ONE or GENERAL
//   template <int I, int J> GLASS_HD T at() const;          // the value (needed only for GENERAL)
// and a vector view V the same with one index. Products are formed with Acc, which skips zero terms and
// multiplies by ±1 without a multiplication; what remains is the arithmetic a hand-written kernel for
// that robot would do. Thread scope throughout.
#pragma once

#include "glass/scope.cuh"
#include "grid/model.cuh"

namespace grid {

enum EntryKind : int { ENTRY_ZERO = 0, ENTRY_ONE = 1, ENTRY_MINUS_ONE = 2, ENTRY_GENERAL = 3 };

GLASS_HD constexpr int entry_kind(double x) {
    return x == 0.0 ? ENTRY_ZERO : x == 1.0 ? ENTRY_ONE : x == -1.0 ? ENTRY_MINUS_ONE : ENTRY_GENERAL;
}

// The kind of a product of two entries.
GLASS_HD constexpr int product_kind(int a, int b) {
    if (a == ENTRY_ZERO || b == ENTRY_ZERO) return ENTRY_ZERO;
    if (a == ENTRY_GENERAL || b == ENTRY_GENERAL) return ENTRY_GENERAL;
    return a == b ? ENTRY_ONE : ENTRY_MINUS_ONE;
}

// A sum of terms c·x whose coefficient kinds are compile-time constants. Starts empty (value 0); zero
// terms vanish, ±1 terms are additions. The `any` flag is a constant after inlining.
template <typename T>
struct Acc {
    T value = T(0);
    bool any = false;

    template <int KIND>
    GLASS_HD void add(T c, T x) {
        if constexpr (KIND == ENTRY_ZERO) {
            return;
        } else if constexpr (KIND == ENTRY_ONE) {
            value = any ? value + x : x;
        } else if constexpr (KIND == ENTRY_MINUS_ONE) {
            value = any ? value - x : -x;
        } else {
            value = any ? value + c * x : c * x;
        }
        any = true;
    }
    // A term with a run-time coefficient of unknown structure.
    GLASS_HD void add(T x) {
        value = any ? value + x : x;
        any = true;
    }
    GLASS_HD void sub(T x) {
        value = any ? value - x : -x;
        any = true;
    }
};

// ---- views -----------------------------------------------------------------------------------------

// A run-time 3×3 matrix, column-major storage (m[i + 3j]).
template <typename T>
struct Mat3 {
    T m[9];
    template <int I, int J>
    GLASS_HD static constexpr int kind() { return ENTRY_GENERAL; }
    template <int I, int J>
    GLASS_HD T at() const { return m[I + 3 * J]; }
    GLASS_HD T& operator()(int i, int j) { return m[i + 3 * j]; }
    GLASS_HD T operator()(int i, int j) const { return m[i + 3 * j]; }
};

// A symmetric 3×3 matrix stored as its upper triangle [xx, xy, xz, yy, yz, zz].
template <typename T>
struct Sym3 {
    T s[6];
    GLASS_HD static constexpr int index(int i, int j) {
        return i <= j ? (i == 0 ? j : i == 1 ? 2 + j : 5) : (j == 0 ? i : j == 1 ? 2 + i : 5);
    }
    template <int I, int J>
    GLASS_HD static constexpr int kind() { return ENTRY_GENERAL; }
    template <int I, int J>
    GLASS_HD T at() const { return s[index(I, J)]; }
    GLASS_HD T& operator()(int i, int j) { return s[index(i, j)]; }
    GLASS_HD T operator()(int i, int j) const { return s[index(i, j)]; }
};

// A run-time 3-vector.
template <typename T>
struct Vec {
    T x[3];
    template <int I>
    GLASS_HD static constexpr int kind() { return ENTRY_GENERAL; }
    template <int I>
    GLASS_HD T at() const { return x[I]; }
    GLASS_HD T& operator[](int i) { return x[i]; }
    GLASS_HD T operator[](int i) const { return x[i]; }
};

// A constant matrix: Src::E(i, j) is a constexpr function (a joint placement or a frame placement).
template <class Src, typename T>
struct ConstMat3 {
    template <int I, int J>
    GLASS_HD static constexpr int kind() { return entry_kind(Src::E(I, J)); }
    template <int I, int J>
    GLASS_HD T at() const { return T(Src::E(I, J)); }
};

// A constant vector: Src::r(k) is a constexpr function.
template <class Src, typename T>
struct ConstVec {
    template <int I>
    GLASS_HD static constexpr int kind() { return entry_kind(Src::r(I)); }
    template <int I>
    GLASS_HD T at() const { return T(Src::r(I)); }
};

// A joint's unit axis as a constant vector.
template <class J, typename T>
struct AxisVec {
    template <int I>
    GLASS_HD static constexpr int kind() { return entry_kind(J::axis(I)); }
    template <int I>
    GLASS_HD T at() const { return T(J::axis(I)); }
};

// The signed coordinate axis of an AxisClass (AXIS_X .. AXIS_NEG_Z) as a constant vector.
template <int AXIS_CLASS, typename T>
struct CoordinateAxis {
    static_assert(AXIS_CLASS >= AXIS_X && AXIS_CLASS <= AXIS_NEG_Z, "a coordinate axis");
    template <int I>
    GLASS_HD static constexpr int kind() {
        return I != AXIS_CLASS % 3 ? ENTRY_ZERO : AXIS_CLASS < 3 ? ENTRY_ONE : ENTRY_MINUS_ONE;
    }
    template <int I>
    GLASS_HD T at() const { return I != AXIS_CLASS % 3 ? T(0) : AXIS_CLASS < 3 ? T(1) : T(-1); }
};

// A run-time scalar times a vector view (a prismatic joint's displacement axis·q).
template <class V, typename T>
struct ScaledVec {
    V axis;
    T q;
    template <int I>
    GLASS_HD static constexpr int kind() { return V::template kind<I>() == ENTRY_ZERO ? ENTRY_ZERO : ENTRY_GENERAL; }
    template <int I>
    GLASS_HD T at() const { return axis.template at<I>() * q; }
};

// A run-time 3-vector with entries of compile-time kinds K0, K1, K2: those of kind ENTRY_ZERO are zero by
// structure and never read (a cross product with a coordinate axis).
template <typename T, int K0, int K1, int K2>
struct SparseVec {
    Vec<T> v;
    template <int I>
    GLASS_HD static constexpr int kind() { return I == 0 ? K0 : I == 1 ? K1 : K2; }
    template <int I>
    GLASS_HD T at() const { return v[I]; }
};

// The kind of entry K of x × b for a general x and a vector view B: zero where B is zero in both other entries.
template <class B, int K>
GLASS_HD constexpr int cross_kind() {
    return B::template kind<(K + 1) % 3>() == ENTRY_ZERO && B::template kind<(K + 2) % 3>() == ENTRY_ZERO
               ? ENTRY_ZERO
               : ENTRY_GENERAL;
}

// x × b as a SparseVec, for a general x and a vector view B.
template <typename T, class B>
using CrossVec = SparseVec<T, cross_kind<B, 0>(), cross_kind<B, 1>(), cross_kind<B, 2>()>;

// Matrix and vector tables read at run time (a rolled robot's constants): every entry general.
template <typename T>
struct TableMat3 {
    const T* m;  // column-major
    template <int I, int J>
    GLASS_HD static constexpr int kind() { return ENTRY_GENERAL; }
    template <int I, int J>
    GLASS_HD T at() const { return m[I + 3 * J]; }
};

template <typename T>
struct TableVec {
    const T* x;
    template <int I>
    GLASS_HD static constexpr int kind() { return ENTRY_GENERAL; }
    template <int I>
    GLASS_HD T at() const { return x[I]; }
};

// Eᵀ·... for the rotation of a revolute joint about a coordinate axis: E = R(axis, q)ᵀ rotates parent
// (joint-frame) coordinates into body coordinates. For axis ±e_k with (a, b) the next two axes in cyclic
// order, E(a, a) = E(b, b) = cos q, E(a, b) = ±sin q, E(b, a) = ∓sin q, E(k, k) = 1.
template <int AXIS_CLASS, typename T>
struct AxisRotation {
    static_assert(AXIS_CLASS >= AXIS_X && AXIS_CLASS <= AXIS_NEG_Z, "a coordinate axis");
    static constexpr int k = AXIS_CLASS % 3;
    static constexpr int a = (k + 1) % 3;
    static constexpr int b = (k + 2) % 3;
    T c, s;  // cos q and sin q, s already negated for a negative axis
    template <int I, int J>
    GLASS_HD static constexpr int kind() {
        if constexpr (I == k || J == k) {
            return I == J ? ENTRY_ONE : ENTRY_ZERO;
        } else {
            return ENTRY_GENERAL;
        }
    }
    template <int I, int J>
    GLASS_HD T at() const {
        if constexpr (I == J) {
            return c;
        } else if constexpr (I == a) {
            return s;
        } else {
            return -s;
        }
    }
};

// The transpose of a matrix view.
template <class M>
struct Transposed {
    M m;
    template <int I, int J>
    GLASS_HD static constexpr int kind() { return M::template kind<J, I>(); }
    template <int I, int J>
    GLASS_HD auto at() const { return m.template at<J, I>(); }
};

// The cross-product matrix [v]ₓ of a vector view: [v]ₓ·x = v × x.
template <class V>
struct Skew {
    V v;
    template <int I, int J>
    GLASS_HD static constexpr int kind() {
        if constexpr (I == J) {
            return ENTRY_ZERO;
        } else {
            constexpr int c = V::template kind<3 - I - J>();
            // (i, j) = (0,1): -v2, (1,2): -v0, (2,0): -v1; the transposed positions are +.
            constexpr bool negative = (J == (I + 1) % 3);
            if constexpr (c == ENTRY_ONE) return negative ? ENTRY_MINUS_ONE : ENTRY_ONE;
            if constexpr (c == ENTRY_MINUS_ONE) return negative ? ENTRY_ONE : ENTRY_MINUS_ONE;
            return c;
        }
    }
    template <int I, int J>
    GLASS_HD auto at() const {
        if constexpr (I == J) {
            return decltype(v.template at<0>())(0);
        } else if constexpr (J == (I + 1) % 3) {
            return -v.template at<3 - I - J>();
        } else {
            return v.template at<3 - I - J>();
        }
    }
};

// ---- products ----------------------------------------------------------------------------------------
//
// Each product entry is one function over a pack of indices (a fold expression), not nested loops of
// lambdas: a robot instantiates hundreds of products, and the number of functions the compiler must
// inline and fold is what its compile time follows.

namespace structured_detail {

template <int... K>
using Seq = std::integer_sequence<int, K...>;
using Seq3 = std::make_integer_sequence<int, 3>;

// acc += a·b for entries of compile-time kinds KA and KB (zero terms vanish, ±1 factors cost nothing).
template <int KA, int KB, typename T>
GLASS_HD void add_product(Acc<T>& acc, T a, T b) {
    if constexpr (KA == ENTRY_ZERO || KB == ENTRY_ZERO) {
        return;
    } else if constexpr (KB == ENTRY_GENERAL) {
        acc.template add<KA>(a, b);
    } else if constexpr (KA == ENTRY_GENERAL) {
        acc.template add<KB>(b, a);
    } else {
        acc.template add<product_kind(KA, KB)>(T(1), T(1));
    }
}

// Σ_k M(I, k)·x(k)
template <typename T, int I, class M, class V, int... K>
GLASS_HD T apply_entry(const M& m, const V& x, Seq<K...>) {
    Acc<T> acc;
    (add_product<M::template kind<I, K>(), V::template kind<K>()>(acc, T(m.template at<I, K>()),
                                                                    T(x.template at<K>())),
     ...);
    return acc.value;
}

// Σ_k A(I, k)·B(k, J)
template <typename T, int I, int J, class A, class B, int... K>
GLASS_HD T mul_entry(const A& a, const B& b, Seq<K...>) {
    Acc<T> acc;
    (add_product<A::template kind<I, K>(), B::template kind<K, J>()>(acc, T(a.template at<I, K>()),
                                                                      T(b.template at<K, J>())),
     ...);
    return acc.value;
}

template <typename T, class M, class V, int... I>
GLASS_HD Vec<T> apply_all(const M& m, const V& x, Seq<I...>) {
    return Vec<T>{{apply_entry<T, I>(m, x, Seq3{})...}};
}

// Entries in column-major order (n = i + 3j), as Mat3 stores them.
template <typename T, class A, class B, int... N>
GLASS_HD Mat3<T> mul_all(const A& a, const B& b, Seq<N...>) {
    return Mat3<T>{{mul_entry<T, N % 3, N / 3>(a, b, Seq3{})...}};
}

// (Mᵀ·SM)(I, J) = Σ_k M(k, I)·SM(k, J) with SM a run-time matrix
template <typename T, int I, int J, class M, int... K>
GLASS_HD T congruence_entry(const M& m, const Mat3<T>& sm, Seq<K...>) {
    Acc<T> acc;
    (add_product<M::template kind<K, I>(), ENTRY_GENERAL>(acc, T(m.template at<K, I>()), sm.m[K + 3 * J]), ...);
    return acc.value;
}

// a(I) + Σ_k M(I, k)·x(k)
template <typename T, int I, class A, class M, class V, int... K>
GLASS_HD T apply_add_entry(const A& a, const M& m, const V& x, Seq<K...>) {
    Acc<T> acc;
    add_product<A::template kind<I>(), ENTRY_ONE>(acc, T(a.template at<I>()), T(1));
    (add_product<M::template kind<I, K>(), V::template kind<K>()>(acc, T(m.template at<I, K>()),
                                                                    T(x.template at<K>())),
     ...);
    return acc.value;
}

// acc += Σ_k M(I, k)·x(k)
template <typename T, int I, class M, class V, int... K>
GLASS_HD void accumulate_entry(Acc<T>& acc, const M& m, const V& x, Seq<K...>) {
    (add_product<M::template kind<I, K>(), V::template kind<K>()>(acc, T(m.template at<I, K>()),
                                                                    T(x.template at<K>())),
     ...);
}

}  // namespace structured_detail

// acc[I] += Σ_k M(I, k)·x(k) for I = 0, 1, 2: products of several views added into one running sum per entry
// (one multiply-add each) rather than summed as separate vectors.
template <typename T, class M, class V>
GLASS_HD void accumulate(Acc<T> (&acc)[3], const M& m, const V& x) {
    using structured_detail::accumulate_entry;
    using structured_detail::Seq3;
    accumulate_entry<T, 0>(acc[0], m, x, Seq3{});
    accumulate_entry<T, 1>(acc[1], m, x, Seq3{});
    accumulate_entry<T, 2>(acc[2], m, x, Seq3{});
}

// y = M·x.
template <typename T, class M, class V>
GLASS_HD Vec<T> apply(const M& m, const V& x) {
    return structured_detail::apply_all<T>(m, x, structured_detail::Seq3{});
}

// y = Mᵀ·x.
template <typename T, class M, class V>
GLASS_HD Vec<T> apply_t(const M& m, const V& x) {
    return apply<T>(Transposed<M>{m}, x);
}

// y = a × b for vector views.
template <typename T, class A, class B>
GLASS_HD Vec<T> cross(const A& a, const B& b) {
    return apply<T>(Skew<A>{a}, b);
}

// C = A·B for matrix views, as a run-time matrix.
template <typename T, class A, class B>
GLASS_HD Mat3<T> mul(const A& a, const B& b) {
    return structured_detail::mul_all<T>(a, b, std::make_integer_sequence<int, 9>{});
}

// Mᵀ·S·M for a symmetric S: the congruence that re-expresses a symmetric 3×3 (a rotational inertia block)
// under the rotation view M. Only the upper triangle is formed.
template <typename T, class M>
GLASS_HD Sym3<T> congruence_t(const M& m, const Sym3<T>& s) {
    using structured_detail::congruence_entry;
    using structured_detail::Seq3;
    const Mat3<T> sm = mul<T>(s, m);
    // Sym3 order: xx, xy, xz, yy, yz, zz
    return Sym3<T>{{congruence_entry<T, 0, 0>(m, sm, Seq3{}), congruence_entry<T, 0, 1>(m, sm, Seq3{}),
                    congruence_entry<T, 0, 2>(m, sm, Seq3{}), congruence_entry<T, 1, 1>(m, sm, Seq3{}),
                    congruence_entry<T, 1, 2>(m, sm, Seq3{}), congruence_entry<T, 2, 2>(m, sm, Seq3{})}};
}

// Mᵀ·B·M for a general B.
template <typename T, class M>
GLASS_HD Mat3<T> congruence_t(const M& m, const Mat3<T>& b) {
    return mul<T>(Transposed<M>{m}, mul<T>(b, m));
}

// The zero vector as a view: a revolute joint's translation.
template <typename T>
struct ZeroVec {
    template <int I>
    GLASS_HD static constexpr int kind() { return ENTRY_ZERO; }
    template <int I>
    GLASS_HD T at() const { return T(0); }
};

// y = a + M·x for vector views a and x: a point given in a frame's coordinates (M its rotation
// transposed, a its origin) in the reference coordinates. Zero entries of any operand cost nothing, so a
// constant offset or point with zero components adds no arithmetic.
template <typename T, class A, class M, class V>
GLASS_HD Vec<T> apply_add(const A& a, const M& m, const V& x) {
    using structured_detail::apply_add_entry;
    using structured_detail::Seq3;
    return Vec<T>{{apply_add_entry<T, 0>(a, m, x, Seq3{}), apply_add_entry<T, 1>(a, m, x, Seq3{}),
                   apply_add_entry<T, 2>(a, m, x, Seq3{})}};
}

}  // namespace grid
