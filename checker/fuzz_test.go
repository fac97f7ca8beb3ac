package checker

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wrapcheck/wrapcheck/spec"
)

// FuzzCompile checks that every spec the front end accepts compiles and
// runs (a few hundred states) without an internal error or a panic: vet
// accepting a spec that check cannot compile is a bug (a match with only
// an else arm once was one).
func FuzzCompile(f *testing.F) {
	for _, pat := range []string{"../examples/*/*.wrap", "../spec/testdata/ok/*.wrap"} {
		files, _ := filepath.Glob(pat)
		for _, fn := range files {
			src, err := os.ReadFile(fn)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(src)
		}
	}
	f.Add([]byte("spec P\nvar b: bool\naction a { match b { else => b := true } }\nterminal b\n"))
	f.Add([]byte("spec P\ntype C = {r, g, b}\nvar c: C\naction a { match c { r, g => c := b  else => skip } }\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		m, err := spec.ParseFile("fuzz.wrap", src, spec.Options{})
		if err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_, err = Run(ctx, m, Options{Workers: 1, MaxStates: 500, MaxDepth: 50})
		if err != nil && strings.Contains(err.Error(), "internal error") {
			t.Fatal(err)
		}
	})
}
