package gpu

import "fmt"

// Dim3 is a 1-, 2- or 3-dimensional extent or index, CUDA's dim3. As in CUDA,
// a zero Y or Z in a size means 1, so Dim3{X: 256} is a 256x1x1 block.
type Dim3 struct{ X, Y, Z int }

// String formats d as "(x,y,z)".
func (d Dim3) String() string { return fmt.Sprintf("(%d,%d,%d)", d.X, d.Y, d.Z) }

// norm returns d with zero Y and Z replaced by 1.
func (d Dim3) norm() Dim3 {
	if d.Y == 0 {
		d.Y = 1
	}
	if d.Z == 0 {
		d.Z = 1
	}
	return d
}

// Size returns the number of points in the extent d, X*Y*Z, with a zero Y or
// Z counted as 1.
func (d Dim3) Size() int {
	n := d.norm()
	return n.X * n.Y * n.Z
}

// index returns the point of extent d at linear index i, x fastest.
func (d Dim3) index(i int) Dim3 {
	return Dim3{X: i % d.X, Y: i / d.X % d.Y, Z: i / (d.X * d.Y)}
}

// linear returns the linear index of point p in extent d, x fastest.
func (d Dim3) linear(p Dim3) int { return (p.Z*d.Y+p.Y)*d.X + p.X }
