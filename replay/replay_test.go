package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
)

const gate = `spec Gate
type Verdict = {pass, fail}
var draft: 0..2
var released: bool
agent verifier(d: 0..2): Verdict
  assume result == pass implies d != 2
process wrapper {
  action edit when draft < 2 and not released { draft := draft + 1 }
  action review when not released {
    let v = ask verifier(draft)
    if v == pass { released := true }
  }
}
invariant Small: draft <= 2
`

func TestCheck(t *testing.T) {
	m, err := spec.ParseFile("gate.wrap", []byte(gate), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		run  string
		want string // "conforms", or the divergence as line:action:enabled
	}{
		{"conforms", `{"action": "wrapper.edit"}
{"action": "wrapper.review", "asked": {"verifier": "pass"}, "state": {"released": true}}`, "conforms"},
		{"state-open", `{"action": "wrapper.review", "asked": {"verifier": "fail"}}`, "conforms"},
		// The assume rules a pass out for draft 2: no branch matches.
		{"answer", `{"action": "wrapper.edit"}
{"action": "wrapper.edit"}
{"action": "wrapper.review", "asked": {"verifier": "pass"}}`, "3:wrapper.review:true"},
		{"not-enabled", `{"action": "wrapper.review", "asked": {"verifier": "pass"}}
{"action": "wrapper.edit"}`, "2:wrapper.edit:false"},
	}
	prog, err := machine.Compile(m) // one Program for every run: CheckProgram
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines, err := Read(m, "run.jsonl", strings.NewReader(tt.run))
			if err != nil {
				t.Fatal(err)
			}
			res, err := Check(m, lines)
			if err != nil {
				t.Fatal(err)
			}
			shared, err := CheckProgram(context.Background(), prog, lines)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(res, shared); diff != "" {
				t.Errorf("CheckProgram (-Check +CheckProgram):\n%s", diff)
			}
			got := "conforms"
			if d := res.Diverged; d != nil {
				got = strconv.Itoa(d.Line) + ":" + d.Action + ":" + strconv.FormatBool(d.Enabled)
			}
			if res.Violation != nil {
				got = "violation " + res.Violation.Name
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	m, err := spec.ParseFile("gate.wrap", []byte(gate), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ run, want string }{
		{`{"action": "wrapper.nope"}`, "run.jsonl:1: no action wrapper.nope in Gate"},
		{`{"action": "wrapper.edit", "asked": {"judge": "pass"}}`, "run.jsonl:1: asked: no agent judge in Gate"},
		{`{"action": "wrapper.edit", "state": {"draft": 7}}`, "run.jsonl:1: state.draft:"},
		{`not json`, "run.jsonl:1:"},
		{`{"action": "wrapper.edit"} {}`, "run.jsonl:1: expected one JSON object per line, found more after it"},
		{`{"action": "wrapper.edit", "action": "wrapper.review"}`, `run.jsonl:1: duplicate key "action"`},
		{`{"action": "wrapper.edit", "state": {"draft": 1, "draft": 2}}`, `run.jsonl:1: duplicate key "draft"`},
		{`{"action": "wrapper.edit", "state": {"draft": 0.5}}`, "run.jsonl:1: state.draft: expected an integer, found 0.5"},
		{`{"action": "wrapper.edit", "state": {"released": 1}}`, "run.jsonl:1: state.released: expected true or false, found 1"},
		{`{"action": "wrapper.edit", "state": {"draft": ` + strings.Repeat("9", 100000) + `}}`,
			"run.jsonl:1: state.draft: " + strings.Repeat("9", 80) + "... is out of range 0..2"},
		{`{"action": "wrapper.edit", "` + strings.Repeat("k", 100000) + `": 1}`,
			`run.jsonl:1: unknown member "` + strings.Repeat("k", 80) + `..." (a line has action, asked, state and step)`},
		{`{"action": "` + strings.Repeat("k", 100000) + `"}`, "run.jsonl:1: no action " + strings.Repeat("k", 80) + "... in Gate"},
		{"{\"action\": \"wrapper.edit\"}\n\n{\"action\": \"" + strings.Repeat("k", MaxLineBytes) + "\"}\n",
			"run.jsonl:3: line longer than 1048576 bytes"},
	} {
		_, err := Read(m, "run.jsonl", strings.NewReader(tt.run))
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("Read(%.100s) = %.300v, want an error starting %.300q", tt.run, err, tt.want)
		}
		if err != nil && len(err.Error()) > 300 {
			t.Errorf("Read(%.100s): the message has %d bytes", tt.run, len(err.Error()))
		}
	}
}

// endless is a reader of a run that never ends: line after line of one
// step, then more of them.
type endless struct {
	line []byte
	off  int
	read int64
}

func (e *endless) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], e.line[e.off:])
		n += c
		e.off = (e.off + c) % len(e.line)
	}
	e.read += int64(n)
	return n, nil
}

// TestRunStreams checks that Run reads no further than the line where the
// run diverges, in bounded memory, whatever follows.
func TestRunStreams(t *testing.T) {
	m, err := spec.ParseFile("gate.wrap", []byte(gate), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// wrapper.edit is enabled twice, then the third edit diverges.
	r := &endless{line: []byte(`{"action": "wrapper.edit"}` + "\n")}
	res, err := Run(m, "run.jsonl", r)
	if err != nil {
		t.Fatal(err)
	}
	if res.Diverged == nil || res.Diverged.Line != 3 {
		t.Fatalf("got %+v, want a divergence at line 3", res)
	}
	if r.read > 1<<20 {
		t.Errorf("read %d bytes for 3 lines", r.read)
	}
}

// FuzzReplay feeds arbitrary run files to Run and to Read+Check: neither
// may panic, and when Read accepts the run both give the same outcome.
func FuzzReplay(f *testing.F) {
	m, err := spec.ParseFile("gate.wrap", []byte(gate), spec.Options{})
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		`{"action": "wrapper.edit"}`,
		"{\"action\": null, \"state\": {\"draft\": 0}}\n{\"action\": \"wrapper.review\", \"asked\": {\"verifier\": \"pass\"}}\r\n",
		`{"action": "wrapper.edit", "state": {"draft": 1, "released": false}, "step": 1}`,
		`{"action": "wrapper.edit", "action": "wrapper.edit"}`,
		`{"action": "wrapper.edit", "state": {"draft": 1e3}}`,
		"\n\n{}\n",
		`{"action": "wrapper.edit", "state": {"draft": 1, "dr\u0061ft": 1}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, line := range bytes.Split(data, []byte("\n")) {
			if json.Valid(line) && (checkDuplicateKeys(line) != nil) != duplicateKeysByTokens(line) {
				t.Fatalf("%q: the byte scanner and the tokens disagree on duplicate keys", line)
			}
		}
		got, runErr := Run(m, "run.jsonl", bytes.NewReader(data))
		lines, readErr := Read(m, "run.jsonl", bytes.NewReader(data))
		if readErr != nil {
			if runErr == nil && got.Diverged == nil && got.Violation == nil {
				t.Fatalf("Read fails (%v), Run accepts the whole run", readErr)
			}
			return
		}
		want, err := Check(m, lines)
		if err != nil {
			t.Fatal(err)
		}
		if runErr != nil {
			t.Fatalf("Read+Check accept the run, Run fails: %v", runErr)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Read+Check vs Run (-want +got):\n%s", diff)
		}
	})
}

// duplicateKeysByTokens is checkDuplicateKeys written with the JSON
// decoder's tokens: the reference for TestDuplicateKeys.
func duplicateKeysByTokens(text []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(text))
	type frame struct {
		keys   map[string]bool
		expect bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if n := len(stack); n > 0 && stack[n-1].keys != nil {
			top := stack[n-1]
			if k, ok := tok.(string); ok && top.expect {
				if top.keys[k] {
					return true
				}
				top.keys[k], top.expect = true, false
				continue
			}
			top.expect = true
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{keys: map[string]bool{}, expect: true})
		case json.Delim('['):
			stack = append(stack, &frame{})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return false
			}
		}
	}
}

// TestDuplicateKeys compares the byte scanner with the token-based
// reference on hand-made and fuzzed-looking lines.
func TestDuplicateKeys(t *testing.T) {
	for _, text := range []string{
		`{"a": 1, "a": 2}`, `{"a": 1, "b": {"a": 2}}`, `{"a": {"b": 1, "b": 2}}`,
		`{"a": [{"x": 1}, {"x": 2}]}`, `{"a": "\"a\"", "b": 1}`, `{"a\u0062": 1, "ab": 2}`,
		`{"a": ["a", "a"]}`, `{"k": "v", "v": "k"}`, `{"a": {}, "a": []}`, `[{"a": 1, "a": 1}]`,
		`{"s": "x\\", "s": 1}`, `{}`, `{"a":1,"b":2,"c":{"d":[1,2,{"a":3}]},"a":0}`,
	} {
		got := checkDuplicateKeys([]byte(text)) != nil
		if want := duplicateKeysByTokens([]byte(text)); got != want {
			t.Errorf("%s: duplicate = %v, want %v", text, got, want)
		}
	}
}
