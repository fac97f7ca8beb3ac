package explain_test

import (
	"fmt"
	"strings"

	"github.com/wrapcheck/wrapcheck/explain"
	"github.com/wrapcheck/wrapcheck/replay"
	"github.com/wrapcheck/wrapcheck/spec"
)

func ExampleSafety() {
	m, _ := spec.ParseFile("gate.wrap", []byte(`spec Gate
var approved: bool
var edits: 0..3
var released: bool
action approve when not approved { approved := true }
action edit when edits < 3 { edits := edits + 1 }
action release when approved and not released { released := true }
invariant NoEditAfterApproval: released implies edits == 0
`), spec.Options{})
	// A recorded run that reaches the violation the long way.
	run := `{"action": "edit"}
{"action": "approve"}
{"action": "edit"}
{"action": "release"}
`
	lines, _ := replay.Read(m, "run.jsonl", strings.NewReader(run))
	res, _ := replay.Check(m, lines)
	e, err := explain.Safety(m, res.Violation)
	if err != nil {
		panic(err)
	}
	for i, st := range e.Steps[1:] {
		fmt.Printf("%d %s essential=%v %s\n", i+1, m.Actions[res.Violation.Trace[i+1].Action].Name, st.Essential, st.Because)
	}
	// Output:
	// 1 edit essential=false writes edits, read by NoEditAfterApproval
	// 2 approve essential=true writes approved, read by step 4 (release)
	// 3 edit essential=false writes edits, read by NoEditAfterApproval
	// 4 release essential=true writes released, read by NoEditAfterApproval
}
