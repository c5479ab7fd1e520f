package urdf

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/grid-rbd/grid-rbd/codegen/spatial"
)

var strict = Options{StrictInertia: true}

// Every document below starts with <robot> on line 1 unless its case says otherwise, so the line of an
// element is its line in the literal.
var errorCases = []struct {
	name    string
	urdf    string
	opts    Options
	wantErr []string
}{
	{
		name: "malformed XML: mismatched end tag",
		urdf: `<robot name="r">
  <link name="a"/>
  <link name="b">
    <inertial>
  </link>
</robot>`,
		wantErr: []string{"malformed XML", "line 5", "<inertial>"},
	},
	{
		name: "malformed XML: unquoted attribute",
		urdf: `<robot name="r">
  <link name="a"/>
  <joint name=j type="fixed">
  </joint>
</robot>`,
		wantErr: []string{"malformed XML", "line 3"},
	},
	{
		name: "malformed XML: truncated document",
		urdf: `<robot name="r">
  <link name="a"/>
  <link name="b">`,
		wantErr: []string{"malformed XML", "line 3"},
	},
	{
		name: "malformed XML: bad entity at top level",
		urdf: `<robot name="r">
  <link name="a"/>

  &nope;
</robot>`,
		wantErr: []string{"malformed XML", "line 4"},
	},
	{
		name: "unknown joint type",
		urdf: `<robot name="r">
  <link name="a"/>
  <link name="b"/>
  <joint name="j1" type="hinge">
    <parent link="a"/>
    <child link="b"/>
  </joint>
</robot>`,
		wantErr: []string{"line 4", `joint "j1"`, `unknown joint type "hinge"`},
	},
	{
		name: "missing joint type",
		urdf: `<robot name="r">
  <link name="a"/>
  <link name="b"/>
  <joint name="j1">
    <parent link="a"/>
    <child link="b"/>
  </joint>
</robot>`,
		wantErr: []string{"line 4", `joint "j1"`, `unknown joint type ""`},
	},
	{
		name: "planar joint",
		urdf: `<robot name="r">
  <link name="a"/>
  <link name="b"/>

  <joint name="slide_plane" type="planar">
    <parent link="a"/>
    <child link="b"/>
    <axis xyz="0 0 1"/>
  </joint>
</robot>`,
		wantErr: []string{"line 5", `joint "slide_plane"`, `"planar" is not supported`},
	},
	{
		name: "joint names a missing child link",
		urdf: `<robot name="r">
  <link name="a"/>
  <link name="b"/>
  <joint name="j1" type="fixed">
    <parent link="a"/>
    <child link="b"/>
  </joint>
  <joint name="j2" type="fixed">
    <parent link="b"/>
    <child link="c"/>
  </joint>
</robot>`,
		wantErr: []string{"line 8", `joint "j2"`, `link "c"`, "not defined"},
	},
	{
		name: "joint names a missing parent link",
		urdf: `<robot name="r">
  <link name="b"/>
  <joint name="j1" type="fixed">
    <parent link="ghost"/>
    <child link="b"/>
  </joint>
</robot>`,
		wantErr: []string{"line 3", `joint "j1"`, `link "ghost"`, "not defined"},
	},
	{
		name: "joint connects a link to itself",
		urdf: `<robot name="r">
  <link name="a"/>
  <joint name="loop" type="fixed">
    <parent link="a"/>
    <child link="a"/>
  </joint>
</robot>`,
		wantErr: []string{"line 3", `joint "loop"`, `link "a" to itself`},
	},
	{
		name: "two roots",
		urdf: `<robot name="r">
  <link name="a"/>
  <link name="b"/>
  <link name="c"/>
  <joint name="j1" type="fixed">
    <parent link="a"/>
    <child link="b"/>
  </joint>
</robot>`,
		wantErr: []string{"line 4", `link "c"`, "2 root links", `"a" (line 2)`, `"c" (line 4)`},
	},
	{
		name: "cycle with no root",
		urdf: `<robot name="r">
  <link name="a"/>
  <link name="b"/>
  <joint name="ab" type="fixed">
    <parent link="a"/>
    <child link="b"/>
  </joint>
  <joint name="ba" type="fixed">
    <parent link="b"/>
    <child link="a"/>
  </joint>
</robot>`,
		wantErr: []string{"line 8", "cycle", "a <- b"},
	},
	{
		name: "cycle beside a root",
		urdf: `<robot name="r">
  <link name="base"/>
  <link name="a"/>
  <link name="b"/>
  <link name="c"/>
  <joint name="ab" type="revolute">
    <parent link="a"/>
    <child link="b"/>
  </joint>
  <joint name="bc" type="revolute">
    <parent link="b"/>
    <child link="c"/>
  </joint>
  <joint name="ca" type="revolute">
    <parent link="c"/>
    <child link="a"/>
  </joint>
</robot>`,
		wantErr: []string{"line 14", "cycle", "a <- c <- b"},
	},
	{
		name: "link with two parents",
		urdf: `<robot name="r">
  <link name="a"/>
  <link name="b"/>
  <link name="c"/>
  <joint name="ab" type="fixed">
    <parent link="a"/>
    <child link="b"/>
  </joint>
  <joint name="ac" type="fixed">
    <parent link="a"/>
    <child link="c"/>
  </joint>
  <joint name="bc" type="fixed">
    <parent link="b"/>
    <child link="c"/>
  </joint>
</robot>`,
		wantErr: []string{"line 13", `link "c" has two parent joints`, `"ac" (line 9)`, `"bc"`},
	},
	{
		name: "negative mass",
		urdf: `<robot name="r">
  <link name="heavy">
    <inertial>
      <mass value="-1.5"/>
      <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/>
    </inertial>
  </link>
</robot>`,
		wantErr: []string{"line 2", `link "heavy"`, "negative mass -1.5"},
	},
	{
		name: "inertial without mass",
		urdf: `<robot name="r">
  <link name="a">
    <inertial>
      <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/>
    </inertial>
  </link>
</robot>`,
		wantErr: []string{"line 2", `link "a"`, "no <mass>"},
	},
	{
		name: "inertia not positive definite (strict)",
		urdf: `<robot name="r">
  <link name="base"/>
  <link name="bad_body">
    <inertial>
      <mass value="1"/>
      <inertia ixx="1" ixy="2" ixz="0" iyy="1" iyz="0" izz="1"/>
    </inertial>
  </link>
  <joint name="j" type="fixed">
    <parent link="base"/>
    <child link="bad_body"/>
  </joint>
</robot>`,
		opts:    strict,
		wantErr: []string{"line 3", `link "bad_body"`, "not positive definite"},
	},
	{
		name: "inertia violates the triangle inequality (strict)",
		urdf: `<robot name="r">
  <link name="rod">
    <inertial>
      <mass value="1"/>
      <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="3"/>
    </inertial>
  </link>
</robot>`,
		opts:    strict,
		wantErr: []string{"line 2", `link "rod"`, "triangle inequality"},
	},
	{
		name: "indefinite inertia with huge entries (strict)",
		urdf: `<robot name="r">
  <link name="a">
    <inertial>
      <mass value="1"/>
      <inertia ixx="-1e200" ixy="1e200" ixz="1e200" iyy="-1e200" iyz="1e200" izz="-1e200"/>
    </inertial>
  </link>
</robot>`,
		opts:    strict,
		wantErr: []string{"line 2", `link "a"`, "not positive definite"},
	},
	{
		name: "indefinite inertia with tiny entries (strict)",
		urdf: `<robot name="r">
  <link name="a">
    <inertial>
      <mass value="1"/>
      <inertia ixx="0" ixy="1e-170" ixz="0" iyy="0" iyz="0" izz="0"/>
    </inertial>
  </link>
</robot>`,
		opts:    strict,
		wantErr: []string{"line 2", `link "a"`, "not positive definite"},
	},
	{
		name: "NaN in a joint origin",
		urdf: `<robot name="r">
  <link name="a"/>
  <link name="b"/>
  <joint name="j1" type="revolute">
    <parent link="a"/>
    <child link="b"/>
    <origin xyz="0 NaN 0" rpy="0 0 0"/>
    <axis xyz="0 0 1"/>
  </joint>
</robot>`,
		wantErr: []string{"line 4", `joint "j1" origin xyz`, `"NaN" is not finite`},
	},
	{
		name: "Inf in an inertial origin rpy",
		urdf: `<robot name="r">
  <link name="a">
    <inertial>
      <origin xyz="0 0 0" rpy="0 +Inf 0"/>
      <mass value="1"/>
    </inertial>
  </link>
</robot>`,
		wantErr: []string{"line 2", `link "a" inertial origin rpy`, `"+Inf" is not finite`},
	},
	{
		name: "NaN in a collision origin",
		urdf: `<robot name="r">
  <link name="a">
    <collision>
      <origin xyz="nan 0 0"/>
      <geometry><sphere radius="1"/></geometry>
    </collision>
  </link>
</robot>`,
		wantErr: []string{"line 2", `link "a" collision origin xyz`, `"nan" is not finite`},
	},
	{
		name: "Inf mass",
		urdf: `<robot name="r">
  <link name="a">
    <inertial>
      <mass value="Inf"/>
    </inertial>
  </link>
</robot>`,
		wantErr: []string{"line 2", `link "a" mass`, `"Inf" is not finite`},
	},
	{
		name: "NaN mass",
		urdf: `<robot name="r">
  <link name="a">
    <inertial>
      <mass value="NaN"/>
    </inertial>
  </link>
</robot>`,
		wantErr: []string{"line 2", `link "a" mass`, `"NaN" is not finite`},
	},
	{
		name: "mass out of float64 range",
		urdf: `<robot name="r">
  <link name="a">
    <inertial>
      <mass value="1e999"/>
    </inertial>
  </link>
</robot>`,
		wantErr: []string{"line 2", `link "a" mass`, `"1e999" is not a number`},
	},
	{
		name: "NaN inertia entry",
		urdf: `<robot name="r">
  <link name="a">
    <inertial>
      <mass value="1"/>
      <inertia ixx="1" ixy="0" ixz="0" iyy="NaN" iyz="0" izz="1"/>
    </inertial>
  </link>
</robot>`,
		wantErr: []string{"line 2", `link "a" inertia`, `"NaN" is not finite`},
	},
	{
		name: "Inf in an axis",
		urdf: `<robot name="r">
  <link name="a"/>
  <link name="b"/>
  <joint name="j1" type="revolute">
    <parent link="a"/>
    <child link="b"/>
    <axis xyz="0 0 -Inf"/>
  </joint>
</robot>`,
		wantErr: []string{"line 4", `joint "j1" axis`, `"-Inf" is not finite`},
	},
	{
		name: "NaN in an axis",
		urdf: `<robot name="r">
  <link name="a"/>
  <link name="b"/>
  <joint name="j1" type="fixed">
    <parent link="a"/>
    <child link="b"/>
    <axis xyz="NaN 0 0"/>
  </joint>
</robot>`,
		wantErr: []string{"line 4", `joint "j1" axis`, `"NaN" is not finite`},
	},
	{
		name: "not a number in a limit",
		urdf: `<robot name="r">
  <link name="a"/>
  <link name="b"/>
  <joint name="j1" type="revolute">
    <parent link="a"/>
    <child link="b"/>
    <limit lower="-1" upper="one" effort="1" velocity="1"/>
  </joint>
</robot>`,
		wantErr: []string{"line 4", `joint "j1" limit upper`, `"one" is not a number`},
	},
	{
		name: "zero axis on a revolute joint",
		urdf: `<robot name="r">
  <link name="a"/>
  <link name="b"/>
  <joint name="j1" type="revolute">
    <parent link="a"/>
    <child link="b"/>
    <axis xyz="0 0 0"/>
  </joint>
</robot>`,
		wantErr: []string{"line 4", `joint "j1"`, "zero axis"},
	},
	{
		name: "zero axis on a prismatic joint",
		urdf: `<robot name="r">
  <link name="a"/>
  <link name="b"/>
  <joint name="slide" type="prismatic">
    <parent link="a"/>
    <child link="b"/>
    <axis xyz="0.0 -0.0 0e5"/>
  </joint>
</robot>`,
		wantErr: []string{"line 4", `joint "slide"`, "zero axis"},
	},
	{
		name: "missing parent element",
		urdf: `<robot name="r">
  <link name="a"/>
  <link name="b"/>
  <joint name="j1" type="fixed">
    <child link="b"/>
  </joint>
</robot>`,
		wantErr: []string{"line 4", `joint "j1"`, "no <parent link=...>"},
	},
	{
		name: "parent element without link",
		urdf: `<robot name="r">
  <link name="a"/>
  <link name="b"/>
  <joint name="j1" type="fixed">
    <parent/>
    <child link="b"/>
  </joint>
</robot>`,
		wantErr: []string{"line 4", `joint "j1"`, "no <parent link=...>"},
	},
	{
		name: "missing child element",
		urdf: `<robot name="r">
  <link name="a"/>
  <link name="b"/>
  <joint name="j1" type="fixed">
    <parent link="a"/>
  </joint>
</robot>`,
		wantErr: []string{"line 4", `joint "j1"`, "no <child link=...>"},
	},
	{
		name: "duplicate link name",
		urdf: `<robot name="r">
  <link name="a"/>
  <link name="b"/>
  <joint name="j1" type="fixed">
    <parent link="a"/>
    <child link="b"/>
  </joint>
  <link name="b"/>
</robot>`,
		wantErr: []string{"line 8", `link "b" already defined at line 3`},
	},
	{
		name: "duplicate joint name",
		urdf: `<robot name="r">
  <link name="a"/>
  <link name="b"/>
  <link name="c"/>
  <joint name="j" type="fixed">
    <parent link="a"/>
    <child link="b"/>
  </joint>
  <joint name="j" type="fixed">
    <parent link="a"/>
    <child link="c"/>
  </joint>
</robot>`,
		wantErr: []string{"line 9", `joint "j" already defined at line 5`},
	},
	{
		name: "link without a name",
		urdf: `<robot name="r">
  <link name="a"/>
  <link>
  </link>
</robot>`,
		wantErr: []string{"line 3", "<link> has no name"},
	},
	{
		name: "joint without a name",
		urdf: `<robot name="r">
  <link name="a"/>
  <joint type="fixed"/>
</robot>`,
		wantErr: []string{"line 3", "<joint> has no name"},
	},
	{
		name: "two numbers in an origin xyz",
		urdf: `<robot name="r">
  <link name="a"/>
  <link name="b"/>
  <joint name="j1" type="fixed">
    <parent link="a"/>
    <child link="b"/>
    <origin xyz="1 2"/>
  </joint>
</robot>`,
		wantErr: []string{"line 4", `joint "j1" origin xyz`, `want 3 numbers, got "1 2"`},
	},
	{
		name: "four numbers in an axis",
		urdf: `<robot name="r">
  <link name="a"/>
  <link name="b"/>
  <joint name="j1" type="revolute">
    <parent link="a"/>
    <child link="b"/>
    <axis xyz="0 0 1 0"/>
  </joint>
</robot>`,
		wantErr: []string{"line 4", `joint "j1" axis`, `want 3 numbers, got "0 0 1 0"`},
	},
	{
		name: "two numbers in a box size",
		urdf: `<robot name="r">
  <link name="a">
    <collision>
      <geometry><box size="1 1"/></geometry>
    </collision>
  </link>
</robot>`,
		wantErr: []string{"line 2", `link "a" collision box size`, "want 3 numbers"},
	},
	{
		name: "collision without geometry",
		urdf: `<robot name="r">
  <link name="a">
    <collision name="c"/>
  </link>
</robot>`,
		wantErr: []string{"line 2", `link "a" collision`, "no <geometry>"},
	},
	{
		name: "empty geometry",
		urdf: `<robot name="r">
  <link name="a">
    <collision>
      <geometry/>
    </collision>
  </link>
</robot>`,
		wantErr: []string{"line 2", `link "a" collision`, "no sphere, box, cylinder or mesh"},
	},
	{
		name: "negative sphere radius",
		urdf: `<robot name="r">
  <link name="a">
    <collision>
      <geometry><sphere radius="-0.1"/></geometry>
    </collision>
  </link>
</robot>`,
		wantErr: []string{"line 2", `link "a" collision`, "negative size -0.1"},
	},
	{
		name: "limit lower above upper",
		urdf: `<robot name="r">
  <link name="a"/>
  <link name="b"/>
  <joint name="elbow" type="revolute">
    <parent link="a"/>
    <child link="b"/>
    <axis xyz="0 1 0"/>
    <limit lower="2" upper="1" effort="10" velocity="1"/>
  </joint>
</robot>`,
		wantErr: []string{"line 4", `joint "elbow"`, "limit lower 2 exceeds upper 1"},
	},
	{
		name: "mimic of an unknown joint",
		urdf: `<robot name="r">
  <link name="a"/>
  <link name="b"/>
  <link name="c"/>
  <joint name="finger1" type="prismatic">
    <parent link="a"/>
    <child link="b"/>
  </joint>
  <joint name="finger2" type="prismatic">
    <parent link="a"/>
    <child link="c"/>
    <mimic joint="finger_one"/>
  </joint>
</robot>`,
		wantErr: []string{"line 9", `joint "finger2" mimics joint "finger_one"`, "not defined"},
	},
	{
		name: "mimic naming no joint",
		urdf: `<robot name="r">
  <link name="a"/>
  <link name="b"/>
  <joint name="j1" type="revolute">
    <parent link="a"/>
    <child link="b"/>
    <mimic multiplier="2"/>
  </joint>
</robot>`,
		wantErr: []string{"line 4", `joint "j1"`, "<mimic> names no joint"},
	},
	{
		name: "root element is not robot",
		urdf: `<?xml version="1.0"?>
<!-- an SDF model, not a URDF robot -->
<model name="r">
  <link name="a"/>
</model>`,
		wantErr: []string{"line 3", "root element is <model>, want <robot>"},
	},
	{
		name: "second root element",
		urdf: `<robot name="r">
  <link name="a"/>
</robot>
<robot name="s">
  <link name="b"/>
</robot>`,
		wantErr: []string{"line 4", "second root element <robot>", "line 1"},
	},
	{
		name:    "robot without links",
		urdf:    "<?xml version=\"1.0\"?>\n<robot name=\"r\">\n</robot>\n",
		wantErr: []string{"line 2", `robot "r" has no <link>`},
	},
	{
		name:    "empty document",
		urdf:    "",
		wantErr: []string{"no <robot> element"},
	},
	{
		name:    "blank document",
		urdf:    "  \n\t\n",
		wantErr: []string{"no <robot> element"},
	},
	{
		name:    "only a declaration and a comment",
		urdf:    "<?xml version=\"1.0\"?>\n<!-- <robot name=\"r\"><link name=\"a\"/></robot> -->\n",
		wantErr: []string{"no <robot> element"},
	},
}

func TestParseErrors(t *testing.T) {
	for _, tc := range errorCases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ParseWith([]byte(tc.urdf), tc.opts)
			if err == nil {
				t.Fatalf("ParseWith succeeded, want an error containing %q; robot: %+v", tc.wantErr, r)
			}
			if r != nil {
				t.Errorf("ParseWith returned a robot with its error: %+v", r)
			}
			for _, want := range tc.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}
}

// TestInertiaWarnings checks that implausible inertia tensors, rejected by strict parsing, are accepted by
// default and reported in Robot.Warnings with the link's name and line.
func TestInertiaWarnings(t *testing.T) {
	tests := []struct {
		name, urdf string
		want       []string
	}{
		{
			name: "not positive definite",
			urdf: `<robot name="r">
  <link name="base"/>
  <link name="bad_body">
    <inertial>
      <mass value="1"/>
      <inertia ixx="1" ixy="2" ixz="0" iyy="1" iyz="0" izz="1"/>
    </inertial>
  </link>
  <joint name="j" type="fixed">
    <parent link="base"/>
    <child link="bad_body"/>
  </joint>
</robot>`,
			want: []string{"line 3", `link "bad_body"`, "not positive definite", "accepted"},
		},
		{
			name: "triangle inequality",
			urdf: `<robot name="r">
  <link name="rod">
    <inertial>
      <mass value="1"/>
      <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="3"/>
    </inertial>
  </link>
</robot>`,
			want: []string{"line 2", `link "rod"`, "triangle inequality", "accepted"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Parse([]byte(tc.urdf))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if len(r.Warnings) != 1 {
				t.Fatalf("got %d warnings %q, want 1", len(r.Warnings), r.Warnings)
			}
			for _, want := range tc.want {
				if !strings.Contains(r.Warnings[0], want) {
					t.Errorf("warning %q does not contain %q", r.Warnings[0], want)
				}
			}
			if _, err := ParseWith([]byte(tc.urdf), strict); err == nil {
				t.Errorf("strict parsing accepted the tensor")
			}
		})
	}
}

// TestParseAllElements parses a document using every element the parser reads and compares the result
// with a hand-written Robot.
func TestParseAllElements(t *testing.T) {
	const doc = `<?xml version="1.0"?>
<!-- every element the parser reads -->
<robot name="sample" xmlns:xacro="http://www.ros.org/wiki/xacro">
  <material name="grey"><color rgba="0.5 0.5 0.5 1"/></material>
  <link name="base">
    <inertial>
      <origin xyz="0.1 -0.2 0.3" rpy="0.5 -0.25 1.5"/>
      <mass value="2.5"/>
      <inertia ixx="0.3" ixy="0.01" ixz="-0.02" iyy="0.4" iyz="0.03" izz="0.5"/>
    </inertial>
    <visual>
      <geometry><box size="9 9 9"/></geometry>
      <material name="grey"/>
    </visual>
    <collision name="ball">
      <origin xyz="0 0 0.1"/>
      <geometry><sphere radius="0.05"/></geometry>
    </collision>
    <collision>
      <origin rpy="0 1.5 0"/>
      <geometry><box size="0.1 0.2 0.3"/></geometry>
    </collision>
  </link>
  <joint name="shoulder" type="revolute">
    <parent link="base"/>
    <child link="upper"/>
    <origin xyz="0 0 0.4" rpy="0 0 0.75"/>
    <axis xyz="0 3 4"/>
    <limit lower="-1.5" upper="2" effort="40" velocity="2.5"/>
    <dynamics damping="0.2" friction="0.1"/>
  </joint>
  <link name="upper">
    <inertial>
      <mass value="1"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.02"/>
    </inertial>
    <collision>
      <geometry><cylinder radius="0.04" length="0.3"/></geometry>
    </collision>
    <collision>
      <geometry><mesh filename="package://sample/upper.stl" scale="0.001 0.002 0.003"/></geometry>
    </collision>
    <collision>
      <geometry><mesh filename="upper.dae"/></geometry>
    </collision>
  </link>
  <joint name="wheel" type="continuous">
    <parent link="upper"/>
    <child link="wheel_link"/>
    <dynamics damping="0.05"/>
  </joint>
  <link name="wheel_link"/>
  <joint name="slider" type="prismatic">
    <parent link="base"/>
    <child link="finger"/>
    <axis xyz="0 0 -2"/>
    <limit lower="0" upper="0.04" effort="20" velocity="0.2"/>
  </joint>
  <link name="finger">
    <inertial>
      <mass value="0.1"/>
    </inertial>
  </link>
  <joint name="slider_mimic" type="prismatic">
    <parent link="base"/>
    <child link="finger2"/>
    <axis/>
    <limit upper="0.04" effort="20" velocity="0.2"/>
    <mimic joint="slider" multiplier="-1" offset="0.01"/>
  </joint>
  <link name="finger2"/>
  <joint name="slider_mimic_default" type="prismatic">
    <parent link="base"/>
    <child link="finger3"/>
    <mimic joint="slider"/>
  </joint>
  <link name="finger3"/>
  <joint name="tool_mount" type="fixed">
    <parent link="upper"/>
    <child link="tool"/>
    <origin xyz="0 0 0.3"/>
    <axis xyz="0 0 0"/>
  </joint>
  <link name="tool"/>
  <joint name="free" type="floating">
    <parent link="tool"/>
    <child link="drone"/>
  </joint>
  <link name="drone"/>
  <transmission name="t1">
    <joint name="shoulder"><hardwareInterface>EffortJointInterface</hardwareInterface></joint>
  </transmission>
  <gazebo reference="base"><link name="not_a_link"/></gazebo>
</robot>
`
	want := &Robot{
		Name: "sample",
		Root: "base",
		Links: []Link{
			{
				Name: "base",
				Line: 5,
				Inertial: &Inertial{
					Origin:  Pose{XYZ: spatial.Vec3{0.1, -0.2, 0.3}, RPY: spatial.Vec3{0.5, -0.25, 1.5}},
					Mass:    2.5,
					Inertia: [6]float64{0.3, 0.01, -0.02, 0.4, 0.03, 0.5},
				},
				Collisions: []Collision{
					{
						Name:     "ball",
						Origin:   Pose{XYZ: spatial.Vec3{0, 0, 0.1}},
						Geometry: Geometry{Kind: Sphere, Size: []float64{0.05}},
					},
					{
						Origin:   Pose{RPY: spatial.Vec3{0, 1.5, 0}},
						Geometry: Geometry{Kind: Box, Size: []float64{0.1, 0.2, 0.3}},
					},
				},
			},
			{
				Name: "upper",
				Line: 32,
				Inertial: &Inertial{
					Mass:    1,
					Inertia: [6]float64{0.01, 0, 0, 0.02, 0, 0.02},
				},
				Collisions: []Collision{
					{Geometry: Geometry{Kind: Cylinder, Size: []float64{0.04, 0.3}}},
					{Geometry: Geometry{Kind: Mesh, Filename: "package://sample/upper.stl",
						Scale: spatial.Vec3{0.001, 0.002, 0.003}}},
					{Geometry: Geometry{Kind: Mesh, Filename: "upper.dae", Scale: spatial.Vec3{1, 1, 1}}},
				},
			},
			{Name: "wheel_link", Line: 52},
			{Name: "finger", Line: 59, Inertial: &Inertial{Mass: 0.1}},
			{Name: "finger2", Line: 71},
			{Name: "finger3", Line: 77},
			{Name: "tool", Line: 84},
			{Name: "drone", Line: 89},
		},
		Joints: []Joint{
			{
				Name:     "shoulder",
				Line:     24,
				Type:     Revolute,
				Parent:   "base",
				Child:    "upper",
				Origin:   Pose{XYZ: spatial.Vec3{0, 0, 0.4}, RPY: spatial.Vec3{0, 0, 0.75}},
				Axis:     spatial.Vec3{0, 0.6, 0.8},
				Limit:    &Limit{Lower: -1.5, Upper: 2, Effort: 40, Velocity: 2.5},
				Dynamics: &Dynamics{Damping: 0.2, Friction: 0.1},
			},
			{
				Name:     "wheel",
				Line:     47,
				Type:     Continuous,
				Parent:   "upper",
				Child:    "wheel_link",
				Axis:     spatial.Vec3{1, 0, 0},
				Dynamics: &Dynamics{Damping: 0.05},
			},
			{
				Name:   "slider",
				Line:   53,
				Type:   Prismatic,
				Parent: "base",
				Child:  "finger",
				Axis:   spatial.Vec3{0, 0, -1},
				Limit:  &Limit{Lower: 0, Upper: 0.04, Effort: 20, Velocity: 0.2},
			},
			{
				Name:   "slider_mimic",
				Line:   64,
				Type:   Prismatic,
				Parent: "base",
				Child:  "finger2",
				Axis:   spatial.Vec3{1, 0, 0},
				Limit:  &Limit{Upper: 0.04, Effort: 20, Velocity: 0.2},
				Mimic:  &Mimic{Joint: "slider", Multiplier: -1, Offset: 0.01},
			},
			{
				Name:   "slider_mimic_default",
				Line:   72,
				Type:   Prismatic,
				Parent: "base",
				Child:  "finger3",
				Axis:   spatial.Vec3{1, 0, 0},
				Mimic:  &Mimic{Joint: "slider", Multiplier: 1},
			},
			{
				Name:   "tool_mount",
				Line:   78,
				Type:   Fixed,
				Parent: "upper",
				Child:  "tool",
				Origin: Pose{XYZ: spatial.Vec3{0, 0, 0.3}},
			},
			{
				Name:   "free",
				Line:   85,
				Type:   Floating,
				Parent: "tool",
				Child:  "drone",
				Axis:   spatial.Vec3{1, 0, 0},
			},
		},
	}
	for _, opt := range []Options{{}, strict} {
		got, err := ParseWith([]byte(doc), opt)
		if err != nil {
			t.Fatalf("ParseWith(%+v): %v", opt, err)
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-15)); diff != "" {
			t.Errorf("ParseWith(%+v) mismatch (-want +got):\n%s", opt, diff)
		}
	}

	r, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if l := r.Link("finger"); l == nil || l.Name != "finger" || l.Line != 59 {
		t.Errorf(`Link("finger") = %+v`, l)
	}
	if l := r.Link("not_a_link"); l != nil {
		t.Errorf(`Link("not_a_link") = %+v, want nil`, l)
	}
	var names []string
	for _, j := range r.ChildJoints("base") {
		names = append(names, j.Name)
	}
	if diff := cmp.Diff([]string{"shoulder", "slider", "slider_mimic", "slider_mimic_default"}, names); diff != "" {
		t.Errorf("ChildJoints(base) mismatch (-want +got):\n%s", diff)
	}
	if js := r.ChildJoints("drone"); len(js) != 0 {
		t.Errorf("ChildJoints(drone) = %v, want none", js)
	}
}

// TestAxisNormalisation checks that axes with extreme but finite components still normalise to unit
// vectors, and that the joint-type names print.
func TestAxisNormalisation(t *testing.T) {
	tests := []struct {
		axis string
		want spatial.Vec3
	}{
		{"1e200 0 0", spatial.Vec3{1, 0, 0}},
		{"-1e300 1e300 0", spatial.Vec3{-math.Sqrt2 / 2, math.Sqrt2 / 2, 0}},
		{"0 1.7976931348623157e308 1.7976931348623157e308", spatial.Vec3{0, math.Sqrt2 / 2, math.Sqrt2 / 2}},
		{"0 0 1e-9", spatial.Vec3{0, 0, 1}},
		{"3e-11 0 -4e-11", spatial.Vec3{0.6, 0, -0.8}},
	}
	for _, tc := range tests {
		doc := `<robot name="r"><link name="a"/><link name="b"/>
<joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="` + tc.axis + `"/></joint>
</robot>`
		r, err := Parse([]byte(doc))
		if err != nil {
			t.Errorf("axis %q: %v", tc.axis, err)
			continue
		}
		if diff := cmp.Diff(tc.want, r.Joints[0].Axis, cmpopts.EquateApprox(0, 1e-15)); diff != "" {
			t.Errorf("axis %q mismatch (-want +got):\n%s", tc.axis, diff)
		}
	}
	for typ, want := range map[JointType]string{Fixed: "fixed", Revolute: "revolute", Continuous: "continuous",
		Prismatic: "prismatic", Floating: "floating"} {
		if typ.String() != want {
			t.Errorf("JointType(%d).String() = %q, want %q", int(typ), typ.String(), want)
		}
	}
}

// TestParseFileErrors checks that ParseFile reports a missing file and prefixes parse errors with the path.
func TestParseFileErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := ParseFile(filepath.Join(dir, "missing.urdf")); err == nil {
		t.Error("ParseFile of a missing file succeeded")
	}
	p := filepath.Join(dir, "bad.urdf")
	if err := os.WriteFile(p, []byte("<robot name=\"r\">\n<link name=\"a\"/>\n<link name=\"a\"/>\n</robot>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ParseFile(p)
	if err == nil || !strings.Contains(err.Error(), p+": line 3: link \"a\" already defined at line 2") {
		t.Errorf("ParseFile error = %v", err)
	}
}

// robotCounts summarises a robot's shape.
type robotCounts struct {
	Links, Joints, Movable int
	Root                   string
}

// sharedRobots is the content of ../shared/robots beside the checkout, counted by hand from the files:
// links and joints outside comments and <transmission> blocks, the movable joints, and the root link.
var sharedRobots = map[string]robotCounts{
	"atlas.urdf":           {31, 30, 30, "pelvis"},
	"fetch.urdf":           {9, 8, 7, "arm_mount_link"},
	"g1_29dof.urdf":        {40, 39, 29, "pelvis"}, // its floating joint and world link are commented out
	"go2.urdf":             {42, 41, 12, "base"},
	"h1_2.urdf":            {58, 57, 51, "pelvis"}, // likewise
	"hyq.urdf":             {13, 12, 12, "base_link_0"},
	"iiwa.urdf":            {9, 8, 7, "base"}, // seven <transmission> blocks name joints too
	"panda.urdf":           {14, 13, 7, "panda_link0"},
	"panda_ext_24dof.urdf": {31, 30, 24, "panda_link0"},
}

const sharedRobotsGlob = "../../../shared/robots/*.urdf"

// stripBlocks removes every span from open up to and including the next close.
func stripBlocks(s, open, close string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, open)
		if i < 0 {
			break
		}
		b.WriteString(s[:i])
		j := strings.Index(s[i:], close)
		if j < 0 {
			return b.String()
		}
		s = s[i+j+len(close):]
	}
	b.WriteString(s)
	return b.String()
}

// countElements counts the <link> and <joint> elements of a URDF by text search, independently of the
// parser: comments and transmissions (whose <joint> children are not joints) are removed first.
func countElements(doc string) (links, joints int) {
	doc = stripBlocks(doc, "<!--", "-->")
	doc = stripBlocks(doc, "<transmission", "</transmission>")
	return strings.Count(doc, "<link "), strings.Count(doc, "<joint ")
}

func TestSharedRobots(t *testing.T) {
	files, err := filepath.Glob(sharedRobotsGlob)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no URDF matches %s (tests expect ../shared beside the checkout)", sharedRobotsGlob)
	}
	seen := map[string]bool{}
	for _, path := range files {
		base := filepath.Base(path)
		seen[base] = true
		t.Run(base, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Parse(data)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			links, joints := countElements(string(data))
			if len(r.Links) != links || len(r.Joints) != joints {
				t.Errorf("parsed %d links and %d joints; the text has %d and %d",
					len(r.Links), len(r.Joints), links, joints)
			}
			movable := 0
			for _, j := range r.Joints {
				if j.Type != Fixed {
					movable++
				}
			}
			if want, ok := sharedRobots[base]; ok {
				got := robotCounts{len(r.Links), len(r.Joints), movable, r.Root}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("counts mismatch (-want +got):\n%s", diff)
				}
			} else {
				t.Logf("%s is not in the table of expected counts", base)
			}
			checkInvariants(t, r)
			for _, w := range r.Warnings {
				t.Logf("warning: %s", w)
			}
		})
	}
	for base := range sharedRobots {
		if !seen[base] {
			t.Errorf("%s is missing from %s", base, sharedRobotsGlob)
		}
	}
}

// checkInvariants checks what every successfully parsed robot satisfies: the root is a link and no
// joint's child, joints name existing links, movable joints have unit axes and no number is NaN or
// infinite.
func checkInvariants(t testing.TB, r *Robot) {
	t.Helper()
	links := map[string]bool{}
	for _, l := range r.Links {
		links[l.Name] = true
	}
	if !links[r.Root] {
		t.Errorf("root %q is not a link", r.Root)
	}
	finite := func(what string, vs ...float64) {
		t.Helper()
		for _, v := range vs {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("%s: %v is not finite", what, vs)
				return
			}
		}
	}
	pose := func(what string, p Pose) {
		t.Helper()
		finite(what+" xyz", p.XYZ[:]...)
		finite(what+" rpy", p.RPY[:]...)
	}
	for _, l := range r.Links {
		if in := l.Inertial; in != nil {
			pose("link "+l.Name+" inertial origin", in.Origin)
			finite("link "+l.Name+" mass", in.Mass)
			finite("link "+l.Name+" inertia", in.Inertia[:]...)
			if in.Mass < 0 {
				t.Errorf("link %s: negative mass %v", l.Name, in.Mass)
			}
		}
		for _, c := range l.Collisions {
			pose("link "+l.Name+" collision origin", c.Origin)
			finite("link "+l.Name+" collision size", c.Geometry.Size...)
			finite("link "+l.Name+" collision scale", c.Geometry.Scale[:]...)
		}
	}
	children := map[string]bool{}
	for _, j := range r.Joints {
		if !links[j.Parent] || !links[j.Child] {
			t.Errorf("joint %q connects %q to %q, not both links", j.Name, j.Parent, j.Child)
		}
		if j.Child == r.Root {
			t.Errorf("joint %q has the root %q as its child", j.Name, r.Root)
		}
		if children[j.Child] {
			t.Errorf("link %q is the child of two joints", j.Child)
		}
		children[j.Child] = true
		pose("joint "+j.Name+" origin", j.Origin)
		finite("joint "+j.Name+" axis", j.Axis[:]...)
		if j.Type == Revolute || j.Type == Continuous || j.Type == Prismatic {
			if n := j.Axis.Norm(); math.Abs(n-1) > 1e-12 {
				t.Errorf("joint %q: axis %v has norm %v", j.Name, j.Axis, n)
			}
		}
		if l := j.Limit; l != nil {
			finite("joint "+j.Name+" limit", l.Lower, l.Upper, l.Effort, l.Velocity)
			if l.Lower > l.Upper {
				t.Errorf("joint %q: limit lower %v > upper %v", j.Name, l.Lower, l.Upper)
			}
		}
		if d := j.Dynamics; d != nil {
			finite("joint "+j.Name+" dynamics", d.Damping, d.Friction)
		}
		if m := j.Mimic; m != nil {
			finite("joint "+j.Name+" mimic", m.Multiplier, m.Offset)
		}
	}
	if len(children) != len(r.Links)-1 {
		t.Errorf("%d of %d links are joint children; want all but the root", len(children), len(r.Links))
	}
}
