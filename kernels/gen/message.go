package gen

import (
	"fmt"
	"strings"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// A Message is message passing through flag f[Flag]: thread Rank of block
// Block writes the data words Data, optionally fences, and raises the
// flag; the other threads that pass To spin until they see it, optionally
// fence, and read the data. The writer never waits here, so the spinners
// always finish.
type Message struct {
	Block, Rank int         // the writer
	To          Guard       // the readers, less the writer
	Flag        int         // the flag word, f[Flag]
	Data        []int       // the data words, x[i] for each i
	PubFence    scope.Scope // the writer's fence; scope.Thread for none
	Set         gpu.Order   // how the flag is raised: Volatile, Relaxed or Release
	SetScope    scope.Scope // the scope of a Relaxed or Release raise
	Wait        gpu.Order   // how the flag is read: Volatile, Relaxed or Acquire
	WaitScope   scope.Scope // the scope of a Relaxed or Acquire read
	SubFence    scope.Scope // the readers' fence; scope.Thread for none
}

// run publishes if t is the writer, and waits and reads if it is a reader.
func (msg Message) run(t *gpu.Thread, m *mem) {
	f := flagBase + msg.Flag
	switch {
	case t.BlockRank() == msg.Block && t.ThreadRank() == msg.Rank:
		for _, d := range msg.Data {
			m.do(t, Global, d, Store, gpu.Weak, scope.Thread, uint32(t.GlobalID()+1), 0)
		}
		fenceIf(t, msg.PubFence)
		m.do(t, Global, f, Store, msg.Set, msg.SetScope, 1, 0)
	case msg.To.has(t.BlockRank(), t.ThreadRank()):
		for m.do(t, Global, f, Load, msg.Wait, msg.WaitScope, 0, 0) != 1 {
		}
		fenceIf(t, msg.SubFence)
		for _, d := range msg.Data {
			m.do(t, Global, d, Load, gpu.Weak, scope.Thread, 0, 0)
		}
	}
}

// fenceIf fences at scope s unless s is scope.Thread.
func fenceIf(t *gpu.Thread, s scope.Scope) {
	if s != scope.Thread {
		t.Fence(s)
	}
}

// String prints the message statement on one line.
func (msg Message) String() string {
	flag := fmt.Sprintf("f[%d]", msg.Flag)
	var pub, sub []string
	for _, d := range msg.Data {
		pub = append(pub, fmt.Sprintf("weak x[%d] = gid+1", d))
		sub = append(sub, fmt.Sprintf("r = weak x[%d]", d))
	}
	if msg.PubFence != scope.Thread {
		pub = append(pub, fenceText(msg.PubFence))
	}
	pub = append(pub, fmt.Sprintf("%s %s = 1", orderText(msg.Set, msg.SetScope), flag))
	wait := fmt.Sprintf("while (%s %s != 1) {}", orderText(msg.Wait, msg.WaitScope), flag)
	if msg.SubFence != scope.Thread {
		wait += "; " + fenceText(msg.SubFence)
	}
	to := msg.To.String()
	if to == "" {
		to = "true"
	}
	return fmt.Sprintf("message: if (block == %d && rank == %d) { %s } else if (%s) { %s; %s }",
		msg.Block, msg.Rank, strings.Join(pub, "; "), to, wait, strings.Join(sub, "; "))
}
