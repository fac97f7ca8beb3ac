package gen

import (
	"fmt"
	"strings"
)

// bigSpec writes a spec of the Big shape: about lines lines using most forms
// of the language, the same for the same lines (it draws nothing).
func bigSpec(lines int) string {
	var b strings.Builder
	b.WriteString("spec Big\nconst N = 3\ntype Proc = symmetric N\ntype Phase = {idle, busy, done}\n")
	b.WriteString("type Clause = {c0, c1, c2, c3}\ntype Rec = record { n: 0..7, ok: bool, cites: set of Clause }\n")
	b.WriteString("agent judge(x: 0..7, s: set of Clause): bool\n  assume result implies x > 0 and s subset {c0, c1}\n")
	n := 0
	for i := 0; b.Len() < lines*40 || n < lines/25; i++ {
		n++
		fmt.Fprintf(&b, "var v%d: [Proc]0..7\nvar r%d: Rec\nvar p%d: Phase = idle\n", i, i, i)
		fmt.Fprintf(&b, "fn f%d(x: 0..7, y: 0..7): 0..14 = if x > y then x - y else x + y\n", i)
		fmt.Fprintf(&b, "process W%d[w: Proc] {\n  var loc: 0..3\n", i)
		fmt.Fprintf(&b, "  action step when p%d == idle and v%d[w] < 7 {\n", i, i)
		fmt.Fprintf(&b, "    v%d[w] := v%d[w] + 1\n    let ok = ask judge(v%d[w], r%d.cites)\n", i, i, i, i)
		fmt.Fprintf(&b, "    if ok and f%d(v%d[w], r%d.n) > 2 { r%d.ok := true } else { loc := (loc + 1) %% 4 }\n", i, i, i, i)
		fmt.Fprintf(&b, "    match p%d {\n      idle => p%d := busy\n      busy, done => skip\n    }\n  }\n", i, i)
		fmt.Fprintf(&b, "  action finish when p%d == busy {\n    choose c in Clause where not (c in r%d.cites) {\n", i, i)
		fmt.Fprintf(&b, "      r%d.cites := r%d.cites union {c}\n    }\n    p%d := done\n  }\n}\n", i, i, i)
		fmt.Fprintf(&b, "invariant I%d: forall w in Proc: v%d[w] <= 7 and (W%d[w].loc < 4 or r%d.ok)\n", i, i, i, i)
	}
	b.WriteString("property Live: always eventually p0 == done\nfairness weak W0\nterminal p0 == done\n")
	return b.String()
}
