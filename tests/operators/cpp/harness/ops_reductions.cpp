// Harness calls of glass/reductions.cuh. Vector lengths come from n_in; indices travel as doubles (exact
// for every uint32_t) and are read from the raw inputs, never through the float cast.
#include "glass/reductions.cuh"
#include "harness.h"

#include <cstdint>

namespace {

using glass::argreduce_detail::AbsKey;
using glass::argreduce_detail::IdKey;
using glass_harness::Args;
using glass_harness::Call;
using glass_harness::read_index;
using glass_harness::run;
using glass_harness::Shape;
using glass_harness::with_scratch;

enum Scope { kThread = 0, kWarp = 1, kBlock = 2 };

constexpr uint32_t kEmpty = 0xffffffffu;  // the empty-slot index

// *_scratch_bytes: in count -> bytes
template <typename T, int WHICH>
bool scratch_bytes_op(Call& c) {
    uint32_t n;
    if (c.n_in != 1 || c.n_out != 1 || !read_index(c.in[0], n)) return false;
    return run<T, double>(c, GLASS_HARNESS_BODY(Args<T, double> x) {
        const uint32_t n = uint32_t(x.raw[0]);
        if constexpr (WHICH == 0) x.o[0] = double(glass::softmax_scratch_bytes<T>(n));
        if constexpr (WHICH == 1) x.o[0] = double(glass::argreduce_scratch_bytes<T>(n));
        if constexpr (WHICH == 2) x.o[0] = double(glass::argreduce_fast_scratch_bytes<T>(n));
    });
}

// softmax: in alpha, x (n) -> y (n). ALIAS writes y over x; SYNC is the block form's TRAILING_SYNC.
template <typename T, int SCOPE, bool ALIAS = false, bool SYNC = true>
bool softmax_op(Call& c) {
    if (c.n_in < 1 || c.n_out != c.n_in - 1) return false;
    const uint32_t len = uint32_t(c.n_in - 1);
    const Shape shape = SCOPE == kBlock ? with_scratch([len](uint32_t) { return glass::softmax_scratch_bytes<T>(len); })
                                        : Shape{};
    return run<T>(c, shape, GLASS_HARNESS_BODY(Args<T> x) {
        const uint32_t n = uint32_t(x.n_in - 1);
        T* xv = x.a + 1;
        T* y = ALIAS ? xv : x.o;
        if constexpr (SCOPE == kThread) glass::thread::softmax<T>(n, x.a[0], xv, y);
        if constexpr (SCOPE == kWarp) glass::warp::softmax<T>(n, x.a[0], xv, y);
        if constexpr (SCOPE == kBlock) glass::softmax<T, SYNC>(n, x.a[0], xv, y, x.s);
        if constexpr (ALIAS) x.put(y, int(n));
    });
}

// logsumexp: in alpha, x (n) -> 1
template <typename T, int SCOPE>
bool logsumexp_op(Call& c) {
    if (c.n_in < 1 || c.n_out != 1) return false;
    const uint32_t len = uint32_t(c.n_in - 1);
    const Shape shape = SCOPE == kBlock ? with_scratch([len](uint32_t) { return glass::softmax_scratch_bytes<T>(len); })
                                        : Shape{};
    return run<T>(c, shape, GLASS_HARNESS_BODY(Args<T> x) {
        const uint32_t n = uint32_t(x.n_in - 1);
        if constexpr (SCOPE == kThread) x.o[0] = glass::thread::logsumexp<T>(n, x.a[0], x.a + 1);
        if constexpr (SCOPE == kWarp) {
            const T r = glass::warp::logsumexp<T>(n, x.a[0], x.a + 1);
            if (x.lead()) x.o[0] = r;
        }
        if constexpr (SCOPE == kBlock) glass::logsumexp<T>(n, x.a[0], x.a + 1, x.o, x.s);
    });
}

// argmax / argmin (public API): in x (n) -> index, or (index, value) with n_out == 2 (block forms only).
// FAST selects argmax_fast / argmin_fast (block sizes that are multiples of 32).
template <typename T, int SCOPE, bool MIN, bool FAST = false>
bool argreduce_public_op(Call& c) {
    const bool with_val = c.n_out == 2;
    if (c.n_in < 0 || c.n_out < 1 || c.n_out > 2 || (with_val && SCOPE != kBlock)) return false;
    const Shape shape = SCOPE == kBlock ? with_scratch(
                                              [](uint32_t bt) {
                                                  return FAST ? glass::argreduce_fast_scratch_bytes<T>(bt)
                                                              : glass::argreduce_scratch_bytes<T>(bt);
                                              },
                                              FAST)
                                        : Shape{};
    return run<T, double>(c, shape, GLASS_HARNESS_BODY(Args<T, double> x) {
        const uint32_t n = uint32_t(x.n_in);
        const bool val_out = x.n_out == 2;
        uint32_t idx = 0xdeadbeefu;  // the index, in the thread the operator gives it to
        T val = T(NAN);
        if constexpr (SCOPE == kThread) idx = MIN ? glass::thread::argmin<T>(n, x.a) : glass::thread::argmax<T>(n, x.a);
        if constexpr (SCOPE == kWarp) idx = MIN ? glass::warp::argmin<T>(n, x.a) : glass::warp::argmax<T>(n, x.a);
        if constexpr (SCOPE == kBlock) {
            if constexpr (FAST && MIN) {
                if (val_out) glass::argmin_fast<T>(n, x.a, &idx, &val, x.s);
                else glass::argmin_fast<T>(n, x.a, &idx, x.s);
            } else if constexpr (FAST) {
                if (val_out) glass::argmax_fast<T>(n, x.a, &idx, &val, x.s);
                else glass::argmax_fast<T>(n, x.a, &idx, x.s);
            } else if constexpr (MIN) {
                if (val_out) glass::argmin<T>(n, x.a, &idx, &val, x.s);
                else glass::argmin<T>(n, x.a, &idx, x.s);
            } else {
                if (val_out) glass::argmax<T>(n, x.a, &idx, &val, x.s);
                else glass::argmax<T>(n, x.a, &idx, x.s);
            }
        }
        if (x.lead()) {
            x.o[0] = double(idx);
            if (val_out) x.o[1] = double(val);
        }
    });
}

// argmax_pair / argmin_pair: in key, idx -> index, or (index, winning key) with n_out == 2. Lane 0 holds the
// candidate and every other lane an empty slot, so the warp-wide winner is the one-lane (host) result.
template <typename T, bool MIN>
bool pair_public_op(Call& c) {
    uint32_t idx;
    if (c.n_in != 2 || c.n_out < 1 || c.n_out > 2 || !read_index(c.in[1], idx)) return false;
    return run<T, double>(c, GLASS_HARNESS_BODY(Args<T, double> x) {
        const T key = x.lead() ? x.a[0] : T(NAN);
        const uint32_t i = x.lead() ? uint32_t(x.raw[1]) : kEmpty;
        if (x.n_out == 2) {
            T win = T(NAN);
            const uint32_t r = MIN ? glass::argmin_pair<T>(key, i, win) : glass::argmax_pair<T>(key, i, win);
            if (x.lead()) {
                x.o[0] = double(r);
                x.o[1] = double(win);
            }
        } else {
            const uint32_t r = MIN ? glass::argmin_pair<T>(key, i) : glass::argmax_pair<T>(key, i);
            if (x.lead()) x.o[0] = double(r);
        }
    });
}

// butterfly_max / butterfly_sum: in lane 0's v (every other lane holds the fold's identity, −inf or −0) ->
// the warp-wide result, v itself as on the one-lane host.
template <typename T, bool SUM>
bool butterfly_op(Call& c) {
    if (c.n_in != 1 || c.n_out != 1) return false;
    return run<T>(c, GLASS_HARNESS_BODY(Args<T> x) {
        const T v = x.lead() ? x.a[0] : SUM ? T(-0.0) : -T(INFINITY);
        const T r = SUM ? glass::softmax_detail::butterfly_sum(v) : glass::softmax_detail::butterfly_max(v);
        if (x.lead()) x.o[0] = r;
    });
}

// argreduce_detail::combine: in key, idx, ckey, cidx -> key, idx
template <typename T, bool MIN>
bool combine_op(Call& c) {
    uint32_t idx, cidx;
    if (c.n_in != 4 || c.n_out != 2 || !read_index(c.in[1], idx) || !read_index(c.in[3], cidx)) return false;
    return run<T, double>(c, GLASS_HARNESS_BODY(Args<T, double> x) {
        T key = x.a[0];
        uint32_t i = uint32_t(x.raw[1]);
        glass::argreduce_detail::combine<T, MIN>(key, i, x.a[2], uint32_t(x.raw[3]));
        x.o[0] = double(key);
        x.o[1] = double(i);
    });
}

// argreduce_detail cores over an array: in x (n) -> index (warp/serial) or (index, value) (block forms).
// WHICH: 0 argreduce, 1 argreduce_fast, 2 argreduce_warp, 3 argreduce_serial.
template <typename T, int WHICH, bool MIN, typename Key>
bool argreduce_core_op(Call& c) {
    if (c.n_in < 0 || c.n_out != (WHICH < 2 ? 2 : 1)) return false;
    const Shape shape = WHICH < 2 ? with_scratch(
                                        [](uint32_t bt) {
                                            return WHICH == 0 ? glass::argreduce_scratch_bytes<T>(bt)
                                                              : glass::argreduce_fast_scratch_bytes<T>(bt);
                                        },
                                        WHICH == 1)
                                  : Shape{};
    return run<T, double>(c, shape, GLASS_HARNESS_BODY(Args<T, double> x) {
        const uint32_t n = uint32_t(x.n_in);
        if constexpr (WHICH < 2) {
            uint32_t idx = 0xdeadbeefu;
            T val = T(NAN);
            namespace ad = glass::argreduce_detail;
            if constexpr (WHICH == 0) ad::argreduce<T, MIN, true, Key>(n, x.a, &idx, &val, x.s);
            if constexpr (WHICH == 1) ad::argreduce_fast<T, MIN, true, Key>(n, x.a, &idx, &val, x.s);
            if (x.lead()) {
                x.o[0] = double(idx);
                x.o[1] = double(val);
            }
        }
        if constexpr (WHICH == 2) {
            const uint32_t r = glass::argreduce_detail::argreduce_warp<T, MIN, Key>(n, x.a);
            if (x.lead()) x.o[0] = double(r);
        }
        if constexpr (WHICH == 3) x.o[0] = double(glass::argreduce_detail::argreduce_serial<T, MIN, Key>(n, x.a));
    });
}

// argreduce_detail::argreduce_pair: in key, idx -> index, winning key (lane 0's candidate, as pair_public_op)
template <typename T, bool MIN>
bool argreduce_pair_op(Call& c) {
    uint32_t idx;
    if (c.n_in != 2 || c.n_out != 2 || !read_index(c.in[1], idx)) return false;
    return run<T, double>(c, GLASS_HARNESS_BODY(Args<T, double> x) {
        const T key = x.lead() ? x.a[0] : T(NAN);
        const uint32_t i = x.lead() ? uint32_t(x.raw[1]) : kEmpty;
        T win = T(NAN);
        const uint32_t r = glass::argreduce_detail::argreduce_pair<T, MIN>(key, i, &win);
        if (x.lead()) {
            x.o[0] = double(r);
            x.o[1] = double(win);
        }
    });
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
