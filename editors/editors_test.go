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
)

// TestVSCode runs `npm ci`, `npm test` (the grammar tokenizes every
// example without an unknown token) and `npm run package` (the .vsix
// builds) in editors/vscode. It needs npm and the npm registry; it skips
// without npm, and fails when CI=true.
func TestVSCode(t *testing.T) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("npm not found on PATH; CI installs Debian's npm (.ci/run)")
		}
		t.Skip("npm not found on PATH: install Node.js and npm to test the VS Code extension")
	}
	if testing.Short() && os.Getenv("CI") != "true" {
		t.Skip("-short: the VS Code extension test runs npm ci")
	}
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
