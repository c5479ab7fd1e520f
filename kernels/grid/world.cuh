// World-frame quantities for the derivative algorithms: body poses, motion subspaces, rigid-body inertias
// and the Coriolis operator, all in world coordinates, where a subtree's composite quantities are plain
// sums (no transforms in the backward sweep). Thread scope.
//
// Conventions as body.cuh: spatial vectors [ω; v]; a pose is the (E, r) pair of the world-to-body
// transform (E rotates world coordinates into body coordinates, r is the body origin in world coordinates).
#pragma once

#include "glass/scope.cuh"
#include "grid/body.cuh"
#include "grid/model.cuh"
#include "grid/structured.cuh"

namespace grid {

template <typename T>
struct WorldPose {
    Mat3<T> E;  // world → body rotation
    Vec<T> r;   // body origin in world coordinates
};

// Joint J's body pose from its joint pose and its parent's body pose (ignored for the root):
// E = E_J·E_P·E_parent, r = r_parent + E_parentᵀ·(r_P + E_Pᵀ·p_J).
template <class J, typename T>
GLASS_HD WorldPose<T> world_pose(const J& jt, const JointPose<T>& P, const WorldPose<T>& parent) {
    // The placement rotation applied to the parent's rotation (or alone, for the root).
    const auto Ep = placement_E<T>(jt);
    const auto rp = placement_r<T>(jt);
    Mat3<T> EpE;
    if constexpr (J::is_root) {
        static_for<3>([&](auto i) {
            static_for<3>([&](auto j) { EpE(i, j) = Ep.template at<index_of<decltype(i)>, j>(); });
        });
    } else {
        EpE = mul<T>(Ep, parent.E);
    }
    WorldPose<T> W;
    Vec<T> local_r;  // r_P + E_Pᵀ·p_J: the body origin in parent coordinates
    if constexpr (J::kind == JOINT_REVOLUTE) {
        W.E = with_joint_rotation<J>(P, [&](const auto& Ej) { return mul<T>(Ej, EpE); });
        local_r = apply<T>(ConstMat3<IdentitySource, T>{}, rp);
    } else if constexpr (J::kind == JOINT_PRISMATIC) {
        W.E = EpE;
        local_r = apply<T>(ConstMat3<IdentitySource, T>{}, rp) + apply_t<T>(Ep, joint_displacement(jt, P));
    } else {
        W.E = mul<T>(P.E, EpE);
        local_r = apply<T>(ConstMat3<IdentitySource, T>{}, rp) + apply_t<T>(Ep, P.p);
    }
    if constexpr (J::is_root) {
        W.r = local_r;
    } else {
        W.r = parent.r + apply_t<T>(parent.E, local_r);
    }
    return W;
}

// A body-coordinate motion in world coordinates: [Eᵀω; Eᵀv + r × Eᵀω].
template <typename T>
GLASS_HD Spatial<T> motion_to_world(const WorldPose<T>& W, const Spatial<T>& m) {
    const Vec<T> w = apply_t<T>(W.E, m.ang);
    return Spatial<T>{w, apply_t<T>(W.E, m.lin) + cross<T>(W.r, w)};
}

// Column k of joint J's motion subspace in world coordinates (a free-flyer's columns follow its velocity
// [v_lin; ω]: k < 3 linear, k ≥ 3 angular).
template <class J, typename T>
GLASS_HD Spatial<T> world_subspace(const J& j, const WorldPose<T>& W, int k) {
    Spatial<T> s;
    if constexpr (J::kind == JOINT_FREE_FLYER) {
        // Eᵀ·e_c is row c of E
        const int c = k < 3 ? k : k - 3;
        const Vec<T> axis{{W.E(c, 0), W.E(c, 1), W.E(c, 2)}};
        if (k < 3) {
            s.ang = Vec<T>{{T(0), T(0), T(0)}};
            s.lin = axis;
        } else {
            s.ang = axis;
            s.lin = cross<T>(W.r, axis);
        }
    } else {
        const Vec<T> axis = apply_t<T>(W.E, joint_axis<T>(j));
        if constexpr (J::kind == JOINT_REVOLUTE) {
            s.ang = axis;
            s.lin = cross<T>(W.r, axis);
        } else {
            s.ang = Vec<T>{{T(0), T(0), T(0)}};
            s.lin = axis;
        }
    }
    return s;
}

// A rigid-body inertia in world coordinates about the world origin: mass m, first moment h = m·c and
// rotational inertia I; sums of them (composite inertias) are rigid-body inertias too.
template <typename T>
struct RigidInertia {
    T m;
    Vec<T> h;
    Sym3<T> I;
};

template <typename T>
GLASS_HD void add_to(RigidInertia<T>& acc, const RigidInertia<T>& x) {
    acc.m += x.m;
    for (int k = 0; k < 3; ++k) acc.h[k] += x.h[k];
    for (int k = 0; k < 6; ++k) acc.I.s[k] += x.I.s[k];
}

// I·m = [I·ω + h × v; m·v − h × ω].
template <typename T>
GLASS_HD Spatial<T> apply(const RigidInertia<T>& Y, const Spatial<T>& m) {
    const Vec<T> hv = cross<T>(Y.h, m.lin), hw = cross<T>(Y.h, m.ang);
    const Vec<T> Iw = apply<T>(Y.I, m.ang);
    return Spatial<T>{Iw + hv, Vec<T>{{Y.m * m.lin[0] - hw[0], Y.m * m.lin[1] - hw[1], Y.m * m.lin[2] - hw[2]}}};
}

// Body J's inertia in world coordinates: rotated (h' = Eᵀh, I' = Eᵀ·I_O·E), then moved from the body
// origin to the world origin: h_W = h' + m·r, I_W = I' − m[r]ₓ[r]ₓ − [r]ₓ[h']ₓ − [h']ₓ[r]ₓ.
template <class J, typename T>
GLASS_HD RigidInertia<T> inertia_to_world(const J& j, const WorldPose<T>& W) {
    RigidInertia<T> Y;
    const T m = body_mass<T>(j);
    Y.m = m;
    const Vec<T> h = apply_t<T>(W.E, first_moment<T>(j));
    // I' = Eᵀ·I_O·E with the constant I_O: (I_O·E) first, its zero entries pruned.
    const Mat3<T> IE = mul<T>(rot_inertia<T>(j), W.E);
    const Vec<T>& r = W.r;
    // [a]ₓ[b]ₓ + [b]ₓ[a]ₓ = a·bᵀ + b·aᵀ − 2(a·b)·1, and m[r]ₓ[r]ₓ = m(r·rᵀ − |r|²·1).
    const T rh = r[0] * h[0] + r[1] * h[1] + r[2] * h[2];
    const T rr = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    for (int i = 0; i < 3; ++i) {
        for (int j = i; j < 3; ++j) {
            T e = W.E(0, i) * IE(0, j) + W.E(1, i) * IE(1, j) + W.E(2, i) * IE(2, j);
            e -= m * r[i] * r[j] + r[i] * h[j] + h[i] * r[j];
            if (i == j) e += m * rr + T(2) * rh;
            Y.I(i, j) = e;
        }
    }
    Y.h = Vec<T>{{h[0] + m * r[0], h[1] + m * r[1], h[2] + m * r[2]}};
    return Y;
}

// The Coriolis operator of a body (or a subtree: it adds) in world coordinates,
//     B·w = w ×* (I·v) + v ×* (I·w) + I·(w × v),
// the velocity-bilinear part of the derivative of the body force I·a + v ×* I·v. It depends on the
// angular part of w alone: B·w = [P·ω_w − ℓ_a × ω_w; −2 ℓ_l × ω_w] with the momentum ℓ = I·v and the
// symmetric P = [ω]ₓI − I[ω]ₓ − [v]ₓ[h]ₓ − [h]ₓ[v]ₓ (v = [ω; v] the body velocity).
template <typename T>
struct Coriolis {
    Sym3<T> P;
    Spatial<T> momentum;
};

template <typename T>
GLASS_HD Coriolis<T> coriolis(const RigidInertia<T>& Y, const Spatial<T>& v) {
    Coriolis<T> B;
    B.momentum = apply(Y, v);
    // X = [ω]ₓ·I; P = X + Xᵀ − (h·vᵀ + v·hᵀ) + 2(v·h)·1
    const Mat3<T> X = mul<T>(Skew<Vec<T>>{v.ang}, Y.I);
    const T vh = v.lin[0] * Y.h[0] + v.lin[1] * Y.h[1] + v.lin[2] * Y.h[2];
    for (int i = 0; i < 3; ++i)
        for (int j = i; j < 3; ++j) {
            T e = X(i, j) + X(j, i) - Y.h[i] * v.lin[j] - v.lin[i] * Y.h[j];
            if (i == j) e += T(2) * vh;
            B.P(i, j) = e;
        }
    return B;
}

template <typename T>
GLASS_HD void add_to(Coriolis<T>& acc, const Coriolis<T>& x) {
    for (int k = 0; k < 6; ++k) acc.P.s[k] += x.P.s[k];
    acc.momentum = acc.momentum + x.momentum;
}

// B·w.
template <typename T>
GLASS_HD Spatial<T> apply(const Coriolis<T>& B, const Spatial<T>& w) {
    const Vec<T> la = cross<T>(B.momentum.ang, w.ang), ll = cross<T>(B.momentum.lin, w.ang);
    const Vec<T> Pw = apply<T>(B.P, w.ang);
    return Spatial<T>{Pw - la, Vec<T>{{T(-2) * ll[0], T(-2) * ll[1], T(-2) * ll[2]}}};
}

// Bᵀ·s: [P·s_a + ℓ_a × s_a + 2 ℓ_l × s_l; 0].
template <typename T>
GLASS_HD Spatial<T> apply_t(const Coriolis<T>& B, const Spatial<T>& s) {
    const Vec<T> la = cross<T>(B.momentum.ang, s.ang), ll = cross<T>(B.momentum.lin, s.lin);
    const Vec<T> Ps = apply<T>(B.P, s.ang);
    return Spatial<T>{Vec<T>{{Ps[0] + la[0] + T(2) * ll[0], Ps[1] + la[1] + T(2) * ll[1], Ps[2] + la[2] + T(2) * ll[2]}},
                      Vec<T>{{T(0), T(0), T(0)}}};
}

}  // namespace grid
