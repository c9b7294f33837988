package oracle

import (
	"context"
	"errors"

	"github.com/warpguard/warpguard/gpu"
)

// Launch runs kernel k on d with cfg, deterministically and recorded
// (cfg.Deterministic, Executor and Observer are replaced), and returns the
// oracle's verdict on the execution. A launch that fails returns its error
// with no verdict.
func Launch(ctx context.Context, d *gpu.Device, cfg gpu.LaunchConfig, k gpu.Kernel) (*Result, error) {
	rec := NewRecorder()
	cfg.Deterministic, cfg.Executor, cfg.Observer = true, gpu.Fibers, rec
	if err := d.Launch(ctx, cfg, k); err != nil {
		return nil, err
	}
	trs := rec.Traces()
	if len(trs) != 1 {
		return nil, errors.New("oracle: the launch was not recorded")
	}
	return Analyze(trs[0]), nil
}
