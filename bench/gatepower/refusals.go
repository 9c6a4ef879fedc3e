package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/llmslo/llmslo/internal/busy"
	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/vllmsim"
)

// refusalServers are the -refusals modes.
var refusalServers = []string{"inproc", "process", "neighbour", "knee", "starved", "starved2"}

// refusalSLOs are the PR gate's SLOs in the refusal mode; the default
// error-rate guard (at most 1%) applies beside them.
var refusalSLOs = []string{"ttft.p90<=5s", "itl.p99<=2s"}

// kneeSLOs gate the knee mode: the README's sweep past a small server's
// knee.
var kneeSLOs = []string{"ttft.p50<=2s"}

// refusalRun runs the PR gate trials times against server, parallel runs at
// a time (the in-process modes only), and prints how often it failed or
// refused to judge a healthy server. set holds the
// flags given on the command line: those keep their values, the others
// take the mode's defaults.
func refusalRun(ctx context.Context, server string, trials, parallel int, g gateSpec, set map[string]bool) error {
	g, profile := refusalGate(server, g, set)
	var stops cleanup
	defer stops.run()
	target, setup, err := refusalServer(ctx, server, profile, g, &stops)
	if err != nil {
		return err
	}
	if parallel > 1 && server != "inproc" && server != "knee" {
		return fmt.Errorf("-parallel %d: only the in-process modes (inproc, knee) run several at once", parallel)
	}
	t, err := refusalTrials(ctx, server, target, g, trials, parallel)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "server\truns\tpass\tfail\tof which over capacity\tinvalid\tfail or invalid\t95%% interval\t%s\tinvalid hazards\n", measuredHeader)
	fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\n", t.name, t.runs, t.pass, t.fail, t.overload, t.invalid,
		rate(t.fail+t.invalid, t.runs), t.measured(g.d.Seconds()), kinds(t.hazards))
	fmt.Fprintf(tw, "\ngate: %s at %g req/s (Poisson), %s, profile %s, SLOs %s (+ default error guard), no starved retries\n",
		cmp.Or(g.fixture, "azure-conv-2023"), g.rate, g.steps(), profile, strings.Join(g.slos, " "))
	fmt.Fprintf(tw, "server: %s; %d run(s) at a time, a fresh seed each (%d…%d)%s\n", setup, max(parallel, 1), g.firstSeed, g.firstSeed+int64(max(trials-1, 0)), g.clock())
	return tw.Flush()
}

// refusalGate is the gate of mode server and the step profile it serves:
// the mode's defaults, but for the flags in set, which keep g's values.
func refusalGate(server string, g gateSpec, set map[string]bool) (gateSpec, string) {
	def := gateSpec{rate: 6, d: 30 * time.Second, warmup: 5 * time.Second, slos: refusalSLOs}
	profile := "h200-llama3-8b"
	if server == "knee" {
		def = gateSpec{fixture: "fixed:128:64", rate: 5, d: 20 * time.Second, warmup: 2 * time.Second, slos: kneeSLOs}
	}
	if server == "starved" || server == "starved2" {
		def = gateSpec{fixture: "fixed:16:4", rate: 10000, d: 2 * time.Second, slos: refusalSLOs}
		if server == "starved2" {
			def.rate = 20000
		}
		profile = "instant"
	}
	if set["rate"] {
		def.rate = g.rate
	}
	if set["duration"] {
		def.d = g.d
	}
	if set["warmup"] {
		def.warmup = g.warmup
	}
	if set["slos"] {
		def.slos = g.slos
	}
	def.firstSeed = g.firstSeed
	def.untilDecided, def.minDuration, def.virtual = g.untilDecided, g.minDuration, g.virtual
	return def, profile
}

// cleanup is what undoes a setup: functions run last first.
type cleanup []func()

func (c *cleanup) add(f func()) { *c = append(*c, f) }

func (c *cleanup) run() {
	for i := len(*c) - 1; i >= 0; i-- {
		(*c)[i]()
	}
}

// refusalServer sets up the server of mode server and says in words what
// it is. What undoes the setup goes on stops, also when it fails part way.
func refusalServer(ctx context.Context, server, profile string, g gateSpec, stops *cleanup) (target load.Target, setup string, err error) {
	target = g.sim(vllmsim.Config{ProfileName: profile})
	if g.virtual && server != "inproc" && server != "knee" {
		return nil, "", fmt.Errorf("-refusals %s runs in real time: only inproc and knee run in virtual time", server)
	}
	switch server {
	case "inproc":
		setup = "the simulator in this process"
	case "knee":
		target = g.sim(vllmsim.Config{ProfileName: profile, MaxNumSeqs: 2})
		setup = "the simulator in this process with --max-num-seqs 2 (4.3 to 4.5 req/s of capacity: 5 req/s is about 1.15 times it)"
	case "process", "neighbour":
		url, stop, err := startSimProcess(ctx, profile)
		if err != nil {
			return nil, "", err
		}
		stops.add(stop)
		target = load.URLTarget{URL: url}
		setup = "the simulator in its own process (llmslo sim at " + url + ")"
		if server == "neighbour" {
			stop, err := startSpinner()
			if err != nil {
				return nil, "", err
			}
			stops.add(stop)
			setup += ", beside a process spinning on one core"
		}
	case "starved":
		prev := runtime.GOMAXPROCS(1)
		stops.add(func() { runtime.GOMAXPROCS(prev) })
		setup = "the simulator in this process, GOMAXPROCS 1 shared with 4 busy loops"
	case "starved2":
		prev := runtime.GOMAXPROCS(2)
		stops.add(func() { runtime.GOMAXPROCS(prev) })
		setup = "the simulator in this process, GOMAXPROCS 2"
	default:
		return nil, "", fmt.Errorf("-refusals %q: want one of %s", server, strings.Join(refusalServers, ", "))
	}
	return target, setup, nil
}

// refusalTrials runs the gate trials times against target, parallel at
// once, a fresh seed each, and tallies the verdicts; in the starved mode
// each run has 4 busy loops beside it.
func refusalTrials(ctx context.Context, server string, target load.Target, g gateSpec, trials, parallel int) (*tally, error) {
	t := newTally(server)
	var mu sync.Mutex
	err := forEach(trials, max(parallel, 1), func(i int) error {
		seed := g.firstSeed + int64(i)
		var stopBusy func()
		if server == "starved" {
			stopBusy = busy.Loops(4)
		}
		start := time.Now()
		rep, err := g.run(ctx, target, seed, nil)
		if stopBusy != nil {
			stopBusy()
		}
		if err != nil {
			return fmt.Errorf("run %d (seed %d): %w", i, seed, err)
		}
		mu.Lock()
		defer mu.Unlock()
		st := &rep.Steps[0]
		t.count(st)
		logRun(i, seed, time.Since(start), st)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// startSimProcess builds cmd/llmslo, serves the simulator from it on a
// free loopback port and waits for its /health. stop kills it.
func startSimProcess(ctx context.Context, profile string) (url string, stop func(), err error) {
	dir, err := os.MkdirTemp("", "gatepower")
	if err != nil {
		return "", nil, err
	}
	bin := filepath.Join(dir, "llmslo")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/llmslo")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("building cmd/llmslo (run from the repository root): %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	sim := exec.Command(bin, "sim", "--profile", profile, "--host", "127.0.0.1", "--port", strconv.Itoa(port))
	logf, err := os.Create(filepath.Join(dir, "sim.log"))
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	sim.Stdout, sim.Stderr = logf, logf
	if err := sim.Start(); err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- sim.Wait() }()
	stop = func() {
		sim.Process.Kill()
		<-exited
		logf.Close()
		os.RemoveAll(dir)
	}
	url = "http://127.0.0.1:" + strconv.Itoa(port)
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case err := <-exited:
			exited <- err
			stop()
			return "", nil, fmt.Errorf("llmslo sim exited before it was healthy: %v", err)
		default:
		}
		if resp, err := http.Get(url + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url, stop, nil
			}
		}
		if time.Now().After(deadline) {
			stop()
			return "", nil, errors.New("llmslo sim was not healthy within 30s")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// startSpinner starts a neighbour process that keeps one core busy until
// stop kills it.
func startSpinner() (stop func(), err error) {
	c := exec.Command("sh", "-c", "while :; do :; done")
	if err := c.Start(); err != nil {
		return nil, err
	}
	done := make(chan struct{})
	go func() { c.Wait(); close(done) }()
	return func() { c.Process.Kill(); <-done }, nil
}

// forEach calls f(0) … f(n-1), at most parallel at once, and returns the
// first error (the calls under way finish; no new one starts).
func forEach(n, parallel int, f func(int) error) error {
	slots := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for i := range n {
		slots <- struct{}{}
		mu.Lock()
		stop := first != nil
		mu.Unlock()
		if stop {
			<-slots
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			if err := f(i); err != nil {
				mu.Lock()
				first = cmp.Or(first, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return first
}

// logRun prints one run's verdict and what decided it, on stderr.
func logRun(i int, seed int64, took time.Duration, st *report.StepReport) {
	fmt.Fprintf(os.Stderr, "run %d (seed %d, %.0fs): %s", i, seed, took.Seconds(), st.Verdict)
	if d := st.UntilDecided; d != nil {
		fmt.Fprintf(os.Stderr, "  %.1f s measured: %s", st.DurationS, d.Why)
	}
	if e := st.Evidence; e != nil && e.TTFTFirstHalf != nil && e.TTFTSecondHalf != nil {
		// What the half-median rule read: a trace's shape moves it.
		fmt.Fprintf(os.Stderr, "  ttft p50 by half %.0f / %.0f ms", ms(e.TTFTFirstHalf.Quantile(50)), ms(e.TTFTSecondHalf.Quantile(50)))
	}
	for _, n := range st.Notes {
		if n.Kind == "not_steady" {
			fmt.Fprintf(os.Stderr, "  note not_steady: %s", n.Message)
		}
	}
	if st.OverCapacity != nil {
		fmt.Fprintf(os.Stderr, "  %s", st.OverCapacity.Message)
	}
	for _, h := range st.Hazards {
		fmt.Fprintf(os.Stderr, "  %s: %s", h.Kind, h.Message)
	}
	for _, r := range st.SLO {
		if !r.Pass {
			fmt.Fprintf(os.Stderr, "  %s failed (observed %.4g ms / rate %.4g)", r.Metric, r.ObservedMs, r.Observed)
		}
	}
	if len(st.Errors) > 0 {
		fmt.Fprintf(os.Stderr, "  errors %v %v", st.Errors, st.ErrorMessages)
	}
	fmt.Fprintf(os.Stderr, "  (send lag p99 %.1f ms)\n", st.SendLag.P99)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
