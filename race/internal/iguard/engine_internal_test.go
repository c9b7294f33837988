package iguard

import "github.com/warpguard/warpguard/race/internal/shared"

// testEngine returns an engine of the default configuration, with a site
// cache and a sink of its own, for tests of its parts.
func testEngine() *Engine {
	sink := new(shared.Sink)
	sink.Init(100, nil)
	return New(Config{Granularity: 4}, new(shared.Sites), sink)
}
