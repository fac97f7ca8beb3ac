package verdict

import (
	"runtime/metrics"
	"time"

	"github.com/wrapcheck/wrapcheck/internal/vmem"
)

// Progress is a snapshot of a running search.
type Progress struct {
	States      int64
	Transitions int64
	Depth       int // the BFS level being expanded
	Frontier    int // states in that level
	Elapsed     time.Duration
	HeapBytes   uint64
	// Property is the LTL property being checked (package ltl), "" in the
	// safety search. For a property, States and Transitions count the
	// product's nodes and edges, Depth is the deepest node so far and
	// Frontier the nodes not yet expanded.
	Property string `json:",omitempty"`
}

const heapMetric = "/memory/classes/heap/objects:bytes"

// HeapBytes returns the bytes of the Go heap's objects (live or not yet
// collected) and of the arrays kept outside it in reserved address
// space (internal/vmem: the liveness product's node arrays), the
// measure the memory budget is checked against. It does not stop the
// world.
func HeapBytes() uint64 {
	s := []metrics.Sample{{Name: heapMetric}}
	metrics.Read(s)
	var b uint64
	if s[0].Value.Kind() == metrics.KindUint64 {
		b = s[0].Value.Uint64()
	}
	return b + uint64(vmem.InUse())
}
