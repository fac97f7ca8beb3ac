package guard_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/wrapcheck/wrapcheck/guard"
)

// TestDecisionAllocs counts the allocations of an allowed step of a run
// of examples/pipeline decided in process, past the run's first steps
// (whose buffers grow once): the difference of a run of 8 steps and one
// of 4, each opened and closed, over the 4 steps between, with request
// ids of a few bytes. A step allocates its answer line (kept for a
// retried request) and the request's run and id strings, no more: the
// Decision and the line's buffer stay on the stack. It fails when one of
// them moves to the heap.
func TestDecisionAllocs(t *testing.T) {
	prog := compile(t, "../examples/pipeline/pipeline.wrap")
	g, err := guard.New(prog, guard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := &walker{prog: prog, mach: prog.NewMachine(), rnd: rand.New(rand.NewPCG(3, 4))}
	w.mach.RecordAnswers(true)
	var lines [][]byte
	for len(lines) < 10 { // a walk of 8 steps or more after the open
		lines, _ = w.walk(40, false)
	}
	reqs := make([][]byte, len(lines))
	for k, l := range lines {
		req := guard.Request{Run: "run-42", ID: fmt.Sprintf("request-%d", k), Event: l}
		if k == 0 {
			req.Op = "open"
		}
		reqs[k], _ = json.Marshal(req)
	}
	closeReq := []byte(`{"op": "close", "run": "run-42", "id": "closing"}`)
	cycle := func(steps int) func() {
		return func() {
			for _, l := range reqs[:1+steps] {
				if out := g.HandleLine(l); !bytes.Contains(out, []byte(`"decision":"allow"`)) {
					t.Fatalf("%s: %s", l, out)
				}
			}
			g.HandleLine(closeReq)
		}
	}
	short, long := testing.AllocsPerRun(50, cycle(4)), testing.AllocsPerRun(50, cycle(8))
	per := (long - short) / 4
	t.Logf("a run of 4 steps: %v allocations; of 8: %v; %v a step", short, long, per)
	if per > 3.5 { // its line, the run's id, the request's id; the history's array grows once in 4 steps
		t.Errorf("a step allocates %v times, want at most 3.5", per)
	}
}
