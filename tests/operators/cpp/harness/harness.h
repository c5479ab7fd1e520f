// The operator harness: named calls of the operator library with double-precision inputs and outputs,
// loaded by tests/operators (ctypes) to compare every operator with NumPy, SciPy, Pinocchio and central
// differences. The same sources build two ways:
//   * with the host C++ compiler: a call runs once on the host, a block or warp being one thread walking
//     every stride loop with no-op barriers (the same code the GPU runs);
//   * with nvcc (-x cu --extended-lambda): a call also runs on the GPU, at several thread counts and with
//     several problems per launch (device.cuh, device.cpp).
//
// Each ops_<family>.cpp registers its calls with GLASS_HARNESS_OP. A call's name is
// "<function>[<template arguments>]/<scope>/<precision>", e.g. "quat_mul[xyzw]/thread/double"; the function
// part must be the operator's name in the spec (tests/operators/test_contract.py checks coverage by it), and
// the scope part decides how the GPU runs it: "block" one problem per block, "warp" one problem per warp,
// anything else (thread, scalar, detail, serial, ...) one problem per thread.
//
// A call is a host-side check of the sizes (and of index inputs), then run<T, O>(call, [shape,] body): the
// body, a GLASS_HARNESS_BODY lambda, does the work on typed buffers (Args) and is __host__ __device__.
#pragma once

#include "glass/scope.cuh"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

// The body of a call: a lambda the GPU can run too (nvcc needs --extended-lambda).
#if defined(__CUDACC__)
#define GLASS_HARNESS_BODY [] __host__ __device__
#else
#define GLASS_HARNESS_BODY []
#endif

namespace glass_harness {

// How the GPU runs a call (the host runs every call as one thread).
enum class Scope : int { Thread = 0, Warp = 1, Block = 2 };

// Host: run the body on the host. Check: only the size checks (the GPU's second problem must pass them
// too). Device: run on the GPU (CUDA build only).
enum class Mode : int { Host = 0, Check = 1, Device = 2 };

// Per-call record of a GPU run, filled by the device executor and read by tests/operators/harness.py
// (keep the layout in sync with the ctypes mirror there).
struct DeviceInfo {
    int launches;        // kernel launches
    int scope;           // Scope
    int global_memory;   // launches whose problems lived in global memory (too big for shared memory)
    int n_sources;       // distinct inputs the problems alternate over
    int problems;        // problems run, over all launches
    int n_configs;       // entries of block_dims
    int block_dims[16];  // blockDim.x of each launch configuration
    char message[4096];  // the error, when the run failed
};

struct Call {
    Call(const double* in_, int n_in_, double* out_, int n_out_, Mode mode_ = Mode::Host)
        : in(in_), n_in(n_in_), out(out_), n_out(n_out_), mode(mode_) {}

    const double* in;  // n_in values (Device: n_src problems of n_in values, the current one first)
    int n_in;
    double* out;       // n_out values
    int n_out;
    Mode mode;
    // Device mode only:
    Scope scope = Scope::Thread;
    int n_src = 1;
    const char* name = "";
    DeviceInfo* info = nullptr;
    double* out_previous = nullptr;  // when set, receives the result on the second source
    int status = 0;  // set by the device executor: 3 thread-count mismatch, 4 CUDA or executor error
};

// A call: false when the sizes (or index inputs) do not fit the operator (the caller then reports a usage
// error, not a wrong result).
using Fn = bool (*)(Call&);

struct Entry {
    const char* name;
    Fn fn;
};

std::vector<Entry>& registry();

struct Registrar {
    Registrar(const char* name, Fn fn) { registry().push_back({name, fn}); }
};

// What a body sees: one problem's buffers and the calling thread's place in the group that shares it (the
// block at block scope, the warp at warp scope, itself alone otherwise; rank 0 of 1 on the host). Every
// thread of the group runs the body; a value only one thread holds is written by lead() alone.
template <typename T, typename O = T>
struct Args {
    const double* raw;  // the inputs as given: indices are read here, never through a float cast
    T* a;               // the inputs as T, writable (in-place operators update them)
    O* o;               // the n_out outputs, NaN on entry
    T* s;               // scratch (Shape::scratch bytes)
    int n_in;
    int n_out;
    uint32_t rank;
    uint32_t size;
    Scope scope;

    GLASS_HD bool lead() const { return rank == 0u; }

    // The group's barrier (none for one thread; a no-op on the host).
    GLASS_HD void sync() const {
        if (scope == Scope::Block) glass::block_sync();
        if (scope == Scope::Warp) glass::warp_sync();
    }

    // o[at + i] = v[i] for i < n, split over the group. v must be complete (after the operator's barrier);
    // the executor's barrier follows the body.
    template <typename S>
    GLASS_HD void put(const S* v, int n, int at = 0) const {
        for (int i = int(rank); i < n; i += int(size)) o[at + i] = O(v[i]);
    }
};

// Launch needs of a call beyond its inputs and outputs.
struct Shape {
    // Bytes of scratch for a group of that many threads (block-scope reductions size it by the block).
    std::function<std::size_t(uint32_t)> scratch;
    // The block form folds through full-warp shuffles: only block sizes that are multiples of 32.
    bool full_warps = false;
};

inline Shape with_scratch(std::function<std::size_t(uint32_t)> bytes, bool full_warps = false) {
    Shape s;
    s.scratch = std::move(bytes);
    s.full_warps = full_warps;
    return s;
}

// ---- the device executor's interface (implemented in device.cuh / device.cpp, CUDA build) ----

// One kernel launch's problems: problem p reads source p % n_src and writes out[p·n_out ...].
struct Layout {
    const double* src;
    int n_src;
    int n_in;
    int n_out;
    double* out;
    int scope;              // Scope
    int per_block;          // problems per block
    unsigned char* gmem;    // the problems' workspaces in global memory, or nullptr: dynamic shared memory
    std::size_t stride;     // bytes of one problem's workspace: inputs (T), outputs (O), scratch
    std::size_t off_o;
    std::size_t off_s;
    std::size_t scratch_elems;
};

// Launches the call's kernel; returns a cudaError_t.
using LaunchFn = int (*)(const void* body, const Layout& layout, unsigned grid, unsigned block, std::size_t smem);

struct DeviceOp {
    std::size_t t_size;
    std::size_t o_size;
    const Shape* shape;
    const void* body;
    LaunchFn launch;
};

// Runs c on the GPU at every thread count of its scope; false with c.status set on a failure.
bool device_run(Call& c, const DeviceOp& op);

// Selects and checks the GPU (then runs the executor's self-check); false with the reason in msg, else the
// device's description there.
bool device_init(char* msg, int len);

}  // namespace glass_harness

#if defined(__CUDACC__)
#include "device.cuh"
#endif

namespace glass_harness {

// Runs body on the call's inputs as T, with n_out outputs of O (NaN on entry), copied back as doubles. O is
// double where outputs are indices or byte counts that a float would round.
template <typename T, typename O = T, typename Body>
bool run(Call& c, const Shape& shape, Body body) {
    switch (c.mode) {
        case Mode::Check:
            return true;
        case Mode::Host: {
            std::vector<T> a(c.in, c.in + c.n_in);
            std::vector<O> o(std::size_t(c.n_out), O(NAN));
            const std::size_t bytes = shape.scratch ? shape.scratch(glass::block_size()) : 0u;
            std::vector<T> s(bytes / sizeof(T) + 1u, T(0));
            body(Args<T, O>{c.in, a.data(), o.data(), s.data(), c.n_in, c.n_out, 0u, 1u, c.scope});
            for (int i = 0; i < c.n_out; ++i) c.out[i] = double(o[std::size_t(i)]);
            return true;
        }
        case Mode::Device:
#if defined(__CUDACC__)
            return device_run(c, DeviceOp{sizeof(T), sizeof(O), &shape, &body, &launch<T, O, Body>});
#else
            c.status = 4;
            return false;
#endif
    }
    return false;
}

template <typename T, typename O = T, typename Body>
bool run(Call& c, Body body) {
    return run<T, O>(c, Shape{}, body);
}

// The usual call: exactly NI inputs and NO outputs of T.
template <typename T, int NI, int NO, typename Body>
bool run_io(Call& c, Body body) {
    if (c.n_in != NI || c.n_out != NO) return false;
    return run<T>(c, body);
}

// Index input: a non-negative integer double no larger than UINT32_MAX.
inline bool read_index(double v, uint32_t& idx) {
    if (!(v >= 0.0 && v <= 4294967295.0) || v != double(uint64_t(v))) return false;
    idx = uint32_t(v);
    return true;
}

}  // namespace glass_harness

#define GLASS_HARNESS_CAT2(a, b) a##b
#define GLASS_HARNESS_CAT(a, b) GLASS_HARNESS_CAT2(a, b)

// Registers fn (a function with the Fn signature; parenthesise a template instantiation with commas) as name.
#define GLASS_HARNESS_OP(name, fn) \
    static const glass_harness::Registrar GLASS_HARNESS_CAT(glass_harness_reg_, __COUNTER__)(name, fn)

// Registers op<double, ARGS...> and op<float, ARGS...> as name + "/double" and name + "/float".
#define GLASS_HARNESS_OP_T(name, op, ...)                                  \
    GLASS_HARNESS_OP(name "/double", (op<double, ##__VA_ARGS__>));         \
    GLASS_HARNESS_OP(name "/float", (op<float, ##__VA_ARGS__>))
