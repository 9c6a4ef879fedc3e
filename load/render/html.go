package render

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/llmslo/llmslo/fixtures"
	"github.com/llmslo/llmslo/load/report"
)

// WriteHTML renders the report as one self-contained HTML page (no external
// assets, no JavaScript needed): the verdict, the target, the fixture, the
// SLOs, a table of steps, each step's SLO results, hazards, errors, server
// and client statistics, the latency-against-rate curve, each step's
// per-second timeline and, for a step run until decided, its decision
// chart as inline SVG. Every string from the report is
// escaped. A chart that cannot be drawn is replaced by a note saying why, so
// the figures are never lost to a drawing fault.
func WriteHTML(w io.Writer, r *report.Report) error {
	if r == nil {
		return fmt.Errorf("slotest: html report: no report")
	}
	page := htmlPage{
		Report:  r,
		Verdict: verdictText(r.Verdict),
		Class:   verdictClass(r.Verdict),
		Fixture: r.Fixture,
		Knee:    chartOrNote(kneeChart(r)),
		Outcome: r.OutcomeText(),
	}
	// A sweep's verdict is its worst step's; the badge says what it found.
	switch r.SearchOutcome() {
	case report.OutcomeKneeFound:
		page.Verdict, page.Class = "KNEE FOUND", "pass"
	case report.OutcomeBelowLowestRate:
		page.Verdict, page.Class = "BELOW THE LOWEST RATE", "fail"
	}
	if c := r.Capacity; c != nil {
		page.Capacity = capacityWords(c, r.Steps)
	}
	if !r.StartedAt.IsZero() {
		page.Started = r.StartedAt.UTC().Format(time.RFC3339)
	}
	for _, s := range r.SLO {
		page.SLOs = append(page.SLOs, sloText(s))
	}
	for i := range r.Steps {
		s := &r.Steps[i]
		page.Steps = append(page.Steps, stepView{
			StepReport:      s,
			Anchor:          fmt.Sprintf("step-%d", i+1),
			Verdict:         verdictText(s.Verdict),
			Class:           verdictClass(s.Verdict),
			SLORows:         sloRows(s.SLO),
			Errors:          sortedErrors(s.Errors),
			Timeline:        chartOrNote(timelineChart(s, r.Versus.Step(s.Name))),
			Decision:        chartOrNote(decisionChart(s)),
			AchievedInWords: AchievedInWords(s),
			NoteWord:        NoteWord(s),
			ShedLine:        ShedInWords(s),
			Base:            r.Versus.Step(s.Name),
		})
	}
	var b bytes.Buffer
	if err := htmlReport().Execute(&b, page); err != nil {
		return fmt.Errorf("slotest: html report: %w", err)
	}
	_, err := b.WriteTo(w)
	return err
}

type htmlPage struct {
	Report  *report.Report
	Verdict string
	Class   string
	Started string
	Fixture *fixtures.Info
	SLOs    []string
	Steps   []stepView
	Knee    chart
	// Outcome is a search's outcome in words (report.OutcomeText);
	// Capacity the knee's bracket in words.
	Outcome  string
	Capacity string
}

type stepView struct {
	*report.StepReport
	Anchor   string // the section's id: step names may hold any character
	Verdict  string
	Class    string
	SLORows  []sloRow
	Errors   []errorCount
	Timeline chart
	Decision chart // drawn for a step run until decided (html_decision.go)
	// The step's achieved rate and its notes' lead-in, in words (notes.go).
	AchievedInWords string
	NoteWord        string
	ShedLine        string // ShedInWords, empty when nothing was shed
	// Base is the base server's step of a side-by-side run, shown in the
	// row under the step's; nil otherwise.
	Base *report.StepReport
}

// chart is an inline SVG or, when there is nothing to draw or drawing
// failed, a note in its place.
type chart struct {
	SVG  template.HTML
	Note string
}

func chartOrNote(svg template.HTML, note string) chart { return chart{SVG: svg, Note: note} }

type sloRow struct {
	Name, Observed, Interval, Limit, Result, Class string
	Samples                                        int64
}

type errorCount struct {
	Class string
	Count int
}

func sloText(s report.SLOSpec) string {
	if s.Metric == string(report.MetricErrorRate) {
		return fmt.Sprintf("%s ≤ %s", s.Metric, pctText(s.MaxRate))
	}
	return fmt.Sprintf("%s.p%g ≤ %s", s.Metric, s.Percentile, msText(s.LimitMs))
}

func sloRows(results []report.SLOResult) []sloRow {
	rows := make([]sloRow, 0, len(results))
	for _, r := range results {
		row := sloRow{Samples: r.Samples, Result: "pass", Class: "pass"}
		if !r.Pass {
			row.Result, row.Class = "FAIL", "fail"
		}
		if r.Metric == string(report.MetricErrorRate) {
			row.Name, row.Observed, row.Interval, row.Limit = r.Metric, pctText(r.Observed), "–", pctText(r.MaxRate)
			rows = append(rows, row)
			continue
		}
		row.Name = fmt.Sprintf("%s.p%g", r.Metric, r.Percentile)
		row.Observed, row.Limit, row.Interval = msText(r.ObservedMs), msText(r.LimitMs), "n/a"
		if r.CI95Ms != nil {
			row.Interval = fmt.Sprintf("[%s, %s]", msText(r.CI95Ms[0]), msText(r.CI95Ms[1]))
		}
		if r.Samples == 0 {
			row.Observed = "no observations"
		}
		if note := resultNote(r); note != "" {
			row.Result += " (" + note + ")"
		}
		rows = append(rows, row)
	}
	return rows
}

func sortedErrors(m map[string]int) []errorCount {
	out := make([]errorCount, 0, len(m))
	for k, v := range m {
		out = append(out, errorCount{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Class < out[j].Class })
	return out
}

func verdictText(v report.Verdict) string {
	if v == "" {
		return "NO VERDICT"
	}
	return strings.ToUpper(string(v))
}

func verdictClass(v report.Verdict) string {
	switch v {
	case report.VerdictPass:
		return "pass"
	case report.VerdictFail:
		return "fail"
	case report.VerdictInvalid:
		return "invalid"
	}
	return "none"
}

func msText(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "–"
	case v >= 100:
		return fmt.Sprintf("%.0f ms", v)
	}
	return fmt.Sprintf("%.1f ms", v)
}

// numText writes a whole number as one and anything else to four
// significant digits.
func numText(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return fmt.Sprintf("%.0f", f)
	}
	return fmt.Sprintf("%.4g", f)
}

func pctText(f float64) string { return fmt.Sprintf("%.2f%%", 100*f) }

var htmlFuncs = template.FuncMap{
	"pct100":    func(f float64) float64 { return 100 * f },
	"versusHow": VersusHow,
	// ms shows a latency percentile, or a dash when it had no samples.
	"ms": func(v float64, n int64) string {
		if n == 0 {
			return "–"
		}
		return msText(v)
	},
	"pct":      pctText,
	"capacity": func(c report.Capacity) string { return capacityWords(&c, nil) },
	"rate":     func(f float64) string { return fmt.Sprintf("%.2f", f) },
	"join":     strings.Join,
	"inc":      func(i int) int { return i + 1 },
	"num":      numText,
	"optpct": func(p *float64) string {
		if p == nil {
			return "– (no prompt tokens looked up)"
		}
		return pctText(*p)
	},
	"tokens": func(d fixtures.Dist) string {
		return fmt.Sprintf("mean %.0f, p50 %.0f, p95 %.0f", d.Mean, d.P50, d.P95)
	},
}

// htmlReport is the page's template with the session block it calls,
// parsed the first time a page is written: a run that writes no HTML does
// not pay for it at start-up.
var htmlReport = sync.OnceValue(func() *template.Template {
	t := template.Must(template.New("report").Funcs(htmlFuncs).Parse(htmlTemplate))
	template.Must(t.New("sessions").Funcs(template.FuncMap{"turnRows": turnRows}).Parse(htmlSessions))
	return t
})

const htmlTemplate = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>llmslo: {{.Verdict}}{{if .Report.Partial}} (partial){{end}} — {{.Report.Target.Model}}</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d232a;max-width:84rem;margin:1.5rem auto;padding:0 1rem}
h1{font-size:1.5rem;margin:.2rem 0}h2{font-size:1.2rem;margin:1.6rem 0 .4rem;border-bottom:1px solid #ccd3da;padding-bottom:.2rem}h3{font-size:1rem;margin:1rem 0 .3rem}
table{border-collapse:collapse;margin:.4rem 0;font-variant-numeric:tabular-nums}
th,td{padding:.2rem .4rem;border-bottom:1px solid #e3e7eb;text-align:right;white-space:nowrap}
th{background:#f3f5f7;font-weight:600;white-space:normal;vertical-align:bottom}td:first-child,th:first-child{text-align:left}
.wide{max-width:100%;overflow-x:auto}td.result,th.result{text-align:left}td.result{white-space:normal;min-width:14rem}td.name{white-space:normal;min-width:6rem}
table.wrap{width:100%}table.wrap td{white-space:normal;text-align:left;vertical-align:top}table.wrap td.num{text-align:right;white-space:nowrap}table.wrap th{text-align:left}table.wrap code{white-space:nowrap}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.1rem 1rem;margin:.4rem 0}dt{color:#56606b}dd{margin:0}
.badge{display:inline-block;padding:.05rem .5rem;border-radius:.3rem;font-weight:700;color:#fff}
.pass{color:#14692e}.fail{color:#b3261e}.invalid{color:#8a4b00}.none{color:#56606b}
.badge.pass{background:#1e7d3a;color:#fff}.badge.fail{background:#b3261e;color:#fff}.badge.invalid{background:#a35a00;color:#fff}.badge.none{background:#56606b;color:#fff}
.badge.partial{background:#4a4f8c}
.partial-note{border-left:4px solid #4a4f8c;background:#eef0fb;padding:.4rem .7rem;margin:.6rem 0}
.hazard{border-left:4px solid #a35a00;background:#fff4e5;padding:.4rem .7rem;margin:.4rem 0}
.hazard .fix{display:block;margin-top:.2rem;font-weight:600}
.note{color:#56606b;font-style:italic}
.cols{display:flex;flex-wrap:wrap;gap:0 2.5rem}
figure{margin:.6rem 0}figure svg{width:100%;max-width:60rem;height:auto}figcaption{color:#56606b;font-size:.9em}
section.step{break-inside:avoid-page}
@media print{body{max-width:none;margin:0;font-size:11px}.wide{overflow:visible}section.step{break-before:page}a{color:inherit}}
</style>
</head>
<body>
<header>
<h1>llmslo report <span class="badge {{.Class}}">{{.Verdict}}</span>{{if .Report.Partial}} <span class="badge partial">PARTIAL</span>{{end}}</h1>
{{with .Outcome}}<p class="outcome"><strong>{{.}}</strong></p>{{end}}
{{if .Report.Partial}}<p class="partial-note">Partial run: {{with .Report.Reason}}{{.}}{{else}}cut short{{end}}. The steps below are what was measured before it stopped.</p>{{end}}
<dl>
<dt>target</dt><dd>{{.Report.Target.Kind}} {{.Report.Target.URL}}</dd>
{{with .Report.Versus}}<dt>side by side with</dt><dd>{{.Target.Kind}} {{.Target.URL}} ({{.Mode}}: {{versusHow .}}; a ratio beyond +{{printf "%.0f%%" (pct100 .Tolerance)}} fails; the base's verdict {{.Verdict}})</dd>{{end}}
<dt>model</dt><dd>{{.Report.Target.Model}}</dd>
{{with .Fixture}}<dt>fixture</dt><dd>{{.Name}}</dd><dt>fixture requests</dt><dd>{{.Requests}}</dd>{{if .InputTokens.Count}}<dt>input tokens</dt><dd>{{tokens .InputTokens}}</dd><dt>output tokens</dt><dd>{{tokens .OutputTokens}}</dd>{{end}}{{with .ExpectedPrefixHitRate}}<dt>expected prefix hit rate</dt><dd>{{pct .}}</dd>{{end}}{{end}}
<dt>seed</dt><dd>{{.Report.Seed}}</dd>
{{with .Started}}<dt>started</dt><dd>{{.}}</dd>{{end}}
<dt>SLOs</dt><dd>{{range $i, $s := .SLOs}}{{if $i}}; {{end}}{{$s}}{{else}}none{{end}}</dd>
{{with .Report.Capacity}}<dt>capacity</dt><dd>{{$.Capacity}}</dd>{{with .Binding}}<dt>binding at the knee</dt><dd><b>{{.Kind}}</b>: {{.Evidence}}; change {{.Flag}}</dd>{{end}}{{end}}{{range .Report.Variants}}<dt>variant <code>{{.Variant}}</code></dt><dd>{{capacity .}}{{with .Binding}}; binding: <b>{{.Kind}}</b> ({{.Flag}}){{end}}</dd>{{end}}
</dl>
{{range .Report.Target.Notes}}<p class="note"><strong>target:</strong> {{.}}</p>
{{end}}</header>
{{with .Report.Fit}}<h2>Fit</h2>
<p>{{.Message}}</p>{{with .Finding}}<p class="note"><b>finding ({{.Kind}})</b>: {{.Message}}. Flags: {{range $i, $f := .Flags}}{{if $i}}, {{end}}<code>{{$f}}</code>{{end}}.</p>{{end}}{{with .Note}}<p class="note">{{.}}</p>{{end}}{{end}}
{{with .Report.Tune}}<h2>Tuning</h2>
{{with .CannotChange}}<p class="note">{{.}}</p>{{end}}<div class="wide"><table class="wrap">
<thead><tr><th>#</th><th>server flags</th><th>change</th><th>knee (req/s)</th><th>binding</th><th>kept</th><th>why</th></tr></thead>
<tbody>{{range $i, $it := .Iterations}}<tr><td>{{inc $i}}</td><td>{{range $it.Args}}<code>{{.}}</code> {{end}}</td><td>{{with $it.Change}}<code>{{.}}</code>{{else}}-{{end}}</td><td class="num">{{num $it.PassRate}} to {{if $it.FailRate}}{{num $it.FailRate}}{{else}}-{{end}}</td><td>{{$it.Binding}}</td><td>{{if $it.Kept}}yes{{else}}no{{end}}</td><td>{{$it.Why}}</td></tr>{{end}}</tbody></table></div>
<p>Stopped: {{.Stop}}</p>
<p>Final flags: <code>{{.Command}}</code></p>{{end}}
{{with .Report.Protect}}<h2>Protect</h2>
<p>At the knee ({{rate .KneeRate}} req/s) the server held {{.HeldAtKnee}} requests, running and waiting.{{with .Flag}} Admission limit: <code>{{.}}</code>.{{end}}</p>
{{with .ScaledObject}}<p>Autoscaler trigger on the waiting queue and queue time (KEDA):</p><pre>{{.}}</pre>{{end}}
<p class="note">Not on GPU utilisation: {{.WhyNotGPU}}</p>{{with .Note}}<p class="note">{{.}}</p>{{end}}{{end}}

<h2>Steps</h2>
{{if .Steps}}<div class="wide"><table>
<thead><tr><th>step</th><th>asked (/s)</th><th>achieved (/s)</th><th>sent</th><th>ok</th><th>failed</th><th>shed</th><th>unfinished</th><th>dropped</th><th>TTFT p50</th><th>TTFT p95</th><th>TTFT p99</th><th>ITL p50</th><th>ITL p99</th><th>TPOT p50</th><th>E2EL p50</th><th>goodput</th><th>verdict</th></tr></thead>
<tbody>{{range .Steps}}
<tr><td class="name"><a href="#{{.Anchor}}">{{.Name}}</a></td><td>{{rate .RateTarget}}</td><td>{{rate .RateAchieved}}</td><td>{{.Requests.Sent}}</td><td>{{.Requests.Completed}}</td><td>{{.Requests.Failed}}</td><td>{{.Requests.Shed}}</td><td>{{.Requests.Unfinished}}</td><td>{{.Requests.Dropped}}</td><td>{{ms .TTFT.P50 .TTFT.Count}}</td><td>{{ms .TTFT.P95 .TTFT.Count}}</td><td>{{ms .TTFT.P99 .TTFT.Count}}</td><td>{{ms .ITL.P50 .ITL.Count}}</td><td>{{ms .ITL.P99 .ITL.Count}}</td><td>{{ms .TPOT.P50 .TPOT.Count}}</td><td>{{ms .E2EL.P50 .E2EL.Count}}</td><td>{{pct .Goodput}}</td><td class="{{.Class}}">{{.Verdict}}{{if .Partial}} (partial){{end}}</td></tr>
{{with .Base}}<tr><td class="name">base server</td><td>{{rate .RateTarget}}</td><td>{{rate .RateAchieved}}</td><td>{{.Requests.Sent}}</td><td>{{.Requests.Completed}}</td><td>{{.Requests.Failed}}</td><td>{{.Requests.Shed}}</td><td>{{.Requests.Unfinished}}</td><td>{{.Requests.Dropped}}</td><td>{{ms .TTFT.P50 .TTFT.Count}}</td><td>{{ms .TTFT.P95 .TTFT.Count}}</td><td>{{ms .TTFT.P99 .TTFT.Count}}</td><td>{{ms .ITL.P50 .ITL.Count}}</td><td>{{ms .ITL.P99 .ITL.Count}}</td><td>{{ms .TPOT.P50 .TPOT.Count}}</td><td>{{ms .E2EL.P50 .E2EL.Count}}</td><td>{{pct .Goodput}}</td><td>{{.Verdict}}</td></tr>{{end}}{{end}}
</tbody></table></div>
<h2 id="latency">Latency against rate</h2>
<figure>{{with .Knee.SVG}}{{.}}{{else}}<p class="note">{{.Knee.Note}}</p>{{end}}
<figcaption>Each percentile an SLO gates, one panel per metric, of each step against its achieved rate (without latency SLOs: TTFT p50, p95, p99 and ITL p99); dashed lines are the SLO limits, in their curve's colour. Where a curve turns up, the server has passed its knee; where it crosses its limit, that SLO fails.</figcaption></figure>
{{else}}<p class="note">No steps were measured.</p>{{end}}

{{range .Steps}}<section class="step" id="{{.Anchor}}">
<h2>Step {{.Name}} <span class="badge {{.Class}}">{{.Verdict}}</span>{{if .Partial}} <span class="badge partial">PARTIAL</span>{{end}}</h2>
<p>{{.AchievedInWords}} ({{.Arrival}} arrivals, after {{.WarmupS}} s of warm-up): {{.Requests.Scheduled}} scheduled, {{.Requests.Sent}} sent, {{.Requests.Completed}} ok, {{.Requests.Failed}} failed, {{.Requests.Unfinished}} unfinished, {{.Requests.Dropped}} dropped; goodput {{pct .Goodput}}.</p>
{{with .ShedLine}}<p class="shed">{{.}}</p>
{{end}}{{if not .OverloadGate}}{{with .OverCapacity}}<div class="hazard"><strong>FAIL:</strong> {{.Message}}</div>{{end}}{{end}}{{with .OverloadGate}}<div class="{{if .Pass}}note{{else}}hazard{{end}}"><strong>overload gate:</strong> {{.Message}}<ul>{{range .Checks}}<li>{{if .Pass}}pass{{else}}FAIL{{end}}: {{.Detail}}</li>{{end}}</ul></div>
{{end}}{{range .Hazards}}<div class="hazard"><strong>INVALID ({{.Kind}}):</strong> {{.Message}}{{with .Fix}}<span class="fix">Fix: {{.}}</span>{{end}}</div>
{{end}}{{$word := .NoteWord}}{{range .Notes}}<p class="note"><strong>{{$word}} ({{.Kind}}):</strong> {{.Message}}</p>
{{end}}
{{with .HazardsOff}}<p class="note">Hazards not judged, turned off by the run: {{join . ", "}}.</p>{{end}}
{{range .NotJudged}}<p class="note"><strong>not judged ({{.Check}}):</strong> {{.Reason}}</p>
{{end}}
{{if .SLORows}}<h3>SLOs</h3><div class="wide"><table>
<thead><tr><th>SLO</th><th>observed</th><th>95% interval</th><th>limit</th><th>samples</th><th class="result">result</th></tr></thead>
<tbody>{{range .SLORows}}<tr><td>{{.Name}}</td><td>{{.Observed}}</td><td>{{.Interval}}</td><td>{{.Limit}}</td><td>{{.Samples}}</td><td class="result {{.Class}}">{{.Result}}</td></tr>
{{end}}</tbody></table></div>{{end}}
{{template "sessions" .}}
{{if .Baseline}}<h3>Against the baseline</h3><div class="wide"><table>
<thead><tr><th>percentile</th><th>observed</th><th>95% interval</th><th>baseline</th><th>allowed</th><th class="result">result</th></tr></thead>
<tbody>{{range .Baseline}}<tr><td>{{.Metric}}.p{{.Percentile}}</td><td>{{printf "%.1f ms" .ObservedMs}}</td><td>{{with .CI95Ms}}{{printf "[%.1f, %.1f] ms" (index . 0) (index . 1)}}{{else}}n/a{{end}}</td><td>{{printf "%.1f ms" .BaselineMs}}</td><td>{{printf "+%.0f%%" (pct100 .Tolerance)}}</td><td class="result {{if .Regressed}}fail{{else}}pass{{end}}">{{if .Regressed}}REGRESSED{{else}}ok{{end}}</td></tr>
{{end}}</tbody></table></div>{{end}}
{{if .Versus}}<h3>Against the base side (side by side: {{versusHow $.Report.Versus}})</h3><div class="wide"><table>
<thead><tr><th>percentile</th><th>this server</th><th>the base</th><th>ratio [95% interval]</th><th>allowed</th><th class="result">result</th></tr></thead>
<tbody>{{range .Versus}}<tr><td>{{.Metric}}.p{{.Percentile}}</td><td>{{printf "%.1f ms" .ObservedMs}}</td><td>{{printf "%.1f ms" .BaselineMs}}</td><td>{{printf "×%.2f" .Ratio}}{{with .RatioCI95}}{{printf " [%.2f, %.2f]" (index . 0) (index . 1)}}{{end}}</td><td>{{printf "+%.0f%%" (pct100 .Tolerance)}}</td><td class="result {{if .Regressed}}fail{{else}}pass{{end}}">{{if .Regressed}}REGRESSED{{else}}ok{{end}}</td></tr>
{{end}}</tbody></table></div>{{end}}
<div class="cols">
<div><h3>Errors</h3>{{if .Errors}}<table><thead><tr><th>class</th><th>count</th></tr></thead><tbody>{{range .Errors}}<tr><td>{{.Class}}</td><td>{{.Count}}</td></tr>{{end}}</tbody></table>{{else}}<p class="note">none</p>{{end}}</div>
<div><h3>Server</h3>{{with .Server}}{{if .MetricsAvailable}}<dl>
<dt>prefix-cache hit rate</dt><dd>{{optpct .PrefixCacheHitRate}}</dd>
<dt>prefix cache reset</dt><dd>{{if .PrefixCacheReset}}yes{{else}}no{{end}}</dd>
<dt>max waiting</dt><dd>{{num .MaxWaiting}}</dd>
<dt>waiting slope</dt><dd>{{num .WaitingSlopePerS}} /s (rise {{num .WaitingRise}}, {{num .WaitingAtEnd}} at end)</dd>
<dt>KV-cache usage max</dt><dd>{{pct .KVCacheUsageMax}}</dd>
<dt>preemptions</dt><dd>{{num .Preemptions}}</dd>
<dt>scrapes</dt><dd>{{.Samples}}</dd>
</dl>{{else}}<p class="note">No server metrics{{with .Error}}: {{.}}{{end}}.</p>{{end}}{{end}}</div>
<div><h3>Client</h3><dl>
<dt>CPU utilization</dt><dd>{{pct .Client.CPUUtilization}}</dd>
<dt>scheduler latency p99</dt><dd>{{num .Client.SchedLatencyP99Ms}} ms</dd>
<dt>GOMAXPROCS</dt><dd>{{.Client.GOMAXPROCS}}</dd>
<dt>send lag p99</dt><dd>{{ms .SendLag.P99 .SendLag.Count}}</dd>
<dt>output tokens/s</dt><dd>{{num .Tokens.OutputPerS}}</dd>
<dt>length mismatches</dt><dd>{{.LengthMismatches}}</dd>
</dl></div>
</div>
<figure>{{with .Timeline.SVG}}{{.}}{{else}}<p class="note">{{.Timeline.Note}}</p>{{end}}
<figcaption>Per second of the measured window, mean and max TTFT of the requests that completed in it; requests sent (by intended send time) and completed. TTFT that climbs second after second is a growing queue.</figcaption></figure>
{{if .UntilDecided}}<h3>Until decided</h3>
<figure>{{with .Decision.SVG}}{{.}}{{else}}<p class="note">{{.Decision.Note}}</p>{{end}}
<figcaption>Each gated SLO's anytime interval at each look, once a second: it narrows as requests finish, and a side the sample cannot bound yet is not drawn. Dashed: the SLO's limit; dotted: the floor, before which no look stops the step; solid: the look that decided it.</figcaption></figure>
<p class="why">{{.UntilDecided.Why}}</p>{{end}}
</section>
{{end}}
</body>
</html>
`

// WriteHTMLFile writes the report's HTML page to path, creating its
// directory.
func WriteHTMLFile(path string, r *report.Report) error {
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write html report: %w", err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write html report: %w", err)
	}
	return nil
}
