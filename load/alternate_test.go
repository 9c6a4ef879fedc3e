package load

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/load/arrival"
	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/render"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/vllmsim"
)

// readRecords reads a run's per-request records.
func readRecords(t *testing.T, path string) []observe.RequestRecord {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []observe.RequestRecord
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var r observe.RequestRecord
		require.NoError(t, json.Unmarshal(line, &r))
		out = append(out, r)
	}
	return out
}

// Alternating, each side gets exactly its blocks in ABBA order, one after
// the other; block k holds the same requests on both sides; each block's
// transient is sent to both and measured on neither; each side's step is
// its blocks' windows, merged.
func TestAlternateSendsEachSideItsBlocksInABBAOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := gatePlan(t, vllmsim.Config{})
		p.Duration, p.Warmup, p.VersusBlock = 20*time.Second, 2*time.Second, 5*time.Second
		p.Versus = virtualSimTarget(vllmsim.Config{ProfileName: "h200-llama3-8b", StepTimeScale: 1.5})
		p.VersusMode = VersusAlternate
		p.RequestsOut = filepath.Join(t.TempDir(), "requests.jsonl")
		var w watcher
		p.Progress = &w
		rep, err := Measure(context.Background(), p)
		require.NoError(t, err)
		// The progress shows each block, the base's too, in turn.
		var started []string
		for _, e := range w.events {
			if strings.HasPrefix(e, "start ") {
				started = append(started, e)
			}
		}
		assert.Equal(t, []string{
			"start rate=6 block 1 of 4, this side 1 of 1, warm-up 2s, window 5s",
			"start rate=6 block 1 of 4, the base 1 of 1, warm-up 2s, window 5s",
			"start rate=6 block 2 of 4, the base 1 of 1, warm-up 2s, window 5s",
			"start rate=6 block 2 of 4, this side 1 of 1, warm-up 2s, window 5s",
			"start rate=6 block 3 of 4, this side 1 of 1, warm-up 2s, window 5s",
			"start rate=6 block 3 of 4, the base 1 of 1, warm-up 2s, window 5s",
			"start rate=6 block 4 of 4, the base 1 of 1, warm-up 2s, window 5s",
			"start rate=6 block 4 of 4, this side 1 of 1, warm-up 2s, window 5s",
		}, started)
		assert.Equal(t, "end rate=6 "+string(rep.Steps[0].Verdict), w.events[len(w.events)-1], "one step ended, this side's")
		require.Len(t, rep.Steps, 1)
		require.NotNil(t, rep.Versus)
		assert.Equal(t, report.VersusAlternate, rep.Versus.Mode)
		assert.Equal(t, []float64{5, 5, 5, 5}, rep.Versus.BlocksS)
		assert.Equal(t, 2.0, rep.Versus.TransientS)
		own, base := rep.Steps[0], rep.Versus.Steps[0]

		// The turns, both sides together, are ABBA, each block after the
		// one before it has ended.
		turns := append(slices.Clone(own.Blocks), base.Blocks...)
		require.Len(t, turns, 8)
		slices.SortFunc(turns, func(a, b report.StepBlock) int { return a.Turn - b.Turn })
		ownTurn := map[int]bool{}
		for _, b := range own.Blocks {
			ownTurn[b.Turn] = true
		}
		for i, side := range arrival.ABBA(4) {
			assert.Equal(t, i, turns[i].Turn)
			assert.Equal(t, side == 0, ownTurn[i], "turn %d", i)
			assert.Equal(t, i/2, turns[i].Block)
			assert.Equal(t, 5.0, turns[i].WindowS)
			if i > 0 {
				prevEnd := turns[i-1].StartedAt.Add(5 * time.Second)
				assert.False(t, turns[i].StartedAt.Before(prevEnd.Add(2*time.Second)), "turn %d starts its transient after turn %d's window", i, i-1)
			}
		}
		for k := range 4 {
			assert.Equal(t, own.Blocks[k].Scheduled, base.Blocks[k].Scheduled, "block %d: the same schedule", k)
		}

		// The records: the same requests measured on both sides, the same
		// requests left out as transients, none in both.
		split := func(path string) (measured, transient []int) {
			for _, r := range readRecords(t, path) {
				if r.Warmup {
					transient = append(transient, r.Index)
				} else {
					measured = append(measured, r.Index)
				}
			}
			slices.Sort(measured)
			slices.Sort(transient)
			return measured, transient
		}
		ownM, ownT := split(p.RequestsOut)
		baseM, baseT := split(filepath.Join(filepath.Dir(p.RequestsOut), "requests.versus.jsonl"))
		require.NotEmpty(t, ownT, "each block's transient is sent")
		assert.Equal(t, ownM, baseM, "the same requests measured on both sides")
		assert.Equal(t, ownT, baseT, "the same transients left out of both")
		for _, i := range ownT {
			_, found := slices.BinarySearch(ownM, i)
			assert.False(t, found, "request %d both measured and left out", i)
		}
		sched := 0
		for _, b := range own.Blocks {
			sched += b.Scheduled
		}
		assert.Equal(t, sched, own.Requests.Scheduled)
		assert.Len(t, ownM, own.Requests.Sent)
		assert.Equal(t, 20.0, own.DurationS, "the step is its blocks' windows")
		assert.LessOrEqual(t, len(own.Timeline), 20, "a block's drain counts in its last second")
		require.Len(t, own.Versus, 2)
		for _, c := range own.Versus {
			assert.True(t, c.Paired, c.Metric)
			require.NotNil(t, c.RatioCI95, c.Metric)
			assert.Less(t, c.RatioCI95[1], 1.0, "%s: the base is 1.5× slower", c.Metric)
		}
	})
}

// Alternating under a drift every server shares: an unchanged server
// passes against its base, and one whose every engine step is 20% slower
// is caught; the blocks pair what a drift of minutes moved alike.
func TestAlternateCancelsTheDrift(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		drift := vllmsim.Drift{Kind: vllmsim.DriftSine, Amplitude: 0.2, Period: 4 * time.Minute}
		for _, c := range []struct {
			scale float64
			want  report.Verdict
		}{{1, report.VerdictPass}, {1.2, report.VerdictFail}} {
			p := gatePlan(t, vllmsim.Config{Drift: drift, StepTimeScale: c.scale})
			p.Duration, p.VersusMode = 40*time.Second, VersusAlternate
			p.Versus = virtualSimTarget(vllmsim.Config{ProfileName: "h200-llama3-8b", Drift: drift})
			rep, err := Measure(context.Background(), p)
			require.NoError(t, err)
			st := rep.Steps[0]
			t.Logf("alternate, ×%g: %s: %s", c.scale, st.Verdict, render.VersusLine(st.Versus))
			assert.Equal(t, c.want, st.Verdict, "×%g", c.scale)
			assert.Equal(t, c.want == report.VerdictFail, len(verdict.Regressions(st.Versus)) > 0, "×%g", c.scale)
			assert.Equal(t, report.VerdictPass, rep.Versus.Steps[0].Verdict, "the base side on its own SLOs")
		}
	})
}

// An alternating step short of samples names a length it can be cut in,
// and the step run for that length has its samples.
func TestAShortAlternatingStepsFixIsWholeBlocks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := gatePlan(t, vllmsim.Config{})
		p.Rates, p.Duration, p.Warmup, p.VersusBlock = []float64{2}, 14*time.Second, 2*time.Second, 7*time.Second
		p.Versus, p.VersusMode = virtualSimTarget(vllmsim.Config{ProfileName: "h200-llama3-8b"}), VersusAlternate
		rep, err := Measure(context.Background(), p)
		require.NoError(t, err)
		st := rep.Steps[0]
		i := slices.IndexFunc(st.Hazards, func(h report.Hazard) bool { return h.Kind == verdict.HazardTooFewSamples })
		require.GreaterOrEqual(t, i, 0, "%+v", st.Hazards)
		m := regexp.MustCompile(`at least (\d+) s`).FindStringSubmatch(st.Hazards[i].Fix)
		require.Len(t, m, 2, st.Hazards[i].Fix)
		secs, err := strconv.Atoi(m[1])
		require.NoError(t, err)
		p.Duration = time.Duration(secs) * time.Second
		require.NoError(t, p.Validate(), "%d s: a window an alternating run takes", secs)
		rep, err = Measure(context.Background(), p)
		require.NoError(t, err)
		for _, h := range rep.Steps[0].Hazards {
			assert.NotEqual(t, verdict.HazardTooFewSamples, h.Kind, h.Message)
		}
	})
}

// Past its knee, an alternating step still fails as over capacity: each
// block starts from an idle server, and the queue's rise within the blocks
// is what the check sees. At 1.5 times its capacity, every time.
func TestAlternatingPastTheKneeFailsAsOverCapacity(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, rate := range []float64{5, 6.5} {
			p := kneePlan(t, rate, 40*time.Second)
			p.UntilDecided, p.VersusMode = false, VersusAlternate
			p.Versus = virtualSimTarget(vllmsim.Config{ProfileName: "h200-llama3-8b", MaxNumSeqs: 2})
			rep, err := Measure(context.Background(), p)
			require.NoError(t, err)
			st := rep.Steps[0]
			t.Logf("rate %g: %s, over capacity: %v, ttft p50 %.0f ms", rate, st.Verdict, st.OverCapacity != nil, st.TTFT.P50)
			if rate == 6.5 {
				assert.Equal(t, report.VerdictFail, st.Verdict)
				assert.NotNil(t, st.OverCapacity, "%+v", st.Hazards)
			}
		}
	})
}

// An alternating run cut short keeps what it measured: the report comes
// back partial, each side's step holding the blocks it ran, and no
// comparison is made of blocks one side lacks.
func TestACancelledAlternatingRunKeepsItsBlocks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := gatePlan(t, vllmsim.Config{})
		p.Duration, p.Warmup, p.VersusBlock = 20*time.Second, 2*time.Second, 5*time.Second
		p.Versus, p.VersusMode = virtualSimTarget(vllmsim.Config{ProfileName: "h200-llama3-8b"}), VersusAlternate
		ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second) // within the fourth turn
		defer cancel()
		rep, err := Measure(ctx, p)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.NotNil(t, rep)
		assert.True(t, rep.Partial)
		require.Len(t, rep.Steps, 1)
		st := rep.Steps[0]
		assert.True(t, st.Partial)
		assert.Empty(t, st.Versus, "no comparison of unmatched blocks")
		require.Len(t, rep.Versus.Steps, 1)
		t.Logf("blocks: this side %d, the base %d", len(st.Blocks), len(rep.Versus.Steps[0].Blocks))
		assert.NotEmpty(t, st.Blocks)
		assert.GreaterOrEqual(t, len(rep.Versus.Steps[0].Blocks), 2, "the base's turns 1 and 2 ran")
	})
}

// A window that is not a multiple of the block runs as an even number of
// whole-second blocks, the longer first (30 s: 8, 8, 7 and 7 s), each the
// same length on both sides, and merges back into a 30 s step a side.
func TestAnAlternatingWindowRunsAsAnEvenNumberOfBlocks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := gatePlan(t, vllmsim.Config{})
		p.Versus, p.VersusMode = virtualSimTarget(vllmsim.Config{ProfileName: "h200-llama3-8b"}), VersusAlternate
		rep, err := Measure(context.Background(), p)
		require.NoError(t, err)
		assert.Equal(t, []float64{8, 8, 7, 7}, rep.Versus.BlocksS)
		for _, st := range []report.StepReport{rep.Steps[0], rep.Versus.Steps[0]} {
			windows := make([]float64, 4)
			require.Len(t, st.Blocks, 4)
			for _, b := range st.Blocks {
				windows[b.Block] = b.WindowS
			}
			assert.Equal(t, []float64{8, 8, 7, 7}, windows)
			assert.Equal(t, 30.0, st.DurationS)
		}
		require.NotEmpty(t, rep.Steps[0].Versus)
		for _, c := range rep.Steps[0].Versus {
			require.NotNil(t, c.RatioCI95, c.Metric)
		}
	})
}
