// XLA FFI handler machinery for one robot's generated grid.cuh.
//
// Include this header once per shared library, after the robot's grid.cuh and before its generated
// grid_ffi.h (see ffi_cpu.cc and ffi_cuda.cu), which holds one descriptor per algorithm (name, per-sample
// shapes, the calls into grid.cuh) and the handler bindings. A host C++ compiler gets the CPU handlers,
// exported as `grid_<algo>_cpu`; nvcc, or a host compiler with GRID_RTC_HOST (kernels compiled at run time by
// NVRTC: grid/launch.cuh), gets the CUDA handlers, exported as `grid_<algo>_cuda`. Both follow
// one contract:
//
//   operands   the algorithm's inputs in metadata order (q, then qd, qdd or tau where it has them)
//   results    its outputs in metadata order, then `workspace`: uint8 of any shape, scratch for the kernels'
//              resource tier (grid::launch_cfg<GRID_ALGO_<NAME>, T>::TIER); grid_<algo>_<cpu|cuda>_workspace_bytes
//              (samples, itemsize) says how many bytes a call at the baked tier needs (0 on the CPU)
//   dtype      float32 or float64, the same for every operand and result
//   shapes     any number of leading batch dimensions (none included), identical for every operand and
//              result, then the per-sample shape of the metadata, e.g. q [..., NQ] and M [..., NV, NV]
//   attributes gravity_x, gravity_y, gravity_z (f64) where the algorithm takes gravity;
//              frame (i64, 0 <= frame < NF) where it takes a frame;
//              method (i64, 0 semi-implicit Euler or 1 RK4) where it takes an integrator
//
// Every violation is an INVALID_ARGUMENT error that names the algorithm, the buffer, its shape or dtype and
// what was expected. The CUDA handlers launch `grid::<algo>_launch<T, TIER>` on the stream XLA passes at the
// baked tier (at TIER_SHARED, which needs no workspace, where the workspace is smaller than that tier needs),
// never synchronise or allocate, and are marked command-buffer compatible. The CPU handlers run the host wrapper
// `grid::<algo><T>`, splitting large batches across threads (GRID_RBD_CPU_THREADS caps their number).
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "xla/ffi/api/ffi.h"

// The robot's name in error messages; the build passes the URDF's robot name.
#ifndef GRID_FFI_ROBOT
#define GRID_FFI_ROBOT "robot"
#endif

namespace grid_ffi {

namespace ffi = ::xla::ffi;

#if defined(GRID_CUDA_HOST)
// The CUDA handlers receive the stream XLA runs them on.
using Stream = cudaStream_t;
using StreamContext = ffi::PlatformStream<cudaStream_t>;
#else
// The CPU handlers need no context; this empty one keeps both handler families' signatures alike.
struct Stream {};
using StreamContext = Stream;
#endif

}  // namespace grid_ffi

#if !defined(GRID_CUDA_HOST)
namespace xla::ffi {
// Decodes the CPU handlers' empty context.
template <>
struct CtxDecoding<grid_ffi::Stream> {
    using Type = grid_ffi::Stream;
    static std::optional<Type> Decode(const XLA_FFI_Api*, XLA_FFI_InvokeContext*, DiagnosticEngine&) { return Type{}; }
};
}  // namespace xla::ffi
#endif

namespace grid_ffi {

// The deepest per-sample shape of any algorithm (rot [NF, 3, 3], the Jacobians [NF, 6, NV]).
constexpr int kMaxRank = 3;

// Per-sample shape of one operand or result, as metadata.json lists it.
struct Spec {
    const char* name;
    int rank;
    int64_t dims[kMaxRank];

    int64_t size() const {
        int64_t n = 1;
        for (int k = 0; k < rank; ++k) n *= dims[k];
        return n;
    }
};

// The scalar attributes of one call; each algorithm reads the ones it takes.
struct Attrs {
    double gravity[3] = {0.0, 0.0, 0.0};
    int64_t frame = 0;
    int64_t method = 0;  // grid::algorithms::IntegratorMethod
};

template <typename T>
grid::Vec3<T> gravity_of(const Attrs& a) {
    return grid::Vec3<T>{static_cast<T>(a.gravity[0]), static_cast<T>(a.gravity[1]), static_cast<T>(a.gravity[2])};
}

inline const char* dtype_name(ffi::DataType t) {
    switch (t) {
        case ffi::DataType::PRED: return "bool";
        case ffi::DataType::S8: return "int8";
        case ffi::DataType::S16: return "int16";
        case ffi::DataType::S32: return "int32";
        case ffi::DataType::S64: return "int64";
        case ffi::DataType::U8: return "uint8";
        case ffi::DataType::U16: return "uint16";
        case ffi::DataType::U32: return "uint32";
        case ffi::DataType::U64: return "uint64";
        case ffi::DataType::F16: return "float16";
        case ffi::DataType::BF16: return "bfloat16";
        case ffi::DataType::F32: return "float32";
        case ffi::DataType::F64: return "float64";
        case ffi::DataType::C64: return "complex64";
        case ffi::DataType::C128: return "complex128";
        case ffi::DataType::TOKEN: return "token";
        default: return "an unsupported dtype";
    }
}

inline std::string dims_string(const int64_t* d, size_t n) {
    std::string s = "[";
    for (size_t k = 0; k < n; ++k) {
        if (k > 0) s += ", ";
        s += std::to_string(d[k]);
    }
    return s + "]";
}

inline std::string prefix(const char* algo) {
    return std::string("grid_rbd ") + algo + " (robot " + GRID_FFI_ROBOT + "): ";
}

inline ffi::Error invalid(const char* algo, const std::string& message) {
    return ffi::Error::InvalidArgument(prefix(algo) + message);
}

// One operand or result of a call with its expected per-sample shape.
struct Slot {
    const char* role;  // "operand" or "result"
    const Spec* spec;
    const ffi::AnyBuffer* buffer;
};

// Checks every buffer of a call against the contract; sets the shared dtype and the number of samples (the
// product of the leading batch dimensions).
template <size_t N>
ffi::Error check_slots(const char* algo, const std::array<Slot, N>& slots, ffi::DataType* dtype,
                       int64_t* samples) {
    static_assert(N > 0, "every algorithm has operands");
    const Slot& first = slots[0];
    const ffi::DataType want = first.buffer->element_type();
    if (want != ffi::DataType::F32 && want != ffi::DataType::F64) {
        return invalid(algo, std::string(first.role) + " " + first.spec->name + " has dtype " + dtype_name(want) +
                                 "; expected float32 or float64");
    }
    ffi::AnyBuffer::Dimensions batch;
    for (size_t k = 0; k < N; ++k) {
        const Slot& s = slots[k];
        const ffi::DataType got = s.buffer->element_type();
        if (got != want) {
            return invalid(algo, std::string(s.role) + " " + s.spec->name + " has dtype " + dtype_name(got) + " but " +
                                     first.role + " " + first.spec->name + " has " + dtype_name(want) +
                                     "; every operand and result must share one dtype, float32 or float64");
        }
        const ffi::AnyBuffer::Dimensions dims = s.buffer->dimensions();
        const size_t rank = static_cast<size_t>(s.spec->rank);
        bool trailing_ok = dims.size() >= rank;
        for (size_t d = 0; trailing_ok && d < rank; ++d) {
            trailing_ok = dims[dims.size() - rank + d] == s.spec->dims[d];
        }
        if (!trailing_ok) {
            const std::string per_sample = dims_string(s.spec->dims, rank);
            return invalid(algo, std::string(s.role) + " " + s.spec->name + " has shape " +
                                     dims_string(dims.begin(), dims.size()) + "; expected [..., " +
                                     per_sample.substr(1) + " (any leading batch dimensions, then " + per_sample + ")");
        }
        const ffi::AnyBuffer::Dimensions lead = dims.first(dims.size() - rank);
        if (k == 0) {
            batch = lead;
        } else if (!(lead == batch)) {
            return invalid(algo, std::string(s.role) + " " + s.spec->name + " has shape " +
                                     dims_string(dims.begin(), dims.size()) + ", batch dimensions " +
                                     dims_string(lead.begin(), lead.size()) + ", but " + first.role + " " +
                                     first.spec->name + " has batch dimensions " +
                                     dims_string(batch.begin(), batch.size()) +
                                     "; every operand and result must have the same leading batch dimensions");
        }
    }
    int64_t n = 1;
    for (int64_t d : batch) n *= d;
    if (n > INT_MAX) {
        return invalid(algo, "a batch of " + std::to_string(n) + " samples exceeds the limit of " +
                                 std::to_string(INT_MAX) + " per call");
    }
    *dtype = want;
    *samples = n;
    return ffi::Error::Success();
}

// ---------------------------------------------------------------------------------------------------------
// Running a checked call.
// ---------------------------------------------------------------------------------------------------------

// Typed base pointers of a call's buffers.
template <typename Alg, typename T>
struct Pointers {
    std::array<T*, Alg::kOutputs.size()> out;
    std::array<const T*, Alg::kInputs.size()> in;
};

// The error of a handler whose entry point this library was built without (Alg::kCompiled false): a CUDA
// library of some entry points (GRID_CUDA_ENTRIES), or one of a run-time build's CPU libraries, each of which
// compiles some entry points (cpu_libraries.json in the build folder says which; grid_rbd registers every
// handler from the library that has it).
inline ffi::Error not_compiled(const char* algo) {
#if defined(GRID_CUDA_HOST)
    return ffi::Error(ffi::ErrorCode::kUnimplemented,
                      prefix(algo) + "this CUDA library was built without it (GRID_CUDA_ENTRIES); rebuild the robot "
                                     "without GRID_CUDA_ENTRIES, or with it in the list");
#else
    return ffi::Error(ffi::ErrorCode::kUnimplemented,
                      prefix(algo) + "this CPU library was built without it; another CPU library of the robot has "
                                     "it (see cpu_libraries.json in the build folder), and grid_rbd registers it "
                                     "from there");
#endif
}

#if defined(GRID_CUDA_HOST)

inline ffi::Error cuda_error(const char* algo, const char* what, cudaError_t err) {
    return ffi::Error(ffi::ErrorCode::kInternal, prefix(algo) + what + ": " + cudaGetErrorName(err) + " (" +
                                                     cudaGetErrorString(err) + ")");
}

// Applies the kernel's launch configuration (its dynamic shared-memory limit) once per device and process,
// so that launches, captured into command buffers included, find it set.
template <typename Alg, typename T>
cudaError_t configure_once() {
    static std::atomic<uint64_t> done{0};  // one bit per device ordinal below 64
    int device = 0;
    cudaError_t err = cudaGetDevice(&device);
    if (err != cudaSuccess) return err;
    const uint64_t bit = device >= 0 && device < 64 ? uint64_t(1) << device : 0;
    if (bit != 0 && (done.load(std::memory_order_acquire) & bit) != 0) return cudaSuccess;
    err = Alg::template configure<T>();
    if (err == cudaSuccess && bit != 0) done.fetch_or(bit, std::memory_order_acq_rel);
    return err;
}

// Launches at the baked tier when the workspace holds what it needs there, else at TIER_SHARED (none needed).
template <typename Alg, typename T>
ffi::Error execute_compiled(Stream stream, const Pointers<Alg, T>& p, const Attrs& attrs, int64_t samples,
                            const ffi::AnyBuffer& workspace) {
    cudaError_t err = configure_once<Alg, T>();
    if (err != cudaSuccess) return cuda_error(Alg::kName, "setting the kernel's shared-memory limit failed", err);
    const int n = static_cast<int>(samples);
    const size_t need = Alg::template workspace_bytes<T>(n);
    if (need <= workspace.size_bytes()) {
        T* ws = need > 0 ? static_cast<T*>(workspace.untyped_data()) : nullptr;
        err = Alg::template launch<T, Alg::template kTier<T>>(p.out.data(), p.in.data(), attrs, n, stream, ws);
    } else {
        err = Alg::template launch<T, grid::TIER_SHARED>(p.out.data(), p.in.data(), attrs, n, stream, nullptr);
    }
    if (err != cudaSuccess) return cuda_error(Alg::kName, "kernel launch failed", err);
    return ffi::Error::Success();
}

// Runs the kernel, or says that this library was built without it.
template <typename Alg, typename T>
ffi::Error execute(Stream stream, const Pointers<Alg, T>& p, const Attrs& attrs, int64_t samples,
                   const ffi::AnyBuffer& workspace) {
    if constexpr (!Alg::kCompiled) {
        return not_compiled(Alg::kName);
    } else {
        return execute_compiled<Alg, T>(stream, p, attrs, samples, workspace);
    }
}

// Bytes of workspace a call over samples samples of itemsize-byte scalars needs at the baked tier.
template <typename Alg>
int64_t workspace_bytes(int64_t samples, int32_t itemsize) {
    if (samples <= 0 || samples > INT_MAX) return 0;
    const int n = static_cast<int>(samples);
    if (itemsize == 4) return static_cast<int64_t>(Alg::template workspace_bytes<float>(n));
    if (itemsize == 8) return static_cast<int64_t>(Alg::template workspace_bytes<double>(n));
    return 0;
}

#else

// Samples below which a CPU call stays on the calling thread, and the least any worker gets.
constexpr int64_t kSamplesPerWorker = 256;

// Worker threads a CPU call may use: the hardware's, capped by GRID_RBD_CPU_THREADS when set.
inline int64_t cpu_workers() {
    static const int64_t workers = [] {
        int64_t n = static_cast<int64_t>(std::thread::hardware_concurrency());
        if (const char* env = std::getenv("GRID_RBD_CPU_THREADS")) {
            const long cap = std::strtol(env, nullptr, 10);
            if (cap > 0) n = n > 0 ? std::min<int64_t>(n, cap) : cap;
        }
        return std::max<int64_t>(n, 1);
    }();
    return workers;
}

// Runs samples [begin, begin + count) through the host wrapper.
template <typename Alg, typename T>
grid::Status run_range(const Pointers<Alg, T>& p, const Attrs& attrs, int64_t begin, int64_t count) {
    std::array<T*, Alg::kOutputs.size()> out;
    std::array<const T*, Alg::kInputs.size()> in;
    for (size_t k = 0; k < out.size(); ++k) out[k] = p.out[k] + begin * Alg::kOutputs[k].size();
    for (size_t k = 0; k < in.size(); ++k) in[k] = p.in[k] + begin * Alg::kInputs[k].size();
    return Alg::template host<T>(out.data(), in.data(), attrs, static_cast<int>(count));
}

// The host wrappers need no workspace: every tier is the same code on the CPU.
template <typename Alg>
int64_t workspace_bytes(int64_t, int32_t) {
    return 0;
}

// Runs run(begin, count) over samples [0, samples) split across the CPU workers; an error names algo.
template <typename Run>
ffi::Error run_on_workers(const char* algo, int64_t samples, const Run& run) {
    const int64_t workers = std::min(cpu_workers(), std::max<int64_t>(samples / kSamplesPerWorker, 1));
    const int64_t chunk = (samples + workers - 1) / workers;
    std::vector<grid::Status> status(static_cast<size_t>(workers), grid::Status::ok());
    std::vector<std::thread> threads;
    threads.reserve(static_cast<size_t>(workers));
    // Chunk 0 runs on this thread, after the others have started.
    for (int64_t w = 1; w < workers; ++w) {
        const int64_t begin = w * chunk;
        const int64_t count = std::min(chunk, samples - begin);
        if (count <= 0) break;
        grid::Status* slot = &status[static_cast<size_t>(w)];
        try {
            threads.emplace_back([&run, slot, begin, count] { *slot = run(begin, count); });
        } catch (const std::system_error&) {
            *slot = run(begin, count);  // no thread to be had: run it here
        }
    }
    status[0] = run(0, std::min(chunk, samples));
    for (std::thread& t : threads) t.join();
    for (const grid::Status& s : status) {
        if (!s.is_ok()) {
            return ffi::Error(ffi::ErrorCode::kInternal,
                              prefix(algo) + "host wrapper failed (code " + std::to_string(s.code) + "): " +
                                  (s.message != nullptr ? s.message : "no message"));
        }
    }
    return ffi::Error::Success();
}

// Runs the host wrapper, or says that this library was built without it.
template <typename Alg, typename T>
ffi::Error execute(Stream, const Pointers<Alg, T>& p, const Attrs& attrs, int64_t samples, const ffi::AnyBuffer&) {
    if constexpr (!Alg::kCompiled) {
        return not_compiled(Alg::kName);
    } else {
        return run_on_workers(Alg::kName, samples,
                              [&p, &attrs](int64_t begin, int64_t count) { return run_range(p, attrs, begin, count); });
    }
}

#endif

template <typename Alg, typename T>
Pointers<Alg, T> pointers(const std::array<ffi::AnyBuffer, Alg::kInputs.size()>& in,
                          const std::array<ffi::AnyBuffer, Alg::kOutputs.size()>& out) {
    Pointers<Alg, T> p;
    for (size_t k = 0; k < out.size(); ++k) p.out[k] = static_cast<T*>(out[k].untyped_data());
    for (size_t k = 0; k < in.size(); ++k) p.in[k] = static_cast<const T*>(in[k].untyped_data());
    return p;
}

// Checks a call, then runs it in the buffers' dtype; zero samples is a no-op.
template <typename Alg>
ffi::Error run(Stream stream, const std::array<ffi::AnyBuffer, Alg::kInputs.size()>& in,
               const std::array<ffi::AnyBuffer, Alg::kOutputs.size()>& out, const ffi::AnyBuffer& workspace,
               const Attrs& attrs) {
    constexpr size_t NI = Alg::kInputs.size(), NO = Alg::kOutputs.size();
    std::array<Slot, NI + NO> slots{};
    for (size_t k = 0; k < NI; ++k) slots[k] = Slot{"operand", &Alg::kInputs[k], &in[k]};
    for (size_t k = 0; k < NO; ++k) slots[NI + k] = Slot{"result", &Alg::kOutputs[k], &out[k]};
    ffi::DataType dtype = ffi::DataType::INVALID;
    int64_t samples = 0;
    if (ffi::Error err = check_slots(Alg::kName, slots, &dtype, &samples); err.failure()) return err;
    if (workspace.element_type() != ffi::DataType::U8) {
        return invalid(Alg::kName, std::string("result workspace has dtype ") + dtype_name(workspace.element_type()) +
                                       "; expected uint8 (scratch bytes after the outputs; see " GRID_FFI_ROBOT
                                       "'s grid_<algo>_<platform>_workspace_bytes)");
    }
    if (Alg::kFrame && (attrs.frame < 0 || attrs.frame >= grid::NF)) {
        return invalid(Alg::kName, "frame " + std::to_string(attrs.frame) + " is out of range; valid frames are 0 <= frame < " +
                                       std::to_string(grid::NF) + " (see the metadata's frame list)");
    }
    if (Alg::kMethod && !grid::algorithms::valid_integrator_method(attrs.method)) {
        return invalid(Alg::kName, "method " + std::to_string(attrs.method) +
                                       " is not an integrator; expected 0 (semi-implicit Euler) or 1 (RK4)");
    }
    if (samples == 0) return ffi::Error::Success();
    if (dtype == ffi::DataType::F32) {
        return execute<Alg, float>(stream, pointers<Alg, float>(in, out), attrs, samples, workspace);
    }
    return execute<Alg, double>(stream, pointers<Alg, double>(in, out), attrs, samples, workspace);
}

inline Attrs with_gravity(double x, double y, double z) {
    Attrs a;
    a.gravity[0] = x;
    a.gravity[1] = y;
    a.gravity[2] = z;
    return a;
}

using Buf = ffi::AnyBuffer;
using Out = ffi::Result<ffi::AnyBuffer>;

// A binding's common start: the platform context.
inline auto bind() { return ffi::Ffi::Bind().Ctx<StreamContext>(); }

}  // namespace grid_ffi

// ---------------------------------------------------------------------------------------------------------
// What grid_ffi.h binds with: grid_<algo>_cuda for CUDA launch code (GRID_CUDA_HOST), else grid_<algo>_cpu.
// ---------------------------------------------------------------------------------------------------------

#if defined(GRID_CUDA_HOST)
#define GRID_FFI_SYMBOL(algo) grid_##algo##_cuda
#define GRID_FFI_WORKSPACE_SYMBOL(algo) grid_##algo##_cuda_workspace_bytes
#define GRID_FFI_TRAITS {::xla::ffi::Traits::kCmdBufferCompatible}
#else
#define GRID_FFI_SYMBOL(algo) grid_##algo##_cpu
#define GRID_FFI_WORKSPACE_SYMBOL(algo) grid_##algo##_cpu_workspace_bytes
#define GRID_FFI_TRAITS {}
#endif

// A handler unit compiled in parts (-DGRID_FFI_PARTS=P -DGRID_FFI_PART=p) defines handler k of grid_ffi.h, and
// its workspace query, only in part k mod P: the XLA FFI bindings are most of the unit's compile time, and the
// parts compile side by side.
#if defined(GRID_FFI_PARTS)
#define GRID_FFI_IN_PART(k) ((k) % GRID_FFI_PARTS == GRID_FFI_PART)
#else
#define GRID_FFI_IN_PART(k) 1
#endif

// The libraries are built with hidden visibility, so that two robots' libraries in one process never bind
// to each other's template statics (shape tables); only the handlers are exported.
#define GRID_FFI_EXPORT(algo) \
    extern "C" __attribute__((visibility("default"))) XLA_FFI_Error* GRID_FFI_SYMBOL(algo)(XLA_FFI_CallFrame*);
// The workspace query of one algorithm: bytes of the `workspace` result a call at the baked tier needs.
#define GRID_FFI_EXPORT_WORKSPACE(algo, Alg)                                                                   \
    extern "C" __attribute__((visibility("default"))) int64_t GRID_FFI_WORKSPACE_SYMBOL(algo)(int64_t samples, \
                                                                                          int32_t itemsize) { \
        return grid_ffi::workspace_bytes<Alg>(samples, itemsize);                                              \
    }
#define GRID_FFI_ARG Arg<::xla::ffi::AnyBuffer>()
#define GRID_FFI_RET Ret<::xla::ffi::AnyBuffer>()
#define GRID_FFI_GRAVITY Attr<double>("gravity_x").Attr<double>("gravity_y").Attr<double>("gravity_z")
