package vllmsim

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/llmslo/llmslo/vllmsim/engine"
)

// gapPremises check, for each reason a figure is not held to ±20%, the
// facts the reason rests on. A premise that stops holding fails the test:
// the figure must then be reproduced, or the reason rewritten.
var gapPremises = map[string]func(testing.TB) error{
	idleLesson: func(t testing.TB) error {
		// The prompt rate the reason relies on is LambdaLabs' measured one.
		p := resolved(t, lambdaConfig).Profile
		step := p.StepTime(engine.StepShape{Tokens: 2048, Seqs: 10, Sampled: 10, PrefillPairs: 10 * 205 * 206 / 2})
		if r := float64(step) / float64(48*time.Millisecond); r < 0.8 || r > 1.2 {
			return fmt.Errorf("a 2,048-token prompt step takes %v, not within 20%% of the 48 ms LambdaLabs measured", step)
		}
		// At that rate the lesson's TTFT is more than twice an H100's.
		if got := calibrationRuns(t)["lesson"].meanTTFT; 71.5 < 2*got {
			return fmt.Errorf("the simulated idle TTFT %.1f ms is over half the lesson's 71.5 ms", got)
		}
		return nil
	},
	floor: floorHolds,
	ciLengths: func(t testing.TB) error {
		ll := lambdaLabs(t)[320]
		outs := ll.OutputLens[:200]
		if m := slices.Max(outs); m > 780 {
			return fmt.Errorf("the longest of the 200 outputs is %d tokens, not at most 780", m)
		}
		// The slowest request sets the throughput: the last to finish is
		// one of the five longest.
		v, _ := burst(t, offline("h100"), ll.InputLens[:200], outs)
		var last *vreq
		for _, r := range v.finished {
			if last == nil || r.last > last.last {
				last = r
			}
		}
		sorted := slices.Sorted(slices.Values(outs))
		if fifth := sorted[len(sorted)-5]; last.out < fifth {
			return fmt.Errorf("the last request to finish has %d output tokens, fewer than the fifth longest %d", last.out, fifth)
		}
		return nil
	},
	decodeBound: func(t testing.TB) error {
		// The TTFT's excess is no more than the excess of one decode step
		// of the same run, whose ITL is a floor exception.
		s := calibrationRuns(t)["isim-70b-6"]
		if ttft, itl := s.meanTTFT-54.8, s.meanITL-8.96; ttft > itl {
			return fmt.Errorf("mean TTFT is %.1f ms over the published, more than the ITL's excess %.1f ms", ttft, itl)
		}
		if err := floorHolds(t); err != nil {
			return fmt.Errorf("the ITL it rests on: %v", err)
		}
		return nil
	},
	overload: func(t testing.TB) error {
		v := poissonRun(t, inferenceSim("meta-llama/Llama-2-70b-hf", 4), 13.86, 574, 256, 150*time.Second)
		early, late := stats(v, 30*time.Second, 60*time.Second, nil), stats(v, 120*time.Second, 150*time.Second, nil)
		if late.meanTTFT < 2*early.meanTTFT {
			return fmt.Errorf("TTFT %.0f ms in the run's last 30 s against %.0f ms from 30 to 60 s: the queue does not grow", late.meanTTFT, early.meanTTFT)
		}
		return nil
	},
}

// floorHolds checks that the published ITLs are at or past the bandwidth
// floor of an H100.
func floorHolds(t testing.TB) error {
	h100, err := engine.LookupGPU("h100")
	if err != nil {
		return err
	}
	// The roofline at the whole peak and nothing else: a one-sequence
	// decode step's layers and LM head, the weights it reads.
	peak := engine.Efficiency{Bandwidth: 1, Compute: 1, Attention: 1, Link: 1}
	for _, c := range []struct {
		model string
		tp    int
		itl   float64 // ms, published
	}{{"meta-llama/Llama-2-7b-hf", 1, 4.06}, {"meta-llama/Llama-2-70b-hf", 4, 8.96}, {"meta-llama/Llama-2-70b-hf", 4, 10.49}} {
		m, err := engine.LookupModel(c.model)
		if err != nil {
			return err
		}
		r, err := engine.NewRoofline(h100, m, c.tp, 2, peak)
		if err != nil {
			return err
		}
		linear, head, _, _, _ := r.Parts(engine.StepShape{Tokens: 1, Seqs: 1, Sampled: 1})
		floorMs := (linear + head) * 1e3
		if c.itl > 1.05*floorMs {
			return fmt.Errorf("%s on %d×H100: published ITL %.2f ms is more than 5%% over the bandwidth floor %.2f ms", c.model, c.tp, c.itl, floorMs)
		}
	}
	if engine.CalibratedEfficiency.Bandwidth > 1/1.05 {
		return fmt.Errorf("bandwidth efficiency %.2f: the floor argument needs it under 95%%", engine.CalibratedEfficiency.Bandwidth)
	}
	return nil
}

func TestCalibrationGapsHold(t *testing.T) {
	for _, f := range figures {
		if f.gap == "" {
			continue
		}
		premise, ok := gapPremises[f.gap]
		if !ok {
			t.Errorf("%s (%s): the reason it is not held has no premise check", f.name, f.setup)
			continue
		}
		if err := premise(t); err != nil {
			t.Errorf("%s (%s): %v", f.name, f.setup, err)
		}
	}
}
