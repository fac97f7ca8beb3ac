package cluster

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// TestSearchPartitioned: on random specs and random partitions (a random
// set of the state's slots), 1 to 4 workers over mem:// and file://
// give the single-process search's result (counts, verdict, violation
// and shortest trace), reduced and plain.
func TestSearchPartitioned(t *testing.T) {
	specs := 24
	if testenv.Short(t) {
		specs = 8
	}
	even := func(seed int) bool { return seed%2 == 0 }
	reds := []reduction{{"reduced", true, true}, {"plain", false, false}}
	eachRandom(t, specs, 41, even, reds, func(name, src string, prog *machine.Program, red reduction, opts checker.Options, want *verdict.Result, rng *rand.Rand) {
		for n := 1; n <= 4; n++ {
			var slots []int
			for sl := range prog.Slots() {
				if rng.IntN(3) == 0 {
					slots = append(slots, sl)
				}
			}
			part, err := PartitionOf(prog, slots)
			if err != nil {
				t.Fatal(err)
			}
			store := "mem"
			if n%2 == 0 {
				store = "file"
			}
			t.Run(fmt.Sprintf("%s/%s/N%d/%s/slots%d", name, red.name, n, store, len(slots)), func(t *testing.T) {
				b := Bucket(NewMemBucket())
				if store == "file" {
					if b, err = OpenBucket(context.Background(), "file://"+filepath.ToSlash(t.TempDir())); err != nil {
						t.Fatal(err)
					}
					defer b.Close()
				}
				got, err := searchPart(t, b, n, prog, opts, part)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(comparable(want), comparable(got)); diff != "" {
					t.Errorf("partitioned by %v vs single-process (-want +got):\n%s\nspec:\n%s", part, diff, src)
				}
			})
		}
	})
}

// oneValueSpec has a variable of one value (no bits in a packed state)
// beside variables that vary.
const oneValueSpec = `spec OneValue
var c: 0..0 = 0
var x: 0..5 = 0
var y: 0..3 = 0
action incx when x < 5 { x := x + 1 }
action incy when y < 3 { y := y + 1 }
action reset when x == 5 and y == 3 { x := 0 y := 0 }
invariant Small: x + y <= 8
`

// TestPartitionOneValue: a partition by a variable of one value puts
// every state on one worker, and the search still gives the
// single-process result; the whole state spreads them.
func TestPartitionOneValue(t *testing.T) {
	prog := compileSource(t, "one.wrap", oneValueSpec)
	opts := checker.Options{Workers: 1}
	want, err := checker.RunProgram(context.Background(), prog, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		names   []string
		spreads bool // the states are on more than one worker
	}{{[]string{"c"}, false}, {nil, true}, {[]string{"x", "y"}, true}} {
		t.Run(fmt.Sprint(tt.names), func(t *testing.T) {
			part, err := ParsePartition(prog, tt.names)
			if err != nil {
				t.Fatal(err)
			}
			rec := Record(NewMemBucket())
			got, err := searchPart(t, rec, 3, prog, opts, part)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(comparable(want), comparable(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			per := map[string]int64{} // states stored by each worker, from the states files written
			for _, o := range rec.Ops() {
				if o.Kind == "create" && o.Result == "ok" && strings.Contains(o.Key, "/states-") {
					per[o.Key[strings.LastIndex(o.Key, "-"):]] += o.Records
				}
			}
			busy := 0
			for _, c := range per {
				if c > 0 {
					busy++
				}
			}
			if (busy > 1) != tt.spreads {
				t.Errorf("new states per worker %v: on %d workers, want spread %t", per, busy, tt.spreads)
			}
		})
	}
}

// TestParsePartition: names as a trace prints them select the slots
// they cover; a name that covers none is an error.
func TestParsePartition(t *testing.T) {
	src := `spec P
type Id = symmetric 2
type Ph = {A, B}
var g: 0..3 = 0
var arr: [0..2]bool
var rec: record { u: 0..1, v: Ph }
process p[i: Id] {
  var l: 0..2 = 0
  var q: [Ph]0..1
  action step when l < 2 { l := l + 1 }
}
invariant T: g < 3
`
	prog := compileSource(t, "p.wrap", src)
	paths := SlotPaths(prog.Model)
	t.Logf("slots: %q", paths)
	at := func(path string) int {
		for i, p := range paths {
			if p == path {
				return i
			}
		}
		t.Fatalf("no slot %s among %q", path, paths)
		return -1
	}
	for _, tt := range []struct {
		names []string
		want  []string // the slots' paths
		err   string
	}{
		{names: []string{"g"}, want: []string{"g"}},
		{names: []string{"arr"}, want: []string{"arr[0]", "arr[1]", "arr[2]"}},
		{names: []string{"arr[1]", "g"}, want: []string{"g", "arr[1]"}},
		{names: []string{"rec.v"}, want: []string{"rec.v"}},
		{names: []string{"p[Id1]"}, want: []string{"p[Id1].l", "p[Id1].q[A]", "p[Id1].q[B]"}},
		{names: []string{"p[Id2].q[B]", " p[Id2].q[B] "}, want: []string{"p[Id2].q[B]"}},
		{names: []string{"p"}, want: []string{"p[Id1].l", "p[Id2].l", "p[Id1].q[A]", "p[Id1].q[B]", "p[Id2].q[A]", "p[Id2].q[B]"}},
		{names: []string{"ar"}, err: `--partition "ar": no state variable or element of that name`},
		{names: []string{"arr[3]"}, err: `no state variable or element`},
		{names: []string{"rec.w"}, err: `no state variable or element`},
	} {
		t.Run(strings.Join(tt.names, ","), func(t *testing.T) {
			part, err := ParsePartition(prog, tt.names)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var want []int
			for _, p := range tt.want {
				want = append(want, at(p))
			}
			if diff := cmp.Diff(want, part.Slots()); diff != "" {
				t.Errorf("slots (-want +got):\n%s", diff)
			}
			var inOrder []string // the manifest's form: the slots' names in slot order
			for _, sl := range part.Slots() {
				inOrder = append(inOrder, paths[sl])
			}
			if got, want := part.String(), strings.Join(inOrder, ","); got != want {
				t.Errorf("String() = %q, want %q", got, want)
			}
		})
	}
	if p, err := ParsePartition(prog, nil); p != nil || err != nil || p.String() != "" {
		t.Errorf("no names: %v, %v, want the whole state (nil)", p, err)
	}
}

// TestPartitionRefused: a worker whose partition differs from the one
// the run's manifest records refuses the store, naming both; the same
// partition is accepted.
func TestPartitionRefused(t *testing.T) {
	ctx := context.Background()
	b := NewMemBucket()
	first := Manifest{Spec: "s", Workers: 2, Partition: "g,arr[1]"}
	if _, err := Attach(ctx, "mem://", b, first); err != nil {
		t.Fatal(err)
	}
	if _, err := Attach(ctx, "mem://", b, first); err != nil {
		t.Errorf("the same partition: %v", err)
	}
	for _, tt := range []struct {
		part, msg string
	}{
		{"g", "partition by g,arr[1], not by g"},
		{"", "partition by g,arr[1], not by the whole state"},
	} {
		_, err := Attach(ctx, "mem://", b, Manifest{Spec: "s", Workers: 2, Partition: tt.part})
		var fe *ForeignRunError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("partition %q: error %v, want a ForeignRunError saying %q", tt.part, err, tt.msg)
		}
	}
}

// compileSource parses and compiles the spec src, named name.
func compileSource(t *testing.T, name, src string) *machine.Program {
	t.Helper()
	m, err := spec.ParseFile(name, []byte(src), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	prog, err := machine.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	return prog
}

// TestPartitionLongName: a partition of many slots is recorded by its
// count, its first slot and a hash of their names, within the bound, and
// two partitions that differ in a slot are told apart.
func TestPartitionLongName(t *testing.T) {
	prog := compileSource(t, "big.wrap", `spec Big
var a: [0..999]0..1
var b: 0..1 = 0
action flip when b == 0 { b := 1 }
invariant T: b <= 1
`)
	whole, err := ParsePartition(prog, []string{"a"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for i := range 999 {
		names = append(names, fmt.Sprintf("a[%d]", i))
	}
	less, err := ParsePartition(prog, names)
	if err != nil {
		t.Fatal(err)
	}
	w, l := whole.String(), less.String()
	if len(w) > maxPartitionName || !strings.HasPrefix(w, "1000 slots: a[0], ... (sha256 ") {
		t.Errorf("String() = %q: want the count, the first name and a hash, at most %d bytes", w, maxPartitionName)
	}
	if w == l || !strings.HasPrefix(l, "999 slots: a[0], ...") {
		t.Errorf("1000 slots %q and 999 slots %q", w, l)
	}
}
