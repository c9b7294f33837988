package gpu

import (
	"fmt"
	"strconv"
	"strings"
)

// Every error and report names a thread and a block by their coordinates,
// CUDA's threadIdx and blockIdx, written "(x,y,z)" as [Dim3.String] writes
// them: "thread (3,0,0) of block (1,0,0)". The helpers here write lists of
// threads so.

// ranges formats sorted ids compactly, as "0-3,7,9-12".
func ranges(ids []int) string { return coordRanges(ids, strconv.Itoa) }

// coordRanges formats sorted linear ids compactly, each run of
// consecutive ids as "first-last", naming each id with name: with
// rankName, "(0,0,0)-(3,0,0),(7,0,0)".
func coordRanges(ids []int, name func(int) string) string {
	var b strings.Builder
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(name(ids[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(name(ids[j]))
		}
		i = j + 1
	}
	return b.String()
}

// rankName returns a function naming a rank of a block of extent dim by
// its threadIdx; with dim unknown (zero), by the rank itself.
func rankName(dim Dim3) func(int) string {
	if dim.X == 0 {
		return strconv.Itoa
	}
	return func(r int) string { return dim.index(r).String() }
}

// gridThreads formats sorted global thread ids of a launch of grid blocks
// of block threads, warp threads a warp, block by block, each block's as
// threadList names them: "threads (0,0,0)-(39,0,0) of block (0,0,0),
// threads (0,0,0) of block (1,0,0)". Blocks past maxListedBlocks are
// counted. With the extents unknown it writes "global threads 0-39,41".
func gridThreads(ids []int, grid, block Dim3, warp int) string {
	if block.X == 0 || grid.X == 0 {
		return "global threads " + ranges(ids)
	}
	var parts []string
	n := block.Size()
	for i := 0; i < len(ids); {
		j := i
		for j < len(ids) && ids[j]/n == ids[i]/n {
			j++
		}
		if len(parts) == maxListedBlocks {
			return strings.Join(parts, ", ") + fmt.Sprintf(" and %d threads of %d more blocks", len(ids)-i, blocksIn(ids[i:], n))
		}
		ranks := make([]int, j-i)
		for k := range ranks {
			ranks[k] = ids[i+k] % n
		}
		parts = append(parts, fmt.Sprintf("%s of block %v", threadList(ranks, block, warp), grid.index(ids[i]/n)))
		i = j
	}
	return strings.Join(parts, ", ")
}

// maxListedBlocks is how many blocks a list of a grid's threads names.
const maxListedBlocks = 8

// blocksIn counts the blocks of n threads that sorted global ids fall in.
func blocksIn(ids []int, n int) int {
	c := 0
	for i, id := range ids {
		if i == 0 || id/n != ids[i-1]/n {
			c++
		}
	}
	return c
}
