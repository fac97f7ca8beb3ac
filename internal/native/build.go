package native

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	source "github.com/wrapcheck/wrapcheck"
	"github.com/wrapcheck/wrapcheck/machine"
)

// EntryName is the name of the cache entry of srcs: <the source hash of
// this binary>/<a hash of the keys of srcs' code>.
func EntryName(srcs []*machine.NativeSource) (string, error) {
	hash, err := source.SourceHash()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	var keys []string
	for _, s := range srcs {
		keys = append(keys, s.Key)
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	for _, k := range keys {
		h.Write([]byte(k + "\n"))
	}
	return hash + "/" + hex.EncodeToString(h.Sum(nil)[:12]), nil
}

// BuildOnce builds the binary of the entry rel unless it is there and
// verified, waiting for another process that builds it, and reports
// whether it built it. The caller holds the entry's lock.
func (c *Cache) BuildOnce(ctx context.Context, goTool, rel string, srcs []*machine.NativeSource, log io.Writer) (bool, error) {
	dir := filepath.Join(c.Root, filepath.FromSlash(rel))
	bin := filepath.Join(dir, BinName)
	if ok, err := c.Verify(rel); ok || err != nil {
		return false, err
	}
	f, err := os.OpenFile(filepath.Join(dir, buildLockName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return false, err
	}
	defer f.Close()
	if err := lockFileContext(ctx, f, true); err != nil {
		return false, err
	}
	if ok, err := c.Verify(rel); ok || err != nil {
		return false, err // another process built it while this one waited
	}
	dead, _ := filepath.Glob(filepath.Join(dir, "build-*"))
	for _, d := range dead {
		os.RemoveAll(d) // a build that died: none runs while this one holds the lock
	}
	if _, err := os.Lstat(bin); err == nil {
		fmt.Fprintf(log, "wrapcheck: --compile: %s is not the binary built there (its SHA-256 is not the one recorded): not run\n", bin)
		if err := os.Remove(bin); err != nil {
			return false, err
		}
	}
	fmt.Fprintf(log, "wrapcheck: --compile: building %s (once for these specs)\n", bin)
	return true, build(ctx, goTool, dir, srcs, bin, func(sum []byte) error { return c.Record(rel, sum) })
}

// build writes the embedded source and srcs into a temporary
// directory under dir and builds the command from them into bin, calling
// record with the binary's SHA-256 before it moves it there. go build
// runs in a process group of its own, which the end of ctx kills.
func build(ctx context.Context, goTool, dir string, srcs []*machine.NativeSource, bin string, record func(sum []byte) error) error {
	tmp, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, "src")
	if err := source.WriteSource(src); err != nil {
		return err
	}
	var keys []string
	for _, s := range srcs {
		keys = append(keys, s.Key)
		if err := os.WriteFile(filepath.Join(src, "machine", "zz_native_"+s.Key+".go"), s.Code, 0o644); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(src, "machine", "zz_native_table.go"), machine.NativeTable(keys), 0o644); err != nil {
		return err
	}
	out := filepath.Join(tmp, "wrapcheck-native")
	c := exec.CommandContext(ctx, goTool, "build", "-tags", "wrapcheck_native", "-trimpath", "-o", out, "./cmd/wrapcheck")
	c.Dir = src
	c.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=-mod=mod")
	ownGroup(c)
	c.WaitDelay = 2 * time.Second
	var log bytes.Buffer
	c.Stdout, c.Stderr = &log, &log
	if err := c.Run(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		msg := strings.TrimSpace(log.String())
		if len(msg) > 2000 {
			msg = msg[len(msg)-2000:]
		}
		return fmt.Errorf("go build failed (it needs the module cache or the Go proxy for the dependencies): %v\n%s", err, msg)
	}
	if err := os.Chmod(out, 0o700); err != nil {
		return err
	}
	sum, err := fileSum(out)
	if err != nil {
		return err
	}
	if err := record(sum); err != nil {
		return err
	}
	return os.Rename(out, bin)
}
