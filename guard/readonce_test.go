package guard_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/wrapcheck/wrapcheck/guard"
	"github.com/wrapcheck/wrapcheck/internal/jsonscan/jsonmut"
	"github.com/wrapcheck/wrapcheck/replay"
)

// TestEventReadOnceAgrees holds the decision of a request whose event is
// read with its envelope (HandleLine: one pass over the line) to the
// decision of the same request given as a Request (Handle: the event
// decoded on its own, as before), byte for byte: runs of walks of every
// example, opened with their initial state and stepped, some events
// mutated (a name, a value, a member, white space), so that the reading
// of the events, the fallback when the one pass declines one, the blocks
// and the allowed steps all agree; the two guards' runs stay in step.
func TestEventReadOnceAgrees(t *testing.T) {
	rnd := rand.New(rand.NewPCG(21, 34))
	var allowed, blocked, mutated int
	paths := exampleSpecs(t)
	for _, path := range paths {
		prog, err := exampleProgram(t, path)
		if err != nil {
			continue // an example of a spec error
		}
		a, err := guard.New(prog, guard.Options{})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := guard.New(prog, guard.Options{})
		w := &walker{prog: prog, mach: prog.NewMachine(), rnd: rnd}
		w.mach.RecordAnswers(true)
		for i := range 6 {
			lines, _ := w.walk(12, false)
			run := fmt.Sprintf("run%d", i)
			for k, event := range lines {
				op := ""
				if k == 0 {
					op = `"op": "open", `
				}
				if k > 0 && rnd.IntN(3) == 0 {
					event = jsonmut.Mutate(event, rnd)
					// encoding/json would reject the request itself, or
					// call a duplicate key the request's
					if !json.Valid(event) || replay.CheckDuplicateKeys(event) != nil {
						continue
					}
					mutated++
				}
				line := []byte(`{` + op + `"run": "` + run + `", "id": "` + fmt.Sprint(k) + `", "event": ` + string(event) + `}`)
				req := guard.Request{Run: run, ID: fmt.Sprint(k), Event: event}
				if k == 0 {
					req.Op = "open"
				}
				got, want := a.HandleLine(line), b.Handle(req)
				if !bytes.Equal(got, want) {
					t.Fatalf("%s: %s:\nread once: %s\nHandle:    %s", path, line, got, want)
				}
				if bytes.Contains(got, []byte(`"decision":"allow"`)) {
					allowed++
				} else {
					blocked++
				}
			}
		}
	}
	t.Logf("%d examples: %d allowed, %d blocked (%d events mutated)", len(paths), allowed, blocked, mutated)
	if allowed == 0 || blocked == 0 {
		t.Fatal("no allowed or no blocked decision")
	}
}
