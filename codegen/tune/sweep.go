// Package tune measures how a robot's batched kernels run at different launch shapes on a GPU and turns the
// measurements into the launch configurations codegen bakes into grid.cuh (emit.LaunchTable).
package tune

import (
	"fmt"
	"strings"

	"github.com/grid-rbd/grid-rbd/codegen/emit"
)

// Algorithms are the entry points the sweep times: the ones the benchmarks and the Python API lean on.
// The others keep the untuned default.
var Algorithms = []string{
	"frame_poses", "inverse_dynamics", "mass_matrix", "minv", "forward_dynamics", "aba",
	"inverse_dynamics_gradient", "forward_dynamics_gradient",
}

// Batches are the batch sizes of the sweep (those of the benchmark).
var Batches = []int{1, 16, 256, 4096, 65536}

// Shapes are the launch shapes (threads per sample, samples per block) the sweep tries, each where it fits
// a kernel's MAX_THREADS: a sample per thread, sub-warp, warp and multi-warp groups, one sample per block;
// and the limb kernels' shape (-1x1) for the entry points that have one.
var Shapes = [][2]int{
	{1, 32}, {1, 64}, {1, 128}, {1, 256}, {2, 64}, {4, 32}, {8, 16}, {16, 8},
	{32, 1}, {32, 4}, {64, 1}, {64, 2}, {128, 1}, {256, 1},
	{emit.LimbsShape.ThreadsPerSample, emit.LimbsShape.SamplesPerBlock},
}

// SweepDriver returns the source of a CUDA program (sweep.cu, beside grid.cuh) that times every entry point
// of Algorithms the robot has, in float and double, at every batch of Batches and every shape of Shapes
// that fits the kernel's MAX_THREADS (set the build's with -DGRID_MAX_THREADS=N), plus the baked shape.
// Each cell is warmed up, then launched on rotating input sets with each launch timed by CUDA events; it
// prints one line per cell: robot, entry point, precision, max threads, shape, batch, median and minimum
// microseconds and the repetitions, or "missing" and the CUDA error. Built with GRID_ALL_TIERS, it also times
// the sample-group shapes at TIER_LITE and TIER_MINIMAL (shapes named "GxS@lite" and "GxS@minimal").
func SweepDriver(m *emit.Metadata) string {
	var b strings.Builder
	b.WriteString(sweepIncludes)
	shapes := make([]string, len(Shapes))
	for i, s := range Shapes {
		shapes[i] = fmt.Sprintf("{%d, %d}", s[0], s[1])
	}
	batches := make([]string, len(Batches))
	for i, n := range Batches {
		batches[i] = fmt.Sprint(n)
	}
	fmt.Fprintf(&b, "static const char* ROBOT = %q;\n", m.Robot)
	fmt.Fprintf(&b, "static const std::vector<grid::LaunchShape> SHAPES = {%s};\n", strings.Join(shapes, ", "))
	fmt.Fprintf(&b, "static const std::vector<int> BATCHES = {%s};\n", strings.Join(batches, ", "))
	b.WriteString(sweepPrologue)
	b.WriteString("template <typename T>\nstatic void sweep_all(Sweep& s) {\n")
	b.WriteString("    const grid::Vec3<T> gravity = grid::default_gravity<T>();\n    (void)gravity;\n")
	for _, name := range Algorithms {
		a := findAlgorithm(m, name)
		if a == nil {
			continue
		}
		// a build of some entry points (tests/gpu/nvcc_split.sh ENTRIES) defines GRID_ENTRY_SKIPPED_<NAME> for the others
		fmt.Fprintf(&b, "#if !defined(GRID_ENTRY_SKIPPED_%s)\n", strings.ToUpper(a.Name))
		fmt.Fprintf(&b, "    if (s.selected(%q)) {\n", a.Name)
		var args []string
		for _, o := range a.Outputs {
			fmt.Fprintf(&b, "        Buffers<T> %s(%d, 1);\n", o.Name, o.Size())
			args = append(args, o.Name+".at(0)")
		}
		for _, in := range a.Inputs {
			fmt.Fprintf(&b, "        Buffers<T> %s(%d, INPUT_SETS);\n", in.Name, in.Size())
			args = append(args, in.Name+".at(set)")
		}
		if a.Frame {
			args = append(args, "grid::NF - 1")
		}
		if a.Gravity {
			args = append(args, "gravity")
		}
		args = append(args, "n", "s.stream", "shape")
		up := strings.ToUpper(a.Name)
		fmt.Fprintf(&b, "        s.run<T>(%q, grid::%s_MAX_THREADS<T>(), grid::TIER_SHARED, %v, [&](int set, int n, grid::LaunchShape shape) {\n",
			a.Name, up, a.Limbs)
		fmt.Fprintf(&b, "            return grid::%s_launch<T>(%s);\n        });\n", a.Name, strings.Join(args, ", "))
		// the sample-group shapes again at the other resource tiers, with a workspace of the size each launch needs
		b.WriteString("#if defined(GRID_ALL_TIERS)\n")
		b.WriteString("        static_for_tiers([&](auto tier) {\n")
		b.WriteString("            constexpr int TIER = decltype(tier)::value;\n")
		fmt.Fprintf(&b, "            s.run<T>(%q, grid::%s_MAX_THREADS<T>(), TIER, false, [&](int set, int n, grid::LaunchShape shape) {\n", a.Name, up)
		fmt.Fprintf(&b, "                T* ws = s.workspace<T>(grid::%s_LAUNCH_WORKSPACE_BYTES<T, TIER>(n, shape));\n", up)
		fmt.Fprintf(&b, "                return grid::%s_launch<T, TIER>(%s, ws);\n            });\n        });\n", a.Name, strings.Join(args, ", "))
		b.WriteString("#endif\n    }\n#endif\n")
	}
	b.WriteString("}\n")
	b.WriteString(sweepEpilogue)
	return b.String()
}

// SweepEntries are the entry points (upper case, as in grid.cuh's GRID_ENTRY_* guards) the sweep driver
// of m calls: a sweep build compiles only these (tests/gpu/nvcc_split.sh's ENTRIES).
func SweepEntries(m *emit.Metadata) []string {
	var entries []string
	for _, name := range Algorithms {
		if findAlgorithm(m, name) != nil {
			entries = append(entries, strings.ToUpper(name))
		}
	}
	return entries
}

func findAlgorithm(m *emit.Metadata, name string) *emit.AlgorithmInfo {
	for i := range m.Algorithms {
		if m.Algorithms[i].Name == name {
			return &m.Algorithms[i]
		}
	}
	return nil
}

const sweepIncludes = `// Launch-shape sweep of a robot's batched kernels; generated, do not edit.
#include "grid.cuh"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

`

const sweepPrologue = `
constexpr int INPUT_SETS = 4;     // inputs rotate so that no launch reads what the previous one left in L2
constexpr int MAX_BATCH = 65536;
constexpr double CELL_SECONDS = 0.05;  // timed launches per cell: enough for this, within [5, 30]

static void check(cudaError_t err, const char* what) {
    if (err != cudaSuccess) {
        fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(err));
        exit(3);
    }
}

// sets arrays of MAX_BATCH samples of per_sample values each, inputs uniform in [-1, 1].
template <typename T>
struct Buffers {
    std::vector<T*> ptrs;
    Buffers(int per_sample, int sets) {
        static std::mt19937_64 rng(7);
        std::uniform_real_distribution<double> uniform(-1.0, 1.0);
        const size_t n = size_t(MAX_BATCH) * size_t(per_sample);
        std::vector<T> host(n);
        for (int k = 0; k < sets; ++k) {
            T* p = nullptr;
            check(cudaMalloc(&p, n * sizeof(T)), "cudaMalloc");
            for (T& v : host) v = T(uniform(rng));
            check(cudaMemcpy(p, host.data(), n * sizeof(T), cudaMemcpyHostToDevice), "upload");
            ptrs.push_back(p);
        }
    }
    ~Buffers() {
        for (T* p : ptrs) cudaFree(p);
    }
    T* at(int set) const { return ptrs[size_t(set) % ptrs.size()]; }
};

// Calls f(std::integral_constant<int, TIER>{}) for the resource tiers above TIER_SHARED.
template <typename F>
static void static_for_tiers(F&& f) {
    f(std::integral_constant<int, grid::TIER_LITE>{});
    f(std::integral_constant<int, grid::TIER_MINIMAL>{});
}

struct Sweep {
    std::vector<std::string> only;  // entry points to run; empty: all
    void* ws = nullptr;  // the workspace of the tiers that spill, grown on demand (never while capturing)
    size_t ws_bytes = 0;
    template <typename T>
    T* workspace(size_t bytes) {
        if (bytes > ws_bytes) {
            if (ws) check(cudaFree(ws), "cudaFree");
            check(cudaMalloc(&ws, bytes), "cudaMalloc workspace");
            ws_bytes = bytes;
        }
        return static_cast<T*>(ws);
    }
    std::vector<grid::LaunchShape> shapes;
    cudaEvent_t start, stop;
    cudaStream_t stream;  // every launch's, and the one a CUDA graph is captured from
    Sweep() {
        check(cudaEventCreate(&start), "event");
        check(cudaEventCreate(&stop), "event");
        check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
    }
    bool selected(const char* algo) const {
        return only.empty() || std::find(only.begin(), only.end(), std::string(algo)) != only.end();
    }
    std::vector<int> batches = BATCHES;
    int back_to_back = 1;  // launches between one pair of events; the time reported is per launch
    bool graphs = false;  // GRID_SWEEP_GRAPH: the back_to_back launches captured once per cell, replayed
    cudaGraphExec_t exec = nullptr;
    // Captures back_to_back launches (input sets rotating) into exec; the cell's timings replay it.
    template <typename Launch>
    cudaError_t capture(Launch& launch, int n, grid::LaunchShape shape) {
        if (exec) cudaGraphExecDestroy(exec);
        exec = nullptr;
        cudaGraph_t g = nullptr;
        check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "begin capture");
        cudaError_t err = cudaSuccess;
        for (int k = 0; k < back_to_back && err == cudaSuccess; ++k) err = launch(k % INPUT_SETS, n, shape);
        const cudaError_t ended = cudaStreamEndCapture(stream, &g);
        if (err == cudaSuccess) err = ended;
        if (err == cudaSuccess) err = cudaGraphInstantiate(&exec, g, 0);
        if (g) cudaGraphDestroy(g);
        return err;
    }
    // Microseconds of one launch: events around back_to_back consecutive launches (input sets rotating from
    // set on), divided by their number. One launch per pair includes the host's submission latency; a stream
    // of them measures what the GPU spends per kernel when launches queue (a jitted loop), and a CUDA graph
    // replay what it spends when the host is out of the way (a captured jax.jit program).
    // replay: launch exec (captured by capture()) instead of the launches themselves.
    template <typename Launch>
    double time_once(Launch& launch, int set, int n, grid::LaunchShape shape, cudaError_t* err, bool replay) {
        check(cudaEventRecord(start, stream), "record");
        if (replay) *err = cudaGraphLaunch(exec, stream);
        for (int k = 0; !replay && k < back_to_back && *err == cudaSuccess; ++k) *err = launch((set + k) % INPUT_SETS, n, shape);
        check(cudaEventRecord(stop, stream), "record");
        check(cudaEventSynchronize(stop), "synchronize");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
        return ms * 1e3 / back_to_back;
    }
    // Times every cell of one entry point at resource tier tier: the baked shape and every shape that fits at
    // TIER_SHARED, the sample-group shapes at the others (named "GxS@lite", "GxS@minimal"; one thread per
    // sample is the same kernel at every tier); the limb kernel's shape where the entry point has one (limbs).
    template <typename T, typename Launch>
    void run(const char* algo, int max_threads, int tier, bool limbs, Launch launch) {
        const char* precision = sizeof(T) == 8 ? "double" : "float";
        const char* at = tier == grid::TIER_LITE ? "@lite" : tier == grid::TIER_MINIMAL ? "@minimal" : "";
        for (int n : batches) {
            std::vector<grid::LaunchShape> cells;
            if (tier == grid::TIER_SHARED) cells.push_back(grid::BAKED_LAUNCH_SHAPE);
            for (const grid::LaunchShape& s : shapes)
                if (grid::is_limbs_shape(s) ? limbs :
                    grid::valid_launch_shape(s, grid::tier_max_threads(tier, max_threads)) &&
                    (tier == grid::TIER_SHARED || s.threads_per_sample > 1))
                    cells.push_back(s);
            for (const grid::LaunchShape& shape : cells) {
                char name[48];
                if (shape.threads_per_sample == 0) snprintf(name, sizeof name, "baked");
                else snprintf(name, sizeof name, "%dx%d%s", shape.threads_per_sample, shape.samples_per_block, at);
                cudaError_t err = cudaSuccess;
                double first = 0;
                // the warm-up launches directly: it loads the module and sets the attributes
                for (int w = 0; w < INPUT_SETS && err == cudaSuccess; ++w) first = time_once(launch, w, n, shape, &err, false);
                if (graphs && err == cudaSuccess) err = capture(launch, n, shape);
                if (graphs && err == cudaSuccess) first = time_once(launch, 0, n, shape, &err, true);
                if (err == cudaSuccess) err = cudaDeviceSynchronize();
                if (err != cudaSuccess) {
                    printf("%s %s %s %d %s %d missing %s\n", ROBOT, algo, precision, max_threads, name, n, cudaGetErrorName(err));
                    cudaGetLastError();
                    continue;
                }
                const int reps =
                    std::max(5, std::min(30, int(CELL_SECONDS * 1e6 / std::max(first * back_to_back, 1.0))));
                std::vector<double> us;
                for (int r = 0; r < reps && err == cudaSuccess; ++r)
                    us.push_back(time_once(launch, r % INPUT_SETS, n, shape, &err, graphs));
                check(err, algo);
                std::sort(us.begin(), us.end());
                printf("%s %s %s %d %s %d %.3f %.3f %d\n", ROBOT, algo, precision, max_threads, name, n, us[us.size() / 2],
                       us[0], reps);
                fflush(stdout);
            }
        }
    }
};

`

const sweepEpilogue = `
// usage: sweep [ALGORITHMS] — a comma-separated list narrows the entry points. GRID_SWEEP_SHAPES="1x64,32x1"
// narrows the shapes, GRID_SWEEP_BATCHES="1,16" the batch sizes; GRID_SWEEP_BACK_TO_BACK=K times K
// consecutive launches per pair of events and reports the time per launch; GRID_SWEEP_GRAPH=1 captures those K
// launches in a CUDA graph and times its replays.
// The floor under every batch-1 figure: an empty kernel timed the same way.
__global__ void empty_kernel() {}

static void print_launch_floor(Sweep& s) {
    auto launch = [&](int, int, grid::LaunchShape) {
        empty_kernel<<<1, 1, 0, s.stream>>>();
        return cudaGetLastError();
    };
    std::vector<double> us;
    cudaError_t err = cudaSuccess;
    s.time_once(launch, 0, 1, grid::BAKED_LAUNCH_SHAPE, &err, false);  // loads the module
    if (s.graphs) check(s.capture(launch, 1, grid::BAKED_LAUNCH_SHAPE), "capture");
    for (int r = 0; r < 210; ++r) {
        const double t = s.time_once(launch, 0, 1, grid::BAKED_LAUNCH_SHAPE, &err, s.graphs);
        check(err, "empty kernel");
        if (r >= 10) us.push_back(t);  // the first launches load the module
    }
    std::sort(us.begin(), us.end());
    printf("# launch floor: an empty kernel timed like every cell, median %.3f us, min %.3f us, %zu launches\n",
           us[us.size() / 2], us[0], us.size());
}

// The comma-separated integers of an environment variable, or an empty list.
static std::vector<int> env_ints(const char* name) {
    std::vector<int> v;
    if (const char* env = getenv(name)) {
        for (const char* p = env; *p;) {
            char* end = nullptr;
            const long x = strtol(p, &end, 10);
            if (end == p || x < 1) {
                fprintf(stderr, "%s: expected positive integers separated by commas at \"%s\"\n", name, p);
                exit(1);
            }
            v.push_back(int(x));
            p = *end == ',' ? end + 1 : end;
        }
    }
    return v;
}

int main(int argc, char** argv) {
    Sweep s;
    if (std::vector<int> b = env_ints("GRID_SWEEP_BATCHES"); !b.empty()) s.batches = b;
    for (int n : s.batches)
        if (n > MAX_BATCH) {
            fprintf(stderr, "GRID_SWEEP_BATCHES: %d is above the largest batch the buffers hold (%d)\n", n, MAX_BATCH);
            return 1;
        }
    if (std::vector<int> k = env_ints("GRID_SWEEP_BACK_TO_BACK"); !k.empty()) s.back_to_back = k[0];
    if (const char* g = getenv("GRID_SWEEP_GRAPH")) s.graphs = strcmp(g, "0") != 0;
    printf("# timing: events around %d consecutive launch(es)%s, time per launch\n", s.back_to_back,
           s.graphs ? " replayed from a CUDA graph" : "");
    print_launch_floor(s);
    if (argc > 1) {
        std::string list = argv[1];
        for (size_t start = 0; start <= list.size();) {
            const size_t end = std::min(list.find(',', start), list.size());
            if (end > start) s.only.push_back(list.substr(start, end - start));
            start = end + 1;
        }
    }
    s.shapes = SHAPES;
    if (const char* env = getenv("GRID_SWEEP_SHAPES")) {
        s.shapes.clear();
        for (const char* p = env; *p;) {
            int g = 0, n = 0, used = 0;
            if (sscanf(p, "%dx%d%n", &g, &n, &used) != 2) {
                fprintf(stderr, "GRID_SWEEP_SHAPES: expected GxS at \"%s\"\n", p);
                return 1;
            }
            s.shapes.push_back(grid::LaunchShape{g, n});
            p += used;
            if (*p == ',') ++p;
        }
    }
    // a build of one precision (tests/gpu/nvcc_split.sh PRECISIONS) defines GRID_PRECISION_SKIPPED_<other>
#if !defined(GRID_PRECISION_SKIPPED_FLOAT)
    sweep_all<float>(s);
#endif
#if !defined(GRID_PRECISION_SKIPPED_DOUBLE)
    sweep_all<double>(s);
#endif
    return 0;
}
`
