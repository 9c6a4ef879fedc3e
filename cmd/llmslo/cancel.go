package main

import (
	"errors"
	"fmt"
	"math"

	"github.com/llmslo/llmslo/load"
)

// cancelConfig checks --cancel-rate, --cancel-after and --requests-out
// and copies them into c.
func (f *runFlags) cancelConfig(c *load.Plan) error {
	switch {
	case math.IsNaN(f.cancelRate) || f.cancelRate < 0 || f.cancelRate > 1:
		return fmt.Errorf("--cancel-rate %g: want a fraction in [0, 1]", f.cancelRate)
	case f.cancelRate > 0 && f.cancelAfter <= 0:
		return errors.New("--cancel-rate needs --cancel-after, e.g. --cancel-after 2s")
	case f.cancelAfter != 0 && f.cancelRate == 0:
		return errors.New("--cancel-after needs --cancel-rate, e.g. --cancel-rate 0.1")
	case f.cancelAfter < 0:
		return fmt.Errorf("--cancel-after %v must be positive", f.cancelAfter)
	}
	c.CancelRate, c.CancelAfter, c.RequestsOut = f.cancelRate, f.cancelAfter, f.requestsOut
	return nil
}
