// A host program for TestMassMatrixReportsFinalRows (crba_rows_test.go), built against a generated grid.cuh.
#define GRID_SEPARATE_ENTRIES
#include <cmath>
#include <cstdio>
#include "grid.cuh"

// Runs the mass matrix once to completion, then again with a rows_final callback that checks, at each call,
// that the rows it names are the next ones (last rows first, no gaps) and already hold their final values.
int main() {
    using namespace grid;
    constexpr int n = Robot::NV;
    double q[Robot::NQ], M[n * n], W[n * n];
    for (int k = 0; k < Robot::NQ; ++k) q[k] = 0.8 * std::sin(1.7 * k + 0.4);
    algorithms::CrbaState<Robot, double> st;
    algorithms::mass_matrix<Robot>(ThreadScope{}, M, q, st);
    for (double& w : W) w = NAN;
    int next_end = n, failures = 0;
    algorithms::mass_matrix<Robot>(ThreadScope{}, W, q, st, [&](auto first, auto end) {
        constexpr int f = index_of<decltype(first)>, e = index_of<decltype(end)>;
        if (e != next_end || f >= e) {
            std::printf("rows [%d, %d) reported final after rows from %d\n", f, e, next_end);
            ++failures;
        }
        next_end = f;
        for (int k = f * n; k < n * n; ++k)
            if (!(W[k] == M[k])) {
                std::printf("M[%d, %d] = %g when rows from %d were reported final; finally %g\n", k / n, k % n, W[k], f, M[k]);
                ++failures;
            }
    });
    if (next_end != 0) {
        std::printf("rows [0, %d) never reported final\n", next_end);
        ++failures;
    }
    std::printf("%d rows, %d failures\n", n, failures);
    return failures ? 1 : 0;
}
