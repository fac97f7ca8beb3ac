package ltl

import (
	"bufio"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/wrapcheck/wrapcheck/internal/testenv"
)

// parseLBTFormula parses LBT prefix syntax (! & | i e ^ X F G U V, atoms
// p<n>, constants t f) from the token stream.
func parseLBTFormula(toks []string) (*rf, []string, error) {
	if len(toks) == 0 {
		return nil, nil, fmt.Errorf("unexpected end of formula")
	}
	tok, rest := toks[0], toks[1:]
	switch tok {
	case "t", "f":
		return &rf{op: tok}, rest, nil
	case "!", "X", "F", "G":
		a, rest, err := parseLBTFormula(rest)
		if err != nil {
			return nil, nil, err
		}
		return &rf{op: tok, a: a}, rest, nil
	case "&", "|", "i", "e", "^", "U", "V":
		a, rest, err := parseLBTFormula(rest)
		if err != nil {
			return nil, nil, err
		}
		b, rest, err := parseLBTFormula(rest)
		if err != nil {
			return nil, nil, err
		}
		switch tok {
		case "V":
			return &rf{op: "R", a: a, b: b}, rest, nil
		case "^":
			return &rf{op: "!", a: &rf{op: "e", a: a, b: b}}, rest, nil
		}
		return &rf{op: tok, a: a, b: b}, rest, nil
	}
	if strings.HasPrefix(tok, "p") {
		n, err := strconv.Atoi(tok[1:])
		if err == nil && n >= 0 {
			return &rf{op: "p", atom: n}, rest, nil
		}
	}
	return nil, nil, fmt.Errorf("bad token %q", tok)
}

// parseLBTT converts a state-based generalized Büchi automaton in LBTT
// format into an [Automaton] over atoms atoms: each edge gets one label
// per satisfying full valuation of its guard and the acceptance sets of
// its source state; a fresh initial state copies the edges of every
// initial state.
func parseLBTT(text string, atoms int) (*Automaton, error) {
	toks := strings.Fields(text)
	next := func() (int, error) {
		if len(toks) == 0 {
			return 0, fmt.Errorf("unexpected end of automaton")
		}
		n, err := strconv.Atoi(toks[0])
		toks = toks[1:]
		return n, err
	}
	ns, err := next()
	if err != nil {
		return nil, err
	}
	nacc, err := next()
	if err != nil {
		return nil, err
	}
	type ledge struct {
		to    int
		guard *rf
	}
	ids := map[int]int{}
	idOf := func(id int) int {
		if i, ok := ids[id]; ok {
			return i
		}
		ids[id] = len(ids)
		return ids[id]
	}
	accIDs := map[int]int{}
	edges := make([][]ledge, ns)
	accOf := make([]uint64, ns)
	var inits []int
	for k := 0; k < ns; k++ {
		id, err := next()
		if err != nil {
			return nil, err
		}
		s := idOf(id)
		init, err := next()
		if err != nil {
			return nil, err
		}
		if init != 0 {
			inits = append(inits, s)
		}
		for {
			acc, err := next()
			if err != nil {
				return nil, err
			}
			if acc == -1 {
				break
			}
			if _, ok := accIDs[acc]; !ok {
				accIDs[acc] = len(accIDs)
			}
			accOf[s] |= 1 << uint(accIDs[acc])
		}
		for {
			to, err := next()
			if err != nil {
				return nil, err
			}
			if to == -1 {
				break
			}
			g, rest, err := parseLBTFormula(toks)
			if err != nil {
				return nil, err
			}
			toks = rest
			edges[s] = append(edges[s], ledge{idOf(to), g})
		}
	}
	if len(ids) != ns || len(accIDs) > nacc {
		return nil, fmt.Errorf("inconsistent automaton: %d states declared, %d seen", ns, len(ids))
	}
	a := &Automaton{NumAcc: nacc, Atoms: atoms, States: make([]State, ns+1), Init: ns}
	for m := 0; m < 1<<uint(atoms); m++ {
		val := make([]bool, atoms)
		var label Label
		for i := range val {
			val[i] = m&(1<<uint(i)) != 0
			label = append(label, MkLit(i, !val[i]))
		}
		for s := 0; s < ns; s++ {
			for _, e := range edges[s] {
				if e.guard.eval([][]bool{val}, 0)[0] {
					a.States[s].Edges = append(a.States[s].Edges, Edge{To: e.to, Label: label, Acc: accOf[s]})
				}
			}
		}
	}
	for _, s := range inits {
		a.States[ns].Edges = append(a.States[ns].Edges, a.States[s].Edges...)
	}
	return a, nil
}

func requireLBT(t *testing.T) string {
	t.Helper()
	return testenv.Tool(t, "lbt", "install lbt (apt-get install lbt) to compare with it")
}

// runLBT runs lbt on formula. It returns an error when lbt fails (lbt
// 1.2.2 crashes on some larger formulas with a segmentation fault).
func runLBT(t *testing.T, path, formula string, atoms int) (*Automaton, error) {
	t.Helper()
	cmd := exec.Command(path)
	cmd.Stdin = strings.NewReader(formula + "\n")
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("lbt %q: %v", formula, err)
	}
	a, err := parseLBTT(string(out), atoms)
	if err != nil {
		t.Fatalf("lbt %q: parsing its output: %v\n%s", formula, err, out)
	}
	return a, nil
}

// TestLBT compares, on random lasso words, the language of our automaton
// with the language of lbt's automaton (and with the semantics oracle) for
// random formulas.
func TestLBT(t *testing.T) {
	path := requireLBT(t)
	rng := rand.New(rand.NewSource(2))
	numFormulas, wordsPer := 300, 40
	if testenv.Short(t) {
		numFormulas = 50
	}
	disagree, checked, ours, theirs, crashes := 0, 0, 0, 0, 0
	for k := 0; k < numFormulas; k++ {
		atoms := 2 + rng.Intn(2)
		r := randFormula(rng, atoms, 1+rng.Intn(4))
		a := Translate(r.formula())
		b, err := runLBT(t, path, r.lbt(), atoms)
		if err != nil {
			crashes++
			t.Logf("skipped: %v", err)
			continue
		}
		ours += len(a.States)
		theirs += len(b.States) - 1
		for w := 0; w < wordsPer; w++ {
			u, v := randWord(rng, atoms)
			got, lbt, want := a.AcceptsLasso(u, v), b.AcceptsLasso(u, v), r.holds(u, v)
			checked++
			if got != lbt || got != want {
				disagree++
				if disagree <= 5 {
					t.Errorf("%s (lbt: %s) on %s: ours %v, lbt %v, oracle %v", r, r.lbt(), wordString(u, v), got, lbt, want)
				}
			}
		}
	}
	if crashes > numFormulas/10 {
		t.Errorf("lbt failed on %d of %d formulas", crashes, numFormulas)
	}
	t.Logf("%d formulas (%d skipped: lbt failed), %d words, %d disagreements; states: ours %d, lbt %d",
		numFormulas, crashes, checked, disagree, ours, theirs)
}

// TestOracleFormulas checks the 14 formulas of testdata/oracles (copied
// from the peers' oracles) on every lasso word over 2 atoms with
// |prefix| <= 2 and |loop| <= 3: our automaton, the recorded lbt
// automaton, a fresh lbt run (when lbt is installed) and the semantics
// oracle must all agree.
func TestOracleFormulas(t *testing.T) {
	data, err := os.ReadFile("testdata/oracles/formulas.tsv")
	if err != nil {
		t.Fatal(err)
	}
	recorded := readRecordedLBT(t)
	words := allWords(2, 2, 3)
	lbtPath := testenv.Optional(t, "lbt", "install lbt (apt-get install lbt) to compare with a fresh lbt run")
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")[1:]
	if len(lines) != 14 {
		t.Fatalf("want 14 formulas, got %d", len(lines))
	}
	for _, line := range lines {
		cols := strings.Split(line, "\t")
		id, lbtSyntax := cols[0], cols[2]
		t.Run(id, func(t *testing.T) {
			r, rest, err := parseLBTFormula(strings.Fields(lbtSyntax))
			if err != nil || len(rest) > 0 {
				t.Fatalf("parse %q: %v %v", lbtSyntax, err, rest)
			}
			a := Translate(r.formula())
			rec, err := parseLBTT(recorded[id], 2)
			if err != nil {
				t.Fatalf("recorded lbt automaton: %v", err)
			}
			autos := map[string]*Automaton{"ours": a, "recorded lbt": rec}
			if lbtPath != "" {
				b, err := runLBT(t, lbtPath, lbtSyntax, 2)
				if err != nil {
					t.Fatal(err)
				}
				autos["lbt"] = b
			}
			for _, w := range words {
				want := r.holds(w[0], w[1])
				for name, x := range autos {
					if got := x.AcceptsLasso(w[0], w[1]); got != want {
						t.Fatalf("%s on %s: %s accepts = %v, oracle %v\n%s", r, wordString(w[0], w[1]), name, got, want, x)
					}
				}
			}
		})
	}
}

func readRecordedLBT(t *testing.T) map[string]string {
	t.Helper()
	return readRecorded(t, "testdata/oracles/lbt.txt")
}

// readRecorded reads a recorded oracle file of the peers: per formula id,
// the text after its "### id: ..." header line ("###" lines indented by
// two more spaces continue a header).
func readRecorded(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	id := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "### ") {
			if rest := strings.TrimPrefix(line, "### "); !strings.HasPrefix(rest, "  ") {
				id = strings.SplitN(rest, ":", 2)[0]
			}
			continue
		}
		out[id] += line + "\n"
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
