package gorace

import "testing"

// BenchmarkTwins times each twin's work at the kernels' full size, the
// input made once; built with -race it times Go's race detector on it.
//
//	go test -run '^$' -bench . -count 6 ./bench/gorace
//	go test -race -run '^$' -bench . -count 6 ./bench/gorace
func BenchmarkTwins(b *testing.B) {
	for _, tw := range Twins() {
		b.Run(tw.Name, func(b *testing.B) {
			j := tw.Setup(0)
			for b.Loop() {
				j.Do()
			}
		})
	}
}
