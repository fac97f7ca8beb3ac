package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// runLine is one line of a recorded run. Step is accepted, and ignored,
// so that the trace of `check --format json` replays as it is.
type runLine struct {
	Step   *int                       `json:"step"`
	Action *string                    `json:"action"`
	Asked  map[string]json.RawMessage `json:"asked"`
	State  map[string]json.RawMessage `json:"state"`
	// Monitors (the past-time monitors that change, in a check trace) is
	// accepted and ignored: the replay recomputes them.
	Monitors map[string]json.RawMessage `json:"monitors"`
}

// Line is a parsed line: the action index (-1: the initial state), the
// recorded variables (index into Model.Vars, encoded value) and answers.
type Line struct {
	line   int
	action int
	vars   []wantVar
	asked  []verdict.Answer
}

type wantVar struct {
	v    *spec.Var
	val  []int64
	rank int32 // v's place in the order of the names
}

// MaxLineBytes is the longest line of a run file (1 MiB): a longer one
// is an error that names the line, read no further than the limit.
const MaxLineBytes = 1 << 20

// Read parses a recorded run (named name in errors): one JSON object a
// line, blank lines skipped. Names and values are checked against m.
// [Run] checks a run as it reads it, without keeping its lines.
func Read(m *spec.Model, name string, r io.Reader) ([]Line, error) {
	lr := newLineReader(m, name, r)
	var out []Line
	for {
		l, ok, err := lr.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			return out, nil
		}
		out = append(out, l)
	}
}

// lineReader reads and parses the lines of a run one at a time, in
// memory bounded by [MaxLineBytes].
type lineReader struct {
	m       *spec.Model
	name    string
	r       *bufio.Reader
	n       int // lines read
	parsed  int // non-blank lines parsed
	buf     []byte
	actions map[string]int
	vars    map[string]*spec.Var
	agents  map[string]int
	// maxSlots is the slots of every variable and answer of a line.
	maxSlots int
	// rankOf is a variable's place in the order of the names (the order
	// of a line's vars), by name; ranked the variable of each rank.
	rankOf map[string]int32
	ranked []*spec.Var
	// The fast path's: the set of the ranks read, the index in the line's
	// vars of each, and the buffer the vars are put in rank order into.
	seenVars []uint64
	at       []int32
	sortBuf  []wantVar
	// reuse makes the fast path parse each line into the buffers of the
	// line before (a Decoder's lines are valid until the next).
	reuse    bool
	arena    []int64
	wantBuf  []wantVar
	askedBuf []verdict.Answer
}

func newLineReader(m *spec.Model, name string, r io.Reader) *lineReader {
	lr := &lineReader{m: m, name: name, r: bufio.NewReaderSize(r, 64<<10),
		actions: map[string]int{}, vars: map[string]*spec.Var{}, agents: map[string]int{}}
	for i, a := range m.Actions {
		lr.actions[a.Name] = i
	}
	for _, v := range m.Vars {
		if v.Monitor == nil { // replay recomputes the past-time monitors
			lr.vars[v.Name] = v
			lr.maxSlots += v.Type.Width
		}
	}
	for i, a := range m.Agents {
		lr.agents[a.Name] = i
		lr.maxSlots += a.Result.Width
	}
	names := sortedKeys(lr.vars)
	lr.seenVars = make([]uint64, (len(names)+63)/64)
	lr.rankOf = make(map[string]int32, len(names))
	lr.ranked = make([]*spec.Var, len(names))
	lr.at = make([]int32, len(names))
	for i, k := range names {
		lr.rankOf[k] = int32(i)
		lr.ranked[i] = lr.vars[k]
	}
	return lr
}

// readLine returns the next line without its line end (\n or \r\n), or
// ok false at the end of the input.
func (lr *lineReader) readLine() (line []byte, ok bool, err error) {
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.r.ReadSlice('\n')
		if len(lr.buf)+len(chunk) > MaxLineBytes+2 { // +2: the line end
			return nil, false, fmt.Errorf("%s:%d: line longer than %d bytes", lr.name, lr.n+1, MaxLineBytes)
		}
		lr.buf = append(lr.buf, chunk...)
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF:
			if len(lr.buf) == 0 {
				return nil, false, nil
			}
		case err != nil:
			return nil, false, fmt.Errorf("%s: %w", lr.name, err)
		}
		lr.n++
		line = bytes.TrimSuffix(bytes.TrimSuffix(lr.buf, []byte("\n")), []byte("\r"))
		if len(line) > MaxLineBytes {
			return nil, false, fmt.Errorf("%s:%d: line longer than %d bytes", lr.name, lr.n, MaxLineBytes)
		}
		return line, true, nil
	}
}

// next returns the next non-blank line, parsed, or ok false at the end.
func (lr *lineReader) next() (Line, bool, error) {
	for {
		raw, ok, err := lr.readLine()
		if err != nil || !ok {
			return Line{}, false, err
		}
		text := bytes.TrimSpace(raw)
		if len(text) == 0 {
			continue
		}
		l, err := lr.parse(text)
		if err != nil {
			return Line{}, false, fmt.Errorf("%s:%d: %w", lr.name, lr.n, err)
		}
		lr.parsed++
		return l, true, nil
	}
}

// parse parses one non-blank line: in one pass when it has the common
// shape, else with encoding/json, which gives the errors.
func (lr *lineReader) parse(text []byte) (Line, error) {
	if w, ok := lr.parseFast(text); ok {
		return w, nil
	}
	return lr.parseSlow(text)
}

// parseSlow parses one non-blank line with encoding/json.
func (lr *lineReader) parseSlow(text []byte) (Line, error) {
	m := lr.m
	if err := checkDuplicateKeys(text); err != nil {
		return Line{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	var l runLine
	if err := dec.Decode(&l); err != nil {
		if k, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			k, _ = strconv.Unquote(k)
			return Line{}, fmt.Errorf("unknown member %q (a line has action, asked, state and step)", clip(k, 80))
		}
		return Line{}, errors.New(report.Escape(clip(err.Error(), 200)))
	}
	if dec.More() {
		return Line{}, errors.New("expected one JSON object per line, found more after it")
	}
	w := Line{line: lr.n, action: -1}
	if l.Action != nil {
		a, ok := lr.actions[*l.Action]
		if !ok {
			return Line{}, fmt.Errorf("no action %s in %s%s", report.Escape(clip(*l.Action, 80)), m.Name, spec.DidYouMean(spec.Suggest(*l.Action, sortedKeys(lr.actions))))
		}
		w.action = a
	} else if lr.parsed > 0 {
		return Line{}, errors.New("only the first line may omit the action (it constrains the initial state)")
	}
	for _, k := range sortedKeys(l.State) {
		v, ok := lr.vars[k]
		if !ok {
			return Line{}, fmt.Errorf("state: no variable %s in %s%s", report.Escape(clip(k, 80)), m.Name, spec.DidYouMean(spec.Suggest(k, sortedKeys(lr.vars))))
		}
		val, err := encodeValue(v.Type, l.State[k])
		if err != nil {
			return Line{}, fmt.Errorf("state.%s: %v", k, err)
		}
		w.vars = append(w.vars, wantVar{v: v, val: val, rank: lr.rankOf[k]})
	}
	for _, k := range sortedKeys(l.Asked) {
		ag, ok := lr.agents[k]
		if !ok {
			return Line{}, fmt.Errorf("asked: no agent %s in %s%s", report.Escape(clip(k, 80)), m.Name, spec.DidYouMean(spec.Suggest(k, sortedKeys(lr.agents))))
		}
		val, err := encodeValue(m.Agents[ag].Result, l.Asked[k])
		if err != nil {
			return Line{}, fmt.Errorf("asked.%s: %v", k, err)
		}
		w.asked = append(w.asked, verdict.Answer{Agent: ag, Value: val})
	}
	slices.SortFunc(w.asked, func(a, b verdict.Answer) int { return a.Agent - b.Agent })
	return w, nil
}

// clip returns s cut to at most n bytes (at a rune boundary) with "..."
// after it when cut, so that no message echoes a huge input in full.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// checkDuplicateKeys reports an object of the JSON text with a key given
// twice: encoding/json would keep the last one silently. It scans the
// text once without decoding it; text that is not JSON passes (the
// decoder then reports it).
func checkDuplicateKeys(text []byte) error {
	type frame struct {
		object bool
		few    []string        // the keys of an object, while there are few
		keys   map[string]bool // then all of them
	}
	// seen reports whether k is a key of f already, and adds it.
	seen := func(f *frame, k string) bool {
		if f.keys == nil {
			if slices.Contains(f.few, k) {
				return true
			}
			if len(f.few) < 16 {
				f.few = append(f.few, k)
				return false
			}
			f.keys = map[string]bool{}
			for _, x := range f.few {
				f.keys[x] = true
			}
		}
		if f.keys[k] {
			return true
		}
		f.keys[k] = true
		return false
	}
	var stack []frame
	expectKey := false
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '{':
			stack = append(stack, frame{object: true})
			expectKey = true
		case '[':
			stack = append(stack, frame{})
			expectKey = false
		case '}', ']':
			if len(stack) == 0 {
				return nil
			}
			stack = stack[:len(stack)-1]
			expectKey = false
		case ',':
			expectKey = len(stack) > 0 && stack[len(stack)-1].object
		case '"':
			j := i + 1
			escaped := false
			for j < len(text) && text[j] != '"' {
				if text[j] == '\\' {
					escaped = true
					j++
				}
				j++
			}
			if j >= len(text) {
				return nil
			}
			if expectKey {
				k := string(text[i+1 : j])
				if escaped || !utf8.ValidString(k) {
					// The key as the decoder reads it (escapes; an invalid
					// byte becomes U+FFFD).
					if err := json.Unmarshal(text[i:j+1], &k); err != nil {
						return nil
					}
				}
				if seen(&stack[len(stack)-1], k) {
					return fmt.Errorf("duplicate key %q", clip(k, 80))
				}
				expectKey = false
			}
			i = j
		}
	}
	return nil
}

func sortedKeys[V any](mp map[string]V) []string {
	keys := make([]string, 0, len(mp))
	for k := range mp {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// encodeValue turns the JSON of a value (as `check --format json` prints
// it) into the unpacked slots of type t.
func encodeValue(t *spec.Type, raw json.RawMessage) ([]int64, error) {
	if x, ok := scalarJSON(raw); ok {
		out := make([]int64, t.Width)
		return out, encodeInto(t, x, out)
	}
	var x any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&x); err != nil {
		return nil, err
	}
	out := make([]int64, t.Width)
	return out, encodeInto(t, x, out)
}

// scalarJSON decodes the common values of a run line without a decoder:
// true, false, an integer (as a json.Number) and a string without
// escapes, as the decoder would (UseNumber); ok is false for anything
// else, which the decoder then reads.
func scalarJSON(raw []byte) (x any, ok bool) {
	switch string(raw) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' {
		body := raw[1 : n-1]
		for _, c := range body {
			if c == '\\' || c == '"' || c < 0x20 || c >= 0x80 {
				return nil, false
			}
		}
		return string(body), true
	}
	digits := raw
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 1 && digits[0] == '0' {
		return nil, false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return nil, false
		}
	}
	return json.Number(raw), true
}

// encodeSeq reads a sequence (an extension) from the array of its
// elements, as check's JSON writes it; the slots past its length get the
// element type's zero value, the one encoding of each sequence.
func encodeSeq(t *spec.Type, x any, out []int64) error {
	elems := t.Fields[1]
	n, w := elems.Type.Index.Size(), elems.Type.Elem.Width
	arr, ok := x.([]any)
	if !ok || int64(len(arr)) > n {
		return fmt.Errorf("expected an array of at most %d elements (a sequence), found %s", n, jsonText(x))
	}
	out[t.Fields[0].Offset] = int64(len(arr))
	spec.ZeroSlots(elems.Type, out[elems.Offset:elems.Offset+elems.Type.Width])
	for i, el := range arr {
		at := elems.Offset + i*w
		if err := encodeInto(elems.Type.Elem, el, out[at:at+w]); err != nil {
			return fmt.Errorf("[%d]: %w", i, err)
		}
	}
	return nil
}

func encodeInto(t *spec.Type, x any, out []int64) error {
	switch t.Kind {
	case spec.BoolKind:
		b, ok := x.(bool)
		if !ok {
			return fmt.Errorf("expected true or false, found %s", jsonText(x))
		}
		out[0] = 0
		if b {
			out[0] = 1
		}
		return nil
	case spec.EnumKind, spec.SymmetricKind:
		s, ok := x.(string)
		if i := slices.Index(t.Names, s); ok && i >= 0 {
			out[0] = int64(i)
			return nil
		}
		return fmt.Errorf("expected one of %s, found %s", strings.Join(t.Names, ", "), jsonText(x))
	case spec.ArrayKind:
		n, w := int(t.Index.Size()), t.Elem.Width
		if t.Index.Kind == spec.EnumKind || t.Index.Kind == spec.SymmetricKind {
			obj, ok := x.(map[string]any)
			if !ok || len(obj) != n {
				return fmt.Errorf("expected an object with the %d keys %s, found %s", n, strings.Join(t.Index.Names, ", "), jsonText(x))
			}
			for i, k := range t.Index.Names {
				el, ok := obj[k]
				if !ok {
					return fmt.Errorf("missing key %s", k)
				}
				if err := encodeInto(t.Elem, el, out[i*w:(i+1)*w]); err != nil {
					return fmt.Errorf("[%s]: %w", k, err)
				}
			}
			return nil
		}
		arr, ok := x.([]any)
		if !ok || len(arr) != n {
			return fmt.Errorf("expected an array of %d elements, found %s", n, jsonText(x))
		}
		for i, el := range arr {
			if err := encodeInto(t.Elem, el, out[i*w:(i+1)*w]); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
		return nil
	case spec.RecordKind:
		if t.Chan && !t.Seq {
			// a rendezvous channel (an extension) holds nothing
			if arr, ok := x.([]any); !ok || len(arr) != 0 {
				return fmt.Errorf("expected [] (a rendezvous channel), found %s", jsonText(x))
			}
			out[0] = 0
			return nil
		}
		if t.Seq {
			return encodeSeq(t, x, out)
		}
		obj, ok := x.(map[string]any)
		if !ok || len(obj) != len(t.Fields) {
			return fmt.Errorf("expected an object with every field of the record, found %s", jsonText(x))
		}
		for _, fd := range t.Fields {
			el, ok := obj[fd.Name]
			if !ok {
				return fmt.Errorf("missing field %s", fd.Name)
			}
			if err := encodeInto(fd.Type, el, out[fd.Offset:fd.Offset+fd.Type.Width]); err != nil {
				return fmt.Errorf(".%s: %w", fd.Name, err)
			}
		}
		return nil
	case spec.SetKind:
		arr, ok := x.([]any)
		if !ok {
			return fmt.Errorf("expected an array (a set), found %s", jsonText(x))
		}
		var mask int64
		el := make([]int64, 1)
		for _, e := range arr {
			if err := encodeInto(t.Elem, e, el); err != nil {
				return err
			}
			mask |= 1 << uint(el[0]-t.Elem.Lo)
		}
		out[0] = mask
		return nil
	}
	// an integer range
	num, ok := x.(json.Number)
	if !ok {
		return fmt.Errorf("expected an integer, found %s", jsonText(x))
	}
	v, err := strconv.ParseInt(num.String(), 10, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return fmt.Errorf("%s is out of range %d..%d", clip(num.String(), 80), t.Lo, t.Hi)
		}
		return fmt.Errorf("expected an integer, found %s", clip(num.String(), 80))
	}
	if v < t.Lo || v > t.Hi {
		return fmt.Errorf("%d is out of range %d..%d", v, t.Lo, t.Hi)
	}
	out[0] = v
	return nil
}

// jsonText returns x as JSON, clipped to 80 bytes.
func jsonText(x any) string {
	b, _ := json.Marshal(x)
	return clip(string(b), 80)
}
