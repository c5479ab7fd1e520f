// Package wheel writes Python wheels (PEP 427): a zip archive with the package files and a .dist-info
// folder holding METADATA, WHEEL and RECORD (every file's SHA-256 and size).
package wheel

import (
	"archive/zip"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// File is one file of the wheel, at a slash-separated path inside it.
type File struct {
	Path string
	Data []byte
	// Executable marks shared libraries and scripts.
	Executable bool
}

// Spec describes a wheel.
type Spec struct {
	// Name is the distribution name (e.g. "grid-rbd"); Version its version.
	Name, Version string
	Summary       string
	License       string
	// RequiresPython is a version specifier such as ">=3.12".
	RequiresPython string
	// Requires lists Requires-Dist entries such as "jax>=0.11".
	Requires []string
	// Extras are optional-dependency groups (Provides-Extra, and Requires-Dist with an extra marker); an
	// extra with no requirements is declared all the same, so that installing it is not an error.
	Extras                []Extra
	Keywords, Classifiers []string
	// URLs are Project-URL entries (label, URL).
	URLs [][2]string
	// Description is the long description (Markdown), the METADATA's body.
	Description string
	// Tag is the compatibility tag, python-abi-platform (e.g. "py3-none-linux_x86_64").
	Tag   string
	Files []File
}

// distName is the name as it appears in file names (PEP 427: runs of -_. become _).
func (s *Spec) distName() string {
	return strings.NewReplacer("-", "_", ".", "_").Replace(s.Name)
}

// FileName is the wheel's file name.
func (s *Spec) FileName() string {
	return fmt.Sprintf("%s-%s-%s.whl", s.distName(), s.Version, s.Tag)
}

func (s *Spec) metadata() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "Metadata-Version: 2.1\nName: %s\nVersion: %s\n", s.Name, s.Version)
	if s.Summary != "" {
		fmt.Fprintf(&b, "Summary: %s\n", s.Summary)
	}
	if len(s.Keywords) > 0 {
		fmt.Fprintf(&b, "Keywords: %s\n", strings.Join(s.Keywords, ","))
	}
	if s.License != "" {
		fmt.Fprintf(&b, "License: %s\n", s.License)
	}
	for _, u := range s.URLs {
		fmt.Fprintf(&b, "Project-URL: %s, %s\n", u[0], u[1])
	}
	for _, c := range s.Classifiers {
		fmt.Fprintf(&b, "Classifier: %s\n", c)
	}
	if s.RequiresPython != "" {
		fmt.Fprintf(&b, "Requires-Python: %s\n", s.RequiresPython)
	}
	for _, r := range s.Requires {
		fmt.Fprintf(&b, "Requires-Dist: %s\n", r)
	}
	for _, e := range s.Extras {
		fmt.Fprintf(&b, "Provides-Extra: %s\n", e.Name)
		for _, r := range e.Requires {
			marker := fmt.Sprintf("extra == \"%s\"", e.Name)
			if req, m, ok := strings.Cut(r, ";"); ok { // a requirement with its own marker
				r, marker = strings.TrimSpace(req), "("+strings.TrimSpace(m)+") and "+marker
			}
			fmt.Fprintf(&b, "Requires-Dist: %s; %s\n", r, marker)
		}
	}
	if s.Description != "" {
		fmt.Fprintf(&b, "Description-Content-Type: text/markdown\n\n%s", s.Description)
		if !strings.HasSuffix(s.Description, "\n") {
			b.WriteByte('\n')
		}
	}
	return []byte(b.String())
}

func (s *Spec) wheelFile() []byte {
	return []byte(fmt.Sprintf("Wheel-Version: 1.0\nGenerator: grid-rbd\nRoot-Is-Purelib: false\nTag: %s\n", s.Tag))
}

func recordHash(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256=" + base64.RawURLEncoding.EncodeToString(sum[:])
}

// Write writes the wheel into dir and returns its path. Files are stored in sorted order with a fixed
// timestamp, so the same inputs give the same bytes.
func Write(dir string, s Spec) (string, error) {
	if s.Name == "" || s.Version == "" || s.Tag == "" {
		return "", fmt.Errorf("wheel needs a name, a version and a tag")
	}
	if strings.Count(s.Tag, "-") != 2 {
		return "", fmt.Errorf("tag %q is not python-abi-platform", s.Tag)
	}
	info := fmt.Sprintf("%s-%s.dist-info", s.distName(), s.Version)
	files := append([]File(nil), s.Files...)
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	seen := map[string]bool{}
	for _, f := range files {
		if seen[f.Path] || strings.HasPrefix(f.Path, "/") || strings.Contains(f.Path, "..") {
			return "", fmt.Errorf("bad or duplicate wheel path %q", f.Path)
		}
		seen[f.Path] = true
	}
	files = append(files,
		File{Path: info + "/METADATA", Data: s.metadata()},
		File{Path: info + "/WHEEL", Data: s.wheelFile()},
	)
	var record strings.Builder
	for _, f := range files {
		fmt.Fprintf(&record, "%s,%s,%d\n", f.Path, recordHash(f.Data), len(f.Data))
	}
	recordPath := info + "/RECORD"
	fmt.Fprintf(&record, "%s,,\n", recordPath)
	files = append(files, File{Path: recordPath, Data: []byte(record.String())})

	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, s.FileName())
	out, err := os.Create(path)
	if err != nil {
		return "", err
	}
	zw := zip.NewWriter(out)
	stamp := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, f := range files {
		h := &zip.FileHeader{Name: f.Path, Method: zip.Deflate, Modified: stamp}
		mode := os.FileMode(0o644)
		if f.Executable {
			mode = 0o755
		}
		h.SetMode(mode)
		w, err := zw.CreateHeader(h)
		if err == nil {
			_, err = w.Write(f.Data)
		}
		if err != nil {
			out.Close()
			return "", err
		}
	}
	if err := zw.Close(); err != nil {
		out.Close()
		return "", err
	}
	return path, out.Close()
}
