package kernels

// The implicit tree of the unbalanced tree search. A node is packed in an
// int32: height, seed and number in bytes 2, 1 and 0. Its child count and
// its children follow from its bytes alone (a toy hash in place of UTS's
// SHA-1), so the tree is deterministic and the host can count it.
type utsTree struct {
	maxHeight, avgChildren int
}

func packNode(height, seed, number int) int32 {
	return int32(height<<16 | (seed&0xff)<<8 | number&0xff)
}

func nodeFields(n int32) (height, seed, number int) {
	return int(n >> 16), int(n>>8) & 0xff, int(n) & 0xff
}

// hash is the parent's contribution to its children: their seed.
func (tr utsTree) hash(n int32) int {
	_, seed, number := nodeFields(n)
	return (seed*number + 5) % 255
}

// children returns how many children n has.
func (tr utsTree) children(n int32) int {
	height, _, _ := nodeFields(n)
	if height+1 >= tr.maxHeight {
		return 0
	}
	return tr.hash(n)%(2*tr.avgChildren-1) + 1
}

// child returns n's i-th child, numbered from 1.
func (tr utsTree) child(n int32, i int) int32 {
	height, _, _ := nodeFields(n)
	return packNode(height+1, tr.hash(n), i+1)
}

// root returns the root block b starts from for input seed seed.
func (tr utsTree) root(seed int64, b int) int32 {
	return packNode(0, tr.rootSeed(seed), (b+1)%255)
}

// rootSeed returns the seed byte of the roots for input seed n: the n-th
// byte, counting from 1 and cyclically, that is not a multiple of m =
// 2·avgChildren-1. A node's hash, (seed·number+5) mod 255, is a multiple
// of m whenever its seed is and m divides 255, and then so is every
// descendant's seed, and each such node has one child: a root seeded so
// grows a bare chain of maxHeight nodes, which never spills into the
// steal stacks, and the search has nothing to steal.
func (tr utsTree) rootSeed(n int64) int {
	m := int64(2*tr.avgChildren - 1)
	if m < 2 { // one child a node whatever the hash: every byte makes a chain
		return int((n%255 + 255) % 255)
	}
	good := 255 - (254/m + 1) // the bytes below 255 that are not multiples of m
	k := ((n-1)%good + good) % good
	return int(k + k/(m-1) + 1)
}

// count returns the nodes and leaves of the tree under n, n included.
func (tr utsTree) count(n int32) (nodes, leaves int) {
	c := tr.children(n)
	if c == 0 {
		return 1, 1
	}
	nodes = 1
	for i := range c {
		cn, cl := tr.count(tr.child(n, i))
		nodes, leaves = nodes+cn, leaves+cl
	}
	return nodes, leaves
}
