// Dual numbers v + d·ε (ε² = 0): forward-mode differentiation of the algorithm templates along one direction.
// Instantiating a first-derivative algorithm on Dual<T> gives the derivative of its outputs along the
// direction seeded into the inputs' d parts; the second-order algorithms are built that way.
#pragma once

#include "glass/scope.cuh"

#include <cmath>
#include <type_traits>

namespace grid {

template <typename T>
struct Dual {
    T v;  // value
    T d;  // derivative along the seeded direction

    Dual() = default;
    template <typename U, typename = std::enable_if_t<std::is_arithmetic<U>::value>>
    GLASS_HD constexpr Dual(U x) : v(T(x)), d(T(0)) {}
    GLASS_HD constexpr Dual(T value, T derivative) : v(value), d(derivative) {}

    GLASS_HD Dual& operator+=(const Dual& b) {
        v += b.v;
        d += b.d;
        return *this;
    }
    GLASS_HD Dual& operator-=(const Dual& b) {
        v -= b.v;
        d -= b.d;
        return *this;
    }
    GLASS_HD Dual& operator*=(const Dual& b) {
        d = d * b.v + v * b.d;
        v *= b.v;
        return *this;
    }
};

template <typename T>
GLASS_HD Dual<T> operator+(const Dual<T>& a, const Dual<T>& b) {
    return Dual<T>(a.v + b.v, a.d + b.d);
}
template <typename T>
GLASS_HD Dual<T> operator-(const Dual<T>& a, const Dual<T>& b) {
    return Dual<T>(a.v - b.v, a.d - b.d);
}
template <typename T>
GLASS_HD Dual<T> operator-(const Dual<T>& a) {
    return Dual<T>(-a.v, -a.d);
}
template <typename T>
GLASS_HD Dual<T> operator*(const Dual<T>& a, const Dual<T>& b) {
    return Dual<T>(a.v * b.v, a.d * b.v + a.v * b.d);
}
template <typename T>
GLASS_HD Dual<T> operator/(const Dual<T>& a, const Dual<T>& b) {
    const T inv = T(1) / b.v;
    const T q = a.v * inv;
    return Dual<T>(q, (a.d - q * b.d) * inv);
}
template <typename T>
GLASS_HD bool operator<(const Dual<T>& a, const Dual<T>& b) {
    return a.v < b.v;
}
template <typename T>
GLASS_HD bool operator>(const Dual<T>& a, const Dual<T>& b) {
    return a.v > b.v;
}

template <typename T>
GLASS_HD Dual<T> sqrt(const Dual<T>& a) {
    using std::sqrt;
    const T s = sqrt(a.v);
    return Dual<T>(s, a.d / (T(2) * s));
}
template <typename T>
GLASS_HD Dual<T> sin(const Dual<T>& a) {
    using std::cos;
    using std::sin;
    return Dual<T>(sin(a.v), cos(a.v) * a.d);
}
template <typename T>
GLASS_HD Dual<T> cos(const Dual<T>& a) {
    using std::cos;
    using std::sin;
    return Dual<T>(cos(a.v), -sin(a.v) * a.d);
}

// The value part of a number (a plain float or double is its own), for branching on it.
template <typename T>
GLASS_HD T primal(T x) {
    return x;
}
template <typename T>
GLASS_HD T primal(const Dual<T>& x) {
    return x.v;
}

// The value type under T (T itself for a plain float or double).
template <typename T>
struct value_type_of {
    using type = T;
};
template <typename T>
struct value_type_of<Dual<T>> {
    using type = T;
};

}  // namespace grid
