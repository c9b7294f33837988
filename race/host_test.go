package race_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/race/racetest"
)

// duringLaunch runs a one-thread launch on d that calls before, waits
// until host has run on the test's goroutine, then calls after.
func duringLaunch(t *testing.T, d *gpu.Device, before, after func(t *gpu.Thread), host func()) {
	t.Helper()
	ready, done := make(chan struct{}), make(chan struct{})
	var once sync.Once
	errs := make(chan error, 1)
	go func() {
		cfg := gpu.LaunchConfig{Name: "kernel", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}}
		errs <- d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			before(t)
			once.Do(func() { close(ready) })
			<-done
			after(t)
		})
	}()
	<-ready
	host()
	close(done)
	require.NoError(t, <-errs)
}

// TestHostAccessDuringLaunch: a host copy or fill of a word a running
// launch uses races with the launch's accesses, before the call or after
// it, since only host order orders them; the device's detector reports
// it every time.
func TestHostAccessDuringLaunch(t *testing.T) {
	t.Parallel()
	none := func(*gpu.Thread) {}
	cases := []struct {
		name          string
		before, after func(x gpu.Buffer[int32]) func(*gpu.Thread)
		host          func(x gpu.Buffer[int32])
		op            string
	}{
		{"kernel store, host CopyOut", func(x gpu.Buffer[int32]) func(*gpu.Thread) { return func(t *gpu.Thread) { x.Store(t, 1, 5) } },
			func(gpu.Buffer[int32]) func(*gpu.Thread) { return none }, func(x gpu.Buffer[int32]) { x.Host() }, "CopyOut"},
		{"host Fill, kernel load", func(gpu.Buffer[int32]) func(*gpu.Thread) { return none },
			func(x gpu.Buffer[int32]) func(*gpu.Thread) { return func(t *gpu.Thread) { x.Load(t, 1) } }, func(x gpu.Buffer[int32]) { x.Fill(3) }, "Fill"},
		{"kernel load, host CopyIn", func(x gpu.Buffer[int32]) func(*gpu.Thread) { return func(t *gpu.Thread) { x.Load(t, 1) } },
			func(gpu.Buffer[int32]) func(*gpu.Thread) { return none }, func(x gpu.Buffer[int32]) { require.NoError(t, x.CopyIn([]int32{1, 2})) }, "CopyIn"},
	}
	for _, c := range cases {
		for i := range 10 {
			det := race.New(race.Options{Family: race.Family(i % 2)}) // both families
			d, _ := detectedDevice(t, det, true)
			x := gpu.Alloc[int32](d, "x", 2)
			duringLaunch(t, d, c.before(x), c.after(x), func() { c.host(x) })
			rs := det.Reports()
			require.Len(t, rs, 1, "%s, run %d", c.name, i)
			r := rs[0]
			require.Equal(t, race.MissingDeviceFence, r.Kind, c.name)
			require.Equal(t, "x", r.Mem.Name, c.name)
			require.Equal(t, 1, r.Index, c.name)
			require.ElementsMatch(t, []string{"kernel", "host " + c.op}, []string{r.Launch, r.Previous.Launch}, c.name)
			require.Contains(t, r.Evidence, "The host "+c.op+" touched this word", c.name)
			host := r.Current
			if !host.Host {
				host = r.Previous
			}
			require.True(t, host.Host, "one side is the host's: %v", r)
			require.Equal(t, "the host ("+c.op+")", host.Who())
			require.Zero(t, det.MetadataBytes())
		}
	}
}

// TestHostAccessOrdered: host copies before a launch and after it
// returned are ordered with it by host order: the device's detector,
// which fails the test on any race, finds none.
func TestHostAccessOrdered(t *testing.T) {
	t.Parallel()
	d := racetest.Device(t)
	x := gpu.FromHost(d, "x", []int32{1, 2})
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 2}}
	for range 3 {
		x.Fill(4)
		require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			x.Store(t, t.ThreadRank(), x.Load(t, t.ThreadRank())+1)
		}))
		require.Equal(t, []int32{5, 5}, x.Host())
	}
}
