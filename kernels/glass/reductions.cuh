// Sampling-planner reductions: max-shifted softmax, stable log-sum-exp, and signed argmax/argmin.
//
// Scopes (as in the rest of glass):
//   * glass::        block scope, every thread of the block calls it; shared scratch sized by the
//                    *_scratch_bytes helpers; ends with trailing_sync<TRAILING_SYNC>();
//   * glass::warp    one full 32-lane warp, folds through register shuffles (no scratch), result on every lane;
//   * glass::thread  one thread, serial.
// On the host a block or warp is one thread (block_size() == warp_size() == 1) and the shuffles compile
// out (a one-lane fold is the identity), so the host runs the same loops the GPU does.
//
// Thread-count invariance. softmax/logsumexp reduce their staged n-element buffer with an in-place tree
// whose shape depends on n alone, so the block result is bit-identical for every block size. The
// argreductions select under a strict total order — better key first, then the LOWER index — with
// NaN keys and empty slots (index UINT32_MAX) as the identity, so every fold order (serial, shuffle
// down, xor butterfly) picks the same winner: argmax, argmax_fast, warp::argmax and thread::argmax agree
// bit for bit. NaN entries are skipped (np.nanargmax semantics); with no non-NaN entry the index is 0 and
// the value slot gets x[0].
#pragma once

#include "scope.cuh"

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace glass {

namespace softmax_detail {

template <typename T>
GLASS_HD T neg_inf() {
    return -T(INFINITY);
}

// max that keeps a (the running value) when b is NaN; a NaN never wins the shift, it still poisons the
// sum of exponentials and so the result.
template <typename T>
GLASS_HD T max_of(T a, T b) {
    return b > a ? b : a;
}

// The shift of the max-shifted exponentials: M itself when finite, else 0 (all −inf: exp(−inf) = 0 and
// the log-sum-exp is −inf instead of −inf − (−inf) = NaN; a +inf entry keeps +inf), as SciPy does.
template <typename T>
GLASS_HD T shift_of(T m) {
    return m - m == T(0) ? m : T(0);
}

// Max over the 32 lanes of a full warp by an xor butterfly: every lane ends with the same value.
template <typename T>
GLASS_HD T butterfly_max(T v) {
#if defined(__CUDA_ARCH__)
    for (int o = 16; o > 0; o >>= 1) v = max_of(v, __shfl_xor_sync(0xffffffffu, v, o));
#endif
    return v;
}

// Sum over the 32 lanes of a full warp by an xor butterfly. Each step adds the same two operands on both
// partner lanes (a + b == b + a exactly), so every lane ends with a bit-identical sum.
template <typename T>
GLASS_HD T butterfly_sum(T v) {
#if defined(__CUDA_ARCH__)
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
#endif
    return v;
}

// In-place block-wide fold of s[0..n) into s[0]: each level folds the upper half onto the lower one.
// The tree depends only on n (not on the block size), which makes the sum thread-count invariant.
// Ends on a barrier, so s[0] is block-visible.
template <typename T, bool MAX>
GLASS_HD void tree_fold(uint32_t n, T* s) {
    for (uint32_t len = n; len > 1u;) {
        const uint32_t half = (len + 1u) / 2u;
        for (uint32_t i = block_rank(); i < len - half; i += block_size())
            s[i] = MAX ? max_of(s[i], s[i + half]) : s[i] + s[i + half];
        block_sync();
        len = half;
    }
}

// Lane-strided softmax/logsumexp (rank/size of the cooperating lanes; WARP folds through butterflies).
// Returns the shift M and the sum S of exp(αx − M); with y, also writes y = exp(αx − M)/S. y may alias x:
// each lane reads x[i] before writing y[i] and touches no other lane's entries.
template <typename T, bool WARP>
GLASS_HD void lane_softmax(uint32_t n, T alpha, const T* x, T* y, uint32_t rank, uint32_t size, T& m, T& s) {
    using std::exp;
    m = neg_inf<T>();
    for (uint32_t i = rank; i < n; i += size) m = max_of(m, alpha * x[i]);
    if constexpr (WARP) m = butterfly_max(m);
    m = shift_of(m);
    s = T(0);
    for (uint32_t i = rank; i < n; i += size) {
        const T e = exp(alpha * x[i] - m);
        if (y) y[i] = e;
        s += e;
    }
    if constexpr (WARP) s = butterfly_sum(s);
    if (y)
        for (uint32_t i = rank; i < n; i += size) y[i] = y[i] / s;
}

}  // namespace softmax_detail

// Shared-scratch bytes of softmax / logsumexp: the n-element staging buffer the reduction trees consume.
template <typename T>
GLASS_HD constexpr std::size_t softmax_scratch_bytes(uint32_t n) {
    return std::size_t(n) * sizeof(T);
}

// Block-scope max-shifted softmax y = exp(αx − M)/Σexp(αx − M), M = max(αx). y may alias x; s_scratch
// (softmax_scratch_bytes<T>(n) bytes) must be distinct.
template <typename T, bool TRAILING_SYNC = true>
GLASS_HD void softmax(uint32_t n, T alpha, const T* x, T* y, T* s_scratch) {
    using std::exp;
    const uint32_t r = block_rank(), b = block_size();
    if (n > 0u) {
        for (uint32_t i = r; i < n; i += b) s_scratch[i] = alpha * x[i];
        block_sync();
        softmax_detail::tree_fold<T, true>(n, s_scratch);
        const T m = softmax_detail::shift_of(s_scratch[0]);
        block_sync();  // every thread has read M before s_scratch[0] is overwritten
        // Same-index writes: y[i] replaces x[i] only after this thread read it.
        for (uint32_t i = r; i < n; i += b) {
            const T e = exp(alpha * x[i] - m);
            s_scratch[i] = e;
            y[i] = e;
        }
        block_sync();
        softmax_detail::tree_fold<T, false>(n, s_scratch);
        const T s = s_scratch[0];
        for (uint32_t i = r; i < n; i += b) y[i] = y[i] / s;
    }
    trailing_sync<TRAILING_SYNC>();
}

// Block-scope stable log-sum-exp out[0] = M + log Σexp(αx − M) (−inf for n == 0).
template <typename T, bool TRAILING_SYNC = true>
GLASS_HD void logsumexp(uint32_t n, T alpha, const T* x, T* out, T* s_scratch) {
    using std::exp;
    using std::log;
    const uint32_t r = block_rank(), b = block_size();
    if (n == 0u) {
        if (r == 0u) out[0] = softmax_detail::neg_inf<T>();
    } else {
        for (uint32_t i = r; i < n; i += b) s_scratch[i] = alpha * x[i];
        block_sync();
        softmax_detail::tree_fold<T, true>(n, s_scratch);
        const T m = softmax_detail::shift_of(s_scratch[0]);
        block_sync();
        for (uint32_t i = r; i < n; i += b) s_scratch[i] = exp(alpha * x[i] - m);
        block_sync();
        softmax_detail::tree_fold<T, false>(n, s_scratch);
        if (r == 0u) out[0] = m + log(s_scratch[0]);
    }
    trailing_sync<TRAILING_SYNC>();
}

namespace argreduce_detail {

constexpr uint32_t kEmpty = 0xffffffffu;  // index of a slot holding no candidate

// Key of a plain (signed) argreduction; an all-NaN input reports x[0].
struct IdKey {
    template <typename T>
    GLASS_HD T operator()(T v) const {
        return v;
    }
    template <typename T>
    GLASS_HD T empty(const T* x) const {
        return x[0];
    }
};

// Key of a magnitude argreduction (iamax-style); an all-NaN input reports magnitude 0.
struct AbsKey {
    template <typename T>
    GLASS_HD T operator()(T v) const {
        using std::fabs;
        return fabs(v);
    }
    template <typename T>
    GLASS_HD T empty(const T*) const {
        return T(0);
    }
};

// Folds the candidate (ckey, cidx) into (key, idx): the better key wins, equal keys go to the lower
// index, NaN keys and empty slots never win (and an invalid incumbent is normalized to empty), so the
// selection is associative and commutative.
template <typename T, bool MINIMUM>
GLASS_HD void combine(T& key, uint32_t& idx, T ckey, uint32_t cidx) {
    const bool c_ok = cidx != kEmpty && ckey == ckey;
    const bool cur_ok = idx != kEmpty && key == key;
    const bool better = MINIMUM ? ckey < key : ckey > key;
    if (c_ok && (!cur_ok || better || (ckey == key && cidx < idx))) {
        key = ckey;
        idx = cidx;
    } else if (!cur_ok) {
        idx = kEmpty;
    }
}

// This thread's winner over x[begin], x[begin + step], ... (indices ascending).
template <typename T, bool MINIMUM, typename Key>
GLASS_HD void strided_fold(uint32_t n, const T* x, uint32_t begin, uint32_t step, T& key, uint32_t& idx) {
    const Key k{};
    key = T(0);
    idx = kEmpty;
    for (uint32_t i = begin; i < n; i += step) combine<T, MINIMUM>(key, idx, k(x[i]), i);
}

// Folds a full warp's pairs down to lane 0 (other lanes hold partial results). Identity on the host.
template <typename T, bool MINIMUM>
GLASS_HD void warp_fold_down(T& key, uint32_t& idx) {
#if defined(__CUDA_ARCH__)
    for (int o = 16; o > 0; o >>= 1) {
        const T ck = __shfl_down_sync(0xffffffffu, key, o);
        const uint32_t ci = __shfl_down_sync(0xffffffffu, idx, o);
        combine<T, MINIMUM>(key, idx, ck, ci);
    }
#else
    (void)key;
    (void)idx;
#endif
}

// Folds a full warp's pairs by an xor butterfly: every lane ends with the winner. Identity on the host.
template <typename T, bool MINIMUM>
GLASS_HD void warp_fold_xor(T& key, uint32_t& idx) {
#if defined(__CUDA_ARCH__)
    for (int o = 16; o > 0; o >>= 1) {
        const T ck = __shfl_xor_sync(0xffffffffu, key, o);
        const uint32_t ci = __shfl_xor_sync(0xffffffffu, idx, o);
        combine<T, MINIMUM>(key, idx, ck, ci);
    }
#else
    (void)key;
    (void)idx;
#endif
}

// Writes the final (index, value) of an array argreduction: no candidate → index 0 and Key::empty (NaN
// for n == 0, where x may not be read).
template <typename T, typename Key>
GLASS_HD void write_result(uint32_t n, const T* x, T key, uint32_t idx, uint32_t* out, T* out_val) {
    const bool none = idx == kEmpty;
    out[0] = none ? 0u : idx;
    if (out_val) out_val[0] = none ? (n > 0u ? Key{}.empty(x) : T(NAN)) : key;
}

// Block argreduction: strided per-thread folds, one (key, index) slot per thread in s_scratch (keys
// first, then the uint32_t indices), and a serial fold by thread 0. out_val may be nullptr.
template <typename T, bool MINIMUM, bool TRAILING_SYNC, typename Key = IdKey>
GLASS_HD void argreduce(uint32_t n, const T* x, uint32_t* out, T* out_val, T* s_scratch) {
    const uint32_t r = block_rank(), b = block_size();
    T key;
    uint32_t idx;
    strided_fold<T, MINIMUM, Key>(n, x, r, b, key, idx);
    uint32_t* s_idx = reinterpret_cast<uint32_t*>(s_scratch + b);
    s_scratch[r] = key;
    s_idx[r] = idx;
    block_sync();
    if (r == 0u) {
        for (uint32_t t = 1; t < b; ++t) combine<T, MINIMUM>(key, idx, s_scratch[t], s_idx[t]);
        write_result<T, Key>(n, x, key, idx, out, out_val);
    }
    trailing_sync<TRAILING_SYNC>();
}

// Block argreduction through warp shuffles: per-warp folds to lane 0, one slot per warp in s_scratch
// (keys, then indices), and a final shuffle fold by warp 0. Block size must be a multiple of 32.
template <typename T, bool MINIMUM, bool TRAILING_SYNC, typename Key = IdKey>
GLASS_HD void argreduce_fast(uint32_t n, const T* x, uint32_t* out, T* out_val, T* s_scratch) {
    const uint32_t r = block_rank(), b = block_size();
    const uint32_t lane = r & 31u, wid = r >> 5, nw = (b + 31u) >> 5;
    T key;
    uint32_t idx;
    strided_fold<T, MINIMUM, Key>(n, x, r, b, key, idx);
    warp_fold_down<T, MINIMUM>(key, idx);
    uint32_t* s_idx = reinterpret_cast<uint32_t*>(s_scratch + nw);
    if (lane == 0u) {
        s_scratch[wid] = key;
        s_idx[wid] = idx;
    }
    block_sync();
    if (wid == 0u) {
        key = T(0);
        idx = kEmpty;
        if (lane < nw) {
            key = s_scratch[lane];
            idx = s_idx[lane];
        }
        warp_fold_down<T, MINIMUM>(key, idx);
        if (lane == 0u) write_result<T, Key>(n, x, key, idx, out, out_val);
    }
    trailing_sync<TRAILING_SYNC>();
}

// Single-warp argreduction; the index (0 when no candidate) is returned on every lane.
template <typename T, bool MINIMUM, typename Key = IdKey>
GLASS_HD uint32_t argreduce_warp(uint32_t n, const T* x) {
    T key;
    uint32_t idx;
    strided_fold<T, MINIMUM, Key>(n, x, warp_rank(), warp_size(), key, idx);
    warp_fold_xor<T, MINIMUM>(key, idx);
    return idx == kEmpty ? 0u : idx;
}

// Single-thread argreduction (0 when no candidate).
template <typename T, bool MINIMUM, typename Key = IdKey>
GLASS_HD uint32_t argreduce_serial(uint32_t n, const T* x) {
    T key;
    uint32_t idx;
    strided_fold<T, MINIMUM, Key>(n, x, 0u, 1u, key, idx);
    return idx == kEmpty ? 0u : idx;
}

// Warp argreduction over per-lane (key, idx) pairs: shuffle-down fold, then a broadcast of lane 0. A NaN
// key empties its lane; UINT32_MAX comes back when every lane is empty. win_key may be nullptr.
template <typename T, bool MINIMUM>
GLASS_HD uint32_t argreduce_pair(T key, uint32_t idx, T* win_key) {
    if (!(key == key)) idx = kEmpty;
    warp_fold_down<T, MINIMUM>(key, idx);
#if defined(__CUDA_ARCH__)
    key = __shfl_sync(0xffffffffu, key, 0);
    idx = __shfl_sync(0xffffffffu, idx, 0);
#endif
    if (win_key) *win_key = key;
    return idx;
}

}  // namespace argreduce_detail

// Shared-scratch bytes of argmax / argmin: one T key and one uint32_t index per thread.
template <typename T>
GLASS_HD constexpr std::size_t argreduce_scratch_bytes(uint32_t block_threads) {
    return std::size_t(block_threads) * (sizeof(T) + sizeof(uint32_t));
}

// Block-scope argmax (lower index on ties, NaN skipped, all-NaN → 0) into out[0].
template <typename T, bool TRAILING_SYNC = true>
GLASS_HD void argmax(uint32_t n, const T* x, uint32_t* out, T* s_scratch) {
    argreduce_detail::argreduce<T, false, TRAILING_SYNC>(n, x, out, nullptr, s_scratch);
}

// Block-scope argmax also writing the maximum to out_val[0].
template <typename T, bool TRAILING_SYNC = true>
GLASS_HD void argmax(uint32_t n, const T* x, uint32_t* out, T* out_val, T* s_scratch) {
    argreduce_detail::argreduce<T, false, TRAILING_SYNC>(n, x, out, out_val, s_scratch);
}

// Block-scope argmin. See argmax.
template <typename T, bool TRAILING_SYNC = true>
GLASS_HD void argmin(uint32_t n, const T* x, uint32_t* out, T* s_scratch) {
    argreduce_detail::argreduce<T, true, TRAILING_SYNC>(n, x, out, nullptr, s_scratch);
}

// Block-scope argmin also writing the minimum to out_val[0].
template <typename T, bool TRAILING_SYNC = true>
GLASS_HD void argmin(uint32_t n, const T* x, uint32_t* out, T* out_val, T* s_scratch) {
    argreduce_detail::argreduce<T, true, TRAILING_SYNC>(n, x, out, out_val, s_scratch);
}

// Shared-scratch bytes of argmax_fast / argmin_fast: one (key, index) slot per warp.
template <typename T>
GLASS_HD constexpr std::size_t argreduce_fast_scratch_bytes(uint32_t block_threads) {
    return std::size_t((block_threads + 31u) / 32u) * (sizeof(T) + sizeof(uint32_t));
}

// Block-scope argmax through warp shuffles (block size a multiple of 32); same result as argmax.
template <typename T, bool TRAILING_SYNC = true>
GLASS_HD void argmax_fast(uint32_t n, const T* x, uint32_t* out, T* s_scratch) {
    argreduce_detail::argreduce_fast<T, false, TRAILING_SYNC>(n, x, out, nullptr, s_scratch);
}

template <typename T, bool TRAILING_SYNC = true>
GLASS_HD void argmax_fast(uint32_t n, const T* x, uint32_t* out, T* out_val, T* s_scratch) {
    argreduce_detail::argreduce_fast<T, false, TRAILING_SYNC>(n, x, out, out_val, s_scratch);
}

// Block-scope argmin through warp shuffles. See argmax_fast.
template <typename T, bool TRAILING_SYNC = true>
GLASS_HD void argmin_fast(uint32_t n, const T* x, uint32_t* out, T* s_scratch) {
    argreduce_detail::argreduce_fast<T, true, TRAILING_SYNC>(n, x, out, nullptr, s_scratch);
}

template <typename T, bool TRAILING_SYNC = true>
GLASS_HD void argmin_fast(uint32_t n, const T* x, uint32_t* out, T* out_val, T* s_scratch) {
    argreduce_detail::argreduce_fast<T, true, TRAILING_SYNC>(n, x, out, out_val, s_scratch);
}

// Warp argmax over per-lane (key, idx) candidates (idx = UINT32_MAX: empty lane); the winning index on
// every lane, UINT32_MAX when all lanes are empty. Full 32-lane warp.
template <typename T>
GLASS_HD uint32_t argmax_pair(T key, uint32_t idx) {
    return argreduce_detail::argreduce_pair<T, false>(key, idx, nullptr);
}

// argmax_pair also returning the winning key on every lane.
template <typename T>
GLASS_HD uint32_t argmax_pair(T key, uint32_t idx, T& win_key) {
    return argreduce_detail::argreduce_pair<T, false>(key, idx, &win_key);
}

// Warp argmin over per-lane (key, idx) candidates. See argmax_pair.
template <typename T>
GLASS_HD uint32_t argmin_pair(T key, uint32_t idx) {
    return argreduce_detail::argreduce_pair<T, true>(key, idx, nullptr);
}

template <typename T>
GLASS_HD uint32_t argmin_pair(T key, uint32_t idx, T& win_key) {
    return argreduce_detail::argreduce_pair<T, true>(key, idx, &win_key);
}

namespace warp {

// Single-warp max-shifted softmax without scratch (full 32 lanes; y may alias x). See glass::softmax.
template <typename T>
GLASS_HD void softmax(uint32_t n, T alpha, const T* x, T* y) {
    T m, s;
    softmax_detail::lane_softmax<T, true>(n, alpha, x, y, warp_rank(), warp_size(), m, s);
    warp_sync();
}

// Single-warp stable log-sum-exp, returned on every lane (full 32 lanes). See glass::logsumexp.
template <typename T>
GLASS_HD T logsumexp(uint32_t n, T alpha, const T* x) {
    using std::log;
    T m, s;
    softmax_detail::lane_softmax<T, true>(n, alpha, x, static_cast<T*>(nullptr), warp_rank(), warp_size(), m, s);
    return m + log(s);
}

// Single-warp argmax, index on every lane (full 32 lanes). See glass::argmax.
template <typename T>
GLASS_HD uint32_t argmax(uint32_t n, const T* x) {
    return argreduce_detail::argreduce_warp<T, false>(n, x);
}

// Single-warp argmin, index on every lane (full 32 lanes). See glass::argmin.
template <typename T>
GLASS_HD uint32_t argmin(uint32_t n, const T* x) {
    return argreduce_detail::argreduce_warp<T, true>(n, x);
}

}  // namespace warp

namespace thread {

// Single-thread max-shifted softmax (y may alias x). See glass::softmax.
template <typename T>
GLASS_HD void softmax(uint32_t n, T alpha, const T* x, T* y) {
    T m, s;
    softmax_detail::lane_softmax<T, false>(n, alpha, x, y, 0u, 1u, m, s);
}

// Single-thread stable log-sum-exp. See glass::logsumexp.
template <typename T>
GLASS_HD T logsumexp(uint32_t n, T alpha, const T* x) {
    using std::log;
    T m, s;
    softmax_detail::lane_softmax<T, false>(n, alpha, x, static_cast<T*>(nullptr), 0u, 1u, m, s);
    return m + log(s);
}

// Single-thread argmax. See glass::argmax.
template <typename T>
GLASS_HD uint32_t argmax(uint32_t n, const T* x) {
    return argreduce_detail::argreduce_serial<T, false>(n, x);
}

// Single-thread argmin. See glass::argmin.
template <typename T>
GLASS_HD uint32_t argmin(uint32_t n, const T* x) {
    return argreduce_detail::argreduce_serial<T, true>(n, x);
}

}  // namespace thread

}  // namespace glass
