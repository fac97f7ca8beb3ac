package reduce

import (
	"context"
	"os"
	"testing"

	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// load parses and checks the spec in file with the given defines.
func load(t testing.TB, file string, defs map[string]int64) *spec.Model {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	m, err := spec.ParseFile(file, src, spec.Options{Defines: defs})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// run checks m with the given options.
func run(t testing.TB, m *spec.Model, opts checker.Options) *verdict.Result {
	t.Helper()
	r, err := checker.Run(context.Background(), m, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// symmetry returns the Canon hook of m, failing the test on an error.
func symmetry(t testing.TB, m *spec.Model) verdict.CanonFunc {
	t.Helper()
	c, err := Symmetry(m)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
