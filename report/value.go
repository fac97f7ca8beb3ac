package report

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// A value is rendered once into a small tree (scalar text, list or
// object), from which both the JSON and the text renderers print. Keys of
// objects keep declaration order, so output is byte-for-byte stable.

type node struct {
	scalar string // JSON text of a scalar (already quoted for strings)
	text   string // the same scalar as a person reads it
	list   []node
	keys   []string
	vals   []node
	kind   nodeKind
	keyed  bool // an object that is an array indexed by an enum or identity
}

type nodeKind uint8

const (
	scalarNode nodeKind = iota
	listNode
	setNode // a list that prints as {a, b} in text
	objectNode
)

// scalarName returns the name of value v of scalar type t, as people read
// it: true/false, a decimal, an enum member, an identity.
func scalarName(t *spec.Type, v int64) string {
	switch t.Kind {
	case spec.BoolKind:
		if v != 0 {
			return "true"
		}
		return "false"
	case spec.EnumKind, spec.SymmetricKind:
		if v >= 0 && int(v) < len(t.Names) {
			return t.Names[v]
		}
	}
	return strconv.FormatInt(v, 10)
}

// valueNode renders the value of type t held in slots.
func valueNode(t *spec.Type, slots []int64) node {
	switch t.Kind {
	case spec.ArrayKind:
		n := int(t.Index.Size())
		w := t.Elem.Width
		keyed := t.Index.Kind == spec.EnumKind || t.Index.Kind == spec.SymmetricKind
		out := node{kind: listNode}
		if keyed {
			out.kind = objectNode
			out.keyed = true
		}
		for i := 0; i < n; i++ {
			el := valueNode(t.Elem, slots[i*w:(i+1)*w])
			if keyed {
				out.keys = append(out.keys, scalarName(t.Index, t.Index.Lo+int64(i)))
				out.vals = append(out.vals, el)
			} else {
				out.list = append(out.list, el)
			}
		}
		return out
	case spec.RecordKind:
		if t.Seq {
			return seqNode(t, slots)
		}
		out := node{kind: objectNode}
		for _, f := range t.Fields {
			out.keys = append(out.keys, f.Name)
			out.vals = append(out.vals, valueNode(f.Type, slots[f.Offset:f.Offset+f.Type.Width]))
		}
		return out
	case spec.SetKind:
		out := node{kind: setNode}
		mask := uint64(slots[0])
		for k := 0; k < 64 && k < int(t.Elem.Size()); k++ {
			if mask&(1<<uint(k)) != 0 {
				out.list = append(out.list, scalarNode2(t.Elem, t.Elem.Lo+int64(k)))
			}
		}
		return out
	}
	return scalarNode2(t, slots[0])
}

// seqNode renders a sequence (an extension) as the list of its len
// elements, as wrap writes its literal ([b, a]): the slots past the
// length are storage, not part of the value.
func seqNode(t *spec.Type, slots []int64) node {
	out := node{kind: listNode, list: []node{}}
	elems := t.Fields[1]
	w := elems.Type.Elem.Width
	for i := range SeqLen(t, slots) {
		at := elems.Offset + i*w
		out.list = append(out.list, valueNode(elems.Type.Elem, slots[at:at+w]))
	}
	return out
}

// SeqLen returns the length of the sequence of type t (a record marked
// [spec.Type.Seq]) held in slots, clamped to 0..N so that a damaged
// state cannot make a renderer index past its slots.
func SeqLen(t *spec.Type, slots []int64) int {
	return int(min(max(slots[t.Fields[0].Offset], 0), t.Fields[1].Type.Index.Size()))
}

func scalarNode2(t *spec.Type, v int64) node {
	name := scalarName(t, v)
	js := name
	if t.Kind == spec.EnumKind || t.Kind == spec.SymmetricKind {
		js = jsonString(name)
	}
	return node{kind: scalarNode, scalar: js, text: name}
}

// writeJSON prints n as compact JSON.
func (n node) writeJSON(b *bytes.Buffer) {
	switch n.kind {
	case scalarNode:
		b.WriteString(n.scalar)
	case listNode, setNode:
		b.WriteByte('[')
		for i, el := range n.list {
			if i > 0 {
				b.WriteString(", ")
			}
			el.writeJSON(b)
		}
		b.WriteByte(']')
	case objectNode:
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(jsonString(k))
			b.WriteString(": ")
			n.vals[i].writeJSON(b)
		}
		b.WriteByte('}')
	}
}

// String prints n as people read it: `{a, b}` for sets, `[1, 2]` for
// arrays, `{k: v}` for records and keyed arrays.
func (n node) String() string {
	var b strings.Builder
	n.writeText(&b)
	return b.String()
}

func (n node) writeText(b *strings.Builder) {
	switch n.kind {
	case scalarNode:
		b.WriteString(n.text)
	case listNode, setNode:
		open, close := byte('['), byte(']')
		if n.kind == setNode {
			open, close = '{', '}'
		}
		b.WriteByte(open)
		for i, el := range n.list {
			if i > 0 {
				b.WriteString(", ")
			}
			el.writeText(b)
		}
		b.WriteByte(close)
	case objectNode:
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(k)
			b.WriteString(": ")
			n.vals[i].writeText(b)
		}
		b.WriteByte('}')
	}
}

// varValue returns the value of variable v in the unpacked state.
func varValue(v *spec.Var, state []int64) node {
	return valueNode(v.Type, state[v.Slot:v.Slot+v.Type.Width])
}

// foldLimit is the length beyond which the text renderer folds a set or
// an array: it shows the elements that fit, an ellipsis and the count.
const foldLimit = 100

// folded prints n as people read it, like String, but a set, array or
// keyed array whose text is longer than limit shows only its first
// elements, then `…` and the number of elements: `{a, b, …} (12 elements)`.
// Records print whole (their fields fold one by one).
func (n node) folded(limit int) string {
	s := n.String()
	if len([]rune(s)) <= limit {
		return s
	}
	count := len(n.list)
	switch n.kind {
	case objectNode:
		count = len(n.keys)
		if !n.keyed {
			return n.foldedRecord(limit)
		}
	case scalarNode:
		return s
	}
	open, close := "[", "]"
	if n.kind != listNode {
		open, close = "{", "}"
	}
	var b strings.Builder
	b.WriteString(open)
	budget := limit - 20
	shown := 0
	for i := 0; i < count; i++ {
		var el string
		if n.kind == objectNode {
			el = n.keys[i] + ": " + n.vals[i].folded(limit/2)
		} else {
			el = n.list[i].folded(limit / 2)
		}
		if shown > 0 && b.Len()+len(el) > budget {
			break
		}
		if shown > 0 {
			b.WriteString(", ")
		}
		b.WriteString(el)
		shown++
	}
	if shown < count {
		b.WriteString(", …")
	}
	b.WriteString(close)
	word := "elements"
	if count == 1 {
		word = "element"
	}
	return b.String() + " (" + strconv.Itoa(count) + " " + word + ")"
}

// foldedRecord prints a record whose fields are folded one by one.
func (n node) foldedRecord(limit int) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range n.keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k + ": " + n.vals[i].folded(limit/2))
	}
	b.WriteByte('}')
	return b.String()
}

// ValueText prints the value of type t held in slots (unpacked, one
// int64 per scalar) as people read it, folded when long.
func ValueText(t *spec.Type, slots []int64) string {
	return valueNode(t, slots).folded(foldLimit)
}

// ValueJSON returns the value of type t held in slots encoded as the JSON
// output contract writes it (see [JSON]): booleans, integers, enum members
// and identities as strings, sets as sorted arrays, arrays as arrays
// (objects when indexed by an enum or identity), records as objects,
// sequences as arrays of their elements.
func ValueJSON(t *spec.Type, slots []int64) json.RawMessage {
	var b bytes.Buffer
	valueNode(t, slots).writeJSON(&b)
	return b.Bytes()
}

// StepParts returns what step i of trace did, in the compact one-line form
// of `diff` and `explain`: the agent answers taken ("asked verifier=pass"),
// then the user variables it changed ("x=1"; every variable at step 0).
// Past-time monitors are left out.
func StepParts(m *spec.Model, trace []verdict.Step, i int) []string {
	st := trace[i]
	var parts []string
	for _, a := range st.Asked {
		ag := m.Agents[a.Agent]
		parts = append(parts, "asked "+ag.Name+"="+ValueText(ag.Result, a.Value))
	}
	for _, v := range m.Vars {
		if v.Monitor != nil {
			continue
		}
		cur := st.State[v.Slot : v.Slot+v.Type.Width]
		if i > 0 && slices.Equal(cur, trace[i-1].State[v.Slot:v.Slot+v.Type.Width]) {
			continue
		}
		parts = append(parts, v.Name+"="+ValueText(v.Type, cur))
	}
	return parts
}
