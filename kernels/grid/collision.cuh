// Collision scoring of a configuration: the robot's covering spheres (generated with -collision: struct
// RobotCollision in grid.cuh, codegen/collision) placed by forward kinematics and checked against obstacles
// (spheres, posed cuboids, posed cylinders) and against each other for the body pairs the generator lists
// (no parent-child pairs, none that overlap in every configuration).
//
// A configuration's score is the least signed distance over all checked sphere pairs (negative: penetration
// depth) and a penalty, the sum over those pairs of max(0, margin − d). Inverse kinematics scores its
// polished candidates with it, never inside the solver's loop (docs/ik.md). Everything per configuration is
// GLASS_HD on caller-owned scratch, so one thread can score one candidate on the GPU too.
#pragma once

#include <cmath>

#include "glass/geometry.cuh"
#include "grid/algorithms/kinematics.cuh"

namespace grid {
namespace collision {

// Obstacle rows as callers pass them (metres; quaternions xyzw, need not be normalised):
// a sphere [x, y, z, radius];
// a cuboid [x, y, z, size_x, size_y, size_z, qx, qy, qz, qw] (full side lengths along its own axes);
// a cylinder [x, y, z, radius, length, qx, qy, qz, qw] (its axis is its own z, centred on the point).
constexpr int SPHERE_ROW = 4, CUBOID_ROW = 10, CYLINDER_ROW = 9;

// A posed shape's centre and rotation R (row-major; its columns are the shape's axes in world coordinates).
template <typename T>
struct Pose {
    T c[3];
    T R[9];
};

template <typename T>
struct Cuboid {
    Pose<T> pose;
    T half[3];
};

template <typename T>
struct Cylinder {
    Pose<T> pose;
    T radius, half_length;
};

// The obstacles of one problem, prepared once (cuboid_from_row, cylinder_from_row).
template <typename T>
struct Environment {
    const T* spheres = nullptr;  // SPHERE_ROW each
    int num_spheres = 0;
    const Cuboid<T>* cuboids = nullptr;
    int num_cuboids = 0;
    const Cylinder<T>* cylinders = nullptr;
    int num_cylinders = 0;
};

// The least signed distance (m; +inf when nothing is checked) and the penalty Σ max(0, margin − d).
template <typename T>
struct Score {
    T distance;
    T penalty;
};

namespace detail {

// centre and rotation from a row's [x, y, z] and quaternion [qx, qy, qz, qw]
template <typename T>
GLASS_HD Pose<T> pose_from(const T* c, const T* quat) {
    using std::sqrt;
    Pose<T> p;
    const T n = sqrt(quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2] + quat[3] * quat[3]);
    const T x = quat[0] / n, y = quat[1] / n, z = quat[2] / n, w = quat[3] / n;
    const T R[9] = {T(1) - T(2) * (y * y + z * z), T(2) * (x * y - w * z), T(2) * (x * z + w * y),
                    T(2) * (x * y + w * z), T(1) - T(2) * (x * x + z * z), T(2) * (y * z - w * x),
                    T(2) * (x * z - w * y), T(2) * (y * z + w * x), T(1) - T(2) * (x * x + y * y)};
    for (int k = 0; k < 3; ++k) p.c[k] = c[k];
    for (int k = 0; k < 9; ++k) p.R[k] = R[k];
    return p;
}

// a world point in the shape's coordinates: Rᵀ(x − c)
template <typename T>
GLASS_HD void to_local(const Pose<T>& p, const T* x, T* out) {
    const T d[3] = {x[0] - p.c[0], x[1] - p.c[1], x[2] - p.c[2]};
    for (int k = 0; k < 3; ++k) out[k] = p.R[k] * d[0] + p.R[3 + k] * d[1] + p.R[6 + k] * d[2];
}

template <typename T>
GLASS_HD T max0(T x) {
    return x > T(0) ? x : T(0);
}

}  // namespace detail

template <typename T>
GLASS_HD Cuboid<T> cuboid_from_row(const T* row) {
    return {detail::pose_from(row, row + 6), {T(0.5) * row[3], T(0.5) * row[4], T(0.5) * row[5]}};
}

template <typename T>
GLASS_HD Cylinder<T> cylinder_from_row(const T* row) {
    return {detail::pose_from(row, row + 5), row[3], T(0.5) * row[4]};
}

// Signed distance from a sphere (centre c in the cylinder's coordinates, radius r) to the cylinder about z of
// the given radius and half length: the exact distance of the centre to the solid cylinder, minus r.
template <typename T>
GLASS_HD T sphere_cylinder_dist(const T* c, T r, T radius, T half_length) {
    using std::abs;
    using std::sqrt;
    const T dr = sqrt(c[0] * c[0] + c[1] * c[1]) - radius, dz = abs(c[2]) - half_length;
    const T outside = sqrt(detail::max0(dr) * detail::max0(dr) + detail::max0(dz) * detail::max0(dz));
    const T inside = dr > dz ? dr : dz;
    return (inside < T(0) ? inside : T(0)) + outside - r;
}

// Signed distance from a world sphere [x, y, z, r] to the environment's nearest obstacle, adding each
// obstacle's max(0, margin − d) to penalty.
template <typename T>
GLASS_HD T environment_distance(const T* s, const Environment<T>& env, T margin, T& penalty) {
    T best = T(INFINITY);
    const auto take = [&](T d) {
        best = d < best ? d : best;
        penalty += detail::max0(margin - d);
    };
    for (int o = 0; o < env.num_spheres; ++o) {
        const T* b = env.spheres + SPHERE_ROW * o;
        take(glass::sphere_sphere_dist(s, s[3], b, b[3]));
    }
    T local[3];
    for (int o = 0; o < env.num_cuboids; ++o) {
        detail::to_local(env.cuboids[o].pose, s, local);
        take(glass::sphere_box_dist(local, s[3], env.cuboids[o].half));
    }
    for (int o = 0; o < env.num_cylinders; ++o) {
        const Cylinder<T>& cy = env.cylinders[o];
        detail::to_local(cy.pose, s, local);
        take(sphere_cylinder_dist(local, s[3], cy.radius, cy.half_length));
    }
    return best;
}

namespace detail {

// RobotCollision's tables as one literal value. Its static constexpr arrays have no storage on the device, so
// device code may read them only at indices known at compile time; score() loops over them at run time, through
// a constexpr local copy (which the device compiler places in memory it can index).
template <class C>
struct CollisionTables {
    static constexpr int NFIRST = sizeof(C::first) / sizeof(C::first[0]);
    static constexpr int NSPHERE = sizeof(C::sphere) / sizeof(C::sphere[0]);
    static constexpr int NPAIR = sizeof(C::pair) / sizeof(C::pair[0]);
    int first[NFIRST];
    double sphere[NSPHERE][4];
    int pair[NPAIR][2];
};

template <class C>
GLASS_HD constexpr CollisionTables<C> collision_tables() {
    using Tables = CollisionTables<C>;
    Tables t{};
    for (int i = 0; i < Tables::NFIRST; ++i) t.first[i] = C::first[i];
    for (int i = 0; i < Tables::NSPHERE; ++i)
        for (int k = 0; k < 4; ++k) t.sphere[i][k] = C::sphere[i][k];
    for (int i = 0; i < Tables::NPAIR; ++i)
        for (int k = 0; k < 2; ++k) t.pair[i][k] = C::pair[i][k];
    return t;
}

}  // namespace detail

// Scratch of one scored configuration: the body poses and the spheres in world coordinates.
template <class R, class C, typename T>
struct ScoreState {
    algorithms::KinematicsState<R, T> kin;
    T world[C::NS > 0 ? 4 * C::NS : 4];
};

// Scores configuration q of robot R against the environment and itself with its spheres C
// (RobotCollision). Needs an unrolled robot description, as inverse kinematics does.
template <class R, class C, typename T>
GLASS_HD Score<T> score(const T* q, const Environment<T>& env, T margin, ScoreState<R, C, T>& st) {
    static_assert(!rolled_v<R>, "collision scoring needs an unrolled robot description");
    constexpr detail::CollisionTables<C> tab = detail::collision_tables<C>();
    static_for<R::NB>([&](auto i) { algorithms::body_pose<R>(i, q, st.kin); });
    for (int b = -1; b < R::NB; ++b) {
        for (int s = tab.first[b + 1]; s < tab.first[b + 2]; ++s) {
            const double* local = tab.sphere[s];
            T* w = st.world + 4 * s;
            if (b < 0) {
                for (int k = 0; k < 3; ++k) w[k] = T(local[k]);
            } else {
                // r_b + E_bᵀ·c
                for (int k = 0; k < 3; ++k)
                    w[k] = st.kin.r[b][k] + st.kin.E[b](0, k) * T(local[0]) + st.kin.E[b](1, k) * T(local[1]) +
                           st.kin.E[b](2, k) * T(local[2]);
            }
            w[3] = T(local[3]);
        }
    }
    Score<T> out{T(INFINITY), T(0)};
    for (int s = 0; s < C::NS; ++s) {
        const T d = environment_distance(st.world + 4 * s, env, margin, out.penalty);
        out.distance = d < out.distance ? d : out.distance;
    }
    for (int p = 0; p < C::NPAIRS; ++p) {
        const int a = tab.pair[p][0], b = tab.pair[p][1];
        for (int s = tab.first[a + 1]; s < tab.first[a + 2]; ++s)
            for (int t = tab.first[b + 1]; t < tab.first[b + 2]; ++t) {
                const T* x = st.world + 4 * s;
                const T* y = st.world + 4 * t;
                const T d = glass::sphere_sphere_dist(x, x[3], y, y[3]);
                out.distance = d < out.distance ? d : out.distance;
                out.penalty += detail::max0(margin - d);
            }
    }
    return out;
}

// Whether q is free of collisions with the environment and itself (the least distance is not negative).
template <class R, class C, typename T>
GLASS_HD bool config_free(const T* q, const Environment<T>& env, ScoreState<R, C, T>& st) {
    return score(q, env, T(0), st).distance >= T(0);
}

}  // namespace collision
}  // namespace grid
