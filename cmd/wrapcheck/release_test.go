package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
)

// unpinned lists the third-party actions that could not be pinned to a
// commit, as "file: action@ref". It is empty: every action used is pinned.
var unpinned = []string{}

// TestActionsPinned: every `uses:` of action.yml and of the workflows
// names a third-party action by a full commit (40 hex digits), so that a
// moved tag cannot change what runs; a local action (./) needs none.
func TestActionsPinned(t *testing.T) {
	root := filepath.Join("..", "..")
	files, err := filepath.Glob(filepath.Join(root, ".github", "workflows", "*.yml"))
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{filepath.Join(root, "action.yml")}, files...)
	uses := regexp.MustCompile(`(?m)^\s*(?:-\s+)?uses:\s*['"]?([^\s'"#]+)`)
	pinned := regexp.MustCompile(`^[^@]+@[0-9a-f]{40}$`)
	bad := []string{}
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		for _, m := range uses.FindAllSubmatch(b, -1) {
			u := string(m[1])
			n++
			if strings.HasPrefix(u, "./") || pinned.MatchString(u) {
				continue
			}
			bad = append(bad, filepath.ToSlash(rel)+": "+u)
		}
	}
	if n == 0 {
		t.Fatal("no uses: found; the pattern is wrong")
	}
	sort.Strings(bad)
	if diff := cmp.Diff(unpinned, bad); diff != "" {
		t.Errorf("actions not pinned to a commit (-want +got):\n%s", diff)
	}
}

// TestRelease builds the release binaries of every target as the release
// workflow does (.ci/release.sh: CGO_ENABLED=0, the six GOOS/GOARCH),
// checks SHA256SUMS and each binary's format and architecture, and
// installs the host's binary with the Action's script (.ci/install.sh
// release) from a local copy of the release: it runs and prints its
// version; a binary that does not match its checksum is refused.
func TestRelease(t *testing.T) {
	testenv.Slow(t, "cross-compiles wrapcheck six times")
	testenv.Tool(t, "bash", "install bash")
	testenv.Tool(t, "sha256sum", "install coreutils")
	testenv.Tool(t, "curl", "install curl")
	const version = "v0.0.0-test"
	rel := filepath.Join(t.TempDir(), version)
	script, _ := filepath.Abs(filepath.Join("..", "..", ".ci", "release.sh"))
	cmd := exec.Command("bash", script, version, rel)
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("release.sh: %v\n%s", err, out)
	}
	sums, err := os.ReadFile(filepath.Join(rel, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	magic := map[string][]byte{
		"linux":   {0x7f, 'E', 'L', 'F'},
		"darwin":  {0xcf, 0xfa, 0xed, 0xfe},
		"windows": {'M', 'Z'},
	}
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("SHA256SUMS line %q", line)
		}
		names = append(names, name)
		b, err := os.ReadFile(filepath.Join(rel, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := sha256.Sum256(b); hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s: sha256 %x, SHA256SUMS says %s", name, got, sum)
		}
		goos := strings.Split(name, "-")[1]
		if !bytes.HasPrefix(b, magic[goos]) {
			t.Errorf("%s does not start as a %s binary: % x", name, goos, b[:4])
		}
	}
	want := []string{"wrapcheck-darwin-amd64", "wrapcheck-darwin-arm64", "wrapcheck-linux-amd64", "wrapcheck-linux-arm64", "wrapcheck-windows-amd64.exe", "wrapcheck-windows-arm64.exe"}
	sort.Strings(names)
	if diff := cmp.Diff(want, names); diff != "" {
		t.Fatalf("release files (-want +got):\n%s", diff)
	}
	if runtime.GOOS != "linux" || (runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64") {
		return
	}
	install, _ := filepath.Abs(filepath.Join("..", "..", ".ci", "install.sh"))
	runInstall := func(t *testing.T, bin string) (string, error) {
		cmd := exec.Command("bash", install, "release")
		cmd.Env = append(os.Environ(), "WRAPCHECK_BIN="+bin, "WRAPCHECK_REF="+version,
			"WRAPCHECK_RELEASES=file://"+filepath.ToSlash(filepath.Dir(rel)), "GITHUB_OUTPUT=")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	bin := filepath.Join(t.TempDir(), "bin")
	out, err := runInstall(t, bin)
	if err != nil || !strings.Contains(out, "installed=true") {
		t.Fatalf("install.sh release: %v\n%s", err, out)
	}
	got, err := exec.Command(filepath.Join(bin, "wrapcheck"), "version").Output()
	if want := fmt.Sprintf("wrapcheck %s (json format 1)\n", version); err != nil || string(got) != want {
		t.Errorf("installed binary: version %q (%v), want %q", got, err, want)
	}
	host := filepath.Join(rel, "wrapcheck-linux-"+runtime.GOARCH)
	if err := os.WriteFile(host, []byte("not the binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := runInstall(t, filepath.Join(t.TempDir(), "bin")); err == nil || !strings.Contains(out, "does not match its SHA256SUMS") {
		t.Errorf("install.sh took a binary that does not match its checksum: %v\n%s", err, out)
	}
}
