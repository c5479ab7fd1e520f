// The harness's C interface, loaded by tests/operators/harness.py.
#include "harness.h"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace glass_harness {

std::vector<Entry>& registry() {
    static std::vector<Entry> entries;
    return entries;
}

namespace {

const Entry* find(const char* name) {
    for (const auto& e : registry())
        if (std::strcmp(e.name, name) == 0) return &e;
    return nullptr;
}

// The scope part of a name decides how the GPU runs the call.
[[maybe_unused]] Scope scope_of(const char* name) {
    const char* s = std::strchr(name, '/');
    if (s == nullptr) return Scope::Thread;
    ++s;
    const char* end = std::strchr(s, '/');
    const std::size_t n = end != nullptr ? std::size_t(end - s) : std::strlen(s);
    if (n == 5 && std::strncmp(s, "block", 5) == 0) return Scope::Block;
    if (n == 4 && std::strncmp(s, "warp", 4) == 0) return Scope::Warp;
    return Scope::Thread;
}

}  // namespace

}  // namespace glass_harness

extern "C" {

int glass_op_count() { return int(glass_harness::registry().size()); }

const char* glass_op_name(int i) {
    const auto& r = glass_harness::registry();
    return i >= 0 && i < int(r.size()) ? r[std::size_t(i)].name : nullptr;
}

// Runs the named call on the host: 0 on success, 1 for an unknown name, 2 when the sizes do not fit the
// operator.
int glass_op_run(const char* name, const double* in, int n_in, double* out, int n_out) {
    const glass_harness::Entry* e = glass_harness::find(name);
    if (e == nullptr) return 1;
    for (int i = 0; i < n_out; ++i) out[i] = NAN;
    glass_harness::Call c(in, n_in, out, n_out);
    return e->fn(c) ? 0 : 2;
}

// Whether this library was built with nvcc (the GPU mode).
int glass_device_built() {
#if defined(__CUDACC__)
    return 1;
#else
    return 0;
#endif
}

// Selects the GPU and runs the executor's self-check: 0 with the device's description in msg, else 1 with
// the reason.
int glass_device_init(char* msg, int len) {
#if defined(__CUDACC__)
    return glass_harness::device_init(msg, len) ? 0 : 1;
#else
    std::snprintf(msg, std::size_t(len), "the harness library was built without CUDA");
    return 1;
#endif
}

// Runs the named call on the GPU. in holds n_src problems of n_in values (the current inputs, then the
// previous ones); out receives the GPU result on the current inputs and host_out the host result on them.
// Returns 0 on success, 1 for an unknown name, 2 when the sizes do not fit the operator, 3 when the GPU
// results differ across thread counts, 4 on a CUDA or executor error (3 and 4 explain in info->message).
int glass_op_run_device(const char* name, const double* in, int n_in, int n_src, double* out, int n_out,
                        double* host_out, glass_harness::DeviceInfo* info) {
    using glass_harness::Call;
    using glass_harness::Mode;
    const glass_harness::Entry* e = glass_harness::find(name);
    if (e == nullptr) return 1;
    std::memset(info, 0, sizeof(*info));
    for (int i = 0; i < n_out; ++i) host_out[i] = out[i] = NAN;
    Call h(in, n_in, host_out, n_out, Mode::Host);
    if (!e->fn(h)) return 2;
    // The previous inputs join only when the operator accepts them too.
    if (n_src > 1) {
        Call k(in + n_in, n_in, out, n_out, Mode::Check);
        if (!e->fn(k)) n_src = 1;
    }
#if defined(__CUDACC__)
    Call d(in, n_in, out, n_out, Mode::Device);
    d.scope = glass_harness::scope_of(name);
    d.n_src = n_src > 1 ? 2 : 1;
    d.name = name;
    d.info = info;
    if (!e->fn(d)) return d.status != 0 ? d.status : 2;
    return 0;
#else
    std::snprintf(info->message, sizeof(info->message), "%s: the harness library was built without CUDA", name);
    return 4;
#endif
}

}  // extern "C"
