package diff_test

import (
	"context"
	"os"
	"testing"

	"github.com/wrapcheck/wrapcheck/diff"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestFollows checks Follows against Compare: a spec follows every
// prefix of its own distinguishing trace but the whole of it, and the
// other spec follows it whole.
func TestFollows(t *testing.T) {
	load := func(path string) *spec.Model {
		t.Helper()
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := spec.ParseFile(path, src, spec.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	old := load("../examples/pipeline/pipeline.wrap")
	new := load("../examples/pipeline/approval_toctou.wrap")
	r, err := diff.Compare(context.Background(), old, new, diff.Options{NoChecks: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.NewOnly.Trace == nil {
		t.Fatal("approval_toctou.wrap: no run that pipeline.wrap does not allow")
	}
	tr := r.NewOnly.Trace.Steps
	for n := 1; n <= len(tr); n++ {
		got, err := diff.Follows(old, new, tr[:n], nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := n < len(tr); got != want {
			t.Errorf("old follows the first %d states of the trace: %v, want %v", n, got, want)
		}
		if got, err := diff.Follows(new, new, tr[:n], nil); err != nil || !got {
			t.Errorf("new does not follow its own trace's first %d states (%v)", n, err)
		}
	}
}
