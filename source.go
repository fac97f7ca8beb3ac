// Package wrapcheck holds the source of the packages that the wrapcheck
// command is built from, for `wrapcheck check --compile`: that mode writes
// this tree and the Go code generated for a model into a cache directory
// and builds a binary of its own from them with the Go toolchain.
package wrapcheck

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The module's files and the non-test files of every package the command
// imports, with the files those packages embed. (A pattern cannot leave
// out the tests: WriteSource skips them.)
//
//go:embed go.mod go.sum source.go
//go:embed spec/*.go spec/syntax/*.go machine/*.go checker/*.go simulate/*.go
//go:embed report/*.go reduce/*.go ltl/*.go verify/*.go diff/*.go cluster/*.go
//go:embed explain/*.go lsp/*.go replay/*.go mcp/*.go web/engine/*.go cmd/wrapcheck/*.go
//go:embed internal/native/*.go internal/loopback/*.go internal/jsonscan/*.go internal/vmem/*.go guard/*.go testgen/*.go quant/*.go verdict/*.go
//go:embed web/page/*.go web/page/page.zip
//go:embed docs/embed.go docs/language.md docs/patterns.md docs/agents.md
//go:embed examples/embed.go examples/README.md examples/*/*.wrap
var source embed.FS

// sourceFiles lists the files WriteSource writes, in a fixed order.
func sourceFiles() ([]string, error) {
	var out []string
	err := fs.WalkDir(source, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, "_test.go") {
			return err
		}
		out = append(out, path)
		return nil
	})
	return out, err
}

// SourceHash returns a hash of the embedded source (the files
// WriteSource writes): it names the builds made from it.
func SourceHash() (string, error) {
	files, err := sourceFiles()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, f := range files {
		b, err := source.ReadFile(f)
		if err != nil {
			return "", err
		}
		h.Write([]byte(f))
		h.Write([]byte{0})
		h.Write(b)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:10]), nil
}

// WriteSource writes the embedded source tree (a Go module) into dir.
func WriteSource(dir string) error {
	files, err := sourceFiles()
	if err != nil {
		return err
	}
	for _, f := range files {
		b, err := source.ReadFile(f)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
