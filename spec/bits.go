package spec

import "math"

// The bitwise operators and the Euclidean modulo (extensions): one
// definition of their int64 results, which constant folding, the machine
// and its generated code share.

// EMod64 returns a mod b, the Euclidean modulo: 0 <= r < |b|. b must not
// be 0. It cannot overflow (math.MinInt64 mod -1 is 0).
func EMod64(a, b int64) int64 {
	if b == -1 {
		return 0
	}
	r := a % b
	if r < 0 {
		if b < 0 {
			r -= b
		} else {
			r += b
		}
	}
	return r
}

// Bitwise applies the bitwise operator o (OpBitAnd, OpBitOr, OpBitXor,
// OpShl, OpShr) to a and b. It fails (a runtime error) when an operand
// is negative or when a << b does not fit an int64.
func Bitwise(o Op, a, b int64) (int64, error) {
	if a < 0 || b < 0 {
		return 0, errRuntime
	}
	switch o {
	case OpBitAnd:
		return a & b, nil
	case OpBitOr:
		return a | b, nil
	case OpBitXor:
		return a ^ b, nil
	case OpShr:
		if b >= 63 {
			return 0, nil
		}
		return a >> uint(b), nil
	case OpShl:
		if a == 0 {
			return 0, nil
		}
		if b >= 63 || a > math.MaxInt64>>uint(b) {
			return 0, errRuntime
		}
		return a << uint(b), nil
	}
	return 0, errRuntime
}
