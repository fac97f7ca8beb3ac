package replay

// suggestName returns the name of names nearest to name (at most two
// edits, fewer than its length), or "".
func suggestName(name string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		d := editDistance(name, n)
		if d < bestD || (d == bestD && best != "" && n < best) {
			best, bestD = n, d
		}
	}
	if best != "" && bestD >= len(name) {
		return ""
	}
	return best
}

func didYouMean(s string) string {
	if s == "" {
		return ""
	}
	return " (did you mean " + s + "?)"
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
