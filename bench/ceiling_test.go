package bench

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkCeiling measures what two cores of this machine give on three
// kernels that bound the engine's parallel speed-up: a register-only
// loop (cpu), random reads of a 256 MiB table (mem, the access pattern
// of the visited store's look-ups), random compare-and-swaps on the
// same table shared by both goroutines (cas, its inserts), batches of
// 32 random reads of that table whose loads do not wait for each other,
// then a compare-and-swap on every fourth slot read (batch: the flush's
// touch of a batch's slots, then the inserts of its new states, about a
// successor in four), and the first
// write to each 4 KiB page of 256 MiB of fresh memory that each
// goroutine maps for itself (touch: the page faults of the store's
// growth, which two threads of one process pay at once). It reports
// speedup = 2 × (time of one goroutine doing n) / (time of two doing n
// each).
//
//	go test -run XXX -bench Ceiling -benchtime 3x ./bench/
func BenchmarkCeiling(b *testing.B) {
	tab := make([]uint64, 1<<25)
	for i := range tab {
		tab[i] = uint64(i)
	}
	kernels := []struct {
		name string
		f    func(seed uint64) uint64
	}{
		{"cpu", func(seed uint64) uint64 {
			x := seed
			for range 200_000_000 {
				x = mix(x)
			}
			return x
		}},
		{"mem", func(seed uint64) uint64 {
			x, s := seed, uint64(0)
			mask := uint64(len(tab) - 1)
			for range 20_000_000 {
				x = mix(x)
				s += tab[x&mask]
			}
			return s
		}},
		{"cas", func(seed uint64) uint64 {
			x, s := seed, uint64(0)
			mask := uint64(len(tab) - 1)
			for range 20_000_000 {
				x = mix(x)
				p := &tab[x&mask]
				old := atomic.LoadUint64(p)
				if atomic.CompareAndSwapUint64(p, old, old+1) {
					s++
				}
			}
			return s
		}},
		{"batch", func(seed uint64) uint64 {
			x, s := seed, uint64(0)
			mask := uint64(len(tab) - 1)
			var at [32]uint64
			for range 20_000_000 / len(at) {
				for i := range at {
					x = mix(x)
					at[i] = x & mask
					s += atomic.LoadUint64(&tab[at[i]])
				}
				for k := 0; k < len(at); k += 4 {
					p := &tab[at[k]]
					old := atomic.LoadUint64(p)
					if atomic.CompareAndSwapUint64(p, old, old+1) {
						s++
					}
				}
			}
			return s
		}},
		{"touch", func(uint64) uint64 {
			const size, page = 256 << 20, 4096
			mem, err := mmapAnon(size)
			if err != nil {
				return 0 // not reached: the kernel is skipped where mmapAnon fails
			}
			for i := 0; i < size; i += page {
				mem[i] = 1
			}
			s := uint64(mem[size-page])
			if munmap(mem) != nil {
				return 0
			}
			return s
		}},
	}
	for _, k := range kernels {
		b.Run(k.name, func(b *testing.B) {
			if k.name == "touch" {
				mem, err := mmapAnon(4096)
				if err != nil {
					b.Skip(err)
				}
				_ = munmap(mem)
			}
			var one, two time.Duration
			for range b.N {
				one += timed(1, k.f)
				two += timed(2, k.f)
			}
			b.ReportMetric(2*one.Seconds()/two.Seconds(), "speedup")
		})
	}
}

var ceilingSink uint64

// timed runs f in n goroutines at once and returns the wall time.
func timed(n int, f func(seed uint64) uint64) time.Duration {
	var wg sync.WaitGroup
	var mu sync.Mutex
	start := time.Now()
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := f(uint64(w + 1))
			mu.Lock()
			ceilingSink += v
			mu.Unlock()
		}()
	}
	wg.Wait()
	return time.Since(start)
}

func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	return x
}

// BenchmarkTableReads measures what one core pays for a random read of
// a table as the table outgrows the caches: the floor under the growth
// series' CPU per state (bench/growth.sh). Each op is 2^24 reads at
// random positions of a table of the given size, issued 32 at a time
// with no dependence between them, as the search's batched flush probes
// the store's table for a batch of successors. It reports ns/read; a
// growth.wrap state costs four such probes (its four successors), so
// four times the difference between two sizes is the growth of the
// memory hierarchy alone. The 2 GiB table (the store's table and slots
// at 10^8 states take 2.7 GiB) runs only when WRAPCHECK_BENCH_LARGE=1.
// The table has the Go heap's pages (4 KiB here, transparent huge pages
// on madvise), as the plain store's do.
//
//	go test -run XXX -bench TableReads -benchtime 3x ./bench/
func BenchmarkTableReads(b *testing.B) {
	for _, lg := range []uint{19, 22, 25, 28} {
		bytes := 8 << lg
		if lg > 25 && os.Getenv("WRAPCHECK_BENCH_LARGE") == "" {
			continue
		}
		b.Run(fmt.Sprintf("%dMiB", bytes>>20), func(b *testing.B) {
			tab := make([]uint64, 1<<lg)
			randomReads(b, tab)
		})
	}
}

// randomReads fills tab (a power of two long) and reports what a random
// read of it costs: 2^24 reads an op, 32 at a time with no dependence
// between them (BenchmarkTableReads).
func randomReads(b *testing.B, tab []uint64) {
	for i := range tab {
		tab[i] = uint64(i)
	}
	mask := uint64(len(tab) - 1)
	const batch, reads = 32, 1 << 24
	var idx [batch]uint64
	b.ResetTimer()
	s, x := uint64(0), uint64(1)
	for range b.N {
		for range reads / batch {
			for j := range idx {
				x = mix(x + uint64(j))
				idx[j] = x & mask
			}
			for _, i := range idx {
				s += tab[i]
			}
		}
	}
	ceilingSink += s
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/reads, "ns/read")
}

// BenchmarkFirstTouch measures what the first write to fresh memory
// costs this machine, the other floor under the growth series: a store
// of 10^8 states writes 2.7 GiB that the process never touched (its
// records, and the tables that each growth of a shard allocates anew),
// and each 4 KiB page's first write is a page fault in which the kernel
// clears the page (on a virtual machine also the host's fault, where
// it has not backed that memory yet). Each op maps 256 MiB anew,
// writes one word in every 4 KiB page and unmaps it; it reports ns/page
// and ns per byte-state, the cost at growth.wrap's 28 bytes a state at
// 10^8 states.
//
//	go test -run XXX -bench FirstTouch -benchtime 10x ./bench/
func BenchmarkFirstTouch(b *testing.B) {
	const size, page = 256 << 20, 4096
	var pages int
	for range b.N {
		mem, err := mmapAnon(size)
		if err != nil {
			b.Skip(err)
		}
		for i := 0; i < size; i += page {
			mem[i] = 1
		}
		pages += size / page
		if err := munmap(mem); err != nil {
			b.Fatal(err)
		}
	}
	ns := float64(b.Elapsed().Nanoseconds()) / float64(pages)
	b.ReportMetric(ns, "ns/page")
	b.ReportMetric(ns*28/page, "ns/state@28B")
}
