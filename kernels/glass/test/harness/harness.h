// The operator harness: named calls of the operator library with double-precision inputs and outputs,
// compiled with the host compiler into one shared library that tests/operators loads (ctypes) to compare
// every operator with NumPy, SciPy, Pinocchio and central differences.
//
// Each ops_<family>.cpp registers its calls with GLASS_HARNESS_OP. A call's name is
// "<function>[<template arguments>]/<scope>/<precision>", e.g. "quat_mul[xyzw]/thread/double"; the function
// part must be the operator's name in the spec (tests/operators/test_contract.py checks coverage by it).
// On the host a block- or warp-scope call runs as one thread walking every stride loop, with no-op barriers:
// the same code the GPU runs.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace glass_harness {

// A call: reads n_in doubles, writes n_out doubles (pre-filled with NaN); returns false when the sizes do
// not fit the operator (the caller then reports a usage error, not a wrong result).
using Fn = bool (*)(const double* in, int n_in, double* out, int n_out);

struct Entry {
    const char* name;
    Fn fn;
};

std::vector<Entry>& registry();

struct Registrar {
    Registrar(const char* name, Fn fn) { registry().push_back({name, fn}); }
};

// The inputs converted to T (float calls see exactly the rounded inputs the test rounds too).
template <typename T>
std::vector<T> cast_in(const double* in, int n) {
    return std::vector<T>(in, in + n);
}

// Copies n values of T to the double outputs.
template <typename T>
void cast_out(const T* v, int n, double* out) {
    for (int i = 0; i < n; ++i) out[i] = double(v[i]);
}

// An output buffer of T poisoned with NaN, so that an entry the operator fails to write shows.
template <typename T>
std::vector<T> poisoned(int n) {
    return std::vector<T>(std::size_t(n), T(NAN));
}

// The usual call body: checks the sizes (NI inputs, NO outputs), runs f(inputs as T, poisoned outputs as T)
// and copies the outputs back.
template <typename T, int NI, int NO, typename F>
bool run_io(const double* in, int n_in, double* out, int n_out, F f) {
    if (n_in != NI || n_out != NO) return false;
    auto a = cast_in<T>(in, NI);
    auto o = poisoned<T>(NO);
    f(a.data(), o.data());
    cast_out(o.data(), NO, out);
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
