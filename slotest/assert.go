package slotest

import (
	"bytes"
	"fmt"

	"github.com/llmslo/llmslo/load/render"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/stretchr/testify/assert"
)

// AssertSLO checks an SLO expression ("ttft.p95<=500ms", "e2el.p50<=2s",
// "error_rate<=1%") against a step, any metric at any percentile. On
// failure it prints the step's table. It returns whether the SLO held.
func AssertSLO(t assert.TestingT, st *report.StepReport, expr string) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper() // a failure points at the caller's line
	}
	slo, err := verdict.ParseSLO(expr)
	if err != nil {
		return assert.Fail(t, fmt.Sprintf("slotest: %v", err))
	}
	r := verdict.Check(st, slo, false)
	if r.Pass {
		return true
	}
	return assert.Fail(t, fmt.Sprintf("%s: SLO violated: %s", st.Name, render.FailedSLO(r)), stepTable(st))
}

// AssertP95TTFT checks the step's p95 time to first token.
func AssertP95TTFT(t assert.TestingT, st *report.StepReport, limit string) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper() // a failure points at the caller's line
	}
	return AssertSLO(t, st, "ttft.p95<="+limit)
}

// AssertP99ITL checks the step's p99 inter-token latency.
func AssertP99ITL(t assert.TestingT, st *report.StepReport, limit string) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper() // a failure points at the caller's line
	}
	return AssertSLO(t, st, "itl.p99<="+limit)
}

// AssertErrorRate checks the step's error rate, given as "1%" or "0.01".
func AssertErrorRate(t assert.TestingT, st *report.StepReport, limit string) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper() // a failure points at the caller's line
	}
	return AssertSLO(t, st, "error_rate<="+limit)
}

// AssertGoodput checks that at least min (a fraction) of the step's
// scheduled requests met every per-request SLO.
func AssertGoodput(t assert.TestingT, st *report.StepReport, min float64) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper() // a failure points at the caller's line
	}
	if st.Goodput >= min {
		return true
	}
	return assert.Fail(t, fmt.Sprintf("%s: goodput %.1f%% is under %.1f%% (%d of %d requests met every per-request SLO)",
		st.Name, 100*st.Goodput, 100*min, st.Requests.Good, st.Requests.Scheduled), stepTable(st))
}

// AssertValid checks that no hazard made the step's measurement
// untrustworthy.
func AssertValid(t assert.TestingT, st *report.StepReport) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper() // a failure points at the caller's line
	}
	if len(st.Hazards) == 0 {
		return true
	}
	return assert.Fail(t, fmt.Sprintf("%s: the measurement cannot be trusted", st.Name), stepTable(st))
}

// AssertHazard checks that a hazard of the kind fired: for tests of the
// hazard detectors themselves, and for examples that show a trap.
func AssertHazard(t assert.TestingT, st *report.StepReport, kind string) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper() // a failure points at the caller's line
	}
	if st.HasHazard(kind) {
		return true
	}
	return assert.Fail(t, fmt.Sprintf("%s: expected hazard %s, got none of that kind", st.Name, kind), stepTable(st))
}

// stepTable is the step's table; an overload step's is the gate's.
func stepTable(st *report.StepReport) string {
	if g := st.OverloadGate; g != nil {
		return gateTable(st, g)
	}
	var b bytes.Buffer
	render.WriteStep(&b, st)
	return b.String()
}

// tHelper is a testing.TB's Helper, which assert.TestingT lacks.
type tHelper interface{ Helper() }
