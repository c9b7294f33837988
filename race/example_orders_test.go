package race_test

import (
	"context"
	"fmt"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/scope"
)

// reportsOf launches k over blocks blocks of threads threads under the
// default detector and returns how many races it reported.
func reportsOf(blocks, threads int, k func(d *gpu.Device) gpu.Kernel) int {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	defer d.Close()
	det := race.New(race.Options{})
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: blocks}, Block: gpu.Dim3{X: threads}, Observer: det}
	if err := d.Launch(context.Background(), cfg, k(d)); err != nil {
		panic(err)
	}
	return len(det.Reports())
}

// An ordered read-modify-write: block 0 publishes data with
// fetch_add(1, memory_order_release), block 1 polls with
// fetch_add(0, memory_order_acquire) and reads it; with a relaxed
// fetch_add, as CUDA's atomicAdd is, nothing orders the data.
func Example_orderedRMW() {
	for _, o := range []gpu.Order{gpu.Release, gpu.Relaxed} {
		n := reportsOf(2, 1, func(d *gpu.Device) gpu.Kernel {
			data := gpu.Alloc[int32](d, "data", 1)
			count := gpu.Alloc[uint32](d, "count", 1)
			return func(t *gpu.Thread) {
				c := count.Ref(t, 0, scope.Device) // cuda::atomic_ref<unsigned, thread_scope_device>
				if t.BlockRank() == 0 {
					data.Store(t, 0, 42)
					c.FetchAdd(1, o)
					return
				}
				for c.FetchAdd(0, gpu.Acquire) == 0 {
				}
				_ = data.Load(t, 0)
			}
		})
		fmt.Printf("%v fetch_add: %d report(s)\n", o, n)
	}
	// Output:
	// release fetch_add: 0 report(s)
	// relaxed fetch_add: 1 report(s)
}

// Dekker's mutual exclusion with __threadfence(), a fence.sc: each of
// two threads raises its flag, fences, reads the other's flag and enters
// its weak critical section only if it is 0, after a second fence that
// acquires the other's last section (whose thread fenced before it
// lowered its flag); then it fences and lowers its own. Clean in every
// run. Without the second fence nothing acquires the other's last
// section when this thread reads its lowered flag, and the pair is
// reported: here with acq_rel fences (cuda::atomic_thread_fence(
// memory_order_acq_rel)), in every run; with __threadfence() in the runs
// whose fence.sc order does not happen to order the two sections.
func Example_dekker() {
	dekker := func(fence func(t *gpu.Thread), acquire bool) func(d *gpu.Device) gpu.Kernel {
		return func(d *gpu.Device) gpu.Kernel {
			flags := gpu.Alloc[uint32](d, "flags", 2)
			n := gpu.Alloc[int32](d, "n", 1)
			return func(t *gpu.Thread) {
				if t.ThreadRank()%32 != 0 {
					return
				}
				me := t.ThreadRank() / 32
				for done := 0; done < 2; {
					flags.AtomicStore(t, me, 1, scope.Device)
					fence(t)
					if flags.AtomicLoad(t, 1-me, scope.Device) == 0 {
						if acquire {
							fence(t)
						}
						n.Store(t, 0, n.Load(t, 0)+1) // the critical section
						done++
					}
					fence(t)
					flags.AtomicStore(t, me, 0, scope.Device)
				}
			}
		}
	}
	threadFence := func(t *gpu.Thread) { t.ThreadFence() }
	acqRel := func(t *gpu.Thread) { t.FenceAcqRel(scope.Device) }
	fmt.Println("__threadfence, second fence:", reportsOf(1, 64, dekker(threadFence, true)), "report(s)")
	fmt.Println("acq_rel fences, no second fence:", reportsOf(1, 64, dekker(acqRel, false)), "report(s)")
	// Output:
	// __threadfence, second fence: 0 report(s)
	// acq_rel fences, no second fence: 1 report(s)
}

// A libcu++ spin lock translated line for line:
//
//	cuda::atomic_ref<int, cuda::thread_scope_device> l(lock[0]);
//	while (l.exchange(1, cuda::memory_order_acquire)) ;
//	n[0] += 1;
//	l.store(0, cuda::memory_order_release);
//
// is clean; the same lock with relaxed exchange and store is reported.
func Example_libcuLock() {
	lock := func(acq, rel gpu.Order) func(d *gpu.Device) gpu.Kernel {
		return func(d *gpu.Device) gpu.Kernel {
			lock := gpu.Alloc[int32](d, "lock", 1)
			n := gpu.Alloc[int32](d, "n", 1)
			return func(t *gpu.Thread) {
				l := lock.Ref(t, 0, scope.Device)
				for l.Exchange(1, acq) != 0 {
				}
				n.Store(t, 0, n.Load(t, 0)+1)
				l.Store(0, rel)
			}
		}
	}
	fmt.Println("acquire/release:", reportsOf(4, 1, lock(gpu.Acquire, gpu.Release)) == 0)
	fmt.Println("relaxed:", reportsOf(4, 1, lock(gpu.Relaxed, gpu.Relaxed)) > 0)
	// Output:
	// acquire/release: true
	// relaxed: true
}
