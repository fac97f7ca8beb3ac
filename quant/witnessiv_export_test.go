package quant

// BoundsStrategy and FixedChain are boundsStrategy and fixed, for the
// tests of package quant_test.
var (
	BoundsStrategy = boundsStrategy
	FixedChain     = fixed
)
