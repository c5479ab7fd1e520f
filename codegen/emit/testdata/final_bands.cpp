// A host program for TestOutputsBecomeFinalInBands (final_bands_test.go), built against a generated grid.cuh.
#define GRID_SEPARATE_ENTRIES
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>
#include "grid.cuh"

using namespace grid;
constexpr int n = Robot::NV;

// The bodies at which the stores cut a band (none on a rolled robot, whose rows are reported at the end).
template <class R>
int band_cuts() {
    int cuts = 0;
    if constexpr (!rolled_v<R>)
        static_for<R::NB>([&](auto b) { cuts += FinalBands<R, R::joint[b].v>::cut ? 1 : 0; });
    return cuts;
}

// One run of a template that reports rows final, against the outputs of a run to completion: at each report,
// the rows it names are the next ones (last rows first, no gaps) and hold their final values, and the blocks
// the one-thread kernel stores then (FinalBands, FinalBandStores, for runs of 32 floats and of 16 doubles)
// hold final values only; over the run, every entry is stored exactly once.
struct Check {
    const char* name;
    std::vector<const double*> done;  // each output, finished
    std::vector<double*> live;        // the same output as the checked run writes it (NaN before)
    int next_end = n, failures = 0;
    std::vector<int> stored;  // times entry k of output o is stored with runs of 32 (r = 0) or 16: [o][r][k]

    Check(const char* name_, std::vector<const double*> done_, std::vector<double*> live_)
        : name(name_), done(done_), live(live_), stored(2 * live_.size() * n * n, 0) {}

    void fail_if(bool bad, const char* what, int o, int k, int first) {
        if (!bad) return;
        std::printf("%s output %d [%d, %d] %s when rows from %d were reported final (%g, finally %g)\n", name, o,
                    k / n, k % n, what, first, live[o][k], done[o][k]);
        ++failures;
    }
    void store(int o, int run, const OutputBlock& b, int first) {
        for (int r = b.r0; r < b.r1; ++r)
            for (int c = b.c0; c < b.c1; ++c) {
                const int k = r * b.row + c;
                ++stored[(o * 2 + run) * n * n + k];
                fail_if(!(live[o][k] == done[o][k]), "stored before its final value", o, k, first);
            }
    }
    template <int F, int E>
    void report() {
        if (E != next_end || F >= E) {
            std::printf("%s: rows [%d, %d) reported final after rows from %d\n", name, F, E, next_end);
            ++failures;
        }
        next_end = F;
        using Bands = FinalBands<Robot, F>;
        using Floats = FinalBandStores<n, F, E, Bands::columns, Bands::cut, 32>;
        using Doubles = FinalBandStores<n, F, E, Bands::columns, Bands::cut, 16>;
        for (int o = 0; o < int(live.size()); ++o) {
            for (int k = F * n; k < n * n; ++k) fail_if(!(live[o][k] == done[o][k]), "not final", o, k, F);
            store(o, 0, Floats::rows, F);
            store(o, 0, Floats::above, F);
            store(o, 1, Doubles::rows, F);
            store(o, 1, Doubles::above, F);
        }
    }
    int finish() {
        if (next_end != 0) {
            std::printf("%s: rows [0, %d) never reported final\n", name, next_end);
            ++failures;
        }
        for (int o = 0; o < int(live.size()); ++o)
            for (int run = 0; run < 2; ++run)
                for (int k = 0; k < n * n; ++k) {
                    const int times = stored[(o * 2 + run) * n * n + k];
                    if (times != 1) {
                        std::printf("%s output %d [%d, %d] stored %d times (runs of %d)\n", name, o, k / n, k % n, times,
                                    run ? 16 : 32);
                        ++failures;
                    }
                }
        std::printf("%s: %d rows, %d cuts, %d failures\n", name, n, band_cuts<Robot>(), failures);
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
