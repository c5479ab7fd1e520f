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

template <class F>
int grid_ik::with_backend(F&& f) {
    CpuBackend backend;
    return f(backend);
}
