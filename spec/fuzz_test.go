package spec

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/wrapcheck/wrapcheck/internal/golden"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// FuzzCheck checks that no input makes Check (or Vet) panic, and that a
// spec that checks lowers to well-typed IR.
func FuzzCheck(f *testing.F) {
	for _, fn := range okSpecs(f) {
		src, err := os.ReadFile(fn)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	for _, fn := range golden.Glob(f, "testdata/errors/*.txtar") {
		f.Add(golden.Load(f, fn).Need(f, "in.wrap"))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := syntax.Parse("fuzz.wrap", src)
		if err != nil {
			return
		}
		// Within a deadline, as every way in checks a spec: a spec may
		// ask for any amount of work (a long fold, a large expansion),
		// and Check must stop soon after its context is done.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		start := time.Now()
		m, err := Check(file, Options{Context: ctx})
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("Check took %v, its context done after 1 s (err %v)", d, err)
		}
		if err != nil {
			if strings.Contains(err.Error(), "internal error") {
				t.Fatal(err)
			}
			return
		}
		if msg := wellTyped(m); msg != "" {
			t.Fatal(msg)
		}
		Vet(file, m)
	})
}
