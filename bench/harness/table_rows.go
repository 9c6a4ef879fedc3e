package main

import (
	"fmt"
	"io"
)

// The sections of the table, in the order print writes them, each a few
// rows of llmslo's figure beside its reference.

// row writes one row of the table.
func row(w io.Writer, measure, ours, ref, ratio, target string) {
	fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", measure, ours, ref, ratio, target)
}

// ratio is the ratio cell of a over b and, when limit is not 0, the target
// cell that says whether the ratio is within it; n/a when either is 0.
func ratio(a, b float64, limit float64) (string, string) {
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

// printTokenCPU writes the whole-process CPU per streamed token of llmslo
// run and of bench/drain, spaced and in bursts, and what each pays beyond
// what a process pays once.
func (t *table) printTokenCPU(w io.Writer) {
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
		row(w, fmt.Sprintf("client CPU per streamed token, whole process (100 req/s of 256-token streams for 5 s; %s): user + system", p.what),
			fmt.Sprintf("llmslo run %.2f µs (%.2f + %.2f) (n=%d)", ours["cpu_ns_per_token"]/1e3, ours["user_ns_per_token"]/1e3, ours["sys_ns_per_token"]/1e3, n),
			fmt.Sprintf("bench/drain %.2f µs (%.2f + %.2f) (n=%d)", drain["cpu_ns_per_token"]/1e3, drain["user_ns_per_token"]/1e3, drain["sys_ns_per_token"]/1e3, m), r, tg)
		ours1, n1 := t.okMed("llmslo run 1s", p.mode)
		drain1, m1 := t.okMed("drain 1s", p.mode)
		mo, md := perTokenBeyond(ours, ours1), perTokenBeyond(drain, drain1)
		if n1 > 0 && m1 > 0 && mo > 0 && md > 0 {
			r, tg := ratio(mo, md, 1.15)
			row(w, "… beyond what a process pays once (5 s run minus 1 s run: start-up, the report)",
				fmt.Sprintf("llmslo run %.2f µs (n=%d)", mo/1e3, min(n, n1)), fmt.Sprintf("bench/drain %.2f µs (n=%d)", md/1e3, min(m, m1)), r, tg)
		}
	}
}

// printStreamCPU writes the in-process CPU per token of the streams alone,
// llmslo's client and recorder beside a bare draining client.
func (t *table) printStreamCPU(w io.Writer) {
	for _, p := range []struct{ suffix, what string }{{"", "events 1 ms apart"}, {"-burst", "events 16 a write"}} {
		ours, n := t.med("stream", "llmslo"+p.suffix, "", 0, "cpu_ns_per_token")
		bare, m := t.med("stream", "bare"+p.suffix, "", 0, "cpu_ns_per_token")
		if n == 0 && m == 0 {
			continue
		}
		r, _ := ratio(ours, bare, 0)
		row(w, fmt.Sprintf("… in-process, the streams only (64 at a time, 256 tokens, %s; client and recorder)", p.what),
			fmt.Sprintf("%.2f µs (n=%d)", ours/1e3, n), fmt.Sprintf("bare draining client %.2f µs (n=%d)", bare/1e3, m), r, "—")
	}
}

// printRequestCPU writes the CPU per request of llmslo run beside vegeta's,
// whole process and beyond what a process pays once, and the step's
// measured window alone.
func (t *table) printRequestCPU(w io.Writer) {
	ours, n := t.med("cpu", "llmslo run 10s", "", 0, "cpu_us_per_req")
	veg, m := t.med("cpu", "vegeta 10s", "", 0, "cpu_us_per_req")
	r, tg := ratio(ours, veg, 1.0)
	vegS := fmt.Sprintf("vegeta attack %.1f µs (n=%d)", veg, m)
	if m == 0 {
		vegS = "vegeta: not installed, skipped"
	}
	row(w, "CPU per request, 2,000 req/s of one-token streams for 10 s (whole process)",
		fmt.Sprintf("llmslo run %.1f µs (n=%d)", ours, n), vegS, r, tg)
	ours, n = t.marginal("llmslo run")
	veg, m = t.marginal("vegeta")
	r, tg = ratio(ours, veg, 1.0)
	row(w, "… per request beyond what a process pays once (10 s run minus 2 s run)",
		fmt.Sprintf("llmslo run %.1f µs (n=%d)", ours, n), fmt.Sprintf("vegeta attack %.1f µs (n=%d)", veg, m), r, tg)
	step, n := t.med("lag", "llmslo", "fine", 2000, "cpu_us_per_req")
	if n > 0 {
		row(w, "… the step's measured window only (dispatcher, client, recorder; constant arrivals)", fmt.Sprintf("%.1f µs (n=%d)", step, n), "", "", "")
	}
}

// printLag writes the send lag and CPU per request of each wait mode at
// each rate; the target is on the fine wait's p99 at 5,000 req/s.
func (t *table) printLag(w io.Writer) {
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
		row(w, fmt.Sprintf("send lag p50 / p99 / max, CPU per request: %s req/s, Poisson, one-token streams", thousands(rate)),
			t.lag(rate, "fine"), t.lag(rate, "timer")+"; "+t.lag(rate, "spin"), "", target)
	}
}

// printMemory writes the memory per in-flight stream of llmslo's client
// beside a bare one's.
func (t *table) printMemory(w io.Writer) {
	ours, n := t.med("mem", "llmslo", "", 0, "rss_kib_per_str")
	bare, m := t.med("mem", "bare", "", 0, "rss_kib_per_str")
	heap, _ := t.med("mem", "llmslo", "", 0, "heap_kib_per_str")
	stk, _ := t.med("mem", "llmslo", "", 0, "stacks_kib_per_str")
	bheap, _ := t.med("mem", "bare", "", 0, "heap_kib_per_str")
	bstk, _ := t.med("mem", "bare", "", 0, "stacks_kib_per_str")
	r, _ := ratio(ours, bare, 0)
	row(w, "memory per in-flight stream (2,000 held open after their first token): resident (live heap + stacks)",
		fmt.Sprintf("%.1f KiB (%.1f + %.1f) (n=%d)", ours, heap, stk, n), fmt.Sprintf("bare client %.1f KiB (%.1f + %.1f) (n=%d)", bare, bheap, bstk, m), r, "—")
}

// printServerCPU writes the server CPU per streamed token of the simulator
// beside a bare SSE writer's.
func (t *table) printServerCPU(w io.Writer) {
	sim, n := t.med("stream", "bare-vs-sim", "", 0, "server_cpu_ns_per_token")
	writer, m := t.med("stream", "bare", "", 0, "server_cpu_ns_per_token")
	r, _ := ratio(sim, writer, 0)
	row(w, "server CPU per streamed token (same load, bare client): simulator, instant profile",
		fmt.Sprintf("llmslo sim %.2f µs (n=%d)", sim/1e3, n), fmt.Sprintf("bare SSE writer %.2f µs (n=%d)", writer/1e3, m), r, "—")
}
