// Host inverse kinematics for the robot whose grid.cuh is on the include path: a plain C ABI,
// grid_ik_solve, in a library of its own (libgrid_rbd_ik_cpu.so) that Python calls through ctypes.
//
// Not an XLA FFI handler: IK is neither differentiated nor traced, returns a data-dependent choice among
// restarts, and one call does milliseconds of work per target, so XLA would add a compile per shape and
// nothing else. Its own library keeps the solver's instantiations out of the dynamics library's build.
// The source lives beside the handlers so that runtime builds and wheels carry it with them.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "grid.cuh"
#include "grid/algorithms/ik.cuh"
#ifdef GRID_HAS_COLLISION
#include "grid/collision.cuh"
#endif

namespace {

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

// Outputs per goal and returned solution.
struct Outputs {
    double* q;         // [G, S, NQ]
    double* pos_err;   // [G, S]
    double* ang_err;   // [G, S]
    double* distance;  // [G, S]: least signed distance to obstacles and the robot itself (NaN unscored)
    double* penalty;   // [G, S]: Σ max(0, margin − d) over the checked sphere pairs (NaN unscored)
    int32_t* num_distinct;  // [G]
};

// Solves every goal for a frame on body B: restarts, PO-CCD, LM on the best num_polish, collision scores of
// the polished (dropping colliding ones in hard and both modes), then the returned configurations: distinct
// solutions by ranking key first (the cost, plus the weighted squared penalty in soft and both modes), then
// the best of the rest.
template <int B>
void solve_body(const ga::IkProblem<double>& base, int num_goals, const double* pos, const double* quat,
                const Options& o, Scorer& scorer, const Outputs& out) {
    using Cand = ga::IkCandidate<R, B, double>;
    ga::IkSettings<double> s;
    s.rot_weight = o.rot_weight;
    s.ccd_iters = o.ccd_iters;
    s.lm_iters = o.lm_iters;
    const int batch = o.batch, polish = std::min(o.num_polish, o.batch), S = o.num_solutions;
    std::vector<double> q(size_t(batch) * R::NQ), cost(batch), perr(batch), aerr(batch), dist(batch, NAN),
        pen(batch, NAN), key(batch);
    const bool scored = o.collision_mode != COLLISION_NONE;
    const bool drop = o.collision_mode == COLLISION_HARD || o.collision_mode == COLLISION_BOTH;
    const bool rank = o.collision_mode == COLLISION_SOFT || o.collision_mode == COLLISION_BOTH;
    std::vector<int> order(batch), chosen;
    Cand c;
    for (int g = 0; g < num_goals; ++g) {
        ga::IkProblem<double> pb = base;
        for (int k = 0; k < 3; ++k) pb.pos[k] = pos[3 * g + k];
        for (int k = 0; k < 4; ++k) pb.quat[k] = quat[4 * g + k];
        for (int b = 0; b < batch; ++b) {
            ga::ik_random_start<R, B>(pb, o.seed, uint64_t(g), uint64_t(b), c.q);
            ga::ik_descend(pb, s, c);
            std::copy(c.q, c.q + R::NQ, q.begin() + size_t(b) * R::NQ);
            cost[b] = c.cost;
        }
        order.resize(batch);  // the last goal's selection shortened it
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return cost[a] < cost[b]; });
        for (int n = 0; n < polish; ++n) {
            const int b = order[n];
            std::copy(q.begin() + size_t(b) * R::NQ, q.begin() + size_t(b + 1) * R::NQ, c.q);
            ga::ik_polish(pb, s, c);
            std::copy(c.q, c.q + R::NQ, q.begin() + size_t(b) * R::NQ);
            cost[b] = c.cost;
            perr[b] = c.pos_err;
            aerr[b] = c.ang_err;
            if (scored) scorer(c.q, o.collision_margin, dist[b], pen[b]);
            key[b] = rank ? cost[b] + o.collision_weight * pen[b] * pen[b] : cost[b];
        }
        order.resize(polish);
        if (drop) {
            const auto colliding = [&](int b) { return !(dist[b] >= 0); };
            order.erase(std::remove_if(order.begin(), order.end(), colliding), order.end());
        }
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return key[a] < key[b]; });
        const auto qs = [&](int b) { return q.data() + size_t(b) * R::NQ; };
        // Distinct solutions among the polished, in order of the ranking key.
        chosen.clear();
        for (int b : order) {
            if (!(perr[b] <= o.pos_tol && aerr[b] <= o.ang_tol)) continue;
            bool fresh = true;
            for (int c2 : chosen) fresh = fresh && ga::ik_distinct<R, B>(qs(b), qs(c2), o.distinct_tol);
            if (fresh) chosen.push_back(b);
        }
        out.num_distinct[g] = int32_t(chosen.size());
        if (int(chosen.size()) > S) chosen.resize(S);
        for (int b : order) {
            if (int(chosen.size()) >= S) break;
            if (std::find(chosen.begin(), chosen.end(), b) == chosen.end()) chosen.push_back(b);
        }
        for (int n = 0; n < S; ++n) {
            const size_t slot = size_t(g) * S + n;
            double* qo = out.q + slot * R::NQ;
            if (n < int(chosen.size())) {
                const int b = chosen[n];
                std::copy(qs(b), qs(b) + R::NQ, qo);
                out.pos_err[slot] = perr[b];
                out.ang_err[slot] = aerr[b];
                out.distance[slot] = dist[b];
                out.penalty[slot] = pen[b];
            } else {  // fewer polished (or, in hard and both modes, collision-free) candidates than asked for
                std::fill(qo, qo + R::NQ, NAN);
                out.pos_err[slot] = out.ang_err[slot] = INFINITY;
                out.distance[slot] = out.penalty[slot] = NAN;
            }
        }
    }
}

// Calls f(Index<B>) for frame f's body, when IK supports it; false otherwise (a world frame, a floating base).
template <class F>
bool with_frame_body(int frame, F&& f) {
    bool found = false;
    grid::static_for<R::NB>([&](auto b) {
        if constexpr (ga::ik_chain_supported<R>(int(b))) {
            if (!found && frame >= 0 && frame < R::NF && R::frame[frame].joint == int(b)) {
                found = true;
                f(b);
            }
        }
    });
    return found;
}

}  // namespace

extern "C" {

// Whether grid_ik_solve supports frame `frame` (its index in metadata.json's frames).
__attribute__((visibility("default"))) int grid_ik_frame_supported(int frame) {
    return with_frame_body(frame, [](auto) {}) ? 1 : 0;
}

// sizeof(Options), which the caller checks against its own layout.
__attribute__((visibility("default"))) int grid_ik_options_size() { return int(sizeof(Options)); }

// Whether the robot was generated with its collision spheres (-collision), which collision modes need.
__attribute__((visibility("default"))) int grid_ik_has_collision() {
#ifdef GRID_HAS_COLLISION
    return 1;
#else
    return 0;
#endif
}

// Solves num_goals targets of frame `frame`: pos [G, 3] (m, base frame), quat [G, 4] (unit, xyzw), joint
// limits lower/upper [NQ] (±inf for none), the obstacles (rows as grid/collision.cuh says; read only in a
// collision mode). Writes q_out [G, S, NQ], pos_err and ang_err [G, S] (m, rad), distance and penalty
// [G, S] (collision scores; NaN without a collision mode) and num_distinct [G] (distinct solutions within
// tolerance among the polished restarts, collision-free ones in hard and both modes). Returns 0, or -1 for an
// unsupported frame, -2 for bad options, -3 for a collision mode on a robot built without -collision. The
// inputs are trusted to be finite and the obstacles well formed (the Python wrapper checks).
__attribute__((visibility("default"))) int grid_ik_solve(int frame, int num_goals, const double* pos,
                                                         const double* quat, const double* lower,
                                                         const double* upper, const Options* opt,
                                                         const Obstacles* obstacles, double* q_out,
                                                         double* pos_err, double* ang_err, double* distance,
                                                         double* penalty, int32_t* num_distinct) {
    const Options& o = *opt;
    if (o.batch < 1 || o.num_polish < 1 || o.num_solutions < 1 || o.ccd_iters < 0 || o.lm_iters < 0 ||
        o.collision_mode < COLLISION_NONE || o.collision_mode > COLLISION_BOTH)
        return -2;
    if (o.collision_mode != COLLISION_NONE && !grid_ik_has_collision()) return -3;
    ga::IkProblem<double> pb{};
    pb.lower = lower;
    pb.upper = upper;
    Scorer scorer(*obstacles);
    const Outputs out{q_out, pos_err, ang_err, distance, penalty, num_distinct};
    const bool ok = with_frame_body(frame, [&](auto b) {
        for (int i = 0; i < 3; ++i) {
            pb.frame_r[i] = R::frame[frame].r[i];
            for (int j = 0; j < 3; ++j) pb.frame_E(i, j) = R::frame[frame].E[i + 3 * j];
        }
        solve_body<decltype(b)::value>(pb, num_goals, pos, quat, o, scorer, out);
    });
    return ok ? 0 : -1;
}

}  // extern "C"
