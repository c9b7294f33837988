package shared

import "github.com/warpguard/warpguard/gpu"

// DimIndex returns the point of extent d at linear index i, x fastest, as
// the runtime numbers threads and blocks.
func DimIndex(d gpu.Dim3, i int) gpu.Dim3 {
	x, y := max(d.X, 1), max(d.Y, 1)
	return gpu.Dim3{X: i % x, Y: i / x % y, Z: i / (x * y)}
}
