// Package reduce implements the state-space reductions of wrapcheck as
// hooks of package checker: symmetry reduction ([Symmetry], a
// verdict.CanonFunc) and partial-order reduction ([POR], a
// verdict.AmpleFunc). Both are computed once from the *spec.Model; the
// hooks allocate nothing per state and are safe for concurrent use.
//
// # Symmetry
//
// A `symmetric N` type may only be compared with == and !=, stored, used
// as an array index, quantified and chosen over, and used as a family
// index (checked by package spec). So every permutation π of its
// identities, applied to a whole state, is an automorphism of the
// transition system [Ip and Dill 1996, "Better verification through
// symmetry"; Emerson and Sistla 1996, "Symmetry and model checking"]. π
// acts on a state as follows: a slot holding an identity v holds π(v); a
// set of identities has its bits permuted; an array indexed by the type
// (at any depth, also inside records and arrays) moves element i to π(i);
// the locals of family instance i move to instance π(i). With several
// symmetric types the group is the product of their symmetric groups.
// Checking invariants on one state per orbit is then exact, provided the
// invariants are symmetric, which the language guarantees (no identity
// literals). The initial states need not be symmetric (the zero value of
// a symmetric type is its first identity): the reachable orbits are the
// orbits of the reachable states either way.
//
// The canonical representative must be unique per orbit, or the state
// counts would depend on the search order. Computing the lexicographic
// minimum over the whole group costs N! per state (Rumur's "exhaustive"
// strategy; TLC's SYMMETRY). Instead, canonicalisation
//
//  1. computes a signature per identity: a commutative sum of hashed
//     contributions of the slots indexed by the identity (family locals,
//     array elements) and of the slots holding it, each made of the slot's
//     class (its variable and non-symmetric indexes, which a permutation
//     preserves) and a permutation-invariant abstraction of the value
//     (an identity of the same type: "equals this one" or not; of another
//     symmetric type: a constant; a set of identities: its cardinality and
//     whether it holds this one). Hence sig(π(s), π(i)) = sig(s, i);
//  2. sorts the identities of each type by signature;
//  3. returns the lexicographically smallest π(s) over the permutations π
//     that map the identities in signature order to 0, 1, 2, ... (only the
//     order within runs of equal signatures is free).
//
// This is exact: if P(s) is that set of permutations, P(σ(s)) = P(s)·σ⁻¹
// for every σ in the group, so {π(s) : π ∈ P(s)} is the same set for all
// states of an orbit and so is its minimum. Hash collisions only enlarge
// the ties, never break exactness. Two tied identities whose exchange
// leaves s unchanged ("twins", e.g. two runs in the same local state) need
// not be tried in both orders: if τ fixes s then πτ(s) = π(s). So only
// the distinct arrangements of the twin classes of each tie are
// enumerated, and in the common case (every tie made of twins) there is
// one candidate, applied in one pass. When a tie between identities that
// are not twins is left (e.g. identities stored in an array indexed by
// their own type), the signatures are first refined (up to two rounds of
// colour refinement: a slot of identity i holding identity v adds v's
// signature to i's and back, which keeps them invariant); the remaining
// ties are enumerated, with early exit on the first larger slot.
//
// Each call takes its buffers from a sync.Pool, so nothing is allocated
// per state (a garbage collection may empty the pool; the buffers are then
// made again once per P).
//
// The slot action of a permutation is precomputed: each slot knows its
// symmetric coordinates (type, index value, distance in slots to the next
// index value), so π(s) is computed slot by slot with no table per
// permutation. The test suite checks, on the reachable states of every
// small example, fixture and random spec with symmetric types (closed
// under the group), that the canonical form is constant on orbits and lies
// in the orbit, and that the reduced search stores exactly the brute-force
// number of orbits.
//
// # Partial-order reduction
//
// [POR] returns ample sets in the sense of Peled ["All from one, one for
// all: on model checking using representatives", CAV 1993] and Godefroid
// ["Partial-Order Methods for the Verification of Concurrent Systems",
// LNCS 1032, 1996], computed from the static read and write sets of the
// actions (spec.Action.Reads and Writes, and the slots read by the guard).
// In a state, the candidates are the enabled actions of one process
// instance; the first candidate in process order that is a proper subset
// of the enabled actions and satisfies C1 and C2 is returned:
//
//   - C0: the ample set is empty only if no action is enabled (a candidate
//     is never empty).
//   - C1 (persistence): no action outside the ample set can interfere with
//     it along any path: every enabled action of the instance is
//     independent of every action of every other instance (no write of one
//     meets a read or write of the other), and no other instance writes a
//     slot read by the guard of a disabled action of the instance, so the
//     instance's other actions stay disabled while only others move.
//   - C2 (invisibility): no action of the candidate writes a visible slot
//     (read by a checked invariant, or by an LTL atom: [Visible],
//     [ExprSlots]).
//   - C3 (cycle proviso): applied by the checker, in the BFS form of
//     Bošnački, Leue and Lafuente ["Partial-order reduction for general
//     state exploring algorithms", SPIN 2006]: the state is fully expanded
//     when an ample successor is already stored, or there is none. (The
//     narrower condition "an ample successor is stored in a level no deeper
//     than the state's" is also sound: a cycle cannot go one level deeper
//     at every edge, so each cycle has an edge whose source is then fully
//     expanded. It does not depend on which worker stored a state first,
//     and it is what gives the SPIN figure below.)
//
// C0 and C1 alone preserve every reachable deadlock state [Godefroid 1996,
// Thm 6.14], so deadlock detection stays sound and the terminal
// predicate, which only classifies states without a successor, need not
// be visible. With C2 and C3 every reachable violation of a checked
// invariant is found. A failing action (assertion, runtime error) depends
// only on the slots it reads; deferring it past independent actions does
// not change whether it fails, and C3 ensures it is eventually expanded.
// On the peers' pipeline_procs model (testdata/pipeline_procs.wrap, K=6
// runs of one step, 11,390,625 states) the narrower proviso stores 524,287
// states, SPIN's figure with partial-order reduction.
//
// A counterexample found with ample sets is a real path of the system
// (tests replay every one on the unreduced transition relation) but not
// necessarily a shortest one; the checker's search makes it one (see
// checker.Options.Ample).
//
// With both reductions, ample sets are chosen on canonical states. The
// static independence relation and the visible slots are invariant under
// the symmetry group (identity literals do not exist, so an action of
// instance i reads and writes the images of what instance π⁻¹(i) does),
// so choosing on the representative is a consistent choice for its whole
// orbit, and the proviso on the quotient graph covers every cycle of the
// reduced graph [Emerson, Jha and Peled, "Combining partial order and
// symmetry reductions", TACAS 1997].
//
// # Choosing the reductions
//
// [Choose] is the one place that decides which reductions a search gets,
// from the model, the checks of the search and the user's [Switches]: the
// whole group and the invariants' visible slots for the safety search;
// for the product of an LTL property, the subgroup that its atoms and the
// fairness declarations survive and the slots its atoms read, with the
// notes that say where a reduction is off. Package verify asks it for the
// safety search and package ltl for each property.
//
// # Subgroups, for liveness
//
// [SymmetryOf] and [NewCanon] canonicalise for a subgroup ([Group]):
// symmetric types left out, and types whose first identity stays in
// place (it gets a signature below every other, so the signature sort
// never moves it; the argument above holds for the stabiliser unchanged).
// [Canon.Perm] also reports the permutation applied, and [Canon.Swap]
// applies one transposition. Package ltl uses them to check a property
// on the quotient by the permutations that leave its atoms alone, and to
// follow per-instance fairness through the quotient (see its package
// documentation, "Reductions").
package reduce
