package quant

// BoundsStrategy, CostBoundsStrategy and FixedChain are boundsStrategy,
// costBoundsStrategy and fixed, for the tests of package quant_test.
var (
	BoundsStrategy     = boundsStrategy
	CostBoundsStrategy = costBoundsStrategy
	FixedChain         = fixed
)
