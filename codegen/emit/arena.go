package emit

import "fmt"

// arena lays out an inner's scratch: named regions at literal offsets in the caller-owned s_temp.
type arena struct {
	regions []region
	size    int
}

type region struct {
	name   string
	offset int
	size   int
	doc    string
}

// alloc reserves size elements and returns the region's name for use in emitted code.
func (a *arena) alloc(name string, size int, doc string) string {
	a.regions = append(a.regions, region{name: name, offset: a.size, size: size, doc: doc})
	a.size += size
	return name
}

// declare emits one pointer per region into s_temp.
func (a *arena) declare(w *writer) {
	for _, r := range a.regions {
		w.line("T* %s = s_temp + %d;  // %d: %s", r.name, r.offset, r.size, r.doc)
	}
}

// String describes the layout for doc comments.
func (a *arena) String() string { return fmt.Sprintf("%d elements", a.size) }
