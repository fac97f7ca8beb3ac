package reduce

import (
	"path/filepath"
	"testing"
)

// TestFixtures runs the differential and brute-force orbit checks on the
// specs of testdata.
func TestFixtures(t *testing.T) {
	files, err := filepath.Glob("testdata/*.wrap")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			m := load(t, file, nil)
			differential(t, m)
			checkOrbits(t, m, 50000)
		})
	}
}
