package wheel

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadProject(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       Project
		err        bool
	}{
		{name: "full", text: `[build-system]
requires = ["setuptools>=77"]

[project]
name = "grid-rbd"  # the CPU wheel's name
version = "0.1.0"
description = "Dynamics \"kernels\" # not a comment"
requires-python = ">=3.12"
keywords = ["robotics"]
dependencies = [
    "numpy",  # any
    "jax>=0.11",
]
classifiers = ["Typing :: Typed", "Programming Language :: C++"]

[project.urls]
Homepage = "https://example.org"
"Bug Tracker" = "https://example.org/issues"

[project.optional-dependencies]
demo = ["matplotlib"]
cuda = []

[tool.setuptools]
package-dir = { "" = "python" }
`, want: Project{Name: "grid-rbd", Version: "0.1.0", Description: `Dynamics "kernels" # not a comment`,
			RequiresPython: ">=3.12", Keywords: []string{"robotics"}, Dependencies: []string{"numpy", "jax>=0.11"},
			Classifiers: []string{"Typing :: Typed", "Programming Language :: C++"},
			URLs:        [][2]string{{"Homepage", "https://example.org"}, {"Bug Tracker", "https://example.org/issues"}},
			Extras:      []Extra{{Name: "demo", Requires: []string{"matplotlib"}}, {Name: "cuda", Requires: []string{}}}}},
		{name: "no version", text: "[project]\nname = \"x\"\n", err: true},
		{name: "inline table in project", text: "[project]\nname = \"x\"\nversion = \"1\"\nlicense = { text = \"MIT\" }\n", err: true},
		{name: "unterminated list", text: "[project]\nname = \"x\"\nversion = \"1\"\ndependencies = [\"a\" \"b\"]\n", err: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ReadProject([]byte(c.text))
			if c.err {
				if err == nil {
					t.Fatalf("accepted: %+v", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
