package replay

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/wrapcheck/wrapcheck/internal/jsonscan"
	"github.com/wrapcheck/wrapcheck/internal/jsonscan/jsonmut"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// walkLines returns the lines of random runs of the spec at path, as
// `check --format json` writes a trace's steps.
func walkLines(t *testing.T, path string, runs, depth int, rnd *rand.Rand) ([][]byte, *spec.Model) {
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := spec.ParseFile(path, src, spec.Options{})
	if err != nil {
		return nil, nil // the specs that need constants
	}
	prog, err := machine.Compile(m)
	if err != nil {
		return nil, nil
	}
	mach := prog.NewMachine()
	mach.RecordAnswers(true)
	unpack := func(s machine.State) []int64 {
		out := make([]int64, prog.Slots())
		prog.Unpack(out, s)
		return out
	}
	var lines [][]byte
	for range runs {
		var inits []machine.State
		if mach.Init(func(_ int, s machine.State) { inits = append(inits, slices.Clone(s)) }) != nil || len(inits) == 0 {
			return lines, m
		}
		cur := inits[rnd.IntN(len(inits))]
		steps := []verdict.Step{{Action: -1, State: unpack(cur)}}
		for len(steps) <= depth {
			type succ struct {
				a     int
				s     machine.State
				asked []verdict.Answer
			}
			var next []succ
			if mach.Successors(cur, func(a, _ int, s machine.State) {
				next = append(next, succ{a, slices.Clone(s), machine.CloneAnswers(mach.Asked())})
			}) != nil || len(next) == 0 {
				break
			}
			n := next[rnd.IntN(len(next))]
			steps = append(steps, verdict.Step{Action: n.a, State: unpack(n.s), Asked: n.asked})
			cur = n.s
		}
		var b bytes.Buffer
		if err := report.TraceJSON(&b, m, steps); err != nil {
			t.Fatal(err)
		}
		var raws []json.RawMessage
		if err := json.Unmarshal(b.Bytes(), &raws); err != nil {
			t.Fatal(err)
		}
		for _, r := range raws {
			lines = append(lines, r)
		}
	}
	return lines, m
}

// TestParseFastAgrees holds the one-pass parser of run lines to the
// encoding/json one: on check's lines of random runs of every example
// (where it must answer) and on a hundred thousand mutations of them,
// every line it accepts is a line parseSlow accepts, giving the same
// Line; what it declines, parseSlow decides.
func TestParseFastAgrees(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 11))
	paths, _ := filepath.Glob("../examples/*/*.wrap")
	more, _ := filepath.Glob("../testdata/*.wrap")
	paths = append(paths, more...)
	fastPlain, fastMutated, mutations := 0, 0, 0
	for _, path := range paths {
		lines, m := walkLines(t, path, 3, 12, rnd)
		if m == nil {
			continue
		}
		lr := newLineReader(m, "", nil)
		lr.reuse = len(path)%2 == 0 // the Decoder's buffers, or new ones each line
		for i, line := range lines {
			for k := range 60 {
				text := line
				if k > 0 {
					text = jsonmut.Mutate(line, rnd)
					mutations++
				}
				lr.parsed = i % 2 // the first line may omit the action
				fast, ok := lr.parseFast(text)
				slow, err := lr.parseSlow(text)
				if !ok {
					if k == 0 && err == nil {
						t.Errorf("%s: the fast path declines check's line %s", path, text)
					}
					continue
				}
				if k == 0 {
					fastPlain++
				} else {
					fastMutated++
				}
				if err != nil {
					t.Fatalf("%s: the fast path accepts %s, which encoding/json rejects: %v", path, text, err)
				}
				if !reflect.DeepEqual(fast, slow) {
					t.Fatalf("%s: %s:\nfast %+v\nslow %+v", path, text, fast, slow)
				}
			}
		}
	}
	t.Logf("%d files, fast path: %d plain lines, %d of %d mutations", len(paths), fastPlain, fastMutated, mutations)
	if fastPlain == 0 || fastMutated == 0 {
		t.Fatal("the fast path was not taken")
	}
}

// TestDecodeFastAgrees holds DecodeFast, which reads a line inside a
// larger text (the guard's request), to Decode: on the lines of walks of
// every example and their mutations, each inside other text, an object
// it reads is one Decode reads as the same Line, and it stops right after
// the object; every line Decode's one pass reads, it reads.
func TestDecodeFastAgrees(t *testing.T) {
	rnd := rand.New(rand.NewPCG(13, 17))
	paths, _ := filepath.Glob("../examples/*/*.wrap")
	read, mutations := 0, 0
	for _, path := range paths {
		lines, m := walkLines(t, path, 3, 12, rnd)
		if m == nil {
			continue
		}
		d, ref := NewDecoder(m), NewDecoder(m)
		for _, line := range lines {
			for k := range 40 {
				text := line
				if k > 0 {
					text = jsonmut.Mutate(line, rnd)
					mutations++
				}
				prefix := []byte(`{"event": ` + string(bytes.Repeat([]byte(" "), k%3)))
				buf := append(append(slices.Clone(prefix), text...), `, "id": "x"}`...)
				rest := buf[len(`{"event": `):] // from the white space before the line
				s := jsonscan.New(rest)
				s.Peek() // past the white space
				start := s.Offset()
				got, ok := d.DecodeFast(&s)
				_, plainOK := ref.lr.parseFast(text)
				if !ok {
					if plainOK {
						t.Fatalf("%s: DecodeFast declines %s, which Decode's one pass reads", path, text)
					}
					continue
				}
				read++
				span := rest[start:s.Offset()]
				if !json.Valid(span) || span[len(span)-1] != '}' {
					t.Fatalf("%s: DecodeFast read %q, not one object", path, span)
				}
				want, err := ref.Decode(span, 0, true)
				if err != nil {
					t.Fatalf("%s: DecodeFast reads %s, which Decode rejects: %v", path, span, err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: %s:\nDecodeFast %+v\nDecode     %+v", path, span, got, want)
				}
				if plainOK && !bytes.Equal(span, bytes.TrimSpace(text)) {
					t.Fatalf("%s: DecodeFast read %q of the line %q", path, span, text)
				}
				if got.At(7).line != 7 {
					t.Fatal("At does not number the line")
				}
			}
		}
	}
	t.Logf("%d files: DecodeFast read %d lines and mutations (%d mutations)", len(paths), read, mutations)
	if read == 0 {
		t.Fatal("DecodeFast read nothing")
	}
}
