// Unit quaternions of the operator library: products, exp/log, rotation of vectors and conversions to and
// from rotation matrices.
//
// Conventions:
//   * HAMILTON quaternions (i² = j² = k² = ijk = −1), q = w + x·i + y·j + z·k; R(a ⊗ b) = R(a)·R(b);
//   * the storage order is a compile-time tag: QuatLayout::xyzw (vector first, the default: Eigen / Warp /
//     cuRobo / GRiD) or QuatLayout::wxyz (scalar first: MuJoCo / Ceres / GTSAM). Only the storage index of
//     each component changes (lie_detail::layout<L>);
//   * rotation vectors φ are FULL angles (axis·angle, radians): exp(φ) = [sin(|φ|/2)·φ̂; cos(|φ|/2)];
//   * matrices are column-major; a leading dimension LDA = 4 addresses the rotation block of a column-major
//     4×4 homogeneous transform in place.
//
// Every operation exists at three scopes with one serial core (the lie_detail::*_core functions):
//   * glass::        block scope: every thread forms the (tiny) result in registers and the stores are spread
//                    over block_rank()/block_size(), then trailing_sync<TRAILING_SYNC>();
//   * glass::warp    the same over warp_rank()/warp_size(), then warp_sync();
//   * glass::thread  one thread computes and stores everything.
// At block and warp scope an output must not alias an input (another thread may still be reading it). The
// cores read all their inputs before the first store, so thread-scope calls may work in place.
#pragma once

#include "scope.cuh"

#include <cmath>
#include <cstdint>

// Full unrolling of constant-trip loops (nvcc's device pass and clang spell it "unroll", GCC its own way;
// the host pass of nvcc accepts neither form portably, so it gets nothing).
#if defined(__CUDA_ARCH__) || (defined(__clang__) && !defined(__CUDACC__))
#define GLASS_QUAT_UNROLL _Pragma("unroll")
#elif defined(__GNUC__) && !defined(__CUDACC__)
#define GLASS_QUAT_UNROLL _Pragma("GCC unroll 16")
#else
#define GLASS_QUAT_UNROLL
#endif

namespace glass {

// Compile-time quaternion storage layout (both are Hamilton quaternions).
enum class QuatLayout { xyzw, wxyz };

namespace lie_detail {

// Storage index of each quaternion component under layout L.
template <QuatLayout L>
struct layout;

template <>
struct layout<QuatLayout::xyzw> {
    static constexpr uint32_t X = 0, Y = 1, Z = 2, W = 3;
};

template <>
struct layout<QuatLayout::wxyz> {
    static constexpr uint32_t X = 1, Y = 2, Z = 3, W = 0;
};

// The share of rank (of size cooperating threads) of out[0..N) = tmp[0..N). The loop runs over compile-time
// indices so tmp stays in registers.
template <typename T, uint32_t N>
GLASS_HD void copy_out(uint32_t rank, uint32_t size, const T* tmp, T* out) {
    uint32_t next = rank;
    GLASS_QUAT_UNROLL
    for (uint32_t k = 0; k < N; ++k) {
        if (k == next) {
            out[k] = tmp[k];
            next += size;
        }
    }
}

// The share of rank of a contiguous column-major 3×3 tmp stored into out with leading dimension LDA; the
// other entries of out (e.g. the last row/column of a 4×4 transform) are not touched.
template <typename T, uint32_t LDA>
GLASS_HD void copy_out_mat3(uint32_t rank, uint32_t size, const T* tmp, T* out) {
    static_assert(LDA >= 3, "LDA must be at least 3");
    uint32_t next = rank;
    GLASS_QUAT_UNROLL
    for (uint32_t k = 0; k < 9u; ++k) {
        if (k == next) {
            out[(k % 3u) + LDA * (k / 3u)] = tmp[k];
            next += size;
        }
    }
}

// out = a ⊗ b: w = a_w·b_w − a_v·b_v, v = a_w·b_v + b_w·a_v + a_v × b_v.
template <typename T, QuatLayout L>
GLASS_HD void quat_mul_core(const T* a, const T* b, T* out) {
    using I = layout<L>;
    const T ax = a[I::X], ay = a[I::Y], az = a[I::Z], aw = a[I::W];
    const T bx = b[I::X], by = b[I::Y], bz = b[I::Z], bw = b[I::W];
    const T x = aw * bx + bw * ax + (ay * bz - az * by);
    const T y = aw * by + bw * ay + (az * bx - ax * bz);
    const T z = aw * bz + bw * az + (ax * by - ay * bx);
    const T w = aw * bw - (ax * bx + ay * by + az * bz);
    out[I::X] = x;
    out[I::Y] = y;
    out[I::Z] = z;
    out[I::W] = w;
}

// out = a* (the vector part negated).
template <typename T, QuatLayout L>
GLASS_HD void quat_conj_core(const T* a, T* out) {
    using I = layout<L>;
    const T x = a[I::X], y = a[I::Y], z = a[I::Z], w = a[I::W];
    out[I::X] = -x;
    out[I::Y] = -y;
    out[I::Z] = -z;
    out[I::W] = w;
}

// out = q / |q|, and with CANONICAL also flipped onto w >= 0 (the sign is folded into the one scale factor).
template <typename T, QuatLayout L, bool CANONICAL>
GLASS_HD void quat_normalize_core(const T* q, T* out) {
    using std::sqrt;
    const T a = q[0], b = q[1], c = q[2], d = q[3];
    T s = T(1) / sqrt(a * a + b * b + c * c + d * d);
    if constexpr (CANONICAL) {
        if (q[layout<L>::W] < T(0)) s = -s;
    }
    out[0] = a * s;
    out[1] = b * s;
    out[2] = c * s;
    out[3] = d * s;
}

// out = exp([φ/2]) = [sin(θ/2)/θ · φ; cos(θ/2)], θ = |φ|. Below θ = 1e-12 the coefficient is its Taylor head
// 1/2 − θ²/48 (no 0/0 at φ = 0, and the slope 1/2 is exact there).
template <typename T, QuatLayout L>
GLASS_HD void quat_exp_core(const T* phi, T* out) {
    using std::cos;
    using std::sin;
    using std::sqrt;
    using I = layout<L>;
    const T px = phi[0], py = phi[1], pz = phi[2];
    const T theta2 = px * px + py * py + pz * pz;
    const T theta = sqrt(theta2);
    T c, w;
    if (theta < T(1e-12)) {
        c = T(0.5) - theta2 / T(48);
        w = T(1) - theta2 / T(8);
    } else {
        const T h = T(0.5) * theta;
        c = sin(h) / theta;
        w = cos(h);
    }
    out[I::X] = c * px;
    out[I::Y] = c * py;
    out[I::Z] = c * pz;
    out[I::W] = w;
}

// φ = log of a unit quaternion on the canonical branch |φ| <= π. The double cover is folded by taking the
// sign of w (q and −q give the same φ); at w == 0 exactly (θ = π) the tie is broken by making the first
// nonzero vector component positive, so the fold holds there too. θ = 2·atan2(|v|, |w|) stays accurate over
// the whole range (no acos cliff); below |v| = 1e-8 the ratio θ/|v| is its series 2/|w|·(1 − |v|²/(3w²)).
// The map is invariant to the scale of q.
template <typename T, QuatLayout L>
GLASS_HD void quat_log_core(const T* q, T* phi) {
    using std::atan2;
    using std::sqrt;
    using I = layout<L>;
    const T x = q[I::X], y = q[I::Y], z = q[I::Z], w = q[I::W];
    bool flip = w < T(0);
    if (w == T(0)) flip = x != T(0) ? x < T(0) : (y != T(0) ? y < T(0) : z < T(0));
    const T aw = flip ? -w : w;
    const T s2 = x * x + y * y + z * z;
    const T s = sqrt(s2);
    T k;
    if (s < T(1e-8)) {
        const T r2 = s2 / (aw * aw);
        k = (T(2) / aw) * (T(1) - r2 / T(3));
    } else {
        k = T(2) * atan2(s, aw) / s;
    }
    if (flip) k = -k;
    phi[0] = k * x;
    phi[1] = k * y;
    phi[2] = k * z;
}

// out = R(q)·p = p + w·t + v × t with t = 2·(v × p) (the expansion of p + 2w(v×p) + 2v×(v×p)).
template <typename T, QuatLayout L>
GLASS_HD void quat_rotate_core(const T* q, const T* p, T* out) {
    using I = layout<L>;
    const T x = q[I::X], y = q[I::Y], z = q[I::Z], w = q[I::W];
    const T px = p[0], py = p[1], pz = p[2];
    const T tx = T(2) * (y * pz - z * py);
    const T ty = T(2) * (z * px - x * pz);
    const T tz = T(2) * (x * py - y * px);
    out[0] = px + w * tx + (y * tz - z * ty);
    out[1] = py + w * ty + (z * tx - x * tz);
    out[2] = pz + w * tz + (x * ty - y * tx);
}

// R = R(q) (unit q), contiguous column-major 3×3 (the scope functions restride it with copy_out_mat3).
template <typename T, QuatLayout L>
GLASS_HD void quat_to_rot_core(const T* q, T* R) {
    using I = layout<L>;
    const T x = q[I::X], y = q[I::Y], z = q[I::Z], w = q[I::W];
    const T x2 = T(2) * x, y2 = T(2) * y, z2 = T(2) * z;
    const T xx = x * x2, yy = y * y2, zz = z * z2;
    const T xy = x * y2, xz = x * z2, yz = y * z2;
    const T wx = w * x2, wy = w * y2, wz = w * z2;
    R[0] = T(1) - (yy + zz);
    R[1] = xy + wz;
    R[2] = xz - wy;
    R[3] = xy - wz;
    R[4] = T(1) - (xx + zz);
    R[5] = yz + wx;
    R[6] = xz + wy;
    R[7] = yz - wx;
    R[8] = T(1) - (xx + yy);
}

// Unit quaternion of the column-major rotation R (leading dimension LDA) by Shepperd's extraction: the
// component computed from a square root is the largest of 4w², 4x², 4y², 4z² (picked through the trace and
// the diagonal), so every division is by at least 1 and the θ = π family is as accurate as the identity.
// The result is renormalised (absorbing a slightly non-orthogonal R) and canonicalised to w >= 0.
template <typename T, QuatLayout L, uint32_t LDA = 3>
GLASS_HD void rot_to_quat_core(const T* R, T* q) {
    using std::sqrt;
    using I = layout<L>;
    const T r00 = R[0], r10 = R[1], r20 = R[2];
    const T r01 = R[LDA], r11 = R[LDA + 1], r21 = R[LDA + 2];
    const T r02 = R[2 * LDA], r12 = R[2 * LDA + 1], r22 = R[2 * LDA + 2];
    const T tr = r00 + r11 + r22;
    T x, y, z, w;
    if (tr >= r00 && tr >= r11 && tr >= r22) {
        const T s = T(2) * sqrt(T(1) + tr);  // s = 4w
        w = T(0.25) * s;
        x = (r21 - r12) / s;
        y = (r02 - r20) / s;
        z = (r10 - r01) / s;
    } else if (r00 >= r11 && r00 >= r22) {
        const T s = T(2) * sqrt(T(1) + r00 - r11 - r22);  // s = 4x
        w = (r21 - r12) / s;
        x = T(0.25) * s;
        y = (r01 + r10) / s;
        z = (r02 + r20) / s;
    } else if (r11 >= r22) {
        const T s = T(2) * sqrt(T(1) + r11 - r00 - r22);  // s = 4y
        w = (r02 - r20) / s;
        x = (r01 + r10) / s;
        y = T(0.25) * s;
        z = (r12 + r21) / s;
    } else {
        const T s = T(2) * sqrt(T(1) + r22 - r00 - r11);  // s = 4z
        w = (r10 - r01) / s;
        x = (r02 + r20) / s;
        y = (r12 + r21) / s;
        z = T(0.25) * s;
    }
    T n = T(1) / sqrt(x * x + y * y + z * z + w * w);
    if (w < T(0)) n = -n;
    q[I::X] = x * n;
    q[I::Y] = y * n;
    q[I::Z] = z * n;
    q[I::W] = w * n;
}

// q_new = normalize(q ⊗ exp([φ/2])); the renormalisation keeps repeated retracts on the unit sphere.
template <typename T, QuatLayout L>
GLASS_HD void quat_retract_core(const T* q, const T* phi, T* q_new) {
    T dq[4], p[4];
    quat_exp_core<T, L>(phi, dq);
    quat_mul_core<T, L>(q, dq, p);
    quat_normalize_core<T, L, false>(p, q_new);
}

// The three columns of R(q/|q|), stacked contiguously (9 entries: u, v, w).
template <typename T, QuatLayout L>
GLASS_HD void quat_to_basis_core(const T* q, T* uvw) {
    T n[4];
    quat_normalize_core<T, L, false>(q, n);
    quat_to_rot_core<T, L>(n, uvw);
}

// The share of rank of the stacked columns uvw written to u, v, w.
template <typename T>
GLASS_HD void copy_out_basis(uint32_t rank, uint32_t size, const T* uvw, T* u, T* v, T* w) {
    uint32_t next = rank;
    GLASS_QUAT_UNROLL
    for (uint32_t k = 0; k < 9u; ++k) {
        if (k == next) {
            T* col = k < 3u ? u : (k < 6u ? v : w);
            col[k % 3u] = uvw[k];
            next += size;
        }
    }
}

}  // namespace lie_detail

// =======================================================================================================
// Block scope
// =======================================================================================================

// out = a ⊗ b (Hamilton): R(out) = R(a)·R(b). All three share layout L. out must not alias a or b.
template <typename T, QuatLayout L = QuatLayout::xyzw, bool TRAILING_SYNC = true>
GLASS_HD void quat_mul(const T* a, const T* b, T* out) {
    T tmp[4];
    lie_detail::quat_mul_core<T, L>(a, b, tmp);
    lie_detail::copy_out<T, 4>(block_rank(), block_size(), tmp, out);
    trailing_sync<TRAILING_SYNC>();
}

// out = a* (the inverse of a unit quaternion). out must not alias a.
template <typename T, QuatLayout L = QuatLayout::xyzw, bool TRAILING_SYNC = true>
GLASS_HD void quat_conj(const T* a, T* out) {
    for (uint32_t k = block_rank(); k < 4u; k += block_size()) out[k] = k == lie_detail::layout<L>::W ? a[k] : -a[k];
    trailing_sync<TRAILING_SYNC>();
}

// out = q / |q| (q nonzero); with CANONICAL also flipped onto w >= 0. out must not alias q.
template <typename T, QuatLayout L = QuatLayout::xyzw, bool CANONICAL = false, bool TRAILING_SYNC = true>
GLASS_HD void quat_normalize(const T* q, T* out) {
    T tmp[4];
    lie_detail::quat_normalize_core<T, L, CANONICAL>(q, tmp);
    lie_detail::copy_out<T, 4>(block_rank(), block_size(), tmp, out);
    trailing_sync<TRAILING_SYNC>();
}

// out = exp([φ/2]) for the full rotation vector φ (3). out must not alias phi.
template <typename T, QuatLayout L = QuatLayout::xyzw, bool TRAILING_SYNC = true>
GLASS_HD void quat_exp(const T* phi, T* out) {
    T tmp[4];
    lie_detail::quat_exp_core<T, L>(phi, tmp);
    lie_detail::copy_out<T, 4>(block_rank(), block_size(), tmp, out);
    trailing_sync<TRAILING_SYNC>();
}

// phi = the rotation vector of the unit quaternion q, |phi| <= π, q and −q giving the same phi.
template <typename T, QuatLayout L = QuatLayout::xyzw, bool TRAILING_SYNC = true>
GLASS_HD void quat_log(const T* q, T* phi) {
    T tmp[3];
    lie_detail::quat_log_core<T, L>(q, tmp);
    lie_detail::copy_out<T, 3>(block_rank(), block_size(), tmp, phi);
    trailing_sync<TRAILING_SYNC>();
}

// out = R(q)·p for a unit q, without forming R. out must not alias q or p.
template <typename T, QuatLayout L = QuatLayout::xyzw, bool TRAILING_SYNC = true>
GLASS_HD void quat_rotate(const T* q, const T* p, T* out) {
    T tmp[3];
    lie_detail::quat_rotate_core<T, L>(q, p, tmp);
    lie_detail::copy_out<T, 3>(block_rank(), block_size(), tmp, out);
    trailing_sync<TRAILING_SYNC>();
}

// R = R(q) (column-major, leading dimension LDA; only the nine rotation entries are written, so LDA = 4
// fills the rotation block of a 4×4 transform in place).
template <typename T, QuatLayout L = QuatLayout::xyzw, uint32_t LDA = 3, bool TRAILING_SYNC = true>
GLASS_HD void quat_to_rot(const T* q, T* R) {
    T tmp[9];
    lie_detail::quat_to_rot_core<T, L>(q, tmp);
    lie_detail::copy_out_mat3<T, LDA>(block_rank(), block_size(), tmp, R);
    trailing_sync<TRAILING_SYNC>();
}

// q = the unit quaternion (w >= 0) of the column-major rotation R (leading dimension LDA), Shepperd.
template <typename T, QuatLayout L = QuatLayout::xyzw, uint32_t LDA = 3, bool TRAILING_SYNC = true>
GLASS_HD void rot_to_quat(const T* R, T* q) {
    T tmp[4];
    lie_detail::rot_to_quat_core<T, L, LDA>(R, tmp);
    lie_detail::copy_out<T, 4>(block_rank(), block_size(), tmp, q);
    trailing_sync<TRAILING_SYNC>();
}

// u, v, w = columns 0, 1, 2 of R(q/|q|) (q need not be unit). No aliasing.
template <typename T, QuatLayout L = QuatLayout::xyzw, bool TRAILING_SYNC = true>
GLASS_HD void quat_to_basis(const T* q, T* u, T* v, T* w) {
    T tmp[9];
    lie_detail::quat_to_basis_core<T, L>(q, tmp);
    lie_detail::copy_out_basis(block_rank(), block_size(), tmp, u, v, w);
    trailing_sync<TRAILING_SYNC>();
}

// q_new = normalize(q ⊗ exp([φ/2])): the SO(3) retract with a body-frame tangent step φ.
template <typename T, QuatLayout L = QuatLayout::xyzw, bool TRAILING_SYNC = true>
GLASS_HD void quat_retract(const T* q, const T* phi, T* q_new) {
    T tmp[4];
    lie_detail::quat_retract_core<T, L>(q, phi, tmp);
    lie_detail::copy_out<T, 4>(block_rank(), block_size(), tmp, q_new);
    trailing_sync<TRAILING_SYNC>();
}

// =======================================================================================================
// Warp scope: the block-scope operations spread over the lanes of one warp, ending with warp_sync().
// =======================================================================================================
namespace warp {

// Single-warp out = a ⊗ b. See glass::quat_mul.
template <typename T, QuatLayout L = QuatLayout::xyzw>
GLASS_HD void quat_mul(const T* a, const T* b, T* out) {
    T tmp[4];
    lie_detail::quat_mul_core<T, L>(a, b, tmp);
    lie_detail::copy_out<T, 4>(warp_rank(), warp_size(), tmp, out);
    warp_sync();
}

// Single-warp conjugate. See glass::quat_conj.
template <typename T, QuatLayout L = QuatLayout::xyzw>
GLASS_HD void quat_conj(const T* a, T* out) {
    for (uint32_t k = warp_rank(); k < 4u; k += warp_size()) out[k] = k == lie_detail::layout<L>::W ? a[k] : -a[k];
    warp_sync();
}

// Single-warp normalize. See glass::quat_normalize.
template <typename T, QuatLayout L = QuatLayout::xyzw, bool CANONICAL = false>
GLASS_HD void quat_normalize(const T* q, T* out) {
    T tmp[4];
    lie_detail::quat_normalize_core<T, L, CANONICAL>(q, tmp);
    lie_detail::copy_out<T, 4>(warp_rank(), warp_size(), tmp, out);
    warp_sync();
}

// Single-warp exp([φ/2]). See glass::quat_exp.
template <typename T, QuatLayout L = QuatLayout::xyzw>
GLASS_HD void quat_exp(const T* phi, T* out) {
    T tmp[4];
    lie_detail::quat_exp_core<T, L>(phi, tmp);
    lie_detail::copy_out<T, 4>(warp_rank(), warp_size(), tmp, out);
    warp_sync();
}

// Single-warp quaternion logarithm. See glass::quat_log.
template <typename T, QuatLayout L = QuatLayout::xyzw>
GLASS_HD void quat_log(const T* q, T* phi) {
    T tmp[3];
    lie_detail::quat_log_core<T, L>(q, tmp);
    lie_detail::copy_out<T, 3>(warp_rank(), warp_size(), tmp, phi);
    warp_sync();
}

// Single-warp R(q)·p. See glass::quat_rotate.
template <typename T, QuatLayout L = QuatLayout::xyzw>
GLASS_HD void quat_rotate(const T* q, const T* p, T* out) {
    T tmp[3];
    lie_detail::quat_rotate_core<T, L>(q, p, tmp);
    lie_detail::copy_out<T, 3>(warp_rank(), warp_size(), tmp, out);
    warp_sync();
}

// Single-warp quaternion → column-major 3×3 (LDA-strided). See glass::quat_to_rot.
template <typename T, QuatLayout L = QuatLayout::xyzw, uint32_t LDA = 3>
GLASS_HD void quat_to_rot(const T* q, T* R) {
    T tmp[9];
    lie_detail::quat_to_rot_core<T, L>(q, tmp);
    lie_detail::copy_out_mat3<T, LDA>(warp_rank(), warp_size(), tmp, R);
    warp_sync();
}

// Single-warp 3×3 (LDA-strided) → quaternion (Shepperd). See glass::rot_to_quat.
template <typename T, QuatLayout L = QuatLayout::xyzw, uint32_t LDA = 3>
GLASS_HD void rot_to_quat(const T* R, T* q) {
    T tmp[4];
    lie_detail::rot_to_quat_core<T, L, LDA>(R, tmp);
    lie_detail::copy_out<T, 4>(warp_rank(), warp_size(), tmp, q);
    warp_sync();
}

// Single-warp normalize + rotation columns. See glass::quat_to_basis.
template <typename T, QuatLayout L = QuatLayout::xyzw>
GLASS_HD void quat_to_basis(const T* q, T* u, T* v, T* w) {
    T tmp[9];
    lie_detail::quat_to_basis_core<T, L>(q, tmp);
    lie_detail::copy_out_basis(warp_rank(), warp_size(), tmp, u, v, w);
    warp_sync();
}

// Single-warp SO(3) quaternion retract. See glass::quat_retract.
template <typename T, QuatLayout L = QuatLayout::xyzw>
GLASS_HD void quat_retract(const T* q, const T* phi, T* q_new) {
    T tmp[4];
    lie_detail::quat_retract_core<T, L>(q, phi, tmp);
    lie_detail::copy_out<T, 4>(warp_rank(), warp_size(), tmp, q_new);
    warp_sync();
}

}  // namespace warp

// =======================================================================================================
// Thread scope: one thread computes and stores everything. The cores read their inputs before storing, so
// these may run in place (out == an input).
// =======================================================================================================
namespace thread {

// Single-thread out = a ⊗ b. See glass::quat_mul.
template <typename T, QuatLayout L = QuatLayout::xyzw>
GLASS_HD void quat_mul(const T* a, const T* b, T* out) {
    lie_detail::quat_mul_core<T, L>(a, b, out);
}

// Single-thread conjugate. See glass::quat_conj.
template <typename T, QuatLayout L = QuatLayout::xyzw>
GLASS_HD void quat_conj(const T* a, T* out) {
    lie_detail::quat_conj_core<T, L>(a, out);
}

// Single-thread normalize (optional w >= 0 canonicalization). See glass::quat_normalize.
template <typename T, QuatLayout L = QuatLayout::xyzw, bool CANONICAL = false>
GLASS_HD void quat_normalize(const T* q, T* out) {
    lie_detail::quat_normalize_core<T, L, CANONICAL>(q, out);
}

// Single-thread exp([φ/2]). See glass::quat_exp.
template <typename T, QuatLayout L = QuatLayout::xyzw>
GLASS_HD void quat_exp(const T* phi, T* out) {
    lie_detail::quat_exp_core<T, L>(phi, out);
}

// Single-thread quaternion logarithm. See glass::quat_log.
template <typename T, QuatLayout L = QuatLayout::xyzw>
GLASS_HD void quat_log(const T* q, T* phi) {
    lie_detail::quat_log_core<T, L>(q, phi);
}

// Single-thread R(q)·p. See glass::quat_rotate.
template <typename T, QuatLayout L = QuatLayout::xyzw>
GLASS_HD void quat_rotate(const T* q, const T* p, T* out) {
    lie_detail::quat_rotate_core<T, L>(q, p, out);
}

// Single-thread quaternion → column-major 3×3 (LDA-strided). See glass::quat_to_rot.
template <typename T, QuatLayout L = QuatLayout::xyzw, uint32_t LDA = 3>
GLASS_HD void quat_to_rot(const T* q, T* R) {
    T tmp[9];
    lie_detail::quat_to_rot_core<T, L>(q, tmp);
    lie_detail::copy_out_mat3<T, LDA>(0u, 1u, tmp, R);
}

// Single-thread column-major 3×3 (LDA-strided) → quaternion (Shepperd). See glass::rot_to_quat.
template <typename T, QuatLayout L = QuatLayout::xyzw, uint32_t LDA = 3>
GLASS_HD void rot_to_quat(const T* R, T* q) {
    lie_detail::rot_to_quat_core<T, L, LDA>(R, q);
}

// Single-thread normalize + rotation columns. See glass::quat_to_basis.
template <typename T, QuatLayout L = QuatLayout::xyzw>
GLASS_HD void quat_to_basis(const T* q, T* u, T* v, T* w) {
    T tmp[9];
    lie_detail::quat_to_basis_core<T, L>(q, tmp);
    lie_detail::copy_out_basis(0u, 1u, tmp, u, v, w);
}

// Single-thread SO(3) quaternion retract. See glass::quat_retract.
template <typename T, QuatLayout L = QuatLayout::xyzw>
GLASS_HD void quat_retract(const T* q, const T* phi, T* q_new) {
    lie_detail::quat_retract_core<T, L>(q, phi, q_new);
}

}  // namespace thread

}  // namespace glass
