package device_test

import (
	"cmp"
	"runtime"
	"slices"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/device"
	"github.com/warpguard/warpguard/race"
)

// The benchmarks set each primitive, with detection off ("emulator") and
// under the default detector ("detector"), against what a Go user would
// write instead on the same input: a sequential loop with the operator
// written inline ("loop"), and an errgroup over GOMAXPROCS chunks
// ("errgroup"). Run them side by side:
//
//	GOMAXPROCS=2 go test ./kernels/device -run '^$' -bench . -benchtime 3x -count 6

// benchN is the input size, and the sorts' key count.
const (
	benchN = 1 << 20
	sortN  = 1 << 20
)

// chunks cuts n into GOMAXPROCS ranges and runs f on each in its own
// goroutine of an errgroup; f gets the chunk's index and range.
func chunks(n int, f func(c, lo, hi int)) int {
	p := runtime.GOMAXPROCS(0)
	var g errgroup.Group
	for c := range p {
		g.Go(func() error { f(c, c*n/p, (c+1)*n/p); return nil })
	}
	_ = g.Wait()
	return p
}

// starts returns the exclusive prefix sums of counts.
func starts(counts []int) []int {
	out := make([]int, len(counts)+1)
	for i, c := range counts {
		out[i+1] = out[i] + c
	}
	return out
}

func benchDevice(b *testing.B) *gpu.Device {
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// emulated runs the primitive that op calls, with detection off as
// "emulator" and under a default detector, the device's observer, as
// "detector": setup allocates the buffers on a device and returns the
// call, which gets the launch options.
func emulated(b *testing.B, setup func(d *gpu.Device) func(cfg gpu.LaunchConfig) error) {
	b.Run("emulator", func(b *testing.B) {
		op := setup(benchDevice(b))
		loop(b, func() error { return op(gpu.LaunchConfig{}) })
	})
	b.Run("detector", func(b *testing.B) {
		d, err := gpu.NewDevice(gpu.DeviceConfig{Observer: race.New(race.Options{})})
		if err != nil {
			b.Fatal(err)
		}
		op := setup(d)
		loop(b, func() error { return op(gpu.LaunchConfig{}) })
	})
}

// loop runs op b.N times, failing b on an error.
func loop(b *testing.B, op func() error) {
	for b.Loop() {
		if err := op(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReduce(b *testing.B) {
	host := randInt32s(benchN, 1, 1000)
	emulated(b, func(d *gpu.Device) func(cfg gpu.LaunchConfig) error {
		in, out := gpu.FromHost(d, "in", host), gpu.Alloc[int32](d, "out", 1)
		return func(cfg gpu.LaunchConfig) error { return device.Reduce(ctx, d, cfg, in, out, 0, gpu.Add[int32]) }
	})
	b.Run("loop", func(b *testing.B) {
		for b.Loop() {
			sink = sum(host)
		}
	})
	b.Run("errgroup", func(b *testing.B) {
		for b.Loop() {
			parts := make([]int32, runtime.GOMAXPROCS(0))
			chunks(len(host), func(c, lo, hi int) { parts[c] = sum(host[lo:hi]) })
			sink = sum(parts)
		}
	})
}

var sink int32

func sum(xs []int32) int32 {
	var s int32
	for _, x := range xs {
		s += x
	}
	return s
}

func BenchmarkInclusiveScan(b *testing.B) {
	host := randInt32s(benchN, 2, 1000)
	out := make([]int32, len(host))
	emulated(b, func(d *gpu.Device) func(cfg gpu.LaunchConfig) error {
		in, out := gpu.FromHost(d, "in", host), gpu.Alloc[int32](d, "out", len(host))
		return func(cfg gpu.LaunchConfig) error { return device.InclusiveScan(ctx, d, cfg, in, out, gpu.Add[int32]) }
	})
	b.Run("loop", func(b *testing.B) {
		for b.Loop() {
			scanFrom(out, host, 0)
		}
	})
	b.Run("errgroup", func(b *testing.B) {
		for b.Loop() {
			parts := make([]int32, runtime.GOMAXPROCS(0)+1)
			chunks(len(host), func(c, lo, hi int) { parts[c+1] = sum(host[lo:hi]) })
			for c := range parts[1:] {
				parts[c+1] += parts[c]
			}
			chunks(len(host), func(c, lo, hi int) { scanFrom(out[lo:hi], host[lo:hi], parts[c]) })
		}
	})
}

func scanFrom(out, in []int32, s int32) {
	for i, x := range in {
		s += x
		out[i] = s
	}
}

func BenchmarkHistogramEven(b *testing.B) {
	const bins = 64
	host := make([]float32, benchN)
	for i, v := range randInt32s(benchN, 3, 1000) {
		host[i] = float32(v) / 1000
	}
	hist := func(h []int32, xs []float32) {
		for _, x := range xs {
			if x >= -0.5 && x < 0.5 {
				h[min(int((x+0.5)*bins), bins-1)]++
			}
		}
	}
	emulated(b, func(d *gpu.Device) func(cfg gpu.LaunchConfig) error {
		in, h := gpu.FromHost(d, "in", host), gpu.Alloc[int32](d, "hist", bins)
		return func(cfg gpu.LaunchConfig) error { return device.HistogramEven(ctx, d, cfg, in, h, -0.5, 0.5) }
	})
	b.Run("loop", func(b *testing.B) {
		for b.Loop() {
			hist(make([]int32, bins), host)
		}
	})
	b.Run("errgroup", func(b *testing.B) {
		for b.Loop() {
			local := make([][]int32, runtime.GOMAXPROCS(0))
			chunks(len(host), func(c, lo, hi int) { local[c] = make([]int32, bins); hist(local[c], host[lo:hi]) })
			total := make([]int32, bins)
			for _, l := range local {
				for i, v := range l {
					total[i] += v
				}
			}
		}
	})
}

func BenchmarkSelect(b *testing.B) {
	host := randInt32s(benchN, 4, 1000)
	out := make([]int32, len(host))
	emulated(b, func(d *gpu.Device) func(cfg gpu.LaunchConfig) error {
		in, o := gpu.FromHost(d, "in", host), gpu.Alloc[int32](d, "out", len(host))
		return func(cfg gpu.LaunchConfig) error { _, err := device.Select(ctx, d, cfg, in, o, even); return err }
	})
	b.Run("loop", func(b *testing.B) {
		for b.Loop() {
			selectInto(out, host)
		}
	})
	b.Run("errgroup", func(b *testing.B) {
		for b.Loop() {
			counts := make([]int, runtime.GOMAXPROCS(0))
			chunks(len(host), func(c, lo, hi int) { counts[c] = countEven(host[lo:hi]) })
			at := starts(counts)
			chunks(len(host), func(c, lo, hi int) { selectInto(out[at[c]:], host[lo:hi]) })
		}
	})
}

func countEven(xs []int32) int {
	n := 0
	for _, x := range xs {
		if even(x) {
			n++
		}
	}
	return n
}

func selectInto(out, in []int32) int {
	n := 0
	for _, x := range in {
		if even(x) {
			out[n] = x
			n++
		}
	}
	return n
}

func BenchmarkPartition(b *testing.B) {
	host := randInt32s(benchN, 5, 1000)
	out := make([]int32, len(host))
	part := func(out []int32, in []int32, yes, no int) {
		for _, x := range in {
			if even(x) {
				out[yes], yes = x, yes+1
			} else {
				out[no], no = x, no+1
			}
		}
	}
	emulated(b, func(d *gpu.Device) func(cfg gpu.LaunchConfig) error {
		in, o := gpu.FromHost(d, "in", host), gpu.Alloc[int32](d, "out", len(host))
		return func(cfg gpu.LaunchConfig) error { _, err := device.Partition(ctx, d, cfg, in, o, even); return err }
	})
	b.Run("loop", func(b *testing.B) {
		for b.Loop() {
			part(out, host, 0, countEven(host))
		}
	})
	b.Run("errgroup", func(b *testing.B) {
		for b.Loop() {
			counts := make([]int, runtime.GOMAXPROCS(0))
			chunks(len(host), func(c, lo, hi int) { counts[c] = countEven(host[lo:hi]) })
			at := starts(counts)
			total := at[len(counts)]
			chunks(len(host), func(c, lo, hi int) { part(out, host[lo:hi], at[c], total+lo-at[c]) })
		}
	})
}

func BenchmarkRunLengthEncode(b *testing.B) {
	host := randInt32s(benchN, 6, 3)
	unique, counts := make([]int32, len(host)), make([]int32, len(host))
	emulated(b, func(d *gpu.Device) func(cfg gpu.LaunchConfig) error {
		in := gpu.FromHost(d, "in", host)
		u, c := gpu.Alloc[int32](d, "unique", len(host)), gpu.Alloc[int32](d, "counts", len(host))
		return func(cfg gpu.LaunchConfig) error { _, err := device.RunLengthEncode(ctx, d, cfg, in, u, c); return err }
	})
	b.Run("loop", func(b *testing.B) {
		for b.Loop() {
			rle(unique, counts, host, 0, len(host))
		}
	})
	b.Run("errgroup", func(b *testing.B) {
		for b.Loop() {
			heads := make([]int, runtime.GOMAXPROCS(0))
			chunks(len(host), func(c, lo, hi int) { heads[c] = countHeads(host, lo, hi) })
			at := starts(heads)
			chunks(len(host), func(c, lo, hi int) { rle(unique[at[c]:], counts[at[c]:], host, lo, hi) })
		}
	})
}

func countHeads(xs []int32, lo, hi int) int {
	n := 0
	for i := lo; i < hi; i++ {
		if i == 0 || xs[i] != xs[i-1] {
			n++
		}
	}
	return n
}

// rle encodes the runs that start in xs[lo:hi], following the last one
// past hi.
func rle(unique, counts, xs []int32, lo, hi int) {
	k := -1
	for i := lo; i < len(xs) && (i < hi || k >= 0 && xs[i] == unique[k]); i++ {
		if i < hi && (i == 0 || xs[i] != xs[i-1]) {
			k++
			unique[k], counts[k] = xs[i], 0
		}
		if k >= 0 {
			counts[k]++
		}
	}
}

func BenchmarkSegmentedReduce(b *testing.B) {
	host := randInt32s(benchN, 7, 1000)
	var offs []int32
	for i := 0; i <= benchN; i += 64 {
		offs = append(offs, int32(i))
	}
	out := make([]int32, len(offs)-1)
	seg := func(lo, hi int) {
		for s := lo; s < hi; s++ {
			out[s] = sum(host[offs[s]:offs[s+1]])
		}
	}
	emulated(b, func(d *gpu.Device) func(cfg gpu.LaunchConfig) error {
		in, o := gpu.FromHost(d, "in", host), gpu.Alloc[int32](d, "out", len(offs)-1)
		offsets := gpu.FromHost(d, "offsets", offs)
		return func(cfg gpu.LaunchConfig) error {
			return device.SegmentedReduce(ctx, d, cfg, in, offsets, o, 0, gpu.Add[int32])
		}
	})
	b.Run("loop", func(b *testing.B) {
		for b.Loop() {
			seg(0, len(out))
		}
	})
	b.Run("errgroup", func(b *testing.B) {
		for b.Loop() {
			chunks(len(out), func(_, lo, hi int) { seg(lo, hi) })
		}
	})
}

func BenchmarkSortKeys(b *testing.B) {
	host := make([]uint32, sortN)
	for i, v := range randInt32s(sortN, 8, 1<<30) {
		host[i] = uint32(v) * 2654435761
	}
	work := make([]uint32, len(host))
	emulated(b, func(d *gpu.Device) func(cfg gpu.LaunchConfig) error {
		keys := gpu.Alloc[uint32](d, "keys", len(host))
		return func(cfg gpu.LaunchConfig) error { _ = keys.CopyIn(host); return device.SortKeys(ctx, d, cfg, keys) }
	})
	b.Run("loop", func(b *testing.B) {
		for b.Loop() {
			copy(work, host)
			slices.Sort(work)
		}
	})
	b.Run("errgroup", func(b *testing.B) {
		for b.Loop() {
			copy(work, host)
			parallelSort(work, cmp.Compare[uint32])
		}
	})
}

type pair struct {
	k uint32
	v float32
}

func BenchmarkSortPairs(b *testing.B) {
	keys := make([]uint32, sortN)
	vals := make([]float32, sortN)
	for i, v := range randInt32s(sortN, 9, 1<<30) {
		keys[i], vals[i] = uint32(v)*2654435761, float32(i)
	}
	work := make([]pair, len(keys))
	fill := func() {
		for i := range work {
			work[i] = pair{keys[i], vals[i]}
		}
	}
	byKey := func(a, b pair) int { return cmp.Compare(a.k, b.k) }
	emulated(b, func(d *gpu.Device) func(cfg gpu.LaunchConfig) error {
		k, v := gpu.Alloc[uint32](d, "keys", len(keys)), gpu.Alloc[float32](d, "vals", len(keys))
		return func(cfg gpu.LaunchConfig) error {
			_, _ = k.CopyIn(keys), v.CopyIn(vals)
			return device.SortPairs(ctx, d, cfg, k, v)
		}
	})
	b.Run("loop", func(b *testing.B) {
		for b.Loop() {
			fill()
			slices.SortStableFunc(work, byKey)
		}
	})
	b.Run("errgroup", func(b *testing.B) {
		for b.Loop() {
			fill()
			parallelSort(work, byKey)
		}
	})
}

// parallelSort sorts GOMAXPROCS chunks of xs stably in an errgroup, then
// merges neighbouring runs, in parallel, until one is left.
func parallelSort[E any](xs []E, cmp func(a, b E) int) {
	p := runtime.GOMAXPROCS(0)
	bounds := make([]int, p+1)
	chunks(len(xs), func(c, lo, hi int) { bounds[c+1] = hi; slices.SortStableFunc(xs[lo:hi], cmp) })
	buf := make([]E, len(xs))
	for len(bounds) > 2 {
		var g errgroup.Group
		var next []int
		for i := 0; i+1 < len(bounds); i += 2 {
			lo, mid, hi := bounds[i], bounds[i+1], bounds[min(i+2, len(bounds)-1)]
			next = append(next, lo)
			g.Go(func() error { merge(buf[lo:hi], xs[lo:mid], xs[mid:hi], cmp); return nil })
		}
		_ = g.Wait()
		next = append(next, len(xs))
		xs, buf = buf, xs
		bounds = next
	}
	if len(bounds) == 2 && p > 1 && countMerges(p)%2 == 1 {
		copy(buf, xs) // the sorted run ended in the scratch buffer
	}
}

// countMerges returns the rounds of pairwise merges that leave one of p
// runs.
func countMerges(p int) int {
	r := 0
	for ; p > 1; p = (p + 1) / 2 {
		r++
	}
	return r
}

// merge merges the sorted a and b into out, stably.
func merge[E any](out, a, b []E, cmp func(a, b E) int) {
	i, j := 0, 0
	for k := range out {
		if j >= len(b) || i < len(a) && cmp(a[i], b[j]) <= 0 {
			out[k], i = a[i], i+1
		} else {
			out[k], j = b[j], j+1
		}
	}
}
