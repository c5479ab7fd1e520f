// The host driver of inverse kinematics for the robot whose grid.cuh is on the include path, shared by the
// CPU library (ik_cpu.cc) and the CUDA one (ik_cuda.cu): the options and obstacles of grid_ik_solve's C ABI,
// the collision scores, and the phases of a solve (every goal's restarts descended, the best of each goal
// polished, then scored and chosen), of which a backend runs the two that act on candidates.
//
// A backend is a class with
//   template <int B> int descend(const Batch& bt, int restarts, double* q, double* cost);
//   template <int B> int polish(const Batch& bt, int per_goal, double* q, double* cost, double* pos_err,
//                               double* ang_err);
// descend starts restart b of goal g at ik_random_start(seed, g, b) and leaves its PO-CCD result in
// q[(g·restarts + b)·NQ …] and cost[g·restarts + b]; polish runs ik_polish from each q row of goal
// (row / per_goal) in place. Both return 0, or an error code (grid_ik_solve's) with the backend's message.
//
// Included by one source file per library, which defines grid_ik::with_backend (below): the header defines
// the library's common C entry points, grid_ik_solve among them.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "grid.cuh"
#include "grid/algorithms/ik.cuh"
#ifdef GRID_HAS_COLLISION
#include "grid/collision.cuh"
#endif

namespace grid_ik {

using R = grid::Robot;
namespace ga = grid::algorithms;

// Mirrored by grid_rbd.ik._Options (ctypes): keep the two in step.
struct Options {
    int32_t batch;          // restarts per target
    int32_t num_polish;     // restarts polished by LM (the lowest-cost after PO-CCD)
    int32_t num_solutions;  // configurations returned per target
    int32_t ccd_iters;
    int32_t lm_iters;
    uint64_t seed;
    double rot_weight;
    double pos_tol;       // a solution: position error <= pos_tol (m)
    double ang_tol;       // and orientation error <= ang_tol (rad)
    double distinct_tol;  // solutions differing by less than this in every chain coordinate are one
    int32_t collision_mode;   // COLLISION_*: what the scores of the polished candidates do
    double collision_margin;  // the penalty counts sphere pairs closer than this (m)
    double collision_weight;  // ranking key: cost + weight * penalty²
};

// Collision modes: NONE scores nothing; HARD drops colliding candidates; SOFT ranks by cost + weight ·
// penalty²; BOTH drops colliding candidates and ranks the rest so.
enum { COLLISION_NONE = 0, COLLISION_HARD = 1, COLLISION_SOFT = 2, COLLISION_BOTH = 3 };

// A problem's obstacles as rows (grid/collision.cuh's SPHERE_ROW, CUBOID_ROW, CYLINDER_ROW).
struct Obstacles {
    const double* spheres;
    int32_t num_spheres;
    const double* cuboids;
    int32_t num_cuboids;
    const double* cylinders;
    int32_t num_cylinders;
};

// Scores configurations against a problem's obstacles and the robot itself (without -collision: never
// called, the entry point refuses a collision mode first).
class Scorer {
   public:
#ifdef GRID_HAS_COLLISION
    explicit Scorer(const Obstacles& o) {
        namespace gc = grid::collision;
        for (int i = 0; i < o.num_cuboids; ++i) cuboids_.push_back(gc::cuboid_from_row(o.cuboids + gc::CUBOID_ROW * i));
        for (int i = 0; i < o.num_cylinders; ++i)
            cylinders_.push_back(gc::cylinder_from_row(o.cylinders + gc::CYLINDER_ROW * i));
        env_ = {o.spheres, o.num_spheres, cuboids_.data(), o.num_cuboids, cylinders_.data(), o.num_cylinders};
    }
    // The least signed distance and the penalty of q.
    void operator()(const double* q, double margin, double& distance, double& penalty) {
        const auto sc = grid::collision::score(q, env_, margin, st_);
        distance = sc.distance;
        penalty = sc.penalty;
    }

   private:
    std::vector<grid::collision::Cuboid<double>> cuboids_;
    std::vector<grid::collision::Cylinder<double>> cylinders_;
    grid::collision::Environment<double> env_;
    grid::collision::ScoreState<R, grid::RobotCollision, double> st_;
#else
    explicit Scorer(const Obstacles&) {}
    void operator()(const double*, double, double& distance, double& penalty) { distance = penalty = NAN; }
#endif
};

// grid_ik_solve's return codes.
enum { IK_OK = 0, IK_BAD_FRAME = -1, IK_BAD_OPTIONS = -2, IK_NO_COLLISION = -3, IK_DEVICE_ERROR = -4 };

// Outputs per goal and returned solution.
struct Outputs {
    double* q;         // [G, S, NQ]
    double* pos_err;   // [G, S]
    double* ang_err;   // [G, S]
    double* distance;  // [G, S]: least signed distance to obstacles and the robot itself (NaN unscored)
    double* penalty;   // [G, S]: Σ max(0, margin − d) over the checked sphere pairs (NaN unscored)
    int32_t* num_distinct;  // [G]
};

// What the backends read: the goals of one call, the frame's placement, the joint limits and the rest
// configuration (base's pointers are the caller's host arrays), the solver's settings and the restarts' seed.
struct Batch {
    ga::IkProblem<double> base;
    int num_goals;
    const double* pos;   // [G, 3]
    const double* quat;  // [G, 4]
    ga::IkSettings<double> settings;
    uint64_t seed;

    // Goal g's problem.
    ga::IkProblem<double> problem(int g) const {
        ga::IkProblem<double> pb = base;
        for (int k = 0; k < 3; ++k) pb.pos[k] = pos[3 * g + k];
        for (int k = 0; k < 4; ++k) pb.quat[k] = quat[4 * g + k];
        return pb;
    }
};

// Solves every goal for a frame on body B: restarts and PO-CCD, LM on each goal's best num_polish (the
// backend's two phases), collision scores of the polished (dropping colliding ones in hard and both modes),
// then the returned configurations: distinct solutions by ranking key first (the cost, plus the weighted
// squared penalty in soft and both modes), then the best of the rest.
template <int B, class Backend>
int solve_body(const Batch& bt, const Options& o, Backend& backend, Scorer& scorer, const Outputs& out) {
    constexpr int NQ = R::NQ;
    const int G = bt.num_goals, batch = o.batch, polish = std::min(o.num_polish, o.batch), S = o.num_solutions;
    std::vector<double> q(size_t(G) * batch * NQ), cost(size_t(G) * batch);
    if (const int e = backend.template descend<B>(bt, batch, q.data(), cost.data())) return e;
    // Each goal's lowest-cost restarts, in order, are its polished candidates.
    const size_t P = size_t(G) * polish;
    std::vector<double> pq(P * NQ), pcost(P), perr(P), aerr(P), dist(P, NAN), pen(P, NAN), key(P);
    std::vector<int> order(batch);
    for (int g = 0; g < G; ++g) {
        const double* gc = cost.data() + size_t(g) * batch;
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return gc[a] < gc[b]; });
        for (int n = 0; n < polish; ++n) {
            const double* row = q.data() + (size_t(g) * batch + order[n]) * NQ;
            std::copy(row, row + NQ, pq.data() + (size_t(g) * polish + n) * NQ);
        }
    }
    if (const int e = backend.template polish<B>(bt, polish, pq.data(), pcost.data(), perr.data(), aerr.data()))
        return e;
    const bool scored = o.collision_mode != COLLISION_NONE;
    const bool drop = o.collision_mode == COLLISION_HARD || o.collision_mode == COLLISION_BOTH;
    const bool rank = o.collision_mode == COLLISION_SOFT || o.collision_mode == COLLISION_BOTH;
    const auto qs = [&](size_t i) { return pq.data() + i * NQ; };
    std::vector<size_t> ranked, chosen;
    for (int g = 0; g < G; ++g) {
        ranked.clear();
        for (int n = 0; n < polish; ++n) {
            const size_t i = size_t(g) * polish + n;
            if (scored) scorer(qs(i), o.collision_margin, dist[i], pen[i]);
            key[i] = rank ? pcost[i] + o.collision_weight * pen[i] * pen[i] : pcost[i];
            if (!(drop && !(dist[i] >= 0))) ranked.push_back(i);
        }
        std::stable_sort(ranked.begin(), ranked.end(), [&](size_t a, size_t b) { return key[a] < key[b]; });
        // Distinct solutions among the polished, in order of the ranking key.
        chosen.clear();
        for (size_t i : ranked) {
            if (!(perr[i] <= o.pos_tol && aerr[i] <= o.ang_tol)) continue;
            bool fresh = true;
            for (size_t c : chosen) fresh = fresh && ga::ik_distinct<R, B>(qs(i), qs(c), o.distinct_tol);
            if (fresh) chosen.push_back(i);
        }
        out.num_distinct[g] = int32_t(chosen.size());
        if (int(chosen.size()) > S) chosen.resize(S);
        for (size_t i : ranked) {
            if (int(chosen.size()) >= S) break;
            if (std::find(chosen.begin(), chosen.end(), i) == chosen.end()) chosen.push_back(i);
        }
        for (int n = 0; n < S; ++n) {
            const size_t slot = size_t(g) * S + n;
            double* qo = out.q + slot * NQ;
            if (n < int(chosen.size())) {
                const size_t i = chosen[n];
                std::copy(qs(i), qs(i) + NQ, qo);
                out.pos_err[slot] = perr[i];
                out.ang_err[slot] = aerr[i];
                out.distance[slot] = dist[i];
                out.penalty[slot] = pen[i];
            } else {  // fewer polished (or, in hard and both modes, collision-free) candidates than asked for
                std::fill(qo, qo + NQ, NAN);
                out.pos_err[slot] = out.ang_err[slot] = INFINITY;
                out.distance[slot] = out.penalty[slot] = NAN;
            }
        }
    }
    return IK_OK;
}

// Calls f(Index<B>) for frame f's body, when IK supports it; false otherwise (a world frame, a floating base).
// A host loop of its own: grid::static_for is __host__ __device__, and nvcc refuses host lambdas in it.
template <class F, int... Bs>
bool with_frame_body(int frame, F&& f, std::integer_sequence<int, Bs...>) {
    bool found = false;
    const auto visit = [&](auto b) {
        if constexpr (ga::ik_chain_supported<R>(int(b))) {
            if (!found && frame >= 0 && frame < R::NF && R::frame[frame].joint == int(b)) {
                found = true;
                f(b);
            }
        }
    };
    (visit(grid::Index<Bs>{}), ...);
    return found;
}

template <class F>
bool with_frame_body(int frame, F&& f) {
    return with_frame_body(frame, f, std::make_integer_sequence<int, R::NB>{});
}

inline bool has_collision() {
#ifdef GRID_HAS_COLLISION
    return true;
#else
    return false;
#endif
}

// grid_ik_solve on a backend (the arguments as there).
template <class Backend>
int solve(Backend& backend, int frame, int num_goals, const double* pos, const double* quat, const double* lower,
          const double* upper, const double* rest, const Options* opt, const Obstacles* obstacles,
          const Outputs& out) {
    const Options& o = *opt;
    if (o.batch < 1 || o.num_polish < 1 || o.num_solutions < 1 || o.ccd_iters < 0 || o.lm_iters < 0 ||
        o.collision_mode < COLLISION_NONE || o.collision_mode > COLLISION_BOTH)
        return IK_BAD_OPTIONS;
    if (o.collision_mode != COLLISION_NONE && !has_collision()) return IK_NO_COLLISION;
    Batch bt{};
    bt.base.lower = lower;
    bt.base.upper = upper;
    bt.base.rest = rest;
    bt.num_goals = num_goals;
    bt.pos = pos;
    bt.quat = quat;
    bt.settings.rot_weight = o.rot_weight;
    bt.settings.ccd_iters = o.ccd_iters;
    bt.settings.lm_iters = o.lm_iters;
    bt.seed = o.seed;
    Scorer scorer(*obstacles);
    int rc = IK_BAD_FRAME;
    with_frame_body(frame, [&](auto b) {
        for (int i = 0; i < 3; ++i) {
            bt.base.frame_r[i] = R::frame[frame].r[i];
            for (int j = 0; j < 3; ++j) bt.base.frame_E(i, j) = R::frame[frame].E[i + 3 * j];
        }
        rc = num_goals > 0 ? solve_body<decltype(b)::value>(bt, o, backend, scorer, out) : IK_OK;
    });
    return rc;
}

// Runs f(backend) on the including library's backend, as that library must (the CUDA one under a lock):
// defined by ik_cpu.cc and ik_cuda.cu.
template <class F>
int with_backend(F&& f);

}  // namespace grid_ik

extern "C" {

// Solves num_goals targets of frame `frame`: pos [G, 3] (m, world frame), quat [G, 4] (unit, xyzw), joint
// limits lower/upper [NQ] (±inf for none), the rest configuration [NQ] (the coordinates IK does not move: a
// floating base's pose, with a unit quaternion, and the joints off the frame's chain), the obstacles (rows as
// grid/collision.cuh says; read only in a collision mode). Writes q_out [G, S, NQ], pos_err and ang_err
// [G, S] (m, rad), distance and penalty [G, S] (collision scores; NaN without a collision mode) and
// num_distinct [G] (distinct solutions within tolerance among the polished restarts, collision-free ones in
// hard and both modes). Returns 0, or -1 for an unsupported frame, -2 for bad options, -3 for a collision
// mode on a robot built without -collision, -4 for a device error (the CUDA library: grid_ik_last_error says
// which). The inputs are trusted to be finite and the obstacles well formed (the Python wrapper checks).
__attribute__((visibility("default"))) int grid_ik_solve(int frame, int num_goals, const double* pos,
                                                         const double* quat, const double* lower,
                                                         const double* upper, const double* rest,
                                                         const grid_ik::Options* opt,
                                                         const grid_ik::Obstacles* obstacles, double* q_out,
                                                         double* pos_err, double* ang_err, double* distance,
                                                         double* penalty, int32_t* num_distinct) {
    return grid_ik::with_backend([&](auto& backend) {
        return grid_ik::solve(backend, frame, num_goals, pos, quat, lower, upper, rest, opt, obstacles,
                              {q_out, pos_err, ang_err, distance, penalty, num_distinct});
    });
}

// Whether grid_ik_solve supports frame `frame` (its index in metadata.json's frames).
__attribute__((visibility("default"))) int grid_ik_frame_supported(int frame) {
    return grid_ik::with_frame_body(frame, [](auto) {}) ? 1 : 0;
}

// sizeof(Options), which the caller checks against its own layout.
__attribute__((visibility("default"))) int grid_ik_options_size() { return int(sizeof(grid_ik::Options)); }

// Whether the robot was generated with its collision spheres (-collision), which collision modes need.
__attribute__((visibility("default"))) int grid_ik_has_collision() { return grid_ik::has_collision() ? 1 : 0; }

}  // extern "C"
