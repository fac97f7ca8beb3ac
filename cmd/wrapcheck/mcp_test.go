package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wrapcheck/wrapcheck/mcp"
)

// TestMCPCheckSameJSON checks that the MCP check tool returns the JSON of
// `wrapcheck check --format json`, up to the timing and worker figures.
func TestMCPCheckSameJSON(t *testing.T) {
	ctx := context.Background()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := mcp.NewServer(mcp.Options{}).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	// The examples lie outside the working directory: the repository is
	// the client's root.
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil)
	client.AddRoots(&sdk.Root{URI: (&url.URL{Scheme: "file", Path: filepath.ToSlash(repo)}).String()})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()
	for _, path := range []string{
		"../../examples/approval/toctou.wrap",
		"../../examples/approval/toctou_fixed_revoke.wrap",
		"../../examples/classic/peterson_fair.wrap",
		"../../examples/pipeline/rerender_forever.wrap",
	} {
		t.Run(path, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run([]string{"check", "--format", "json", "--workers", "2", "--progress", "off", path}, &stdout, &stderr)
			if code > 1 {
				t.Fatalf("check exited %d: %s", code, stderr.String())
			}
			var want map[string]any
			if err := json.Unmarshal(stdout.Bytes(), &want); err != nil {
				t.Fatal(err)
			}
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "check", Arguments: map[string]any{"path": path, "workers": 2}})
			if err != nil || res.IsError {
				t.Fatalf("mcp check: %v %+v", err, res)
			}
			b, _ := json.Marshal(res.StructuredContent)
			var got struct{ Result map[string]any }
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			for _, m := range []map[string]any{want, got.Result} {
				if stats, ok := m["stats"].(map[string]any); ok {
					stats["seconds"] = 0
				}
			}
			if diff := cmp.Diff(want, got.Result); diff != "" {
				t.Errorf("mcp check vs check --format json (-want +got):\n%s", diff)
			}
		})
	}
}
