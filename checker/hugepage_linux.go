package checker

import (
	"runtime"
	"syscall"
	"unsafe"
)

// hugePageMin is the size from which a table is advised to be backed by
// transparent huge pages.
const hugePageMin = 256 << 10

// adviseHuge asks the kernel to back the 2 MiB pages that tab overlaps
// with transparent huge pages (MADV_HUGEPAGE), for a table whose random
// look-ups would otherwise miss the TLB once the set outgrows its reach.
// The range is rounded out to whole huge pages: the fingerprint set's
// shard tables are a few hundred KiB each at 10^7 states, allocated one
// after the other, so the neighbours of a table share its huge pages
// (the advice is only a hint about the memory, whatever holds it). A
// page becomes huge at its first fault only if none of its 4 KiB pages
// is present yet, so tab should not have been touched. An error (a
// kernel without THP) is ignored: the advice changes only speed.
func adviseHuge(tab []uint64) {
	if len(tab)*8 < hugePageMin {
		return
	}
	const page = 2 << 20
	p := uintptr(unsafe.Pointer(unsafe.SliceData(tab)))
	lo := p &^ (page - 1)
	hi := (p + uintptr(len(tab))*8 + page - 1) &^ (page - 1)
	// The rounded range reaches past tab's allocation, so it goes to the
	// kernel as plain numbers: a pointer made for it would point outside
	// the allocation (the race detector's checkptr rejects that).
	_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, 14) // MADV_HUGEPAGE
	runtime.KeepAlive(tab)
}
