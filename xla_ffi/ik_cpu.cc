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
};

// Solves every goal for a frame on body B: restarts, PO-CCD, LM on the best num_polish, then the returned
// configurations: distinct solutions by cost first, then the best of the rest.
template <int B>
void solve_body(const ga::IkProblem<double>& base, int num_goals, const double* pos, const double* quat,
                const Options& o, double* q_out, double* pos_err, double* ang_err, int32_t* num_distinct) {
    using Cand = ga::IkCandidate<R, B, double>;
    ga::IkSettings<double> s;
    s.rot_weight = o.rot_weight;
    s.ccd_iters = o.ccd_iters;
    s.lm_iters = o.lm_iters;
    const int batch = o.batch, polish = std::min(o.num_polish, o.batch), S = o.num_solutions;
    std::vector<double> q(size_t(batch) * R::NQ), cost(batch), perr(batch), aerr(batch);
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
        }
        order.resize(polish);
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return cost[a] < cost[b]; });
        const auto qs = [&](int b) { return q.data() + size_t(b) * R::NQ; };
        // Distinct solutions among the polished, in order of cost.
        chosen.clear();
        for (int b : order) {
            if (!(perr[b] <= o.pos_tol && aerr[b] <= o.ang_tol)) continue;
            bool fresh = true;
            for (int c2 : chosen) fresh = fresh && ga::ik_distinct<R, B>(qs(b), qs(c2), o.distinct_tol);
            if (fresh) chosen.push_back(b);
        }
        num_distinct[g] = int32_t(chosen.size());
        if (int(chosen.size()) > S) chosen.resize(S);
        for (int b : order) {
            if (int(chosen.size()) >= S) break;
            if (std::find(chosen.begin(), chosen.end(), b) == chosen.end()) chosen.push_back(b);
        }
        for (int n = 0; n < S; ++n) {
            double* out = q_out + (size_t(g) * S + n) * R::NQ;
            if (n < int(chosen.size())) {
                std::copy(qs(chosen[n]), qs(chosen[n]) + R::NQ, out);
                pos_err[size_t(g) * S + n] = perr[chosen[n]];
                ang_err[size_t(g) * S + n] = aerr[chosen[n]];
            } else {  // fewer polished candidates than solutions asked for
                std::fill(out, out + R::NQ, NAN);
                pos_err[size_t(g) * S + n] = ang_err[size_t(g) * S + n] = INFINITY;
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

// Solves num_goals targets of frame `frame`: pos [G, 3] (m, base frame), quat [G, 4] (unit, xyzw), joint
// limits lower/upper [NQ] (±inf for none). Writes q_out [G, S, NQ], pos_err and ang_err [G, S] (m, rad) and
// num_distinct [G] (distinct solutions within tolerance among the polished restarts). Returns 0, or -1 for
// an unsupported frame, -2 for bad options. The inputs are trusted to be finite (the Python wrapper checks).
__attribute__((visibility("default"))) int grid_ik_solve(int frame, int num_goals, const double* pos,
                                                         const double* quat, const double* lower,
                                                         const double* upper, const Options* opt, double* q_out,
                                                         double* pos_err, double* ang_err, int32_t* num_distinct) {
    const Options& o = *opt;
    if (o.batch < 1 || o.num_polish < 1 || o.num_solutions < 1 || o.ccd_iters < 0 || o.lm_iters < 0) return -2;
    ga::IkProblem<double> pb{};
    pb.lower = lower;
    pb.upper = upper;
    const bool ok = with_frame_body(frame, [&](auto b) {
        for (int i = 0; i < 3; ++i) {
            pb.frame_r[i] = R::frame[frame].r[i];
            for (int j = 0; j < 3; ++j) pb.frame_E(i, j) = R::frame[frame].E[i + 3 * j];
        }
        solve_body<decltype(b)::value>(pb, num_goals, pos, quat, o, q_out, pos_err, ang_err, num_distinct);
    });
    return ok ? 0 : -1;
}

}  // extern "C"
