package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/wrapcheck/wrapcheck/spec"
)

// DecodeState parses data, one state as `check --format json` writes a
// trace entry's "state" (an object with every variable of m by name,
// globals by name and locals as "process.name" or "family[value].name";
// past-time monitors are left out and start false), into its unpacked
// slots. A whole trace entry ({"step": ..., "state": {...}}) is read by
// its "state". Errors read "name:line:col: msg", at the value (or key) at
// fault, name being where data came from.
func DecodeState(m *spec.Model, name string, data []byte) ([]int64, error) {
	at := func(off int64, format string, args ...any) error {
		line, col := 1, 1
		for _, r := range string(data[:min(int(off), len(data))]) {
			if r == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
		return fmt.Errorf("%s:%d:%d: %s", name, line, col, fmt.Sprintf(format, args...))
	}
	if err := checkDuplicateKeys(data); err != nil {
		return nil, at(0, "%v", err)
	}
	obj, off, err := members(data, 0)
	if err != nil {
		return nil, at(off, "%v", err)
	}
	if raw, ok := obj.get("state"); ok && obj.has("step") {
		base := obj.offsets["state"]
		if obj, off, err = members(raw, base); err != nil {
			return nil, at(off, "%v", err)
		}
	}
	vars := map[string]*spec.Var{}
	for _, v := range m.Vars {
		if v.Monitor == nil {
			vars[v.Name] = v
		}
	}
	state := make([]int64, len(m.Slots))
	for _, k := range obj.keys {
		v := vars[k]
		if v == nil {
			names := make([]string, 0, len(vars))
			for n := range vars {
				names = append(names, n)
			}
			hint := ""
			if s := spec.Suggest(k, names); s != "" {
				hint = " (did you mean " + s + "?)"
			}
			return nil, at(obj.keyOffsets[k], "no variable %s in %s%s", clip(k, 80), m.Name, hint)
		}
		slots, err := encodeValue(v.Type, obj.values[k])
		if err != nil {
			return nil, at(obj.offsets[k], "%s: %v", v.Name, err)
		}
		copy(state[v.Slot:], slots)
		delete(vars, k)
	}
	for _, v := range m.Vars {
		if vars[v.Name] != nil {
			return nil, at(obj.end, "missing variable %s (a state gives every variable)", v.Name)
		}
	}
	return state, nil
}

// object is a JSON object's members, in order, with the offsets (into
// the whole input) of each key and value and of the closing brace.
type object struct {
	keys       []string
	values     map[string]json.RawMessage
	offsets    map[string]int64
	keyOffsets map[string]int64
	end        int64
}

func (o object) get(k string) (json.RawMessage, bool) { v, ok := o.values[k]; return v, ok }
func (o object) has(k string) bool                    { _, ok := o.values[k]; return ok }

// members reads data as one JSON object; base is the offset of data in
// the whole input. On an error it returns the offset at fault.
func members(data []byte, base int64) (object, int64, error) {
	o := object{values: map[string]json.RawMessage{}, offsets: map[string]int64{}, keyOffsets: map[string]int64{}}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	skip := func() int64 { // the offset of the next token, past spaces
		off := dec.InputOffset()
		for off < int64(len(data)) && (data[off] == ' ' || data[off] == '\t' || data[off] == '\n' || data[off] == '\r' || data[off] == ',' || data[off] == ':') {
			off++
		}
		return off
	}
	syntax := func(err error) (object, int64, error) {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return o, base + se.Offset, fmt.Errorf("invalid JSON: %v", se)
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return o, base + int64(len(data)), errors.New("invalid JSON: unexpected end of input")
		}
		return o, base + dec.InputOffset(), fmt.Errorf("invalid JSON: %v", err)
	}
	start := skip()
	t, err := dec.Token()
	if err != nil {
		return syntax(err)
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return o, base + start, errors.New("expected a JSON object (a state: {\"variable\": value, ...})")
	}
	for dec.More() {
		koff := skip()
		t, err := dec.Token()
		if err != nil {
			return syntax(err)
		}
		k, _ := t.(string)
		voff := skip()
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return syntax(err)
		}
		o.keys = append(o.keys, k)
		o.values[k], o.offsets[k], o.keyOffsets[k] = raw, base+voff, base+koff
	}
	o.end = base + skip()
	if _, err := dec.Token(); err != nil {
		return syntax(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return o, base + skip(), errors.New("expected the end of the input after the state")
	}
	return o, 0, nil
}
