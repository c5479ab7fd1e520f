// Package tests drives the Python test suite of grid_rbd from `go test`.
//
// TestPython builds every robot of the roster's pytest suite (testdata/robots/roster.json) with `go tool mage build` into
// build/pytest/<name>, runs `pytest tests/python` in the project's .venv against those builds and reports
// each pytest case as a Go subtest (TestPython/<module>/<case>), so that `go test ./tests/ -run TestPython -v`
// shows which robot, method and dtype failed and why.
package tests

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/grid-rbd/grid-rbd/internal/roster"
	"github.com/grid-rbd/grid-rbd/internal/testreport"
	"github.com/grid-rbd/grid-rbd/internal/testrobots"
)

// parallelBuilds is how many robots are built at once (each runs a C++ compiler).
const parallelBuilds = 2

// pytestMargin is how long before go test's -timeout the pytest run is stopped, so that the test can still
// say why it failed.
const pytestMargin = 2 * time.Minute

// progressWriter collects pytest's output and forwards its --progress lines to the test log as they come,
// marked for the progress reporter of `go tool mage test` (internal/testreport).
type progressWriter struct {
	t            *testing.T
	mu           sync.Mutex
	buf          bytes.Buffer
	pending      []byte
	lastProgress string
}

func (w *progressWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	w.pending = append(w.pending, p...)
	for {
		i := bytes.IndexByte(w.pending, '\n')
		if i < 0 {
			break
		}
		line := string(w.pending[:i])
		w.pending = w.pending[i+1:]
		if strings.HasPrefix(line, "[pytest") {
			w.lastProgress = line
			w.t.Logf("%s%s", testreport.ProgressMarker, line)
		}
	}
	return len(p), nil
}

func (w *progressWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

func runIn(dir, name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	return cmd.CombinedOutput()
}

func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(os.Getenv("GOROOT"), "bin", "go")
}

// buildFailure is a robot whose build failed, with the build's output.
type buildFailure struct {
	name, output string
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("... (%d lines before)", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

// buildRobots builds every robot into buildRoot/<name>, parallelBuilds at a time, as subtests
// TestPython/build/<name>, and returns the robots whose build failed. A robot's folder is removed first, so a
// failed build leaves no stale one behind (its pytest cases then error with RobotNotBuiltError). A failed
// build is run once more, logging the first attempt's output, so that a transient fault of the machine (a
// killed compiler, say) is told apart from a build that fails every time.
func buildRobots(t *testing.T, root, buildRoot string, robots []roster.Robot) []buildFailure {
	mage := compiledMage(t, root)
	sem := make(chan struct{}, parallelBuilds)
	var mu sync.Mutex
	var failures []buildFailure
	t.Run("build", func(t *testing.T) {
		for _, r := range robots {
			urdf, err := r.Path()
			if err != nil {
				t.Fatal(err)
			}
			t.Run(r.Name, func(t *testing.T) {
				t.Parallel()
				sem <- struct{}{}
				defer func() { <-sem }()
				dir := filepath.Join(buildRoot, r.Name)
				args := []string{"build", urdf}
				if r.Floating {
					args = append(args, "-floating")
				}
				if r.Collision {
					args = append(args, "-collision")
				}
				args = append(args, "-out="+dir)
				var out []byte
				var err error
				for attempt := 1; attempt <= 2; attempt++ {
					if err := os.RemoveAll(dir); err != nil {
						t.Fatal(err)
					}
					start := time.Now()
					// one compiler per build: the builds already run side by side, and one
					// translation unit is the least work for the machine in total
					cmd := exec.Command(mage, args...)
					cmd.Dir = root
					cmd.Env = append(os.Environ(), "GRID_BUILD_JOBS=1")
					out, err = cmd.CombinedOutput()
					if err == nil {
						t.Logf("%sbuilt %s in %v (attempt %d)", testreport.ProgressMarker, dir, time.Since(start).Round(time.Millisecond), attempt)
						return
					}
					os.RemoveAll(dir)
					t.Logf("attempt %d: mage %s: %v\n%s", attempt, strings.Join(args, " "), err, out)
				}
				mu.Lock()
				failures = append(failures, buildFailure{r.Name, fmt.Sprintf("mage %s: %v\n%s", strings.Join(args, " "), err, out)})
				mu.Unlock()
				t.Fatalf("building %s failed twice (outputs above)", r.Name)
			})
		}
	})
	return failures
}

// JUnit XML as pytest writes it (--junitxml): <testsuites><testsuite><properties/><testcase/>...

type junitResult struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitCase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Time      float64       `xml:"time,attr"`
	Failures  []junitResult `xml:"failure"`
	Errors    []junitResult `xml:"error"`
	Skipped   []junitResult `xml:"skipped"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Time       float64         `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

// parseJUnit reads pytest's report; the root is <testsuites> (pytest >= 5.1) or a single <testsuite>.
func parseJUnit(data []byte) ([]junitSuite, error) {
	var root struct {
		XMLName xml.Name
		Suites  []junitSuite `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &root); err != nil {
		return nil, err
	}
	switch root.XMLName.Local {
	case "testsuites":
		return root.Suites, nil
	case "testsuite":
		var s junitSuite
		if err := xml.Unmarshal(data, &s); err != nil {
			return nil, err
		}
		return []junitSuite{s}, nil
	}
	return nil, fmt.Errorf("unexpected root element <%s>", root.XMLName.Local)
}

// module is a case's test module ("test_equivalence" for classname "tests.python.test_equivalence" or
// "tests.python.test_equivalence.TestClass"), used as the subtest group.
func module(c junitCase) string {
	parts := strings.Split(c.Classname, ".")
	for i, p := range parts {
		if strings.HasPrefix(p, "test_") || strings.HasSuffix(p, "_test") {
			return strings.Join(parts[i:], ".")
		}
	}
	if c.Classname == "" {
		return "pytest"
	}
	return c.Classname
}

const maxReport = 12000 // characters of one case's failure text shown

func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > maxReport {
		return s[:maxReport] + fmt.Sprintf("\n... (%d more characters)", len(s)-maxReport)
	}
	return s
}

// describe is a failure's message and, when it adds to it, its text (the traceback).
func describe(r junitResult) string {
	msg, text := strings.TrimSpace(r.Message), strings.TrimSpace(r.Text)
	if text == "" || strings.Contains(text, msg) && len(text) <= len(msg)+1 {
		return msg
	}
	if msg == "" || strings.HasPrefix(text, msg) {
		return clip(text)
	}
	return msg + "\n" + clip(text)
}

// section returns the lines of pytest's output from the line containing title up to the next "====" line.
func section(out, title string) string {
	i := strings.Index(out, title)
	if i < 0 {
		return ""
	}
	rest := out[i:]
	if j := strings.Index(rest, "\n"); j >= 0 {
		if k := strings.Index(rest[j:], "\n="); k >= 0 {
			return rest[:j+k]
		}
	}
	return rest
}

// testEnvironment returns the checkout's root and the Python of its test environment (.venv), failing the
// test with how to create it when it is missing.
func testEnvironment(t *testing.T) (root, python string) {
	t.Helper()
	root, err := filepath.Abs(testrobots.RepoRoot())
	if err != nil {
		t.Fatal(err)
	}
	python = filepath.Join(root, ".venv", "bin", "python")
	if _, err := os.Stat(python); err != nil {
		t.Fatalf("the Python test environment is missing (%s: %v): run `go tool mage venv` in %s to create "+
			".venv with jax, numpy, pytest, pin and example-robot-data from tests/requirements.txt", python, err, root)
	}
	return root, python
}

func TestPython(t *testing.T) {
	t.Parallel() // beside TestWheelBuildsRobotsFromURDF
	root, python := testEnvironment(t)
	pytestRobots, err := roster.Suite(roster.Pytest)
	if err != nil {
		t.Fatal(err)
	}
	var robots []roster.Robot
	for _, r := range pytestRobots {
		if r.Long && !testrobots.LongTestsEnabled() {
			// a skipped subtest, so that the summary names what was left out and how to include it
			t.Run(r.Name, func(t *testing.T) { testrobots.SkipLong(t, r.Name) })
			continue
		}
		robots = append(robots, r)
	}
	buildRoot := filepath.Join(root, "build", "pytest")
	failures := buildRobots(t, root, buildRoot, robots)
	// Reported last, after pytest's output, so the cause of RobotNotBuiltError cases ends the log.
	defer func() {
		for _, f := range failures {
			t.Errorf("robot %s did not build, so its pytest cases fail with RobotNotBuiltError:\n%s", f.name, tail(f.output, 60))
		}
	}()

	junitPath := filepath.Join(t.TempDir(), "junit.xml")
	// pytest must end before go test's own -timeout does, so that its results are reported.
	ctx := context.Background()
	if deadline, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline.Add(-pytestMargin))
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, python, "-m", "pytest", "tests/python", "-q", "-p", "no:cacheprovider",
		"--progress", "--junitxml="+junitPath)
	cmd.Dir = root
	pythonPath := filepath.Join(root, "python")
	if old := os.Getenv("PYTHONPATH"); old != "" {
		pythonPath += string(os.PathListSeparator) + old
	}
	cmd.Env = append(os.Environ(), "GRID_RBD_PATH="+buildRoot, "PYTHONPATH="+pythonPath)
	output := &progressWriter{t: t}
	cmd.Stdout, cmd.Stderr = output, output
	cmd.WaitDelay = 10 * time.Second // a killed pytest's children must not hold its output open
	start := time.Now()
	runErr := cmd.Run()
	elapsed := time.Since(start).Round(time.Millisecond)
	if ctx.Err() != nil {
		t.Fatalf("pytest tests/python was stopped at its time limit (%v before go test's -timeout), after %v; "+
			"last progress: %s\n%s", pytestMargin, elapsed, output.lastProgress, tail(output.String(), 80))
	}
	exitCode := 0
	if runErr != nil {
		var exit *exec.ExitError
		if !errors.As(runErr, &exit) {
			t.Fatalf("running pytest: %v\n%s", runErr, output.String())
		}
		exitCode = exit.ExitCode()
	}
	out := output.String()
	defer func() {
		if t.Failed() {
			t.Logf("pytest output (exit code %d, %v):\n%s", exitCode, elapsed, out)
		}
	}()
	if exitCode == 5 {
		t.Fatalf("pytest collected no tests (exit code 5)")
	}

	data, err := os.ReadFile(junitPath)
	if err != nil {
		t.Fatalf("pytest (exit code %d) wrote no JUnit report: %v", exitCode, err)
	}
	suites, err := parseJUnit(data)
	if err != nil {
		t.Fatalf("parsing pytest's JUnit report %s: %v", junitPath, err)
	}

	var total, failed, errored, skipped int
	for _, s := range suites {
		for _, p := range s.Properties {
			t.Logf("pytest property %s = %s", p.Name, p.Value)
		}
		// group cases by module, keeping pytest's order
		var order []string
		groups := map[string][]junitCase{}
		for _, c := range s.Cases {
			m := module(c)
			if _, ok := groups[m]; !ok {
				order = append(order, m)
			}
			groups[m] = append(groups[m], c)
		}
		for _, m := range order {
			t.Run(m, func(t *testing.T) {
				for _, c := range groups[m] {
					total++
					switch {
					case len(c.Failures) > 0 || len(c.Errors) > 0:
						if len(c.Failures) > 0 {
							failed++
						} else {
							errored++
						}
					case len(c.Skipped) > 0:
						skipped++
					}
					t.Run(c.Name, func(t *testing.T) {
						for _, f := range c.Failures {
							t.Errorf("pytest FAILED: %s", describe(f))
						}
						for _, e := range c.Errors {
							t.Errorf("pytest ERROR: %s", describe(e))
						}
						if t.Failed() {
							return
						}
						if len(c.Skipped) > 0 {
							t.Skipf("skipped by pytest: %s %s", c.Skipped[0].Message, strings.TrimSpace(c.Skipped[0].Text))
						}
					})
				}
			})
		}
	}
	t.Logf("pytest: %d cases (%d failed, %d errors, %d skipped) in %v, exit code %d",
		total, failed, errored, skipped, elapsed, exitCode)
	if table := section(out, "max relative error against Pinocchio"); table != "" {
		t.Logf("%s", table)
	}
	if total == 0 {
		t.Fatalf("pytest's JUnit report holds no test cases")
	}
	if skipped > 0 {
		t.Logf("note: pytest skipped %d case(s); the suite is meant to skip none", skipped)
	}
	switch {
	case exitCode != 0 && failed+errored == 0:
		t.Errorf("pytest exited with code %d but the JUnit report shows no failing case", exitCode)
	case exitCode == 0 && failed+errored > 0:
		t.Errorf("pytest exited with code 0 but the JUnit report shows %d failing case(s)", failed+errored)
	}
}

func TestParseJUnit(t *testing.T) {
	const report = `<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests"><testsuite name="pytest" errors="1" failures="1" skipped="1" tests="4">` +
		`<properties><property name="jax_platform" value="cpu" /></properties>` +
		`<testcase classname="tests.python.test_equivalence" name="test_a[iiwa-float64-cpu]" time="0.1" />` +
		`<testcase classname="tests.python.test_equivalence" name="test_b" time="0.1"><failure message="AssertionError: off">trace</failure></testcase>` +
		`<testcase classname="tests.python.test_bad_input.TestX" name="test_c" time="0.1"><error message="failed on setup">E RobotNotBuiltError</error></testcase>` +
		`<testcase classname="tests.python.test_handles" name="test_d" time="0.0"><skipped type="pytest.skip" message="why">reason</skipped></testcase>` +
		`</testsuite></testsuites>`
	for _, doc := range []string{report, strings.TrimSuffix(strings.Replace(report, `<testsuites name="pytest tests">`, "", 1), "</testsuites>")} {
		suites, err := parseJUnit([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if len(suites) != 1 || len(suites[0].Cases) != 4 || len(suites[0].Properties) != 1 {
			t.Fatalf("parsed %+v", suites)
		}
		c := suites[0].Cases
		if module(c[0]) != "test_equivalence" || module(c[2]) != "test_bad_input.TestX" {
			t.Errorf("modules %q, %q", module(c[0]), module(c[2]))
		}
		if len(c[1].Failures) != 1 || describe(c[1].Failures[0]) != "AssertionError: off\ntrace" {
			t.Errorf("failure %+v", c[1].Failures)
		}
		if len(c[2].Errors) != 1 || len(c[3].Skipped) != 1 || c[3].Skipped[0].Message != "why" {
			t.Errorf("error/skip %+v %+v", c[2].Errors, c[3].Skipped)
		}
	}
	if _, err := parseJUnit([]byte("<html/>")); err == nil {
		t.Error("a non-JUnit document parsed")
	}
}
