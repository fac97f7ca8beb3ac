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
// ids of a few bytes. Through AppendHandleLine with a reused buffer (as
// the servers call it) a step allocates nothing but a quarter of the
// growth of its run's history: the Decision stays on the stack, the
// request's run and id strings are its line's bytes, the answer kept for
// a retried request is in its run's buffer; HandleLine allocates the
// answer it returns besides. It fails when one of them moves to the heap.
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
	out := make([]byte, 0, 1024) // a server's buffer, reused
	cycle := func(handle func(line []byte) []byte) func(steps int) func() {
		return func(steps int) func() {
			return func() {
				for _, l := range reqs[:1+steps] {
					if out := handle(l); !bytes.Contains(out, []byte(`"decision":"allow"`)) {
						t.Fatalf("%s: %s", l, out)
					}
				}
				handle(closeReq)
			}
		}
	}
	for _, c := range []struct {
		name   string
		handle func(line []byte) []byte
		max    float64
	}{
		// the history's array grows once in 4 steps; the answer line
		{"HandleLine", g.HandleLine, 1.25},
		// the history's array alone
		{"AppendHandleLine", func(l []byte) []byte { out = g.AppendHandleLine(out[:0], l); return out }, 0.25},
	} {
		short, long := testing.AllocsPerRun(50, cycle(c.handle)(4)), testing.AllocsPerRun(50, cycle(c.handle)(8))
		per := (long - short) / 4
		t.Logf("%s: a run of 4 steps: %v allocations; of 8: %v; %v a step", c.name, short, long, per)
		if per > c.max {
			t.Errorf("%s: a step allocates %v times, want at most %v", c.name, per, c.max)
		}
	}
}
