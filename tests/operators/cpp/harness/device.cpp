// The device executor of the CUDA build (empty in the host build): runs one harness call on the GPU at every
// thread count its scope allows, with several problems per launch alternating over the current and the
// previous inputs of the call, and requires every problem's outputs to be byte-identical to the first
// launch's result for the same inputs.
//   * block scope: one problem per block, 4 blocks, blockDim 1, 7, 31, 32, 33, 57, 96, 256 (multiples of 32
//     only for the warp-shuffle block forms);
//   * warp scope: one problem per warp, W = 1..8 warps per block (blockDim 32·W), 2 blocks; the glass::warp
//     operators need full 32-lane warps, so partial warps are not run;
//   * any other scope: one problem per thread, blockDim 1 ... 256 as for block scope, 2 blocks.
#if defined(__CUDACC__)

#include "harness.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace glass_harness {

namespace {

constexpr unsigned kThreadCounts[] = {1u, 7u, 31u, 32u, 33u, 57u, 96u, 256u};
constexpr unsigned kBlockProblems = 4u;  // blocks of a block-scope launch
constexpr unsigned kGrid = 2u;           // blocks of a warp- or thread-scope launch
constexpr unsigned kMaxWarps = 8u;

static_assert(kMaxWarps * 32u <= kMaxBlock && kThreadCounts[7] <= kMaxBlock, "op_kernel's launch bound");

struct Config {
    unsigned block;
    unsigned grid;
    unsigned per_block;  // problems per block
};

std::vector<Config> configs(Scope scope, bool full_warps) {
    std::vector<Config> out;
    if (scope == Scope::Warp) {
        for (unsigned w = 1u; w <= kMaxWarps; ++w) out.push_back({32u * w, kGrid, w});
        return out;
    }
    for (unsigned b : kThreadCounts) {
        if (scope == Scope::Block) {
            if (!full_warps || b % 32u == 0u) out.push_back({b, kBlockProblems, 1u});
        } else {
            out.push_back({b, kGrid, b});
        }
    }
    return out;
}

const char* scope_name(Scope s) {
    return s == Scope::Block ? "block" : s == Scope::Warp ? "warp" : "thread";
}

struct State {
    bool ready = false;
    std::size_t smem_limit = 48u * 1024u;  // dynamic shared memory a block may opt in to
    unsigned char* arena = nullptr;        // device buffer reused by every call
    std::size_t arena_bytes = 0;
};

State& state() {
    static State s;
    return s;
}

std::size_t align_up(std::size_t v, std::size_t a) { return (v + a - 1u) / a * a; }

std::string cuda_text(int e) {
    const cudaError_t err = cudaError_t(e);
    return std::string(cudaGetErrorName(err)) + " (" + cudaGetErrorString(err) + ")";
}

bool fail(Call& c, int status, const std::string& msg) {
    c.status = status;
    if (c.info != nullptr) std::snprintf(c.info->message, sizeof(c.info->message), "%s", msg.c_str());
    return false;
}

bool reserve(Call& c, std::size_t bytes) {
    State& st = state();
    if (bytes <= st.arena_bytes) return true;
    if (st.arena != nullptr) {
        const cudaError_t e = cudaFree(st.arena);
        st.arena = nullptr;
        st.arena_bytes = 0;
        if (e != cudaSuccess) return fail(c, 4, std::string(c.name) + ": cudaFree: " + cuda_text(e));
    }
    const std::size_t want = std::max(bytes, std::size_t(16u) << 20);
    const cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&st.arena), want);
    if (e != cudaSuccess) {
        st.arena = nullptr;
        return fail(c, 4, std::string(c.name) + ": cudaMalloc(" + std::to_string(want) + "): " + cuda_text(e));
    }
    st.arena_bytes = want;
    return true;
}

struct Plan {
    Config cfg;
    Layout layout;
    bool global;  // the problems' workspaces are in global memory
    std::size_t smem;
    std::size_t problems;
    std::size_t out_index;  // first output double of this launch in the result buffer
};

std::string describe(const Plan& p, Scope scope) {
    std::string s = "blockDim " + std::to_string(p.cfg.block);
    if (scope == Scope::Warp) s += " (" + std::to_string(p.cfg.per_block) + " warps)";
    return s;
}

std::string value_text(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g (0x%016" PRIx64 ")", v, bits);
    return buf;
}

}  // namespace

bool device_run(Call& c, const DeviceOp& op) {
    State& st = state();
    if (c.info == nullptr) return fail(c, 4, std::string(c.name) + ": no DeviceInfo");
    DeviceInfo& info = *c.info;
    if (!st.ready) return fail(c, 4, std::string(c.name) + ": the device is not initialised (glass_device_init)");
    if (c.n_src < 1 || c.n_src > 2 || c.n_in < 0 || c.n_out < 0)
        return fail(c, 4, std::string(c.name) + ": bad problem counts");

    const std::size_t n_in = std::size_t(c.n_in), n_out = std::size_t(c.n_out);
    const std::vector<Config> cfgs = configs(c.scope, op.shape->full_warps);
    std::vector<Plan> plans;
    std::size_t total_out = 0, gmem_bytes = 0;
    for (const Config& cfg : cfgs) {
        Plan p{};
        p.cfg = cfg;
        p.problems = std::size_t(cfg.grid) * cfg.per_block;
        const uint32_t group = c.scope == Scope::Block ? cfg.block : c.scope == Scope::Warp ? 32u : 1u;
        const std::size_t sbytes = op.shape->scratch ? op.shape->scratch(group) : 0u;
        Layout& L = p.layout;
        L.n_src = c.n_src;
        L.n_in = c.n_in;
        L.n_out = c.n_out;
        L.scope = int(c.scope);
        L.per_block = int(cfg.per_block);
        L.off_o = align_up(n_in * op.t_size, 16u);
        L.off_s = L.off_o + align_up(n_out * op.o_size, 16u);
        L.scratch_elems = (sbytes + op.t_size - 1u) / op.t_size;
        L.stride = std::max<std::size_t>(16u, align_up(L.off_s + L.scratch_elems * op.t_size, 16u));
        const std::size_t smem = std::size_t(cfg.per_block) * L.stride;
        p.global = smem > st.smem_limit;
        p.smem = p.global ? 0u : smem;
        if (p.global) gmem_bytes = std::max(gmem_bytes, p.problems * L.stride);
        p.out_index = total_out;
        total_out += p.problems * n_out;
        plans.push_back(p);
    }

    // Arena: sources, then every launch's outputs, then the global-memory workspaces (launches run in order
    // on one stream, so they share one workspace).
    const std::size_t src_bytes = align_up(std::max<std::size_t>(1u, std::size_t(c.n_src) * n_in) * 8u, 256u);
    const std::size_t out_bytes = align_up(std::max<std::size_t>(1u, total_out) * 8u, 256u);
    if (!reserve(c, src_bytes + out_bytes + gmem_bytes)) return false;
    double* d_src = reinterpret_cast<double*>(st.arena);
    double* d_out = reinterpret_cast<double*>(st.arena + src_bytes);
    unsigned char* d_work = st.arena + src_bytes + out_bytes;

    info.scope = int(c.scope);
    info.n_sources = c.n_src;
    info.launches = 0;
    info.global_memory = 0;
    info.problems = 0;
    info.n_configs = 0;

    cudaError_t e = cudaMemcpy(d_src, c.in, std::size_t(c.n_src) * n_in * 8u, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) return fail(c, 4, std::string(c.name) + ": cudaMemcpy of the inputs: " + cuda_text(e));
    for (Plan& p : plans) {
        p.layout.src = d_src;
        p.layout.out = d_out + p.out_index;
        p.layout.gmem = p.global ? d_work : nullptr;
        const int r = op.launch(op.body, p.layout, p.cfg.grid, p.cfg.block, p.smem);
        if (r != 0)
            return fail(c, 4, std::string(c.name) + ": launch at " + describe(p, c.scope) + ", " +
                                  std::to_string(p.smem) + " B shared memory: " + cuda_text(r));
        ++info.launches;
        info.problems += int(p.problems);
        if (p.global) ++info.global_memory;
        if (info.n_configs < int(sizeof(info.block_dims) / sizeof(info.block_dims[0])))
            info.block_dims[info.n_configs++] = int(p.cfg.block);
    }
    e = cudaDeviceSynchronize();
    if (e != cudaSuccess)
        return fail(c, 4, std::string(c.name) + ": kernel failed (" + std::to_string(plans.size()) +
                              " launches, " + scope_name(c.scope) + " scope): " + cuda_text(e));
    std::vector<double> res(std::max<std::size_t>(1u, total_out));
    e = cudaMemcpy(res.data(), d_out, total_out * 8u, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) return fail(c, 4, std::string(c.name) + ": cudaMemcpy of the outputs: " + cuda_text(e));

    // The reference of source s is problem s of the first launch (a single problem at the smallest size).
    const double* ref[2] = {res.data(), res.data() + (c.n_src > 1 ? n_out : 0u)};
    std::string differing, first;
    for (const Plan& p : plans) {
        bool bad = false;
        for (std::size_t q = 0; q < p.problems; ++q) {
            const double* got = res.data() + p.out_index + q * n_out;
            const std::size_t s = q % std::size_t(c.n_src);
            if (n_out == 0u || std::memcmp(got, ref[s], n_out * 8u) == 0) continue;
            if (first.empty()) {
                std::size_t k = 0;
                while (k < n_out && std::memcmp(got + k, ref[s] + k, 8u) == 0) ++k;
                first = describe(p, c.scope) + ", problem " + std::to_string(q) + " (" +
                        (s == 0u ? "current" : "previous") + " inputs): output[" + std::to_string(k) + "] = " +
                        value_text(got[k]) + ", first launch " + value_text(ref[s][k]);
            }
            bad = true;
        }
        if (bad) differing += (differing.empty() ? "" : ", ") + std::to_string(p.cfg.block);
    }
    if (!differing.empty())
        return fail(c, 3, std::string(c.name) + ": " + scope_name(c.scope) +
                              " scope results are not byte-identical across thread counts: blockDim " + differing +
                              " differ from blockDim " + std::to_string(plans.front().cfg.block) + "; first: " + first);

    std::memcpy(c.out, ref[0], n_out * 8u);
    if (c.out_previous != nullptr) std::memcpy(c.out_previous, ref[c.n_src > 1 ? 1 : 0], n_out * 8u);
    return true;
}

namespace {

// The executor's self-check: o[i] = 2·a[i mod n_in] + raw[0] for i < n_out − 1 through scratch, the last
// output left unwritten (must come back NaN). VARIANT also writes the group size, which differs across
// block sizes and must be reported as a mismatch.
template <bool VARIANT>
bool selfcheck_op(Call& c) {
    const int n = c.n_out;
    return run<double>(c, with_scratch([n](uint32_t) { return std::size_t(n) * sizeof(double); }),
                       GLASS_HARNESS_BODY(Args<double> x) {
                           for (int i = int(x.rank); i + 1 < x.n_out; i += int(x.size))
                               x.s[i] = 2.0 * x.a[i % x.n_in] + x.raw[0];
                           for (int i = int(x.rank); i + 1 < x.n_out; i += int(x.size)) x.o[i] = x.s[i];
                           if constexpr (VARIANT) {
                               if (x.lead()) x.o[0] = double(x.size);
                           }
                       });
}

std::string selfcheck() {
    const double in[6] = {1.0, 2.0, 3.0, 10.0, 20.0, 30.0};
    // Output counts that put the problems in shared memory, in opted-in (> 48 KiB) shared memory at the
    // larger thread counts, and in global memory (a block-scope problem larger than shared memory).
    const struct {
        Scope scope;
        int n_out;
    } cases[] = {{Scope::Thread, 5},  {Scope::Thread, 40}, {Scope::Thread, 120}, {Scope::Warp, 5},
                 {Scope::Warp, 400},  {Scope::Block, 5},   {Scope::Block, 40},   {Scope::Block, 15000}};
    for (const auto& k : cases) {
        std::vector<double> out(std::size_t(k.n_out)), prev(std::size_t(k.n_out));
        DeviceInfo info{};
        Call c(in, 3, out.data(), k.n_out, Mode::Device);
        c.scope = k.scope;
        c.n_src = 2;
        c.name = "self-check";
        c.info = &info;
        c.out_previous = prev.data();
        const std::string where =
            std::string(scope_name(k.scope)) + " scope, " + std::to_string(k.n_out) + " outputs";
        if (!selfcheck_op<false>(c)) return where + ": " + info.message;
        for (int i = 0; i + 1 < k.n_out; ++i) {
            const double want0 = 2.0 * in[i % 3] + in[0], want1 = 2.0 * in[3 + i % 3] + in[3];
            if (out[std::size_t(i)] != want0 || prev[std::size_t(i)] != want1)
                return where + ": wrong result at output " + std::to_string(i);
        }
        if (!std::isnan(out.back()) || !std::isnan(prev.back())) return where + ": an unwritten output is not NaN";
    }
    double out[5];
    DeviceInfo info{};
    Call c(in, 3, out, 5, Mode::Device);
    c.scope = Scope::Block;
    c.n_src = 2;
    c.name = "self-check";
    c.info = &info;
    if (selfcheck_op<true>(c) || c.status != 3)
        return "a block-size-dependent result was not reported as a mismatch";
    return "";
}

}  // namespace

bool device_init(char* msg, int len) {
    State& st = state();
    auto say = [&](const std::string& s) { std::snprintf(msg, std::size_t(len), "%s", s.c_str()); };
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        say("cudaGetDeviceCount: " + cuda_text(e));
        return false;
    }
    if (count < 1) {
        say("no CUDA device");
        return false;
    }
    if ((e = cudaSetDevice(0)) != cudaSuccess) {
        say("cudaSetDevice(0): " + cuda_text(e));
        return false;
    }
    cudaDeviceProp prop{};
    if ((e = cudaGetDeviceProperties(&prop, 0)) != cudaSuccess) {
        say("cudaGetDeviceProperties: " + cuda_text(e));
        return false;
    }
    int optin = 0;
    if ((e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0)) != cudaSuccess) {
        say("cudaDeviceGetAttribute(MaxSharedMemoryPerBlockOptin): " + cuda_text(e));
        return false;
    }
    st.smem_limit = std::max<std::size_t>(48u * 1024u, std::size_t(optin));
    int runtime = 0, driver = 0;
    cudaRuntimeGetVersion(&runtime);
    cudaDriverGetVersion(&driver);
    st.ready = true;
    const std::string bad = selfcheck();
    if (!bad.empty()) {
        st.ready = false;
        say("device executor self-check failed: " + bad);
        return false;
    }
    char buf[512];
    std::snprintf(buf, sizeof buf, "%s (sm_%d%d, %d SMs, %zu B shared memory per block, CUDA runtime %d, driver %d)",
                  prop.name, prop.major, prop.minor, prop.multiProcessorCount, st.smem_limit, runtime, driver);
    say(buf);
    return true;
}

}  // namespace glass_harness

#endif  // __CUDACC__
