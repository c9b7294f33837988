package bench_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/warpguard/warpguard/bench"
	"github.com/warpguard/warpguard/kernels"
	"github.com/warpguard/warpguard/race"
)

// suiteKernels is every kernel and the contention workloads, once each.
func suiteKernels() kernels.Catalog {
	c := kernels.All()
	for _, k := range kernels.Contention() {
		if !slices.ContainsFunc(c, func(o *kernels.Entry) bool { return o.Name == k.Name }) {
			c = append(c, k)
		}
	}
	return c
}

// BenchmarkDetector runs each kernel's clean configuration under each
// detector configuration, "off" being the baseline beside each measured
// one. Sub-benchmarks are named kernel=K/config=C, with K's slashes
// written as colons, so that benchstat can compare configurations
// (-col /config) or commits. launch-ns/op is the launches alone, without
// the input's setup; checks/op and contended/op are the detector's
// counters.
//
//	go test ./bench -run '^$' -bench 'Detector/kernel=contention' -count 6 | tee new.txt
//	benchstat -col /config new.txt
func BenchmarkDetector(b *testing.B) {
	for _, k := range suiteKernels() {
		for _, name := range race.Configs() {
			b.Run("kernel="+strings.ReplaceAll(k.Name, "/", ":")+"/config="+name, func(b *testing.B) {
				benchKernel(b, k, name)
			})
		}
	}
}

func benchKernel(b *testing.B, k *kernels.Entry, config string) {
	opt, err := race.Config(config)
	if err != nil {
		b.Fatal(err)
	}
	c := bench.Case{Kernel: k}
	var det *race.Detector // one per configuration, as a test would keep
	if !opt.Off {
		det = race.New(opt)
	}
	var launches int64
	b.ReportAllocs()
	for b.Loop() {
		var r bench.Outcome
		if det == nil {
			r = bench.Once(context.Background(), c, nil)
		} else {
			r = bench.Once(context.Background(), c, det)
		}
		if r.LaunchErr != nil {
			b.Fatal(r.LaunchErr)
		}
		launches += r.Elapsed.Nanoseconds()
	}
	b.ReportMetric(float64(launches)/float64(b.N), "launch-ns/op")
	if det != nil {
		st := det.Stats()
		b.ReportMetric(float64(st.Checks)/float64(b.N), "checks/op")
		b.ReportMetric(float64(st.Contended)/float64(b.N), "contended/op")
	}
}
