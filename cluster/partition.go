package cluster

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
)

// Partition is the owner function of a run: which worker keeps each
// state. A nil *Partition partitions by the whole state (the top 12 bits
// of its [machine.Hash], a shard of 4096, modulo N); one made by
// [ParsePartition] or [PartitionOf] by the values of some of its slots
// only (a hash of those values modulo N), so that a successor whose
// action writes none of them stays on the worker that expanded its
// parent. Either way a state has one owner, which is all the search's
// deduplication needs (see the package documentation, "Partitions").
// A Partition is immutable and safe for concurrent use.
type Partition struct {
	slots []int    // ascending
	names []string // their paths
	words []int    // the words of a packed state that hold the slots' bits
	masks []uint64 // the slots' bits in each of those words
}

// PartitionOf returns the partition of prog's states by the values of
// slots (indexes of prog.Model.Slots, in any order, repeats allowed).
func PartitionOf(prog *machine.Program, slots []int) (*Partition, error) {
	p := &Partition{slots: slices.Compact(slices.Sorted(slices.Values(slots)))}
	masks := map[int]uint64{}
	paths := SlotPaths(prog.Model)
	for _, sl := range p.slots {
		if sl < 0 || sl >= prog.Slots() || sl >= len(paths) {
			return nil, fmt.Errorf("partition: slot %d out of range (the state has %d)", sl, prog.Slots())
		}
		p.names = append(p.names, paths[sl])
		wd, mask := prog.SlotBits(sl)
		if mask == 0 {
			continue // one value: no bits, no say in the owner
		}
		if _, ok := masks[wd]; !ok {
			p.words = append(p.words, wd)
		}
		masks[wd] |= mask
	}
	slices.Sort(p.words)
	for _, wd := range p.words {
		p.masks = append(p.masks, masks[wd])
	}
	return p, nil
}

// ParsePartition resolves the names of --partition against prog's
// state: each name is a variable or a part of one as a trace prints it
// (`x`, `P.x`, `P[v].x`, an array element `a[2]`, a record field `r.f`,
// or any prefix of those that ends before a `[` or a `.`), and selects
// every slot it covers. A name that covers no slot is an error that
// lists the variables. No names: nil, the whole state.
func ParsePartition(prog *machine.Program, names []string) (*Partition, error) {
	if len(names) == 0 {
		return nil, nil
	}
	paths := SlotPaths(prog.Model)
	var slots []int
	for _, raw := range names {
		name := strings.TrimSpace(raw)
		found := false
		for sl, path := range paths {
			if path == name || strings.HasPrefix(path, name) && (path[len(name)] == '[' || path[len(name)] == '.') {
				slots = append(slots, sl)
				found = true
			}
		}
		if !found {
			var vars []string
			for _, v := range prog.Model.Vars {
				if v.Monitor == nil {
					vars = append(vars, v.Name)
				}
			}
			if len(vars) > 12 {
				vars = append(vars[:12], "...")
			}
			return nil, fmt.Errorf("--partition %q: no state variable or element of that name (the state's variables: %s)", name, strings.Join(vars, ", "))
		}
	}
	return PartitionOf(prog, slots)
}

// SlotPaths returns the name of each slot of m's state as a trace prints
// it: the variable's name, then `[index]` for an array element and
// `.field` for a record field.
func SlotPaths(m *spec.Model) []string {
	paths := make([]string, 0, len(m.Slots))
	var walk func(path string, t *spec.Type)
	walk = func(path string, t *spec.Type) {
		switch t.Kind {
		case spec.ArrayKind:
			for i := range t.Index.Size() {
				walk(path+"["+valueName(t.Index, t.Index.Lo+i)+"]", t.Elem)
			}
			return
		case spec.RecordKind:
			for _, f := range t.Fields {
				walk(path+"."+f.Name, f.Type)
			}
			return
		}
		paths = append(paths, path)
	}
	for _, v := range m.Vars {
		walk(v.Name, v.Type)
	}
	return paths
}

// valueName is a scalar index value as a trace prints it.
func valueName(t *spec.Type, v int64) string {
	switch t.Kind {
	case spec.BoolKind:
		return strconv.FormatBool(v != 0)
	case spec.EnumKind, spec.SymmetricKind:
		if i := v - t.Lo; i >= 0 && i < int64(len(t.Names)) {
			return t.Names[i]
		}
	}
	return strconv.FormatInt(v, 10)
}

// Slots returns the slots whose values decide the owner, ascending (nil
// for the whole state).
func (p *Partition) Slots() []int {
	if p == nil {
		return nil
	}
	return slices.Clone(p.slots)
}

// String is the partition as the run's manifest records it and messages
// name it: "" for the whole state, else its slots' names ([SlotPaths]),
// in slot order, separated by commas; past maxPartitionName bytes, the
// number of slots, the first one's name and a SHA-256 of them all, so
// that run.json stays small.
func (p *Partition) String() string {
	if p == nil {
		return ""
	}
	all := strings.Join(p.names, ",")
	if len(all) <= maxPartitionName {
		return all
	}
	sum := sha256.Sum256([]byte(all))
	return fmt.Sprintf("%d slots: %s, ... (sha256 %x)", len(p.names), p.names[0], sum[:12])
}

// maxPartitionName bounds the partition's names in the manifest.
const maxPartitionName = 1024

// owner returns the worker of n that owns the packed state vec (p not
// nil; the worker hashes the whole state itself).
func (p *Partition) owner(vec []uint64, n int) int {
	// The partition's bits, word by word, through a multiply-xorshift
	// mix: a function of those bits alone.
	x := uint64(len(p.words))
	for i, wd := range p.words {
		x = (x ^ vec[wd]&p.masks[i]) * 0x9e3779b97f4a7c15
		x ^= x >> 29
	}
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 32
	return int(x>>52) % n
}
