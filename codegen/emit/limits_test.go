package emit

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/grid-rbd/grid-rbd/codegen/model"
	"github.com/grid-rbd/grid-rbd/codegen/urdf"
)

// chainURDF is a serial chain of n revolute links about alternating axes.
func chainURDF(n int) []byte {
	var b strings.Builder
	b.WriteString(`<robot name="chain"><link name="l0"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>`)
	axes := []string{"0 0 1", "0 1 0", "1 0 0"}
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `<link name="l%d"><inertial><mass value="1"/><origin xyz="0 0 0.05"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>`, i)
		fmt.Fprintf(&b, `<joint name="j%d" type="revolute"><parent link="l%d"/><child link="l%d"/><origin xyz="0 0 0.1"/><axis xyz="%s"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>`, i, i-1, i, axes[i%3])
	}
	b.WriteString(`</robot>`)
	return []byte(b.String())
}

func chainRobot(t *testing.T, n int) *model.Robot {
	t.Helper()
	u, err := urdf.Parse(chainURDF(n))
	if err != nil {
		t.Fatal(err)
	}
	r, err := model.Build(u, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestIndexWidths generates a chain whose NV³ second-order outputs exceed 32 bits, unrolled (which has them)
// and rolled, and scans each header: every int constant fits in an int, and every integer literal beyond
// it is a size_t factor.
func TestIndexWidths(t *testing.T) {
	nv := 1300 // 1300³ > 2³¹
	for _, c := range []struct {
		name        string
		roll        Roll
		wantLiteral bool // the header has NV³-sized literals to check
	}{{"unrolled", RollNever, true}, {"rolled", RollAlways, false}} {
		t.Run(c.name, func(t *testing.T) {
			out, err := Generate(chainRobot(t, nv), Options{Untuned: true, Roll: c.roll})
			if err != nil {
				t.Fatal(err)
			}
			intConst := regexp.MustCompile(`constexpr int (\w+) = (\d+);`)
			for _, m := range intConst.FindAllStringSubmatch(out.Header, -1) {
				if v, _ := strconv.ParseInt(m[2], 10, 64); v > math.MaxInt32 {
					t.Errorf("constexpr int %s = %s overflows an int", m[1], m[2])
				}
			}
			number := regexp.MustCompile(`[\d.]+`) // integer and decimal literals (and digits of identifiers: skipped)
			large := 0
			for _, line := range strings.Split(out.Header, "\n") {
				for _, loc := range number.FindAllStringIndex(line, -1) {
					tok := line[loc[0]:loc[1]]
					if strings.Contains(tok, ".") || (loc[0] > 0 && isIdent(line[loc[0]-1])) {
						continue
					}
					v, err := strconv.ParseInt(tok, 10, 64)
					if err != nil || v <= math.MaxInt32 {
						continue
					}
					large++
					before := strings.TrimSpace(line[:loc[0]])
					if !strings.Contains(line, "size_t(") || !strings.HasSuffix(before, "*") {
						t.Errorf("literal %s beyond an int outside a size_t product: %s", tok, strings.TrimSpace(line))
					}
				}
			}
			if c.wantLiteral && large == 0 {
				t.Errorf("no literal of NV³ = %d in the header: the scan found nothing to check", int64(nv)*int64(nv)*int64(nv))
			}
		})
	}
}

func isIdent(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// TestRobotLimits: a robot above MaxNV is refused with a message naming the limit; one at it passes.
func TestRobotLimits(t *testing.T) {
	for _, tc := range []struct {
		nv      int
		wantErr bool
	}{{MaxNV, false}, {MaxNV + 1, true}} {
		err := checkLimits(&model.Robot{Name: "big", NV: tc.nv})
		if (err != nil) != tc.wantErr || (err != nil && !strings.Contains(err.Error(), strconv.Itoa(MaxNV))) {
			t.Errorf("NV %d: got %v, want error %v naming %d", tc.nv, err, tc.wantErr, MaxNV)
		}
	}
}
