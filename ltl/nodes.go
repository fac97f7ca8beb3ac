package ltl

import "github.com/wrapcheck/wrapcheck/machine"

// nodeTable maps product node keys to node ids: open addressing with
// linear probing over a power-of-two table, grown at 3/4 load. The zero
// value is an empty table. Not safe for concurrent use.
type nodeTable struct {
	keys []uint64 // key+1; 0 marks an empty slot
	ids  []uint32
	n    int
}

// find returns the id of key, which is present.
func (t *nodeTable) find(key uint64) uint32 {
	mask := uint64(len(t.keys) - 1)
	for i := machine.Mix(key) & mask; ; i = (i + 1) & mask {
		switch t.keys[i] {
		case key + 1:
			return t.ids[i]
		case 0:
			panic("wrapcheck internal error: ltl: the target of a product edge is not a node")
		}
	}
}

// insert returns the id of key, adding it with id next when absent.
func (t *nodeTable) insert(key uint64, next uint32) (uint32, bool) {
	if 4*(t.n+1) > 3*len(t.keys) {
		t.grow()
	}
	mask := uint64(len(t.keys) - 1)
	for i := machine.Mix(key) & mask; ; i = (i + 1) & mask {
		switch t.keys[i] {
		case 0:
			t.keys[i], t.ids[i] = key+1, next
			t.n++
			return next, true
		case key + 1:
			return t.ids[i], false
		}
	}
}

func (t *nodeTable) grow() {
	old, oldIDs := t.keys, t.ids
	size := max(2*len(old), 1024)
	t.keys, t.ids = make([]uint64, size), make([]uint32, size)
	mask := uint64(size - 1)
	for j, k := range old {
		if k == 0 {
			continue
		}
		i := machine.Mix(k-1) & mask
		for t.keys[i] != 0 {
			i = (i + 1) & mask
		}
		t.keys[i], t.ids[i] = k, oldIDs[j]
	}
}
