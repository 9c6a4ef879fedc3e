package verdict

import "math"

// BaselineLooks is how many looks of a step run until decided may compare
// it with the baseline.
const BaselineLooks = 4

// BaselineLooksReached counts the baseline looks' horizons at or before
// h seconds into the window: BaselineLooks horizons spaced evenly from the
// floor floorS to the cap capS, the last of which is the step's final
// judgement. A look whose cohort (its requests sent before h have all
// finished) reaches more of them than the looks before it compares with
// the baseline, once however many it passed. The horizons space the
// comparisons, not the looks' own times: a comparison is made on the whole
// seconds of finished requests both runs hold, which lag a look by the
// requests' length, and its bootstrap needs ten such seconds.
func BaselineLooksReached(h, floorS, capS float64) int {
	floorS = min(floorS, capS)
	n := 0
	for k := range BaselineLooks {
		if h >= baselineHorizon(k, floorS, capS) {
			n++
		}
	}
	return n
}

func baselineHorizon(k int, floorS, capS float64) float64 {
	return floorS + (capS-floorS)*float64(k)/float64(BaselineLooks-1)
}

// BaselineSpent is the share of the comparison's error rate, 1 −
// CIConfidence, that the baseline looks of a step run until decided have
// spent once they have compared at reached of the BaselineLooks horizons:
// α(t) = 2 − 2Φ(z/√t), t the last horizon's share of the cap and z the
// fixed interval's two-sided quantile (the spending that takes the shape
// of O'Brien and Fleming's bounds; Lan and DeMets, Biometrika 1983). A
// look compares at confidence 1 − (α(t) − what earlier looks spent), and
// the step's last judgement at what is left, so that together they err at
// most as often as one 95% interval, by the union bound, however alike
// their samples. Early looks then call only what is plain (a third of
// the way to a 30 s cap, at 99.93%), and the last keeps most of a fixed
// interval's power (at 97.6% after three looks, 95% after none).
func BaselineSpent(reached int, floorS, capS float64) float64 {
	alpha := 1 - CIConfidence
	if reached <= 0 || capS <= 0 {
		return 0
	}
	if reached >= BaselineLooks {
		return alpha
	}
	t := baselineHorizon(reached-1, min(floorS, capS), capS) / capS
	z := math.Sqrt2 * math.Erfinv(CIConfidence) // the fixed interval's quantile, 1.96
	return min(alpha, math.Erfc(z/math.Sqrt(t)/math.Sqrt2))
}

// BaselineSpending follows what a step's baseline looks have spent of the
// comparison's error rate (BaselineSpent); the zero value has spent none.
type BaselineSpending struct {
	reached int
	spent   float64
}

// Look returns the confidence at which a look whose cohort reaches h
// seconds into the window compares with the baseline, and spends it: 0
// when the look reaches no horizon that the looks before it had not.
func (b *BaselineSpending) Look(h, floorS, capS float64) float64 {
	reached := BaselineLooksReached(h, floorS, capS)
	if reached <= b.reached {
		return 0
	}
	spent := BaselineSpent(reached, floorS, capS)
	level := 1 - (spent - b.spent)
	b.reached, b.spent = reached, spent
	return level
}

// Rest is the confidence of the step's last comparison: what the looks
// left of the error rate.
func (b *BaselineSpending) Rest() float64 { return CIConfidence + b.spent }
