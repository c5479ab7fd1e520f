package testreport

import (
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Pytest passes pytest's output through, remembers the test file running (from the --progress lines) for
// the heartbeat, and reads the counts from pytest's closing line.
type Pytest struct {
	w       io.Writer
	start   time.Time
	last    time.Time
	current string
	summary Summary
	counted bool
}

// NewPytest reports to w; start is when the run began.
func NewPytest(w io.Writer, start time.Time) *Pytest {
	return &Pytest{w: w, start: start, last: start, summary: Summary{Suite: "pytest"}}
}

// pytestCount matches one "<n> <outcome>" of pytest's closing line, e.g. "3 failed, 630 passed in 80.1s".
var pytestCount = regexp.MustCompile(`(\d+) (passed|failed|errors?|skipped|xfailed|xpassed)`)

// Line prints one line of pytest's output and takes what it says.
func (p *Pytest) Line(line string, now time.Time) {
	io.WriteString(p.w, line+"\n")
	p.last = now
	trimmed := strings.Trim(line, "= ")
	switch {
	case strings.HasPrefix(line, "[pytest") && strings.Contains(line, "] file "):
		p.current = line[strings.Index(line, "] file ")+len("] file "):]
	case strings.HasPrefix(line, "[pytest") && strings.Contains(line, "] FAILED "):
		p.summary.Failures = append(p.summary.Failures, line[strings.Index(line, "] FAILED ")+len("] FAILED "):])
	case strings.HasPrefix(line, "[pytest") && strings.Contains(line, "] ERROR "):
		p.summary.Failures = append(p.summary.Failures, line[strings.Index(line, "] ERROR ")+len("] "):])
	case strings.Contains(trimmed, " in ") && pytestCount.MatchString(trimmed) && !strings.HasPrefix(line, "["):
		// the closing line: "633 passed, 1 skipped in 80.71s (0:01:20)"
		p.counted = true
		p.summary.Passed, p.summary.Failed, p.summary.Skipped = 0, 0, 0
		for _, m := range pytestCount.FindAllStringSubmatch(trimmed, -1) {
			n, _ := strconv.Atoi(m[1])
			switch m[2] {
			case "passed", "xpassed":
				p.summary.Passed += n
			case "failed", "error", "errors":
				p.summary.Failed += n
			case "skipped", "xfailed":
				p.summary.Skipped += n
			}
		}
	}
}

// Heartbeat names the running test file when pytest printed nothing for quiet.
func (p *Pytest) Heartbeat(now time.Time, quiet time.Duration) {
	if now.Sub(p.last) < quiet {
		return
	}
	c := &clock{w: p.w, start: p.start}
	what := p.current
	if what == "" {
		what = "collecting"
	}
	c.printf(now, "pytest still running: %s", what)
	p.last = now
}

// Finish completes the summary once pytest has exited with err after elapsed.
func (p *Pytest) Finish(err error, elapsed, limit time.Duration) Summary {
	s := p.summary
	s.Elapsed = elapsed
	s.Err = err
	if !p.counted && err == nil {
		s.Err = errNoSummary
	}
	return s
}

type summaryError string

func (e summaryError) Error() string { return string(e) }

// errNoSummary is a pytest run that exited 0 without its closing count line.
const errNoSummary = summaryError("pytest printed no closing summary line")
