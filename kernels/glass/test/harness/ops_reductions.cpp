// Harness calls of glass/reductions.cuh. Vector lengths come from n_in; indices travel as doubles (exact
// for every uint32_t) and are read from the raw inputs, never through the float cast.
#include "glass/reductions.cuh"
#include "harness.h"

#include <cstddef>
#include <cstdint>

namespace {

using glass_harness::cast_in;
using glass_harness::cast_out;
using glass_harness::poisoned;
using glass::argreduce_detail::AbsKey;
using glass::argreduce_detail::IdKey;

enum Scope { kThread = 0, kWarp = 1, kBlock = 2 };

// A scratch buffer of at least `bytes` bytes in units of T (the block-scope shared memory on the host).
template <typename T>
std::vector<T> scratch(std::size_t bytes) {
    return std::vector<T>(bytes / sizeof(T) + 1u, T(0));
}

// Index input: a non-negative integer double no larger than UINT32_MAX.
bool read_index(double v, uint32_t& idx) {
    if (!(v >= 0.0 && v <= 4294967295.0) || v != double(uint64_t(v))) return false;
    idx = uint32_t(v);
    return true;
}

// *_scratch_bytes: in count -> bytes
template <typename T, int WHICH>
bool scratch_bytes_op(const double* in, int n_in, double* out, int n_out) {
    uint32_t n;
    if (n_in != 1 || n_out != 1 || !read_index(in[0], n)) return false;
    if constexpr (WHICH == 0) out[0] = double(glass::softmax_scratch_bytes<T>(n));
    if constexpr (WHICH == 1) out[0] = double(glass::argreduce_scratch_bytes<T>(n));
    if constexpr (WHICH == 2) out[0] = double(glass::argreduce_fast_scratch_bytes<T>(n));
    return true;
}

// softmax: in alpha, x (n) -> y (n). ALIAS writes y over x; SYNC is the block form's TRAILING_SYNC.
template <typename T, int SCOPE, bool ALIAS = false, bool SYNC = true>
bool softmax_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in < 1 || n_out != n_in - 1) return false;
    const uint32_t n = uint32_t(n_in - 1);
    auto a = cast_in<T>(in, n_in);
    T* x = a.data() + 1;
    auto yb = poisoned<T>(int(n));
    T* y = ALIAS ? x : yb.data();
    if constexpr (SCOPE == kThread) glass::thread::softmax<T>(n, a[0], x, y);
    if constexpr (SCOPE == kWarp) glass::warp::softmax<T>(n, a[0], x, y);
    if constexpr (SCOPE == kBlock) {
        auto s = scratch<T>(glass::softmax_scratch_bytes<T>(n));
        glass::softmax<T, SYNC>(n, a[0], x, y, s.data());
    }
    cast_out(y, int(n), out);
    return true;
}

// logsumexp: in alpha, x (n) -> 1
template <typename T, int SCOPE>
bool logsumexp_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in < 1 || n_out != 1) return false;
    const uint32_t n = uint32_t(n_in - 1);
    auto a = cast_in<T>(in, n_in);
    const T* x = a.data() + 1;
    T r = T(NAN);
    if constexpr (SCOPE == kThread) r = glass::thread::logsumexp<T>(n, a[0], x);
    if constexpr (SCOPE == kWarp) r = glass::warp::logsumexp<T>(n, a[0], x);
    if constexpr (SCOPE == kBlock) {
        auto s = scratch<T>(glass::softmax_scratch_bytes<T>(n));
        glass::logsumexp<T>(n, a[0], x, &r, s.data());
    }
    out[0] = double(r);
    return true;
}

// argmax / argmin (public API): in x (n) -> index, or (index, value) with n_out == 2 (block forms only).
// FAST selects argmax_fast / argmin_fast.
template <typename T, int SCOPE, bool MIN, bool FAST = false>
bool argreduce_public_op(const double* in, int n_in, double* out, int n_out) {
    const bool with_val = n_out == 2;
    if (n_in < 0 || n_out < 1 || n_out > 2 || (with_val && SCOPE != kBlock)) return false;
    const uint32_t n = uint32_t(n_in);
    auto x = cast_in<T>(in, n_in);
    uint32_t idx = 0xdeadbeefu;
    T val = T(NAN);
    if constexpr (SCOPE == kThread) idx = MIN ? glass::thread::argmin<T>(n, x.data()) : glass::thread::argmax<T>(n, x.data());
    if constexpr (SCOPE == kWarp) idx = MIN ? glass::warp::argmin<T>(n, x.data()) : glass::warp::argmax<T>(n, x.data());
    if constexpr (SCOPE == kBlock) {
        const uint32_t bt = glass::block_size();
        auto s = scratch<T>(FAST ? glass::argreduce_fast_scratch_bytes<T>(bt) : glass::argreduce_scratch_bytes<T>(bt));
        if constexpr (FAST && MIN) {
            if (with_val) glass::argmin_fast<T>(n, x.data(), &idx, &val, s.data());
            else glass::argmin_fast<T>(n, x.data(), &idx, s.data());
        } else if constexpr (FAST) {
            if (with_val) glass::argmax_fast<T>(n, x.data(), &idx, &val, s.data());
            else glass::argmax_fast<T>(n, x.data(), &idx, s.data());
        } else if constexpr (MIN) {
            if (with_val) glass::argmin<T>(n, x.data(), &idx, &val, s.data());
            else glass::argmin<T>(n, x.data(), &idx, s.data());
        } else {
            if (with_val) glass::argmax<T>(n, x.data(), &idx, &val, s.data());
            else glass::argmax<T>(n, x.data(), &idx, s.data());
        }
    }
    out[0] = double(idx);
    if (with_val) out[1] = double(val);
    return true;
}

// argmax_pair / argmin_pair: in key, idx -> index, or (index, winning key) with n_out == 2
template <typename T, bool MIN>
bool pair_public_op(const double* in, int n_in, double* out, int n_out) {
    uint32_t idx;
    if (n_in != 2 || n_out < 1 || n_out > 2 || !read_index(in[1], idx)) return false;
    const T key = T(in[0]);
    if (n_out == 2) {
        T win = T(NAN);
        out[0] = double(MIN ? glass::argmin_pair<T>(key, idx, win) : glass::argmax_pair<T>(key, idx, win));
        out[1] = double(win);
    } else {
        out[0] = double(MIN ? glass::argmin_pair<T>(key, idx) : glass::argmax_pair<T>(key, idx));
    }
    return true;
}

// butterfly_max / butterfly_sum: in this lane's v -> the warp-wide result
template <typename T, bool SUM>
bool butterfly_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != 1 || n_out != 1) return false;
    const T v = T(in[0]);
    out[0] = double(SUM ? glass::softmax_detail::butterfly_sum(v) : glass::softmax_detail::butterfly_max(v));
    return true;
}

// argreduce_detail::combine: in key, idx, ckey, cidx -> key, idx
template <typename T, bool MIN>
bool combine_op(const double* in, int n_in, double* out, int n_out) {
    uint32_t idx, cidx;
    if (n_in != 4 || n_out != 2 || !read_index(in[1], idx) || !read_index(in[3], cidx)) return false;
    T key = T(in[0]);
    glass::argreduce_detail::combine<T, MIN>(key, idx, T(in[2]), cidx);
    out[0] = double(key);
    out[1] = double(idx);
    return true;
}

// argreduce_detail cores over an array: in x (n) -> index (warp/serial) or (index, value) (block forms).
// WHICH: 0 argreduce, 1 argreduce_fast, 2 argreduce_warp, 3 argreduce_serial.
template <typename T, int WHICH, bool MIN, typename Key>
bool argreduce_core_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in < 0 || n_out != (WHICH < 2 ? 2 : 1)) return false;
    const uint32_t n = uint32_t(n_in);
    auto x = cast_in<T>(in, n_in);
    const uint32_t bt = glass::block_size();
    namespace ad = glass::argreduce_detail;
    if constexpr (WHICH < 2) {
        uint32_t idx = 0xdeadbeefu;
        T val = T(NAN);
        auto s = scratch<T>(WHICH == 0 ? glass::argreduce_scratch_bytes<T>(bt) : glass::argreduce_fast_scratch_bytes<T>(bt));
        if constexpr (WHICH == 0) ad::argreduce<T, MIN, true, Key>(n, x.data(), &idx, &val, s.data());
        if constexpr (WHICH == 1) ad::argreduce_fast<T, MIN, true, Key>(n, x.data(), &idx, &val, s.data());
        out[0] = double(idx);
        out[1] = double(val);
    }
    if constexpr (WHICH == 2) out[0] = double(ad::argreduce_warp<T, MIN, Key>(n, x.data()));
    if constexpr (WHICH == 3) out[0] = double(ad::argreduce_serial<T, MIN, Key>(n, x.data()));
    return true;
}

// argreduce_detail::argreduce_pair: in key, idx -> index, winning key
template <typename T, bool MIN>
bool argreduce_pair_op(const double* in, int n_in, double* out, int n_out) {
    uint32_t idx;
    if (n_in != 2 || n_out != 2 || !read_index(in[1], idx)) return false;
    T win = T(NAN);
    out[0] = double(glass::argreduce_detail::argreduce_pair<T, MIN>(T(in[0]), idx, &win));
    out[1] = double(win);
    return true;
}

}  // namespace

GLASS_HARNESS_OP_T("softmax_scratch_bytes/scalar", scratch_bytes_op, 0);
GLASS_HARNESS_OP_T("argreduce_scratch_bytes/scalar", scratch_bytes_op, 1);
GLASS_HARNESS_OP_T("argreduce_fast_scratch_bytes/scalar", scratch_bytes_op, 2);

GLASS_HARNESS_OP_T("softmax/thread", softmax_op, kThread);
GLASS_HARNESS_OP_T("softmax/warp", softmax_op, kWarp);
GLASS_HARNESS_OP_T("softmax/block", softmax_op, kBlock);
GLASS_HARNESS_OP_T("softmax[alias]/thread", softmax_op, kThread, true);
GLASS_HARNESS_OP_T("softmax[alias]/warp", softmax_op, kWarp, true);
GLASS_HARNESS_OP_T("softmax[alias]/block", softmax_op, kBlock, true);
GLASS_HARNESS_OP_T("softmax[false]/block", softmax_op, kBlock, false, false);
GLASS_HARNESS_OP_T("logsumexp/thread", logsumexp_op, kThread);
GLASS_HARNESS_OP_T("logsumexp/warp", logsumexp_op, kWarp);
GLASS_HARNESS_OP_T("logsumexp/block", logsumexp_op, kBlock);

GLASS_HARNESS_OP_T("argmax/thread", argreduce_public_op, kThread, false);
GLASS_HARNESS_OP_T("argmax/warp", argreduce_public_op, kWarp, false);
GLASS_HARNESS_OP_T("argmax/block", argreduce_public_op, kBlock, false);
GLASS_HARNESS_OP_T("argmin/thread", argreduce_public_op, kThread, true);
GLASS_HARNESS_OP_T("argmin/warp", argreduce_public_op, kWarp, true);
GLASS_HARNESS_OP_T("argmin/block", argreduce_public_op, kBlock, true);
GLASS_HARNESS_OP_T("argmax_fast/block", argreduce_public_op, kBlock, false, true);
GLASS_HARNESS_OP_T("argmin_fast/block", argreduce_public_op, kBlock, true, true);
GLASS_HARNESS_OP_T("argmax_pair/warp", pair_public_op, false);
GLASS_HARNESS_OP_T("argmin_pair/warp", pair_public_op, true);

GLASS_HARNESS_OP_T("butterfly_max/warp", butterfly_op, false);
GLASS_HARNESS_OP_T("butterfly_sum/warp", butterfly_op, true);
GLASS_HARNESS_OP_T("combine[max]/thread", combine_op, false);
GLASS_HARNESS_OP_T("combine[min]/thread", combine_op, true);
GLASS_HARNESS_OP_T("argreduce[max]/block", argreduce_core_op, 0, false, IdKey);
GLASS_HARNESS_OP_T("argreduce[min]/block", argreduce_core_op, 0, true, IdKey);
GLASS_HARNESS_OP_T("argreduce[max,abs]/block", argreduce_core_op, 0, false, AbsKey);
GLASS_HARNESS_OP_T("argreduce[min,abs]/block", argreduce_core_op, 0, true, AbsKey);
GLASS_HARNESS_OP_T("argreduce_fast[max]/block", argreduce_core_op, 1, false, IdKey);
GLASS_HARNESS_OP_T("argreduce_fast[min]/block", argreduce_core_op, 1, true, IdKey);
GLASS_HARNESS_OP_T("argreduce_fast[max,abs]/block", argreduce_core_op, 1, false, AbsKey);
GLASS_HARNESS_OP_T("argreduce_fast[min,abs]/block", argreduce_core_op, 1, true, AbsKey);
GLASS_HARNESS_OP_T("argreduce_warp[max]/warp", argreduce_core_op, 2, false, IdKey);
GLASS_HARNESS_OP_T("argreduce_warp[min]/warp", argreduce_core_op, 2, true, IdKey);
GLASS_HARNESS_OP_T("argreduce_warp[max,abs]/warp", argreduce_core_op, 2, false, AbsKey);
GLASS_HARNESS_OP_T("argreduce_warp[min,abs]/warp", argreduce_core_op, 2, true, AbsKey);
GLASS_HARNESS_OP_T("argreduce_serial[max]/thread", argreduce_core_op, 3, false, IdKey);
GLASS_HARNESS_OP_T("argreduce_serial[min]/thread", argreduce_core_op, 3, true, IdKey);
GLASS_HARNESS_OP_T("argreduce_serial[max,abs]/thread", argreduce_core_op, 3, false, AbsKey);
GLASS_HARNESS_OP_T("argreduce_serial[min,abs]/thread", argreduce_core_op, 3, true, AbsKey);
GLASS_HARNESS_OP_T("argreduce_pair[max]/warp", argreduce_pair_op, false);
GLASS_HARNESS_OP_T("argreduce_pair[min]/warp", argreduce_pair_op, true);
