// Package golden holds what the golden-file tests share: the
// WRAPCHECK_UPDATE switch and a diff-reporting comparison. It is imported
// only by _test.go files.
package golden

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Update reports whether goldens should be rewritten rather than compared
// (WRAPCHECK_UPDATE=1 go test ./...). An environment variable, not a flag:
// a flag breaks `go test ./...` in every package that does not define it.
func Update() bool { return os.Getenv("WRAPCHECK_UPDATE") != "" }

// Check compares got with the golden file path. With [Update] it rewrites
// the file instead.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if Update() {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run WRAPCHECK_UPDATE=1 go test to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}
