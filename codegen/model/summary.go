package model

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteSummary prints the robot's sizes, joints in order (type, axis, parent, limits), frames, total mass
// and tree shape.
func (r *Robot) WriteSummary(w io.Writer) error {
	base := "fixed"
	if r.FloatingBase() {
		base = "floating (free-flyer " + r.Joints[0].Name + ")"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "robot      %s\n", r.Name)
	fmt.Fprintf(&b, "base       %s\n", base)
	fmt.Fprintf(&b, "nq, nv     %d, %d\n", r.NQ, r.NV)
	fmt.Fprintf(&b, "bodies     %d (frames %d)\n", len(r.Joints), len(r.Frames))
	fmt.Fprintf(&b, "mass       %.6g kg (moving bodies)\n", r.TotalMass())
	fmt.Fprintf(&b, "tree       depth %d, width %d (BFS level sizes %v)\n", r.Depth(), r.Width(), levelSizes(r))
	fmt.Fprintf(&b, "gravity    %v\n\n", r.Gravity)

	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tjoint\ttype\tq\tv\tparent\taxis\tlimits\tmass")
	for i, j := range r.Joints {
		parent := "world"
		if j.Parent >= 0 {
			parent = r.Joints[j.Parent].Name
		}
		axis := "-"
		if j.Type != FreeFlyer {
			axis = fmt.Sprintf("[%.4g %.4g %.4g]", j.Axis[0], j.Axis[1], j.Axis[2])
		}
		limits := "-"
		if j.Limits.Bounded {
			limits = fmt.Sprintf("[%.4g, %.4g]", j.Limits.Lower, j.Limits.Upper)
		}
		if j.Mimic != nil {
			limits += " mimics " + j.Mimic.Joint
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%d\t%s\t%s\t%s\t%.4g\n", i, j.Name, j.Type, j.Q, j.V, parent, axis, limits,
			j.Inertia.M)
	}
	tw.Flush()

	b.WriteString("\nframes (link: body)\n")
	for _, f := range r.Frames {
		body := "world"
		if f.Joint >= 0 {
			body = r.Joints[f.Joint].Name
		}
		fmt.Fprintf(&b, "  %s: %s\n", f.Name, body)
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", warn)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func levelSizes(r *Robot) []int {
	s := make([]int, len(r.Levels))
	for i, l := range r.Levels {
		s[i] = len(l)
	}
	return s
}
