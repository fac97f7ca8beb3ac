// Package ltl checks the LTL properties of a model: it converts a
// property to a formula in negation normal form ([FromProperty]),
// translates the negation to a Büchi automaton ([Translate]), builds the
// product of the model's transition system with that automaton on the fly,
// and searches it for an accepting, fair cycle ([Check]).
//
// # Formulas
//
// A [Formula] is built only through the constructors of this package,
// which keep it in negation normal form (negation on atoms only; X, U and
// R as the temporal operators; F a = true U a, G a = false R a,
// a W b = b R (a ∨ b), a ~> b = G(a → F b)) and apply the usual
// simplifications on the fly: constant folding, flattening, sorting and
// de-duplication of ∧ and ∨, p ∧ ¬p = false, X true = true, F F a = F a,
// G G a = G a, F G F a = G F a, G F G a = F G a, a U F b = F b,
// a R G b = G b, F(a U b) = F b, G(a R b) = G b, F X a = X F a,
// X a ∧ X b = X(a ∧ b), G a ∧ G b = G(a ∧ b), F a ∨ F b = F(a ∨ b).
// An atom is an index into the table of maximal non-temporal
// subexpressions of the property, each a state predicate; quantifiers
// around temporal formulas are expanded by substituting each value of
// their (finite) domain for the bound local.
//
// # Translation
//
// [Translate] implements the tableau construction for transition-based
// generalized Büchi automata (TGBA) of
//
//	J.-M. Couvreur, "On-the-fly verification of linear temporal logic",
//	FM'99, LNCS 1708, pp. 253-271, 1999,
//
// which refines the tableau of Gerth, Peled, Vardi and Wolper ("Simple
// on-the-fly automatic verification of linear temporal logic", PSTV 1995)
// by putting acceptance on transitions. A state is a set of formulas (a
// conjunction) that must hold from the current position. Its outgoing
// edges are the covers of the set: expanding a U b as b ∨ (a ∧ X(a U b))
// and a R b as (a ∧ b) ∨ (b ∧ X(a R b)), each cover is a conjunction of
// literals (the edge label), the set of X-obligations (the target state)
// and the untils it postponed. The cover set of a formula is memoized and
// the cover set of a conjunction is the product of its operands' cover
// sets, with duplicate and subsumed covers removed after every product
// (a cover with fewer literals, weaker obligations and fewer postponed
// untils makes another redundant). The obligations of every cover are
// kept without the formulas implied by another one of them, and one
// cover's obligations are weaker than another's when each is implied by
// one of the other's: without this, the covers of a chain such as
// ¬p0 R (¬p1 R (… R ¬pn)) differ only in implied obligations, and their
// number doubles with each level while the automaton has n+1 states. There is one acceptance set per until
// subformula a U b: an edge belongs to it unless it postponed a U b. A run
// is accepting when it takes edges of every acceptance set infinitely
// often, i.e. no until is postponed forever.
//
// The automaton is kept small by the optimisations used by LTL2BA
// (Gastin and Oddoux, "Fast LTL to Büchi automata translation", CAV 2001)
// and Spot: formula simplification before translation; removal of
// subsumed covers; removal from a state of the formulas syntactically
// implied by another one of the state (F p next to G(F p ∧ F q)), so that
// states differing only in implied obligations coincide; merging of edges with
// the same target and acceptance whose labels differ in one literal;
// removal of states from which no accepting cycle is reachable (SCCs
// computed with dominikbraun/graph); merging of bisimilar states
// (partition refinement on labels, acceptance and target classes); and
// removal of acceptance sets that are vacuous on every cycle, or equal to
// another set. The translation is tested against a direct lasso-word
// semantics oracle and against lbt (GPVW) on random formulas.
//
// # Limits
//
// At most [MaxAcc] (64) until subformulas per negated property; the
// atoms of a property are unlimited. The automaton can still be
// exponential in the formula (F p0 ∧ … ∧ F pn has 2^n states), and the
// expansion of quantifiers can be as large as the product of their
// domains: [Check] and [TranslateContext] check the context and the
// memory budget every few thousand steps of the conversion, the
// translation and its simplification, and a property stopped there ends
// the check with Verdict Unknown and the reason (Result.Stop:
// StopTimeout, StopInterrupted, StopMemory).
//
// # Reductions
//
// Which reduction a property's product gets is decided by reduce.Choose,
// the function that also decides those of the safety search; this
// package rewrites the formula (the first-identity check below), asks it
// for the hooks of the property's atoms, and applies them.
//
// With Options.Symmetry, a property is checked on the quotient of the
// system by a subgroup G of its symmetry group (package reduce): system
// states are stored in canonical form, product nodes are pairs (canonical
// state, automaton state). This is exact when every atom of the property
// and every fairness unit is invariant under G: a run of the system and
// its image under any element of G then have the same atom values, the
// same enabled and taken units, hence the same automaton runs and the
// same fairness, and every run of the quotient lifts to a run of the
// system (the group maps transitions to transitions). A symmetric type T
// is left out of G, with a note, when an atom names single identities of
// T (a quantifier over T under a temporal operator is expanded into
// atoms that do). A fairness declaration with one unit per instance of a
// family indexed by T is not invariant (a permutation exchanges its
// units); it is followed through the quotient instead: each edge records
// the permutation that canonicalised its target, instance i at the source
// continues as instance π(i) at the target, and the SCC analysis checks
// the fairness of each component of these threads (see threadFairness).
// A lasso found that way is rebuilt from the product without symmetry.
//
// A property `forall x in T: φ(x)` (the quantifier outermost, after
// rewriting `always (forall x in T: φ)` to `forall x in T: always φ`) over
// a symmetric T is checked as φ(t₁) for the first identity t₁ alone when
// the initial states are closed under permuting T: if a fair run violates
// φ(t), the permutation exchanging t and t₁ maps it to a fair run (the
// fairness declarations as a whole are symmetric) that violates φ(t₁).
// The atoms of φ(t₁) name t₁, so G keeps t₁ in place (its stabiliser,
// reduce.Group.Fixed). A note says so when such a property is violated.
//
// The counterexample of a quotient is made concrete: from a real initial
// state, each step takes the first successor whose canonical form is the
// next canonical state; a pass over the cycle ends in the orbit of the
// state it started from, and passes repeat until one ends in a concrete
// state where an earlier one ended, which closes a real cycle.
//
// With Options.POR, a property without next in a model without fairness
// declarations is checked on a system reduced by ample sets (reduce.POR)
// whose visible slots are those the property's atoms read. The cycle
// proviso is applied in the product: a node with an edge to a node no
// deeper than itself takes every enabled action, so every cycle of the
// explored product has a fully expanded node. With next the property is
// not stutter invariant and POR is off, with a note; with fairness it is
// off too (an ample set may postpone an action the fairness of the full
// system would force; the differential tests find such false lassos when
// it is turned on).
//
// # Product and cycle search
//
// [Check] explores, breadth-first and on the fly, the product of the
// model's transition system (explored with the machine of package machine)
// and the automaton of ¬φ: a product node is a pair (system state,
// automaton state); an edge pairs a system transition s → t with an
// automaton edge whose label holds in s. A state without any enabled
// action has a self-loop (the run stutters there forever, as the paths of
// the language are maximal). A property is violated when the product has
// a reachable fair accepting cycle.
//
// Accepting cycles are searched SCC by SCC (iterative Tarjan) with the
// Emerson–Lei style refinement for generalized Büchi acceptance and
// fairness: an SCC qualifies when its internal edges cover every
// acceptance set; when, for each weakly fair unit, the unit is disabled
// in some node of the SCC or taken by an internal edge; and when, for
// each strongly fair unit, the unit is either taken inside the SCC or
// never enabled in it. An SCC that fails only the strong condition is
// refined: the nodes where an untaken strong unit is enabled are removed
// and the SCCs of the rest are examined again. Fairness is thus handled
// in the cycle analysis, not by enlarging the formula.
//
// A cycle of the product runs through the automaton states of one
// component of the automaton, taking only edges inside it, so a node
// whose automaton state lies in a component without an inner edge of
// every acceptance set (Automaton.CycleSCCs: the start state of a
// response property's negation, with its self-loop that accepts
// nothing) is on no accepting cycle: the filter below and the cycle
// search leave such nodes out, and the search takes no edge between two
// components. The fair SCCs they find are the same.
//
// When no weakly fair unit is in play, the OWCTY filter (Černá and
// Pelánek) runs first: rounds of reachability from the edges of every
// acceptance set and elimination of the nodes without a predecessor left
// remove only nodes that lie on no accepting cycle. An empty remainder
// means the property holds without any SCC analysis; a non-empty one is
// analysed as above, on the remainder only, which gives the same fair
// SCCs and so the same lasso. An elimination takes only the targets of
// the edges and removes the nodes in the order of a scan of the ids (a
// node behind the scan at once, from a work list), in the direction
// most edges go, so that it reads the product's arrays mostly in order;
// each round touches each node and edge of the set a bounded number of
// times, and the rounds stop once one removes less than a quarter of
// the set. The time per node still grows with the product (CoffeeCan:
// ×1.36 from 10^4 to 10^7 nodes), as much as the safety search's per
// state does on the same model: the store's and the arrays' cache and
// TLB misses (docs/impl.md, "Liveness memory").
//
// The product is built on the fly: the successors of a system state are
// computed (once, and shared by the products of all properties) only when
// some product node with that state has an automaton edge whose label
// holds there. The explored product keeps its nodes (ids in BFS order,
// and where each level starts), not their parents nor their edges: a
// node's parent is the first node of the level before with an edge to
// it, found again when a trace needs it, and the edges of a node are
// enumerated again from its state's successor list and the automaton, in
// the order the expansion found them. System states live in a
// machine.Store; their successor lists are kept, coded (each target as
// its difference from the one before, a varint: one or two bytes for
// most), or, under a memory budget (Options.MemoryBudget), computed again
// from the machine when asked for.
//
// A fair accepting cycle among the nodes expanded so far is one of the
// whole product, so the SCC search runs at checkpoints (after 4096
// expanded nodes, then each time the expanded part has grown fourfold,
// and at the end): a violation is usually found after a small part of
// the product, and the total work stays linear. Without the OWCTY filter
// (products with weakly fair units), a checkpoint's depth-first search
// starts from the nodes expanded since the last one: an SCC that none of
// them reaches was an SCC, with the same edges, at the last checkpoint,
// and was found unfair there. The search sums each SCC's edges
// (acceptance sets, units taken) as it goes, so a component's analysis
// does not read them again. The atoms of a state are evaluated once, or
// taken from a table indexed by the packed bits of the slots they read
// (machine.PredKey) when few such keys cover many states.
//
// The counterexample is a lasso: the BFS-shortest path from an initial
// node to the nearest node of a fair accepting SCC found at the first
// successful checkpoint, then a cycle inside
// that SCC built from BFS-shortest segments that collect the edges and
// nodes the acceptance and fairness conditions need, and back. The search
// is sequential and visits everything in a fixed order, so the result
// does not depend on the number of workers.
package ltl
