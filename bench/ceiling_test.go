package bench

import (
	"sync"
	"testing"
	"time"
)

// BenchmarkCeiling measures what two cores of this machine give on two
// kernels that bound the engine's parallel speed-up: a register-only
// loop (cpu) and random reads of a 256 MiB table (mem, the access
// pattern of the visited store). It reports speedup = 2 × (time of one
// goroutine doing n) / (time of two doing n each).
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
	}
	for _, k := range kernels {
		b.Run(k.name, func(b *testing.B) {
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
