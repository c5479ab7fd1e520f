package testreport

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func at(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }

func TestGoTestEvents(t *testing.T) {
	const pkg = "github.com/grid-rbd/grid-rbd/tests"
	events := []string{
		`{"Action":"start","Package":"` + pkg + `"}`,
		`{"Action":"run","Package":"` + pkg + `","Test":"TestPython"}`,
		`{"Action":"run","Package":"` + pkg + `","Test":"TestPython/build/iiwa"}`,
		`{"Action":"output","Package":"` + pkg + `","Test":"TestPython/build/iiwa","Output":"    suite_test.go:99: progress: built iiwa in 12s\n"}`,
		`{"Action":"pass","Package":"` + pkg + `","Test":"TestPython/build/iiwa","Elapsed":12}`,
		`{"Action":"run","Package":"` + pkg + `","Test":"TestPython/test_x/case"}`,
		`{"Action":"output","Package":"` + pkg + `","Test":"TestPython/test_x/case","Output":"    suite_test.go:1: pytest FAILED: off by 1\n"}`,
		`{"Action":"fail","Package":"` + pkg + `","Test":"TestPython/test_x/case","Elapsed":0}`,
		`{"Action":"run","Package":"` + pkg + `","Test":"TestSkip"}`,
		`{"Action":"skip","Package":"` + pkg + `","Test":"TestSkip","Elapsed":0}`,
		`{"Action":"fail","Package":"` + pkg + `","Test":"TestPython","Elapsed":30}`,
		`{"Action":"fail","Package":"` + pkg + `","Elapsed":31}`,
		`not json: a compiler message`,
	}
	var out strings.Builder
	g := NewGoTest(&out, t0)
	for i, e := range events {
		g.Line(e, at(i))
	}
	got := g.Finish(errors.New("exit status 1"), time.Minute, 10*time.Minute)
	want := Summary{Suite: "go test", Passed: 1, Failed: 2, Skipped: 1, Packages: 1,
		FailedPackages: []string{"tests"}, Failures: []string{"tests TestPython/test_x/case", "tests TestPython"},
		Elapsed: time.Minute}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(Summary{}, "Err")); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	for _, line := range []string{
		"[0:03] tests TestPython/build/iiwa: built iiwa in 12s",
		"[0:07] FAIL tests TestPython/test_x/case (0s)\n    suite_test.go:1: pytest FAILED: off by 1",
		"[0:11] FAIL tests (31s)",
		"[0:12] not json: a compiler message",
	} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("output lacks %q:\n%s", line, out.String())
		}
	}
	if got.OK() {
		t.Error("a failed run reads as OK")
	}
}

func TestGoTestHeartbeatAndTimeout(t *testing.T) {
	const pkg = "github.com/grid-rbd/grid-rbd/codegen/emit"
	var out strings.Builder
	g := NewGoTest(&out, t0)
	g.Line(`{"Action":"start","Package":"`+pkg+`"}`, at(0))
	g.Line(`{"Action":"run","Package":"`+pkg+`","Test":"TestHost"}`, at(1))
	g.Line(`{"Action":"run","Package":"`+pkg+`","Test":"TestHost/atlas"}`, at(2))
	g.Heartbeat(at(20), Heartbeat)
	if out.String() != "" {
		t.Fatalf("a heartbeat before the quiet period: %q", out.String())
	}
	g.Heartbeat(at(40), Heartbeat)
	if want := "[0:40] running: codegen/emit TestHost/atlas (38s)\n"; out.String() != want {
		t.Errorf("heartbeat %q, want %q", out.String(), want)
	}
	g.Line(`{"Action":"output","Package":"`+pkg+`","Test":"TestHost/atlas","Output":"panic: test timed out after 1m0s\n"}`, at(60))
	s := g.Finish(errors.New("exit status 2"), time.Minute, time.Minute)
	if !strings.Contains(s.LimitHit, "time limit (-timeout=1m0s)") || !strings.Contains(s.LimitHit, "TestHost/atlas") {
		t.Errorf("LimitHit = %q", s.LimitHit)
	}
	if s.OK() || !strings.Contains(s.String(), "TIME LIMIT") {
		t.Errorf("summary %q", s.String())
	}
}

func TestPytestLines(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		err   error
		want  Summary
	}{
		{"pass", []string{"[pytest 0:00] file 1/2: tests/a.py (3 tests; 0/5 done)", "...", "5 passed, 1 skipped in 3.2s"}, nil,
			Summary{Suite: "pytest", Passed: 5, Skipped: 1}},
		{"failures", []string{"[pytest 0:01] FAILED tests/a.py::test_b", "=== 1 failed, 4 passed, 2 errors in 1.0s ==="}, errors.New("exit status 1"),
			Summary{Suite: "pytest", Passed: 4, Failed: 3, Failures: []string{"tests/a.py::test_b"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			p := NewPytest(&out, t0)
			for _, l := range tc.lines {
				p.Line(l, t0)
			}
			got := p.Finish(tc.err, 0, time.Minute)
			if diff := cmp.Diff(tc.want, got, cmpopts.IgnoreFields(Summary{}, "Err")); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	var out strings.Builder
	p := NewPytest(&out, t0)
	p.Line("[pytest 0:00] file 2/9: tests/operators/test_cuda_build.py (2 tests; 10/40 done)", at(1))
	p.Heartbeat(at(45), Heartbeat)
	if !strings.Contains(out.String(), "[0:45] pytest still running: 2/9: tests/operators/test_cuda_build.py") {
		t.Errorf("heartbeat: %q", out.String())
	}
	if s := NewPytest(&out, t0).Finish(nil, 0, time.Minute); s.OK() {
		t.Error("a pytest run without its closing line reads as OK")
	}
}

func TestRunKillsAtLimit(t *testing.T) {
	var out strings.Builder
	s := run(exec.Command("sleep", "10"), NewPytest(&out, time.Now()), 500*time.Millisecond, 500*time.Millisecond, &out, time.Now())
	if s.OK() || !strings.Contains(s.LimitHit, "time limit of 500ms") {
		t.Errorf("summary after the limit: %+v", s)
	}
}
