package verdict

// CanonFunc rewrites an unpacked state (one int64 per slot of
// spec.Model.Slots, in the value encoding of the IR) in place into the
// canonical representative of its orbit. It is called concurrently from
// every worker and must be safe for concurrent use; it must not retain
// slots. Calling it on a canonical state must leave the state unchanged.
type CanonFunc func(slots []int64)

// AmpleFunc chooses the actions to expand in a state. slots is the
// unpacked (canonical) state and enabled the indexes (into
// spec.Model.Actions, ascending) of the actions whose guard holds. It
// returns a subset of enabled, ascending; it may reuse enabled's backing
// array but must not retain either slice. It is called concurrently from
// every worker and must be safe for concurrent use.
//
// The checker enforces the BFS cycle proviso itself: when the returned
// subset is proper and one of its successors was stored before the
// current level (a state no deeper than the expanded one, which every
// cycle has), or it yields no successor at all, the remaining enabled
// actions are expanded too. This does not depend on the worker count.
type AmpleFunc func(slots []int64, enabled []int) []int
