//go:build wrapcheck_slow

package testenv

// slow reports whether the tests were built with the tag wrapcheck_slow.
const slow = true
