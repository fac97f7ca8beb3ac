package quant

import (
	"fmt"
	"math/big"
)

// ConfidenceBits is the precision of the ends of a confidence interval:
// [ClopperPearson] rounds them outwards to multiples of 2^-ConfidenceBits
// (about 2.3e-10), since the exact ends are irrational.
const ConfidenceBits = 32

// MaxCount is the largest n of a count `k of n` that [ClopperPearson]
// accepts: its exact arithmetic costs a multiple of n² bits per step.
const MaxCount = 2000

// ClopperPearson returns the two-sided Clopper-Pearson interval of a
// binomial proportion with k successes in n trials at confidence level
// (for instance 19/20): lo is the p at which P(X >= k) = (1-level)/2 (0
// when k = 0), hi the p at which P(X <= k) = (1-level)/2 (1 when k = n).
// The interval covers the true proportion with probability at least
// level, whatever it is: the interval is exact (it inverts the binomial
// tests themselves, no normal approximation), hence conservative.
//
// The ends are computed by bisection over the multiples of
// 2^-[ConfidenceBits], each step evaluating the binomial tail exactly, in
// integers; the result is rounded outwards (lo down, hi up), so that
// [lo, hi] contains the exact interval and is at most 2^-ConfidenceBits
// wider at each end.
func ClopperPearson(k, n int64, level *big.Rat) (lo, hi *big.Rat, err error) {
	if n <= 0 || k < 0 || k > n {
		return nil, nil, fmt.Errorf("quant: no confidence interval for %d of %d", k, n)
	}
	if n > MaxCount {
		return nil, nil, fmt.Errorf("quant: a count of %d trials is more than the %d a confidence interval is computed for", n, MaxCount)
	}
	if level.Sign() <= 0 || level.Cmp(big.NewRat(1, 1)) >= 0 {
		return nil, nil, fmt.Errorf("quant: confidence level %s is not between 0 and 1", level.RatString())
	}
	// tail = (1 - level)/2
	tail := new(big.Rat).Sub(big.NewRat(1, 1), level)
	tail.Quo(tail, big.NewRat(2, 1))
	one := new(big.Int).Lsh(big.NewInt(1), ConfidenceBits)
	den := new(big.Int).Set(one)
	lo, hi = new(big.Rat), big.NewRat(1, 1)
	if k > 0 {
		// P(X >= k; p) increases with p: the largest grid point where it
		// is at most tail.
		a, b := new(big.Int), new(big.Int).Set(one) // P(a) <= tail < P(b)
		for new(big.Int).Sub(b, a).Cmp(big.NewInt(1)) > 0 {
			mid := new(big.Int).Add(a, b)
			mid.Rsh(mid, 1)
			if tailCmp(mid, k, n, false, tail) <= 0 {
				a = mid
			} else {
				b = mid
			}
		}
		lo.SetFrac(a, den)
	}
	if k < n {
		// P(X <= k; p) decreases with p: the smallest grid point where it
		// is at most tail.
		a, b := new(big.Int), new(big.Int).Set(one) // P(a) > tail >= P(b)
		for new(big.Int).Sub(b, a).Cmp(big.NewInt(1)) > 0 {
			mid := new(big.Int).Add(a, b)
			mid.Rsh(mid, 1)
			if tailCmp(mid, k, n, true, tail) <= 0 {
				b = mid
			} else {
				a = mid
			}
		}
		hi.SetFrac(b, den)
	}
	return lo, hi, nil
}

// tailCmp compares with t the binomial tail at p = m/2^ConfidenceBits:
// P(X <= k) when lower, else P(X >= k). The tail times 2^(bits·n) is
// the integer sum of C(n,j) m^j (2^bits - m)^(n-j) over the j of the
// tail, so the comparison is exact.
func tailCmp(m *big.Int, k, n int64, lower bool, t *big.Rat) int {
	q := new(big.Int).Lsh(big.NewInt(1), ConfidenceBits)
	q.Sub(q, m)
	from, to := k, n
	if lower {
		from, to = 0, k
	}
	// Horner over j: acc = sum of C(n,j) m^j q^(to-j), then times
	// q^(n-to); the binomial and the power of m are updated in place.
	c := new(big.Int).Binomial(n, from)
	mp := new(big.Int).Exp(m, big.NewInt(from), nil)
	acc := new(big.Int)
	var term big.Int
	for j := from; j <= to; j++ {
		if j > from {
			c.Mul(c, big.NewInt(n-j+1))
			c.Quo(c, big.NewInt(j))
			mp.Mul(mp, m)
			acc.Mul(acc, q)
		}
		acc.Add(acc, term.Mul(c, mp))
	}
	acc.Mul(acc, new(big.Int).Exp(q, big.NewInt(n-to), nil))
	// acc / 2^(bits·n) against t.Num()/t.Denom()
	l := new(big.Int).Mul(acc, t.Denom())
	r := new(big.Int).Lsh(t.Num(), uint(ConfidenceBits*n))
	return l.Cmp(r)
}
