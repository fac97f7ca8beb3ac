package verdict

import "strconv"

// Plural returns n and word, with an s appended to word unless n is 1:
// the counts in the messages of results and reports ("1 step", "3
// steps").
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
