// Package quant computes probabilities over the state space of a spec
// whose agents have answer rates (issue 36; docs/language.md,
// "Probabilities"): the probability of reaching a condition, of reaching
// it within k steps, of `a until b`, each as its minimum and maximum over
// the resolutions of the nondeterminism, exactly, as rationals.
//
// # The model
//
// [Build] explores the reachable states through the machine, with the
// same compiler and the same successor order as every other engine
// (machine.Program, Machine.Init and Machine.Successors), and records,
// for every branch of every action, the decisions taken on it
// ([machine.Branch]: each agent answer with the arguments it was asked
// with, each choose value). The branches of one action (or of init) form
// a tree: a node where a rated agent answers (a [spec.Rate] whose `when`
// holds for the arguments) is a probabilistic node, weighted by the rate;
// every other decision (an unrated answer, a choose) is the scheduler's.
// The tree is flattened into the distributions among which the scheduler
// picks: a nondeterministic node contributes the choices of all its
// children; a probabilistic node the weighted combinations of one choice
// per child, so that the scheduler sees the rated answers taken before
// its decisions within the step (gambler_adaptive.wrap in bench/prism
// shows the difference). The choice of the action is the scheduler's too,
// which makes the interleaving of processes nondeterministic. The result
// is a Markov decision process ([MDP]) whose steps are the actions of the
// spec: one action, one step, whatever its branching. A state with no
// enabled action (terminal or a deadlock) gets a self-loop of probability
// 1, so a run that stops stays in its last state forever. Several
// initial distributions (a nondeterministic init) are the scheduler's
// first choice.
//
// A rated answer whose branch cannot be taken (excluded by the agent's
// assume, or failing) with positive probability, two rates applying to
// the same arguments, a runtime error anywhere in the state space: each
// stops Build with an error rather than a probability that would mean
// something else. Invariants, assertions and deadlocks are not checked
// here (wrapcheck check does that).
//
// # Counts: an interval MDP
//
// A rate given as counts `k of n` is a measurement. Build gives each of
// its probabilities the Clopper-Pearson interval of its count
// ([ClopperPearson], at Options.Confidence), rounded outwards to
// multiples of 2^-[ConfidenceBits], and carries the intervals through the
// products and sums of the flattening ([Trans].Lo and Hi: the products of
// the ends, which contain every product of values within them). The
// result is an interval MDP. [Check] solves every query twice: on
// [MDP.Point], the probabilities at the point estimates k/n, and on
// [MDP.Vertices], the MDP whose choices are the vertices of each choice's
// polytope of distributions. A vertex is the greedy filling of the
// successors in some order (each its lower end, then, in order, up to its
// upper end, until the sum is 1), and the optimum of the expectation of a
// value vector over the polytope is at the vertex of the successors
// ordered by value (Haddad and Monmege, TCS 2018; Givan, Leach and Dean,
// AIJ 2000), so optimising over the vertices is optimising over the
// polytope. There the scheduler picks the vertex too: min is the least
// probability over the schedulers and the rates, max the greatest; the
// precomputation, policy iteration and interval iteration apply unchanged.
// Nature may pick another vertex at each step, so the range contains the
// value of every fixed choice of rates in the box (and may be wider).
//
// # What is computed, and how exactly
//
// For `left until target` (`eventually target` is `true until target`),
// with S the states: a state in target has probability 1, a state in
// neither left nor target 0. [Reach] first runs the qualitative
// precomputation, graph algorithms over the support of the
// distributions (Baier and Katoen, Principles of Model Checking, 2008,
// 10.6.1): Prob0E (Pmax = 0: target unreachable through left-states),
// Prob1E (Pmax = 1: the greatest set from which target can be reached
// within it by choices that stay in it), Prob0A (Pmin = 0: some scheduler
// avoids target forever) and Prob1A (Pmin = 1: no scheduler reaches, with
// positive probability, a state of Prob0A). The states left have a
// probability strictly between 0 and 1, and are solved by policy
// iteration, each policy's linear system by Gauss-Jordan elimination over
// math/big.Rat: no floating point, no convergence threshold, no rounding.
//
// Policy iteration is sound here because of the precomputation. For min,
// every memoryless policy on the states left reaches target or a Prob0A
// state with probability 1 (a closed class avoiding target would make
// Pmin = 0 there), so each system has one solution, and the fixed point
// reached is the unique one of the Bellman equation on those states. For
// max, the first policy moves one step closer to target (a breadth-first
// search backwards from the states of value 1), so it reaches target with
// positive probability from every state left; a switch is made only when
// strictly better, and no strict improvement can create a closed class
// (the values are subharmonic on a closed class, hence constant, leaving
// no strict improvement in it), so every policy's system has one
// solution; the final values are a fixed point of the Bellman equation
// no smaller than the least fixed point, Pmax, and are attained by a
// policy, so they are Pmax.
//
// Expected costs until a condition ([ExpectCost]) follow PRISM's
// semantics for R=? [ F c ], infinity where c is missed with positive
// probability, and are solved exactly by policy iteration after the same
// precomputation (cost.go says why that is sound with zero-cost cycles),
// and past exact mode by interval iteration ("Expected costs past exact
// mode", below).
//
// Bounded queries (`within k`) apply the Bellman operator k times from
// the indicator of target, exactly, stopping early at a fixed point.
//
// A query's value is the best (max) or worst (min) initial distribution
// under the values of the states.
//
// Exact mode solves at most Options.MaxExact states (2000) after the
// precomputation, by sparse elimination without pivoting (each policy's
// I - A is a nonsingular M-matrix): on one machine, 201 states of a
// gambler's chain took 0.03 s, 1001 took 0.67 s, the 1681 of two
// interleaved gamblers 0.3 s. Past the limit, or with Options.Interval,
// [Check] uses interval iteration ([ReachInterval]): sound lower and
// upper bounds in float64, each state update widened outwards, solved one
// strongly connected component of the undecided states at a time, bottom
// up (so an acyclic model takes one update per state), until they are
// Options.Epsilon apart (or after Options.MaxIter sweeps of a component,
// still sound). They meet for min (no end component is left undecided);
// for max the upper bound is iterated on the quotient by the maximal end
// components of the undecided states (mec.go), where they meet too.
// Plain value iteration with a convergence threshold is never used.
//
// # Interval iteration in floating point
//
// A state update computes, for each choice, the sum s = p_1 x_1 + ... +
// p_n x_n of the products of the choice's probabilities (rounded down to
// float64 for the lower bound, up for the upper: each rounded value is
// on the safe side of the exact one) with the current bounds of the
// successors, all in [0, 1], in round-to-nearest float64 arithmetic
// (unit roundoff u = 2^-53), left to right. For such an inner product the
// computed ŝ satisfies |ŝ - s| <= γ_n Σ |p_i x_i| with γ_n = n u/(1 - n u)
// (Higham, Accuracy and Stability of Numerical Algorithms, 2002, 3.1;
// it holds with or without fused multiply-adds), as long as no product
// underflows. The terms are non-negative, so Σ |p_i x_i| = s, hence
// s >= ŝ/(1 + γ_n) >= ŝ (1 - γ_n) and s <= ŝ/(1 - γ_n) <= ŝ (1 + 2γ_n)
// (γ_n <= 1/2). The update widens
// ŝ once, by δ = (n + 3) 2^-52 = (2n + 6) u, n the most successors of a
// choice of the state: the lower bound is fl(ŝ (1 - δ)), the upper
// fl(ŝ (1 + δ)), each of the two factors exact in float64 and the one
// product rounded to nearest, a relative error of u at most. The lower
// bound is at most ŝ (1 - δ)(1 + u) <= ŝ (1 - δ + u) <= ŝ (1 - γ_n) <= s,
// since δ - u = (2n + 5) u >= γ_n; the upper at least ŝ (1 + δ)(1 - u)
// >= ŝ (1 + δ - 2u) >= ŝ (1 + 2γ_n) >= s, since δ - 2u = (2n + 4) u >=
// 2γ_n (γ_n <= n u (1 + 2 n u) <= (n + 1) u for n <= 2^26; a choice with
// more successors is widened by δ = n 2^-50 = 8 n u instead, and 8 n u -
// 2u >= 4 n u >= 2γ_n). The minimum or maximum over the choices is taken before
// the widening, which is monotone, so it encloses the exact minimum or
// maximum too. Underflow: a product below float64's normal range errs by
// at most 2^-1075 in absolute terms, and a sum of non-negative terms
// that ends below it is exact; so a computed sum under 2^-900 is not
// trusted: its lower bound is 0 and its upper bound 2^-899 (more than
// n 2^-1075 above any such sum, for any n below 2^100). Together with the
// monotonicity of the Bellman operator (each update applies it to sound
// bounds, and a state keeps the better of its old and new bound), every
// bound at every point of the iteration encloses the exact value.
// TestIntervalEnclosesExact checks this against exact values, with
// values below float64's range, and fails if the widening or the
// underflow rule is dropped.
//
// # Certified bounds
//
// Value iteration on a random walk of length L contracts by about 1 -
// c/L^2 a sweep (the consensus coin: docs/design/quantitative.md), so a
// component whose bounds are still wider than Options.Epsilon after 100
// sweeps is handed to a faster method whose results are checked before
// they are used (certify.go). Policy iteration in float64, each
// policy's linear system (I - A) x = b solved by Gaussian elimination in
// the band of the reverse Cuthill-McKee order of the component (a random
// walk is near banded) with one step of iterative refinement, guesses
// the values of the component, the bounds of the states outside it (all
// solved before it) standing for their values: the upper ones for an
// upper bound, the lower ones for a lower bound. Nothing it computes is
// trusted. A guess u is an upper bound when one Bellman step from it,
// computed with the probabilities rounded up and widened outwards exactly
// as a sweep of interval iteration is (above), stays below it: B(u) <=
// u. The Bellman operator B is monotone on [0, 1]^C, and the values are
// its least fixed point (given the values outside, which the upper
// bounds there only raise), so by Knaster and Tarski (Park's induction)
// every u with B(u) <= u is at least the values. A lower bound l needs l
// <= B(l) rounded downwards, which bounds the greatest fixed point from
// below; that is the value when the fixed point is unique. For min it
// is: after Prob0A no end component is left among the undecided states
// (one would give its states Pmin = 0), so every scheduler leaves them
// with probability 1 and B is a contraction in a weighted norm
// (Bertsekas and Tsitsiklis, stochastic shortest paths, 1991). For max it
// is not (an end component has a fixed point per value on it), so the
// lower bound is taken over one policy sigma's choices alone: l <=
// B_sigma(l), and a graph search checks that sigma leaves the component
// with probability 1 from every state, so that B_sigma, affine with a
// matrix of spectral radius below 1, has one fixed point, sigma's value,
// at most Pmax. For min the upper bound is one policy's too: B_sigma(u)
// <= u bounds sigma's value, at least Pmin, from above (Park again, no
// uniqueness needed); for max the upper bound is over all choices, and
// is tried only when no end component is in the component (else
// interval iteration's quotient gives it, as before).
//
// An exact fixed point fails the check by the rounding, so the guesses
// are those of the problem perturbed by a reward of e a step: for an
// upper bound, u = x + e y where y is the expected number of steps to
// leave the component, which satisfies B(u) = u - e, leaving e of slack
// for the widening (about (n + 3) 2^-52) and the solver's residual; for
// a lower bound -e. For the bound over all choices the policy is the
// optimal one of the perturbed problem among the choices within 2^-40 of
// optimal for the unperturbed one (policy iteration maximises or
// minimises the value plus or minus e a step), which is finite since no
// scheduler stays in the component forever; the margin is what settles
// ties between choices. A guess that fails is dropped, and the next try
// perturbs 4 times more (from 2^-49, six tries); a bound that passes
// replaces the current one where it is better. The cost is e y wide:
// about 10^-7 on the consensus coin at K = 1600, whose walks take about
// 10^7 steps; where y passes 10^16 or so (Haddad-Monmege walks of 40
// steps each way), float64 cannot solve the systems and interval
// iteration keeps the component. Then interval iteration goes on from
// the certified bounds, sound whatever they are, until they are
// Options.Epsilon apart, or a sweep changes nothing, or 200 sweeps of the
// component in all when both bounds passed: they may then stay wider
// than Options.Epsilon, by the certificate's e y. TestCertify checks the certified bounds
// against exact values of random MDPs, Markov chains and Haddad-Monmege
// walks, and that wrong guesses are rejected.
//
// # Expected costs past exact mode
//
// [ExpectCostInterval] bounds the expected costs of the finite states
// (those the precomputation of [ExpectCost] leaves finite, outside the
// target), with the costs rounded down for the lower bounds and up for
// the upper ones and each update widened as a sweep of reachability is,
// the cost one more non-negative term of the sum (so the same argument
// holds; the values are not bounded by 1, so no clamp, and a sum that
// overflows to +Inf gives no lower bound). The states solved are a
// quotient. For max, every choice of a state of Pmin = 1 stays among
// such states and every scheduler reaches the target with probability 1
// (every policy is proper), so no end component is left and nothing is
// collapsed. For min, only the choices that stay among the states of
// Pmax = 1 are kept, and each maximal end component of the choices of
// zero cost is collapsed into one state whose choices are those of its
// states that leave it or cost something (costQuotient says why the
// values are the same); after that, every end component has a choice of
// positive cost, so a policy that stays in one forever costs infinity.
//
// v*, the values, is a fixed point of the Bellman operator B over the
// choices kept (the minimum or maximum over them of c + P v), and the
// bounds rest on these facts about a vector x of finite non-negative
// numbers. Lower bounds: for max, x <= B(x) gives x <= B_sigma(x) for
// the choices sigma attaining the maximum, a proper policy, whose
// B_sigma is affine with a matrix of spectral radius below 1, so x <=
// B_sigma^k(x), which tends to sigma's value, at most v*; for min, x <=
// B(x) <= B_tau(x) for a proper policy tau attaining v* (one exists:
// [ExpectCost]), so x <= tau's value = v*. Lower bounds from value
// iteration from 0 are below the least fixed point of B, itself at most
// v*. Upper bounds: for max, B(x) <= x gives x >= B_sigma(x) for every
// policy, so x >= every policy's value, and v* is attained by one; for
// min, B_sigma(x) <= x for a policy sigma that a graph search finds
// proper gives x >= sigma's value >= v* (the least fixed point of
// B_sigma on [0, +Inf] is sigma's expected total cost, Park's induction
// again). So the certificate of "Certified bounds" applies with the
// choices each side needs (min: lower over all kept choices, upper over
// one proper policy; max: lower over one proper policy, upper over all),
// and the sweeps are sound from any sound start: the lower bounds from 0,
// the upper ones from +Inf, which no sweep lowers on a cycle; so each
// component with a cycle is certified before its sweeps. Without the
// collapse, value iteration for min converges to the least fixed point,
// below v* where a zero-cost end component lets a run stay forever at no
// cost (TestCostZeroLoop).
//
// The guesses are those of reachability (float policy iteration in the
// band, the values perturbed by ±e a step, e relative to the largest
// value) and, since a choice worse by little but with many more steps
// breaks the perturbation's slack, the values x of the unperturbed
// problem scaled by 1 - eta and 1 + eta (eta from 2^-40 to 2^-16): a
// choice of cost c then has eta c of slack, as (1 - eta)(c + P x) + eta c
// shows. Where neither passes (a band too wide for the solver, systems
// beyond float64), the lower bounds of value iteration stand for the
// values after 128, 256, 512... sweeps: u = (1 + eta) l, eta from 2^-30
// to 2^-10, is checked the same way (optimistic value iteration,
// Hartmanns and Kaminski, CAV 2020; for min over the choices attaining
// the minimum over l, checked proper). A component never certified from
// above keeps +Inf there: sound, printed as infinity. TestGuessCost
// checks those guesses against exact values. TestCostIntervalEnclosesExact checks the bounds
// against exact values of random MDPs with zero-cost end components,
// infinite states and costs up to 10^6, and fails without the collapse or
// the widening; TestCertifyCost that wrong guesses are rejected;
// TestCoinCostCertified the consensus coin's expected steps past exact
// mode against PRISM's exact values.
//
// # Witnesses and sensitivity
//
// With Options.Witness, each exact probability and finite expected cost
// comes with a [Witness]:
// the optimal strategy found by the solution (the final policy of policy
// iteration, the precomputation's choices where it decided the value, the
// step-counting choices of `within k`) and the most probable path to the
// event under it, found by Dijkstra's algorithm over exact fractions and
// replayed through the machine for its actions and answers. A value
// computed by interval iteration, a probability or a finite expected
// cost, has a witness too, under the strategy its bounds pick, which
// need not attain the value ([boundsStrategy], [costBoundsStrategy]):
// in each state a choice the bounds cannot rule out; where such a choice
// may keep to a loop the bounds cannot tell from its exits (the maximum
// of a probability, the minimum of an expected cost, whose end
// components of zero cost cost nothing by the bounds and infinity when
// never left), one that moves closer to the event, by a breadth-first
// search backwards over those choices. The witness's Bounds are then the
// sound bounds of that strategy's own probability or expected cost, by
// interval iteration on the Markov chain it makes. With
// Options.Sensitivity and counts, each range over the confidence box
// comes with the ranges if each measured rate in turn were known exactly
// ([Sensitivity]): the MDP rebuilt with that rate's probabilities at their
// point estimates, the same states in the same order, solved as the box
// is.
//
// # Symmetry
//
// With Options.Canon (reduce.ForQuant gives it; `wrapcheck prob` uses it
// unless --no-symmetry), [Build] keeps one state per orbit: every state
// made, initial or successor, is rewritten into the representative of its
// orbit before it is numbered, so a distribution's entries are orbits
// (the probabilities of the states of one orbit summed), and each orbit is
// expanded from its representative.
//
// Why the values are those of the full MDP. Let G be a group of
// permutations of the states such that every σ in G maps (a) the initial
// distributions onto the initial distributions, (b) the choices of s onto
// the choices of σ(s), the distribution μ of a choice onto μ∘σ⁻¹, with
// the same probabilities (and, with counts, the same intervals), (c) the
// cost of a choice onto the same cost, and (d) each condition of a query
// onto itself: s satisfies it exactly when σ(s) does. A permutation of
// the identities of a symmetric type is an automorphism of the
// transition system (package reduce); (b) asks in addition that a rate
// give the permuted arguments the same probabilities, which holds when
// its `when` names no single identity (its answers are scalar constants,
// never identities); (c) and (d) that the costs and the conditions name
// none. reduce.ForQuant leaves out of G every symmetric type for which
// one of these fails, with a note.
//
// Then the relation s ~ σ(s) is a probabilistic bisimulation in the sense
// of Segala and Lynch (1995) that respects the conditions and the costs:
// for every choice μ of s, the choice μ∘σ⁻¹ of σ(s) gives every orbit
// (every class of ~) the same probability, and conversely with σ⁻¹. By
// induction on k, the optimal probability of reaching the target within
// k steps through left-states, the same for expected costs, and so their
// limits (the unbounded values, the least fixed points of the Bellman
// operators, which are the limits of the iterates from 0) are equal on
// bisimilar states: the Bellman operator commutes with σ, since the
// optimum over the choices of σ(s) of Σ μ∘σ⁻¹(t)·v(t) is the optimum
// over the choices of s of Σ μ(t)·v(σ(t)), and v∘σ = v for a v
// invariant under G (the indicator of an invariant target is, and each
// iterate stays so). So the values are constant on orbits, and the
// quotient MDP, whose state [s] has the choices of its representative
// with each distribution summed over orbits, has the same Bellman
// operator on invariant vectors (and the sets of the precomputation,
// which depend on the supports alone, are unions of orbits; PRISM's
// infinite expected costs are decided by them): its values at [s] are
// the values at s,
// for min and max, for reachability, `until`, `within k` and expected
// costs (and, with counts, for the vertices of each interval choice,
// which σ maps onto vertices). The precomputation and policy iteration
// then run on the quotient unchanged. This is the argument of
// Kwiatkowska, Norman and Parker, Symmetry reduction for probabilistic
// model checking, CAV 2006, for MDPs. TestSymmetry checks it: every
// value, range and sensitivity equal, exactly, with and without the
// reduction, on K interchangeable runs of the gate, and the state counts
// C(S+K-1, K) against S^K.
//
// A witness under symmetry ([Witness]) is replayed from the concrete
// states: each step expands the concrete state and takes the choice and
// the branch whose orbit is the next state of the path, so the trace is a
// run of the spec; a step's probability is that of entering the orbit.
//
// # Tests
//
// The peer models of bench/prism (Knuth and Yao's die, two dice under
// interleaving, a gambler whose bold and timid stakes make min and max
// differ, the same seeing the coin first, Herman's ring of 3 and 5, the
// consensus coin, a chain built to defeat value iteration after Haddad
// and Monmege, synchronous leader election) are written in both languages;
// TestPeerValues checks the values derived by hand and TestPRISM runs
// PRISM 4.10 on the .pm models (-exact for unbounded queries, compared
// exactly; -explicit for bounded ones, within 1e-12) when
// $WRAPCHECK_PRISM names its launcher or prism is on PATH.
// TestReachBruteForce and TestExpectCostBruteForce compare [Reach] and
// [ExpectCost] with every memoryless deterministic scheduler of random
// small MDPs, each scheduler's chain solved on its own;
// TestWitness checks the witnesses worked out by hand (Knuth and Yao's
// die, the gambler, two dice); TestSensitivityClosedForm the ranges with
// one rate exact against closed forms; TestSymmetry the quotient by
// symmetry.
// TestIntervalEncloses checks that interval iteration encloses those
// values, and TestIntervalEnclosesExact the same on bigger random MDPs,
// chains whose values lie below float64's range and Haddad-Monmege walks
// with a scheduler; TestGamblerClosedForms checks a gambler against closed forms
// over a grid of goals, coins and numbers of gamblers, and
// TestPipelineClosedForms examples/pipeline/rates.wrap over a grid of
// false-positive and outage rates; TestCertify and TestCoinCertified the
// certified bounds (above), and TestCheckStopped the bounds returned when
// the context stops interval iteration (TestCheckStoppedBox,
// TestCheckStoppedSensitivity and TestCheckStoppedCost: what is returned
// when it stops the range over the counts, where the values are kept
// and the range when both its ends were reached, the sensitivity pass,
// whose partial ranking is dropped, or an expected cost);
// TestBoxEncloses checks the range over
// the confidence box against fixed rates drawn from it; TestHaddadMonmege
// shows plain value iteration failing where exact and interval iteration
// do not.
//
// # Not built yet
//
// What issue 36 asks beyond this slice:
//
//   - the inner optimisation over the intervals done lazily, sorting the
//     successors by value within each iteration, rather than by listing
//     the vertices up front (k! orders for k uncertain successors);
//     simultaneous confidence for several counts;
//   - topological (SCC by SCC) solution, and the speed targets against
//     PRISM's engines, measured;
//   - costs within k steps, long-run averages;
//   - witnesses of the ranges over the counts (witnesses are given for
//     the values at the point estimates);
//   - partial-order reduction;
//   - rates on answers of non-scalar types; rates conditioned on
//     non-scalar arguments are supported only as far as the `when`
//     evaluator supports them;
//   - SARIF, the MCP tool, the playground panel, the language server's
//     and the editors' knowledge of the new declarations; generated code
//     (check --compile) does not record branches, and prob never uses it;
//   - the peer model brp (bounded retransmission); CI running TestPRISM
//     (.ci/run installing Java and PRISM).
package quant
