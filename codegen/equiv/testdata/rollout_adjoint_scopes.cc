// The fused rollout's reverse mode in a cooperative scope (one tangent direction per thread, the GPU's one warp
// per sample; on the host a group of one thread that takes every direction in turn) against the same reverse
// mode in one thread (∇ID's matrices), for both integrators: random states, efforts and cotangents, a step
// small enough that the rollout stays bounded. Prints the largest relative difference per method and
// "rollout adjoint scopes agree" when every one is below 1e-10.
#include "grid.cuh"
#include "grid/algorithms/integrator.cuh"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

using R = grid::Robot;
namespace alg = grid::algorithms;

int main() {
    constexpr int NQ = R::NQ, NV = R::NV, steps = 12;
    std::mt19937 rng(7);
    std::normal_distribution<double> normal(0.0, 1.0);
    const grid::Vec3<double> gravity{0.0, 0.0, -9.81};
    bool ok = true;
    for (int method : {int(alg::INTEGRATOR_SEMI_IMPLICIT), int(alg::INTEGRATOR_RK4)}) {
        std::vector<double> q0(NQ), qd0(NV), u(steps * NV), qs(steps * NQ), qds(steps * NV), gqs(steps * NQ),
            gqds(steps * NV);
        for (double& x : q0) x = 0.5 * normal(rng);
        for (double& x : qd0) x = 0.3 * normal(rng);
        for (double& x : u) x = normal(rng);
        for (double& x : gqs) x = normal(rng);
        for (double& x : gqds) x = normal(rng);
        const double dt = 0.01;
        alg::rollout<R>(method, steps, qs.data(), qds.data(), q0.data(), qd0.data(), u.data(), dt, gravity);
        std::vector<double> out[2];
        for (int lanes = 0; lanes < 2; ++lanes) {
            std::vector<double>& o = out[lanes];
            o.assign(NQ + NV + steps * NV + 1, 0.0);
            double cot[2 * NV];
            auto run = [&](const auto& scope) {
                alg::rollout_adjoint<R>(scope, method, steps, o.data(), o.data() + NQ, o.data() + NQ + NV,
                                        o.data() + NQ + NV + steps * NV, q0.data(), qd0.data(), u.data(), dt,
                                        qs.data(), qds.data(), gqs.data(), gqds.data(), gravity, cot);
            };
            if (lanes) {
                run(grid::GroupScope{});
            } else {
                run(grid::ThreadScope{});
            }
        }
        double scale = 0.0, worst = 0.0;
        for (double x : out[0]) scale = std::max(scale, std::abs(x));
        for (size_t k = 0; k < out[0].size(); ++k) worst = std::max(worst, std::abs(out[1][k] - out[0][k]));
        const double rel = worst / std::max(scale, 1.0);
        std::printf("method %d: largest relative difference %.3g (scale %.3g)\n", method, rel, scale);
        ok = ok && rel < 1e-10 && scale > 0.0 && std::isfinite(scale);
    }
    if (ok) std::printf("rollout adjoint scopes agree\n");
    return ok ? 0 : 1;
}
