package gpu_test

import "runtime"

func runtimeGoexit() { runtime.Goexit() }
