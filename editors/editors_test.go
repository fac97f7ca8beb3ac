// Package editors holds the editor integrations of wrapcheck (see
// README.md) and the test that builds and tests the VS Code extension.
package editors

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/wrapcheck/wrapcheck/internal/testenv"
)

// TestVSCode runs `npm ci`, `npm test` (the grammar tokenizes every
// example without an unknown token) and `npm run package` (the .vsix
// builds) in editors/vscode. It needs npm and the npm registry; it skips
// without npm, and fails when CI=true.
func TestVSCode(t *testing.T) {
	npm := testenv.Tool(t, "npm", "install Node.js and npm (apt-get install npm)")
	testenv.Slow(t, "npm ci from the npm registry, then the VS Code extension's build")
	dir, err := filepath.Abs("vscode")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	for _, args := range [][]string{
		{"ci", "--no-audit", "--no-fund"},
		{"test"},
		{"run", "package", "--", "--out", filepath.Join(out, "wrap.vsix")},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		cmd := exec.CommandContext(ctx, npm, args...)
		cmd.Dir = dir
		b, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("npm %v: %v\n%s", args, err, b)
		}
		t.Logf("npm %v:\n%s", args, b)
	}
	fi, err := os.Stat(filepath.Join(out, "wrap.vsix"))
	if err != nil || fi.Size() == 0 {
		t.Fatalf("no .vsix: %v", err)
	}
}
