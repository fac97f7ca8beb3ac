package replay

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
	} {
		_, err := Read(m, "run.jsonl", strings.NewReader(tt.run))
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("Read(%s) = %v, want an error starting %q", tt.run, err, tt.want)
		}
	}
}
