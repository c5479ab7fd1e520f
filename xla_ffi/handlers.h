// XLA FFI handlers for one robot's generated grid.cuh.
//
// Include this header once per shared library, after the robot's grid.cuh (see ffi_cpu.cc and ffi_cuda.cu).
// A host C++ compiler gets the CPU handlers, exported as `grid_<algo>_cpu`; nvcc gets the CUDA handlers,
// exported as `grid_<algo>_cuda`. Both follow one contract:
//
//   operands   the algorithm's inputs in metadata order (q, then qd, qdd or tau where it has them)
//   results    its outputs in metadata order
//   dtype      float32 or float64, the same for every operand and result
//   shapes     any number of leading batch dimensions (none included), identical for every operand and
//              result, then the per-sample shape of the metadata, e.g. q [..., NQ] and M [..., NV, NV]
//   attributes gravity_x, gravity_y, gravity_z (f64) where the algorithm takes gravity;
//              frame (i64, 0 <= frame < NF) for frame_jacobian
//
// Every violation is an INVALID_ARGUMENT error that names the algorithm, the buffer, its shape or dtype and
// what was expected. The CUDA handlers launch `grid::<algo>_launch<T>` on the stream XLA passes, never
// synchronise or allocate, and are marked command-buffer compatible. The CPU handlers run the host wrapper
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

#if defined(__CUDACC__)
// The CUDA handlers receive the stream XLA runs them on.
using Stream = cudaStream_t;
using StreamContext = ffi::PlatformStream<cudaStream_t>;
#else
// The CPU handlers need no context; this empty one keeps both handler families' signatures alike.
struct Stream {};
using StreamContext = Stream;
#endif

}  // namespace grid_ffi

#if !defined(__CUDACC__)
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

// The deepest per-sample shape of any algorithm (rot [NF, 3, 3]).
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
};

template <typename T>
grid::Vec3<T> gravity_of(const Attrs& a) {
    return grid::Vec3<T>{static_cast<T>(a.gravity[0]), static_cast<T>(a.gravity[1]), static_cast<T>(a.gravity[2])};
}

// ---------------------------------------------------------------------------------------------------------
// The algorithms: per-sample shapes and the calls into the generated entry points.
// ---------------------------------------------------------------------------------------------------------

struct FramePoses {
    static constexpr const char* kName = "frame_poses";
    static constexpr bool kGravity = false, kFrame = false;
    static constexpr std::array<Spec, 1> kInputs = {{{"q", 1, {grid::NQ}}}};
    static constexpr std::array<Spec, 3> kOutputs = {
        {{"pos", 2, {grid::NF, 3}}, {"rot", 3, {grid::NF, 3, 3}}, {"quat", 2, {grid::NF, 4}}}};
    template <typename T>
    static grid::Status host(T* const* o, const T* const* i, const Attrs&, int n) {
        return grid::frame_poses<T>(o[0], o[1], o[2], i[0], n);
    }
#if defined(__CUDACC__)
    template <typename T>
    static cudaError_t launch(T* const* o, const T* const* i, const Attrs&, int n, cudaStream_t s) {
        return grid::frame_poses_launch<T>(o[0], o[1], o[2], i[0], n, s);
    }
    template <typename T>
    static cudaError_t configure() {
        return grid::set_smem_limit(grid::frame_poses_kernel<T>, grid::FRAME_POSES_DEVICE_SMEM_BYTES<T>());
    }
#endif
};

struct FrameJacobian {
    static constexpr const char* kName = "frame_jacobian";
    static constexpr bool kGravity = false, kFrame = true;
    static constexpr std::array<Spec, 1> kInputs = {{{"q", 1, {grid::NQ}}}};
    static constexpr std::array<Spec, 1> kOutputs = {{{"J", 2, {6, grid::NV}}}};
    template <typename T>
    static grid::Status host(T* const* o, const T* const* i, const Attrs& a, int n) {
        return grid::frame_jacobian<T>(o[0], i[0], static_cast<int>(a.frame), n);
    }
#if defined(__CUDACC__)
    template <typename T>
    static cudaError_t launch(T* const* o, const T* const* i, const Attrs& a, int n, cudaStream_t s) {
        return grid::frame_jacobian_launch<T>(o[0], i[0], static_cast<int>(a.frame), n, s);
    }
    template <typename T>
    static cudaError_t configure() {
        return grid::set_smem_limit(grid::frame_jacobian_kernel<T>, grid::FRAME_JACOBIAN_DEVICE_SMEM_BYTES<T>());
    }
#endif
};

struct InverseDynamics {
    static constexpr const char* kName = "inverse_dynamics";
    static constexpr bool kGravity = true, kFrame = false;
    static constexpr std::array<Spec, 3> kInputs = {
        {{"q", 1, {grid::NQ}}, {"qd", 1, {grid::NV}}, {"qdd", 1, {grid::NV}}}};
    static constexpr std::array<Spec, 1> kOutputs = {{{"tau", 1, {grid::NV}}}};
    template <typename T>
    static grid::Status host(T* const* o, const T* const* i, const Attrs& a, int n) {
        return grid::inverse_dynamics<T>(o[0], i[0], i[1], i[2], gravity_of<T>(a), n);
    }
#if defined(__CUDACC__)
    template <typename T>
    static cudaError_t launch(T* const* o, const T* const* i, const Attrs& a, int n, cudaStream_t s) {
        return grid::inverse_dynamics_launch<T>(o[0], i[0], i[1], i[2], gravity_of<T>(a), n, s);
    }
    template <typename T>
    static cudaError_t configure() {
        return grid::set_smem_limit(grid::inverse_dynamics_kernel<T>, grid::INVERSE_DYNAMICS_DEVICE_SMEM_BYTES<T>());
    }
#endif
};

struct BiasForces {
    static constexpr const char* kName = "bias_forces";
    static constexpr bool kGravity = true, kFrame = false;
    static constexpr std::array<Spec, 2> kInputs = {{{"q", 1, {grid::NQ}}, {"qd", 1, {grid::NV}}}};
    static constexpr std::array<Spec, 1> kOutputs = {{{"tau", 1, {grid::NV}}}};
    template <typename T>
    static grid::Status host(T* const* o, const T* const* i, const Attrs& a, int n) {
        return grid::bias_forces<T>(o[0], i[0], i[1], gravity_of<T>(a), n);
    }
#if defined(__CUDACC__)
    template <typename T>
    static cudaError_t launch(T* const* o, const T* const* i, const Attrs& a, int n, cudaStream_t s) {
        return grid::bias_forces_launch<T>(o[0], i[0], i[1], gravity_of<T>(a), n, s);
    }
    template <typename T>
    static cudaError_t configure() {
        return grid::set_smem_limit(grid::bias_forces_kernel<T>, grid::BIAS_FORCES_DEVICE_SMEM_BYTES<T>());
    }
#endif
};

struct GravityForces {
    static constexpr const char* kName = "gravity_forces";
    static constexpr bool kGravity = true, kFrame = false;
    static constexpr std::array<Spec, 1> kInputs = {{{"q", 1, {grid::NQ}}}};
    static constexpr std::array<Spec, 1> kOutputs = {{{"tau", 1, {grid::NV}}}};
    template <typename T>
    static grid::Status host(T* const* o, const T* const* i, const Attrs& a, int n) {
        return grid::gravity_forces<T>(o[0], i[0], gravity_of<T>(a), n);
    }
#if defined(__CUDACC__)
    template <typename T>
    static cudaError_t launch(T* const* o, const T* const* i, const Attrs& a, int n, cudaStream_t s) {
        return grid::gravity_forces_launch<T>(o[0], i[0], gravity_of<T>(a), n, s);
    }
    template <typename T>
    static cudaError_t configure() {
        return grid::set_smem_limit(grid::gravity_forces_kernel<T>, grid::GRAVITY_FORCES_DEVICE_SMEM_BYTES<T>());
    }
#endif
};

struct MassMatrix {
    static constexpr const char* kName = "mass_matrix";
    static constexpr bool kGravity = false, kFrame = false;
    static constexpr std::array<Spec, 1> kInputs = {{{"q", 1, {grid::NQ}}}};
    static constexpr std::array<Spec, 1> kOutputs = {{{"M", 2, {grid::NV, grid::NV}}}};
    template <typename T>
    static grid::Status host(T* const* o, const T* const* i, const Attrs&, int n) {
        return grid::mass_matrix<T>(o[0], i[0], n);
    }
#if defined(__CUDACC__)
    template <typename T>
    static cudaError_t launch(T* const* o, const T* const* i, const Attrs&, int n, cudaStream_t s) {
        return grid::mass_matrix_launch<T>(o[0], i[0], n, s);
    }
    template <typename T>
    static cudaError_t configure() {
        return grid::set_smem_limit(grid::mass_matrix_kernel<T>, grid::MASS_MATRIX_DEVICE_SMEM_BYTES<T>());
    }
#endif
};

struct Minv {
    static constexpr const char* kName = "minv";
    static constexpr bool kGravity = false, kFrame = false;
    static constexpr std::array<Spec, 1> kInputs = {{{"q", 1, {grid::NQ}}}};
    static constexpr std::array<Spec, 1> kOutputs = {{{"Minv", 2, {grid::NV, grid::NV}}}};
    template <typename T>
    static grid::Status host(T* const* o, const T* const* i, const Attrs&, int n) {
        return grid::minv<T>(o[0], i[0], n);
    }
#if defined(__CUDACC__)
    template <typename T>
    static cudaError_t launch(T* const* o, const T* const* i, const Attrs&, int n, cudaStream_t s) {
        return grid::minv_launch<T>(o[0], i[0], n, s);
    }
    template <typename T>
    static cudaError_t configure() {
        return grid::set_smem_limit(grid::minv_kernel<T>, grid::MINV_DEVICE_SMEM_BYTES<T>());
    }
#endif
};

struct ForwardDynamics {
    static constexpr const char* kName = "forward_dynamics";
    static constexpr bool kGravity = true, kFrame = false;
    static constexpr std::array<Spec, 3> kInputs = {
        {{"q", 1, {grid::NQ}}, {"qd", 1, {grid::NV}}, {"tau", 1, {grid::NV}}}};
    static constexpr std::array<Spec, 1> kOutputs = {{{"qdd", 1, {grid::NV}}}};
    template <typename T>
    static grid::Status host(T* const* o, const T* const* i, const Attrs& a, int n) {
        return grid::forward_dynamics<T>(o[0], i[0], i[1], i[2], gravity_of<T>(a), n);
    }
#if defined(__CUDACC__)
    template <typename T>
    static cudaError_t launch(T* const* o, const T* const* i, const Attrs& a, int n, cudaStream_t s) {
        return grid::forward_dynamics_launch<T>(o[0], i[0], i[1], i[2], gravity_of<T>(a), n, s);
    }
    template <typename T>
    static cudaError_t configure() {
        return grid::set_smem_limit(grid::forward_dynamics_kernel<T>, grid::FORWARD_DYNAMICS_DEVICE_SMEM_BYTES<T>());
    }
#endif
};

struct Aba {
    static constexpr const char* kName = "aba";
    static constexpr bool kGravity = true, kFrame = false;
    static constexpr std::array<Spec, 3> kInputs = {
        {{"q", 1, {grid::NQ}}, {"qd", 1, {grid::NV}}, {"tau", 1, {grid::NV}}}};
    static constexpr std::array<Spec, 1> kOutputs = {{{"qdd", 1, {grid::NV}}}};
    template <typename T>
    static grid::Status host(T* const* o, const T* const* i, const Attrs& a, int n) {
        return grid::aba<T>(o[0], i[0], i[1], i[2], gravity_of<T>(a), n);
    }
#if defined(__CUDACC__)
    template <typename T>
    static cudaError_t launch(T* const* o, const T* const* i, const Attrs& a, int n, cudaStream_t s) {
        return grid::aba_launch<T>(o[0], i[0], i[1], i[2], gravity_of<T>(a), n, s);
    }
    template <typename T>
    static cudaError_t configure() {
        return grid::set_smem_limit(grid::aba_kernel<T>, grid::ABA_DEVICE_SMEM_BYTES<T>());
    }
#endif
};

// ---------------------------------------------------------------------------------------------------------
// Checking a call's buffers.
// ---------------------------------------------------------------------------------------------------------

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

#if defined(__CUDACC__)

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

template <typename Alg, typename T>
ffi::Error execute(Stream stream, const Pointers<Alg, T>& p, const Attrs& attrs, int64_t samples) {
    cudaError_t err = configure_once<Alg, T>();
    if (err != cudaSuccess) return cuda_error(Alg::kName, "setting the kernel's shared-memory limit failed", err);
    err = Alg::template launch<T>(p.out.data(), p.in.data(), attrs, static_cast<int>(samples), stream);
    if (err != cudaSuccess) return cuda_error(Alg::kName, "kernel launch failed", err);
    return ffi::Error::Success();
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

template <typename Alg, typename T>
ffi::Error execute(Stream, const Pointers<Alg, T>& p, const Attrs& attrs, int64_t samples) {
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
            threads.emplace_back([&p, &attrs, slot, begin, count] { *slot = run_range(p, attrs, begin, count); });
        } catch (const std::system_error&) {
            *slot = run_range(p, attrs, begin, count);  // no thread to be had: run it here
        }
    }
    status[0] = run_range(p, attrs, 0, std::min(chunk, samples));
    for (std::thread& t : threads) t.join();
    for (const grid::Status& s : status) {
        if (!s.is_ok()) {
            return ffi::Error(ffi::ErrorCode::kInternal,
                              prefix(Alg::kName) + "host wrapper failed (code " + std::to_string(s.code) + "): " +
                                  (s.message != nullptr ? s.message : "no message"));
        }
    }
    return ffi::Error::Success();
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
               const std::array<ffi::AnyBuffer, Alg::kOutputs.size()>& out, const Attrs& attrs) {
    constexpr size_t NI = Alg::kInputs.size(), NO = Alg::kOutputs.size();
    std::array<Slot, NI + NO> slots{};
    for (size_t k = 0; k < NI; ++k) slots[k] = Slot{"operand", &Alg::kInputs[k], &in[k]};
    for (size_t k = 0; k < NO; ++k) slots[NI + k] = Slot{"result", &Alg::kOutputs[k], &out[k]};
    ffi::DataType dtype = ffi::DataType::INVALID;
    int64_t samples = 0;
    if (ffi::Error err = check_slots(Alg::kName, slots, &dtype, &samples); err.failure()) return err;
    if (Alg::kFrame && (attrs.frame < 0 || attrs.frame >= grid::NF)) {
        return invalid(Alg::kName, "frame " + std::to_string(attrs.frame) + " is out of range; valid frames are 0 <= frame < " +
                                       std::to_string(grid::NF) + " (see the metadata's frame list)");
    }
    if (samples == 0) return ffi::Error::Success();
    if (dtype == ffi::DataType::F32) return execute<Alg, float>(stream, pointers<Alg, float>(in, out), attrs, samples);
    return execute<Alg, double>(stream, pointers<Alg, double>(in, out), attrs, samples);
}

inline Attrs with_gravity(double x, double y, double z) {
    Attrs a;
    a.gravity[0] = x;
    a.gravity[1] = y;
    a.gravity[2] = z;
    return a;
}

// ---------------------------------------------------------------------------------------------------------
// Handler bodies, one per algorithm, in the order of their bindings below.
// ---------------------------------------------------------------------------------------------------------

using Buf = ffi::AnyBuffer;
using Out = ffi::Result<ffi::AnyBuffer>;

inline ffi::Error frame_poses(Stream s, Buf q, Out pos, Out rot, Out quat) {
    return run<FramePoses>(s, {q}, {*pos, *rot, *quat}, Attrs{});
}

inline ffi::Error frame_jacobian(Stream s, Buf q, Out J, int64_t frame) {
    Attrs a;
    a.frame = frame;
    return run<FrameJacobian>(s, {q}, {*J}, a);
}

inline ffi::Error inverse_dynamics(Stream s, Buf q, Buf qd, Buf qdd, Out tau, double gx, double gy, double gz) {
    return run<InverseDynamics>(s, {q, qd, qdd}, {*tau}, with_gravity(gx, gy, gz));
}

inline ffi::Error bias_forces(Stream s, Buf q, Buf qd, Out tau, double gx, double gy, double gz) {
    return run<BiasForces>(s, {q, qd}, {*tau}, with_gravity(gx, gy, gz));
}

inline ffi::Error gravity_forces(Stream s, Buf q, Out tau, double gx, double gy, double gz) {
    return run<GravityForces>(s, {q}, {*tau}, with_gravity(gx, gy, gz));
}

inline ffi::Error mass_matrix(Stream s, Buf q, Out M) { return run<MassMatrix>(s, {q}, {*M}, Attrs{}); }

inline ffi::Error minv(Stream s, Buf q, Out m_inv) { return run<Minv>(s, {q}, {*m_inv}, Attrs{}); }

inline ffi::Error forward_dynamics(Stream s, Buf q, Buf qd, Buf tau, Out qdd, double gx, double gy, double gz) {
    return run<ForwardDynamics>(s, {q, qd, tau}, {*qdd}, with_gravity(gx, gy, gz));
}

inline ffi::Error aba(Stream s, Buf q, Buf qd, Buf tau, Out qdd, double gx, double gy, double gz) {
    return run<Aba>(s, {q, qd, tau}, {*qdd}, with_gravity(gx, gy, gz));
}

// A binding's common start: the platform context.
inline auto bind() { return ffi::Ffi::Bind().Ctx<StreamContext>(); }

}  // namespace grid_ffi

// ---------------------------------------------------------------------------------------------------------
// Exported handlers: grid_<algo>_cpu from a host compiler, grid_<algo>_cuda from nvcc.
// ---------------------------------------------------------------------------------------------------------

#if defined(__CUDACC__)
#define GRID_FFI_SYMBOL(algo) grid_##algo##_cuda
#define GRID_FFI_TRAITS {::xla::ffi::Traits::kCmdBufferCompatible}
#else
#define GRID_FFI_SYMBOL(algo) grid_##algo##_cpu
#define GRID_FFI_TRAITS {}
#endif

// The libraries are built with hidden visibility, so that two robots' libraries in one process never bind
// to each other's template statics (shape tables); only the handlers below are exported.
#define GRID_FFI_EXPORT(algo) \
    extern "C" __attribute__((visibility("default"))) XLA_FFI_Error* GRID_FFI_SYMBOL(algo)(XLA_FFI_CallFrame*);
GRID_FFI_EXPORT(frame_poses)
GRID_FFI_EXPORT(frame_jacobian)
GRID_FFI_EXPORT(inverse_dynamics)
GRID_FFI_EXPORT(bias_forces)
GRID_FFI_EXPORT(gravity_forces)
GRID_FFI_EXPORT(mass_matrix)
GRID_FFI_EXPORT(minv)
GRID_FFI_EXPORT(forward_dynamics)
GRID_FFI_EXPORT(aba)

#define GRID_FFI_ARG Arg<::xla::ffi::AnyBuffer>()
#define GRID_FFI_RET Ret<::xla::ffi::AnyBuffer>()
#define GRID_FFI_GRAVITY Attr<double>("gravity_x").Attr<double>("gravity_y").Attr<double>("gravity_z")

XLA_FFI_DEFINE_HANDLER_SYMBOL(GRID_FFI_SYMBOL(frame_poses), grid_ffi::frame_poses,
                              grid_ffi::bind().GRID_FFI_ARG.GRID_FFI_RET.GRID_FFI_RET.GRID_FFI_RET, GRID_FFI_TRAITS);

XLA_FFI_DEFINE_HANDLER_SYMBOL(GRID_FFI_SYMBOL(frame_jacobian), grid_ffi::frame_jacobian,
                              grid_ffi::bind().GRID_FFI_ARG.GRID_FFI_RET.Attr<int64_t>("frame"), GRID_FFI_TRAITS);

XLA_FFI_DEFINE_HANDLER_SYMBOL(GRID_FFI_SYMBOL(inverse_dynamics), grid_ffi::inverse_dynamics,
                              grid_ffi::bind().GRID_FFI_ARG.GRID_FFI_ARG.GRID_FFI_ARG.GRID_FFI_RET.GRID_FFI_GRAVITY,
                              GRID_FFI_TRAITS);

XLA_FFI_DEFINE_HANDLER_SYMBOL(GRID_FFI_SYMBOL(bias_forces), grid_ffi::bias_forces,
                              grid_ffi::bind().GRID_FFI_ARG.GRID_FFI_ARG.GRID_FFI_RET.GRID_FFI_GRAVITY, GRID_FFI_TRAITS);

XLA_FFI_DEFINE_HANDLER_SYMBOL(GRID_FFI_SYMBOL(gravity_forces), grid_ffi::gravity_forces,
                              grid_ffi::bind().GRID_FFI_ARG.GRID_FFI_RET.GRID_FFI_GRAVITY, GRID_FFI_TRAITS);

XLA_FFI_DEFINE_HANDLER_SYMBOL(GRID_FFI_SYMBOL(mass_matrix), grid_ffi::mass_matrix,
                              grid_ffi::bind().GRID_FFI_ARG.GRID_FFI_RET, GRID_FFI_TRAITS);

XLA_FFI_DEFINE_HANDLER_SYMBOL(GRID_FFI_SYMBOL(minv), grid_ffi::minv, grid_ffi::bind().GRID_FFI_ARG.GRID_FFI_RET,
                              GRID_FFI_TRAITS);

XLA_FFI_DEFINE_HANDLER_SYMBOL(GRID_FFI_SYMBOL(forward_dynamics), grid_ffi::forward_dynamics,
                              grid_ffi::bind().GRID_FFI_ARG.GRID_FFI_ARG.GRID_FFI_ARG.GRID_FFI_RET.GRID_FFI_GRAVITY,
                              GRID_FFI_TRAITS);

XLA_FFI_DEFINE_HANDLER_SYMBOL(GRID_FFI_SYMBOL(aba), grid_ffi::aba,
                              grid_ffi::bind().GRID_FFI_ARG.GRID_FFI_ARG.GRID_FFI_ARG.GRID_FFI_RET.GRID_FFI_GRAVITY,
                              GRID_FFI_TRAITS);
