package guard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/wrapcheck/wrapcheck/guard"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/replay"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/simulate"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// walker makes random runs of a spec, as run-file lines: walks of the
// machine, some of them mutated (an event with another action, or
// without its state), so that they diverge as well as conform.
type walker struct {
	prog *machine.Program
	mach *machine.Machine
	rnd  *rand.Rand
}

type succ struct {
	action int
	state  machine.State
	asked  []verdict.Answer
}

// walk returns the lines of one run and, per line, the state the walk
// was in after it (nil for a mutated line).
func (w *walker) walk(depth int, mutate bool) (lines [][]byte, states []machine.State) {
	m := w.prog.Model
	var inits []machine.State
	if err := w.mach.Init(func(_ int, t machine.State) { inits = append(inits, slices.Clone(t)) }); err != nil || len(inits) == 0 {
		return nil, nil
	}
	cur := inits[w.rnd.IntN(len(inits))]
	steps := []verdict.Step{{Action: -1, State: w.unpack(cur)}}
	states = append(states, cur)
	mutated := map[int]int{} // step -> mutation
	for len(steps) <= depth {
		var next []succ
		failed := w.mach.Successors(cur, func(a, _ int, t machine.State) {
			next = append(next, succ{a, slices.Clone(t), machine.CloneAnswers(w.mach.Asked())})
		}) != nil
		if failed || len(next) == 0 {
			if failed && len(next) > 0 {
				// an action fails here: propose the one that does
				steps = append(steps, verdict.Step{Action: next[0].action, State: nil})
				states = append(states, nil)
			}
			break
		}
		s := next[w.rnd.IntN(len(next))]
		st := verdict.Step{Action: s.action, State: w.unpack(s.state), Asked: s.asked}
		if mutate && w.rnd.IntN(8) == 0 {
			k := w.rnd.IntN(3)
			mutated[len(steps)] = k
			if k != 1 {
				st.Action = w.rnd.IntN(len(m.Actions))
			}
		}
		steps = append(steps, st)
		states = append(states, s.state)
		cur = s.state
	}
	var b bytes.Buffer
	if err := report.TraceJSON(&b, m, withStates(steps)); err != nil {
		panic(err)
	}
	var raws []map[string]json.RawMessage
	if err := json.Unmarshal(b.Bytes(), &raws); err != nil {
		panic(err)
	}
	for i, r := range raws {
		delete(r, "step")
		delete(r, "monitors")
		if steps[i].State == nil || mutated[i] >= 1 {
			delete(r, "state")
		}
		if _, ok := mutated[i]; ok || steps[i].State == nil {
			states[i] = nil
		}
		line, _ := json.Marshal(r)
		lines = append(lines, line)
	}
	return lines, states
}

// withStates gives a step without a state (a failing action) its
// predecessor's, for the rendering.
func withStates(steps []verdict.Step) []verdict.Step {
	out := slices.Clone(steps)
	for i := range out {
		if out[i].State == nil {
			out[i].State = out[i-1].State
		}
	}
	return out
}

func (w *walker) unpack(s machine.State) []int64 {
	out := make([]int64, w.prog.Slots())
	w.prog.Unpack(out, s)
	return out
}

// outcome is where a run stops and why: the first line blocked (0: none)
// and "diverges" or "violated".
type outcome struct {
	Line int
	Kind string
}

func replayOutcome(t *testing.T, prog *machine.Program, lines [][]byte) outcome {
	t.Helper()
	ls, err := replay.Read(prog.Model, "walk", bytes.NewReader(bytes.Join(lines, []byte("\n"))))
	if err != nil {
		t.Fatalf("replay.Read: %v\n%s", err, bytes.Join(lines, []byte("\n")))
	}
	res, err := replay.CheckProgram(context.Background(), prog, ls)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case res.Diverged != nil:
		return outcome{res.Diverged.Line, "diverges"}
	case res.Violation != nil:
		return outcome{max(res.Line, 1), "violated"}
	}
	return outcome{}
}

// guardOutcome feeds the lines to g as the run id and returns where it
// first blocks; allowed is called with the index of each allowed line.
func guardOutcome(t *testing.T, g *guard.Guard, id string, lines [][]byte, allowed func(i int)) outcome {
	t.Helper()
	defer g.Decide(guard.Request{Op: "close", Run: id})
	ended := false
	for i, l := range lines {
		if ended {
			// the run ended: no action could follow, which replay
			// reports as a divergence at this line
			return outcome{i + 1, "diverges"}
		}
		req := guard.Request{Run: id, Event: l}
		if i == 0 {
			req.Op = "open"
		}
		d := g.Decide(req)
		if !d.IsAllowed() {
			if d.Kind != "diverges" && d.Kind != "violated" {
				t.Fatalf("line %d: %s: %s\n%s", i+1, d.Kind, d.Reason, l)
			}
			return outcome{i + 1, d.Kind}
		}
		allowed(i)
		ended = d.Ended != ""
	}
	return outcome{}
}

// walkCount is the number of walks per example: a few hundred, or
// WRAPCHECK_GUARD_WALKS (100000 for the figure) .
func walkCount(t *testing.T) int {
	if s := os.Getenv("WRAPCHECK_GUARD_WALKS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if testing.Short() {
		return 20
	}
	return 150
}

func exampleSpecs(t *testing.T) []string {
	files, err := filepath.Glob("../examples/*/*.wrap")
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestAgreesWithReplay checks, on every example, that the guard blocks a
// run at the line where replay finds it diverging or violated, for the
// same reason, and allows every line of a run replay finds conforming:
// on random walks of the machine (some mutated), and on the shortest
// violations simulate finds. It also checks that no state an allowed
// step reaches violates an invariant (the property the guard promises).
func TestAgreesWithReplay(t *testing.T) {
	n := walkCount(t)
	for _, path := range exampleSpecs(t) {
		t.Run(filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path), func(t *testing.T) {
			prog, err := exampleProgram(t, path)
			if err != nil {
				t.Skipf("not a valid spec: %v", err)
			}
			m := prog.Model
			g, err := guard.New(prog, guard.Options{MaxStates: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			mach := prog.NewMachine()
			mach.RecordAnswers(true)
			var invs []*machine.Pred
			for _, in := range m.Invariants {
				pr, err := prog.CompileExpr(in.Expr)
				if err != nil {
					t.Fatal(err)
				}
				invs = append(invs, pr)
			}
			w := &walker{prog: prog, mach: mach, rnd: rand.New(rand.NewPCG(uint64(len(path)), 38))}
			check := func(id string, lines [][]byte, states []machine.State) {
				want := replayOutcome(t, prog, lines)
				got := guardOutcome(t, g, id, lines, func(i int) {
					if states == nil || states[i] == nil {
						return
					}
					for k, pr := range invs {
						if v, err := mach.Eval(pr, states[i]); err != nil || v == 0 {
							t.Errorf("%s: line %d allowed, but invariant %s is violated after it (%v)", id, i+1, m.Invariants[k].Name, err)
						}
					}
				})
				if got != want {
					t.Errorf("%s: guard %+v, replay %+v, on\n%s", id, got, want, bytes.Join(lines, []byte("\n")))
				}
			}
			for i := range n {
				lines, states := w.walk(40, i%2 == 1)
				if lines == nil {
					t.Skip("no initial state")
				}
				check(fmt.Sprintf("walk%d", i), lines, states)
			}
			// simulate's shortest violation, a run of the machine that the
			// guard must block at its last step
			res, err := simulate.Run(context.Background(), m, simulate.Options{Walks: 200, Depth: 40, Workers: 1, Program: prog})
			if err != nil {
				t.Fatal(err)
			}
			if v := res.Violation; v != nil && v.Kind != verdict.Deadlock {
				var b bytes.Buffer
				if err := report.TraceJSON(&b, m, v.Trace); err != nil {
					t.Fatal(err)
				}
				var raws []json.RawMessage
				if err := json.Unmarshal(b.Bytes(), &raws); err != nil {
					t.Fatal(err)
				}
				lines := make([][]byte, len(raws))
				for i, r := range raws {
					lines[i] = r
				}
				check("simulate", lines, nil)
				if got := guardOutcome(t, g, "simulate2", lines, func(int) {}); got.Line != len(lines) || got.Kind != "violated" {
					t.Errorf("simulate's violation %s: guard %+v, want violated at line %d", v.Name, got, len(lines))
				}
			}
			if g.Runs() != 0 {
				t.Errorf("%d runs left open", g.Runs())
			}
		})
	}
}

// TestAgreesOnRecordedRuns checks the guard against replay on every run
// file the replay command's tests record (cmd/wrapcheck's scripts): the
// guard blocks at the line where replay finds the run diverging or
// violated, for the same reason, blocks as invalid the line of a run file
// replay rejects, and allows every line of a conforming run.
func TestAgreesOnRecordedRuns(t *testing.T) {
	scripts, err := filepath.Glob("../cmd/wrapcheck/testdata/script/replay_*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	cmdRE := regexp.MustCompile(`exec wrapcheck replay (?:--format \w+ )*(\S+\.wrap) (\S+\.jsonl)$`)
	n := 0
	for _, script := range scripts {
		ar, err := txtar.ParseFile(script)
		if err != nil {
			t.Fatal(err)
		}
		files := map[string][]byte{}
		for _, f := range ar.Files {
			files[f.Name] = f.Data
		}
		for _, line := range strings.Split(string(ar.Comment), "\n") {
			m := cmdRE.FindStringSubmatch(strings.TrimSpace(line))
			if m == nil || files[m[1]] == nil || files[m[2]] == nil {
				continue
			}
			name := filepath.Base(script) + ":" + m[1] + ":" + m[2]
			t.Run(name, func(t *testing.T) {
				n++
				model, err := spec.ParseFile(m[1], files[m[1]], spec.Options{})
				if err != nil {
					t.Fatal(err)
				}
				prog, err := machine.Compile(model)
				if err != nil {
					t.Fatal(err)
				}
				want := outcome{}
				ls, err := replay.Read(model, "run", bytes.NewReader(files[m[2]]))
				if err != nil {
					l, _, _ := strings.Cut(strings.TrimPrefix(err.Error(), "run:"), ":")
					want.Line, _ = strconv.Atoi(l)
					want.Kind = "invalid"
				} else {
					res, err := replay.CheckProgram(context.Background(), prog, ls)
					if err != nil {
						t.Fatal(err)
					}
					switch {
					case res.Diverged != nil:
						want = outcome{res.Diverged.Line, "diverges"}
					case res.Violation != nil:
						want = outcome{res.Line, "violated"}
					}
				}
				g, err := guard.New(prog, guard.Options{})
				if err != nil {
					t.Fatal(err)
				}
				got := outcome{}
				opened, ended := false, false
				for i, l := range strings.Split(strings.TrimRight(string(files[m[2]]), "\n"), "\n") {
					l = strings.TrimSpace(l)
					if l == "" {
						continue
					}
					if ended { // no action could follow: replay's divergence
						got = outcome{i + 1, "diverges"}
						break
					}
					req := guard.Request{Run: "r", Event: json.RawMessage(l)}
					if !opened {
						opened = true
						if !strings.Contains(l, `"action"`) || strings.Contains(l, `"action": null`) || strings.Contains(l, `"action":null`) {
							req.Op = "open"
						} else if d := g.Decide(guard.Request{Op: "open", Run: "r"}); !d.IsAllowed() {
							got = outcome{0, d.Kind}
							break
						}
					}
					d := g.Decide(req)
					if !d.IsAllowed() {
						got = outcome{i + 1, d.Kind}
						if d.Kind == "violated" && req.Op == "open" {
							got.Line = 0
						}
						break
					}
					ended = d.Ended != ""
				}
				if !opened { // an empty run: the initial states alone
					if d := g.Decide(guard.Request{Op: "open", Run: "r"}); !d.IsAllowed() {
						got = outcome{0, d.Kind}
					}
				}
				if got != want {
					t.Errorf("guard %+v, replay %+v", got, want)
				}
			})
		}
	}
	if n < 10 {
		t.Errorf("%d recorded runs found, want the replay scripts' runs", n)
	}
}
