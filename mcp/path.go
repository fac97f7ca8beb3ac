package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// readPath reads the spec file at p for a tool call of req. The file must
// lie, once every symbolic link on its way is resolved, under one of the
// roots the client declares (MCP roots) or, when it declares none, under
// the server's working directory, against which a relative p is resolved.
// It must be a regular file: a device, a FIFO or a socket is refused
// without being opened, so that no call can block on it or read the
// server's own stdin.
func readPath(ctx context.Context, req *sdk.CallToolRequest, p string) ([]byte, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	roots, where := clientRoots(ctx, req), "the client's roots"
	if len(roots) == 0 {
		roots, where = []string{cwd}, "the working directory"
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(cwd, p)
	}
	resolved, err := filepath.EvalSymlinks(abs)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	inside := false
	for _, r := range roots {
		if rr, err := filepath.EvalSymlinks(r); err == nil && within(rr, resolved) {
			inside = true
			break
		}
	}
	if !inside {
		return nil, fmt.Errorf("%s: outside %s, where the server reads files", p, where)
	}
	fi, err := os.Lstat(resolved)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: errors.Unwrap(err)}
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", p)
	}
	if fi.Size() > maxSpecBytes {
		return nil, fmt.Errorf("%s is over the limit of %d bytes", p, maxSpecBytes)
	}
	f, err := openRegular(resolved)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: errors.Unwrap(err)}
	}
	defer f.Close()
	// The file may have been replaced between the Lstat and the open.
	if fi2, err := f.Stat(); err != nil || !os.SameFile(fi, fi2) {
		return nil, fmt.Errorf("%s: changed while it was opened", p)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxSpecBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxSpecBytes {
		return nil, fmt.Errorf("%s is over the limit of %d bytes", p, maxSpecBytes)
	}
	return b, nil
}

// rootsInput is the key of the roots in a tool call's input requests
// and responses (the MCP multi round-trip, SEP-2322).
const rootsInput = "roots"

// declaresRoots reports whether the client of req declares the roots
// capability.
func declaresRoots(req *sdk.CallToolRequest) bool {
	if req == nil || req.Session == nil {
		return false
	}
	ip := req.Session.InitializeParams()
	return ip != nil && ip.Capabilities != nil && ip.Capabilities.RootsV2 != nil
}

// needsRoots reports whether a call of req that reads a path must first
// ask its client for its roots: the client declares roots and the call
// does not carry them yet.
func needsRoots(req *sdk.CallToolRequest) bool {
	if !declaresRoots(req) || req.Params == nil {
		return false
	}
	_, ok := req.Params.InputResponses[rootsInput]
	return !ok
}

// askRoots is the answer to a call that needs its client's roots: the
// SDK asks the client for them (in the same call with a client of the
// multi round-trip protocol, by a roots/list request with an older one)
// and calls the tool again with them.
func askRoots() *sdk.CallToolResult {
	return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{rootsInput: &sdk.ListRootsParams{}}}
}

// clientRoots returns the directories of the file: roots that the client
// of req sent with the call, or nil when it sent none.
func clientRoots(_ context.Context, req *sdk.CallToolRequest) []string {
	if req == nil || req.Params == nil {
		return nil
	}
	res, ok := req.Params.InputResponses[rootsInput].(*sdk.ListRootsResult)
	if !ok || res == nil {
		return nil
	}
	var dirs []string
	for _, r := range res.Roots {
		if r == nil {
			continue
		}
		u, err := url.Parse(r.URI)
		if err != nil || u.Scheme != "file" || u.Path == "" {
			continue
		}
		dirs = append(dirs, filepath.Clean(filepath.FromSlash(u.Path)))
	}
	return dirs
}

// within reports whether path is root or lies under it; both are
// absolute and free of symbolic links.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && !filepath.IsAbs(rel) && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
