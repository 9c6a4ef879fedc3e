package render

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/llmslo/llmslo/load/report"
)

// writeFit writes what Fit read before the first step, and its finding.
func writeFit(w io.Writer, f *report.Fit) {
	if f == nil {
		return
	}
	fmt.Fprintln(w, f.Message)
	if f.Finding != nil {
		fmt.Fprintf(w, "finding (%s): %s\n", f.Finding.Kind, f.Finding.Message)
	}
}

// WriteTune writes a tuning session: each iteration's flags, knee,
// binding and decision, why it stopped, the final vllm serve command
// line, and the protection read at the final knee.
func WriteTune(w io.Writer, r *report.Report) {
	t := r.Tune
	if t == nil {
		return
	}
	if t.CannotChange != "" {
		fmt.Fprintln(w, "tune: "+t.CannotChange)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tserver flags\tknee (req/s)\tbinding\tkept\twhy")
	for i, it := range t.Iterations {
		flags := strings.Join(it.Args, " ")
		if flags == "" {
			flags = "(none)"
		}
		fail := "-"
		if it.FailRate > 0 {
			fail = fmt.Sprintf("%.4g", it.FailRate)
		}
		kept := "no"
		if it.Kept {
			kept = "yes"
		}
		fmt.Fprintf(tw, "%d\t%s\t[%.4g, %s]\t%s\t%s\t%s\n", i+1, flags, it.PassRate, fail, dash(it.Binding), kept, it.Why)
	}
	tw.Flush()
	fmt.Fprintf(w, "stopped: %s\n", t.Stop)
	writeProtect(w, r.Protect)
	fmt.Fprintf(w, "final flags: %s\n", t.Command)
	if t.CommandNote != "" {
		fmt.Fprintln(w, "  note: "+t.CommandNote)
	}
}

func writeProtect(w io.Writer, p *report.Protect) {
	if p == nil {
		return
	}
	fmt.Fprintf(w, "protect: at the knee (%.4g req/s) the server held %.0f requests, running and waiting", p.KneeRate, p.HeldAtKnee)
	if p.Flag != "" {
		fmt.Fprintf(w, "; admission limit: %s", p.Flag)
	}
	fmt.Fprintln(w)
	if p.Note != "" {
		fmt.Fprintln(w, "  note: "+p.Note)
	}
	if p.ScaledObject != "" {
		fmt.Fprintf(w, "  autoscale on num_requests_running + num_requests_waiting > %.4g per replica (KEDA ScaledObject):\n", p.InSystemThreshold)
		for _, line := range strings.Split(strings.TrimRight(p.ScaledObject, "\n"), "\n") {
			fmt.Fprintln(w, "    "+line)
		}
	}
	fmt.Fprintln(w, "  not on GPU utilisation: "+p.WhyNotGPU)
}

// markdownTune is the CI summary's part for Fit, a tuning session and
// Protect.
func markdownTune(b *strings.Builder, r *report.Report) {
	if f := r.Fit; f != nil {
		fmt.Fprintf(b, "\n\n%s.", strings.TrimPrefix(f.Message, "fit: "))
		if f.Finding != nil {
			fmt.Fprintf(b, "\n\n- **finding** `%s`: %s.", f.Finding.Kind, f.Finding.Message)
		}
	}
	if t := r.Tune; t != nil {
		b.WriteString("\n\n| # | change | knee (req/s) | binding | kept | why |\n|---:|---|---|---|---|---|\n")
		for i, it := range t.Iterations {
			fmt.Fprintf(b, "| %d | `%s` | [%.4g, %.4g] | %s | %v | %s |\n", i+1, dash(it.Change), it.PassRate, it.FailRate, dash(it.Binding), it.Kept, it.Why)
		}
		fmt.Fprintf(b, "\nStopped: %s. Final flags (tune's and Protect's): `%s`.", t.Stop, t.Command)
		if t.CommandNote != "" {
			fmt.Fprintf(b, " Note: %s.", t.CommandNote)
		}
	}
	if p := r.Protect; p != nil && p.Flag != "" {
		fmt.Fprintf(b, "\n\nProtect: `%s`; autoscale on `vllm:num_requests_running` + `vllm:num_requests_waiting` > %.4g per replica, not on GPU utilisation.",
			p.Flag, p.InSystemThreshold)
	}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// gatedErrorRate says an SLO result is the error guard of an overload
// step, which the overload gate judges on the admitted requests instead.
func gatedErrorRate(s *report.StepReport, r report.SLOResult) bool {
	return s.OverloadGate != nil && r.Metric == string(report.MetricErrorRate)
}
