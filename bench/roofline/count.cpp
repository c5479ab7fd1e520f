// Operation counter for a generated robot header: runs every entry point's host path for one sample with a
// counting scalar type in place of T and prints, per algorithm, the floating-point operations it executed.
//
// Built by bench/roofline/count.py, which generates the per-robot call table (GRID_CALLS) from the robot's
// metadata.json:
//   c++ -std=c++17 -O1 -ffp-contract=off -fno-strict-aliasing -Ikernels -DGRID_HEADER='"<dir>/grid.cuh"'
//       -DGRID_CALLS='"<calls.inc>"' bench/roofline/count.cpp
//
// What is counted is the arithmetic the source asks for, at block size 1 (every block-stride loop run
// serially, as the host build runs it), for the inputs of the call table. Values do not change the count
// except where the kernels branch on them (joint kinds are constants; the value branches are the failure
// paths of the small SPD solves and the series/normalisation branches of the Lie operators); each
// algorithm is run on several samples and "varies" reports whether the counts differed.
//
// Checks, per algorithm: the counting run's outputs equal, bit for bit, those of the plain float/double
// host run on the same inputs (same code path, same rounding), so the count describes the code that
// produced the real results.

#include "grid/launch.cuh"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace flopcount {

// Per-category tallies; one process counts one call at a time.
struct Counters {
    uint64_t add = 0;             // additions and subtractions, compound forms included
    uint64_t mul = 0;             // multiplications
    uint64_t fma = 0;             // fused multiply-adds called explicitly (fma)
    uint64_t div = 0;             // divisions
    uint64_t sqrt = 0;            // square roots
    uint64_t transcendental = 0;  // sin, cos, exp, log, atan2, ...
    uint64_t compare = 0;         // comparisons, fmin/fmax: not floating-point work by the usual convention
    uint64_t neg = 0;             // unary minus: a sign flip, folded into operands on the GPU
    uint64_t other = 0;           // fabs, copysign, rounding: bit operations, not flops
    uint64_t trivial_add = 0;     // adds with an exact zero operand (x + 0): work a compiler could drop
    uint64_t trivial_mul = 0;     // muls by an exact 0 or ±1 (structural zeros and ones of the tables)
};

inline Counters counters;

// A float or double that counts what is done with it. Standard layout with a single R member, so an
// array of R can be read as an array of Num<R> (used for the robot's constant tables, see pick below).
template <typename R>
struct Num {
    static_assert(std::is_floating_point<R>::value, "Num wraps float or double");
    R v;

    Num() = default;
    // Implicit from any arithmetic type, as T(0), T x = 1 and mixed expressions such as 2 * x need.
    template <typename A, typename = std::enable_if_t<std::is_arithmetic<A>::value>>
    constexpr Num(A a) : v(static_cast<R>(a)) {}
    // Explicit only: an implicit conversion back would make every mixed expression ambiguous.
    template <typename A, typename = std::enable_if_t<std::is_arithmetic<A>::value>>
    constexpr explicit operator A() const { return static_cast<A>(v); }

    static Num make(R x) {
        Num n;
        n.v = x;
        return n;
    }

    static void count_add(R a, R b) {
        ++counters.add;
        if (a == R(0) || b == R(0)) ++counters.trivial_add;
    }
    static bool unit_or_zero(R a) { return a == R(0) || a == R(1) || a == R(-1); }
    static void count_mul(R a, R b) {
        ++counters.mul;
        if (unit_or_zero(a) || unit_or_zero(b)) ++counters.trivial_mul;
    }

    // Hidden friends: found by argument-dependent lookup only, and (being non-templates) they accept the
    // implicit conversion of the other, arithmetic, operand.
    friend Num operator+(Num a, Num b) { count_add(a.v, b.v); return make(a.v + b.v); }
    friend Num operator-(Num a, Num b) { count_add(a.v, b.v); return make(a.v - b.v); }
    friend Num operator*(Num a, Num b) { count_mul(a.v, b.v); return make(a.v * b.v); }
    friend Num operator/(Num a, Num b) { ++counters.div; return make(a.v / b.v); }
    friend Num operator-(Num a) { ++counters.neg; return make(-a.v); }
    friend Num operator+(Num a) { return a; }

    Num& operator+=(Num b) { count_add(v, b.v); v += b.v; return *this; }
    Num& operator-=(Num b) { count_add(v, b.v); v -= b.v; return *this; }
    Num& operator*=(Num b) { count_mul(v, b.v); v *= b.v; return *this; }
    Num& operator/=(Num b) { ++counters.div; v /= b.v; return *this; }

    friend bool operator<(Num a, Num b) { ++counters.compare; return a.v < b.v; }
    friend bool operator<=(Num a, Num b) { ++counters.compare; return a.v <= b.v; }
    friend bool operator>(Num a, Num b) { ++counters.compare; return a.v > b.v; }
    friend bool operator>=(Num a, Num b) { ++counters.compare; return a.v >= b.v; }
    friend bool operator==(Num a, Num b) { ++counters.compare; return a.v == b.v; }
    friend bool operator!=(Num a, Num b) { ++counters.compare; return a.v != b.v; }

    // Math functions, found by ADL from the headers' `using std::f; f(x)` form.
    friend Num sqrt(Num a) { ++counters.sqrt; return make(std::sqrt(a.v)); }
    friend Num cbrt(Num a) { ++counters.transcendental; return make(std::cbrt(a.v)); }
    friend Num sin(Num a) { ++counters.transcendental; return make(std::sin(a.v)); }
    friend Num cos(Num a) { ++counters.transcendental; return make(std::cos(a.v)); }
    friend Num tan(Num a) { ++counters.transcendental; return make(std::tan(a.v)); }
    friend Num asin(Num a) { ++counters.transcendental; return make(std::asin(a.v)); }
    friend Num acos(Num a) { ++counters.transcendental; return make(std::acos(a.v)); }
    friend Num atan(Num a) { ++counters.transcendental; return make(std::atan(a.v)); }
    friend Num atan2(Num a, Num b) { ++counters.transcendental; return make(std::atan2(a.v, b.v)); }
    friend Num sinh(Num a) { ++counters.transcendental; return make(std::sinh(a.v)); }
    friend Num cosh(Num a) { ++counters.transcendental; return make(std::cosh(a.v)); }
    friend Num tanh(Num a) { ++counters.transcendental; return make(std::tanh(a.v)); }
    friend Num exp(Num a) { ++counters.transcendental; return make(std::exp(a.v)); }
    friend Num expm1(Num a) { ++counters.transcendental; return make(std::expm1(a.v)); }
    friend Num log(Num a) { ++counters.transcendental; return make(std::log(a.v)); }
    friend Num log1p(Num a) { ++counters.transcendental; return make(std::log1p(a.v)); }
    friend Num pow(Num a, Num b) { ++counters.transcendental; return make(std::pow(a.v, b.v)); }
    friend Num hypot(Num a, Num b) { ++counters.transcendental; return make(std::hypot(a.v, b.v)); }
    friend Num fma(Num a, Num b, Num c) { ++counters.fma; return make(std::fma(a.v, b.v, c.v)); }
    friend Num fmax(Num a, Num b) { ++counters.compare; return make(std::fmax(a.v, b.v)); }
    friend Num fmin(Num a, Num b) { ++counters.compare; return make(std::fmin(a.v, b.v)); }
    friend Num fabs(Num a) { ++counters.other; return make(std::fabs(a.v)); }
    friend Num abs(Num a) { ++counters.other; return make(std::fabs(a.v)); }
    friend Num copysign(Num a, Num b) { ++counters.other; return make(std::copysign(a.v, b.v)); }
    friend Num floor(Num a) { ++counters.other; return make(std::floor(a.v)); }
    friend Num ceil(Num a) { ++counters.other; return make(std::ceil(a.v)); }
    friend Num round(Num a) { ++counters.other; return make(std::round(a.v)); }
    friend Num remainder(Num a, Num b) { ++counters.transcendental; return make(std::remainder(a.v, b.v)); }
    friend bool isnan(Num a) { return std::isnan(a.v); }
    friend bool isfinite(Num a) { return std::isfinite(a.v); }
};

static_assert(std::is_standard_layout<Num<double>>::value && sizeof(Num<double>) == sizeof(double), "layout");
static_assert(std::is_standard_layout<Num<float>>::value && sizeof(Num<float>) == sizeof(float), "layout");
static_assert(std::is_trivially_copyable<Num<double>>::value, "trivially copyable");

}  // namespace flopcount

namespace grid {

// The generated headers read their real-valued constant tables through pick<T>, which knows only float
// and double. The counting types read the copy of their underlying type: Num<R> is a standard-layout
// wrapper of one R, so the R array is read in place (this file is built with -fno-strict-aliasing so the
// compiler makes no type-based assumption about these reads). Loads of table entries are not operations
// and are not counted.
template <>
inline const flopcount::Num<double>* pick<flopcount::Num<double>>(const float*, const double* d) {
    return reinterpret_cast<const flopcount::Num<double>*>(d);
}
template <>
inline const flopcount::Num<float>* pick<flopcount::Num<float>>(const float* f, const double*) {
    return reinterpret_cast<const flopcount::Num<float>*>(f);
}

}  // namespace grid

#include GRID_HEADER

// Second-order derivatives run in double for float outputs (grid/algorithms/second_order.cuh): the counted
// float run does the same, so that its outputs match the plain run's.
template <>
struct grid::algorithms::SecondOrderPrecision<flopcount::Num<float>> {
    using W = flopcount::Num<double>;
    struct Out {
        flopcount::Num<float>* p;
        void store(size_t k, const W& v) const { p[k] = flopcount::Num<float>::make(float(v.v)); }
    };
    static Out output(flopcount::Num<float>* p) { return Out{p}; }
    static W input(const flopcount::Num<float>& x) { return W::make(double(x.v)); }
};

// The call table (generated per robot from metadata.json) defines:
//   kNumAlgorithms, kNumSamples
//   kAlgorithms[a]: name, number of inputs and outputs, their element counts and input sources
//   kInputData[s][src]: sample s's values of each input source (q, qd, qdd, tau), as double
//   template <typename T> grid::Status call_algorithm(int a, T** out, const T** in, int frame)
//   kFrame: the frame index passed to algorithms that take one
#include GRID_CALLS

namespace {

using flopcount::Counters;
using flopcount::Num;

template <typename T>
struct Run {
    std::vector<std::vector<T>> in, out;
    Counters counts;
    bool ok = false;
};

template <typename T>
Run<T> run_one(int a, int s) {
    const AlgorithmSpec& spec = kAlgorithms[a];
    Run<T> r;
    r.in.resize(spec.num_inputs);
    r.out.resize(spec.num_outputs);
    std::vector<const T*> in_ptrs(spec.num_inputs);
    std::vector<T*> out_ptrs(spec.num_outputs);
    for (int i = 0; i < spec.num_inputs; ++i) {
        const double* src = kInputData[s][spec.input_source[i]];
        r.in[i].resize(spec.input_size[i]);
        for (int k = 0; k < spec.input_size[i]; ++k) r.in[i][k] = T(src[k]);
        in_ptrs[i] = r.in[i].data();
    }
    for (int i = 0; i < spec.num_outputs; ++i) {
        // poisoned, so an output the kernel never writes shows up in the comparison
        r.out[i].assign(spec.output_size[i], T(std::nan("")));
        out_ptrs[i] = r.out[i].data();
    }
    flopcount::counters = Counters{};
    const grid::Status st = call_algorithm<T>(a, out_ptrs.data(), in_ptrs.data(), kFrame);
    r.counts = flopcount::counters;
    r.ok = st.is_ok();
    return r;
}

// Bit-for-bit equality of the counted run's outputs with the plain run's.
template <typename R>
bool same_outputs(const Run<R>& plain, const Run<Num<R>>& counted) {
    for (size_t i = 0; i < plain.out.size(); ++i)
        for (size_t k = 0; k < plain.out[i].size(); ++k)
            if (std::memcmp(&plain.out[i][k], &counted.out[i][k].v, sizeof(R)) != 0) return false;
    return true;
}

// Equal floating-point work; comparisons and the trivial-operand tallies may follow the values freely.
bool same_work(const Counters& x, const Counters& y) {
    return x.add == y.add && x.mul == y.mul && x.fma == y.fma && x.div == y.div && x.sqrt == y.sqrt &&
           x.transcendental == y.transcendental;
}

void print_counts(const Counters& c) {
    std::printf(
        "{\"adds\": %llu, \"muls\": %llu, \"fmas\": %llu, \"divs\": %llu, \"sqrts\": %llu, "
        "\"transcendentals\": %llu, \"compares\": %llu, \"negs\": %llu, \"other\": %llu, "
        "\"trivial_adds\": %llu, \"trivial_muls\": %llu}",
        (unsigned long long)c.add, (unsigned long long)c.mul, (unsigned long long)c.fma, (unsigned long long)c.div,
        (unsigned long long)c.sqrt, (unsigned long long)c.transcendental, (unsigned long long)c.compare,
        (unsigned long long)c.neg, (unsigned long long)c.other, (unsigned long long)c.trivial_add,
        (unsigned long long)c.trivial_mul);
}

// Counts of one precision: sample 0's counts, whether any sample's floating-point work differed, and whether every counted run
// reproduced the plain run's outputs exactly.
template <typename R>
bool report_precision(int a, const char* key) {
    Counters first{};
    bool varies = false, match = true, ok = true;
    for (int s = 0; s < kNumSamples; ++s) {
        const Run<R> plain = run_one<R>(a, s);
        const Run<Num<R>> counted = run_one<Num<R>>(a, s);
        ok = ok && plain.ok && counted.ok;
        match = match && same_outputs(plain, counted);
        if (s == 0) first = counted.counts;
        else if (!same_work(first, counted.counts)) varies = true;
    }
    std::printf("\"%s\": {\"counts\": ", key);
    print_counts(first);
    std::printf(", \"varies\": %s, \"outputs_match\": %s, \"status_ok\": %s}", varies ? "true" : "false",
                match ? "true" : "false", ok ? "true" : "false");
    return match && ok;
}

}  // namespace

int main() {
    bool all_ok = true;
    std::printf("{\"frame\": %d, \"samples\": %d, \"algorithms\": {\n", kFrame, kNumSamples);
    for (int a = 0; a < kNumAlgorithms; ++a) {
        std::printf("  \"%s\": {", kAlgorithms[a].name);
        all_ok = report_precision<double>(a, "f64") && all_ok;
        std::printf(", ");
        all_ok = report_precision<float>(a, "f32") && all_ok;
        std::printf("}%s\n", a + 1 < kNumAlgorithms ? "," : "");
    }
    std::printf("}}\n");
    return all_ok ? 0 : 1;
}
