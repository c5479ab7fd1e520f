package emit

import (
	"fmt"
	"strings"
)

// writer accumulates C++ source with indentation. Emitters describe structure (blocks, loops, barriers,
// comments); the math itself lives in the kernel library.
type writer struct {
	b      strings.Builder
	indent int
}

// line writes one formatted line at the current indentation.
func (w *writer) line(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	if s != "" {
		w.b.WriteString(strings.Repeat("    ", w.indent))
	}
	w.b.WriteString(s)
	w.b.WriteByte('\n')
}

// blank writes an empty line.
func (w *writer) blank() { w.b.WriteByte('\n') }

// comment writes one // line per argument.
func (w *writer) comment(lines ...string) {
	for _, l := range lines {
		w.line("// %s", l)
	}
}

// block writes `head {`, the body one level deeper, and `}` + tail.
func (w *writer) block(head string, body func(), tail ...string) {
	w.line("%s {", head)
	w.indent++
	body()
	w.indent--
	w.line("}%s", strings.Join(tail, ""))
}

// namespace writes a C++ namespace; its body is not indented.
func (w *writer) namespace(name string, body func()) {
	w.line("namespace %s {", name)
	w.blank()
	body()
	w.blank()
	w.line("}  // namespace %s", name)
}

// blockStride writes a loop distributing n work items over the sample group's threads (kernels/grid/launch.cuh);
// the body sees index v.
func (w *writer) blockStride(v string, n any, body func()) {
	w.block(fmt.Sprintf("for (uint32_t %s = group_rank(); %s < %v; %s += group_size())", v, v, n, v), body)
}

// sync writes a sample-group barrier.
func (w *writer) sync() { w.line("group_sync();") }

func (w *writer) String() string { return w.b.String() }
