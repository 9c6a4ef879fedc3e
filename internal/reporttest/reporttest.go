// Package reporttest holds report values that the tests of load/report and
// load/render both read, so that each is written once. Only tests import
// it; load/report's own tests import it from the external package
// report_test, since it imports load/report.
package reporttest

import (
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/stats"
)

// SessionStep is a session replay's step, its turns by position. Tests
// assert its numbers as they are written out: change one and they fail.
func SessionStep() report.StepReport {
	return report.StepReport{Name: "rate=0.5", RateTarget: 0.5, RateAchieved: 0.45, DurationS: 20, Verdict: report.VerdictPass,
		Sessions: &report.SessionCounts{Scheduled: 10, Started: 10, StartedInWindow: 9, Completed: 9, Cut: 1, TurnsNotSent: 3, SubAgents: 4,
			ThinkTimeScale: 0.1, MaxThinkS: 2, ExpectedPrefixHitRate: 0.86},
		Turns: &report.TurnPositions{
			First: report.TurnStats{Sent: 14, Completed: 14, TTFT: stats.Summary{Count: 14, P50: 812, P95: 1400}},
			Later: report.TurnStats{Sent: 120, Completed: 119, Failed: 1, TTFT: stats.Summary{Count: 120, P50: 95, P95: 180}},
		}}
}
