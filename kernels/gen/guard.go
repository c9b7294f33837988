package gen

import "fmt"

// A Guard picks the threads that run a statement: those of block Block
// (every block if Block < 0) whose rank r has r % Mod == Rem.
type Guard struct {
	Block    int
	Mod, Rem int
}

// everyone returns the guard every thread passes.
func everyone() Guard { return Guard{Block: -1, Mod: 1} }

// has reports whether the thread of rank r in block b passes g.
func (g Guard) has(b, r int) bool { return (g.Block < 0 || g.Block == b) && r%g.Mod == g.Rem }

// String returns the guard as a condition, or "" for every thread.
func (g Guard) String() string {
	var s string
	if g.Block >= 0 {
		s = fmt.Sprintf("block == %d", g.Block)
	}
	if g.Mod == 1 {
		return s
	}
	if s != "" {
		s += " && "
	}
	if g.Mod == maxThreads {
		return s + fmt.Sprintf("rank == %d", g.Rem)
	}
	return s + fmt.Sprintf("rank %% %d == %d", g.Mod, g.Rem)
}

// An Index picks the word a thread accesses among N:
// (Stride*rank + Off) % N.
type Index struct {
	Stride, Off, N int
}

// of returns the index for rank r.
func (x Index) of(r int) int { return (x.Stride*r + x.Off) % x.N }

// String returns the index expression.
func (x Index) String() string {
	if x.Stride == 0 {
		return fmt.Sprint(x.Off % x.N)
	}
	return fmt.Sprintf("(rank+%d)%%%d", x.Off, x.N)
}
