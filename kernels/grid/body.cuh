// Spatial vectors, inertias and joints for the algorithm templates: per-body operations specialised on
// a joint object (grid/model.cuh: JointAt, every constant folded in, or RolledJoint, its class folded in
// and its values read from tables), built on the structured 3×3 algebra of grid/structured.cuh. Thread
// scope: one thread handles one body.
//
// Conventions (docs/architecture.md): spatial vectors are [ω; v] (angular first); a transform is an
// (E, r) pair, E rotating A coordinates into B coordinates and r the origin of B in A coordinates, so
// that ᴮX_A·m = [E·ω; E·(v − r × ω)]. A joint's parent-to-body transform is X_J(q)·X_P: the constant
// placement X_P = (E_p, r_p) followed by the joint's own motion X_J(q).
#pragma once

#include "glass/quaternion.cuh"
#include "glass/scope.cuh"
#include "grid/model.cuh"
#include "grid/structured.cuh"

#include <cmath>
#include <type_traits>
#include <utility>

namespace grid {

// A spatial motion [ω; v] or force [n; f].
template <typename T>
struct Spatial {
    Vec<T> ang, lin;
};

template <typename T>
GLASS_HD Spatial<T> zero_spatial() {
    return Spatial<T>{{{T(0), T(0), T(0)}}, {{T(0), T(0), T(0)}}};
}

template <typename T>
GLASS_HD Spatial<T> operator+(const Spatial<T>& a, const Spatial<T>& b) {
    Spatial<T> c;
    for (int k = 0; k < 3; ++k) {
        c.ang[k] = a.ang[k] + b.ang[k];
        c.lin[k] = a.lin[k] + b.lin[k];
    }
    return c;
}

template <typename T>
GLASS_HD Spatial<T> operator-(const Spatial<T>& a, const Spatial<T>& b) {
    Spatial<T> c;
    for (int k = 0; k < 3; ++k) {
        c.ang[k] = a.ang[k] - b.ang[k];
        c.lin[k] = a.lin[k] - b.lin[k];
    }
    return c;
}

template <typename T>
GLASS_HD Spatial<T> operator*(T s, const Spatial<T>& a) {
    Spatial<T> c;
    for (int k = 0; k < 3; ++k) {
        c.ang[k] = s * a.ang[k];
        c.lin[k] = s * a.lin[k];
    }
    return c;
}

template <typename T>
GLASS_HD T dot(const Spatial<T>& a, const Spatial<T>& b) {
    T s = a.ang[0] * b.ang[0];
    s += a.ang[1] * b.ang[1];
    s += a.ang[2] * b.ang[2];
    s += a.lin[0] * b.lin[0];
    s += a.lin[1] * b.lin[1];
    s += a.lin[2] * b.lin[2];
    return s;
}

template <typename T>
GLASS_HD Vec<T> operator+(const Vec<T>& a, const Vec<T>& b) {
    return Vec<T>{{a[0] + b[0], a[1] + b[1], a[2] + b[2]}};
}

template <typename T>
GLASS_HD Vec<T> operator-(const Vec<T>& a, const Vec<T>& b) {
    return Vec<T>{{a[0] - b[0], a[1] - b[1], a[2] - b[2]}};
}

// m1 ×ₘ m2 = [ω₁ × ω₂; ω₁ × v₂ + v₁ × ω₂].
template <typename T>
GLASS_HD Spatial<T> motion_cross(const Spatial<T>& a, const Spatial<T>& b) {
    return Spatial<T>{cross<T>(a.ang, b.ang), cross<T>(a.ang, b.lin) + cross<T>(a.lin, b.ang)};
}

// m ×* f = [ω × n + v × f; ω × f].
template <typename T>
GLASS_HD Spatial<T> force_cross(const Spatial<T>& m, const Spatial<T>& f) {
    return Spatial<T>{cross<T>(m.ang, f.ang) + cross<T>(m.lin, f.lin), cross<T>(m.ang, f.lin)};
}

// ---- constant rigid-body inertias ----------------------------------------------------------------------

// Views of a body's inertia parameters: the rotational inertia about the origin and h = m·c.
template <class J, typename T>
struct BodyRotInertia {
    GLASS_HD static constexpr double value(int i, int j) { return J::inertia(4 + Sym3<T>::index(i, j)); }
    template <int I, int K>
    GLASS_HD static constexpr int kind() { return entry_kind(value(I, K)); }
    template <int I, int K>
    GLASS_HD T at() const { return T(value(I, K)); }
};

template <class J, typename T>
struct BodyFirstMoment {
    template <int I>
    GLASS_HD static constexpr int kind() { return entry_kind(J::inertia(1 + I)); }
    template <int I>
    GLASS_HD T at() const { return T(J::inertia(1 + I)); }
};

// The same read from a rolled robot's table p ([m, h, Ixx, Ixy, Ixz, Iyy, Iyz, Izz]).
template <typename T>
struct TableRotInertia {
    const T* p;
    template <int I, int K>
    GLASS_HD static constexpr int kind() { return ENTRY_GENERAL; }
    template <int I, int K>
    GLASS_HD T at() const { return p[4 + Sym3<T>::index(I, K)]; }
};

// ---- views of a joint's constants -------------------------------------------------------------------------
// An unrolled joint's are constant views (its zero and ±1 entries cost nothing); a rolled joint's are its
// class's coordinate axis where it has one, and table views otherwise.

template <typename T, class R, int I>
GLASS_HD ConstMat3<JointAt<R, I>, T> placement_E(JointAt<R, I>) { return {}; }
template <typename T, class R, int C>
GLASS_HD TableMat3<T> placement_E(const RolledJoint<R, C>& j) { return {R::template placement_E<T>(j.index)}; }

template <typename T, class R, int I>
GLASS_HD ConstVec<JointAt<R, I>, T> placement_r(JointAt<R, I>) { return {}; }
template <typename T, class R, int C>
GLASS_HD TableVec<T> placement_r(const RolledJoint<R, C>& j) { return {R::template placement_r<T>(j.index)}; }

template <typename T, class R, int I>
GLASS_HD AxisVec<JointAt<R, I>, T> joint_axis(JointAt<R, I>) { return {}; }
template <typename T, class R, int C>
GLASS_HD auto joint_axis(const RolledJoint<R, C>& j) {
    if constexpr (RolledJoint<R, C>::axis_class == AXIS_GENERAL) {
        return TableVec<T>{R::template axis<T>(j.index)};
    } else {
        return CoordinateAxis<RolledJoint<R, C>::axis_class, T>{};
    }
}

template <typename T, class R, int I>
GLASS_HD BodyRotInertia<JointAt<R, I>, T> rot_inertia(JointAt<R, I>) { return {}; }
template <typename T, class R, int C>
GLASS_HD TableRotInertia<T> rot_inertia(const RolledJoint<R, C>& j) { return {R::template inertia<T>(j.index)}; }

template <typename T, class R, int I>
GLASS_HD BodyFirstMoment<JointAt<R, I>, T> first_moment(JointAt<R, I>) { return {}; }
template <typename T, class R, int C>
GLASS_HD TableVec<T> first_moment(const RolledJoint<R, C>& j) { return {R::template inertia<T>(j.index) + 1}; }

template <typename T, class R, int I>
GLASS_HD T body_mass(JointAt<R, I>) { return T(JointAt<R, I>::inertia(0)); }
template <typename T, class R, int C>
GLASS_HD T body_mass(const RolledJoint<R, C>& j) { return R::template inertia<T>(j.index)[0]; }

template <typename T, class R, int F>
GLASS_HD ConstMat3<FrameAt<R, F>, T> frame_E(FrameAt<R, F>) { return {}; }
template <typename T, class R>
GLASS_HD TableMat3<T> frame_E(const RolledFrame<R>& f) { return {R::template frame_E<T>(f.index)}; }

template <typename T, class R, int F>
GLASS_HD ConstVec<FrameAt<R, F>, T> frame_r(FrameAt<R, F>) { return {}; }
template <typename T, class R>
GLASS_HD TableVec<T> frame_r(const RolledFrame<R>& f) { return {R::template frame_r<T>(f.index)}; }

// I·m for body j's inertia I = [[I_O, [h]ₓ], [[h]ₓᵀ, m·1]]: [I_O·ω + h × v; m·v − h × ω].
template <class J, typename T>
GLASS_HD Spatial<T> inertia_apply(const J& j, const Spatial<T>& m) {
    const auto h = first_moment<T>(j);
    const Vec<T> n = apply<T>(rot_inertia<T>(j), m.ang) + cross<T>(h, m.lin);
    const Vec<T> hw = cross<T>(h, m.ang);
    const T mass = body_mass<T>(j);
    return Spatial<T>{n, Vec<T>{{mass * m.lin[0] - hw[0], mass * m.lin[1] - hw[1], mass * m.lin[2] - hw[2]}}};
}

// ---- articulated (symmetric 6×6) inertias ---------------------------------------------------------------

// A symmetric 6×6 [[A, B], [Bᵀ, C]] in motion coordinates: A (angular) and C (linear) symmetric, B the
// coupling; 21 numbers instead of 36.
template <typename T>
struct Sym6 {
    Sym3<T> A;
    Mat3<T> B;
    Sym3<T> C;
};

// Body j's rigid-body inertia as a Sym6.
template <typename T, class J>
GLASS_HD Sym6<T> body_inertia(const J& j) {
    Sym6<T> I;
    const auto Io = rot_inertia<T>(j);
    const Skew<decltype(first_moment<T>(j))> H{first_moment<T>(j)};
    const T mass = body_mass<T>(j);
    static_for<3>([&](auto ia) {
        static_for<3>([&](auto ib) {
            constexpr int a = index_of<decltype(ia)>, b = index_of<decltype(ib)>;
            if constexpr (a <= b) {
                I.A(a, b) = Io.template at<a, b>();
                I.C(a, b) = a == b ? mass : T(0);
            }
            // B = [h]ₓ
            I.B(a, b) = H.template at<a, b>();
        });
    });
    return I;
}

template <typename T>
GLASS_HD void add_to(Sym6<T>& acc, const Sym6<T>& x) {
    for (int k = 0; k < 6; ++k) {
        acc.A.s[k] += x.A.s[k];
        acc.C.s[k] += x.C.s[k];
    }
    for (int k = 0; k < 9; ++k) acc.B.m[k] += x.B.m[k];
}

// acc += I·[ang; lin] for the parts given as vector views (their zero entries skipped), one running sum per
// entry.
template <typename T, class VA, class VL>
GLASS_HD Spatial<T> apply_accumulate(Acc<T> (&ang_acc)[3], Acc<T> (&lin_acc)[3], const Sym6<T>& I, const VA& ang,
                                     const VL& lin) {
    accumulate<T>(ang_acc, I.A, ang);
    accumulate<T>(ang_acc, I.B, lin);
    accumulate<T>(lin_acc, Transposed<Mat3<T>>{I.B}, ang);
    accumulate<T>(lin_acc, I.C, lin);
    Spatial<T> out;
    for (int k = 0; k < 3; ++k) {
        out.ang[k] = ang_acc[k].value;
        out.lin[k] = lin_acc[k].value;
    }
    return out;
}

// I·[ang; lin].
template <typename T, class VA, class VL>
GLASS_HD Spatial<T> apply_parts(const Sym6<T>& I, const VA& ang, const VL& lin) {
    Acc<T> ang_acc[3], lin_acc[3];
    return apply_accumulate(ang_acc, lin_acc, I, ang, lin);
}

// base + I·[ang; lin].
template <typename T, class VA, class VL>
GLASS_HD Spatial<T> apply_parts_add(const Spatial<T>& base, const Sym6<T>& I, const VA& ang, const VL& lin) {
    Acc<T> ang_acc[3], lin_acc[3];
    for (int k = 0; k < 3; ++k) {
        ang_acc[k].add(base.ang[k]);
        lin_acc[k].add(base.lin[k]);
    }
    return apply_accumulate(ang_acc, lin_acc, I, ang, lin);
}

// IA·m.
template <typename T>
GLASS_HD Spatial<T> apply(const Sym6<T>& I, const Spatial<T>& m) {
    return apply_parts(I, m.ang, m.lin);
}

// I − U·Uᵀ·dinv: the articulated inertia with a one-degree-of-freedom joint removed.
template <typename T>
GLASS_HD Sym6<T> rank1_remove(const Sym6<T>& I, const Spatial<T>& U, T dinv) {
    Sym6<T> out;
    for (int i = 0; i < 3; ++i) {
        const T ua = U.ang[i] * dinv, ul = U.lin[i] * dinv;
        for (int j = i; j < 3; ++j) {
            out.A(i, j) = I.A(i, j) - ua * U.ang[j];
            out.C(i, j) = I.C(i, j) - ul * U.lin[j];
        }
        for (int j = 0; j < 3; ++j) out.B(i, j) = I.B(i, j) - ua * U.lin[j];
    }
    return out;
}

// Xᵀ·I·X for X = diag(E, E) given by the rotation view E.
template <typename T, class M>
GLASS_HD Sym6<T> rotate_t(const M& E, const Sym6<T>& I) {
    return Sym6<T>{congruence_t<T>(E, I.A), congruence_t<T>(E, I.B), congruence_t<T>(E, I.C)};
}

// Xᵀ·I·X for the pure translation X = [[1, 0], [−[r]ₓ, 1]] given by the vector view r:
// C' = C, B' = B + [r]ₓ·C, A' = A + [r]ₓ·Bᵀ − B'·[r]ₓ.
template <typename T, class V>
GLASS_HD Sym6<T> translate_t(const V& r, const Sym6<T>& I) {
    const Skew<V> R{r};
    const Mat3<T> RC = mul<T>(R, I.C);
    Sym6<T> out;
    out.C = I.C;
    for (int k = 0; k < 9; ++k) out.B.m[k] = I.B.m[k] + RC.m[k];
    const Mat3<T> RBt = mul<T>(R, Transposed<Mat3<T>>{I.B});
    const Mat3<T> BR = mul<T>(out.B, R);
    for (int i = 0; i < 3; ++i)
        for (int j = i; j < 3; ++j) out.A(i, j) = I.A(i, j) + RBt(i, j) - BR(i, j);
    return out;
}

// ---- joints ----------------------------------------------------------------------------------------------

// The configuration-dependent part X_J(q) of joint J's transform. Revolute joints about a coordinate axis
// keep (cos q, sin q); other revolute joints and free-flyers a rotation matrix; prismatic joints the
// displacement q; free-flyers also the position p. Members a joint kind does not use are never read.
template <typename T>
struct JointPose {
    T c, s;      // revolute about a coordinate axis
    Mat3<T> E;   // revolute about a general axis, free-flyer: rotation parent → body
    Vec<T> p;    // free-flyer: body origin in parent coordinates
    T d;         // prismatic: displacement along the axis
};

#if defined(__CUDACC__)
template <typename T>
struct SinCos {
    T s, c;
};

// Both from one range reduction, in a function of its own that every joint of a kernel calls: inlined, each
// revolute joint's straight-line code carried two reductions and their slow paths for large arguments (a
// third of an unrolled ABA's instructions), which a sample at batch 1 fetches once and never reuses.
template <typename T>
__device__ __noinline__ SinCos<T> sin_cos_outlined(T x) {
    SinCos<T> r;
    sincos(x, &r.s, &r.c);
    return r;
}
#endif

template <typename T>
GLASS_HD void sin_cos(T x, T* s, T* c) {
#if defined(__CUDA_ARCH__)
    if constexpr (std::is_floating_point_v<T>) {
        const SinCos<T> r = sin_cos_outlined(x);
        *s = r.s;
        *c = r.c;
        return;
    }
#endif
    using std::cos;
    using std::sin;
    *s = sin(x);  // dual numbers (grid/dual.cuh) through their own sin and cos
    *c = cos(x);
}

// X_J(q) of joint j from its configuration coordinates qj (J::nq values).
template <class J, typename T>
GLASS_HD JointPose<T> joint_pose(const J& jt, const T* qj) {
    JointPose<T> P;
    if constexpr (J::kind == JOINT_REVOLUTE) {
        T s, c;
        sin_cos(qj[0], &s, &c);
        if constexpr (J::axis_class == AXIS_GENERAL) {
            // E = R(a, q)ᵀ = c·1 + (1 − c)·a·aᵀ − s·[a]ₓ
            const auto a = joint_axis<T>(jt);
            const T omc = T(1) - c;
            static_for<3>([&](auto i) {
                static_for<3>([&](auto j) {
                    T e = omc * a.template at<i>() * a.template at<j>();
                    if constexpr (i == j) e += c;
                    if constexpr (j == (i + 1) % 3) e += s * a.template at<3 - i - j>();
                    if constexpr (i == (j + 1) % 3) e -= s * a.template at<3 - i - j>();
                    P.E(i, j) = e;
                });
            });
        } else {
            P.c = c;
            P.s = J::axis_class >= AXIS_NEG_X ? -s : s;
        }
    } else if constexpr (J::kind == JOINT_PRISMATIC) {
        P.d = qj[0];
    } else {
        // The rotation of quat/|quat| (only the direction matters, so derivatives with respect to the raw
        // quaternion are well defined); E = Rᵀ.
        T unit[4], R[9];
        glass::lie_detail::quat_normalize_core<T, glass::QuatLayout::xyzw, false>(qj + 3, unit);
        glass::lie_detail::quat_to_rot_core<T, glass::QuatLayout::xyzw>(unit, R);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) P.E(i, j) = R[j + 3 * i];
        P.p = Vec<T>{{qj[0], qj[1], qj[2]}};
    }
    return P;
}

// The identity as a constant-matrix source.
struct IdentitySource {
    GLASS_HD static constexpr double E(int i, int j) { return i == j ? 1.0 : 0.0; }
};

// Calls f with the rotation view of X_J(q).
template <class J, typename T, class F>
GLASS_HD auto with_joint_rotation(const JointPose<T>& P, F&& f) {
    if constexpr (J::kind == JOINT_REVOLUTE && J::axis_class != AXIS_GENERAL) {
        return f(AxisRotation<J::axis_class, T>{P.c, P.s});
    } else {
        return f(P.E);
    }
}

// ᴮX_A·m for a transform given as rotation view E and translation view r.
template <typename T, class M, class V>
GLASS_HD Spatial<T> transform_motion(const M& E, const V& r, const Spatial<T>& m) {
    return Spatial<T>{apply<T>(E, m.ang), apply<T>(E, m.lin - cross<T>(r, m.ang))};
}

// ᴮX_Aᵀ·f: a force in B coordinates expressed in A coordinates, [Eᵀn + r × Eᵀf; Eᵀf].
template <typename T, class M, class V>
GLASS_HD Spatial<T> transform_force_t(const M& E, const V& r, const Spatial<T>& f) {
    const Vec<T> lin = apply_t<T>(E, f.lin);
    return Spatial<T>{apply_t<T>(E, f.ang) + cross<T>(r, lin), lin};
}

// A prismatic joint's displacement axis·d as a vector view.
template <class J, typename T>
GLASS_HD auto joint_displacement(const J& j, const JointPose<T>& P) {
    using A = decltype(joint_axis<T>(j));
    return ScaledVec<A, T>{joint_axis<T>(j), P.d};
}

// X_i·m: a motion in parent-body coordinates expressed in body coordinates.
template <class J, typename T>
GLASS_HD Spatial<T> joint_motion_to_body(const J& j, const JointPose<T>& P, const Spatial<T>& m) {
    const Spatial<T> mj = transform_motion<T>(placement_E<T>(j), placement_r<T>(j), m);
    if constexpr (J::kind == JOINT_PRISMATIC) {
        return transform_motion<T>(ConstMat3<IdentitySource, T>{}, joint_displacement(j, P), mj);
    } else if constexpr (J::kind == JOINT_FREE_FLYER) {
        return transform_motion<T>(P.E, P.p, mj);
    } else {
        return with_joint_rotation<J>(P, [&](const auto& E) {
            return Spatial<T>{apply<T>(E, mj.ang), apply<T>(E, mj.lin)};
        });
    }
}

// X_iᵀ·f: a force in body coordinates expressed in parent-body coordinates.
template <class J, typename T>
GLASS_HD Spatial<T> joint_force_to_parent(const J& j, const JointPose<T>& P, const Spatial<T>& f) {
    Spatial<T> fj;
    if constexpr (J::kind == JOINT_PRISMATIC) {
        fj = transform_force_t<T>(ConstMat3<IdentitySource, T>{}, joint_displacement(j, P), f);
    } else if constexpr (J::kind == JOINT_FREE_FLYER) {
        fj = transform_force_t<T>(P.E, P.p, f);
    } else {
        fj = with_joint_rotation<J>(P, [&](const auto& E) {
            return Spatial<T>{apply_t<T>(E, f.ang), apply_t<T>(E, f.lin)};
        });
    }
    return transform_force_t<T>(placement_E<T>(j), placement_r<T>(j), fj);
}

// X_iᵀ·I·X_i: a symmetric 6×6 in body coordinates expressed in parent-body coordinates.
template <class J, typename T>
GLASS_HD Sym6<T> joint_inertia_to_parent(const J& j, const JointPose<T>& P, const Sym6<T>& I) {
    Sym6<T> Ij;
    if constexpr (J::kind == JOINT_PRISMATIC) {
        Ij = translate_t<T>(joint_displacement(j, P), I);
    } else if constexpr (J::kind == JOINT_FREE_FLYER) {
        Ij = translate_t<T>(P.p, rotate_t<T>(P.E, I));
    } else {
        Ij = with_joint_rotation<J>(P, [&](const auto& E) { return rotate_t<T>(E, I); });
    }
    return translate_t<T>(placement_r<T>(j), rotate_t<T>(placement_E<T>(j), Ij));
}

// ---- motion subspaces ------------------------------------------------------------------------------------
// S maps joint velocity coordinates to a spatial motion in body coordinates: a revolute joint's axis
// [a; 0], a prismatic joint's [0; a], a free-flyer's [v_lin; ω] ↦ [ω; v_lin].

// S·x (x: J::nv values).
template <class J, typename T>
GLASS_HD Spatial<T> subspace_apply(const J& j, const T* x) {
    Spatial<T> m = zero_spatial<T>();
    if constexpr (J::kind == JOINT_FREE_FLYER) {
        for (int k = 0; k < 3; ++k) {
            m.lin[k] = x[k];
            m.ang[k] = x[3 + k];
        }
    } else {
        const auto a = joint_axis<T>(j);
        using A = decltype(a);
        static_for<3>([&](auto k) {
            constexpr int ka = A::template kind<k>();
            T value;
            if constexpr (ka == ENTRY_ZERO) {
                value = T(0);
            } else if constexpr (ka == ENTRY_ONE) {
                value = x[0];
            } else if constexpr (ka == ENTRY_MINUS_ONE) {
                value = -x[0];
            } else {
                value = a.template at<k>() * x[0];
            }
            if constexpr (J::kind == JOINT_REVOLUTE) {
                m.ang[k] = value;
            } else {
                m.lin[k] = value;
            }
        });
    }
    return m;
}

// Sᵀ·f into out (J::nv values).
template <class J, typename T>
GLASS_HD void subspace_project(const J& j, const Spatial<T>& f, T* out) {
    if constexpr (J::kind == JOINT_FREE_FLYER) {
        for (int k = 0; k < 3; ++k) {
            out[k] = f.lin[k];
            out[3 + k] = f.ang[k];
        }
    } else {
        const Vec<T>& part = J::kind == JOINT_REVOLUTE ? f.ang : f.lin;
        const auto a = joint_axis<T>(j);
        using A = decltype(a);
        Acc<T> acc;
        static_for<3>([&](auto k) { acc.template add<A::template kind<k>()>(a.template at<k>(), part[k]); });
        out[0] = acc.value;
    }
}

// Sᵀ·f for a one-degree-of-freedom joint.
template <class J, typename T>
GLASS_HD T subspace_project1(const J& j, const Spatial<T>& f) {
    static_assert(J::nv == 1, "one degree of freedom");
    T out;
    subspace_project(j, f, &out);
    return out;
}

// m + S·x (x: J::nv values), adding only where S has entries (adding an exact zero is not free in IEEE
// arithmetic).
template <class J, typename T>
GLASS_HD Spatial<T> subspace_add(const J& j, Spatial<T> m, const T* x) {
    if constexpr (J::kind == JOINT_FREE_FLYER) {
        for (int k = 0; k < 3; ++k) {
            m.lin[k] += x[k];
            m.ang[k] += x[3 + k];
        }
    } else {
        const auto a = joint_axis<T>(j);
        using A = decltype(a);
        static_for<3>([&](auto k) {
            constexpr int ka = A::template kind<k>();
            T& out = J::kind == JOINT_REVOLUTE ? m.ang[k] : m.lin[k];
            if constexpr (ka == ENTRY_ONE) {
                out += x[0];
            } else if constexpr (ka == ENTRY_MINUS_ONE) {
                out -= x[0];
            } else if constexpr (ka == ENTRY_GENERAL) {
                out += a.template at<k>() * x[0];
            }
        });
    }
    return m;
}

// I·S·e_K: column K (< J::nv) of joint J's motion subspace mapped through a symmetric 6×6, the zero
// entries of the axis skipped (a free-flyer's column is a column of I: linear e_K for K < 3, angular
// e_{K−3} for K ≥ 3).
template <class J, typename T, int K>
GLASS_HD Spatial<T> inertia_subspace(const J& j, const Sym6<T>& I, Index<K>) {
    static_assert(K >= 0 && K < J::nv, "a column of the joint's subspace");
    if constexpr (J::kind == JOINT_FREE_FLYER) {
        Spatial<T> m;
        for (int r = 0; r < 3; ++r) {
            m.ang[r] = K < 3 ? I.B(r, K) : I.A(r, K - 3);
            m.lin[r] = K < 3 ? I.C(r, K) : I.B(K - 3, r);
        }
        return m;
    } else if constexpr (J::kind == JOINT_REVOLUTE) {
        return Spatial<T>{apply<T>(I.A, joint_axis<T>(j)), apply_t<T>(I.B, joint_axis<T>(j))};
    } else {
        return Spatial<T>{apply<T>(I.B, joint_axis<T>(j)), apply<T>(I.C, joint_axis<T>(j))};
    }
}

// ---- velocity products ----------------------------------------------------------------------------------
// c = v ×ₘ S·qd: the acceleration a joint moving at qd adds to a body that moves at v, [ω × a·qd; v × a·qd]
// for a revolute joint about the axis a and [0; ω × a·qd] for a prismatic one; zero at a root, whose v is
// S·qd itself. A coordinate axis leaves its own component of each part zero: only the other entries are
// formed, multiplied (velocity_product_apply_add) and added (velocity_product_add); IEEE arithmetic could not
// drop the zeros had they been computed.

// The kinds of each part of c for a one-degree-of-freedom joint.
template <class J, typename T>
using VelocityProductPart = CrossVec<T, decltype(joint_axis<T>(std::declval<const J&>()))>;

// c for joint J at its velocity qd (J::nv values) in a body moving at v (the joint's own motion included).
template <class J, typename T>
GLASS_HD Spatial<T> velocity_product(const J& j, const Spatial<T>& v, const T* qd) {
    if constexpr (J::is_root) {
        return zero_spatial<T>();
    } else {
        static_assert(J::nv == 1, "a free-flyer joint is the root of the tree");
        using A = decltype(joint_axis<T>(j));
        const ScaledVec<A, T> s{joint_axis<T>(j), qd[0]};
        if constexpr (J::kind == JOINT_REVOLUTE) {
            return Spatial<T>{cross<T>(v.ang, s), cross<T>(v.lin, s)};
        } else {
            return Spatial<T>{Vec<T>{{T(0), T(0), T(0)}}, cross<T>(v.ang, s)};
        }
    }
}

// m + c, adding only c's entries that are not zero by structure.
template <class J, typename T>
GLASS_HD Spatial<T> velocity_product_add(const J&, Spatial<T> m, const Spatial<T>& c) {
    if constexpr (!J::is_root) {
        using P = VelocityProductPart<J, T>;
        static_for<3>([&](auto k) {
            if constexpr (P::template kind<k>() != ENTRY_ZERO) {
                if constexpr (J::kind == JOINT_REVOLUTE) m.ang[k] += c.ang[k];
                m.lin[k] += c.lin[k];
            }
        });
    }
    return m;
}

// base + I·c, reading only c's entries that are not zero by structure (a root's c is zero).
template <class J, typename T>
GLASS_HD Spatial<T> velocity_product_apply_add(const J&, const Spatial<T>& base, const Sym6<T>& I,
                                               const Spatial<T>& c) {
    if constexpr (J::is_root) {
        return base;
    } else {
        using P = VelocityProductPart<J, T>;
        if constexpr (J::kind == JOINT_REVOLUTE) {
            return apply_parts_add(base, I, P{c.ang}, P{c.lin});
        } else {
            return apply_parts_add(base, I, ZeroVec<T>{}, P{c.lin});
        }
    }
}

// ---- world poses -----------------------------------------------------------------------------------------

// Joint J's body pose in world coordinates, (E, r): E rotates world coordinates into body coordinates, r is
// the body origin in world coordinates. From its parent body's pose (Ep, rp), which a root does not read
// (its parent is the world):
//     E = E_J·(E_P·E_p),   r = r_p + E_pᵀ·r_P + (E_P·E_p)ᵀ·t_J
// with t_J the joint's own translation (a prismatic joint's axis·d, a free-flyer's position). The constant
// placement is applied to the parent's rotation first, so a placement that relabels axes costs nothing, and
// a root keeps its placement as a constant view.
template <class J, typename T>
GLASS_HD void joint_world_pose(const J& j, const JointPose<T>& P, const Mat3<T>& Ep, const Vec<T>& rp, Mat3<T>& E,
                               Vec<T>& r) {
    // A rotates world coordinates into joint-frame coordinates; o is the joint frame's origin.
    const auto finish = [&](const auto& A, const auto& o) {
        using MA = std::decay_t<decltype(A)>;
        if constexpr (J::kind == JOINT_REVOLUTE) {
            E = with_joint_rotation<J>(P, [&](const auto& Ej) { return mul<T>(Ej, A); });
            r = apply_add<T>(o, Transposed<MA>{A}, ZeroVec<T>{});
        } else if constexpr (J::kind == JOINT_PRISMATIC) {
            E = mul<T>(ConstMat3<IdentitySource, T>{}, A);
            r = apply_add<T>(o, Transposed<MA>{A}, joint_displacement(j, P));
        } else {
            E = mul<T>(P.E, A);
            r = apply_add<T>(o, Transposed<MA>{A}, P.p);
        }
    };
    if constexpr (J::is_root) {
        finish(placement_E<T>(j), placement_r<T>(j));
    } else {
        finish(mul<T>(placement_E<T>(j), Ep), apply_add<T>(rp, Transposed<Mat3<T>>{Ep}, placement_r<T>(j)));
    }
}

}  // namespace grid
