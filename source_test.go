package wrapcheck

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSourceCoversCommand holds that the embedded source has every
// non-test Go file of every package of the module that the command
// imports, so that check --compile can build it: a package added to the
// command without a go:embed line fails here, in a second, rather than
// in TestCompiledAgrees's build.
func TestSourceCoversCommand(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go on PATH")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if .Module}}{{if eq .Module.Path \"github.com/wrapcheck/wrapcheck\"}}{{.Dir}}|{{join .GoFiles \",\"}}|{{join .EmbedFiles \",\"}}{{end}}{{end}}", "./cmd/wrapcheck").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	files, err := sourceFiles()
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.Split(line, "|")
		if len(parts) != 3 {
			continue
		}
		rel, err := filepath.Rel(root, parts[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, list := range parts[1:] {
			for _, f := range strings.Split(list, ",") {
				if f == "" || strings.HasSuffix(f, "_test.go") {
					continue // the root package embeds the tests too; WriteSource skips them
				}
				path := filepath.ToSlash(filepath.Join(rel, f))
				checked++
				if !slices.Contains(files, path) {
					t.Errorf("%s: imported by the command (or embedded by a package it imports) but not in source.go's go:embed lines", path)
				}
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d files checked: go list gave %q", checked, out)
	}
}
