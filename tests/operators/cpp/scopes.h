// Uniform front ends over the three scopes of the spatial operators, so one test body exercises
// glass::, glass::warp:: and glass::thread:: alike. Shared by the host test and the CUDA test.
#pragma once

#include "glass/spatial.cuh"

#include <cstdint>

namespace glass_test {

// Block scope; SYNC is forwarded as TRAILING_SYNC (false checks that the barrier-free variant still
// computes the same values when the caller syncs itself).
template <bool SYNC>
struct BlockApi {
    static constexpr const char* name = SYNC ? "block" : "block(no trailing sync)";
    static constexpr bool in_place_ok = false;

    GLASS_HD static uint32_t rank() { return glass::block_rank(); }
    GLASS_HD static uint32_t size() { return glass::block_size(); }
    GLASS_HD static void sync() { glass::block_sync(); }

    template <typename T>
    GLASS_HD static void motion_cross(const T* v, T* M) {
        glass::motion_cross<T, SYNC>(v, M);
        sync();
    }
    template <typename T, int AXIS, bool HB>
    GLASS_HD static void motion_cross_mul(T a, const T* v, const T* x, T b, T* y) {
        glass::motion_cross_mul<T, AXIS, HB, SYNC>(a, v, x, b, y);
        sync();
    }
    template <typename T>
    GLASS_HD static void force_cross(const T* v, T* M) {
        glass::force_cross<T, SYNC>(v, M);
        sync();
    }
    template <typename T, bool HB>
    GLASS_HD static void force_cross_mul(T a, const T* v, const T* f, T b, T* y) {
        glass::force_cross_mul<T, HB, SYNC>(a, v, f, b, y);
        sync();
    }
    template <typename T>
    GLASS_HD static void force_cross_dual(const T* f, T* M) {
        glass::force_cross_dual<T, SYNC>(f, M);
        sync();
    }
    template <typename T>
    GLASS_HD static void motion_transform(const T* E, const T* r, T* X) {
        glass::motion_transform<T, SYNC>(E, r, X);
        sync();
    }
    template <typename T>
    GLASS_HD static void force_transform(const T* E, const T* r, T* X) {
        glass::force_transform<T, SYNC>(E, r, X);
        sync();
    }
    template <typename T, bool INV, bool HB>
    GLASS_HD static void motion_transform_mul(T a, const T* E, const T* r, const T* v, T b, T* y) {
        glass::motion_transform_mul<T, INV, HB, SYNC>(a, E, r, v, b, y);
        sync();
    }
    template <typename T, bool INV, bool HB>
    GLASS_HD static void force_transform_mul(T a, const T* E, const T* r, const T* f, T b, T* y) {
        glass::force_transform_mul<T, INV, HB, SYNC>(a, E, r, f, b, y);
        sync();
    }
    template <typename T>
    GLASS_HD static void spatial_inertia(const T* pi, T* M) {
        glass::spatial_inertia<T, SYNC>(pi, M);
        sync();
    }
    template <typename T, bool HB>
    GLASS_HD static void spatial_inertia_mul(T a, const T* pi, const T* v, T b, T* f) {
        glass::spatial_inertia_mul<T, HB, SYNC>(a, pi, v, b, f);
        sync();
    }
    template <typename T, bool INV, bool HB>
    GLASS_HD static void spatial_inertia_transform(const T* E, const T* r, const T* pi, T* out) {
        glass::spatial_inertia_transform<T, INV, HB, SYNC>(E, r, pi, out);
        sync();
    }
};

struct WarpApi {
    static constexpr const char* name = "warp";
    static constexpr bool in_place_ok = false;

    GLASS_HD static uint32_t rank() { return glass::warp_rank(); }
    GLASS_HD static uint32_t size() { return glass::warp_size(); }
    GLASS_HD static void sync() { glass::warp_sync(); }

    template <typename T>
    GLASS_HD static void motion_cross(const T* v, T* M) {
        glass::warp::motion_cross<T>(v, M);
    }
    template <typename T, int AXIS, bool HB>
    GLASS_HD static void motion_cross_mul(T a, const T* v, const T* x, T b, T* y) {
        glass::warp::motion_cross_mul<T, AXIS, HB>(a, v, x, b, y);
    }
    template <typename T>
    GLASS_HD static void force_cross(const T* v, T* M) {
        glass::warp::force_cross<T>(v, M);
    }
    template <typename T, bool HB>
    GLASS_HD static void force_cross_mul(T a, const T* v, const T* f, T b, T* y) {
        glass::warp::force_cross_mul<T, HB>(a, v, f, b, y);
    }
    template <typename T>
    GLASS_HD static void force_cross_dual(const T* f, T* M) {
        glass::warp::force_cross_dual<T>(f, M);
    }
    template <typename T>
    GLASS_HD static void motion_transform(const T* E, const T* r, T* X) {
        glass::warp::motion_transform<T>(E, r, X);
    }
    template <typename T>
    GLASS_HD static void force_transform(const T* E, const T* r, T* X) {
        glass::warp::force_transform<T>(E, r, X);
    }
    template <typename T, bool INV, bool HB>
    GLASS_HD static void motion_transform_mul(T a, const T* E, const T* r, const T* v, T b, T* y) {
        glass::warp::motion_transform_mul<T, INV, HB>(a, E, r, v, b, y);
    }
    template <typename T, bool INV, bool HB>
    GLASS_HD static void force_transform_mul(T a, const T* E, const T* r, const T* f, T b, T* y) {
        glass::warp::force_transform_mul<T, INV, HB>(a, E, r, f, b, y);
    }
    template <typename T>
    GLASS_HD static void spatial_inertia(const T* pi, T* M) {
        glass::warp::spatial_inertia<T>(pi, M);
    }
    template <typename T, bool HB>
    GLASS_HD static void spatial_inertia_mul(T a, const T* pi, const T* v, T b, T* f) {
        glass::warp::spatial_inertia_mul<T, HB>(a, pi, v, b, f);
    }
    template <typename T, bool INV, bool HB>
    GLASS_HD static void spatial_inertia_transform(const T* E, const T* r, const T* pi, T* out) {
        glass::warp::spatial_inertia_transform<T, INV, HB>(E, r, pi, out);
    }
};

struct ThreadApi {
    static constexpr const char* name = "thread";
    static constexpr bool in_place_ok = true;

    GLASS_HD static uint32_t rank() { return 0; }
    GLASS_HD static uint32_t size() { return 1; }
    GLASS_HD static void sync() {}

    template <typename T>
    GLASS_HD static void motion_cross(const T* v, T* M) {
        glass::thread::motion_cross<T>(v, M);
    }
    template <typename T, int AXIS, bool HB>
    GLASS_HD static void motion_cross_mul(T a, const T* v, const T* x, T b, T* y) {
        glass::thread::motion_cross_mul<T, AXIS, HB>(a, v, x, b, y);
    }
    template <typename T>
    GLASS_HD static void force_cross(const T* v, T* M) {
        glass::thread::force_cross<T>(v, M);
    }
    template <typename T, bool HB>
    GLASS_HD static void force_cross_mul(T a, const T* v, const T* f, T b, T* y) {
        glass::thread::force_cross_mul<T, HB>(a, v, f, b, y);
    }
    template <typename T>
    GLASS_HD static void force_cross_dual(const T* f, T* M) {
        glass::thread::force_cross_dual<T>(f, M);
    }
    template <typename T>
    GLASS_HD static void motion_transform(const T* E, const T* r, T* X) {
        glass::thread::motion_transform<T>(E, r, X);
    }
    template <typename T>
    GLASS_HD static void force_transform(const T* E, const T* r, T* X) {
        glass::thread::force_transform<T>(E, r, X);
    }
    template <typename T, bool INV, bool HB>
    GLASS_HD static void motion_transform_mul(T a, const T* E, const T* r, const T* v, T b, T* y) {
        glass::thread::motion_transform_mul<T, INV, HB>(a, E, r, v, b, y);
    }
    template <typename T, bool INV, bool HB>
    GLASS_HD static void force_transform_mul(T a, const T* E, const T* r, const T* f, T b, T* y) {
        glass::thread::force_transform_mul<T, INV, HB>(a, E, r, f, b, y);
    }
    template <typename T>
    GLASS_HD static void spatial_inertia(const T* pi, T* M) {
        glass::thread::spatial_inertia<T>(pi, M);
    }
    template <typename T, bool HB>
    GLASS_HD static void spatial_inertia_mul(T a, const T* pi, const T* v, T b, T* f) {
        glass::thread::spatial_inertia_mul<T, HB>(a, pi, v, b, f);
    }
    template <typename T, bool INV, bool HB>
    GLASS_HD static void spatial_inertia_transform(const T* E, const T* r, const T* pi, T* out) {
        glass::thread::spatial_inertia_transform<T, INV, HB>(E, r, pi, out);
    }
};

}  // namespace glass_test
