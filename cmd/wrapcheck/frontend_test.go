package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// runOn writes src to a file named name in a temporary directory and runs
// wrapcheck with args followed by that file's path. It returns the exit
// code, stdout, stderr and the path as wrapcheck prints it.
func runOn(t *testing.T, name string, src []byte, args ...string) (code int, stdout, stderr, path string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, src, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code = run(append(args, p), &out, &errb)
	return code, out.String(), errb.String(), displayPath(p)
}

// TestLineEndingVerdict is the CR-only reproducer of issue 13: a `//`
// comment ended at the first "\n" only, so with CR line ends it swallowed
// the invariant and check said "holds". Every line-end style must give
// the verdict, position and trace of "\n".
func TestLineEndingVerdict(t *testing.T) {
	lf := "spec P\nvar x: 0..3 = 0\nterminal x == 3\naction a when x < 3 { x := x + 1 } // bump\ninvariant Small: x < 2\n"
	type result struct {
		Verdict   string
		Violation struct {
			Name, Kind, Position string
			Trace                []struct{ State map[string]int }
		}
		Stats struct{ States, Transitions int }
	}
	for _, tt := range []struct{ name, nl string }{{"LF", "\n"}, {"CR", "\r"}, {"CRLF", "\r\n"}} {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.ReplaceAll(lf, "\n", tt.nl)
			code, stdout, stderr, path := runOn(t, "cr.wrap", []byte(src), "check", "--format", "json")
			if code != exitViolated {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitViolated, stderr)
			}
			var got result
			if err := json.Unmarshal([]byte(stdout), &got); err != nil {
				t.Fatalf("%v\n%s", err, stdout)
			}
			want := result{Verdict: "violated"}
			want.Violation.Name, want.Violation.Kind, want.Violation.Position = "Small", "invariant", path+":5:1"
			want.Violation.Trace = []struct{ State map[string]int }{{map[string]int{"x": 0}}, {map[string]int{"x": 1}}, {map[string]int{"x": 2}}}
			want.Stats.States, want.Stats.Transitions = 3, 2 // the search stops at the end of level 2
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}

			// An error after a CR line end names its line.
			bad := strings.ReplaceAll(lf+"invariant Bad: y\n", "\n", tt.nl)
			code, _, stderr, path = runOn(t, "bad.wrap", []byte(bad), "vet")
			if diff := cmp.Diff(path+":6:16: undefined: y\n", stderr); code != exitUsage || diff != "" {
				t.Errorf("vet: exit %d, stderr (-want +got):\n%s", code, diff)
			}
		})
	}
}

// chain returns n copies of term joined by op.
func chain(term, op string, n int) string {
	return strings.Repeat(term+" "+op+" ", n-1) + term
}

// TestLongChains is the stack-overflow reproducer of issue 13: a flat
// chain of 500k `+` or 400k `and` built a tree as deep as it is long, and
// a later pass overflowed the stack (a fatal error, not a panic). Now a
// tree taller than syntax.MaxExprHeight is refused with the position of
// the operator that passes the limit, quickly; one at the limit works.
func TestLongChains(t *testing.T) {
	const limit = 10000 // syntax.MaxExprHeight, as documented
	tooDeep := ": expression too deep: more than 10000 levels of operators\n"
	tests := []struct {
		name, src string
		code      int
		stderr    string // after the path; "" for none
	}{
		{"500k plus", "spec P\nconst C = " + chain("1", "+", 500000) + "\n",
			exitUsage, ":2:" + fmtInt(len("const C = ")+4*limit+3) + tooDeep},
		// 10 MB: the scanner stops at the chain, so this is fast and small.
		{"10 MB plus", "spec P\nconst C = " + chain("1", "+", 2500000) + "\n",
			exitUsage, ":2:" + fmtInt(len("const C = ")+4*limit+3) + tooDeep},
		{"400k and", "spec P\nvar b: bool\ninvariant I: " + chain("not b", "and", 400000) + "\n",
			exitUsage, ":3:" + fmtInt(len("invariant I: ")+10*limit+7) + tooDeep},
		{"plus at the limit", "spec P\nconst C = " + chain("1", "+", limit+1) + "\nvar x: 0..1\ninvariant I: C == 10001 and x == 0\nterminal true\n", exitHolds, ""},
		{"and at the limit", "spec P\nvar b: bool = true\ninvariant I: " + chain("b", "and", limit+1) + "\nterminal true\n", exitHolds, ""},
		// fn bodies are inlined: g's chain and f's body add up.
		{"inlined at the limit", "spec P\nvar v: 0..3\naction a when v < 3 { v := v + 1 }\nterminal v == 3\n" +
			"fn f(x: 0..3): 0..100000 = " + chain("x", "+", 5000) + "\n" +
			"fn g(x: 0..3): 0..100000 = " + chain("f(x)", "+", 1) + " + " + chain("1", "+", 4000) + "\n" +
			"invariant I: g(v) == 5000 * v + 4000\n", exitHolds, ""},
		{"inlined over the limit", "spec P\nvar v: 0..3\naction a when v < 3 { v := v + 1 }\nterminal v == 3\n" +
			"fn f(x: 0..3): 0..100000 = " + chain("x", "+", 6000) + "\n" +
			"fn g(x: 0..3): 0..100000 = f(x) + " + chain("1", "+", 6000) + "\n" +
			"invariant I: g(v) >= 0\n",
			// g's body reaches f's at depth 6002 of 10001: f's body
			// passes the limit at its 1999th operator.
			exitUsage, ":5:" + fmtInt(len("fn f(x: 0..3): 0..100000 = ")+4*1998+3) + ": expression too deep once fn calls are expanded: more than 10000 levels of operators\n"},
	}
	for _, tt := range tests {
		for _, cmd := range []string{"vet", "check"} {
			t.Run(tt.name+"/"+cmd, func(t *testing.T) {
				start := time.Now()
				code, _, stderr, path := runOn(t, "chain.wrap", []byte(tt.src), cmd)
				if d := time.Since(start); d > 5*time.Second {
					t.Errorf("took %v", d)
				}
				want := ""
				if tt.stderr != "" {
					want = path + tt.stderr
				}
				if code != tt.code {
					t.Errorf("exit %d, want %d", code, tt.code)
				}
				if diff := cmp.Diff(want, stderr); diff != "" {
					t.Errorf("stderr (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func fmtInt(n int) string { return strconv.Itoa(n) }

// checkJSON runs check --format json on src and returns its result
// without the timings.
func checkJSON(t *testing.T, src string) map[string]any {
	t.Helper()
	code, stdout, stderr, path := runOn(t, "p.wrap", []byte(src), "check", "--format", "json", "--workers", "1")
	if code != exitHolds && code != exitViolated {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(strings.ReplaceAll(stdout, path, "p.wrap")), &got); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	delete(got["stats"].(map[string]any), "seconds")
	return got
}

// TestLongDisjunctions compares `v in {0, 1, ...}` and a list of
// `terminal` declarations, which the checker lowers to trees of `or` of
// logarithmic height, with the same specs written as one left-nested
// chain of `or`.
func TestLongDisjunctions(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 5, 8, 13, 3000} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			head := fmt.Sprintf("spec P\nvar v: 0..%d\naction a { v := (v + 1) %% %d }\n", n, n+1)
			var elems, eqs, terms []string
			for i := 0; i < n; i++ {
				elems = append(elems, strconv.Itoa(i))
				eqs = append(eqs, fmt.Sprintf("v == %d", i))
				terms = append(terms, fmt.Sprintf("terminal v == %d and v > %d\n", i, n/2))
			}
			in := checkJSON(t, head+"invariant Small: v in {"+strings.Join(elems, ", ")+"}\n")
			or := checkJSON(t, head+"invariant Small: "+strings.Join(eqs, " or ")+"\n")
			if diff := cmp.Diff(or, in); diff != "" {
				t.Errorf("in a set literal (-or chain +in):\n%s", diff)
			}
			if in["verdict"] != "violated" {
				t.Errorf("verdict %v, want violated", in["verdict"])
			}
			// The last state, v = n-1, is terminal when n-1 > n/2.
			loop := fmt.Sprintf("spec P\nvar v: 0..%d\naction a when v < %d { v := v + 1 }\n", n, n-1)
			many := checkJSON(t, loop+strings.Join(terms, ""))
			one := checkJSON(t, loop+"terminal "+strings.Join(eqs, fmt.Sprintf(" and v > %d or ", n/2))+fmt.Sprintf(" and v > %d\n", n/2))
			if diff := cmp.Diff(one, many); diff != "" {
				t.Errorf("terminal declarations (-one terminal +many):\n%s", diff)
			}
		})
	}
}

// TestMatchCompiles is the internal-error reproducer of issue 13: vet
// accepted a match with only an else arm, or over an enum of 100k
// members, and check failed with "match without small case values".
func TestMatchCompiles(t *testing.T) {
	var members []string
	for i := 0; i < 100000; i++ {
		members = append(members, fmt.Sprintf("m%d", i))
	}
	enum := "type E = {" + strings.Join(members, ", ") + "}\nvar e: E\n"
	tests := []struct {
		name, src string
		states    float64
	}{
		{"else only", "spec P\nvar b: bool\naction a { match b { else => b := true } }\nterminal b\n", 2},
		{"100k members", "spec P\n" + enum + "action a { match e { m0 => e := m99999  m99999 => e := m5  else => skip } }\nterminal e == m5\n", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := checkJSON(t, tt.src)
			if got["verdict"] != "holds" || got["stats"].(map[string]any)["states"] != tt.states {
				t.Errorf("got %v, want holds with %v states", got, tt.states)
			}
		})
	}
}
