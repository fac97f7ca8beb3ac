package spec

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sstmts prints IR statements compactly, for tests.
func sstmts(ss []*Stmt) string {
	var parts []string
	for _, s := range ss {
		switch s.Op {
		case SAssign:
			parts = append(parts, sexpr(s.Target)+" := "+sexpr(s.Value))
		case SLet:
			parts = append(parts, fmt.Sprintf("@%d = %s", s.Slot, sexpr(s.Value)))
		default:
			parts = append(parts, fmt.Sprint("stmt", s.Op))
		}
	}
	return strings.Join(parts, "; ")
}

func TestPastTimeLowering(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // one line per monitor, then the init, stutter and invariant code
	}{
		{
			name: "once",
			src:  "var x: bool\naction a { x := not x }\ninvariant I: once x",
			want: []string{
				"once x: once [T] bool $1",
				"init: $1 := $0",
				"stutter: $1 := (or $0 $1)",
				"I: $1",
			},
		},
		{
			name: "since and previously",
			src:  "var x: bool\nvar y: bool\naction a { x := not x }\ninvariant I: x since previously y",
			want: []string{
				"previously y: previously [T] bool $2",
				"x since previously y: since [T] bool $3",
				"init: $2 := 0; $3 := $2",
				"stutter: @0 = $1; $2 := @0; $3 := (or $2 (and $0 $3))",
				"I: $3",
			},
		},
		{
			name: "historically under a quantifier",
			src:  "type V = 0..1\nvar x: [V]bool\naction a { x[0] := true }\ninvariant I: forall v in V: historically not x[v]",
			want: []string{
				"historically not x[v]: historically [historically not x[0] historically not x[1]] [V]bool $2",
				"init: (index $2 0) := (not (index $0 0)); (index $2 1) := (not (index $0 1))",
				"stutter: (index $2 0) := (and (not (index $0 0)) (index $2 0)); (index $2 1) := (and (not (index $0 1)) (index $2 1))",
				"I: (forall @0:0..1 (index $2 @0))",
			},
		},
		{
			name: "two instances share one monitor",
			src:  "var x: bool\naction a { x := not x }\ninvariant I: once x\ninvariant J: not once x",
			want: []string{
				"once x: once [T] bool $1",
				"init: $1 := $0",
				"stutter: $1 := (or $0 $1)",
				"I: $1",
				"J: (not $1)",
			},
		},
		{
			name: "a symmetric family shares one array",
			src:  "type R = symmetric 2\nvar x: [R]bool\nprocess P[r: R] { action a when once x[r] { x[r] := false } }",
			want: []string{
				"once x[r]: once [once x[R1] once x[R2]] [R]bool $2",
				"init: (index $2 0) := (index $0 0); (index $2 1) := (index $0 1)",
				"stutter: (index $2 0) := (or (index $0 0) (index $2 0)); (index $2 1) := (or (index $0 1) (index $2 1))",
			},
		},
		{
			name: "a folded monitor is dropped",
			src:  "var x: bool\naction a { x := not x }\ninvariant I: false and once x",
			want: []string{
				"init: ",
				"stutter: ",
				"I: 0",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ParseFile("t.wrap", []byte("spec T\n"+tt.src+"\n"), Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, mon := range m.Monitors {
				v := m.Vars[mon.Var]
				names := "T"
				if len(mon.Names) > 1 {
					names = strings.Join(mon.Names, " ")
				}
				got = append(got, fmt.Sprintf("%s: %s [%s] %s $%d", mon.Text, mon.Kind, names, typeString(v.Type), v.Slot))
			}
			got = append(got, "init: "+sstmts(m.Init), "stutter: "+sstmts(m.Stutter))
			for _, inv := range m.Invariants {
				got = append(got, inv.Name+": "+sexpr(inv.Expr))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("lowering (-want +got):\n%s", diff)
			}
		})
	}
}
