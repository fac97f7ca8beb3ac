package machine

import (
	"math"
	"strconv"
	"strings"

	"github.com/wrapcheck/wrapcheck/spec"
)

// block emits stmts followed by the code k, in the current function:
// straight-line code up to the first branching statement, whose
// continuation (the statements after it, then k) is a function of its own.
// A failure ends the function (the branch): "return".
func (g *gen) block(stmts []*spec.Stmt, cx frameCtx, k string) {
	for i, s := range stmts {
		switch s.Op {
		case spec.SIf, spec.SMatch, spec.SChoose, spec.SAsk:
			rest := k
			if i+1 < len(stmts) {
				tail := stmts[i+1:]
				rest = g.fn("(m *Machine)", func() { g.block(tail, cx, k) }) + "(m)"
			}
			g.branching(s, cx, rest)
			return
		}
		g.stmt(s, cx)
	}
	g.emit("%s", k)
}

// raiseIfErr ends the branch when a failure is pending.
func (g *gen) raiseIfErr() {
	g.emit("if m.err != nil {\nm.raise()\nreturn\n}")
}

func (g *gen) stmt(s *spec.Stmt, cx frameCtx) {
	c := g.c
	switch s.Op {
	case spec.SAssign:
		if t := s.Target; t.Op == spec.OpLocal && c.isBigSlot(cx.frame+t.Slot) {
			g.unsupported()
			return
		}
		g.store(s.Target, s.Value, cx, s.Pos)
	case spec.SLet:
		if c.isBigSlot(cx.frame + s.Slot) {
			g.unsupported()
			return
		}
		g.store(nil, s.Value, cx, s.Pos, cx.frame+s.Slot)
	case spec.SSkip:
	case spec.SAssert:
		v := g.scalar(s.Cond, cx)
		msg := s.Msg
		if msg == "" {
			msg = "assertion failed"
		}
		st := g.site(site{kind: Assertion, pos: s.Pos, msg: msg})
		g.emit("if m.err == nil && %s == 0 {\nm.fail(%s, 0)\n}", v, st)
		g.raiseIfErr()
	default:
		g.unsupported()
	}
}

// store emits an assignment of v to target (nil: the let slot letOff).
func (g *gen) store(target, v *spec.Expr, cx frameCtx, pos spec.Position, letOff ...int) {
	c := g.c
	if target != nil && c.frameFits(target, pos) != nil {
		g.unsupported()
		return
	}
	st := g.site(site{kind: RuntimeError, pos: pos, assign: true})
	if !isScalar(v.Type) {
		if target == nil {
			g.unsupported() // a compound let
			return
		}
		w := width(v.Type)
		src := g.ref(v, cx)
		dst := g.ref(target, cx)
		g.raiseIfErr()
		g.emit("if %s != %s {", src, dst)
		g.emit("for i := 0; i < %d; i++ {\nif !m.set(%s+i, mem[%s+i], %s) {\nreturn\n}\n}", w, dst, src, st)
		g.emit("}")
		return
	}
	static, off := true, ""
	var r string
	if target == nil {
		off = strconv.Itoa(letOff[0])
	} else if o, ok := staticOff(target, cx); ok {
		off = strconv.Itoa(o)
	} else {
		static = false
	}
	if static {
		o, _ := strconv.Atoi(off)
		if v.Op == spec.OpConst && !c.wide(v, cx) && g.p.inDomain(o, v.Val) {
			g.emit("m.trail = append(m.trail, undo{%d, mem[%d]})\nmem[%d] = %d", o, o, o, v.Val)
			return
		}
		x := g.scalar(v, cx)
		g.raiseIfErr()
		g.setStatic(o, x, st)
		return
	}
	x := g.scalar(v, cx)
	r = g.ref(target, cx)
	g.raiseIfErr()
	if offs, ok := refOffsets(target, cx); ok {
		// set's range test inline, over the bounds fusedStore uses: none
		// when v's bounds lie in the domain of every slot the target may
		// be, else their common domain.
		if lo, hi, ok := c.putBounds(v, cx, offs); ok {
			if lo != math.MinInt64 || hi != math.MaxInt64 {
				g.emit("if %s < %d || %s > %d {\nm.failAssign(%s, %s, %s)\nreturn\n}", x, lo, x, hi, st, r, x)
			}
			g.emit("m.trail = append(m.trail, undo{int32(%s), mem[%s]})\nmem[%s] = %s", r, r, r, x)
			return
		}
		if mask, ok := g.p.setMask(offs); ok {
			g.emit("if uint64(%s)&^%#x != 0 {\nm.failAssign(%s, %s, %s)\nreturn\n}", x, mask, st, r, x)
			g.emit("m.trail = append(m.trail, undo{int32(%s), mem[%s]})\nmem[%s] = %s", r, r, r, x)
			return
		}
	}
	g.emit("if !m.set(%s, %s, %s) {\nreturn\n}", r, x, st)
}

// setMask returns the mask of set's test when every offset in offs is a
// state slot of a set type with that same mask.
func (p *Program) setMask(offs []int) (uint64, bool) {
	var mask uint64
	for i, off := range offs {
		if off >= p.n || !p.dom[off].set || i > 0 && p.dom[off].mask != mask {
			return 0, false
		}
		mask = p.dom[off].mask
	}
	return mask, len(offs) > 0
}

// maxRefOffsets bounds the offsets refOffsets lists.
const maxRefOffsets = 4096

// refOffsets returns every mem offset the location e may be at once
// ref's index tests have passed (a static location: its offset), or
// false when e has another form or more than maxRefOffsets of them.
func refOffsets(e *spec.Expr, cx frameCtx) ([]int, bool) {
	if off, ok := staticOff(e, cx); ok {
		return []int{off}, true
	}
	switch e.Op {
	case spec.OpField:
		base, ok := refOffsets(e.Args[0], cx)
		if !ok {
			return nil, false
		}
		for i := range base {
			base[i] += int(e.Val)
		}
		return base, true
	case spec.OpIndex:
		at := e.Args[0].Type
		if at == nil || at.Index == nil || at.Elem == nil {
			return nil, false
		}
		base, ok := refOffsets(e.Args[0], cx)
		size, ew := at.Index.Size(), width(at.Elem)
		if !ok || size <= 0 || int64(len(base))*size > maxRefOffsets {
			return nil, false
		}
		var offs []int
		for _, b := range base {
			for i := int64(0); i < size; i++ {
				offs = append(offs, b+int(i)*ew)
			}
		}
		return offs, true
	}
	return nil, false
}

// setStatic emits m.set(off, x, st) for a static offset, the range test
// inlined.
func (g *gen) setStatic(off int, x, st string) {
	if off < g.p.n {
		d := g.p.dom[off]
		if d.set {
			g.emit("if uint64(%s)&^%#x != 0 {\nm.failAssign(%s, %d, %s)\nreturn\n}", x, d.mask, st, off, x)
		} else {
			g.emit("if %s < %d || %s > %d {\nm.failAssign(%s, %d, %s)\nreturn\n}", x, d.lo, x, d.hi, st, off, x)
		}
	}
	g.emit("m.trail = append(m.trail, undo{%d, mem[%d]})\nmem[%d] = %s", off, off, off, x)
}

func (g *gen) branching(s *spec.Stmt, cx frameCtx, k string) {
	switch s.Op {
	case spec.SIf:
		v := g.scalar(s.Cond, cx)
		g.raiseIfErr()
		g.emit("if %s != 0 {", v)
		g.block(s.Body, cx, k)
		g.emit("} else {")
		g.block(s.Else, cx, k)
		g.emit("}")
	case spec.SMatch:
		v := g.scalar(s.Value, cx)
		g.raiseIfErr()
		seen := map[int64]bool{}
		g.emit("switch %s {", v)
		for _, cs := range s.Cases {
			var vals []string
			for _, x := range cs.Values {
				if !seen[x] {
					seen[x] = true
					vals = append(vals, strconv.FormatInt(x, 10))
				}
			}
			if len(vals) == 0 {
				continue
			}
			g.emit("case %s:", strings.Join(vals, ", "))
			g.block(cs.Body, cx, k)
		}
		g.emit("default:")
		if s.HasElse {
			g.block(s.Else, cx, k)
		} else {
			g.emit("%s", k)
		}
		g.emit("}")
	case spec.SChoose:
		g.choose(s, cx, k)
	case spec.SAsk:
		g.ask(s, cx, k)
	}
}

func (g *gen) choose(s *spec.Stmt, cx frameCtx, k string) {
	off := cx.frame + s.Slot
	lo, hi := int64(0), int64(1)
	if s.Dom != nil {
		leaves, ok := spec.DomainLeaves(s.Dom)
		if !ok || len(leaves) != 1 {
			g.unsupported()
			return
		}
		lo, hi = leaves[0][0], leaves[0][1]
	}
	body := g.fn("(m *Machine)", func() { g.block(s.Body, cx, k) })
	v := g.id("v")
	g.emit("for %s := int64(%d); %s <= %d; %s++ {", v, lo, v, hi, v)
	g.emit("if m.tick() {\nm.raise()\nm.resume()\nreturn\n}")
	g.emit("mark := len(m.trail)")
	g.setStatic(off, v, "nil") // a frame slot: no range test
	if s.Cond != nil {
		x := g.scalar(s.Cond, cx)
		g.emit("if m.err != nil {\nm.raise()\nm.undo(mark)\nm.resume()\ncontinue\n}")
		g.emit("if %s == 0 {\nm.undo(mark)\ncontinue\n}", x)
	}
	g.emit("%s(m)\nm.undo(mark)\nm.resume()", body)
	g.emit("}")
}

func (g *gen) ask(s *spec.Stmt, cx frameCtx, k string) {
	p, c := g.p, g.c
	if s.Agent < 0 || s.Agent >= len(p.Model.Agents) {
		g.unsupported()
		return
	}
	ag := p.Model.Agents[s.Agent]
	base := p.agentOff[s.Agent]
	type param struct {
		name string
		dst  int
		w    int
	}
	params := make([]param, len(s.Args))
	for i, a := range s.Args {
		w := width(a.Type)
		pa := param{name: g.id("p"), w: w, dst: -1}
		if i < len(ag.ParamSlots) {
			pa.dst = base + ag.ParamSlots[i]
		}
		if isScalar(a.Type) {
			x := g.scalar(a, cx)
			g.emit("%s := [1]int64{%s}", pa.name, x)
		} else {
			r := g.ref(a, cx)
			g.emit("var %s [%d]int64\ncopy(%s[:], mem[%s:%s+%d])", pa.name, w, pa.name, r, r, w)
		}
		g.emit("_ = %s", pa.name)
		params[i] = pa
	}
	g.raiseIfErr()
	doms := scalarDomains(ag.Result, nil)
	w := len(doms)
	res := base + ag.ResultSlot
	ans := g.id("ans")
	var init []string
	for _, d := range doms {
		init = append(init, strconv.FormatInt(d[0], 10))
	}
	g.emit("%s := [%d]int64{%s}", ans, w, strings.Join(init, ", "))
	if s.Target != nil && c.frameFits(s.Target, s.Pos) != nil {
		g.unsupported()
		return
	}
	st := g.site(site{kind: RuntimeError, pos: s.Pos, assign: true})
	body := k
	g.emit("for {")
	g.emit("if m.tick() {\nm.raise()\nm.resume()\nreturn\n}")
	g.emit("ok := true")
	if ag.Assume != nil {
		fixed := c.askBounds(s, ag, cx, base, res)
		acx := frameCtx{state: 0, frame: base}
		var x string
		c.analyseNested(acx, fixed, ag.Assume, func() {
			if len(c.bigSlot) > 0 {
				g.unsupported()
			}
			for _, pa := range params {
				if pa.dst >= 0 {
					g.emit("copy(mem[%d:%d], %s[:])", pa.dst, pa.dst+pa.w, pa.name)
				}
			}
			g.emit("copy(mem[%d:%d], %s[:])", res, res+w, ans)
			x = g.scalar(ag.Assume, acx)
		})
		g.emit("ok = %s != 0", x)
		g.emit("if m.err != nil {\nm.raise()\nm.resume()\nok = false\n}")
	}
	g.emit("if ok {")
	g.emit("mark := len(m.trail)")
	var t string
	if s.Target != nil {
		t = g.ref(s.Target, cx)
	} else {
		t = strconv.Itoa(cx.frame + s.Slot)
	}
	g.emit("done := true")
	g.emit("if m.err != nil {\nm.raise()\ndone = false\n}")
	if o, err := strconv.Atoi(t); err == nil && w == 1 {
		// One scalar at a static offset: the range test inlined (an
		// answer outside a state slot's domain is still an error).
		g.emit("if done {")
		if o < p.n {
			d := p.dom[o]
			if d.set {
				g.emit("if uint64(%s[0])&^%#x != 0 {\nm.failAssign(%s, %d, %s[0])\ndone = false\n}", ans, d.mask, st, o, ans)
			} else {
				g.emit("if %s[0] < %d || %s[0] > %d {\nm.failAssign(%s, %d, %s[0])\ndone = false\n}", ans, d.lo, ans, d.hi, st, o, ans)
			}
		}
		g.emit("if done {\nm.trail = append(m.trail, undo{%d, mem[%d]})\nmem[%d] = %s[0]\n}", o, o, o, ans)
		g.emit("}")
	} else {
		g.emit("for i := 0; i < %d && done; i++ {\nif !m.set(%s+i, %s[i], %s) {\ndone = false\nbreak\n}\n}", w, t, ans, st)
	}
	g.emit("if done {")
	g.emit("if m.record {")
	g.emit("n := m.pushAnswer(%d, %s[:])", s.Agent, ans)
	g.emit("%s", body)
	g.emit("m.popAnswer(n)")
	g.emit("} else {")
	g.emit("%s", body)
	g.emit("}")
	g.emit("}")
	g.emit("m.undo(mark)\nm.resume()")
	g.emit("}")
	// the next answer, the last scalar fastest
	g.emit("i := %d", w-1)
	g.emit("for ; i >= 0; i-- {")
	var his []string
	for _, d := range doms {
		his = append(his, strconv.FormatInt(d[1], 10))
	}
	los := init
	g.emit("if %s[i] < [%d]int64{%s}[i] {\n%s[i]++\nbreak\n}", ans, w, strings.Join(his, ", "), ans)
	g.emit("%s[i] = [%d]int64{%s}[i]", ans, w, strings.Join(los, ", "))
	g.emit("}")
	g.emit("if i < 0 {\nreturn\n}")
	g.emit("}")
}
