package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
)

// TestWriteAtomic checks fmt -w's write: a failing write (a full disk,
// injected) leaves the original intact and no temporary file behind; a
// successful one keeps the file's permissions and follows a symlink.
func TestWriteAtomic(t *testing.T) {
	full := func(f *os.File, data []byte) error {
		if _, err := f.Write(data[:len(data)/2]); err != nil {
			return err
		}
		return syscall.ENOSPC
	}
	tests := []struct {
		name    string
		write   func(*os.File, []byte) error
		symlink bool
		want    string // the file's contents afterwards
		wantErr string // the whole message, the temporary directory written $TMP
	}{
		{"full disk", full, false, "original\n", "$TMP/s.wrap: not rewritten: no space left on device"},
		{"ok", writeAll, false, "formatted\n", ""},
		{"symlink", writeAll, true, "formatted\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "s.wrap")
			if err := os.WriteFile(path, []byte("original\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			target := path
			if tt.symlink {
				target = filepath.Join(dir, "link.wrap")
				if err := os.Symlink("s.wrap", target); err != nil {
					t.Fatal(err)
				}
			}
			err := writeAtomic(target, []byte("formatted\n"), tt.write)
			gotErr := ""
			if err != nil {
				gotErr = strings.ReplaceAll(err.Error(), dir, "$TMP")
			}
			if diff := cmp.Diff(tt.wantErr, gotErr); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("contents (-want +got):\n%s", diff)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want 0600", fi.Mode().Perm())
			}
			if tt.symlink {
				if li, err := os.Lstat(target); err != nil || li.Mode()&os.ModeSymlink == 0 {
					t.Errorf("the symlink was replaced (%v)", err)
				}
			}
			ents, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			want := []string{"s.wrap"}
			if tt.symlink {
				want = []string{"link.wrap", "s.wrap"}
			}
			if diff := cmp.Diff(want, names); diff != "" {
				t.Errorf("directory (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFmtReadOnlyDir checks that fmt -w in a directory where no
// temporary file can be made fails with exit 2 and keeps the file.
func TestFmtReadOnlyDir(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores directory permissions")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "s.wrap")
	src := "spec   S\nvar x: bool\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o755)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"fmt", "-w", path}, &stdout, &stderr); code != exitUsage {
		t.Errorf("exit %d, want %d (stderr %s)", code, exitUsage, stderr.String())
	}
	got, _ := os.ReadFile(path)
	if diff := cmp.Diff(src, string(got)); diff != "" {
		t.Errorf("contents (-want +got):\n%s", diff)
	}
}

// TestReadSpecLimit checks the cap on a spec file's size: a regular file
// over it and a device are refused with a message, not read to the end.
func TestReadSpecLimit(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.wrap")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(maxSpecBytes + 1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	f.Close()
	ok := filepath.Join(dir, "ok.wrap")
	if err := os.WriteFile(ok, []byte("spec S\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path    string
		wantErr string // the whole message, the temporary directory written $TMP
	}{
		{big, "$TMP/big.wrap: longer than 16 MiB, the limit for a spec file"},
		{"/dev/zero", "/dev/zero: longer than 16 MiB, the limit for a spec file"},
		{ok, ""},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.path), func(t *testing.T) {
			if _, err := os.Stat(tt.path); err != nil {
				t.Skip(err)
			}
			_, err := readSpec(tt.path)
			got := ""
			if err != nil {
				got = strings.ReplaceAll(err.Error(), dir, "$TMP")
			}
			if diff := cmp.Diff(tt.wantErr, got); diff != "" {
				t.Errorf("readSpec(%s): error (-want +got):\n%s", tt.path, diff)
			}
		})
	}
}

// TestHostileInputs runs the built binary on inputs made to exhaust it,
// each under --timeout 2s --memory 200MiB: it must exit 2 or 3 within 5 s
// with a peak RSS under 400 MB. The 30-deep until now translates in
// polynomial time: it must give its verdict (violated, exit 1) as fast.
func TestHostileInputs(t *testing.T) {
	if testenv.Short(t) {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "wrapcheck")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	write := func(name, src string) string { return writeSpec(t, dir, name, src) }
	// A 10 MB flat chain: const C = 1 + 1 + ... (about 2.5M terms).
	var chain strings.Builder
	chain.WriteString("spec Chain\nconst C = 1")
	for chain.Len() < 10<<20 {
		chain.WriteString(" + 1")
	}
	chain.WriteString("\nvar x: 0..1\naction a { x := 1 - x }\n")
	var until strings.Builder
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&until, "(b[%d] until ", i)
	}
	until.WriteString("b[30]" + strings.Repeat(")", 30))
	empty := write("empty.wrap", "spec E\nvar x: bool\naction a { x := not x }\n")
	tests := []struct {
		name string
		args []string
		skip string
		want []int // exit codes; nil: 2 or 3
	}{
		{"dev-zero check", []string{"check", "/dev/zero"}, "", nil},
		{"dev-zero vet", []string{"vet", "/dev/zero"}, "", nil},
		{"dev-zero fmt", []string{"fmt", "/dev/zero"}, "", nil},
		{"dev-zero graph", []string{"graph", "/dev/zero"}, "", nil},
		{"dev-zero replay", []string{"replay", empty, "/dev/zero"}, "", nil},
		{"flat chain", []string{"check", write("chain.wrap", chain.String())}, "", nil},
		{"until 30", []string{"check", write("until.wrap", "spec U\nvar b: [0..30]bool\naction flip { b[0] := not b[0] }\nproperty U: "+until.String()+"\n")}, "", []int{exitViolated}},
		{"choose 1e9", []string{"check", write("choose.wrap", "spec C\nvar y: 0..999999999\ninit { choose i in 0..999999999 { y := i } }\naction a { skip }\n")}, "", nil},
		{"quantifier 1e10", []string{"check", write("quant.wrap", "spec E\nvar x: 0..3 = 0\naction a { x := (x + 1) % 4 }\ninvariant I: forall i in 0..99999: forall j in 0..99999: i + j >= x\n")}, "", nil},
		{"eventualities 64", []string{"check", write("ev.wrap", "spec F\nvar x: 0..99 = 0\naction a { x := (x + 1) % 100 }\nproperty P: exists i in 0..63: always x != i\n")}, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := os.Stat("/dev/zero"); err != nil && strings.Contains(tt.name, "dev-zero") {
				t.Skip(err)
			}
			args := tt.args
			if args[0] == "check" {
				args = append([]string{"check", "--timeout", "2s", "--memory", "200MiB"}, args[1:]...)
			}
			cmd := exec.Command(bin, args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			start := time.Now()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			timer := time.AfterFunc(10*time.Second, func() { cmd.Process.Kill() })
			peak := peakRSS(cmd)
			err := cmd.Wait()
			timer.Stop()
			took := time.Since(start)
			code := cmd.ProcessState.ExitCode()
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) {
				t.Fatal(err)
			}
			rss := peak()
			crashed := code < 0 || // killed after 10 s
				strings.Contains(stderr.String(), "fatal error") || strings.Contains(stderr.String(), "goroutine ")
			if crashed {
				if tt.skip != "" {
					t.Skipf("%s: crashed (exit %d after %v, peak RSS %d MB): %.120q", tt.skip, code, took, rss>>20, stderr.String())
				}
				t.Fatalf("crashed (exit %d): %.300s", code, stderr.String())
			}
			want := tt.want
			if want == nil {
				want = []int{exitUsage, exitIncomplete}
			}
			if !slices.Contains(want, code) {
				t.Errorf("exit %d, want one of %v; stderr: %.300s", code, want, stderr.String())
			}
			if took > 5*time.Second {
				t.Errorf("took %v, want under 5s", took)
			}
			if rss > 400<<20 {
				t.Errorf("peak RSS %d MB, want under 400 MB", rss>>20)
			}
			t.Logf("exit %d in %v, peak RSS %s MB", code, took.Round(time.Millisecond), strconv.FormatInt(rss>>20, 10))
		})
	}
}

// writeSpec writes src to dir/name and returns the path.
func writeSpec(t *testing.T, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
