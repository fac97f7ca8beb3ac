package bench

import (
	"fmt"
	"os"
	"syscall"
	"testing"
	"unsafe"
)

// BenchmarkTableReadsHuge is BenchmarkTableReads on tables advised
// MADV_HUGEPAGE before their first write, as `--hash-compact`'s
// fingerprint tables are (checker/hugepage_linux.go): the floor under
// the compacted growth series to 10^9 states, whose fingerprint set
// takes about 8 GiB there and 8 MiB at 10^6. The 1 GiB table runs when
// WRAPCHECK_BENCH_LARGE=1, the 8 GiB one when it is 2.
//
//	WRAPCHECK_BENCH_LARGE=2 go test -run XXX -bench TableReadsHuge -benchtime 3x ./bench/
func BenchmarkTableReadsHuge(b *testing.B) {
	large := os.Getenv("WRAPCHECK_BENCH_LARGE")
	for _, lg := range []uint{20, 24, 27, 30} {
		bytes := 8 << lg
		if lg == 27 && large == "" || lg == 30 && large != "2" {
			continue
		}
		b.Run(fmt.Sprintf("%dMiB", bytes>>20), func(b *testing.B) {
			mem, err := mmapAnon(bytes)
			if err != nil {
				b.Skip(err)
			}
			defer munmap(mem)
			if err := syscall.Madvise(mem, syscall.MADV_HUGEPAGE); err != nil {
				b.Skip(err)
			}
			randomReads(b, unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(mem))), 1<<lg))
		})
	}
}
