package main

import (
	"fmt"
	"math"

	"github.com/llmslo/llmslo/load"
)

// thinkConfig checks and applies --think-time-scale and --max-think, which
// pace the turns of a session replay (docs/sessions.md).
func (f *runFlags) thinkConfig(c *load.Plan) error {
	if !(f.thinkScale > 0) || math.IsInf(f.thinkScale, 0) {
		return fmt.Errorf("--think-time-scale %g: want a positive number (1 replays think times as recorded)", f.thinkScale)
	}
	if f.maxThink < 0 {
		return fmt.Errorf("--max-think %v: want 0 (no cap) or a positive duration", f.maxThink)
	}
	c.ThinkTimeScale, c.MaxThink = f.thinkScale, f.maxThink
	return nil
}
