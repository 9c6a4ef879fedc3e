package render

import (
	"fmt"
	"html"
	"image/color"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/vg"

	"github.com/llmslo/llmslo/load/report"
)

func ptr(f float64) *float64 { return &f }

// decisionReport is sweepReport whose last step (12 req/s, TPOT p50 over
// its 19 ms limit) ran until decided: its intervals narrow look by look,
// TTFT's upper side is open at the first three looks and at the ninth,
// and TPOT's lower bound crosses the limit at 23 s of a 60 s cap.
func decisionReport() *report.Report {
	r := sweepReport()
	s := &r.Steps[len(r.Steps)-1]
	d := &report.UntilDecided{MinS: 10, CapS: 60, SLOs: []string{"ttft.p90", "tpot.p50", "error_rate"}}
	for i := 1; i <= 23; i++ {
		w := 1 / (1 + 0.25*float64(i)) // the intervals' half-width shrinks as requests finish
		ttft := report.Bounds{Lo: ptr(330 * (1 - 0.8*w))}
		if i > 3 && i != 9 {
			ttft.Hi = ptr(330 * (1 + 4*w))
		}
		d.Looks = append(d.Looks, report.Look{AtS: float64(i), Requests: 12 * i, Bounds: []report.Bounds{
			ttft, {Lo: ptr(20.9 - 8*w), Hi: ptr(20.9 + 10*w)}, {Lo: ptr(0), Hi: ptr(0.2 * w)},
		}})
	}
	d.Decided, d.AtS, d.Outcome = true, 23, "fail"
	d.Why = "decided at 23 s: tpot.p50's anytime interval [19.1, 23.0] ms lies above its 19 ms limit"
	s.UntilDecided = d
	return r
}

// svgLine is a two-point path of a chart, in the SVG's points.
type svgLine struct{ x0, y0, x1, y1 float64 }

var svgLineRE = regexp.MustCompile(`<path d="M([-0-9.e]+),([-0-9.e]+)L([-0-9.e]+),([-0-9.e]+)" style="fill:none;stroke:(#[0-9A-F]{6})[^"]*"`)

// decisionSVG is a step's decision chart: its width, its texts,
// and its two-point lines by stroke colour.
func decisionSVG(t *testing.T, s *report.StepReport) (width float64, texts []svgText, lines map[string][]svgLine) {
	t.Helper()
	page, note := decisionChart(s)
	require.Empty(t, note)
	svg := string(page)
	m := svgViewBoxRE.FindStringSubmatch(svg)
	require.NotNil(t, m, "the chart has a viewBox")
	width, _ = strconv.ParseFloat(m[1], 64)
	for _, m := range svgTextRE.FindAllStringSubmatch(svg, -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		y, _ := strconv.ParseFloat(m[2], 64)
		size, _ := strconv.ParseFloat(m[3], 64)
		texts = append(texts, svgText{x, y, size, html.UnescapeString(m[4])})
	}
	lines = map[string][]svgLine{}
	for _, m := range svgLineRE.FindAllStringSubmatch(svg, -1) {
		var v [4]float64
		for i := range v {
			v[i], _ = strconv.ParseFloat(m[i+1], 64)
		}
		lines[m[5]] = append(lines[m[5]], svgLine{v[0], v[1], v[2], v[3]})
	}
	return width, texts, lines
}

// hexOf is an opaque colour as the SVG writes its stroke.
func hexOf(c color.RGBA) string { return fmt.Sprintf("#%02X%02X%02X", c.R, c.G, c.B) }

// The chart has a panel per gated SLO, each with its limit, the floor and
// the deciding look drawn where the seconds put them.
func TestDecisionChartDrawsEachSLOsIntervalLimitAndDecision(t *testing.T) {
	r := decisionReport()
	step := &r.Steps[len(r.Steps)-1]
	width, texts, lines := decisionSVG(t, step)
	var words []string
	for _, tx := range texts {
		words = append(words, tx.text)
	}
	for _, w := range []string{"TTFT p90 (ms)", "TPOT p50 (ms)", "error rate (%)", "limit 2000 ms", "limit 19.0 ms", "limit 1.00%",
		"floor 10 s", "fail at 23 s", "upper bound", "lower bound", "seconds into the measured window"} {
		assert.Contains(t, words, w)
	}
	svg, _ := decisionChart(step)
	assert.Equal(t, 3, strings.Count(string(svg), "fill:"+hexOf(failColor)+`">fail</text>`), "each panel's marker says the outcome")
	// In the data area a limit spans the panel from 0 s to the cap; in the
	// legend it is a short stroke.
	var limits []svgLine
	for _, l := range lines[hexOf(limitColor)] {
		if l.x1-l.x0 > width/2 {
			limits = append(limits, l)
		}
	}
	require.Len(t, limits, 3, "one limit per panel")
	x0, xCap := limits[0].x0, limits[0].x1
	at := func(s float64) float64 { return x0 + s/step.UntilDecided.CapS*(xCap-x0) }
	for name, c := range map[string]struct {
		hex string
		s   float64
	}{"decision": {hexOf(failColor), 23}, "floor": {hexOf(floorColor), 10}} {
		vertical := 0
		for _, l := range lines[c.hex] {
			if l.x0 == l.x1 {
				vertical++
				assert.InDelta(t, at(c.s), l.x0, 0.5, "%s marker at %g s", name, c.s)
			}
		}
		assert.Equal(t, 3, vertical, "a %s marker in each panel", name)
	}
	// Ticks are round, and no legend label runs past the chart's edge.
	style := newPlot().Legend.TextStyle
	for _, tx := range texts {
		if _, err := strconv.ParseFloat(tx.text, 64); err == nil {
			assert.LessOrEqual(t, len(tx.text), 4, "a round tick: %q", tx.text)
			continue
		}
		style.Font.Size = vg.Length(tx.sizePx)
		end := tx.x + float64(style.Width(tx.text))
		assert.LessOrEqual(t, end, width, "%q ends at %.1f pt in a chart %.1f pt wide", tx.text, end, width)
	}
}

// The step's section shows the chart and says why it stopped; a step run
// to its end has no decision chart.
func TestHTMLShowsTheDecisionOnlyForStepsRunUntilDecided(t *testing.T) {
	writeSample(t, "decision.html", decisionReport())
	page := renderHTML(t, decisionReport())
	assert.Equal(t, 1, strings.Count(page, "<h3>Until decided</h3>"), "only the step run until decided")
	assert.Equal(t, 1, strings.Count(page, ": until decided</text>"))
	contains(t, page, `<p class="why">decided at 23 s: tpot.p50&#39;s anytime interval [19.1, 23.0] ms lies above its 19 ms limit</p>`)
	last := page[strings.Index(page, `id="step-5"`):]
	assert.Less(t, strings.Index(last, "until decided</text>"), strings.Index(last, "</section>"), "in the step's own section")

	plain := renderHTML(t, sweepReport())
	notContains(t, plain, "Until decided")
	notContains(t, plain, "until decided</text>")
	svg, note := decisionChart(&sweepReport().Steps[0])
	assert.Empty(t, svg)
	assert.Empty(t, note)
}

// A side the sample cannot bound yet breaks its line there: it is neither
// drawn at 0 nor joined across the gap, and a look with no bounds at all
// does not stop the chart.
func TestDecisionChartLeavesOpenSidesUndrawn(t *testing.T) {
	looks := decisionReport().Steps[4].UntilDecided.Looks
	lo, hi, bands := intervalRuns(looks, 0, 1)
	require.Len(t, lo, 1, "the lower side is closed at every look")
	require.Len(t, hi, 2, "open at looks 1 to 3 and 9")
	assert.Equal(t, 4.0, hi[0][0].X)
	assert.Equal(t, 8.0, hi[0][len(hi[0])-1].X)
	assert.Equal(t, 10.0, hi[1][0].X)
	for _, run := range hi {
		for _, pt := range run {
			assert.Greater(t, pt.Y, 330.0, "an upper bound above the estimate, never 0")
		}
	}
	assert.Len(t, bands, 2, "the band too breaks where a side is open")

	// Drawn: TTFT's panel alone, after a look with no bounds and one with
	// both sides open; every vertex of its bounds lies above the panel's 0.
	r := decisionReport()
	d := r.Steps[4].UntilDecided
	d.SLOs = d.SLOs[:1]
	for i := range d.Looks {
		d.Looks[i].Bounds = d.Looks[i].Bounds[:1]
	}
	d.Looks = append([]report.Look{{AtS: 0.5}, {AtS: 0.7, Bounds: []report.Bounds{{}}}}, d.Looks...)
	page, note := decisionChart(&r.Steps[4])
	require.Empty(t, note)
	_, _, lines := decisionSVG(t, &r.Steps[4])
	zero := math.Inf(1) // the SVG's y of 0 ms, where the floor's marker starts
	for _, l := range lines[hexOf(floorColor)] {
		zero = math.Min(zero, math.Min(l.y0, l.y1))
	}
	require.False(t, math.IsInf(zero, 0), "the floor is drawn")
	vertices := 0
	for _, m := range regexp.MustCompile(`<path d="M([^"]*)" style="fill:none;stroke:`+hexOf(boundColor)).FindAllStringSubmatch(string(page), -1) {
		for _, pt := range strings.Split(m[1], "L") {
			y, err := strconv.ParseFloat(pt[strings.Index(pt, ",")+1:], 64)
			require.NoError(t, err)
			vertices++
			assert.Greater(t, y, zero+1, "a bound drawn at 0 ms")
		}
	}
	assert.Greater(t, vertices, 2*len(d.Looks)-10, "both bounds are drawn where closed")
}

// The terminal and the CI summary say when each step run until decided
// stopped, and why.
func TestTerminalAndSummarySayWhyAStepStopped(t *testing.T) {
	r := decisionReport()
	var term strings.Builder
	WriteSummary(&term, r)
	md := Markdown("gate", r)
	for _, out := range []string{term.String(), md} {
		assert.Contains(t, out, "decided at 23 s: tpot.p50's anytime interval")
	}
}
