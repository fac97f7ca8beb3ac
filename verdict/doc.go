// Package verdict is the vocabulary that every engine of wrapcheck shares
// and every renderer reads: what a search returns ([Result]: the
// [Verdict], the [Violation] with its trace of [Step]s, the [Stats]),
// what it reports while it runs ([Progress], [HeapBytes]), the hooks it
// takes from package reduce ([CanonFunc], [AmpleFunc]), and the rule that
// picks the violation a breadth-first search reports ([Key]).
//
// It sits below the engines (checker, ltl, simulate, the distributed
// search of package cluster) and above machine and spec, so that a
// package that only reads or builds results (report, replay, explain,
// the front doors) does not import the search. Package checker keeps
// aliases of these names (checker.Result is [Result]).
//
// The package holds types and small functions only: no search, and of
// rendering only the word rule of the counts in messages ([Plural]),
// which the engines' messages and the renderers share.
package verdict
