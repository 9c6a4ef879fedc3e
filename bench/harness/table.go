package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// tableCmd prints every result of a compare.sh run as one markdown table:
// the median of each figure over its repeats, llmslo beside its reference.
func tableCmd(args []string) error {
	fs := flag.NewFlagSet("table", flag.ExitOnError)
	in := fs.String("in", "results.jsonl", "the results")
	sweeps := fs.String("sweeps", "", "llmslo sweep reports, each LABEL=FILE, separated by ';'")
	_ = fs.Parse(args)
	rs, err := readResults(*in)
	if err != nil {
		return err
	}
	t := &table{rs: rs}
	if len(rs) > 0 {
		loads := make([]float64, len(rs))
		for i, r := range rs {
			loads[i] = r.Load
		}
		slices.Sort(loads)
		fmt.Printf("load average (1 min) as the %d measures ended: %.2f to %.2f, median %.2f\n\n",
			len(rs), loads[0], loads[len(loads)-1], loads[len(loads)/2])
	}
	t.print(os.Stdout)
	for _, s := range strings.Split(*sweeps, ";") {
		label, file, ok := strings.Cut(s, "=")
		if ok {
			printSweep(os.Stdout, label, file)
		}
	}
	return nil
}

func readResults(path string) ([]result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rs []result
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r result
		if err := json.Unmarshal(sc.Bytes(), &r); err == nil {
			rs = append(rs, r)
		}
	}
	return rs, sc.Err()
}

type table struct{ rs []result }

// med is the median of val over the results of that kind, label, mode and
// rate (rate 0 matches any), and how many there were; NaN-free: 0, 0 when
// none.
func (t *table) med(kind, label, mode string, rate float64, val string) (float64, int) {
	var xs []float64
	for _, r := range t.rs {
		if r.Kind != kind || r.Label != label || (mode != "" && r.Mode != mode) || (rate != 0 && r.Rate != rate) {
			continue
		}
		if v, ok := r.Vals[val]; ok {
			xs = append(xs, v)
		}
	}
	if len(xs) == 0 {
		return 0, 0
	}
	slices.Sort(xs)
	m := xs[len(xs)/2]
	if len(xs)%2 == 0 {
		m = (xs[len(xs)/2-1] + m) / 2
	}
	return m, len(xs)
}

func (t *table) print(w io.Writer) {
	fmt.Fprintln(w, "| measure | llmslo | reference | ratio | target |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	if len(t.rs) == 0 {
		return // the sweeps alone (compare.sh -S): their rows follow
	}
	row := func(measure, ours, ref, ratio, target string) {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", measure, ours, ref, ratio, target)
	}
	ratio := func(a, b float64, limit float64) (string, string) {
		if a == 0 || b == 0 {
			return "n/a", "n/a"
		}
		r := a / b
		s := fmt.Sprintf("%.2f×", r)
		if limit == 0 {
			return s, "—"
		}
		if r <= limit {
			return s, fmt.Sprintf("≤ %.2f×: met", limit)
		}
		return s, fmt.Sprintf("≤ %.2f×: not met", limit)
	}

	for _, p := range []struct{ mode, what string }{
		{"spaced", "events 1 ms apart, one a read"},
		{"burst", "events written 16 at a time, many a read"},
	} {
		ours, n := t.okMed("llmslo run", p.mode)
		drain, m := t.okMed("drain", p.mode)
		if n == 0 && m == 0 {
			continue
		}
		r, tg := ratio(ours["cpu_ns_per_token"], drain["cpu_ns_per_token"], 1.15)
		if lo, hi, k := t.pairRatios("llmslo run", "drain", p.mode); k > 1 {
			r += fmt.Sprintf(" (pairs %.2f–%.2f)", lo, hi)
		}
		row(fmt.Sprintf("client CPU per streamed token, whole process (100 req/s of 256-token streams for 5 s; %s): user + system", p.what),
			fmt.Sprintf("llmslo run %.2f µs (%.2f + %.2f) (n=%d)", ours["cpu_ns_per_token"]/1e3, ours["user_ns_per_token"]/1e3, ours["sys_ns_per_token"]/1e3, n),
			fmt.Sprintf("bench/drain %.2f µs (%.2f + %.2f) (n=%d)", drain["cpu_ns_per_token"]/1e3, drain["user_ns_per_token"]/1e3, drain["sys_ns_per_token"]/1e3, m), r, tg)
		ours1, n1 := t.okMed("llmslo run 1s", p.mode)
		drain1, m1 := t.okMed("drain 1s", p.mode)
		mo, md := perTokenBeyond(ours, ours1), perTokenBeyond(drain, drain1)
		if n1 > 0 && m1 > 0 && mo > 0 && md > 0 {
			r, tg := ratio(mo, md, 1.15)
			row("… beyond what a process pays once (5 s run minus 1 s run: start-up, the report)",
				fmt.Sprintf("llmslo run %.2f µs (n=%d)", mo/1e3, min(n, n1)), fmt.Sprintf("bench/drain %.2f µs (n=%d)", md/1e3, min(m, m1)), r, tg)
		}
	}
	for _, p := range []struct{ suffix, what string }{{"", "events 1 ms apart"}, {"-burst", "events 16 a write"}} {
		ours, n := t.med("stream", "llmslo"+p.suffix, "", 0, "cpu_ns_per_token")
		bare, m := t.med("stream", "bare"+p.suffix, "", 0, "cpu_ns_per_token")
		if n == 0 && m == 0 {
			continue
		}
		r, _ := ratio(ours, bare, 0)
		row(fmt.Sprintf("… in-process, the streams only (64 at a time, 256 tokens, %s; client and recorder)", p.what),
			fmt.Sprintf("%.2f µs (n=%d)", ours/1e3, n), fmt.Sprintf("bare draining client %.2f µs (n=%d)", bare/1e3, m), r, "—")
	}
	if len(t.rs) > 0 && !t.has("cpu", "llmslo run 10s") && !t.has("lag", "llmslo") {
		return // compare.sh -t: the token rows only
	}

	ours, n := t.med("cpu", "llmslo run 10s", "", 0, "cpu_us_per_req")
	veg, m := t.med("cpu", "vegeta 10s", "", 0, "cpu_us_per_req")
	r, tg := ratio(ours, veg, 1.0)
	vegS := fmt.Sprintf("vegeta attack %.1f µs (n=%d)", veg, m)
	if m == 0 {
		vegS = "vegeta: not installed, skipped"
	}
	row("CPU per request, 2,000 req/s of one-token streams for 10 s (whole process)",
		fmt.Sprintf("llmslo run %.1f µs (n=%d)", ours, n), vegS, r, tg)
	ours, n = t.marginal("llmslo run")
	veg, m = t.marginal("vegeta")
	r, tg = ratio(ours, veg, 1.0)
	row("… per request beyond what a process pays once (10 s run minus 2 s run)",
		fmt.Sprintf("llmslo run %.1f µs (n=%d)", ours, n), fmt.Sprintf("vegeta attack %.1f µs (n=%d)", veg, m), r, tg)
	step, n := t.med("lag", "llmslo", "fine", 2000, "cpu_us_per_req")
	if n > 0 {
		row("… the step's measured window only (dispatcher, client, recorder; constant arrivals)", fmt.Sprintf("%.1f µs (n=%d)", step, n), "", "", "")
	}

	for _, rate := range []float64{1000, 5000, 10000} {
		target := ""
		if rate == 5000 {
			target = "p99 ≤ 1 ms: "
			if p99, k := t.med("lag", "llmslo", "fine", rate, "lag_p99_ms"); k > 0 && p99 <= 1 {
				target += "met"
			} else {
				target += "not met"
			}
		}
		row(fmt.Sprintf("send lag p50 / p99 / max, CPU per request: %s req/s, Poisson, one-token streams", thousands(rate)),
			t.lag(rate, "fine"), t.lag(rate, "timer")+"; "+t.lag(rate, "spin"), "", target)
	}

	ours, n = t.med("mem", "llmslo", "", 0, "rss_kib_per_str")
	bare, m := t.med("mem", "bare", "", 0, "rss_kib_per_str")
	heap, _ := t.med("mem", "llmslo", "", 0, "heap_kib_per_str")
	stk, _ := t.med("mem", "llmslo", "", 0, "stacks_kib_per_str")
	bheap, _ := t.med("mem", "bare", "", 0, "heap_kib_per_str")
	bstk, _ := t.med("mem", "bare", "", 0, "stacks_kib_per_str")
	r, _ = ratio(ours, bare, 0)
	row("memory per in-flight stream (2,000 held open after their first token): resident (live heap + stacks)",
		fmt.Sprintf("%.1f KiB (%.1f + %.1f) (n=%d)", ours, heap, stk, n), fmt.Sprintf("bare client %.1f KiB (%.1f + %.1f) (n=%d)", bare, bheap, bstk, m), r, "—")

	sim, n := t.med("stream", "bare-vs-sim", "", 0, "server_cpu_ns_per_token")
	writer, m := t.med("stream", "bare", "", 0, "server_cpu_ns_per_token")
	r, _ = ratio(sim, writer, 0)
	row("server CPU per streamed token (same load, bare client): simulator, instant profile",
		fmt.Sprintf("llmslo sim %.2f µs (n=%d)", sim/1e3, n), fmt.Sprintf("bare SSE writer %.2f µs (n=%d)", writer/1e3, m), r, "—")
}

// okMed is the median of every figure of the cpu results of label and mode
// that streamed every request (a failed stream's CPU is not a stream's),
// and how many there were.
func (t *table) okMed(label, mode string) (map[string]float64, int) {
	byVal := map[string][]float64{}
	n := 0
	for _, r := range t.rs {
		if r.Kind != "cpu" || r.Label != label || r.Mode != mode || !streamedAll(r) {
			continue
		}
		n++
		for k, v := range r.Vals {
			byVal[k] = append(byVal[k], v)
		}
	}
	meds := map[string]float64{}
	for k, xs := range byVal {
		slices.Sort(xs)
		m := xs[len(xs)/2]
		if len(xs)%2 == 0 {
			m = (xs[len(xs)/2-1] + m) / 2
		}
		meds[k] = m
	}
	return meds, n
}

// pairRatios is the range of CPU-per-token ratios a/b over the pairs of
// successful runs, the k-th of a with the k-th of b in the order they ran
// (compare.sh alternates them), and how many pairs there were.
func (t *table) pairRatios(a, b, mode string) (lo, hi float64, k int) {
	var as, bs []float64
	for _, r := range t.rs {
		if r.Kind != "cpu" || r.Mode != mode || !streamedAll(r) {
			continue
		}
		switch r.Label {
		case a:
			as = append(as, r.Vals["cpu_ns_per_token"])
		case b:
			bs = append(bs, r.Vals["cpu_ns_per_token"])
		}
	}
	for i := range min(len(as), len(bs)) {
		x := as[i] / bs[i]
		if k == 0 || x < lo {
			lo = x
		}
		if k == 0 || x > hi {
			hi = x
		}
		k++
	}
	return lo, hi, k
}

// perTokenBeyond is the CPU per token of the long runs beyond the short
// ones, from the medians of each; 0 when it cannot be had.
func perTokenBeyond(long, short map[string]float64) float64 {
	dt := long["tokens"] - short["tokens"]
	if dt <= 0 {
		return 0
	}
	return (long["cpu_s"] - short["cpu_s"]) * 1e9 / dt
}

// streamedAll says a run completed all its requests: the drain exits 0
// only then; llmslo run's report says so, whatever its verdict.
func streamedAll(r result) bool {
	if c, ok := r.Vals["completed"]; ok {
		return c == r.Vals["requests"]
	}
	return r.Vals["exit"] == 0
}

// has reports whether any result is of that kind and label.
func (t *table) has(kind, label string) bool {
	for _, r := range t.rs {
		if r.Kind == kind && r.Label == label {
			return true
		}
	}
	return false
}

// marginal is a tool's CPU per request between its 2 s and 10 s runs, from
// the medians of each, and the fewer of the two counts.
func (t *table) marginal(label string) (float64, int) {
	long, n := t.med("cpu", label+" 10s", "", 0, "cpu_s")
	short, m := t.med("cpu", label+" 2s", "", 0, "cpu_s")
	nl, _ := t.med("cpu", label+" 10s", "", 0, "requests")
	ns, _ := t.med("cpu", label+" 2s", "", 0, "requests")
	if n == 0 || m == 0 || nl <= ns {
		return 0, 0
	}
	return (long - short) / (nl - ns) * 1e6, min(n, m)
}

// lag formats one wait mode's send lag and CPU at a rate.
func (t *table) lag(rate float64, mode string) string {
	p50, n := t.med("lag", "llmslo", mode, rate, "lag_p50_ms")
	if n == 0 {
		return mode + ": n/a"
	}
	p99, _ := t.med("lag", "llmslo", mode, rate, "lag_p99_ms")
	mx, _ := t.med("lag", "llmslo", mode, rate, "lag_max_ms")
	cpu, _ := t.med("lag", "llmslo", mode, rate, "cpu_us_per_req")
	return fmt.Sprintf("%s: %.3f / %.3f / %.1f ms, %.1f µs (n=%d)", mode, p50, p99, mx, cpu, n)
}

func thousands(r float64) string {
	s := fmt.Sprintf("%.0f", r)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// printSweep reads a sweep's report and prints the highest rate at which
// the client stayed trusted, per core, and what stopped it.
func printSweep(w io.Writer, label, file string) {
	b, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(w, "| ceiling (%s) | n/a: %v | | | |\n", label, err)
		return
	}
	var rep struct {
		Capacity *struct {
			PassRate float64 `json:"pass_rps"`
		} `json:"capacity"`
		Steps []struct {
			RateTarget   float64 `json:"rate_target"`
			RateAchieved float64 `json:"rate_achieved"`
			Verdict      string  `json:"verdict"`
			SendLag      struct {
				P99 float64 `json:"p99"`
			} `json:"send_lag_ms"`
			Client struct {
				CPU   float64 `json:"cpu_utilization"`
				Procs int     `json:"gomaxprocs"`
			} `json:"client"`
			Hazards []struct {
				Kind string `json:"kind"`
			} `json:"hazards"`
		} `json:"steps"`
	}
	if err := json.Unmarshal(b, &rep); err != nil || rep.Capacity == nil {
		fmt.Fprintf(w, "| ceiling (%s) | n/a: no capacity in %s | | | |\n", label, file)
		return
	}
	pass, procs, stopped := rep.Capacity.PassRate, 0, "every rate passed"
	for _, s := range rep.Steps {
		if s.RateTarget == pass {
			procs = s.Client.Procs
		}
		if s.Verdict != "pass" && len(s.Hazards) > 0 {
			var hs []string
			for _, h := range s.Hazards {
				hs = append(hs, h.Kind)
			}
			stopped = fmt.Sprintf("%s req/s: %s (send lag p99 %.2f ms, client CPU %.0f%% of %d)",
				thousands(s.RateTarget), strings.Join(hs, ", "), s.SendLag.P99, 100*s.Client.CPU, s.Client.Procs)
		}
	}
	per := "n/a"
	if procs > 0 {
		per = thousands(pass/float64(procs)) + " req/s per client core"
	}
	fmt.Fprintf(w, "| ceiling (%s): highest swept rate with client_saturation quiet | %s req/s, %s | stopped at %s | | |\n",
		label, thousands(pass), per, stopped)
}
