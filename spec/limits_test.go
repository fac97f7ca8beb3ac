package spec

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// TestEvalExactBound checks the size bound on exact integers: a result
// of MaxIntBits bits is computed, one bit more is ErrIntTooLarge, a
// product is refused from its operands' sizes before it is computed, and
// division by zero stays ErrDivByZero.
func TestEvalExactBound(t *testing.T) {
	one := big.NewInt(1)
	pow := func(n uint) *big.Int { return new(big.Int).Lsh(one, n) }
	max := new(big.Int).Sub(pow(MaxIntBits), one) // the largest value
	tests := []struct {
		name string
		op   Op
		a, b *big.Int
		want error
	}{
		{"largest+0", OpAdd, max, big.NewInt(0), nil},
		{"largest+1", OpAdd, max, one, ErrIntTooLarge},
		{"-largest-1", OpSub, new(big.Int).Neg(max), one, ErrIntTooLarge},
		{"-largest", OpNeg, max, nil, nil},
		{"2^8191 * 2^8192", OpMul, pow(8191), pow(8192), nil},
		{"2^8192 * 2^8192", OpMul, pow(8192), pow(8192), ErrIntTooLarge},
		{"largest * 0", OpMul, max, big.NewInt(0), nil},
		{"huge square", OpMul, max, max, ErrIntTooLarge},
		{"largest / -1", OpDiv, max, big.NewInt(-1), nil},
		{"largest % 0", OpMod, max, big.NewInt(0), ErrDivByZero},
		{"largest < largest", OpLt, max, max, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := EvalExact(tt.op, tt.a, tt.b)
			if err != tt.want {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
			if err == nil && IntTooLarge(v) {
				t.Errorf("result of %d bits", v.BitLen())
			}
			if _, ok := EvalBig(tt.op, tt.a, tt.b); ok != (tt.want == nil) {
				t.Errorf("EvalBig ok %v", ok)
			}
		})
	}
	// The squares of the reproducer (a 900-digit literal squared 40
	// times) are refused at the third, at once.
	y, _ := new(big.Int).SetString(strings.Repeat("9", 900), 10)
	start := time.Now()
	n := 0
	for ; n < 40; n++ {
		r, err := EvalExact(OpMul, y, y)
		if err != nil {
			break
		}
		y = r
	}
	if n != 2 || time.Since(start) > time.Second {
		t.Errorf("%d squares in %v, want 2 (2990, 5980, 11960 bits) then ErrIntTooLarge (23920), at once", n, time.Since(start))
	}
}

// countCtx is a context whose Err reports Canceled from its after-th call
// on, and counts the calls.
type countCtx struct {
	context.Context
	calls, after int64
}

func (c *countCtx) Err() error {
	if atomic.AddInt64(&c.calls, 1) > c.after {
		return context.Canceled
	}
	return nil
}

// expansionSpec is a spec whose fn calls expand to nearly maxExpanded
// operators, checked in a fraction of a second.
func expansionSpec(t *testing.T) *syntax.File {
	t.Helper()
	g := strings.Repeat("x + ", 999) + "x"
	h := strings.Repeat("g(x) + ", 119) + "g(x)"
	src := "spec F\nvar v: 0..1\nfn g(x: 0..1): 0..100000 = " + g + "\nfn h(x: 0..1): 0..100000000 = " + h +
		"\naction s when v < 1 { v := v + 1 }\ninvariant I: h(v) >= 0\n"
	f, err := syntax.Parse("f.wrap", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestCheckContext checks that Check honours Options.Context throughout:
// during the expansion of fn bodies it looks at the context every few
// microseconds of work, and stops with an error wrapping the context's
// soon after it is done; it also stops at a deadline.
func TestCheckContext(t *testing.T) {
	f := expansionSpec(t)
	if _, err := Check(f, Options{}); err != nil {
		t.Fatalf("without a context: %v", err)
	}
	ctx := &countCtx{Context: context.Background(), after: 10}
	m, err := Check(f, Options{Context: ctx})
	if m != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("model %v, error %v: want a nil model and an error wrapping context.Canceled", m, err)
	}
	if ctx.calls != 11 {
		t.Errorf("%d looks at the context, want 11 (it stops at the first that reports it done)", ctx.calls)
	}
	// A deadline during the expansion.
	dctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = Check(f, Options{Context: dctx})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v: want one wrapping context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Errorf("stopped after %v", d)
	}
	// The constant folding of a long chain too.
	var src strings.Builder
	src.WriteString("spec C\nconst C0 = 1\n")
	for i := 1; i < 20000; i++ {
		src.WriteString("const C" + itoa(int64(i)) + " = C" + itoa(int64(i-1)) + " + 1\n")
	}
	cf, err := syntax.Parse("c.wrap", []byte(src.String()))
	if err != nil {
		t.Fatal(err)
	}
	ctx = &countCtx{Context: context.Background(), after: 3}
	if _, err := Check(cf, Options{Context: ctx}); !errors.Is(err, context.Canceled) {
		t.Errorf("constant chain: error %v, want one wrapping context.Canceled", err)
	}
}

// TestIntString: an exact integer in a message is printed in full up to
// 40 digits, else as its first and last 16 digits and its digit count,
// so that the message quotes at most 80 bytes of it.
func TestIntString(t *testing.T) {
	huge, _ := new(big.Int).SetString(strings.Repeat("9", 4900), 10)
	tests := []struct {
		name string
		v    *big.Int
		want string
	}{
		{"small", big.NewInt(-42), "-42"},
		{"40 digits", new(big.Int).Exp(big.NewInt(10), big.NewInt(39), nil), "1" + strings.Repeat("0", 39)},
		{"41 digits", new(big.Int).Exp(big.NewInt(10), big.NewInt(40), nil), "1000000000000000...0000000000000000 (41 digits)"},
		{"4900 digits", huge, "9999999999999999...9999999999999999 (4900 digits)"},
		{"negative", new(big.Int).Neg(huge), "-9999999999999999...9999999999999999 (4900 digits)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, IntString(tt.v)); diff != "" {
				t.Errorf("IntString (-want +got):\n%s", diff)
			}
		})
	}
}
