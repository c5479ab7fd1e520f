package wheel

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestNewerThanAllowed(t *testing.T) {
	for _, tc := range []struct {
		version string
		tooNew  bool
	}{
		{"GLIBC_2.14", false}, {"GLIBC_2.28", false}, {"GLIBC_2.29", true}, {"GLIBC_2.34", true},
		{"GLIBCXX_3.4.24", false}, {"GLIBCXX_3.4.29", true}, {"GLIBCXX_3.4", false}, {"CXXABI_1.3.13", true},
		{"GCC_3.0", false}, {"OTHER_9.9", false},
	} {
		if got := newerThanAllowed(tc.version) != ""; got != tc.tooNew {
			t.Errorf("newerThanAllowed(%q) = %v, want %v", tc.version, got, tc.tooNew)
		}
	}
}

// Real libraries from the system's C++ compiler: one that needs only the C runtime passes, one linked
// against a library outside the manylinux policy (one of the test's own) is named; files that are not ELF
// are skipped.
func TestCheckManylinux228(t *testing.T) {
	if _, err := exec.LookPath("c++"); err != nil {
		t.Fatal("a C++ compiler (c++) is needed")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "f.c")
	if err := os.WriteFile(src, []byte("int f(void) { return 1; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	build := func(name string, extra ...string) File {
		out := filepath.Join(dir, name)
		args := append([]string{"-x", "c", "-shared", "-fPIC", src, "-o", out}, extra...)
		if msg, err := exec.Command("c++", args...).CombinedOutput(); err != nil {
			t.Fatalf("c++ %v: %v\n%s", args, err, msg)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return File{Path: "grid_rbd/" + name, Data: data}
	}
	plain := build("plain.so")
	text := File{Path: "grid_rbd/a.py", Data: []byte("print(1)\n")}
	if err := CheckManylinux228([]File{plain, text}); err != nil {
		t.Errorf("a library needing only libc: %v", err)
	}
	build("libother.so")
	foreign := build("foreign.so", "-Wl,--no-as-needed", "-L", dir, "-lother")
	err := CheckManylinux228([]File{plain, foreign})
	if err == nil || !strings.Contains(err.Error(), "grid_rbd/foreign.so: needs libother.so") {
		t.Errorf("a library needing a library outside the policy: %v", err)
	}
}
