package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wrapcheck/wrapcheck/spec"
)

// TestAgentsSpecs checks the specs of docs/agents.md: a block marked
// "wrap" parses and type checks, one marked "wrap rejected" is rejected.
func TestAgentsSpecs(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "docs", "agents.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	n := 0
	for _, bl := range fences(lines) {
		if bl.info != "wrap" && bl.info != "wrap rejected" {
			continue
		}
		n++
		name := fmt.Sprintf("docs/agents.md:%d", bl.line)
		src := strings.Join(lines[bl.start:bl.end], "\n") + "\n"
		_, err := spec.ParseFile(name, []byte(src), spec.Options{})
		if bl.info == "wrap" && err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if bl.info == "wrap rejected" && err == nil {
			t.Errorf("%s: the spec shown as a mistake is accepted", name)
		}
	}
	if n < 4 {
		t.Errorf("docs/agents.md has %d wrap blocks, want at least 4", n)
	}
}
