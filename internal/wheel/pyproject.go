package wheel

import (
	"fmt"
	"strings"
)

// Project is what a wheel's METADATA takes from pyproject.toml: the [project] table, its [project.urls]
// and its [project.optional-dependencies].
type Project struct {
	Name, Version, Description, RequiresPython string
	Dependencies, Classifiers, Keywords        []string
	// URLs are the [project.urls] entries in file order (label, URL).
	URLs [][2]string
	// Extras are the optional-dependency groups in file order.
	Extras []Extra
}

// Extra is one optional-dependency group: `pip install grid-rbd[Name]` also installs Requires.
type Extra struct {
	Name     string
	Requires []string
}

// ReadProject parses the subset of TOML that pyproject.toml's project tables use: [table] headers,
// key = "string" and key = ["string", ...] (over several lines, with comments). Any other value in those
// tables is an error, so that metadata is never silently dropped; other tables are skipped.
func ReadProject(data []byte) (Project, error) {
	var p Project
	lines := strings.Split(string(data), "\n")
	table := ""
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(stripComment(lines[i]))
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "[") {
			table = strings.TrimSpace(strings.Trim(line, "[]"))
			continue
		}
		if table != "project" && table != "project.urls" && table != "project.optional-dependencies" {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			return Project{}, fmt.Errorf("pyproject.toml line %d: expected key = value, found %q", i+1, line)
		}
		key, value = strings.Trim(strings.TrimSpace(key), `"`), strings.TrimSpace(value)
		start := i
		for strings.HasPrefix(value, "[") && !strings.HasSuffix(value, "]") && i+1 < len(lines) {
			i++
			value += " " + strings.TrimSpace(stripComment(lines[i]))
		}
		switch {
		case strings.HasPrefix(value, "["):
			list, err := stringList(value)
			if err != nil {
				return Project{}, fmt.Errorf("pyproject.toml line %d: %s: %w", start+1, key, err)
			}
			switch {
			case table == "project.optional-dependencies":
				p.Extras = append(p.Extras, Extra{Name: key, Requires: list})
			case key == "dependencies":
				p.Dependencies = list
			case key == "classifiers":
				p.Classifiers = list
			case key == "keywords":
				p.Keywords = list
			}
		case strings.HasPrefix(value, `"`):
			s, rest, err := basicString(value)
			if err != nil || strings.TrimSpace(rest) != "" {
				return Project{}, fmt.Errorf("pyproject.toml line %d: %s: not one string: %s", start+1, key, value)
			}
			if table == "project.urls" {
				p.URLs = append(p.URLs, [2]string{key, s})
				continue
			}
			switch key {
			case "name":
				p.Name = s
			case "version":
				p.Version = s
			case "description":
				p.Description = s
			case "requires-python":
				p.RequiresPython = s
			}
		default:
			return Project{}, fmt.Errorf("pyproject.toml line %d: %s: only strings and lists of strings are read, found %s", start+1, key, value)
		}
	}
	if p.Name == "" || p.Version == "" {
		return Project{}, fmt.Errorf("pyproject.toml: [project] needs a name and a version")
	}
	return p, nil
}

// stripComment drops a # comment that is not inside a string.
func stripComment(line string) string {
	in := false
	for i, c := range line {
		switch {
		case c == '"' && (i == 0 || line[i-1] != '\\'):
			in = !in
		case c == '#' && !in:
			return line[:i]
		}
	}
	return line
}

// basicString reads the "..." string at the start of s (\" and \\ escapes) and returns the rest.
func basicString(s string) (string, string, error) {
	if !strings.HasPrefix(s, `"`) {
		return "", s, fmt.Errorf("expected a string at %q", s)
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 >= len(s) || (s[i+1] != '"' && s[i+1] != '\\') {
				return "", s, fmt.Errorf("unsupported escape in %q", s)
			}
			i++
			b.WriteByte(s[i])
		case '"':
			return b.String(), s[i+1:], nil
		default:
			b.WriteByte(s[i])
		}
	}
	return "", s, fmt.Errorf("unterminated string %q", s)
}

// stringList reads ["a", "b", ...] (a trailing comma allowed).
func stringList(s string) ([]string, error) {
	rest := strings.TrimSpace(strings.TrimPrefix(s, "["))
	list := []string{}
	for {
		rest = strings.TrimSpace(rest)
		if rest == "]" {
			return list, nil
		}
		v, after, err := basicString(rest)
		if err != nil {
			return nil, err
		}
		list = append(list, v)
		after = strings.TrimSpace(after)
		switch {
		case strings.HasPrefix(after, ","):
			rest = after[1:]
		case after == "]":
			return list, nil
		default:
			return nil, fmt.Errorf("expected , or ] after %q", v)
		}
	}
}
