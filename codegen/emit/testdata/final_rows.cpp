// A host program for TestOutputsReportedFinalRows (final_rows_test.go), built against a generated grid.cuh.
#define GRID_SEPARATE_ENTRIES
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>
#include "grid.cuh"

using namespace grid;
constexpr int n = Robot::NV;

// One run of a template that reports rows final, against the outputs of a run to completion: at each report,
// the rows it names are the next ones in the template's order (the last rows first, or the first rows first),
// without gaps, and they and every row reported before hold their final values. Every output has `rows` rows.
struct Check {
    const char* name;
    std::vector<const double*> done;  // each output, finished
    std::vector<double*> live;        // the same output as the checked run writes it (NaN before)
    std::vector<int> sizes;           // each output's number of values
    int rows;
    bool last_first;
    int next, failures = 0;

    Check(const char* name_, std::vector<const double*> done_, std::vector<double*> live_, std::vector<int> sizes_,
          int rows_, bool last_first_)
        : name(name_), done(done_), live(live_), sizes(sizes_), rows(rows_), last_first(last_first_),
          next(last_first_ ? rows_ : 0) {}

    template <int F, int E>
    void report() {
        if ((last_first ? E != next : F != next) || F >= E) {
            std::printf("%s: rows [%d, %d) reported final after rows %s %d\n", name, F, E,
                        last_first ? "from" : "up to", next);
            ++failures;
        }
        next = last_first ? F : E;
        for (int o = 0; o < int(live.size()); ++o) {
            const int cols = sizes[o] / rows;
            const int lo = last_first ? F * cols : 0, hi = last_first ? sizes[o] : E * cols;
            for (int k = lo; k < hi; ++k) {
                if (live[o][k] == done[o][k]) continue;
                std::printf("%s output %d [%d, %d] not final when rows [%d, %d) were reported (%g, finally %g)\n",
                            name, o, k / cols, k % cols, F, E, live[o][k], done[o][k]);
                ++failures;
            }
        }
    }
    // The callback a template reports final rows through.
    auto reporter() {
        return [this](auto first, auto end) { report<index_of<decltype(first)>, index_of<decltype(end)>>(); };
    }
    int finish() {
        if (next != (last_first ? 0 : rows)) {
            std::printf("%s: rows %s %d never reported final\n", name, last_first ? "before" : "from", next);
            ++failures;
        }
        std::printf("%s: %d rows, %d failures\n", name, rows, failures);
        return failures;
    }
};

int main() {
    double q[Robot::NQ], qd[n], qdd[n];
    for (int k = 0; k < Robot::NQ; ++k) q[k] = 0.8 * std::sin(1.7 * k + 0.4);
    for (int k = 0; k < n; ++k) {
        qd[k] = 0.6 * std::cos(0.9 * k + 0.2);
        qdd[k] = 0.5 * std::sin(1.3 * k + 1.1);
    }
    const Vec3<double> gravity{0.0, 0.0, -9.81};
    std::vector<double> M(n * n), W(n * n, NAN);
    std::vector<double> dq(n * n), dqd(n * n), Wq(n * n, NAN), Wqd(n * n, NAN);
    int failures = 0;
    {
        algorithms::CrbaState<Robot, double> st;
        algorithms::mass_matrix<Robot>(ThreadScope{}, M.data(), q, st);
        Check check("mass_matrix", {M.data()}, {W.data()}, {n * n}, n, true);
        algorithms::mass_matrix<Robot>(ThreadScope{}, W.data(), q, st, check.reporter());
        failures += check.finish();
    }
    {
        auto st = std::make_unique<algorithms::RneaGradientState<Robot, double>>();
        algorithms::inverse_dynamics_gradient<Robot>(ThreadScope{}, dq.data(), dqd.data(), q, qd, qdd, *st, gravity);
        Check check("inverse_dynamics_gradient", {dq.data(), dqd.data()}, {Wq.data(), Wqd.data()}, {n * n, n * n}, n,
                    true);
        algorithms::inverse_dynamics_gradient<Robot>(ThreadScope{}, Wq.data(), Wqd.data(), q, qd, qdd, *st, gravity,
                                                     check.reporter());
        failures += check.finish();
    }
    {
        constexpr int nf = Robot::NF;
        std::vector<double> pos(3 * nf), rot(9 * nf), quat(4 * nf);
        std::vector<double> Wpos(3 * nf, NAN), Wrot(9 * nf, NAN), Wquat(4 * nf, NAN);
        algorithms::KinematicsState<Robot, double> st;
        algorithms::frame_poses<Robot>(ThreadScope{}, pos.data(), rot.data(), quat.data(), q, st);
        Check check("frame_poses", {pos.data(), rot.data(), quat.data()}, {Wpos.data(), Wrot.data(), Wquat.data()},
                    {3 * nf, 9 * nf, 4 * nf}, nf, false);
        algorithms::frame_poses<Robot>(ThreadScope{}, Wpos.data(), Wrot.data(), Wquat.data(), q, st,
                                       check.reporter());
        failures += check.finish();
    }
    {
        constexpr int nf = Robot::NF, block = 6 * n;
        std::vector<double> J(nf * block), WJ(nf * block, NAN);
        algorithms::KinematicsState<Robot, double> st;
        algorithms::end_effector_pose_gradient<Robot>(ThreadScope{}, J.data(), q, st);
        Check check("end_effector_pose_gradient", {J.data()}, {WJ.data()}, {nf * block}, nf, false);
        algorithms::end_effector_pose_gradient<Robot>(ThreadScope{}, WJ.data(), q, st, check.reporter());
        failures += check.finish();
    }
    return failures ? 1 : 0;
}
