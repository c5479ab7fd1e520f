package equiv

import (
	"fmt"
	"strings"

	"github.com/grid-rbd/grid-rbd/codegen/emit"
)

// Shapes are the launch shapes (threads per sample x samples per block) the CUDA check runs every kernel
// at, besides the one baked for the batch size: one sample per block from a single thread to the hardware
// maximum, warp-aligned and ragged; a sample per thread; sub-warp, warp and multi-warp groups sharing a
// block; the limb kernels' shape (-1x1, LIMBS_LAUNCH_SHAPE) for the entry points that have one. Shapes over a
// kernel's MAX_THREADS are skipped and counted.
var Shapes = [][2]int{
	{1, 1}, {32, 1}, {33, 1}, {57, 1}, {96, 1}, {128, 1}, {256, 1}, {1024, 1},
	{1, 32}, {1, 64}, {1, 128}, {2, 16}, {2, 64}, {4, 8}, {4, 32}, {8, 16}, {16, 4}, {16, 8}, {32, 4}, {64, 2},
	{96, 3}, {emit.LimbsShape.ThreadsPerSample, emit.LimbsShape.SamplesPerBlock},
}

// CUDADriver returns the source of a CUDA program (driver.cu) that, for every entry point, launch shape and
// precision, poisons the outputs with NaN, launches the batched kernel on the inputs of inputs.bin and
// compares with expected.bin. It prints one line per (precision, shape, entry point) and a summary,
// and exits non-zero when any error exceeds its tolerance: Float64Tolerance relative in double (1e-10 but
// for the entries whose reference is central differences, and the integrator); 1e-4 in float, times cond(M)
// for entry points conditioned by M.
func CUDADriver(m *emit.Metadata) string {
	var b strings.Builder
	b.WriteString(driverPrologue)
	b.WriteString("template <typename T, int TIER>\nstatic void run_all(Data& d, grid::LaunchShape shape, Report& rep) {\n")
	b.WriteString("    const int n = d.n;\n    size_t ip = 0, ep = 0;\n    (void)ip;\n")
	b.WriteString("    const Vec3<T> gravity{T(d.g[0]), T(d.g[1]), T(d.g[2])};\n    (void)gravity;\n")
	for _, a := range m.Algorithms {
		fmt.Fprintf(&b, "    {  // %s\n", a.Name)
		var args []string
		for _, o := range a.Outputs {
			fmt.Fprintf(&b, "        DeviceArray<T> %s(size_t(n) * %d);\n", o.Name, o.Size())
			args = append(args, o.Name+".ptr")
		}
		for _, in := range a.Inputs {
			fmt.Fprintf(&b, "        DeviceArray<T> %s(d.inputs.data() + ip, size_t(n) * %d);\n", in.Name, in.Size())
			fmt.Fprintf(&b, "        ip += size_t(n) * %d;\n", in.Size())
			args = append(args, in.Name+".ptr")
		}
		frames := SelectorInitializer(a, len(m.Frames))
		if Selected(a) {
			args = append(args, "f")
		}
		if a.Gravity {
			args = append(args, "gravity")
		}
		args = append(args, "n", "0", "shape", "ws.ptr")
		upper := strings.ToUpper(a.Name)
		fmt.Fprintf(&b, "        double worst = 0;\n")
		// the shape the launch resolves (the baked one for the batch), and at a tier other than TIER_SHARED
		// only sample groups: one thread per sample runs the same kernel at every tier
		fmt.Fprintf(&b, "        const grid::LaunchShape run = shape.threads_per_sample == 0 ? grid::%s_LAUNCH_SHAPE<T>(n) : shape;\n", upper)
		// the limb kernel runs at the shape of its own, where the entry point has one, at no tier
		fmt.Fprintf(&b, "        const bool fits = grid::is_limbs_shape(run) ? %v && TIER == grid::TIER_SHARED :\n"+
			"            (TIER == grid::TIER_SHARED || run.threads_per_sample > 1) &&\n"+
			"            (shape.threads_per_sample == 0 || (grid::valid_launch_shape(shape, grid::tier_max_threads(TIER, grid::%s_MAX_THREADS<T>())) &&\n"+
			"            grid::%s_LAUNCH_SMEM_BYTES<T, TIER>(grid::LaunchShape{shape.threads_per_sample, std::min(shape.samples_per_block, n)}) <= max_smem()));\n",
			a.Limbs, upper, upper)
		fmt.Fprintf(&b, "        DeviceArray<T> ws(run.threads_per_sample > 1 ? grid::%s_LAUNCH_WORKSPACE_BYTES<T, TIER>(n, run) / sizeof(T) : 0);\n", upper)
		// a build of some entry points (tests/gpu/nvcc_split.sh ENTRIES) defines GRID_ENTRY_SKIPPED_<NAME> for the others
		fmt.Fprintf(&b, "#if defined(GRID_ENTRY_SKIPPED_%s)\n        const bool built = false;\n        rep.not_built(%q);\n#else\n        const bool built = true;\n#endif\n", upper, a.Name)
		fmt.Fprintf(&b, "        if (built && !fits) rep.skipped++;\n")
		fmt.Fprintf(&b, "        const bool selected = built && fits && rep.selected(%q);\n", a.Name)
		fmt.Fprintf(&b, "        for ([[maybe_unused]] int f : %s) {\n", frames)
		b.WriteString("            if (selected) {\n")
		for _, o := range a.Outputs {
			fmt.Fprintf(&b, "                %s.poison();\n", o.Name)
		}
		fmt.Fprintf(&b, "#if !defined(GRID_ENTRY_SKIPPED_%s)\n", upper)
		fmt.Fprintf(&b, "                check(grid::%s_launch<T, TIER>(%s), %q);\n", a.Name, strings.Join(args, ", "), a.Name)
		b.WriteString("#endif\n")
		b.WriteString("                check(cudaDeviceSynchronize(), \"synchronize\");\n")
		b.WriteString("            }\n")
		for _, o := range a.Outputs {
			fmt.Fprintf(&b, "            if (selected) worst = std::max(worst, rel_err(%s.download(), d.expected.data() + ep, %v));\n",
				o.Name, o.Name == "quat")
			fmt.Fprintf(&b, "            ep += size_t(n) * %d;\n", o.Size())
		}
		b.WriteString("        }\n")

		tol64 := Float64Tolerance(a.Name)
		fmt.Fprintf(&b, "        if (selected) rep.add(%q, sizeof(T) == 8, shape, TIER, worst, %v, %g);\n", a.Name, ConditionedByM[a.Name], tol64)
		b.WriteString("    }\n")
	}
	b.WriteString("    if (ep != d.expected.size()) { fprintf(stderr, \"expected.bin size mismatch\\n\"); exit(2); }\n}\n")
	b.WriteString(driverEpilogue)
	return b.String()
}

const driverPrologue = `// Equivalence check of a robot's batched kernels against the float64 reference; generated, do not edit.
#include "grid.cuh"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using grid::Vec3;

static void check(cudaError_t err, const char* what) {
    if (err != cudaSuccess) {
        fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(err));
        exit(3);
    }
}

static std::vector<double> read_doubles(const std::string& path, size_t skip_bytes) {
    FILE* f = fopen(path.c_str(), "rb");
    if (!f) { fprintf(stderr, "cannot open %s\n", path.c_str()); exit(2); }
    fseek(f, 0, SEEK_END);
    const long size = ftell(f);
    fseek(f, long(skip_bytes), SEEK_SET);
    std::vector<double> v((size_t(size) - skip_bytes) / sizeof(double));
    if (fread(v.data(), sizeof(double), v.size(), f) != v.size()) { fprintf(stderr, "short read %s\n", path.c_str()); exit(2); }
    fclose(f);
    return v;
}

// The most dynamic shared memory a block may opt in to on this device.
static size_t max_smem() {
    static const size_t bytes = [] {
        int device = 0, value = 0;
        check(cudaGetDevice(&device), "cudaGetDevice");
        check(cudaDeviceGetAttribute(&value, cudaDevAttrMaxSharedMemoryPerBlockOptin, device), "attribute");
        return size_t(value);
    }();
    return bytes;
}

struct Data {
    int n = 0;
    double g[3] = {0, 0, 0};
    double cond = 1;
    std::vector<double> inputs, expected;
};

// A device array of T, filled from doubles or poisoned with NaN (all bits set is a NaN in float and double).
template <typename T>
struct DeviceArray {
    T* ptr = nullptr;
    size_t n = 0;
    explicit DeviceArray(size_t count) : n(count) { check(cudaMalloc(&ptr, std::max<size_t>(n, 1) * sizeof(T)), "cudaMalloc"); }
    DeviceArray(const double* values, size_t count) : DeviceArray(count) {
        std::vector<T> host(values, values + count);
        check(cudaMemcpy(ptr, host.data(), n * sizeof(T), cudaMemcpyHostToDevice), "upload");
    }
    ~DeviceArray() { cudaFree(ptr); }
    void poison() { check(cudaMemset(ptr, 0xFF, n * sizeof(T)), "poison"); }
    std::vector<double> download() const {
        std::vector<T> host(n);
        check(cudaMemcpy(host.data(), ptr, n * sizeof(T), cudaMemcpyDeviceToHost), "download");
        return std::vector<double>(host.begin(), host.end());
    }
};

// max|got - want| / max|want|, infinite when got has a NaN or Inf; quaternions compare up to sign.
static double rel_err(std::vector<double> got, const double* want, bool quat) {
    if (quat) {
        for (size_t i = 0; i + 3 < got.size(); i += 4) {
            double dot = 0;
            for (int k = 0; k < 4; ++k) dot += got[i + k] * want[i + k];
            if (dot < 0) for (int k = 0; k < 4; ++k) got[i + k] = -got[i + k];
        }
    }
    double d = 0, scale = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        if (!std::isfinite(got[i])) return INFINITY;
        d = std::max(d, std::fabs(got[i] - want[i]));
        scale = std::max(scale, std::fabs(want[i]));
    }
    return scale > 0 ? d / scale : d;
}

struct Report {
    double cond = 1;
    int failures = 0;
    int skipped = 0;  // (shape, entry point) pairs over the kernel's MAX_THREADS or the shared memory
    std::vector<std::string> lines;
    std::vector<std::string> only;  // entry points to run; empty: all
    std::vector<std::string> unbuilt;  // entry points this build left out
    void not_built(const char* algo) {
        if (std::find(unbuilt.begin(), unbuilt.end(), std::string(algo)) == unbuilt.end()) unbuilt.push_back(algo);
    }
    bool selected(const char* algo) const {
        return only.empty() || std::find(only.begin(), only.end(), std::string(algo)) != only.end();
    }
    // shape names the launch shape, with "@lite" or "@minimal" at those resource tiers
    void add(const char* algo, bool dbl, grid::LaunchShape shape, int tier, double err, bool by_cond, double tol_double) {
        const double tol = dbl ? tol_double : (by_cond ? 1e-4 * cond : 1e-4);
        const bool ok = err <= tol;
        failures += ok ? 0 : 1;
        char name[48], line[256];
        const char* at = tier == grid::TIER_LITE ? "@lite" : tier == grid::TIER_MINIMAL ? "@minimal" : "";
        if (shape.threads_per_sample == 0) snprintf(name, sizeof name, "baked%s", at);
        else snprintf(name, sizeof name, "%dx%d%s", shape.threads_per_sample, shape.samples_per_block, at);
        snprintf(line, sizeof line, "%-6s %-14s %-26s %10.3g  %10.3g  %s", dbl ? "double" : "float", name, algo, err,
                 tol, ok ? "ok" : "FAIL");
        lines.push_back(line);
    }
};

`

const driverEpilogue = `
int main(int argc, char** argv) {
    if (argc != 2) { fprintf(stderr, "usage: driver DATA_DIR\n"); return 1; }
    const std::string dir = argv[1];
    Data d;
    {
        FILE* f = fopen((dir + "/inputs.bin").c_str(), "rb");
        if (!f) { fprintf(stderr, "cannot open inputs.bin\n"); return 2; }
        if (fread(&d.n, sizeof(int), 1, f) != 1 || fread(d.g, sizeof(double), 3, f) != 3 ||
            fread(&d.cond, sizeof(double), 1, f) != 1) { fprintf(stderr, "bad inputs.bin\n"); return 2; }
        fclose(f);
    }
    d.inputs = read_doubles(dir + "/inputs.bin", sizeof(int) + 4 * sizeof(double));
    d.expected = read_doubles(dir + "/expected.bin", 0);
    Report rep;
    rep.cond = d.cond;
    // GRID_CHECK_ALGORITHMS="idsva_so,fdsva_so" runs only those entry points (sanitizer runs are slow).
    if (const char* env = getenv("GRID_CHECK_ALGORITHMS")) {
        std::string list = env;
        for (size_t start = 0; start <= list.size();) {
            const size_t end = std::min(list.find(',', start), list.size());
            if (end > start) rep.only.push_back(list.substr(start, end - start));
            start = end + 1;
        }
    }
    // GRID_CHECK_SHAPES="33x1,1x64" narrows the launch shapes (sanitizer runs are slow); "baked" is the
    // shape each kernel is baked with for the batch.
    std::vector<grid::LaunchShape> shapes = {grid::BAKED_LAUNCH_SHAPE, LAUNCH_SHAPES};
    if (const char* env = getenv("GRID_CHECK_SHAPES")) {
        shapes.clear();
        for (const char* p = env; *p;) {
            int g = 0, s = 0, used = 0;
            if (strncmp(p, "baked", 5) == 0) {
                shapes.push_back(grid::BAKED_LAUNCH_SHAPE);
                used = 5;
            } else if (sscanf(p, "%dx%d%n", &g, &s, &used) == 2) {
                shapes.push_back(grid::LaunchShape{g, s});
            } else {
                fprintf(stderr, "GRID_CHECK_SHAPES: expected GxS or baked at \"%s\"\n", p);
                return 1;
            }
            p += used;
            if (*p == ',') ++p;
        }
    }
    // A build with GRID_ALL_TIERS checks every sample-group shape at TIER_LITE and TIER_MINIMAL too.
    for (const grid::LaunchShape& shape : shapes) {
        run_all<double, grid::TIER_SHARED>(d, shape, rep);
        run_all<float, grid::TIER_SHARED>(d, shape, rep);
#if defined(GRID_ALL_TIERS)
        run_all<double, grid::TIER_LITE>(d, shape, rep);
        run_all<float, grid::TIER_LITE>(d, shape, rep);
        run_all<double, grid::TIER_MINIMAL>(d, shape, rep);
        run_all<float, grid::TIER_MINIMAL>(d, shape, rep);
#endif
    }
    printf("precision shape         entry point                 max error   tolerance\n");
    for (const auto& l : rep.lines) printf("%s\n", l.c_str());
    if (!rep.unbuilt.empty()) {
        std::string names;
        for (const auto& a : rep.unbuilt) names += " " + a;
        printf("%s: NOT CHECKED, left out of this build:%s\n", ROBOT, names.c_str());
    }
    // the last line: tests/gpu/equivalence.sh reads the counts from it
    printf("%s: %d samples, %zu checks, %d failed, %d over a kernel's MAX_THREADS or shared memory (cond(M) %.3g)\n", ROBOT, d.n,
           rep.lines.size(), rep.failures, rep.skipped, d.cond);
    return rep.failures == 0 ? 0 : 1;
}
`

// TestedFrames are the frames whose kernels an equivalence run checks: all of them, or for a robot with
// many frames eight spread over the tree (each end_effector_pose_hessian is 6·NV² values per sample).
func TestedFrames(nf int) []int {
	const most = 8
	var fs []int
	if nf <= 40 {
		for f := 0; f < nf; f++ {
			fs = append(fs, f)
		}
		return fs
	}
	for k := 0; k < most; k++ {
		fs = append(fs, k*(nf-1)/(most-1))
	}
	return fs
}

// Selectors are the values of an entry point's integer parameter an equivalence run checks, passed where
// the entry takes one: the tested frames of an entry that takes a frame, both integrators of one that takes a
// method, else a single pass (0, not passed).
func Selectors(a emit.AlgorithmInfo, nf int) []int {
	switch {
	case a.Frame:
		return TestedFrames(nf)
	case a.Method:
		return []int{0, 1}
	}
	return []int{0}
}

// Selected reports whether the entry point takes the selector as a parameter.
func Selected(a emit.AlgorithmInfo) bool { return a.Frame || a.Method }

// SelectorInitializer is Selectors as a C++ braced list, for the drivers' loops.
func SelectorInitializer(a emit.AlgorithmInfo, nf int) string {
	fs := Selectors(a, nf)
	s := make([]string, len(fs))
	for i, f := range fs {
		s[i] = fmt.Sprint(f)
	}
	return "{" + strings.Join(s, ", ") + "}"
}
