//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The hostile-input test of issue 34: every command and server of the
// built binary, given the reproducers (testdata/hostile: rtbomb,
// constbomb, fnbomb, arr2, bigwork; a FIFO for a spec; a hostile S3
// endpoint and a file:// store with links), ends within its limit + 1 s
// with exit 3 or a clear error, its peak RSS under its memory limit +
// 100 MiB, and no message quotes more than 40 digits of an integer.

// startPiped starts c with its standard output on a pipe and its
// standard error in a buffer, and returns them and when it started.
func startPiped(t *testing.T, c *exec.Cmd) (io.Reader, *bytes.Buffer, time.Time) {
	t.Helper()
	stdout, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := new(bytes.Buffer)
	c.Stderr = stderr
	start := time.Now()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	return stdout, stderr, start
}

// lspFrame writes one LSP message (Content-Length framing) to w.
func lspFrame(w io.Writer, msg map[string]any) {
	msg["jsonrpc"] = "2.0"
	b, _ := json.Marshal(msg)
	fmt.Fprintf(w, "Content-Length: %d\r\n\r\n%s", len(b), b)
}

// lspSession runs `wrapcheck lsp` as an editor would: it opens a small
// document and src, asks for the symbols of both (the small one's must
// come at once), runs the code lens check named lens on src when lens is
// not empty and cancels it ($/cancelRequest), then shuts the server down.
// Its output is every message the server sent.
func lspSession(t *testing.T, bin, src, lens string) hostileRun {
	t.Helper()
	c := exec.Command(bin, "lsp")
	in, _ := c.StdinPipe()
	stdout, stderr, start := startPiped(t, c)
	var transcript strings.Builder
	responses := map[int]chan struct{}{}
	for id := 1; id <= 6; id++ {
		responses[id] = make(chan struct{})
	}
	notes := make(chan string, 100)
	go func() {
		r := bufio.NewReader(stdout)
		for {
			var n int
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					close(notes)
					return
				}
				if line == "\r\n" {
					break
				}
				if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
					n, _ = strconv.Atoi(strings.TrimSpace(v))
				}
			}
			body := make([]byte, n)
			if _, err := io.ReadFull(r, body); err != nil {
				close(notes)
				return
			}
			transcript.Write(body) // only this goroutine writes until notes closes
			transcript.WriteByte('\n')
			var m struct {
				ID     *int   `json:"id"`
				Method string `json:"method"`
			}
			json.Unmarshal(body, &m)
			switch {
			case m.Method == "window/showMessage":
				notes <- string(body)
			case m.ID != nil && m.Method == "" && responses[*m.ID] != nil:
				close(responses[*m.ID])
			}
		}
	}()
	wait := func(id int, within time.Duration, what string) {
		select {
		case <-responses[id]:
		case <-time.After(within):
			t.Errorf("lsp: no answer to %s within %v", what, within)
		}
	}
	doc := func(uri string) map[string]any { return map[string]any{"textDocument": map[string]any{"uri": uri}} }
	open := func(uri, text string) {
		lspFrame(in, map[string]any{"method": "textDocument/didOpen", "params": map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "wrap", "version": 1, "text": text}}})
	}
	lspFrame(in, map[string]any{"id": 1, "method": "initialize", "params": map[string]any{"processId": nil, "capabilities": map[string]any{}}})
	wait(1, 5*time.Second, "initialize")
	lspFrame(in, map[string]any{"method": "initialized", "params": map[string]any{}})
	open("file:///tmp/hostile.wrap", src)
	open("file:///tmp/small.wrap", "spec S\nvar x: bool\naction a { x := not x }\n")
	lspFrame(in, map[string]any{"id": 2, "method": "textDocument/documentSymbol", "params": doc("file:///tmp/hostile.wrap")})
	lspFrame(in, map[string]any{"id": 3, "method": "textDocument/documentSymbol", "params": doc("file:///tmp/small.wrap")})
	wait(3, 2*time.Second, "the symbols of another document")
	wait(2, 6*time.Second, "the symbols of the hostile document")
	if lens != "" {
		lspFrame(in, map[string]any{"id": 4, "method": "workspace/executeCommand", "params": map[string]any{"command": "wrapcheck.check", "arguments": []any{"file:///tmp/hostile.wrap", lens}}})
		wait(4, 2*time.Second, "executeCommand")
		time.Sleep(300 * time.Millisecond)
		lspFrame(in, map[string]any{"method": "$/cancelRequest", "params": map[string]any{"id": 4}})
		select {
		case <-notes:
		case <-time.After(time.Second):
			t.Errorf("lsp: the cancelled check did not end within a second")
		}
	}
	lspFrame(in, map[string]any{"id": 5, "method": "shutdown"})
	wait(5, 2*time.Second, "shutdown")
	lspFrame(in, map[string]any{"method": "exit"})
	in.Close()
	return measure(c, start, func() string {
		for range notes { // until the reader is done
		}
		return transcript.String() + stderr.String()
	})
}

// mcpCall runs `wrapcheck mcp` in dir, makes one tool call with args
// through the MCP SDK's client over stdio, and closes the session. Its
// output is the call's text, "error: " before it when it is an error.
func mcpCall(t *testing.T, bin, dir, tool string, args map[string]any) hostileRun {
	t.Helper()
	c := exec.Command(bin, "mcp")
	c.Dir = dir
	var stderr bytes.Buffer
	c.Stderr = &stderr
	start := time.Now()
	client := sdk.NewClient(&sdk.Implementation{Name: "hostile", Version: "v0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: c, TerminateDuration: time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	switch {
	case err != nil:
		fmt.Fprintf(&out, "error: %v", err)
	case res.IsError:
		out.WriteString("error: ")
		fallthrough
	default:
		for _, c := range res.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				out.WriteString(tc.Text)
			}
		}
	}
	cs.Close()
	return measure(c, start, func() string { return out.String() + stderr.String() })
}

// uiRun serves spec with `wrapcheck ui`, posts one check of src (the
// page's request, with the token, timeout_ms the limit) and a request with another Host, and
// interrupts the server. Its output is the answers.
func uiRun(t *testing.T, bin, dir, spec, src string, limit time.Duration) hostileRun {
	t.Helper()
	dist := filepath.Join(dir, "dist")
	os.MkdirAll(dist, 0o755)
	os.WriteFile(filepath.Join(dist, "index.html"), []byte("<!doctype html>"), 0o644)
	c := exec.Command(bin, "ui", "--no-open", "--dir", dist, spec)
	stdout, stderr, start := startPiped(t, c)
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	var out strings.Builder
	addr := regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+/\?token=[^ ]+`).FindString(line)
	if u, err := url.Parse(addr); err == nil && addr != "" {
		body, _ := json.Marshal(map[string]any{"op": "check", "name": "spec.wrap", "source": src, "timeout_ms": limit.Milliseconds()})
		post := func(host string) {
			req, _ := http.NewRequest("POST", "http://"+u.Host+"/api/run", bytes.NewReader(body))
			req.Host = host
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-Wrapcheck-Token", u.Query().Get("token"))
			resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
			if err != nil {
				fmt.Fprintf(&out, "error: %v\n", err)
				return
			}
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
			fmt.Fprintf(&out, "%d %s\n", resp.StatusCode, b)
		}
		post("rebound.example:" + u.Port())
		post(u.Host)
	} else {
		t.Errorf("ui printed no address: %q", line)
	}
	c.Process.Signal(os.Interrupt)
	return measure(c, start, func() string { return out.String() + stderr.String() })
}

// storeRow runs the binary on PATH (the store harness's runStore) and
// returns its outcome as a hostileRun.
func storeRow(t *testing.T, env []string, args ...string) hostileRun {
	r := runStore(t, env, 20*time.Second, args...)
	return hostileRun{code: r.code, out: r.stdout + r.stderr, took: r.elapsed, rssMiB: r.maxRSS >> 20}
}

// longIntSrc is a spec whose action makes an integer of 1000 digits
// where a 64-bit one is needed: the runtime error names it by its first
// and last digits and its digit count.
var longIntSrc = "spec LongInt\nconst H = " + strings.Repeat("9", 1000) + "\nvar x: 0..1\naction go when x == 0 {\n  let y = H * (x + 1)\n  x := y\n}\n"

// probBombSrc has 9 million states for prob, built with exact fractions
// (the construction alone passes 200 MiB in seconds); probChainSrc has
// 1991, and each step of its exact solution works on fractions of about
// 3^1990 (minutes).
const (
	probBombSrc = `spec ProbBomb
var a: 0..3000
var b: 0..3000
agent coin(): bool
rate coin { true: 1 of 2; false: 1 of 2 }
action step {
  let h = ask coin()
  if h {
    a := (a + 1) % 3001
  } else {
    b := (b + 1) % 3001
  }
}
probability Far: eventually (a == 3000 and b == 3000)
`
	probChainSrc = `spec Chain
var money: 0..1990 = 995
agent coin(): bool
rate coin { true: 1 of 3; false: 2 of 3 }
action bet when money > 0 and money < 1990 {
  let heads = ask coin()
  money := if heads then money + 1 else money - 1
}
terminal money == 0 or money == 1990
probability Rich: eventually money == 1990
`
)

// manyDigits is a run of more digits than a message may quote.
var manyDigits = regexp.MustCompile(`[0-9]{41}`)

// valueLine is a line of prob's text report that gives an exact value,
// `Rich: P_min(eventually money == 1990) = 1/3348...`, or a witness's
// exact probability, `witness of Rich's P_min: ... probability 1/5440...`.
// Its fraction may have any number of digits: the values are exact by
// design.
var valueLine = regexp.MustCompile(`(?m)^\s*(\w+: [PE]_(min|max)\(.*\) = |witness of ).*$`)

// quotedDigits is out without prob's exact values (valueLine): what
// the check for quoted integers reads.
func quotedDigits(out string) string { return valueLine.ReplaceAllString(out, "") }

// TestHostileEveryCommand runs every command and server of the built
// binary on issue 34's reproducers: check, simulate, vet, fmt, graph,
// ltl, replay, diff, explain and prob (the reproducers with a query) with their limits (--timeout 2s, and
// --memory 200MiB where they take it), the language server and the MCP
// server over stdio driven by their protocols (lsp: its 5 s budget per
// document, 512 MiB; mcp: timeout_seconds 2), the playground server over
// HTTP with a hostile spec as the body of a check, and worker on a
// file:// store with links and on hostile S3 endpoints (--timeout 3s,
// 150 MiB). Each ends within its limit + 1 s with its exit code and a
// clear message or exit 3, its peak RSS under its memory limit + 100
// MiB; no output quotes more than 40 digits of an integer, and no line
// of it starts with user data (checkLines: a run file's action name that
// holds a workflow command after a newline).
func TestHostileEveryCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin, dir := buildBinary(t)
	h := func(name string) string { return hostileSpec(t, name) }
	rtbomb, constbomb, fnbomb, arr2, bigwork := h("rtbomb.wrap"), h("constbomb.wrap"), h("fnbomb.wrap"), h("arr2.wrap"), h("bigwork.wrap")
	src := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	longint := writeSpec(t, dir, "longint.wrap", longIntSrc)
	// the reproducers with a probability query, for prob
	bigworkQ, arr2Q := src(bigwork)+"probability P: eventually a == 1\n", src(arr2)+"probability P: eventually a[0] == 1\n"
	bigworkP, arr2P := writeSpec(t, dir, "bigworkp.wrap", bigworkQ), writeSpec(t, dir, "arr2p.wrap", arr2Q)
	probBomb, probChain := writeSpec(t, dir, "probbomb.wrap", probBombSrc), writeSpec(t, dir, "chain.wrap", probChainSrc)
	probWalk := h("walk.wrap")
	probWalkBox, probWalkSens := h("walkbox.wrap"), h("walksens.wrap")
	fifo := filepath.Join(dir, "fifo.wrap")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	runGo := writeSpec(t, dir, "go.jsonl", `{"action": "go"}`+"\n")
	runS := writeSpec(t, dir, "s.jsonl", `{"action": "s"}`+"\n")
	runForged := writeSpec(t, dir, "forged.jsonl", `{"action": `+jsonString("go"+hostileText)+`}`+"\n")
	var untils []string
	for i := range 20 {
		untils = append(untils, fmt.Sprintf("(p%d until q%d)", i, i))
	}
	cli := func(args ...string) func(*testing.T) hostileRun {
		return func(t *testing.T) hostileRun { return runHostile(t, bin, 0, args...) }
	}
	mcpRow := func(tool string, args map[string]any) func(*testing.T) hostileRun {
		args["timeout_seconds"] = 2
		return func(t *testing.T) hostileRun { return mcpCall(t, bin, dir, tool, args) }
	}
	const (
		tooLarge  = "integer result does not fit 16384 bits (the size bound on exact integers)"
		expansion = "fn calls expand to too large a program"
		fifoMsg   = "a named pipe (FIFO) that no process writes to: nothing to read"
		elided    = "value 9999999999999999...9999999999999999 (1000 digits) does not fit a 64-bit integer"
		sec2      = 2 * time.Second
		sec3      = 3 * time.Second
	)
	to, mem := []string{"--timeout", "2s"}, []string{"--timeout", "2s", "--memory", "200MiB"}
	// Where the memory budget is to stop the run, the deadline is far
	// enough that a loaded machine does not reach it first.
	long, sec10 := []string{"--timeout", "10s", "--memory", "200MiB"}, 10*time.Second
	with := func(flags []string, cmd string, args ...string) []string {
		return append(append([]string{cmd}, flags...), args...)
	}
	tests := []struct {
		name  string
		run   func(*testing.T) hostileRun
		code  int
		want  []string // in the output
		limit time.Duration
		mem   int64 // MiB
	}{
		{"check/rtbomb", cli(with(mem, "check", rtbomb)...), exitViolated, []string{tooLarge}, sec2, 200},
		{"check/arr2", cli(with(long, "check", arr2)...), exitIncomplete, []string{"incomplete: memory budget"}, sec10, 200},
		{"check/bigwork", cli(with(mem, "check", bigwork)...), exitIncomplete, []string{"incomplete: timeout"}, sec2, 200},
		{"check/fifo", cli(with(mem, "check", fifo)...), exitUsage, []string{fifoMsg}, sec2, 200},
		{"check/longint", cli(with(mem, "check", longint)...), exitViolated, []string{elided}, sec2, 200},
		{"simulate/bigwork", cli(with(to, "simulate", bigwork)...), exitIncomplete, []string{"before the timeout"}, sec2, 0},
		// the walks' exact arithmetic reached 410 MiB in 2 s without
		// --memory
		{"simulate/bigwork/memory", cli(with(long, "simulate", bigwork)...), exitIncomplete, []string{"before the memory budget"}, sec10, 200},
		{"simulate/longint", cli(with(to, "simulate", longint)...), exitViolated, []string{elided}, sec2, 200},
		{"vet/fnbomb", cli("vet", "--timeout", "10s", fnbomb), exitUsage, []string{expansion}, sec10, 200},
		{"vet/constbomb", cli(with(to, "vet", constbomb)...), exitUsage, []string{tooLarge}, sec2, 200},
		{"fmt/rtbomb", cli("fmt", "-l", rtbomb), exitViolated, []string{"rtbomb.wrap"}, sec2, 200},
		{"fmt/fnbomb", cli("fmt", "-l", fnbomb), exitViolated, []string{"fnbomb.wrap"}, sec2, 200},
		{"fmt/fifo", cli("fmt", fifo), exitUsage, []string{fifoMsg}, sec2, 200},
		// graph's exploration keeps every successor of the states it
		// expands (1.4 GB in 20 s on arr2 without --memory)
		{"graph/arr2", cli(with(long, "graph", arr2)...), exitIncomplete, []string{"graph: stopped before the end: memory budget (--memory 200MiB)"}, sec10, 200},
		{"ltl/untils", cli(with(to, "ltl", strings.Join(untils, " and "))...), exitIncomplete, []string{"ltl: stopped before the end: timeout (--timeout 2s)"}, sec2, 200},
		{"replay/bigwork", cli(with(to, "replay", bigwork, runGo)...), exitIncomplete, []string{"replay: stopped before the end: timeout (--timeout 2s)"}, sec2, 200},
		// one step of arr2 expands 100,000 successors (2.3 GB in 10 s
		// without --memory)
		{"replay/arr2", cli(with(long, "replay", arr2, runS)...), exitIncomplete, []string{"replay: stopped before the end: memory budget (--memory 200MiB)"}, sec10, 200},
		{"replay/forged-name", cli(with(to, "replay", bigwork, runForged)...), exitUsage, []string{`go\n##[error]INJ A`}, sec2, 200},
		{"replay/constbomb", cli(with(to, "replay", constbomb, runGo)...), exitUsage, []string{tooLarge}, sec2, 200},
		{"diff/arr2", cli(with(long, "diff", arr2, arr2)...), exitIncomplete, []string{"incomplete, memory budget", "no difference found, but the comparison is incomplete"}, sec10, 200},
		// the 2 s or the 200 MiB, whichever comes first (its integers
		// grow: the budget on an idle machine, the time on a loaded one)
		{"diff/bigwork", cli(with(mem, "diff", bigwork, bigwork)...), exitIncomplete, []string{"new allows, old does not: incomplete, "}, sec2, 200},
		{"diff/rtbomb-constbomb", cli(with(mem, "diff", rtbomb, constbomb)...), exitUsage, []string{tooLarge}, sec2, 200},
		{"explain/bigwork", cli(with(mem, "explain", bigwork)...), exitIncomplete, []string{"timeout"}, sec2, 200},
		{"explain/arr2", cli(with(long, "explain", arr2)...), exitIncomplete, []string{"memory budget"}, sec10, 200},
		{"explain/fnbomb", cli("explain", "--timeout", "10s", "--memory", "50MiB", fnbomb), exitIncomplete, []string{"explain: stopped before the end: memory budget (--memory 50MiB)"}, sec10, 50},
		{"explain/longint", cli(with(mem, "explain", longint)...), exitViolated, []string{elided}, sec2, 200},
		{"prob/bigwork-query", cli(with(mem, "prob", bigworkP)...), exitIncomplete, []string{"stopped at the timeout (2s)"}, sec2, 200},
		// one step of arr2 expands 100,000 successors: without the
		// budget's check within the expansion, 1.6 GB in 10 s
		{"prob/arr2-query", cli(with(long, "prob", arr2P)...), exitIncomplete, []string{"memory budget exceeded"}, sec10, 200},
		{"prob/constbomb", cli(with(mem, "prob", constbomb)...), exitUsage, []string{tooLarge}, sec2, 200},
		// prob, with its witnesses and sensitivity asked for: the
		// construction, the precomputation (prob1E was cubic on the
		// chain: 17 s past a 2 s deadline) and the exact solution
		// stop at the deadline or the budget
		// (no --memory: the row after this one holds the budget)
		{"prob/probbomb", cli(with(to, "prob", "--witness", "--sensitivity", probBomb)...), exitIncomplete, []string{"stopped at the timeout (2s)"}, sec2, 0},
		{"prob/probbomb/memory", cli(with(long, "prob", "--witness", "--sensitivity", probBomb)...), exitIncomplete, []string{"memory budget exceeded"}, sec10, 200},
		{"prob/chain", cli(with(mem, "prob", "--witness", "--sensitivity", probChain)...), exitIncomplete, []string{"stopped at the timeout (2s)"}, sec2, 200},
		{"prob/bigwork", cli(with(mem, "prob", bigwork)...), exitUsage, []string{"no probability queries"}, sec2, 200},
		// interval iteration stopped: the bounds reached, the bound
		// not decided, in every format
		{"prob/walk", cli(with(mem, "prob", "--interval", probWalk)...), exitIncomplete, []string{"(interval iteration, stopped by the limit): bound <= 9/10 not decided", "stopped at the timeout (2s)"}, sec2, 200},
		{"prob/walk/json", cli(with(mem, "prob", "--interval", "--format", "json", probWalk)...), exitIncomplete, []string{`"reason": "timeout"`, `"stopped": true`, "stopped at the timeout (2s)"}, sec2, 200},
		{"prob/walk/sarif", cli(with(mem, "prob", "--interval", "--format", "sarif", probWalk)...), exitIncomplete, []string{`"reason": "timeout"`, "the computation stopped early (timeout)", "stopped at the timeout (2s)"}, sec2, 200},
		{"prob/walkbox", cli(with(mem, "prob", "--interval", probWalkBox)...), exitIncomplete, []string{"Far: P_max(eventually x == 60) in [0, ", "Far: the range over the confidence intervals of the counts was stopped by the limit", "stopped at the timeout (2s)"}, sec2, 200},
		{"prob/walkbox/json", cli(with(mem, "prob", "--interval", "--format", "json", probWalkBox)...), exitIncomplete, []string{`"reason": "timeout"`, `"stopped_in": "box"`, `"upper": `, "stopped at the timeout (2s)"}, sec2, 200},
		{"prob/walkbox/sarif", cli(with(mem, "prob", "--interval", "--format", "sarif", probWalkBox)...), exitIncomplete, []string{`"reason": "timeout"`, "the computation stopped early (timeout)", `"level": "warning"`, "9/10 not decided", "stopped at the timeout (2s)"}, sec2, 200},
		{"prob/walksens", cli(with(mem, "prob", "--interval", "--sensitivity", probWalkSens)...), exitIncomplete, []string{"over the 95% confidence intervals of the counts in [0, 1]", "Far: the sensitivity to each measured rate was stopped by the limit (not shown)", "stopped at the timeout (2s)"}, sec2, 200},
		{"prob/walksens/json", cli(with(mem, "prob", "--interval", "--sensitivity", "--format", "json", probWalkSens)...), exitIncomplete, []string{`"stopped_in": "sensitivity"`, `"box": {`, "stopped at the timeout (2s)"}, sec2, 200},
		{"lsp/constbomb", func(t *testing.T) hostileRun { return lspSession(t, bin, src(constbomb), "") }, exitHolds, []string{tooLarge}, 5 * time.Second, 512},
		{"lsp/fnbomb", func(t *testing.T) hostileRun { return lspSession(t, bin, src(fnbomb), "") }, exitHolds, []string{expansion}, 5 * time.Second, 512},
		{"lsp/arr2", func(t *testing.T) hostileRun { return lspSession(t, bin, src(arr2), "") }, exitHolds, nil, 5 * time.Second, 512},
		{"lsp/bigwork", func(t *testing.T) hostileRun { return lspSession(t, bin, src(bigwork), "Small") }, exitHolds,
			[]string{"Small: the search stopped early (interrupted)"}, 5 * time.Second, 512},
		{"mcp/check/bigwork", mcpRow("check", map[string]any{"spec": src(bigwork)}), exitHolds, []string{"incomplete: timeout"}, sec2, 200},
		// the server's 1 GiB budget or the call's 2 s, whichever comes
		// first (the budget on an idle machine, the time on a loaded one):
		// the row holds the time and the RSS
		{"mcp/check/arr2", mcpRow("check", map[string]any{"spec": src(arr2)}), exitHolds, nil, sec2, 1024},
		{"mcp/vet/constbomb", mcpRow("vet", map[string]any{"spec": src(constbomb)}), exitHolds, []string{"error: ", tooLarge}, sec2, 200},
		{"mcp/fmt/fifo", mcpRow("fmt", map[string]any{"path": "fifo.wrap"}), exitHolds, []string{"error: "}, sec2, 200},
		{"mcp/vet/etc-passwd", mcpRow("vet", map[string]any{"path": "/etc/passwd"}), exitHolds, []string{"error: "}, sec2, 200},
		{"mcp/vet/dotdot", mcpRow("vet", map[string]any{"path": "../../../../../../etc/hostname"}), exitHolds, []string{"error: "}, sec2, 200},
		{"mcp/fmt/dev-stdin", mcpRow("fmt", map[string]any{"path": "/dev/stdin"}), exitHolds, []string{"error: "}, sec2, 200},
		{"mcp/ltl/untils", mcpRow("ltl", map[string]any{"formula": strings.Join(untils, " and ")}), exitHolds, []string{"ltl: stopped before the end: timeout"}, sec2, 200},
		{"mcp/replay/bigwork", mcpRow("replay", map[string]any{"spec": src(bigwork), "run": `{"action": "go"}` + "\n"}), exitHolds, []string{"replay: stopped before the end: timeout"}, sec2, 200},
		{"mcp/prob/bigwork", mcpRow("prob", map[string]any{"spec": bigworkQ}), exitHolds, []string{"prob: stopped before the end: timeout"}, sec2, 200},
		{"mcp/prob/chain", mcpRow("prob", map[string]any{"spec": probChainSrc}), exitHolds, []string{"Chain: incomplete: stopped (timeout) during the range over the confidence intervals of the counts"}, sec2, 200},
		// interval iteration stopped: the bounds reached, as the CLI's
		{"mcp/prob/walk", mcpRow("prob", map[string]any{"spec": src(probWalk), "interval": true}), exitHolds, []string{"Walk: incomplete: stopped (timeout) during interval iteration", "(interval iteration, stopped by the limit): bound <= 9/10 not decided"}, sec2, 200},
		{"mcp/prob/walkbox", mcpRow("prob", map[string]any{"spec": src(probWalkBox), "interval": true}), exitHolds, []string{"WalkBox: incomplete: stopped (timeout) during the range over the confidence intervals of the counts"}, sec2, 200},
		// the server's 1 GiB budget or the call's 2 s, as mcp/check/arr2
		{"mcp/prob/arr2", mcpRow("prob", map[string]any{"spec": arr2Q}), exitHolds, nil, sec2, 1024},
		{"mcp/prob/constbomb", mcpRow("prob", map[string]any{"spec": src(constbomb)}), exitHolds, []string{"error: ", tooLarge}, sec2, 200},
		{"mcp/prob/etc-passwd", mcpRow("prob", map[string]any{"path": "/etc/passwd"}), exitHolds, []string{"error: "}, sec2, 200},
		// The expansion's bound or, on a loaded machine, the timeout.
		{"mcp/explain/fnbomb", mcpRow("explain", map[string]any{"spec": src(fnbomb)}), exitHolds, []string{"error: "}, sec2, 200},
		{"ui/bigwork", func(t *testing.T) hostileRun { return uiRun(t, bin, dir, bigwork, src(bigwork), sec2) }, exitHolds,
			[]string{"403 wrapcheck ui: ", `"verdict":"incomplete"`}, sec2, 200},
		{"ui/arr2", func(t *testing.T) hostileRun { return uiRun(t, bin, dir, arr2, src(arr2), sec10) }, exitHolds, []string{`"verdict":"incomplete"`, "memory budget"}, sec10, 256},
		{"ui/constbomb", func(t *testing.T) hostileRun { return uiRun(t, bin, dir, constbomb, src(constbomb), sec2) }, exitHolds, []string{tooLarge}, sec2, 200},
		{"worker/file/linked-level", func(t *testing.T) hostileRun {
			store, outside := t.TempDir(), t.TempDir()
			os.Mkdir(filepath.Join(store, "s0"), 0o777)
			os.Symlink(outside, filepath.Join(store, "s0", "L000001"))
			return storeRow(t, nil, "worker", "--timeout=3s", "--store", storeURL(store), "--index", "0", "--workers", "1", storeSpec)
		}, exitUsage, []string{"symbolic links, devices and FIFOs are refused"}, sec3, 50},
		{"worker/s3/endless-body", func(t *testing.T) hostileRun {
			return storeRow(t, hostileS3Env, "worker", "--timeout=3s", "--store", startEndpoint(t, "evils3.py", "inf"), "--index", "0", "--workers", "1", storeSpec)
		}, exitUsage, []string{"object too large"}, sec3, 50},
		{"worker/s3/endless-listing", func(t *testing.T) hostileRun {
			return storeRow(t, hostileS3Env, "worker", "--timeout=3s", "--store", startEndpoint(t, "evils3b.py"), "--index", "0", "--workers", "1", storeSpec)
		}, exitUsage, []string{"listing does not advance"}, sec3, 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.run(t)
			t.Logf("exit %d in %v, peak RSS %d MiB, lag %v", r.code, r.took.Round(time.Millisecond), r.rssMiB, r.lag.Round(time.Millisecond))
			r.check(t, tt.code, tt.want, tt.limit, tt.mem)
			checkLines(t, tt.name, []byte(r.out))
			if d := manyDigits.FindString(quotedDigits(r.out)); d != "" {
				t.Errorf("the output quotes more than 40 digits of an integer:\n%.2000s", r.out)
			}
		})
	}
}
