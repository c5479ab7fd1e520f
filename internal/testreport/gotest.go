// Package testreport runs the project's test suites as child processes and turns their output into what a
// person watching a long run needs: a line when something finishes or fails, a heartbeat naming what is
// still running when nothing was printed for a while, an explicit time limit with a message that says it was
// hit, and a per-suite summary of passed, failed and skipped cases.
//
// GoTest reads `go test -json` events; Pytest reads pytest's output, whose progress lines come from the
// --progress option of tests/conftest.py.
package testreport

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// ProgressMarker starts a test log line that GoTest forwards while the test runs (t.Logf("progress: ...")).
const ProgressMarker = "progress: "

// goEvent is one line of `go test -json` (cmd/test2json).
type goEvent struct {
	Time    time.Time
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

// testKey names a package or a test within it.
type testKey struct{ pkg, test string }

func (k testKey) String() string {
	short := strings.TrimPrefix(k.pkg, "github.com/grid-rbd/grid-rbd/")
	if k.test == "" {
		return short
	}
	return short + " " + k.test
}

// GoTest turns `go test -json` events into progress lines and a summary.
type GoTest struct {
	out     *clock
	running map[testKey]time.Time
	output  map[testKey][]string // output of running tests and packages, kept to show when they fail
	summary Summary
	// timedOut is set when go test's -timeout panic appears in the output.
	timedOut bool
}

// NewGoTest reports to w; start is when the run began (the clock of the progress lines).
func NewGoTest(w io.Writer, start time.Time) *GoTest {
	return &GoTest{
		out:     &clock{w: w, start: start, last: start},
		running: map[testKey]time.Time{},
		output:  map[testKey][]string{},
		summary: Summary{Suite: "go test"},
	}
}

// Line consumes one line of go test's standard output; lines that are not JSON events (build errors on
// older toolchains) are printed as they are.
func (g *GoTest) Line(line string, now time.Time) {
	var ev goEvent
	if err := json.Unmarshal([]byte(line), &ev); err != nil || ev.Action == "" {
		if strings.TrimSpace(line) != "" {
			g.out.printf(now, "%s", line)
		}
		return
	}
	k := testKey{ev.Package, ev.Test}
	switch ev.Action {
	case "start", "run":
		g.running[k] = now
	case "output", "build-output":
		g.output[k] = append(g.output[k], ev.Output)
		if strings.Contains(ev.Output, "panic: test timed out after") {
			g.timedOut = true
		}
		if i := strings.Index(ev.Output, ProgressMarker); i >= 0 && ev.Test != "" {
			g.out.printf(now, "%s: %s", k, strings.TrimSpace(ev.Output[i+len(ProgressMarker):]))
		}
	case "pass", "fail", "skip":
		g.finish(k, ev, now)
	}
}

// finish records a finished package or test and prints what is worth a line: every failure with its
// output, every package, and top-level tests that took a while.
func (g *GoTest) finish(k testKey, ev goEvent, now time.Time) {
	delete(g.running, k)
	lines := g.output[k]
	delete(g.output, k)
	took := time.Duration(ev.Elapsed * float64(time.Second)).Round(100 * time.Millisecond)
	if k.test == "" {
		switch ev.Action {
		case "pass":
			g.summary.Packages++
			g.out.printf(now, "ok   %s (%v)", k, took)
		case "skip":
			g.summary.Packages++
		case "fail":
			g.summary.Packages++
			g.summary.FailedPackages = append(g.summary.FailedPackages, k.String())
			g.out.printf(now, "FAIL %s (%v)", k, took)
			// A package that fails outside any test (a build error, a panic) shows its own output.
			if tail := lastLines(lines, 40); tail != "" {
				g.out.printf(now, "%s", tail)
			}
		}
		return
	}
	topLevel := !strings.Contains(k.test, "/")
	switch ev.Action {
	case "pass":
		g.summary.Passed++
		if topLevel && took >= 10*time.Second {
			g.out.printf(now, "pass %s (%v)", k, took)
		}
	case "skip":
		g.summary.Skipped++
	case "fail":
		g.summary.Failed++
		g.summary.Failures = append(g.summary.Failures, k.String())
		g.out.printf(now, "FAIL %s (%v)\n%s", k, took, lastLines(lines, 60))
	}
}

// Heartbeat prints what is still running when nothing was printed for quiet.
func (g *GoTest) Heartbeat(now time.Time, quiet time.Duration) {
	if now.Sub(g.out.last) < quiet || len(g.running) == 0 {
		return
	}
	g.out.printf(now, "running: %s", describeRunning(g.running, now))
}

// Finish completes the summary once go test has exited with err (nil for success) after elapsed.
func (g *GoTest) Finish(err error, elapsed time.Duration, limit time.Duration) Summary {
	s := g.summary
	s.Elapsed = elapsed
	s.Err = err
	if g.timedOut {
		s.LimitHit = fmt.Sprintf("go test hit its time limit (-timeout=%v); still running: %s", limit,
			describeRunning(g.running, time.Now()))
	}
	return s
}

// describeRunning lists the innermost running tests (or packages with none), oldest first, with their age.
func describeRunning(running map[testKey]time.Time, now time.Time) string {
	var keys []testKey
	for k := range running {
		inner := true
		for o := range running {
			if o != k && o.pkg == k.pkg && (k.test == "" && o.test != "" || o.test != "" && strings.HasPrefix(o.test, k.test+"/")) {
				inner = false
				break
			}
		}
		if inner {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b testKey) int { return running[a].Compare(running[b]) })
	parts := make([]string, 0, len(keys))
	for i, k := range keys {
		if i == 6 {
			parts = append(parts, fmt.Sprintf("and %d more", len(keys)-i))
			break
		}
		parts = append(parts, fmt.Sprintf("%s (%v)", k, now.Sub(running[k]).Round(time.Second)))
	}
	return strings.Join(parts, ", ")
}

// lastLines joins the last n lines of a test's output.
func lastLines(chunks []string, n int) string {
	lines := strings.Split(strings.TrimRight(strings.Join(chunks, ""), "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("    ... (%d lines before)", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.TrimRight(strings.Join(lines, "\n"), " \n")
}
