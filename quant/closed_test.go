package quant_test

import (
	"context"
	"fmt"
	"math/big"
	"testing"

	"github.com/wrapcheck/wrapcheck/quant"
	"github.com/wrapcheck/wrapcheck/spec"
)

// gamblerSrc is gambler.wrap for a goal of n coins, starting at n/2,
// with a coin of heads probability num/den, and g gamblers interleaved.
func gamblerSrc(n, num, den, g int) string {
	return fmt.Sprintf(`spec G
type Mood = {bold, timid}
const N = %d
agent coin(): bool
rate coin { true: %d/%d; false: %d/%d }
agent mood(): Mood
fn stake(m: Mood, x: 0..N): 0..N = if m == bold and x <= N / 2 then x else if m == bold then N - x else 1
process g[i: 0..%d] {
  var money: 0..N = N / 2
  action bet when money > 0 and money < N {
    let m = ask mood()
    let heads = ask coin()
    money := if heads then money + stake(m, money) else money - stake(m, money)
  }
}
probability AllRich: eventually (forall i in 0..%d: g[i].money == N)
`, n, num, den, den-num, den, g-1, g-1)
}

// TestGamblerClosedForms checks the gambler against closed forms over a
// grid of goals, coins and numbers of gamblers. On a subfair coin (p <
// 1/2) bold play is optimal (Dubins and Savage): from n/2 it wins with p
// at once. Timid play (stakes of 1) is the gambler's ruin, which wins
// from n/2 with (r^(n/2) - 1)/(r^n - 1) = 1/(r^(n/2) + 1), r = q/p, and
// the scheduler can do no worse (it is the minimum). Independent
// gamblers multiply, whatever the interleaving.
func TestGamblerClosedForms(t *testing.T) {
	for _, n := range []int{2, 4, 6, 10} {
		for _, c := range [][2]int{{1, 3}, {1, 4}, {2, 5}, {1, 10}, {3, 7}} {
			for _, g := range []int{1, 2} {
				if g == 2 && n > 6 {
					continue
				}
				t.Run(fmt.Sprintf("n=%d,p=%d/%d,g=%d", n, c[0], c[1], g), func(t *testing.T) {
					m, err := spec.ParseFile("g.wrap", []byte(gamblerSrc(n, c[0], c[1], g)), spec.Options{})
					if err != nil {
						t.Fatal(err)
					}
					res, err := quant.Check(context.Background(), m, quant.Options{})
					if err != nil {
						t.Fatal(err)
					}
					p := big.NewRat(int64(c[0]), int64(c[1]))
					r := new(big.Rat).Quo(new(big.Rat).Sub(big.NewRat(1, 1), p), p)
					timid := big.NewRat(1, 1)
					for i := 0; i < n/2; i++ {
						timid.Mul(timid, r)
					}
					timid.Inv(timid.Add(timid, big.NewRat(1, 1)))
					wantMax, wantMin := pow(p, g), pow(timid, g)
					q := res.Queries[0]
					if q.Max.Cmp(wantMax) != 0 || q.Min.Cmp(wantMin) != 0 {
						t.Errorf("min, max = %s, %s; want %s, %s", q.Min.RatString(), q.Max.RatString(), wantMin.RatString(), wantMax.RatString())
					}
				})
			}
		}
	}
}

func pow(x *big.Rat, k int) *big.Rat {
	out := big.NewRat(1, 1)
	for i := 0; i < k; i++ {
		out.Mul(out, x)
	}
	return out
}

// TestIntervalFallback checks that a query past exact mode's limit is
// computed by interval iteration, enclosing the closed form, and that a
// bound the interval straddles is reported as not decided.
func TestIntervalFallback(t *testing.T) {
	src := gamblerSrc(10, 1, 3, 1) + "probability Tight: max eventually (forall i in 0..0: g[i].money == N) bound <= 1/3\n"
	m, err := spec.ParseFile("g.wrap", []byte(src), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := quant.Check(context.Background(), m, quant.Options{MaxExact: 1})
	if err != nil {
		t.Fatal(err)
	}
	q := res.Queries[0]
	if q.Min != nil || q.MinBounds == nil || q.MaxBounds == nil {
		t.Fatalf("want intervals, got %+v", q)
	}
	wantMin := 1.0 / 33 // 1/(2^5+1)
	if q.MinBounds.Lo > wantMin || q.MinBounds.Hi < wantMin || q.MinBounds.Hi-q.MinBounds.Lo > 1e-6 {
		t.Errorf("min in [%g, %g], want about %g", q.MinBounds.Lo, q.MinBounds.Hi, wantMin)
	}
	if tight := res.Queries[1]; !tight.Unknown || tight.Violated {
		t.Errorf("bound <= 1/3 on [%g, %g]: unknown %v, violated %v; want unknown", tight.MaxBounds.Lo, tight.MaxBounds.Hi, tight.Unknown, tight.Violated)
	}
}
