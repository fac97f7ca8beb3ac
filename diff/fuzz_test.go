package diff

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/wrapcheck/wrapcheck/spec"
)

// FuzzCompare compares two specs with small bounds and renders the result
// in every format: whatever the input, Compare returns a result or an
// error, never panics or runs unbounded. Seeded with the example pairs.
func FuzzCompare(f *testing.F) {
	for _, p := range examplePairs[:6] {
		a, err := os.ReadFile(filepath.Join("..", "examples", p.old))
		if err != nil {
			f.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join("..", "examples", p.new))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(a, b)
	}
	f.Add([]byte("spec A\nvar x: 0..1\naction a { x := 1 - x }\n"), []byte("spec B\nvar x: bool\naction a { x := not x }\n"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		old, err := spec.ParseFile("old.wrap", a, spec.Options{})
		if err != nil {
			return
		}
		new, err := spec.ParseFile("new.wrap", b, spec.Options{})
		if err != nil {
			return
		}
		r, err := Compare(context.Background(), old, new, Options{MaxNodes: 2000, MaxSetStates: 20000, NoChecks: true})
		if err != nil {
			return
		}
		var out bytes.Buffer
		names := Names{Old: "old.wrap", New: "new.wrap"}
		for _, render := range []func() error{
			func() error { return r.Text(&out, names) },
			func() error { return r.JSON(&out, names) },
			func() error { return r.Markdown(&out, names) },
		} {
			if err := render(); err != nil {
				t.Fatal(err)
			}
		}
	})
}
