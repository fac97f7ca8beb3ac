//go:build !linux

package checker

// adviseHuge does nothing where transparent huge pages are not known.
func adviseHuge([]uint64) {}
