package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// injection is an assert message that tries to forge GitHub workflow
// commands, ring the bell and colour the terminal.
const injection = `x\n::error file=evil.wrap,line=1::INJECTED\n::add-mask::secret\a\x1b[31m`

// TestHostileOutput runs the CLI on a failing assertion with a hostile
// message, in a file whose name holds a newline, a workflow command and a
// BEL, and on a spec error and a vet warning in such a file: no stdout or
// stderr line starts with "::" unless it is wrapcheck's own annotation,
// no ESC or BEL passes, JSON and SARIF parse, JUnit parses as XML.
func TestHostileOutput(t *testing.T) {
	t.Setenv("GITHUB_ACTIONS", "true")
	dir := t.TempDir()
	name := "bad\n::error file=x::NAME\a.wrap"
	assertSpec := filepath.Join(dir, name)
	if err := os.WriteFile(assertSpec, []byte("spec Hostile\nvar x: 0..3\naction a when x < 3 { x := x + 1\n  assert x < 2 \""+injection+"\" }\n"), 0o644); err != nil {
		t.Skipf("this file system refuses the name: %v", err)
	}
	badSpec := filepath.Join(dir, "type\x1b[2Jerror.wrap")
	if err := os.WriteFile(badSpec, []byte("spec Bad\nvar x: 0..3\naction a { x := true }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	vetSpec := filepath.Join(dir, "vet\n::warning::W.wrap")
	if err := os.WriteFile(vetSpec, []byte("spec V\nvar x: 0..3\nvar unused: bool\naction a when x < 3 { x := x + 1 }\nterminal x == 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"text", []string{"check", assertSpec}, exitViolated},
		{"json", []string{"check", "--format", "json", assertSpec}, exitViolated},
		{"sarif", []string{"check", "--format", "sarif", assertSpec}, exitViolated},
		{"junit", []string{"check", "--format", "junit", assertSpec}, exitViolated},
		{"mermaid", []string{"check", "--format", "mermaid", assertSpec}, exitViolated},
		{"dot", []string{"check", "--format", "dot", assertSpec}, exitViolated},
		{"spec-error", []string{"check", badSpec}, exitUsage},
		{"vet", []string{"vet", vetSpec}, exitHolds},
		{"flag", []string{"check", "--format", "x\n::error::F\a", assertSpec}, exitUsage},
		{"only", []string{"check", "--only", "N\n::error::O\a", assertSpec}, exitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tt.args, &stdout, &stderr)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout.String(), stderr.String())
			}
			checkLines(t, "stdout", stdout.Bytes())
			checkLines(t, "stderr", stderr.Bytes())
			switch tt.name {
			case "json", "sarif":
				var x any
				if err := json.Unmarshal(stdout.Bytes(), &x); err != nil {
					t.Errorf("not JSON: %v\n%s", err, stdout.String())
				}
			case "junit":
				var x struct{}
				if err := xml.Unmarshal(stdout.Bytes(), &x); err != nil {
					t.Errorf("not XML: %v\n%s", err, stdout.String())
				}
			}
		})
	}
}

// checkLines fails t when a line of out (split at line feeds and carriage
// returns) starts with what only user data holds: a CI workflow command
// ("::" other than wrapcheck's own annotations, "##[", "##vso["), or the
// INJ that the hostile inputs put after their newlines; or when out holds
// BEL or ESC.
func checkLines(t *testing.T, name string, out []byte) {
	t.Helper()
	if bytes.ContainsAny(out, "\a\x1b") {
		t.Errorf("%s holds BEL or ESC: %q", name, out)
	}
	for _, l := range strings.FieldsFunc(string(out), func(r rune) bool { return r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029' }) {
		tl := strings.TrimSpace(l)
		own := false
		for _, p := range []string{"::error file=", "::warning file=", "::notice file=", "::error title="} {
			own = own || strings.HasPrefix(l, p)
		}
		if strings.HasPrefix(tl, "::") && !own || strings.HasPrefix(tl, "##[") || strings.HasPrefix(tl, "##vso[") || strings.HasPrefix(tl, "INJ") {
			t.Errorf("%s: a line starts with user data: %q", name, l)
		}
	}
}

// hostileText ends a line and tries to start the next with a GitHub
// workflow command in both its forms, and a carriage return another.
const hostileText = "\n##[error]INJ A\n::error::INJ B\rINJ C\u2028INJ D\a"

// jsonString is s as a JSON string literal.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestHostileCommands drives every command that reads user data (replay
// of run files and OTLP recordings, explain, diff, simulate, graph, vet,
// fmt) with names and values that end a line and start the next with a
// workflow command, in file names, run files, recordings, mappings and
// flag values: no line of any output starts with them (checkLines).
func TestHostileCommands(t *testing.T) {
	t.Setenv("GITHUB_ACTIONS", "true")
	dir := t.TempDir()
	t.Chdir(dir)
	write := func(name, text string) string {
		t.Helper()
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Skipf("this file system refuses the name %q: %v", name, err)
		}
		return name
	}
	const src = "spec Hostile\nagent pick(): 0..3\nvar x: 0..3\nvar phase: {a, b} = a\n" +
		"action go when phase == a { x := ask pick()\n  phase := b }\n" +
		"action back when phase == b { phase := a\n  assert x < 2 \"m" + `\n##[error]INJ M` + "\" }\n" +
		"invariant Small: x < 3\n"
	specFile := write("h"+hostileText+".wrap", src)
	plain := write("plain.wrap", src)
	other := write("other"+hostileText+".wrap", strings.Replace(src, "x < 3\n", "x < 2\n", 1))
	unformatted := write("fmt"+hostileText+".wrap", strings.ReplaceAll(src, "\n", "\n\n"))
	h := jsonString
	runs := map[string]string{
		"action":   `{"action": ` + h("go"+hostileText) + `}`,
		"agent":    `{"action": "go", "asked": {` + h("pick"+hostileText) + `: 1}}`,
		"answer":   `{"action": "go", "asked": {"pick": ` + h("1"+hostileText) + `}}`,
		"variable": `{"action": "go", "state": {` + h("x"+hostileText) + `: 1}}`,
		"value":    `{"action": "go", "state": {"phase": ` + h("b"+hostileText) + `}}`,
		"member":   `{` + h("bad"+hostileText) + `: 1}`,
		"syntax":   "{\"action\": \"go\x1b[31m\x07",
		"violates": `{"action": "go", "asked": {"pick": 3}}`,
		"diverges": `{"action": "go", "asked": {"pick": 1}}` + "\n" + `{"action": "go"}`,
		"asserts":  `{"action": "go", "asked": {"pick": 2}}` + "\n" + `{"action": "back"}`,
		"conforms": `{"action": "go", "asked": {"pick": 1}}`,
	}
	span := func(id, name, conv string) string {
		return `{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"` + id + `","parentSpanId":"","name":` + h(name) +
			`,"kind":1,"startTimeUnixNano":"1","endTimeUnixNano":"2","attributes":[{"key":"gen_ai.conversation.id","value":{"stringValue":` + h(conv) + `}},` +
			`{"key":"pick","value":{"stringValue":` + h("1"+hostileText) + `}}]}`
	}
	rec := write("rec"+hostileText+".json", `{"resourceSpans":[{"resource":{},"scopeSpans":[{"spans":[`+
		span("0000000000000001", "go"+hostileText, "conv"+hostileText)+`]}]}]}`+"\n")
	mappings := map[string]string{
		"mapping":        `{"rules": [{"span": "go*", "action": "go"}]}`,
		"mapping-answer": `{"rules": [{"span": "go*", "action": "go", "asked": {"pick": {"from": "pick"}}}]}`,
		"mapping-action": `{"rules": [{"span": "go*", "action": ` + h("go"+hostileText) + `}]}`,
		"mapping-agent":  `{"rules": [{"span": "go*", "action": "go", "asked": {` + h("pick"+hostileText) + `: {"from": "pick"}}}]}`,
		"mapping-member": `{` + h("rules"+hostileText) + `: []}`,
	}
	type cmdCase struct {
		name string
		args []string
	}
	var cases []cmdCase
	for _, k := range []string{"action", "agent", "answer", "variable", "value", "member", "syntax", "violates", "diverges", "asserts", "conforms"} {
		run := write("run-"+k+hostileText+".jsonl", runs[k]+"\n")
		for _, format := range []string{"text", "json", "sarif"} {
			cases = append(cases, cmdCase{"replay/" + k + "/" + format, []string{"replay", "--format", format, specFile, run}})
		}
		cases = append(cases, cmdCase{"explain/" + k, []string{"explain", "--run", run, specFile}})
	}
	for _, k := range []string{"mapping", "mapping-answer", "mapping-action", "mapping-agent", "mapping-member"} {
		mp := write(k+hostileText+".json", mappings[k])
		for _, format := range []string{"text", "json", "sarif"} {
			cases = append(cases, cmdCase{"replay/" + k + "/" + format, []string{"replay", "--format", format, "--mapping", mp, specFile, rec}})
		}
	}
	cases = append(cases,
		cmdCase{"replay/no-mapping", []string{"replay", specFile, rec}},
		cmdCase{"replay/missing", []string{"replay", specFile, "missing" + hostileText + ".jsonl"}},
		cmdCase{"replay/format", []string{"replay", "--format", "x" + hostileText, specFile, rec}},
		cmdCase{"explain/text", []string{"explain", specFile}},
		cmdCase{"explain/json", []string{"explain", "--format", "json", specFile}},
		cmdCase{"explain/mermaid", []string{"explain", "--format", "mermaid", specFile}},
		cmdCase{"explain/only", []string{"explain", "--only", "N" + hostileText, specFile}},
		cmdCase{"diff/text", []string{"diff", specFile, other}},
		cmdCase{"diff/json", []string{"diff", "--format", "json", specFile, other}},
		cmdCase{"diff/markdown", []string{"diff", "--format", "markdown", specFile, other}},
		cmdCase{"diff/map", []string{"diff", "--map", "x" + hostileText + "=y", specFile, other}},
		cmdCase{"diff/git", []string{"diff", "--git", "HEAD" + hostileText, plain}},
		cmdCase{"diff/format", []string{"diff", "--format", "x" + hostileText, specFile, other}},
		cmdCase{"simulate/text", []string{"simulate", "--walks", "50", specFile}},
		cmdCase{"simulate/json", []string{"simulate", "--walks", "50", "--format", "json", specFile}},
		cmdCase{"simulate/shard", []string{"simulate", "--shard", "1" + hostileText, specFile}},
		cmdCase{"graph/dot", []string{"graph", specFile}},
		cmdCase{"graph/json", []string{"graph", "--format", "json", specFile}},
		cmdCase{"graph/format", []string{"graph", "--format", "x" + hostileText, specFile}},
		cmdCase{"vet", []string{"vet", specFile, other}},
		cmdCase{"vet/define", []string{"vet", "-D", "N" + hostileText + "=1", specFile}},
		cmdCase{"fmt", []string{"fmt", unformatted}},
		cmdCase{"fmt/list", []string{"fmt", "-l", unformatted, specFile}},
		cmdCase{"fmt/missing", []string{"fmt", "missing" + hostileText + ".wrap"}},
		cmdCase{"check/define", []string{"check", "-D", "N" + hostileText + "=1", specFile}},
		cmdCase{"check/sweep", []string{"check", "-D", "N" + hostileText + "=1..2", specFile}},
		cmdCase{"check/sweep-value", []string{"check", "-D", "N=1.." + hostileText, specFile}},
		cmdCase{"check/watch", []string{"check", "--watch", "x" + hostileText, specFile}},
		cmdCase{"check/watch-twice", []string{"check", "--watch", "x" + hostileText, "--watch", "x" + hostileText, specFile}},
		cmdCase{"eval/expr", []string{"eval", specFile, "x" + hostileText}},
		cmdCase{"eval/state", []string{"eval", specFile, "1", "--state", `{"x` + hostileText + `": 1}`}},
		cmdCase{"eval/state-file", []string{"eval", specFile, "1", "--state", "missing" + hostileText + ".json"}},
		cmdCase{"guard/violated", []string{"guard", specFile}},
		cmdCase{"guard/listen", []string{"guard", "--listen", "x" + hostileText, plain}},
		cmdCase{"guard/listen-unix", []string{"guard", "--listen", "unix:", plain}},
		cmdCase{"guard/log", []string{"guard", "--log", "x" + hostileText, plain}},
		cmdCase{"guard/mapping", []string{"guard", "--mapping", "missing" + hostileText + ".json", plain}},
		cmdCase{"guard/otlp-endpoint", []string{"guard", "--otlp-endpoint", "x" + hostileText, plain}},
		cmdCase{"guard/define", []string{"guard", "-D", "N" + hostileText + "=1", specFile}},
		cmdCase{"unknown-command", []string{"chek" + hostileText, specFile}},
		cmdCase{"unknown-flag", []string{"check", "--x" + hostileText, specFile}},
		cmdCase{"unknown-shorthand", []string{"check", "-Z" + hostileText, specFile}},
	)
	// Names that start with a workflow command: printed at the start of
	// a line (an error's position, fmt -l, a replay's report), they would
	// be one.
	cmdSpec := write("::error::INJ E.wrap", src)
	cmdOther := write("##[error]INJ F.wrap", strings.Replace(src, "x < 3\n", "x < 2\n", 1))
	cmdRun := write(" ::error::INJ G.jsonl", runs["violates"]+"\n")
	cmdBad := write("##[error]INJ H.wrap", "spec Bad\nvar x: 0..3\naction a { x := true }\n")
	cmdFmt := write("::error::INJ I.wrap", strings.ReplaceAll(src, "\n", "\n\n"))
	cases = append(cases,
		cmdCase{"leading/check", []string{"check", cmdSpec, cmdOther}},
		cmdCase{"leading/check-error", []string{"check", cmdBad}},
		cmdCase{"leading/replay", []string{"replay", cmdSpec, cmdRun}},
		cmdCase{"leading/diverges", []string{"replay", cmdSpec, write("##[error]INJ J.jsonl", runs["diverges"]+"\n")}},
		cmdCase{"leading/explain", []string{"explain", "--run", cmdRun, cmdSpec}},
		cmdCase{"leading/diff", []string{"diff", cmdSpec, cmdOther}},
		cmdCase{"leading/simulate", []string{"simulate", "--walks", "50", cmdSpec}},
		cmdCase{"leading/vet", []string{"vet", cmdSpec, cmdBad}},
		cmdCase{"leading/fmt", []string{"fmt", "-l", cmdFmt, cmdBad}},
		cmdCase{"leading/missing", []string{"fmt", "::error::INJ K.wrap"}},
		cmdCase{"leading/guard", []string{"guard", cmdSpec}},
		cmdCase{"leading/guard-error", []string{"guard", cmdBad}},
	)
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tt.args, &stdout, &stderr)
			if code == exitHolds && strings.HasPrefix(tt.name, "replay/") && !strings.Contains(tt.name, "conforms") {
				t.Errorf("exit 0\nstdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
			}
			checkLines(t, "stdout", stdout.Bytes())
			checkLines(t, "stderr", stderr.Bytes())
			if t.Failed() {
				t.Logf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
			}
		})
	}
}
