package ltl

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/dominikbraun/graph"
	"github.com/dominikbraun/graph/draw"
)

// Lit is a literal over the atoms: atom<<1, with the low bit set when the
// atom is negated.
type Lit int32

// MkLit returns the literal of atom, negated when neg is true.
func MkLit(atom int, neg bool) Lit {
	l := Lit(atom << 1)
	if neg {
		l |= 1
	}
	return l
}

// Atom returns the atom of l.
func (l Lit) Atom() int { return int(l >> 1) }

// Neg reports whether l is a negated atom.
func (l Lit) Neg() bool { return l&1 != 0 }

// Holds reports whether l is true under the atom valuation val.
func (l Lit) Holds(val []bool) bool { return val[l.Atom()] != l.Neg() }

// Label is a conjunction of literals, sorted, at most one per atom; the
// empty label is true.
type Label []Lit

// Holds reports whether every literal of c is true under val.
func (c Label) Holds(val []bool) bool {
	for _, l := range c {
		if val[l.Atom()] == l.Neg() {
			return false
		}
	}
	return true
}

// Format prints c with atom names (p<i> beyond names).
func (c Label) Format(names []string) string {
	if len(c) == 0 {
		return "true"
	}
	parts := make([]string, len(c))
	for i, l := range c {
		n := "p" + itoa(l.Atom())
		if l.Atom() < len(names) {
			n = names[l.Atom()]
		}
		if l.Neg() {
			n = "!" + n
		}
		parts[i] = n
	}
	return strings.Join(parts, " && ")
}

func (c Label) String() string { return c.Format(nil) }

// subset reports whether every literal of c is in d.
func (c Label) subset(d Label) bool {
	j := 0
	for _, l := range c {
		for j < len(d) && d[j] < l {
			j++
		}
		if j == len(d) || d[j] != l {
			return false
		}
	}
	return true
}

// Edge is a transition of an [Automaton]: it may be taken from its state
// on a letter that satisfies Label, and it belongs to the acceptance sets
// whose bits are set in Acc.
type Edge struct {
	To    int
	Label Label
	Acc   uint64
}

// State is a state of an [Automaton]. Name describes the obligations the
// state stands for (a conjunction of formulas), for printing only.
type State struct {
	Name  string
	Edges []Edge
}

// Automaton is a transition-based generalized Büchi automaton (TGBA): a
// run is accepting when, for each of the NumAcc acceptance sets, it takes
// infinitely many edges of that set (with NumAcc == 0, every infinite run
// is accepting). State Init is the only initial state; an automaton with
// an empty language may still have states, but no accepting run. An
// Automaton is immutable after [Translate] and safe for concurrent reads.
type Automaton struct {
	States []State
	Init   int
	NumAcc int
	// Atoms is the number of atoms the labels may mention.
	Atoms int
}

// MaxAcc is the largest number of acceptance sets an [Automaton] may have
// (one per until subformula of the negation normal form).
const MaxAcc = 64

// AllAcc returns the mask of all acceptance sets.
func (a *Automaton) AllAcc() uint64 {
	if a.NumAcc == 64 {
		return ^uint64(0)
	}
	return 1<<uint(a.NumAcc) - 1
}

// IsEmpty reports whether the automaton has no edge at all, which
// (after [Translate] pruned useless states) means its language is empty.
func (a *Automaton) IsEmpty() bool {
	for _, s := range a.States {
		if len(s.Edges) > 0 {
			return false
		}
	}
	return true
}

// NumEdges returns the number of edges.
func (a *Automaton) NumEdges() int {
	n := 0
	for _, s := range a.States {
		n += len(s.Edges)
	}
	return n
}

// AcceptsLasso reports whether the automaton accepts the ultimately
// periodic word prefix·loop^ω, where each letter gives the truth value of
// every atom (len(letter) >= a.Atoms). loop must not be empty.
func (a *Automaton) AcceptsLasso(prefix, loop [][]bool) bool {
	word := append(append([][]bool{}, prefix...), loop...)
	n := len(word)
	succ := func(i int) int {
		if i+1 < n {
			return i + 1
		}
		return len(prefix)
	}
	// Product nodes q*n+i.
	adj := func(v int) []accEdge {
		q, i := v/n, v%n
		var out []accEdge
		for _, e := range a.States[q].Edges {
			if e.Label.Holds(word[i]) {
				out = append(out, accEdge{e.To*n + succ(i), e.Acc})
			}
		}
		return out
	}
	_, ok := acceptingSCCs(len(a.States)*n, []int{a.Init*n + 0}, a.AllAcc(), adj)
	return slices.Contains(ok, true)
}

// accEdge is an edge of the graphs of [acceptingSCCs]: its target and
// acceptance sets.
type accEdge struct {
	to  int
	acc uint64
}

// acceptingSCCs returns the strongly connected components of the graph
// of nodes 0..total-1 whose edges adj gives, among the nodes reached from
// roots (comp: the component of each, -1 for a node not reached), and per
// component whether a run may stay in it forever taking edges of every
// acceptance set of all: an edge between two of its nodes, and among
// those edges one of each set (Tarjan's algorithm).
func acceptingSCCs(total int, roots []int, all uint64, adj func(v int) []accEdge) (comp []int, ok []bool) {
	comp = make([]int, total)
	for i := range comp {
		comp[i] = -1
	}
	index := make([]int, total)
	low := make([]int, total)
	onStack := make([]bool, total)
	for i := range index {
		index[i] = -1
	}
	var stack []int
	counter, ncomp := 0, 0
	var strong func(v int)
	strong = func(v int) {
		index[v], low[v] = counter, counter
		counter++
		stack = append(stack, v)
		onStack[v] = true
		for _, e := range adj(v) {
			if index[e.to] < 0 {
				strong(e.to)
				low[v] = min(low[v], low[e.to])
			} else if onStack[e.to] {
				low[v] = min(low[v], index[e.to])
			}
		}
		if low[v] == index[v] {
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp[w] = ncomp
				if w == v {
					break
				}
			}
			ncomp++
		}
	}
	for _, r := range roots {
		if index[r] < 0 {
			strong(r)
		}
	}
	acc := make([]uint64, ncomp)
	inner := make([]bool, ncomp)
	for v := 0; v < total; v++ {
		if comp[v] < 0 {
			continue
		}
		for _, e := range adj(v) {
			if comp[e.to] == comp[v] {
				inner[comp[v]] = true
				acc[comp[v]] |= e.acc
			}
		}
	}
	ok = make([]bool, ncomp)
	for c := range ok {
		ok[c] = inner[c] && acc[c]&all == all
	}
	return comp, ok
}

// Format prints the automaton as text: a header line, then per state its
// number and obligations, then one line per edge with its label (atom i
// named names[i] when given), target and acceptance sets.
func (a *Automaton) Format(names []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "states %d, edges %d, acceptance sets %d, initial %d\n", len(a.States), a.NumEdges(), a.NumAcc, a.Init)
	for i, s := range a.States {
		fmt.Fprintf(&b, "state %d: %s\n", i, s.Name)
		for _, e := range s.Edges {
			fmt.Fprintf(&b, "  -> %d  %s%s\n", e.To, e.Label.Format(names), accString(e.Acc))
		}
	}
	return b.String()
}

// String returns [Automaton.Format] with the default atom names.
func (a *Automaton) String() string { return a.Format(nil) }

func accString(acc uint64) string {
	if acc == 0 {
		return ""
	}
	var parts []string
	for k := 0; k < 64; k++ {
		if acc&(1<<uint(k)) != 0 {
			parts = append(parts, itoa(k))
		}
	}
	return " {" + strings.Join(parts, ",") + "}"
}

// DOT returns the automaton in Graphviz DOT syntax, built with
// dominikbraun/graph's draw package: one circle per state (labelled with
// its number, its obligations as tooltip), an arrow from an invisible
// "start" point to the initial state, and one edge per pair of states
// whose label lists the edges' labels and acceptance sets, one per line.
// The statements are sorted, so the output is deterministic.
func (a *Automaton) DOT() string {
	g := graph.New(graph.StringHash, graph.Directed())
	key := func(i int) string { return "q" + itoa(i) }
	_ = g.AddVertex("start", graph.VertexAttributes(map[string]string{"shape": "point", "style": "invis"}))
	for i, s := range a.States {
		_ = g.AddVertex(key(i), graph.VertexAttributes(map[string]string{
			"label": itoa(i), "shape": "circle", "tooltip": dotEscape(s.Name)}))
	}
	_ = g.AddEdge("start", key(a.Init))
	for i, s := range a.States {
		group := map[int][]string{}
		var targets []int
		for _, e := range s.Edges {
			if _, ok := group[e.To]; !ok {
				targets = append(targets, e.To)
			}
			group[e.To] = append(group[e.To], dotEscape(e.Label.String()+accString(e.Acc)))
		}
		for _, t := range targets {
			_ = g.AddEdge(key(i), key(t), graph.EdgeAttribute("label", strings.Join(group[t], `\n`)))
		}
	}
	var buf bytes.Buffer
	if err := draw.DOT(g, &buf); err != nil {
		panic("wrapcheck internal error: ltl: " + err.Error())
	}
	// draw iterates over maps: sort the statements for a stable output.
	var head, body []string
	for _, line := range strings.Split(buf.String(), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || line == "}":
		case strings.HasPrefix(line, "strict digraph"):
			head = append(head, line)
		default:
			body = append(body, "\t"+line)
		}
	}
	sort.Strings(body)
	return strings.Join(append(append(head, body...), "}"), "\n") + "\n"
}

func dotEscape(s string) string { return strings.ReplaceAll(s, `"`, `\"`) }

// CycleSCCs returns, per state, the number of its strongly connected
// component when an accepting run may stay in that component forever: it
// has an edge between two of its states (a cycle) and, among those
// edges, one of each acceptance set; -1 for every other state. A cycle of
// a product with this automaton runs through the states of one component
// alone, taking only edges inside it, so a product node whose automaton
// state has -1 lies on no accepting cycle, and an edge between states of
// two components lies on no cycle at all. all reports that every state
// has its component's number (nothing to leave out).
func (a *Automaton) CycleSCCs() (scc []int32, all bool) {
	n := len(a.States)
	roots := make([]int, n)
	for q := range roots {
		roots[q] = q
	}
	adj := func(q int) []accEdge {
		out := make([]accEdge, len(a.States[q].Edges))
		for k, e := range a.States[q].Edges {
			out[k] = accEdge{e.To, e.Acc}
		}
		return out
	}
	comp, ok := acceptingSCCs(n, roots, a.AllAcc(), adj)
	scc, all = make([]int32, n), true
	for q, c := range comp {
		scc[q] = int32(c)
		if !ok[c] {
			scc[q], all = -1, false
		}
	}
	return scc, all
}
