package wheel

import (
	"bytes"
	"debug/elf"
	"fmt"
	"strconv"
	"strings"
)

// Manylinux228 is the platform tag whose promise CheckManylinux228 checks (PEP 600): the binaries run on
// any x86-64 Linux with glibc 2.28 or newer.
const Manylinux228 = "manylinux_2_28_x86_64"

// manylinuxLibraries are the shared libraries a manylinux wheel may load from the system (PEP 600's
// policy for glibc 2.28, as auditwheel lists it); everything else must be in the wheel or linked in.
var manylinuxLibraries = map[string]bool{
	"libc.so.6": true, "libm.so.6": true, "libdl.so.2": true, "libpthread.so.0": true, "librt.so.1": true,
	"libgcc_s.so.1": true, "libstdc++.so.6": true, "ld-linux-x86-64.so.2": true, "libz.so.1": true,
}

// maxSymbolVersions are the newest symbol versions of each library a manylinux_2_28 binary may need.
var maxSymbolVersions = map[string][]int{"GLIBC": {2, 28}, "GLIBCXX": {3, 4, 24}, "CXXABI": {1, 3, 11}, "GCC": {7, 0, 0}}

// CheckManylinux228 reports why the wheel's ELF files (shared libraries and programs) would not run on every
// manylinux_2_28 system: a library outside the policy, or a symbol version newer than glibc 2.28 and
// GCC 8's runtime provide. Files that are not ELF are skipped. This is auditwheel's check, in Go.
func CheckManylinux228(files []File) error {
	var problems []string
	for _, f := range files {
		if !bytes.HasPrefix(f.Data, []byte(elf.ELFMAG)) {
			continue
		}
		ef, err := elf.NewFile(bytes.NewReader(f.Data))
		if err != nil {
			return fmt.Errorf("%s: %w", f.Path, err)
		}
		if ef.Machine != elf.EM_X86_64 {
			problems = append(problems, fmt.Sprintf("%s: machine %v, not x86-64", f.Path, ef.Machine))
		}
		libs, _ := ef.ImportedLibraries()
		for _, lib := range libs {
			if !manylinuxLibraries[lib] {
				problems = append(problems, fmt.Sprintf("%s: needs %s, which manylinux systems need not have", f.Path, lib))
			}
		}
		symbols, _ := ef.DynamicSymbols()
		seen := map[string]bool{}
		for _, s := range symbols {
			if s.Section != elf.SHN_UNDEF || s.Version == "" || seen[s.Version] {
				continue
			}
			seen[s.Version] = true
			if too := newerThanAllowed(s.Version); too != "" {
				problems = append(problems, fmt.Sprintf("%s: needs %s (%s)", f.Path, s.Version, too))
			}
		}
		ef.Close()
	}
	if len(problems) > 0 {
		return fmt.Errorf("not %s:\n  %s", Manylinux228, strings.Join(problems, "\n  "))
	}
	return nil
}

// newerThanAllowed says how a symbol version such as GLIBCXX_3.4.29 exceeds maxSymbolVersions, or "".
func newerThanAllowed(version string) string {
	name, num, ok := strings.Cut(version, "_")
	limit, known := maxSymbolVersions[name]
	if !ok || !known {
		return ""
	}
	parts := strings.Split(num, ".")
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return ""
		}
		if i >= len(limit) || n < limit[i] {
			return ""
		}
		if n > limit[i] {
			return fmt.Sprintf("newer than %s_%s", name, joinInts(limit))
		}
	}
	return ""
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ".")
}
