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
// the rows it names are the next ones (last rows first, no gaps), and they and every row after them hold
// their final values.
struct Check {
    const char* name;
    std::vector<const double*> done;  // each output, finished
    std::vector<double*> live;        // the same output as the checked run writes it (NaN before)
    int next_end = n, failures = 0;

    Check(const char* name_, std::vector<const double*> done_, std::vector<double*> live_)
        : name(name_), done(done_), live(live_) {}

    void fail_if(bool bad, const char* what, int o, int k, int first) {
        if (!bad) return;
        std::printf("%s output %d [%d, %d] %s when rows from %d were reported final (%g, finally %g)\n", name, o,
                    k / n, k % n, what, first, live[o][k], done[o][k]);
        ++failures;
    }
    template <int F, int E>
    void report() {
        if (E != next_end || F >= E) {
            std::printf("%s: rows [%d, %d) reported final after rows from %d\n", name, F, E, next_end);
            ++failures;
        }
        next_end = F;
        for (int o = 0; o < int(live.size()); ++o)
            for (int k = F * n; k < n * n; ++k) fail_if(!(live[o][k] == done[o][k]), "not final", o, k, F);
    }
    int finish() {
        if (next_end != 0) {
            std::printf("%s: rows [0, %d) never reported final\n", name, next_end);
            ++failures;
        }
        std::printf("%s: %d rows, %d failures\n", name, n, failures);
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
        Check check("mass_matrix", {M.data()}, {W.data()});
        algorithms::mass_matrix<Robot>(ThreadScope{}, W.data(), q, st, [&](auto first, auto end) {
            check.template report<index_of<decltype(first)>, index_of<decltype(end)>>();
        });
        failures += check.finish();
    }
    {
        auto st = std::make_unique<algorithms::RneaGradientState<Robot, double>>();
        algorithms::inverse_dynamics_gradient<Robot>(ThreadScope{}, dq.data(), dqd.data(), q, qd, qdd, *st, gravity);
        Check check("inverse_dynamics_gradient", {dq.data(), dqd.data()}, {Wq.data(), Wqd.data()});
        algorithms::inverse_dynamics_gradient<Robot>(ThreadScope{}, Wq.data(), Wqd.data(), q, qd, qdd, *st, gravity,
                                                     [&](auto first, auto end) {
            check.template report<index_of<decltype(first)>, index_of<decltype(end)>>();
        });
        failures += check.finish();
    }
    return failures ? 1 : 0;
}
