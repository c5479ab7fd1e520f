package urdf

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/grid-rbd/grid-rbd/codegen/spatial"
)

// Options tune validation.
type Options struct {
	// StrictInertia rejects inertia tensors no rigid body has: not positive definite, or violating the
	// triangle inequality of principal moments. By default these are accepted with a warning, because
	// published robots carry them (the GRiD benchmark Atlas has an indefinite torso tensor) and the mass
	// matrix of the whole robot usually stays positive definite. Negative masses are always rejected.
	StrictInertia bool
}

// ParseFile reads and parses a URDF file with default options.
func ParseFile(path string) (*Robot, error) { return ParseFileWith(path, Options{}) }

// ParseFileWith reads and parses a URDF file.
func ParseFileWith(path string, opt Options) (*Robot, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r, err := ParseWith(data, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// Parse parses and validates a URDF document with default options.
func Parse(data []byte) (*Robot, error) { return ParseWith(data, Options{}) }

// ParseWith parses and validates a URDF document.
func ParseWith(data []byte, opt Options) (*Robot, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	robot, line, err := decodeDocument(d, opt)
	if err != nil {
		return nil, err
	}
	if err := robot.validateTree(line); err != nil {
		return nil, err
	}
	return robot, nil
}

// The raw element structures mirror the XML; numbers stay strings until converted with element context.
type xmlOrigin struct {
	XYZ string `xml:"xyz,attr"`
	RPY string `xml:"rpy,attr"`
}

type xmlValue struct {
	Value string `xml:"value,attr"`
}

type xmlInertial struct {
	Origin  *xmlOrigin `xml:"origin"`
	Mass    *xmlValue  `xml:"mass"`
	Inertia *struct {
		Ixx string `xml:"ixx,attr"`
		Ixy string `xml:"ixy,attr"`
		Ixz string `xml:"ixz,attr"`
		Iyy string `xml:"iyy,attr"`
		Iyz string `xml:"iyz,attr"`
		Izz string `xml:"izz,attr"`
	} `xml:"inertia"`
}

type xmlGeometry struct {
	Sphere *struct {
		Radius string `xml:"radius,attr"`
	} `xml:"sphere"`
	Box *struct {
		Size string `xml:"size,attr"`
	} `xml:"box"`
	Cylinder *struct {
		Radius string `xml:"radius,attr"`
		Length string `xml:"length,attr"`
	} `xml:"cylinder"`
	Mesh *struct {
		Filename string `xml:"filename,attr"`
		Scale    string `xml:"scale,attr"`
	} `xml:"mesh"`
}

type xmlCollision struct {
	Name     string       `xml:"name,attr"`
	Origin   *xmlOrigin   `xml:"origin"`
	Geometry *xmlGeometry `xml:"geometry"`
}

type xmlLink struct {
	Name       string         `xml:"name,attr"`
	Inertial   *xmlInertial   `xml:"inertial"`
	Collisions []xmlCollision `xml:"collision"`
}

type xmlJoint struct {
	Name   string     `xml:"name,attr"`
	Type   string     `xml:"type,attr"`
	Origin *xmlOrigin `xml:"origin"`
	Parent *struct {
		Link string `xml:"link,attr"`
	} `xml:"parent"`
	Child *struct {
		Link string `xml:"link,attr"`
	} `xml:"child"`
	Axis *struct {
		XYZ string `xml:"xyz,attr"`
	} `xml:"axis"`
	Limit *struct {
		Lower    string `xml:"lower,attr"`
		Upper    string `xml:"upper,attr"`
		Effort   string `xml:"effort,attr"`
		Velocity string `xml:"velocity,attr"`
	} `xml:"limit"`
	Dynamics *struct {
		Damping  string `xml:"damping,attr"`
		Friction string `xml:"friction,attr"`
	} `xml:"dynamics"`
	Mimic *struct {
		Joint      string `xml:"joint,attr"`
		Multiplier string `xml:"multiplier,attr"`
		Offset     string `xml:"offset,attr"`
	} `xml:"mimic"`
}

// decodeDocument walks the top level of the document, decoding each <link> and <joint> with its line. It
// also returns the line of the <robot> element.
func decodeDocument(d *xml.Decoder, opt Options) (*Robot, int, error) {
	var robot *Robot
	robotLine := 0
	depth := 0
	for {
		line, _ := d.InputPos()
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, 0, xmlError(err, line)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if depth == 1 {
				// The XML decoder accepts a sequence of top-level elements; a document has exactly one.
				if robot != nil {
					return nil, 0, fmt.Errorf("line %d: second root element <%s> after <robot> at line %d",
						line, t.Name.Local, robotLine)
				}
				if t.Name.Local != "robot" {
					return nil, 0, fmt.Errorf("line %d: root element is <%s>, want <robot>", line, t.Name.Local)
				}
				robot = &Robot{Name: attr(t, "name")}
				robotLine = line
				continue
			}
			if depth != 2 {
				continue
			}
			// InputPos after the start tag points at its end; the line of "<" is what a reader looks for.
			switch t.Name.Local {
			case "link":
				var x xmlLink
				if err := d.DecodeElement(&x, &t); err != nil {
					return nil, 0, xmlError(err, line)
				}
				depth--
				l, warn, err := convertLink(x, line, opt)
				if err != nil {
					return nil, 0, err
				}
				robot.Warnings = append(robot.Warnings, warn...)
				robot.Links = append(robot.Links, l)
			case "joint":
				var x xmlJoint
				if err := d.DecodeElement(&x, &t); err != nil {
					return nil, 0, xmlError(err, line)
				}
				depth--
				j, err := convertJoint(x, line)
				if err != nil {
					return nil, 0, err
				}
				robot.Joints = append(robot.Joints, j)
			}
		case xml.EndElement:
			depth--
		}
	}
	if robot == nil {
		return nil, 0, errors.New("no <robot> element: not a URDF document")
	}
	return robot, robotLine, nil
}

func xmlError(err error, line int) error {
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("malformed XML at line %d: %s", se.Line, se.Msg)
	}
	return fmt.Errorf("malformed XML near line %d: %v", line, err)
}

func attr(t xml.StartElement, name string) string {
	for _, a := range t.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// numbers parses a whitespace-separated list of n finite numbers; an empty string gives def.
func numbers(s string, n int, def []float64, what string) ([]float64, error) {
	fields := strings.Fields(s)
	if len(fields) == 0 && def != nil {
		return def, nil
	}
	if len(fields) != n {
		return nil, fmt.Errorf("%s: want %d numbers, got %q", what, n, s)
	}
	out := make([]float64, n)
	for i, f := range fields {
		v, err := number(f, what)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// number parses one finite number.
func number(s, what string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not a number", what, s)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s: %q is not finite", what, s)
	}
	return v, nil
}

// optNumber parses an optional attribute, giving def when absent.
func optNumber(s string, def float64, what string) (float64, error) {
	if strings.TrimSpace(s) == "" {
		return def, nil
	}
	return number(s, what)
}

func vec3(v []float64) spatial.Vec3 { return spatial.Vec3{v[0], v[1], v[2]} }

var zero3 = []float64{0, 0, 0}

func convertOrigin(o *xmlOrigin, what string) (Pose, error) {
	if o == nil {
		return Pose{}, nil
	}
	xyz, err := numbers(o.XYZ, 3, zero3, what+" origin xyz")
	if err != nil {
		return Pose{}, err
	}
	rpy, err := numbers(o.RPY, 3, zero3, what+" origin rpy")
	if err != nil {
		return Pose{}, err
	}
	return Pose{XYZ: vec3(xyz), RPY: vec3(rpy)}, nil
}

func convertLink(x xmlLink, line int, opt Options) (Link, []string, error) {
	if x.Name == "" {
		return Link{}, nil, fmt.Errorf("line %d: <link> has no name", line)
	}
	what := fmt.Sprintf("line %d: link %q", line, x.Name)
	l := Link{Name: x.Name, Line: line}
	var warnings []string
	if x.Inertial != nil {
		in, err := convertInertial(x.Inertial, what)
		if err != nil {
			return Link{}, nil, err
		}
		if err := checkInertia(in.Tensor()); err != nil {
			if opt.StrictInertia {
				return Link{}, nil, fmt.Errorf("%s: %v", what, err)
			}
			warnings = append(warnings, fmt.Sprintf("%s: %v (accepted; strict inertia checking rejects it)", what, err))
		}
		l.Inertial = in
	}
	for _, c := range x.Collisions {
		col, err := convertCollision(c, what)
		if err != nil {
			return Link{}, nil, err
		}
		l.Collisions = append(l.Collisions, col)
	}
	return l, warnings, nil
}

func convertInertial(x *xmlInertial, what string) (*Inertial, error) {
	origin, err := convertOrigin(x.Origin, what+" inertial")
	if err != nil {
		return nil, err
	}
	in := &Inertial{Origin: origin}
	if x.Mass == nil {
		return nil, fmt.Errorf("%s: <inertial> has no <mass>", what)
	}
	if in.Mass, err = number(x.Mass.Value, what+" mass"); err != nil {
		return nil, err
	}
	if in.Mass < 0 {
		return nil, fmt.Errorf("%s: negative mass %g", what, in.Mass)
	}
	if x.Inertia != nil {
		t := x.Inertia
		for i, s := range []string{t.Ixx, t.Ixy, t.Ixz, t.Iyy, t.Iyz, t.Izz} {
			if in.Inertia[i], err = optNumber(s, 0, what+" inertia"); err != nil {
				return nil, err
			}
		}
	}
	return in, nil
}

// checkInertia accepts the zero tensor (point masses, massless links) and physically realisable tensors:
// positive definite with principal moments obeying the triangle inequality, both to a tolerance of 1e-9
// of the trace.
//
// The eigenvalues are computed for the tensor divided by its largest absolute entry, so that finite but
// extreme entries neither overflow (which gave NaN moments that passed every comparison) nor underflow.
func checkInertia(t spatial.Mat3) error {
	s := 0.0
	for _, row := range t {
		for _, v := range row {
			s = math.Max(s, math.Abs(v))
		}
	}
	if s == 0 {
		return nil
	}
	var u spatial.Mat3
	for r, row := range t {
		for c, v := range row {
			u[r][c] = v / s
		}
	}
	ev := symEigenvalues(u)
	tr := ev[0] + ev[1] + ev[2]
	tol := 1e-9 * math.Abs(tr)
	moments := fmt.Sprintf("principal moments %.6g, %.6g, %.6g", s*ev[0], s*ev[1], s*ev[2])
	if ev[0] <= tol || tr <= 0 {
		return fmt.Errorf("inertia tensor is not positive definite (%s)", moments)
	}
	if ev[0]+ev[1] < ev[2]-tol {
		return fmt.Errorf("inertia tensor violates the triangle inequality (%s)", moments)
	}
	return nil
}

// symEigenvalues returns the eigenvalues of a symmetric 3×3 matrix in ascending order (closed form).
func symEigenvalues(a spatial.Mat3) [3]float64 {
	p1 := a[0][1]*a[0][1] + a[0][2]*a[0][2] + a[1][2]*a[1][2]
	q := (a[0][0] + a[1][1] + a[2][2]) / 3
	if p1 == 0 {
		ev := []float64{a[0][0], a[1][1], a[2][2]}
		sort.Float64s(ev)
		return [3]float64{ev[0], ev[1], ev[2]}
	}
	p2 := (a[0][0]-q)*(a[0][0]-q) + (a[1][1]-q)*(a[1][1]-q) + (a[2][2]-q)*(a[2][2]-q) + 2*p1
	p := math.Sqrt(p2 / 6)
	// b = (a - q·I)/p, dividing rather than multiplying by 1/p, which can overflow when p is tiny.
	b := a
	for r := range 3 {
		b[r][r] -= q
		for c := range 3 {
			b[r][c] /= p
		}
	}
	det := b[0][0]*(b[1][1]*b[2][2]-b[1][2]*b[2][1]) - b[0][1]*(b[1][0]*b[2][2]-b[1][2]*b[2][0]) +
		b[0][2]*(b[1][0]*b[2][1]-b[1][1]*b[2][0])
	r := math.Max(-1, math.Min(1, det/2))
	phi := math.Acos(r) / 3
	hi := q + 2*p*math.Cos(phi)
	lo := q + 2*p*math.Cos(phi+2*math.Pi/3)
	return [3]float64{lo, 3*q - hi - lo, hi}
}

func convertCollision(x xmlCollision, what string) (Collision, error) {
	what += " collision"
	origin, err := convertOrigin(x.Origin, what)
	if err != nil {
		return Collision{}, err
	}
	c := Collision{Name: x.Name, Origin: origin}
	g := x.Geometry
	switch {
	case g == nil:
		return Collision{}, fmt.Errorf("%s: no <geometry>", what)
	case g.Sphere != nil:
		r, err := number(g.Sphere.Radius, what+" sphere radius")
		if err != nil {
			return Collision{}, err
		}
		c.Geometry = Geometry{Kind: Sphere, Size: []float64{r}}
	case g.Box != nil:
		s, err := numbers(g.Box.Size, 3, nil, what+" box size")
		if err != nil {
			return Collision{}, err
		}
		c.Geometry = Geometry{Kind: Box, Size: s}
	case g.Cylinder != nil:
		r, err := number(g.Cylinder.Radius, what+" cylinder radius")
		if err != nil {
			return Collision{}, err
		}
		h, err := number(g.Cylinder.Length, what+" cylinder length")
		if err != nil {
			return Collision{}, err
		}
		c.Geometry = Geometry{Kind: Cylinder, Size: []float64{r, h}}
	case g.Mesh != nil:
		s, err := numbers(g.Mesh.Scale, 3, []float64{1, 1, 1}, what+" mesh scale")
		if err != nil {
			return Collision{}, err
		}
		c.Geometry = Geometry{Kind: Mesh, Filename: g.Mesh.Filename, Scale: vec3(s)}
	default:
		return Collision{}, fmt.Errorf("%s: <geometry> has no sphere, box, cylinder or mesh", what)
	}
	for _, s := range c.Geometry.Size {
		if s < 0 {
			return Collision{}, fmt.Errorf("%s: negative size %g", what, s)
		}
	}
	return c, nil
}

func parseJointType(s string) (JointType, error) {
	for t, name := range jointTypeNames {
		if name == s {
			return t, nil
		}
	}
	if s == "planar" {
		return 0, errors.New(`type "planar" is not supported (model the plane with two prismatic joints and a revolute joint)`)
	}
	return 0, fmt.Errorf("unknown joint type %q (want revolute, continuous, prismatic, fixed or floating)", s)
}

func convertJoint(x xmlJoint, line int) (Joint, error) {
	if x.Name == "" {
		return Joint{}, fmt.Errorf("line %d: <joint> has no name", line)
	}
	what := fmt.Sprintf("line %d: joint %q", line, x.Name)
	typ, err := parseJointType(x.Type)
	if err != nil {
		return Joint{}, fmt.Errorf("%s: %v", what, err)
	}
	j := Joint{Name: x.Name, Line: line, Type: typ}
	if x.Parent == nil || x.Parent.Link == "" {
		return Joint{}, fmt.Errorf("%s: no <parent link=...>", what)
	}
	if x.Child == nil || x.Child.Link == "" {
		return Joint{}, fmt.Errorf("%s: no <child link=...>", what)
	}
	j.Parent, j.Child = x.Parent.Link, x.Child.Link
	if j.Origin, err = convertOrigin(x.Origin, what); err != nil {
		return Joint{}, err
	}
	axis := []float64{1, 0, 0}
	if x.Axis != nil {
		if axis, err = numbers(x.Axis.XYZ, 3, axis, what+" axis"); err != nil {
			return Joint{}, err
		}
	}
	a := vec3(axis)
	if unit, n := normalise(a); n < 1e-12 {
		if typ == Revolute || typ == Continuous || typ == Prismatic {
			return Joint{}, fmt.Errorf("%s: zero axis", what)
		}
	} else {
		a = unit
	}
	j.Axis = a
	if l := x.Limit; l != nil {
		lim := &Limit{}
		fields := []struct {
			s   string
			dst *float64
			nm  string
		}{{l.Lower, &lim.Lower, "lower"}, {l.Upper, &lim.Upper, "upper"}, {l.Effort, &lim.Effort, "effort"}, {l.Velocity, &lim.Velocity, "velocity"}}
		for _, f := range fields {
			if *f.dst, err = optNumber(f.s, 0, what+" limit "+f.nm); err != nil {
				return Joint{}, err
			}
		}
		if lim.Lower > lim.Upper {
			return Joint{}, fmt.Errorf("%s: limit lower %g exceeds upper %g", what, lim.Lower, lim.Upper)
		}
		j.Limit = lim
	}
	if dy := x.Dynamics; dy != nil {
		dyn := &Dynamics{}
		if dyn.Damping, err = optNumber(dy.Damping, 0, what+" damping"); err != nil {
			return Joint{}, err
		}
		if dyn.Friction, err = optNumber(dy.Friction, 0, what+" friction"); err != nil {
			return Joint{}, err
		}
		j.Dynamics = dyn
	}
	if m := x.Mimic; m != nil {
		if m.Joint == "" {
			return Joint{}, fmt.Errorf("%s: <mimic> names no joint", what)
		}
		mim := &Mimic{Joint: m.Joint}
		if mim.Multiplier, err = optNumber(m.Multiplier, 1, what+" mimic multiplier"); err != nil {
			return Joint{}, err
		}
		if mim.Offset, err = optNumber(m.Offset, 0, what+" mimic offset"); err != nil {
			return Joint{}, err
		}
		j.Mimic = mim
	}
	return j, nil
}

// normalise returns a/|a| and |a|. It divides by the largest absolute component first, so that the norm
// of a vector with huge or tiny components neither overflows nor underflows on the way to the unit vector.
// The unit vector is zero when a is.
func normalise(a spatial.Vec3) (spatial.Vec3, float64) {
	m := math.Max(math.Abs(a[0]), math.Max(math.Abs(a[1]), math.Abs(a[2])))
	if m == 0 {
		return spatial.Vec3{}, 0
	}
	b := spatial.Vec3{a[0] / m, a[1] / m, a[2] / m}
	n := b.Norm()
	return b.Scale(1 / n), m * n
}

func sortJoints(js []*Joint) {
	sort.Slice(js, func(a, b int) bool { return js[a].Name < js[b].Name })
}

// validateTree checks names and the link graph: unique names, joints naming existing links, one parent
// per link, exactly one root and no cycles. robotLine is the line of the <robot> element.
func (r *Robot) validateTree(robotLine int) error {
	if len(r.Links) == 0 {
		return fmt.Errorf("line %d: robot %q has no <link>", robotLine, r.Name)
	}
	links := map[string]*Link{}
	for i := range r.Links {
		l := &r.Links[i]
		if prev, ok := links[l.Name]; ok {
			return fmt.Errorf("line %d: link %q already defined at line %d", l.Line, l.Name, prev.Line)
		}
		links[l.Name] = l
	}
	joints := map[string]*Joint{}
	parentOf := map[string]*Joint{}
	for i := range r.Joints {
		j := &r.Joints[i]
		if prev, ok := joints[j.Name]; ok {
			return fmt.Errorf("line %d: joint %q already defined at line %d", j.Line, j.Name, prev.Line)
		}
		joints[j.Name] = j
		for _, l := range []string{j.Parent, j.Child} {
			if links[l] == nil {
				return fmt.Errorf("line %d: joint %q names link %q, which is not defined", j.Line, j.Name, l)
			}
		}
		if j.Parent == j.Child {
			return fmt.Errorf("line %d: joint %q connects link %q to itself", j.Line, j.Name, j.Parent)
		}
		if prev, ok := parentOf[j.Child]; ok {
			return fmt.Errorf("line %d: link %q has two parent joints, %q (line %d) and %q", j.Line, j.Child,
				prev.Name, prev.Line, j.Name)
		}
		parentOf[j.Child] = j
	}
	for i := range r.Joints {
		if m := r.Joints[i].Mimic; m != nil && joints[m.Joint] == nil {
			return fmt.Errorf("line %d: joint %q mimics joint %q, which is not defined", r.Joints[i].Line,
				r.Joints[i].Name, m.Joint)
		}
	}
	var roots []*Link
	for i := range r.Links {
		if parentOf[r.Links[i].Name] == nil {
			roots = append(roots, &r.Links[i])
		}
	}
	switch {
	case len(roots) == 0:
		// Every link has a parent, so following parents from any link must loop.
		return cycleError(r.Links[0].Name, parentOf)
	case len(roots) > 1:
		names := make([]string, len(roots))
		for i, l := range roots {
			names[i] = fmt.Sprintf("%q (line %d)", l.Name, l.Line)
		}
		return fmt.Errorf("line %d: link %q is a second root: robot has %d root links (%s); every link but "+
			"one must be a joint's child", roots[1].Line, roots[1].Name, len(roots), strings.Join(names, ", "))
	}
	r.Root = roots[0].Name
	// With one root, a link not reachable from it sits on a cycle.
	reached := map[string]bool{r.Root: true}
	stack := []string{r.Root}
	for len(stack) > 0 {
		l := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, j := range r.ChildJoints(l) {
			reached[j.Child] = true
			stack = append(stack, j.Child)
		}
	}
	for _, l := range r.Links {
		if !reached[l.Name] {
			return cycleError(l.Name, parentOf)
		}
	}
	return nil
}

func cycleError(start string, parentOf map[string]*Joint) error {
	seen := map[string]bool{}
	l := start
	for !seen[l] {
		seen[l] = true
		l = parentOf[l].Parent
	}
	// l is on the cycle: list it once around.
	path := []string{l}
	j := parentOf[l]
	for j.Parent != l {
		path = append(path, j.Parent)
		j = parentOf[j.Parent]
	}
	line := parentOf[l].Line
	return fmt.Errorf("line %d: joints form a cycle through links %s", line, strings.Join(path, " <- "))
}
