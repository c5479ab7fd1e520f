// Host inverse kinematics for the robot whose grid.cuh is on the include path: a plain C ABI,
// grid_ik_solve, in a library of its own (libgrid_rbd_ik_cpu.so) that Python calls through ctypes.
//
// Not an XLA FFI handler: IK is neither differentiated nor traced, returns a data-dependent choice among
// restarts, and one call does milliseconds of work per target, so XLA would add a compile per shape and
// nothing else. Its own library keeps the solver's instantiations out of the dynamics library's build.
// The source lives beside the handlers so that runtime builds and wheels carry it with them.
#include <algorithm>

#include "ik_driver.h"

namespace {

using grid_ik::R;
namespace ga = grid::algorithms;

// Runs the candidates one after another on the calling thread.
struct CpuBackend {
    template <int B>
    int descend(const grid_ik::Batch& bt, int restarts, double* q, double* cost) {
        ga::IkCandidate<R, B, double> c;
        for (int g = 0; g < bt.num_goals; ++g) {
            const ga::IkProblem<double> pb = bt.problem(g);
            for (int b = 0; b < restarts; ++b) {
                const size_t i = size_t(g) * restarts + b;
                ga::ik_random_start<R, B>(pb, bt.seed, uint64_t(g), uint64_t(b), c.q);
                ga::ik_descend(pb, bt.settings, c);
                std::copy(c.q, c.q + R::NQ, q + i * R::NQ);
                cost[i] = c.cost;
            }
        }
        return grid_ik::IK_OK;
    }

    template <int B>
    int polish(const grid_ik::Batch& bt, int per_goal, double* q, double* cost, double* pos_err, double* ang_err) {
        ga::IkCandidate<R, B, double> c;
        for (int g = 0; g < bt.num_goals; ++g) {
            const ga::IkProblem<double> pb = bt.problem(g);
            for (int n = 0; n < per_goal; ++n) {
                const size_t i = size_t(g) * per_goal + n;
                std::copy(q + i * R::NQ, q + (i + 1) * R::NQ, c.q);
                ga::ik_polish(pb, bt.settings, c);
                std::copy(c.q, c.q + R::NQ, q + i * R::NQ);
                cost[i] = c.cost;
                pos_err[i] = c.pos_err;
                ang_err[i] = c.ang_err;
            }
        }
        return grid_ik::IK_OK;
    }
};

}  // namespace

extern "C" {

// Solves num_goals targets of frame `frame`: pos [G, 3] (m, world frame), quat [G, 4] (unit, xyzw), joint
// limits lower/upper [NQ] (±inf for none), the rest configuration [NQ] (the coordinates IK does not move: a
// floating base's pose, with a unit quaternion, and the joints off the frame's chain), the obstacles (rows as grid/collision.cuh says; read only in a
// collision mode). Writes q_out [G, S, NQ], pos_err and ang_err [G, S] (m, rad), distance and penalty
// [G, S] (collision scores; NaN without a collision mode) and num_distinct [G] (distinct solutions within
// tolerance among the polished restarts, collision-free ones in hard and both modes). Returns 0, or -1 for an
// unsupported frame, -2 for bad options, -3 for a collision mode on a robot built without -collision. The
// inputs are trusted to be finite and the obstacles well formed (the Python wrapper checks).
__attribute__((visibility("default"))) int grid_ik_solve(int frame, int num_goals, const double* pos,
                                                         const double* quat, const double* lower,
                                                         const double* upper, const double* rest,
                                                         const grid_ik::Options* opt,
                                                         const grid_ik::Obstacles* obstacles, double* q_out,
                                                         double* pos_err, double* ang_err, double* distance,
                                                         double* penalty, int32_t* num_distinct) {
    CpuBackend backend;
    return grid_ik::solve(backend, frame, num_goals, pos, quat, lower, upper, rest, opt, obstacles,
                          {q_out, pos_err, ang_err, distance, penalty, num_distinct});
}

}  // extern "C"
