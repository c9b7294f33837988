package kernels

import (
	"slices"
	"testing"
)

func TestSameAll(t *testing.T) {
	if err := sameAll("x", []int32{1, 2}, []int32{1, 2}); err != nil {
		t.Error(err)
	}
	if err := sameAll("x", []int32{1, 3}, []int32{1, 2}); err == nil || err.Error() != "x[1] = 3, want 2" {
		t.Errorf("err = %v", err)
	}
	if err := sameAll("x", []int32{1}, []int32{1, 2}); err == nil {
		t.Error("length mismatch passed")
	}
}

func TestRandSeeded(t *testing.T) {
	a, b := randInt32s(newRand(7), 100, 10), randInt32s(newRand(7), 100, 10)
	if !slices.Equal(a, b) || slices.Max(a) >= 10 || slices.Min(a) < 0 {
		t.Errorf("randInt32s: %v vs %v", a, b)
	}
	if c := randInt32s(newRand(8), 100, 10); slices.Equal(a, c) {
		t.Error("different seeds, same input")
	}
}
