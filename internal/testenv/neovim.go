package testenv

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// Neovim runs the Lua script in a headless Neovim (nvim --headless
// --clean, found with [Tool]) in the directory dir, with HOME and the XDG
// state and data directories there, and returns what the script wrote to
// the file named by its global OUT (set before the script runs). The
// script ends Neovim itself (vim.cmd('qa!')); it has two minutes.
func Neovim(t testing.TB, dir, script string) []byte {
	t.Helper()
	nvim := Tool(t, "nvim", "install neovim (apt-get install neovim)")
	out := filepath.Join(dir, "nvim-out.json")
	lua := filepath.Join(dir, "nvim-drive.lua")
	if err := os.WriteFile(lua, []byte("OUT = "+strconv.Quote(out)+"\n"+script), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "--clean", "-n", "-c", "luafile "+lua)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_STATE_HOME="+dir, "XDG_DATA_HOME="+dir)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nvim: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("nvim wrote no result: %v", err)
	}
	return b
}
