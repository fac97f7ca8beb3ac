package replay

import (
	"fmt"
	"slices"

	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// closest keeps, over every successor by the recorded action of every
// state consistent with the run, the one nearest to the recorded line:
// the fewest recorded variables that differ, then the fewest recorded
// answers; the first in successor order among equals.
type closest struct {
	found    bool
	vars     int
	answers  int
	mismatch []string
}

// consider weighs successor t, reached by a branch that got the answers
// asked, against the recorded line w.
func (r *replayer) consider(cl *closest, t machine.State, asked []verdict.Answer, w Line) {
	st := r.unpack(t)
	nv := 0
	for _, wv := range w.vars {
		if !slices.Equal(st[wv.v.Slot:wv.v.Slot+wv.v.Type.Width], wv.val) {
			nv++
		}
	}
	na := 0
	for _, a := range w.asked {
		if !answered(asked, a) {
			na++
		}
	}
	if cl.found && (nv > cl.vars || nv == cl.vars && na >= cl.answers) {
		return
	}
	cl.found, cl.vars, cl.answers = true, nv, na
	cl.mismatch = r.mismatch(t, w.vars)
	for _, a := range w.asked {
		if answered(asked, a) {
			continue
		}
		ag := r.m.Agents[a.Agent]
		var got []string
		for _, g := range asked {
			if g.Agent == a.Agent {
				got = append(got, report.ValueText(ag.Result, g.Value))
			}
		}
		rec := report.ValueText(ag.Result, a.Value)
		if len(got) == 0 {
			cl.mismatch = append(cl.mismatch, fmt.Sprintf("asked %s: recorded %s, the spec does not ask %s on this step", ag.Name, rec, ag.Name))
		} else {
			cl.mismatch = append(cl.mismatch, fmt.Sprintf("asked %s: recorded %s, the nearest step of the spec got %s", ag.Name, rec, joinOr(got)))
		}
	}
}

func answered(asked []verdict.Answer, a verdict.Answer) bool {
	return slices.ContainsFunc(asked, func(g verdict.Answer) bool {
		return g.Agent == a.Agent && slices.Equal(g.Value, a.Value)
	})
}

func joinOr(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += " or "
		}
		out += x
	}
	return out
}
