// The harness's C interface, loaded by tests/operators/harness.py.
#include "harness.h"

#include <cstring>

namespace glass_harness {

std::vector<Entry>& registry() {
    static std::vector<Entry> entries;
    return entries;
}

}  // namespace glass_harness

extern "C" {

int glass_op_count() { return int(glass_harness::registry().size()); }

const char* glass_op_name(int i) {
    const auto& r = glass_harness::registry();
    return i >= 0 && i < int(r.size()) ? r[std::size_t(i)].name : nullptr;
}

// Runs the named call: 0 on success, 1 for an unknown name, 2 when the sizes do not fit the operator.
int glass_op_run(const char* name, const double* in, int n_in, double* out, int n_out) {
    for (const auto& e : glass_harness::registry()) {
        if (std::strcmp(e.name, name) == 0) {
            for (int i = 0; i < n_out; ++i) out[i] = NAN;
            return e.fn(in, n_in, out, n_out) ? 0 : 2;
        }
    }
    return 1;
}

}  // extern "C"
