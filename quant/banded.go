package quant

import (
	"context"
	"math"
	"slices"
)

// A band is a square matrix stored by its band: row i holds the
// columns i-lower .. i+upper, row-major, lower+upper+1 entries a row.
// It is the floating-point solver of [certify]'s candidates: the
// components where interval iteration is slow are random walks, near
// banded once their states are in reverse Cuthill-McKee order, and
// Gaussian elimination without pivoting keeps its fill-in within the
// band. No result of it is trusted: the certificate checks the bounds
// it helps to guess.
type band struct {
	n, lower, upper int
	a               []float64
}

// maxBand is the most entries a band may hold (32 MiB of float64, so
// that the solver stays small beside a --memory budget; the coin at K =
// 1600 needs 2.8 million); past it the component is left to interval
// iteration.
const maxBand = 1 << 22

func newBand(n, lower, upper int) *band {
	return &band{n: n, lower: lower, upper: upper, a: make([]float64, n*(lower+upper+1))}
}

// at returns the address of entry (i, j), which must lie in the band.
func (b *band) at(i, j int) *float64 {
	return &b.a[i*(b.lower+b.upper+1)+j-i+b.lower]
}

// factor overwrites b with its LU factorisation without pivoting (L
// unit lower triangular, below the diagonal; U on and above it). It
// reports false when a pivot is not positive and finite (I - A of a
// policy that leaves the component with probability 1 is a nonsingular
// M-matrix, whose pivots are positive) or ctx ends.
func (b *band) factor(ctx context.Context) bool {
	w := b.lower + b.upper + 1
	for k := 0; k < b.n; k++ {
		if k%4096 == 0 && ctx.Err() != nil {
			return false
		}
		piv := b.a[k*w+b.lower]
		if !(piv > 0) || math.IsInf(piv, 0) {
			return false
		}
		rowK := b.a[k*w+b.lower : k*w+b.lower+min(b.upper, b.n-1-k)+1] // (k, k..k+upper)
		for i := k + 1; i <= min(k+b.lower, b.n-1); i++ {
			off := i*w + k - i + b.lower // (i, k)
			f := b.a[off]
			if f == 0 {
				continue
			}
			f /= piv
			b.a[off] = f
			rowI := b.a[off : off+len(rowK)]
			for j := 1; j < len(rowK); j++ {
				rowI[j] -= f * rowK[j]
			}
		}
	}
	return true
}

// solve overwrites x (the right-hand side) with the solution of L U x =
// x.
func (b *band) solve(x []float64) {
	w := b.lower + b.upper + 1
	for i := 0; i < b.n; i++ {
		s := x[i]
		for k := max(0, i-b.lower); k < i; k++ {
			s -= b.a[i*w+k-i+b.lower] * x[k]
		}
		x[i] = s
	}
	for i := b.n - 1; i >= 0; i-- {
		s := x[i]
		for j := i + 1; j <= min(i+b.upper, b.n-1); j++ {
			s -= b.a[i*w+j-i+b.lower] * x[j]
		}
		x[i] = s / b.a[i*w+b.lower]
	}
}

// rcm returns a reverse Cuthill-McKee order of the n vertices of the
// undirected graph adj (order[k] is the vertex put k-th): a
// breadth-first search from a vertex of low degree far from the others,
// each level's vertices by degree, then reversed, which keeps the
// neighbours of a vertex at nearby positions.
func rcm(adj [][]int32) []int32 {
	n := len(adj)
	order := make([]int32, 0, n)
	seen := make([]bool, n)
	level := make([]int32, n)
	bfs := func(root int32, out []int32) []int32 {
		start := len(out)
		out = append(out, root)
		seen[root] = true
		level[root] = 0
		for i := start; i < len(out); i++ {
			v := out[i]
			from := len(out)
			for _, t := range adj[v] {
				if !seen[t] {
					seen[t] = true
					level[t] = level[v] + 1
					out = append(out, t)
				}
			}
			next := out[from:]
			slices.SortStableFunc(next, func(x, y int32) int { return len(adj[x]) - len(adj[y]) })
		}
		return out
	}
	for r := 0; r < n; r++ {
		if seen[r] {
			continue
		}
		// a pseudo-peripheral root: from r, the deepest vertex of
		// least degree, twice
		root := int32(r)
		for try := 0; try < 2; try++ {
			part := bfs(root, order)
			comp := part[len(order):]
			far := comp[0]
			for _, v := range comp {
				if level[v] > level[far] || level[v] == level[far] && len(adj[v]) < len(adj[far]) {
					far = v
				}
			}
			for _, v := range comp {
				seen[v] = false
			}
			root = far
		}
		order = bfs(root, order)
	}
	slices.Reverse(order)
	return order
}
