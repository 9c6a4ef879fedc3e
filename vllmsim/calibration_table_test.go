package vllmsim

import (
	"flag"
	"fmt"
	"math"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

var updateCalibration = flag.Bool("update-calibration", false, "rewrite the calibration table in docs/simulator.md")

const llama31 = "meta-llama/Llama-3.1-8B-Instruct"

// lambdaConfig is the LambdaLabs server: vLLM 0.6.0 (the V0 engine) on one
// H100 with max_model_len 2048, max_num_seqs 256 and, chunked prefill being
// off, a 2048-token budget.
var lambdaConfig = Config{Model: "meta-llama/Meta-Llama-3-8B-Instruct", GPU: "h100", MaxModelLen: 2048,
	MaxNumSeqs: 256, MaxNumBatchedTokens: 2048, DisableChunkedPrefill: true, EngineV0: true}

// offline is vLLM's LLM class (the CI's benchmarks): a larger token budget,
// no API server.
func offline(gpu string) Config {
	return Config{Model: llama31, GPU: gpu, MaxNumBatchedTokens: 16384, MaxNumSeqs: 1024, NoFrontend: true}
}

// inferenceSim is the inference-sim ground-truth server: vLLM 0.8.4, whose
// V1 engine scheduled each step after the last (async scheduling came
// later), with max_num_seqs 128, max_num_batched_tokens 2048, Poisson
// arrivals of ≈574-token prompts. The output length is not published; 256
// tokens is assumed.
func inferenceSim(model string, tp int) Config {
	return Config{Model: model, GPU: "h100", TensorParallelSize: tp, MaxNumSeqs: 128, MaxNumBatchedTokens: 2048, NoAsyncScheduling: true}
}

// Why some figures are not held to ±20%. Each reason's premise is checked
// by TestCalibrationGapsHold, so that a reason cannot outlive its truth.
const (
	idleLesson  = "an illustrative output whose GPU and model the lesson does not name; on an H100, at the prompt rate LambdaLabs' 320-prompt run measured (48 ms a 2,048-token step), a 1024-token step takes 27 ms and the API server adds 1.6 ms, taking the request in and the token out (3.4 ms in vLLM 0.6): most of the 71.5 ms is not an H100's time for this model"
	floor       = "at or past the limit of an H100's bandwidth: a decode step reads the weights but the embedding table, Llama-2-7B's 13.2 GB in 3.94 ms at the H100's peak 3.35 TB/s with nothing else counted (the 70B's 34.4 GB a GPU in 10.3 ms); the published ITLs are at most 5% above that, which would take 95% of the peak where copies reach 82%: the measurement's GPU or its ITL definition must differ"
	ciLengths   = "the run's lengths are not published: the simulator runs the first 200 ShareGPT prompts of the LambdaLabs run, whose outputs stop at end-of-sequence (at most 780 tokens) where the CI's run to their dataset lengths, and the slowest request sets the throughput"
	decodeBound = "its waits are decode steps: a request waits for the running step to end, and its prompt runs in a step that also decodes the batch, and the simulated 4×H100 decode step is 2.3 times the published ITL, which is at the bandwidth floor (row 19); the TTFT's excess over the published is less than one decode step's excess, and it was 1.19 before the API server's output path (0.3 ms a step, 20 µs a request) was modelled"
	overload    = "the simulated 4×H100 is past its capacity at this rate with the assumed 256-token outputs (inference-sim does not publish them), its decode steps being bound by bandwidth (see the ITL rows): time to first token grows through the run"
)

var (
	calOnce  sync.Once
	calCache map[string]benchStats
)

// calibrationRuns runs each workload once and caches it by name.
func calibrationRuns(t testing.TB) map[string]benchStats {
	calOnce.Do(func() {
		calCache = map[string]benchStats{}
		v, z := burst(t, Config{Model: llama31, GPU: "h100"}, []int{1024}, []int{256})
		calCache["lesson"] = stats(v, 0, time.Hour, z)
		for _, g := range []string{"h100", "h200"} {
			v, _ = burst(t, offline(g), []int{32, 32, 32, 32, 32, 32, 32, 32}, []int{128, 128, 128, 128, 128, 128, 128, 128})
			calCache["ci-latency-"+g] = benchStats{meanTTFT: float64(v.now) / float64(time.Millisecond)}
			ll := lambdaLabs(t)[320]
			v, z = burst(t, offline(g), ll.InputLens[:200], ll.OutputLens[:200])
			calCache["ci-throughput-"+g] = stats(v, 0, time.Hour, z)
		}
		for n, run := range lambdaLabs(t) {
			v, z := burst(t, lambdaConfig, run.InputLens, run.OutputLens)
			calCache[fmt.Sprint("lambda-", n)] = stats(v, 0, time.Hour, z)
		}
		calCache["isim-7b"] = poisson(t, inferenceSim("meta-llama/Llama-2-7b-hf", 1), 5.99, 574, 256, 30*time.Second, 150*time.Second)
		calCache["isim-70b-6"] = poisson(t, inferenceSim("meta-llama/Llama-2-70b-hf", 4), 5.98, 574, 256, 30*time.Second, 150*time.Second)
		calCache["isim-70b-14"] = poisson(t, inferenceSim("meta-llama/Llama-2-70b-hf", 4), 13.86, 574, 256, 30*time.Second, 150*time.Second)
	})
	return calCache
}

func run(name string, f func(benchStats) float64) func(testing.TB) float64 {
	return func(t testing.TB) float64 { return f(calibrationRuns(t)[name]) }
}

// figures are the published figures of /work's calibration sources, in the
// order of docs/simulator.md.
var figures = []figure{
	{"mean TTFT", "vLLM tuning lesson, 1024 in / 256 out, one request on an idle server (taken as Llama-3.1-8B on H100)", 71.5, "ms",
		run("lesson", func(s benchStats) float64 { return s.meanTTFT }), idleLesson},
	{"mean TPOT", "the same", 7.9, "ms", run("lesson", func(s benchStats) float64 { return s.meanTPOT }), ""},
	{"mean ITL", "the same", 7.7, "ms", run("lesson", func(s benchStats) float64 { return s.meanITL }), ""},
	{"latency per batch", "vLLM CI latency test, Llama-3.1-8B, H100, batch 8, 32 in / 128 out", 997.5, "ms",
		run("ci-latency-h100", func(s benchStats) float64 { return s.meanTTFT }), ""},
	{"latency per batch", "the same on H200", 833.4, "ms", run("ci-latency-h200", func(s benchStats) float64 { return s.meanTTFT }), ""},
	{"throughput", "vLLM CI throughput test, Llama-3.1-8B, H100, 200 ShareGPT prompts, offline", 19.5, "req/s",
		run("ci-throughput-h100", func(s benchStats) float64 { return s.throughput }),
		ciLengths},
	{"throughput", "the same on H200", 22.6, "req/s", run("ci-throughput-h200", func(s benchStats) float64 { return s.throughput }),
		ciLengths},
	{"median TTFT", "LambdaLabs, Llama-3-8B, H100, vLLM 0.6.0, 10 ShareGPT prompts at once", 62.2, "ms",
		run("lambda-10", func(s benchStats) float64 { return s.medianTTFT }), ""},
	{"median TPOT", "the same", 7.56, "ms", run("lambda-10", func(s benchStats) float64 { return s.medianTPOT }), ""},
	{"median TTFT", "the same, 80 prompts", 522, "ms", run("lambda-80", func(s benchStats) float64 { return s.medianTTFT }), ""},
	{"median TPOT", "the same, 80 prompts", 9.94, "ms", run("lambda-80", func(s benchStats) float64 { return s.medianTPOT }), ""},
	{"throughput", "the same, 80 prompts", 11.9, "req/s", run("lambda-80", func(s benchStats) float64 { return s.throughput }), ""},
	{"median TTFT", "the same, 320 prompts", 1731, "ms", run("lambda-320", func(s benchStats) float64 { return s.medianTTFT }), ""},
	{"median TPOT", "the same, 320 prompts", 20.0, "ms", run("lambda-320", func(s benchStats) float64 { return s.medianTPOT }), ""},
	{"throughput", "the same, 320 prompts", 29.5, "req/s", run("lambda-320", func(s benchStats) float64 { return s.throughput }), ""},
	{"mean TTFT", "inference-sim ground truth, Llama-2-7B, H100, 5.99 req/s", 27.1, "ms",
		run("isim-7b", func(s benchStats) float64 { return s.meanTTFT }), ""},
	{"mean ITL", "the same", 4.06, "ms", run("isim-7b", func(s benchStats) float64 { return s.meanITL }), floor},
	{"mean TTFT", "the same, Llama-2-70B, 4×H100, 5.98 req/s", 54.8, "ms", run("isim-70b-6", func(s benchStats) float64 { return s.meanTTFT }), decodeBound},
	{"mean ITL", "the same", 8.96, "ms", run("isim-70b-6", func(s benchStats) float64 { return s.meanITL }), floor},
	{"mean TTFT", "the same, 13.86 req/s", 103.0, "ms", run("isim-70b-14", func(s benchStats) float64 { return s.meanTTFT }), overload},
	{"mean ITL", "the same", 10.49, "ms", run("isim-70b-14", func(s benchStats) float64 { return s.meanITL }), floor},
}

// calibrationTable renders the figures as docs/simulator.md shows them.
func calibrationTable(t testing.TB) string {
	var b strings.Builder
	b.WriteString("| # | figure | setup | published | simulator | ratio | held to ±20% |\n|---:|---|---|---:|---:|---:|---|\n")
	seen := map[string]int{}
	for i, f := range figures {
		got := f.sim(t)
		held := "yes"
		if j, ok := seen[f.gap]; ok {
			held = fmt.Sprintf("no: as %d", j)
		} else if f.gap != "" {
			held, seen[f.gap] = "no: "+f.gap, i+1
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s %s | %s %s | %.2f | %s |\n", i+1, f.name, f.setup, num(f.published), f.unit, num(got), f.unit, got/f.published, held)
	}
	return b.String()
}

func num(v float64) string {
	switch {
	case math.Abs(v) >= 1000:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// Every figure the simulator can reproduce is within 20% of the published
// one; the others are listed with the reason. TestCalibrationTableInDocs
// keeps every ratio, those too, from moving unnoticed.
func TestCalibrationAgainstPublishedFigures(t *testing.T) {
	for _, f := range figures {
		got := f.sim(t)
		ratio := got / f.published
		t.Logf("%-18s %-70.70s published %8.2f %-5s simulator %8.2f  ratio %.2f", f.name, f.setup, f.published, f.unit, got, ratio)
		if f.gap == "" && (ratio < 0.8 || ratio > 1.2) {
			t.Errorf("%s (%s): simulator %.2f %s, published %.2f: ratio %.2f is outside ±20%%", f.name, f.setup, got, f.unit, f.published, ratio)
		}
	}
}

const tableStart, tableEnd = "<!-- calibration table: begin -->\n", "<!-- calibration table: end -->\n"

// The table in docs/simulator.md is the one the simulator produces now;
// -update-calibration rewrites it.
func TestCalibrationTableInDocs(t *testing.T) {
	const path = "../docs/simulator.md"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	i, j := strings.Index(doc, tableStart), strings.Index(doc, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no calibration table markers", path)
	}
	want := calibrationTable(t)
	if got := doc[i+len(tableStart) : j]; got != want {
		if !*updateCalibration {
			t.Fatalf("the calibration table in %s is stale; regenerate it with\n  go test ./vllmsim/ -run TestCalibrationTableInDocs -update-calibration\nwant:\n%s", path, want)
		}
		doc = doc[:i+len(tableStart)] + want + doc[j:]
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
