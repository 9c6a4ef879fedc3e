package load

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/internal/simtest"
	"github.com/llmslo/llmslo/load/arrival"
	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/dispatch"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/load/workload"
	"github.com/llmslo/llmslo/vllmsim"
)

// testSim is the simulator as a target, for this package's own tests:
// package vllmsim/simtarget, which the faces use, imports this one.
type testSim struct {
	cfg vllmsim.Config
	// virtual serves on in-memory connections, for a test in a
	// testing/synctest bubble (virtualSimTarget).
	virtual bool
}

// virtualSimTarget is the simulator on in-memory connections, for a plan
// measured in virtual time: inside synctest.Test, a step of a minute takes
// the CPU time it needs. Such a run tests the server and the judgement,
// never the client: its sends are never late.
func virtualSimTarget(cfg vllmsim.Config) Target { return testSim{cfg: cfg, virtual: true} }

func simTarget(cfg vllmsim.Config) Target { return testSim{cfg: cfg} }

// simArgsTarget is the simulator configured by vLLM serve flags.
func simArgsTarget(t testing.TB, args ...string) Target {
	cfg, err := vllmsim.ParseServeArgs(args)
	require.NoError(t, err)
	return testSim{cfg: cfg}
}

func (s testSim) Start(context.Context) (*Endpoint, error) {
	var srv *vllmsim.Server
	var dial func(context.Context, string, string) (net.Conn, error)
	if s.virtual {
		srv, dial = simtest.NewInMemory(s.cfg)
	} else {
		srv = vllmsim.NewServer(s.cfg)
	}
	model := srv.Config.ServedModelName
	if model == "" {
		model = srv.Config.Model
	}
	return &Endpoint{Kind: KindSim, URL: srv.URL, Model: model, MaxModelLen: srv.Config.MaxModelLen,
		MaxNumSeqs: srv.Config.MaxNumSeqs, KVCacheTokens: srv.Config.NumGPUBlocks * srv.Config.BlockSize,
		Dial: dial, VirtualTime: s.virtual, Stop: func() error { srv.Close(); return nil }}, nil
}

// virtualEngine starts the simulator on cfg on in-memory connections and
// returns a client of it, for a test inside synctest.Test: its plan must
// also wait on the runtime timer alone (inVirtualTime).
func virtualEngine(t *testing.T, cfg vllmsim.Config) *client.Client {
	t.Helper()
	srv, dial := simtest.StartInMemory(t, cfg)
	c, err := client.New(client.Config{BaseURL: srv.URL, Model: "m", StallTimeout: 5 * time.Second, Dial: dial})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

// inVirtualTime makes a plan's sends wait on the runtime timer, the one
// clock a testing/synctest bubble moves.
func inVirtualTime(p *stepPlan) { p.Send.Wait = dispatch.WaitTimer }

// runPlan runs every step of a plan built by hand (its own Doer and
// Workload, no target) through Measurement.Step, as Measure does; when ctx
// ends it returns the report so far, marked partial. Its settings are the
// test's: Open's validation is tested through Open.
func runPlan(ctx context.Context, p stepPlan) (*report.Report, error) {
	if err := p.settle(); err != nil {
		return nil, err
	}
	s := &Measurement{plan: p, report: p.newReport()}
	return s.steps(ctx)
}

// handPlan is a plan built by hand, for runPlan: the test's own Doer and
// Workload (nil for a session replay), constant arrivals, and client-side
// hazards quiet. Tests set any other field on what it returns.
func handPlan(doer dispatch.Doer, work workload.Workload, rates []float64, d time.Duration, slos []verdict.SLO) stepPlan {
	return stepPlan{Send: dispatch.Sender{Doer: doer}, Workload: work, Plan: Plan{Rates: rates,
		Arrival: arrival.Spec{Kind: arrival.Constant}, Duration: d, SLOs: slos, Thresholds: quietThresholds()}}
}
