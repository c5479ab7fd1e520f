package testreport

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Summary is the outcome of one suite.
type Summary struct {
	Suite string
	// Passed, Failed and Skipped count test cases (Go tests and subtests, or pytest cases).
	Passed, Failed, Skipped int
	// Packages counts finished Go packages; FailedPackages names the failed ones.
	Packages       int
	FailedPackages []string
	// Failures names the failed cases.
	Failures []string
	Elapsed  time.Duration
	// LimitHit says which time limit was hit, and what was running then; empty if none was.
	LimitHit string
	// Err is the suite's exit error, nil on success.
	Err error
}

// OK reports whether the suite passed.
func (s Summary) OK() bool {
	return s.Err == nil && s.Failed == 0 && len(s.FailedPackages) == 0 && s.LimitHit == ""
}

// String is the summary's one-line form, with the failures and the time limit message below it.
func (s Summary) String() string {
	status := "PASS"
	if !s.OK() {
		status = "FAIL"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-4s %-10s %5d passed, %d failed, %d skipped", status, s.Suite, s.Passed, s.Failed, s.Skipped)
	if s.Packages > 0 {
		fmt.Fprintf(&b, "; %d packages, %d failed", s.Packages, len(s.FailedPackages))
	}
	fmt.Fprintf(&b, " (%v)", s.Elapsed.Round(time.Second))
	for _, f := range s.FailedPackages {
		fmt.Fprintf(&b, "\n       failed package: %s", f)
	}
	for i, f := range s.Failures {
		if i == 20 {
			fmt.Fprintf(&b, "\n       ... and %d more failures", len(s.Failures)-i)
			break
		}
		fmt.Fprintf(&b, "\n       failed: %s", f)
	}
	if s.LimitHit != "" {
		fmt.Fprintf(&b, "\n       TIME LIMIT: %s", s.LimitHit)
	}
	if s.Err != nil && s.Failed == 0 && len(s.FailedPackages) == 0 && s.LimitHit == "" {
		fmt.Fprintf(&b, "\n       exit: %v", s.Err)
	}
	return b.String()
}

// parser consumes a suite's output lines and tells its outcome.
type parser interface {
	Line(line string, now time.Time)
	Heartbeat(now time.Time, quiet time.Duration)
	Finish(err error, elapsed, limit time.Duration) Summary
}

// Heartbeat is how long a run may print nothing before a line names what is still running.
const Heartbeat = 30 * time.Second

// RunGoTest runs `go test -json -timeout=limit args...` (args are packages and flags) in dir, printing
// progress to w, and returns the summary. go test gets the limit itself, so a hung test ends in its
// goroutine dump (kept in the failing package's output) and the summary says the limit was hit.
func RunGoTest(dir string, limit time.Duration, w io.Writer, args ...string) Summary {
	start := time.Now()
	cmd := exec.Command("go", append([]string{"test", "-json", fmt.Sprintf("-timeout=%v", limit)}, args...)...)
	cmd.Dir = dir
	// A margin over go test's own limit: the process is killed only if go test's timeout fails to end it.
	return run(cmd, NewGoTest(w, start), limit+2*time.Minute, limit, w, start)
}

// RunPytest runs `python -m pytest --progress args...` in dir with env added, killing it after limit,
// printing its output to w, and returns the summary.
func RunPytest(dir, python string, env []string, limit time.Duration, w io.Writer, args ...string) Summary {
	start := time.Now()
	cmd := exec.Command(python, append([]string{"-m", "pytest", "--progress"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Environ(), env...)
	return run(cmd, NewPytest(w, start), limit, limit, w, start)
}

// run starts cmd, feeds its combined output line by line to p, beats every few seconds, and kills the
// process after kill.
func run(cmd *exec.Cmd, p parser, kill, limit time.Duration, w io.Writer, start time.Time) Summary {
	ctx, cancel := context.WithTimeout(context.Background(), kill)
	defer cancel()
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		s := p.Finish(err, 0, limit)
		return s
	}
	var mu sync.Mutex
	done := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			mu.Lock()
			p.Line(sc.Text(), time.Now())
			mu.Unlock()
		}
		io.Copy(io.Discard, pr)
		close(done)
	}()
	waited := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		pw.Close()
		waited <- err
	}()
	ticker := time.NewTicker(5 * time.Second)
	defer ticker.Stop()
	var err error
	killed := false
loop:
	for {
		select {
		case err = <-waited:
			break loop
		case <-ctx.Done():
			killed = true
			cmd.Process.Kill()
		case now := <-ticker.C:
			mu.Lock()
			p.Heartbeat(now, Heartbeat)
			mu.Unlock()
		}
	}
	<-done
	s := p.Finish(err, time.Since(start), limit)
	if killed && s.LimitHit == "" {
		s.LimitHit = fmt.Sprintf("%s was stopped after its time limit of %v", s.Suite, limit)
	}
	if s.Err == nil && killed {
		s.Err = errors.New("killed at the time limit")
	}
	return s
}

// clock prints progress lines stamped with the time since the run began.
type clock struct {
	w           io.Writer
	start, last time.Time
}

func (c *clock) printf(now time.Time, format string, args ...any) {
	e := now.Sub(c.start).Round(time.Second)
	fmt.Fprintf(c.w, "[%d:%02d] %s\n", int(e.Minutes()), int(e.Seconds())%60, fmt.Sprintf(format, args...))
	c.last = now
}
