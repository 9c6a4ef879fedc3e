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

// print writes the table: a section of rows per figure compare.sh measures
// (table_rows.go), those it did not measure left out.
func (t *table) print(w io.Writer) {
	fmt.Fprintln(w, "| measure | llmslo | reference | ratio | target |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	if len(t.rs) == 0 {
		return // the sweeps alone (compare.sh -S): their rows follow
	}
	t.printTokenCPU(w)
	t.printStreamCPU(w)
	if len(t.rs) > 0 && !t.has("cpu", "llmslo run 10s") && !t.has("lag", "llmslo") {
		return // compare.sh -t: the token rows only
	}
	t.printRequestCPU(w)
	t.printLag(w)
	t.printMemory(w)
	t.printServerCPU(w)
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
