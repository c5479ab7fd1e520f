// Quaternions of the operator library (thread scope for now): Hamilton convention, xyzw storage.
#pragma once

#include "glass/scope.cuh"

#include <cmath>

namespace glass {
namespace thread {

// Unit quaternion (x, y, z, w) of a column-major rotation matrix R by Shepperd's largest-pivot extraction,
// which never divides by a small number; canonicalised to w >= 0 and normalised.
template <typename T>
GLASS_HD void rot_to_quat(const T* R, T* q) {
    using std::sqrt;
    const T r00 = R[0], r10 = R[1], r20 = R[2], r01 = R[3], r11 = R[4], r21 = R[5], r02 = R[6], r12 = R[7],
            r22 = R[8];
    const T tr = r00 + r11 + r22;
    T x, y, z, w;
    if (tr >= r00 && tr >= r11 && tr >= r22) {
        const T s = T(2) * sqrt(T(1) + tr);
        w = T(0.25) * s; x = (r21 - r12) / s; y = (r02 - r20) / s; z = (r10 - r01) / s;
    } else if (r00 >= r11 && r00 >= r22) {
        const T s = T(2) * sqrt(T(1) + r00 - r11 - r22);
        w = (r21 - r12) / s; x = T(0.25) * s; y = (r01 + r10) / s; z = (r02 + r20) / s;
    } else if (r11 >= r22) {
        const T s = T(2) * sqrt(T(1) + r11 - r00 - r22);
        w = (r02 - r20) / s; x = (r01 + r10) / s; y = T(0.25) * s; z = (r12 + r21) / s;
    } else {
        const T s = T(2) * sqrt(T(1) + r22 - r00 - r11);
        w = (r10 - r01) / s; x = (r02 + r20) / s; y = (r12 + r21) / s; z = T(0.25) * s;
    }
    T n = sqrt(x * x + y * y + z * z + w * w);
    if (w < T(0)) n = -n;
    q[0] = x / n; q[1] = y / n; q[2] = z / n; q[3] = w / n;
}

}  // namespace thread
}  // namespace glass
