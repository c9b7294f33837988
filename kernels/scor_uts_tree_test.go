package kernels

import "testing"

func TestUTSTree(t *testing.T) {
	tr := utsTree{maxHeight: 3, avgChildren: 3}
	n := packNode(1, 200, 7)
	if h, s, num := nodeFields(n); h != 1 || s != 200 || num != 7 {
		t.Fatalf("nodeFields(packNode(1, 200, 7)) = %d, %d, %d", h, s, num)
	}
	// (200·7+5) mod 255 = 130; 130 mod 5 + 1 = 1 child at height 2, a leaf.
	if c := tr.children(n); c != 1 {
		t.Errorf("children = %d, want 1", c)
	}
	if h, s, num := nodeFields(tr.child(n, 0)); h != 2 || s != 130 || num != 1 {
		t.Errorf("child = %d, %d, %d; want 2, 130, 1", h, s, num)
	}
	if nodes, leaves := tr.count(n); nodes != 2 || leaves != 1 {
		t.Errorf("count = %d nodes, %d leaves; want 2, 1", nodes, leaves)
	}
	if h, s, num := nodeFields(tr.root(-1, 254)); h != 0 || s != 254 || num != 0 {
		t.Errorf("root(-1, 254) = %d, %d, %d; want 0, 254, 0", h, s, num)
	}
}
