package load

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/llmslo/llmslo/load/dispatch"
	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/load/workload"
)

// runClosedLoop measures the plan's workload with a closed loop of clients
// for the plan's Duration and judges the plan's SLOs on it, for contrast
// with an open-loop step. Its report is named "closed=N"; it carries no
// hazards, because the closed loop's trap is not one a hazard can see:
// every request is on time by construction.
func runClosedLoop(ctx context.Context, p stepPlan, clients int, firstIndex int) (*report.StepReport, int, error) {
	if clients <= 0 {
		return nil, 0, errors.New("a closed loop needs at least one client")
	}
	start := time.Now()
	rec := observe.NewRecorder(start, p.Duration, verdict.GoodputLimits(p.SLOs), observe.LengthCheck{Tolerance: p.Thresholds.Resolved().LengthTolerance})
	w := workload.WorkloadFunc(func(i int) workload.Request { return p.Workload.Request(firstIndex + i) })
	cl := dispatch.ClosedLoop{Clients: clients, Duration: p.Duration, Workload: w, Doer: p.Send.Doer, Sink: rec}
	n := cl.Run(ctx)
	rs, _ := rec.Summary()
	st := &rs
	st.Name = fmt.Sprintf("closed=%d", clients)
	st.Arrival = "closed"
	st.DurationS = p.Duration.Seconds()
	st.Requests.Scheduled = n
	st.RateTarget = float64(n) / p.Duration.Seconds()
	st.SetGoodput(n)
	verdict.JudgeSLOs(st, p.judge).Apply(st)
	if ctx.Err() != nil {
		st.Partial = true
		return st, n, ctx.Err()
	}
	return st, n, nil
}
