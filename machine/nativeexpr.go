package machine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/wrapcheck/wrapcheck/spec"
)

// tmp declares a temporary holding the int64 expression x.
func (g *gen) tmp(x string) string {
	t := g.id("t")
	g.emit("%s := %s", t, x)
	return t
}

func konst(v int64) string { return fmt.Sprintf("int64(%d)", v) }

// literal returns the value of x when it is a constant that konst wrote.
func literal(x string) (int64, bool) {
	s, ok := strings.CutPrefix(x, "int64(")
	if !ok {
		return 0, false
	}
	s, ok = strings.CutSuffix(s, ")")
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
}

// scalar emits the evaluation of a scalar expression and returns a Go
// expression of its value with no side effects (a temporary or a
// constant), as compiler.scalar's closure computes it.
func (g *gen) scalar(e *spec.Expr, cx frameCtx) string {
	c := g.c
	if e == nil {
		return konst(1)
	}
	if !isScalar(e.Type) || c.wide(e, cx) {
		g.unsupported()
		return konst(0)
	}
	switch e.Op {
	case spec.OpConst:
		return konst(e.Val)
	case spec.OpVar, spec.OpLocal, spec.OpIndex, spec.OpField:
		r := g.ref(e, cx)
		return g.tmp(g.load(r))
	case spec.OpNot:
		if off, ok := staticOff(e.Args[0], cx); ok {
			return g.tmp("1 - " + g.load(strconv.Itoa(off)))
		}
		a := g.scalar(e.Args[0], cx)
		return g.tmp(fmt.Sprintf("b2i(%s == 0)", a))
	case spec.OpNeg:
		a := g.scalar(e.Args[0], cx)
		return g.tmp("-" + a)
	case spec.OpAnd, spec.OpOr, spec.OpImplies:
		a := g.scalar(e.Args[0], cx)
		t := g.id("t")
		switch e.Op {
		case spec.OpAnd:
			g.emit("var %s int64\nif %s != 0 {", t, a)
		case spec.OpOr:
			g.emit("%s := int64(1)\nif %s == 0 {", t, a)
		default:
			g.emit("%s := int64(1)\nif %s != 0 {", t, a)
		}
		b := g.scalar(e.Args[1], cx)
		g.emit("%s = %s\n}", t, b)
		return t
	case spec.OpEq, spec.OpNe:
		eq := g.equal(e.Args[0], e.Args[1], cx)
		if e.Op == spec.OpEq {
			return eq
		}
		return g.tmp("1 - " + eq)
	case spec.OpLt, spec.OpLe, spec.OpGt, spec.OpGe:
		x := g.scalar(e.Args[0], cx)
		y := g.scalar(e.Args[1], cx)
		op := map[spec.Op]string{spec.OpLt: "<", spec.OpLe: "<=", spec.OpGt: ">", spec.OpGe: ">="}[e.Op]
		return g.tmp(fmt.Sprintf("b2i(%s %s %s)", x, op, y))
	case spec.OpAdd, spec.OpSub, spec.OpMul, spec.OpUnion, spec.OpIntersect, spec.OpMinus, spec.OpSubset:
		x := g.scalar(e.Args[0], cx)
		y := g.scalar(e.Args[1], cx)
		switch e.Op {
		case spec.OpSubset:
			return g.tmp(fmt.Sprintf("b2i(%s&^%s == 0)", x, y))
		}
		op := map[spec.Op]string{spec.OpAdd: "+", spec.OpSub: "-", spec.OpMul: "*", spec.OpUnion: "|", spec.OpIntersect: "&", spec.OpMinus: "&^"}[e.Op]
		return g.tmp(fmt.Sprintf("%s %s %s", x, op, y))
	case spec.OpDiv, spec.OpMod:
		x := g.scalar(e.Args[0], cx)
		y := g.scalar(e.Args[1], cx)
		msg, op := "division by zero", "/"
		if e.Op == spec.OpMod {
			msg, op = "modulo by zero", "%"
		}
		st := g.site(site{kind: RuntimeError, pos: e.Pos, msg: msg})
		t := g.id("t")
		if k, ok := literal(y); ok {
			// A constant divisor is decided here: Go rejects a division
			// by a constant zero at compile time, where the closure fails
			// at run time (only when the division is evaluated).
			if k == 0 {
				g.emit("_ = %s // evaluated, as the closure evaluates it\nvar %s int64\nm.fail(%s, 0)", x, t, st)
			} else {
				g.emit("%s := %s %s %s", t, x, op, y)
			}
			return t
		}
		g.emit("var %s int64\nif %s == 0 {\nm.fail(%s, 0)\n} else {\n%s = %s %s %s\n}", t, y, st, t, x, op, y)
		return t
	case spec.OpIn:
		x := g.scalar(e.Args[0], cx)
		lo, size := setDomain(e.Args[1].Type)
		d, t := g.id("d"), g.id("t")
		g.emit("%s := %s - %d\nvar %s int64\nif %s >= 0 && %s < %d {", d, x, lo, t, d, d, size)
		s := g.scalar(e.Args[1], cx)
		g.emit("%s = (%s >> uint(%s)) & 1\n}", t, s, d)
		return t
	case spec.OpCard:
		a := g.scalar(e.Args[0], cx)
		return g.tmp(fmt.Sprintf("int64(bits.OnesCount64(uint64(%s)))", a))
	case spec.OpSetLit:
		lo, size := setDomain(e.Type)
		st := g.site(site{kind: RuntimeError, pos: e.Pos, msg: "set element %d outside " + spec.TypeString(e.Type.Elem, 0), hasVal: true})
		s := g.id("s")
		g.emit("var %s uint64", s)
		for _, a := range e.Args {
			v := g.scalar(a, cx)
			g.emit("if d := %s - %d; d < 0 || d >= %d {\nm.fail(%s, %s)\n} else {\n%s |= 1 << uint(d)\n}", v, lo, size, st, v, s)
		}
		return g.tmp(fmt.Sprintf("int64(%s)", s))
	case spec.OpCond:
		k := g.scalar(e.Args[0], cx)
		t := g.id("t")
		g.emit("var %s int64\nif %s != 0 {", t, k)
		a := g.scalar(e.Args[1], cx)
		g.emit("%s = %s\n} else {", t, a)
		b := g.scalar(e.Args[2], cx)
		g.emit("%s = %s\n}", t, b)
		return t
	case spec.OpForall, spec.OpExists, spec.OpCount:
		return g.quant(e, cx)
	case spec.OpBitAnd, spec.OpBitOr, spec.OpBitXor, spec.OpShl, spec.OpShr, spec.OpEMod:
		return g.bitwise(e, cx)
	}
	g.unsupported()
	return konst(0)
}

func (g *gen) equal(a, b *spec.Expr, cx frameCtx) string {
	if isScalar(a.Type) {
		x := g.scalar(a, cx)
		y := g.scalar(b, cx)
		return g.tmp(fmt.Sprintf("b2i(%s == %s)", x, y))
	}
	w := width(a.Type)
	ra := g.ref(a, cx)
	rb := g.ref(b, cx)
	var cs []string
	for k := 0; k < w; k++ {
		if g.pk {
			a, errA := strconv.Atoi(ra)
			b, errB := strconv.Atoi(rb)
			if errA != nil || errB != nil {
				g.unsupported() // a computed location in the packed check
				return konst(0)
			}
			cs = append(cs, fmt.Sprintf("%s == %s", g.load(strconv.Itoa(a+k)), g.load(strconv.Itoa(b+k))))
			continue
		}
		cs = append(cs, fmt.Sprintf("mem[%s+%d] == mem[%s+%d]", ra, k, rb, k))
	}
	return g.tmp("b2i(" + strings.Join(cs, " && ") + ")")
}

func (g *gen) quant(e *spec.Expr, cx frameCtx) string {
	off := cx.frame + e.Slot
	lo, hi := int64(0), int64(1)
	if e.Dom != nil {
		leaves, ok := spec.DomainLeaves(e.Dom)
		if !ok || len(leaves) == 0 {
			g.unsupported()
			return konst(0)
		}
		lo, hi = leaves[0][0], leaves[0][1]
		if inst := unroll(e); inst != nil {
			return g.unrolled(e.Op, inst, cx)
		}
		if len(leaves) > 1 {
			g.unsupported()
			return konst(0)
		}
	} else if inst := unroll(e); inst != nil {
		return g.unrolled(e.Op, inst, cx)
	}
	t, v := g.id("t"), g.id("v")
	switch e.Op {
	case spec.OpForall:
		g.emit("%s := int64(1)", t)
	case spec.OpExists:
		g.emit("%s := int64(0)", t)
	default:
		g.emit("%s := int64(0)", t)
	}
	g.emit("for %s := int64(%d); %s <= %d; %s++ {", v, lo, v, hi, v)
	if e.Op == spec.OpForall || e.Op == spec.OpExists || e.Op == spec.OpCount {
		g.emit("if m.tick() {\n%s = 0\nbreak\n}", t)
	}
	g.emit("mem[%d] = %s", off, v)
	b := g.scalar(e.Args[0], cx)
	switch e.Op {
	case spec.OpForall:
		g.emit("if %s == 0 {\n%s = 0\nbreak\n}", b, t)
	case spec.OpExists:
		g.emit("if %s != 0 {\n%s = 1\nbreak\n}", b, t)
	default:
		g.emit("if %s != 0 {\n%s++\n}", b, t)
	}
	g.emit("}")
	return t
}

// unrolled mirrors compiler.unrolled.
func (g *gen) unrolled(op spec.Op, inst []*spec.Expr, cx frameCtx) string {
	var fs []*spec.Expr
	konstN := int64(0)
	for _, x := range inst {
		if x.Op == spec.OpConst {
			switch {
			case op == spec.OpForall && x.Val == 0:
				return konst(0)
			case op == spec.OpExists && x.Val != 0:
				return konst(1)
			case op == spec.OpCount && x.Val != 0:
				konstN++
			}
			continue
		}
		fs = append(fs, x)
	}
	if op != spec.OpCount && len(fs) == 1 {
		return g.scalar(fs[0], cx)
	}
	t := g.id("t")
	switch op {
	case spec.OpForall, spec.OpExists:
		// f1 && f2 && .. (forall) or f1 || f2 || .. (exists), each
		// evaluated only when the ones before did not decide.
		stop, res := "== 0", "0"
		if op == spec.OpExists {
			stop, res = "!= 0", "1"
		}
		g.emit("%s := int64(1 - %s)", t, res)
		for i, x := range fs {
			v := g.scalar(x, cx)
			if i < len(fs)-1 {
				g.emit("if %s %s {\n%s = %s\n} else {", v, stop, t, res)
			} else {
				g.emit("if %s %s {\n%s = %s\n}", v, stop, t, res)
			}
		}
		for i := 0; i < len(fs)-1; i++ {
			g.emit("}")
		}
		return t
	}
	g.emit("%s := int64(%d)", t, konstN)
	for _, x := range fs {
		v := g.scalar(x, cx)
		g.emit("if %s != 0 {\n%s++\n}", v, t)
	}
	return t
}

// ref emits the computation of a location's offset in mem and returns a
// Go int expression of it (a constant or a temporary), as compiler.ref's
// closure computes it.
func (g *gen) ref(e *spec.Expr, cx frameCtx) string {
	if off, ok := staticOff(e, cx); ok {
		if e.Op == spec.OpLocal && g.c.isBigSlot(off) {
			g.unsupported()
		}
		return strconv.Itoa(off)
	}
	switch e.Op {
	case spec.OpField:
		base := g.ref(e.Args[0], cx)
		o := g.id("o")
		g.emit("%s := %s + %d", o, base, e.Val)
		return o
	case spec.OpIndex:
		at := e.Args[0].Type
		if at == nil || at.Index == nil || at.Elem == nil {
			g.unsupported()
			return "0"
		}
		base := g.ref(e.Args[0], cx)
		lo, size, ew := at.Index.Lo, at.Index.Size(), int64(width(at.Elem))
		st := g.site(site{kind: RuntimeError, pos: e.Pos, msg: fmt.Sprintf("index %%d out of range %d..%d", lo, at.Index.Hi), hasVal: true})
		o := g.id("o")
		g.emit("%s := %s", o, base)
		v := g.scalar(e.Args[1], cx)
		g.emit("if i := %s - %d; i < 0 || i >= %d {\nm.fail(%s, %s)\n} else {\n%s += int(i * %d)\n}", v, lo, size, st, v, o, ew)
		return o
	}
	g.unsupported()
	return "0"
}

// load returns a Go expression of mem[r], r a location from ref. In the
// packed check (g.pk) a state slot of the check area is decoded from the
// vector's words instead, with the constant word, shift, mask and low
// bound of the layout (as the generated unpack does); a computed
// location there is not supported.
func (g *gen) load(r string) string {
	if !g.pk {
		return "mem[" + r + "]"
	}
	off, err := strconv.Atoi(r)
	if err != nil {
		g.unsupported()
		return konst(0)
	}
	p := g.p
	i := off - p.checkOff
	if i < 0 || i >= p.n {
		return "mem[" + r + "]" // a frame slot (a bound variable)
	}
	ps := p.lay.slots[i]
	if ps.mask == 0 {
		return konst(ps.lo)
	}
	return fmt.Sprintf("(int64((v%d>>%d)&%#x) + %d)", ps.word, ps.shift, ps.mask, ps.lo)
}
