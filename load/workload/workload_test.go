package workload

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/llmslo/llmslo/fixtures"
	"github.com/llmslo/llmslo/fixtures/formats"
	"github.com/llmslo/llmslo/load/vllmapi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var _ Workload = (*Generator)(nil)

func mustOpen(t testing.TB, name string) *fixtures.Fixture {
	t.Helper()
	fx, err := formats.Open(name)
	require.NoError(t, err)
	return fx
}

func TestSameSeedSameRequests(t *testing.T) {
	fx := mustOpen(t, "azure-conv-2023")
	a, err := New(fx, Options{Seed: 7, Salt: "run-1"})
	require.NoError(t, err)
	b, err := New(fx, Options{Seed: 7, Salt: "run-1"})
	require.NoError(t, err)
	c, err := New(fx, Options{Seed: 8, Salt: "run-1"})
	require.NoError(t, err)
	differ := 0
	for _, i := range []int{0, 1, 2, 500, 19365, 19366, 40000, 3} { // out of order and across epochs
		ra, rb := a.Request(i), b.Request(i)
		assert.Equal(t, ra, rb, "request %d", i)
		assert.Equal(t, i, ra.Index)
		if c.Shape(i).Row != a.Shape(i).Row {
			differ++
		}
	}
	assert.Equal(t, a.Request(500), a.Request(500), "Request is a pure function of i")
	assert.Greater(t, differ, 4, "another seed draws other rows")
}

func TestSentLengthsMatchFixtureKS(t *testing.T) {
	const alpha = 0.01
	for _, name := range []string{"azure-code-2023", "azure-conv-2023"} {
		fx := mustOpen(t, name)
		w, err := New(fx, Options{Seed: 42, Salt: "ks"})
		require.NoError(t, err)
		const n = 3000 // a partial epoch: a genuine sample, not the whole fixture
		in, out := make([]int, n), make([]int, n)
		for i := range n {
			s := w.Shape(i)
			in[i], out[i] = s.Input, s.Output
		}
		crit := ksCritical(n, fx.Len(), alpha)
		dIn, dOut := ksStatistic(in, fx.Inputs), ksStatistic(out, fx.Outputs)
		t.Logf("%s: KS D(input)=%.4f D(output)=%.4f, critical %.4f at α=%.2f", name, dIn, dOut, crit, alpha)
		assert.Less(t, dIn, crit, "%s input lengths", name)
		assert.Less(t, dOut, crit, "%s output lengths", name)
		// The test has power: a length distribution shifted by 10% fails it.
		shifted := make([]int, n)
		for i, v := range in {
			shifted[i] = v * 11 / 10
		}
		assert.Greater(t, ksStatistic(shifted, fx.Inputs), crit, "%s shifted", name)
	}
}

func TestJointPairsAreNeverSplit(t *testing.T) {
	fx := mustOpen(t, "azure-code-2023")
	pairs := map[[2]int]bool{}
	for i := range fx.Inputs {
		pairs[[2]int{fx.Inputs[i], fx.Outputs[i]}] = true
	}
	w, err := New(fx, Options{Seed: 3})
	require.NoError(t, err)
	for i := range 20000 {
		s := w.Shape(i)
		require.True(t, pairs[[2]int{s.Input, s.Output}], "request %d sent a pair no row holds", i)
	}
	// One whole epoch sends every row exactly once.
	seen := make([]int, fx.Len())
	for i := range fx.Len() {
		seen[w.Shape(i).Row]++
	}
	for row, n := range seen {
		require.Equal(t, 1, n, "row %d", row)
	}
}

func TestMarginalsAreDrawnIndependently(t *testing.T) {
	fx, err := formats.Open("testdata/metrics-scrape.txt")
	require.NoError(t, err)
	w, err := New(fx, Options{Seed: 1})
	require.NoError(t, err)
	// Inputs and outputs are expanded in bucket order, so drawing them with
	// one index would pair short with short; independent draws do not.
	same := 0
	for i := range 100 {
		s := w.Shape(i)
		if s.Input == fx.Inputs[s.Row] && indexOf(fx.Outputs, s.Output) == s.Row {
			same++
		}
	}
	assert.Less(t, same, 20)
}

func indexOf(xs []int, v int) int {
	for i, x := range xs {
		if x == v {
			return i
		}
	}
	return -1
}

func TestInOrderFollowsTheTrace(t *testing.T) {
	fx := mustOpen(t, "azure-code-2023")
	w, err := New(fx, Options{InOrder: true})
	require.NoError(t, err)
	for _, i := range []int{0, 1, 100, fx.Len() + 5} {
		r := w.Request(i)
		assert.Equal(t, fx.Inputs[i%fx.Len()], r.InputTokens)
		assert.Equal(t, fx.Outputs[i%fx.Len()], r.OutputTokens)
	}
}

func TestClipToMaxModelLen(t *testing.T) {
	fx := mustOpen(t, "azure-conv-2023")
	const maxLen = 4096
	over := 0
	for i := range fx.Inputs {
		if fx.Inputs[i]+fx.Outputs[i] > maxLen {
			over++
		}
	}
	require.Greater(t, over, 0)
	w, err := New(fx, Options{MaxModelLen: maxLen, Seed: 1})
	require.NoError(t, err)
	assert.Equal(t, over, w.Info().Clipped)
	assert.Zero(t, fx.Clipped, "the source fixture is untouched")
	for i := range 3000 {
		s := w.Shape(i)
		require.LessOrEqual(t, s.Input+s.Output, maxLen)
	}
	for i := range 200 {
		r := w.Request(i)
		require.LessOrEqual(t, r.InputTokens+r.OutputTokens, maxLen)
		require.Len(t, r.PromptIDs, r.InputTokens)
	}
	c := (&fixtures.Fixture{Inputs: []int{100, 5000, 10}, Outputs: []int{10, 20, 5000}, Provenance: fixtures.Provenance{Joint: true}}).Clip(4096)
	assert.Equal(t, []int{100, 4076, 1}, c.Inputs)
	assert.Equal(t, []int{10, 20, 4095}, c.Outputs)
	assert.Equal(t, 2, c.Clipped)
}

func TestTokenPromptsExactAndInVocabulary(t *testing.T) {
	fx := mustOpen(t, "azure-code-2023")
	for _, vocab := range [][2]int{{0, 0}, {5, 9}, {100, 101}} {
		w, err := New(fx, Options{Seed: 2, VocabMin: vocab[0], VocabMax: vocab[1]})
		require.NoError(t, err)
		lo, hi := vocab[0], vocab[1]
		if lo == 0 && hi == 0 {
			lo, hi = DefaultVocabMin, DefaultVocabMax
		}
		for i := range 300 {
			r := w.Request(i)
			require.Len(t, r.PromptIDs, r.InputTokens)
			require.Empty(t, r.Prompt)
			for _, id := range r.PromptIDs {
				require.True(t, id >= lo && id < hi, "id %d outside [%d, %d)", id, lo, hi)
			}
		}
	}
	_, err := New(fx, Options{VocabMin: 10, VocabMax: 10})
	assert.Error(t, err)
}

func TestPrefixBlocksRepeatWithinRunAndDifferAcrossSalts(t *testing.T) {
	fx, err := formats.Open("testdata/mooncake-known.jsonl")
	require.NoError(t, err)
	run := func(salt string) [][]int {
		w, err := New(fx, Options{InOrder: true, Salt: salt})
		require.NoError(t, err)
		out := make([][]int, fx.Len())
		for i := range out {
			out[i] = w.Request(i).PromptIDs
			require.Len(t, out[i], fx.Inputs[i])
		}
		return out
	}
	a, b := run("one"), run("two")
	const bs = formats.MooncakeBlockSize
	// Hash 1 opens rows 0, 1, 2; hash 2 is block 1 of rows 0 and 1; hash 3
	// is block 2 of row 1 and block 0 of row 3.
	assert.Equal(t, a[0][:2*bs], a[1][:2*bs])
	assert.Equal(t, a[0][:bs], a[2][:bs])
	assert.Equal(t, a[1][2*bs:3*bs], a[3][:bs])
	assert.NotEqual(t, a[2][bs:], a[1][bs:bs+188], "hash 4 is not hash 2")
	assert.NotEqual(t, a[0][:bs], a[4][:100], "a request without blocks shares nothing")
	// Another salt: the same structure, other tokens.
	assert.Equal(t, b[0][:2*bs], b[1][:2*bs])
	for i := range a {
		assert.NotEqual(t, a[i][:min(16, len(a[i]))], b[i][:min(16, len(b[i]))], "row %d", i)
	}
	// The same salt twice is the same prompts (DisableSalt is a fixed salt).
	assert.Equal(t, a, run("one"))
	// Requests without blocks never share their opening tokens.
	w, err := New(mustOpen(t, "fixed:64:8"), Options{})
	require.NoError(t, err)
	firsts := map[[nonceLen]int]bool{}
	for i := range 5000 {
		var k [nonceLen]int
		copy(k[:], w.Request(i).PromptIDs)
		require.False(t, firsts[k], "request %d repeats an earlier nonce", i)
		firsts[k] = true
	}
}

func TestSaltDefaultsToRandomPerRun(t *testing.T) {
	fx := mustOpen(t, "fixed:32:4")
	a, err := New(fx, Options{})
	require.NoError(t, err)
	b, err := New(fx, Options{})
	require.NoError(t, err)
	assert.NotEqual(t, a.Salt(), b.Salt())
	assert.NotEqual(t, a.Request(0).PromptIDs, b.Request(0).PromptIDs)
	c, err := New(fx, Options{DisableSalt: true})
	require.NoError(t, err)
	d, err := New(fx, Options{DisableSalt: true, Salt: "ignored"})
	require.NoError(t, err)
	assert.Empty(t, c.Salt())
	assert.Equal(t, c.Request(0), d.Request(0))
}

// tokenizeServer implements vLLM's POST /tokenize for chat messages with a
// tokenizer unlike one-token-per-word: a 9-token chat template, and a word
// costs one token per started 4 letters ("the" 1, "water" 2, "national" 2,
// "through" 2).
func tokenizeServer(t *testing.T, calls *atomic.Int64) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/tokenize" {
			http.NotFound(w, r)
			return
		}
		calls.Add(1)
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) != 1 || req.Model != "m" || req.Messages[0].Role != "user" {
			http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
			return
		}
		n := 9
		for _, word := range strings.Fields(req.Messages[0].Content) {
			n += (len(word) + 3) / 4
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"count": n, "max_model_len": 32768, "tokens": []int{}})
	}))
}

func TestTextPromptsCalibratedThroughTokenize(t *testing.T) {
	var calls atomic.Int64
	srv := tokenizeServer(t, &calls)
	defer srv.Close()
	fx := mustOpen(t, "azure-conv-2023")
	w, err := New(fx, Options{
		API: APIChat, Seed: 5, Salt: "calibration", Tokenizer: vllmapi.NewHTTPTokenizer(srv.URL+"/v1/", "m", srv.Client()),
	})
	require.NoError(t, err)
	const n = 100
	require.NoError(t, w.Prepare(context.Background(), n))
	tok := vllmapi.NewHTTPTokenizer(srv.URL, "m", nil)
	unreachable, short := 0, 0
	for i := range n {
		r := w.Request(i)
		if r.InputTokens < 9+2 {
			short++
		}
		require.Empty(t, r.PromptIDs)
		got, err := tok.CountTokens(context.Background(), r.Prompt)
		require.NoError(t, err)
		if got != r.InputTokens {
			// Only a prompt shorter than the template plus one word may miss,
			// and then by being one word long.
			require.Len(t, strings.Fields(r.Prompt), 1, "request %d: %d tokens for %d asked", i, got, r.InputTokens)
			require.Greater(t, got, r.InputTokens)
			require.Less(t, r.InputTokens, 9+2)
			unreachable++
		}
	}
	st := w.Calibration()
	t.Logf("calibration: %+v (%.1f tokenizer calls per prompt)", st, float64(st.TokenizerCalls)/float64(st.Prompts))
	assert.Equal(t, n, st.Prompts)
	assert.Equal(t, n, st.Measured)
	assert.Equal(t, n-unreachable, st.Exact)
	assert.LessOrEqual(t, unreachable, short)
	before := calls.Load()
	w.Request(3)
	assert.Equal(t, before, calls.Load(), "a prepared prompt is not measured again")
}

func TestTextCalibrationReportsWhatItCannotReach(t *testing.T) {
	var calls atomic.Int64
	srv := tokenizeServer(t, &calls)
	defer srv.Close()
	// 5 tokens: the template alone costs 9.
	w, err := New(mustOpen(t, "fixed:5:1"), Options{API: APIChat, Tokenizer: vllmapi.NewHTTPTokenizer(srv.URL, "m", nil)})
	require.NoError(t, err)
	r := w.Request(0)
	require.Len(t, strings.Fields(r.Prompt), 1, "cut down to one word")
	got, err := vllmapi.NewHTTPTokenizer(srv.URL, "m", nil).CountTokens(context.Background(), r.Prompt)
	require.NoError(t, err)
	st := w.Calibration()
	assert.Equal(t, 1, st.Measured)
	assert.Zero(t, st.Exact)
	assert.Equal(t, got-5, st.MaxResidual, "the residual is reported")
	assert.GreaterOrEqual(t, st.MaxResidual, 5)

	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "tokenizer unavailable", http.StatusServiceUnavailable)
	}))
	defer broken.Close()
	w, err = New(mustOpen(t, "fixed:50:1"), Options{API: APIChat, Tokenizer: vllmapi.NewHTTPTokenizer(broken.URL, "m", nil), Text: TextModel{TokensPerWord: 1, Overhead: 10}})
	require.NoError(t, err)
	r = w.Request(0)
	assert.Len(t, strings.Fields(r.Prompt), 40, "falls back to the model: (50−10)/1 words")
	st = w.Calibration()
	assert.Equal(t, 1, st.Errors)
	assert.Contains(t, st.LastError, "HTTP 503")
}

func TestTextWithoutTokenizerUsesTheModel(t *testing.T) {
	w, err := New(mustOpen(t, "fixed:100:1"), Options{API: APIChat, Text: TextModel{TokensPerWord: 1.25, Overhead: 20}})
	require.NoError(t, err)
	assert.Len(t, strings.Fields(w.Request(0).Prompt), 64)
	m, err := FitTextModel([]int{10, 20, 40}, []int{25, 38, 64})
	require.NoError(t, err)
	assert.InDelta(t, 1.3, m.TokensPerWord, 1e-9)
	assert.InDelta(t, 12, m.Overhead, 1e-9)
	_, err = FitTextModel(nil, nil)
	assert.Error(t, err)
}

// For a server that refuses token ids, completions prompts are text sized
// by the model fitted to its usage: Overhead tokens of its own, then one
// word a token at 1 token a word.
func TestTextPromptsOnCompletions(t *testing.T) {
	w, err := New(mustOpen(t, "fixed:64:8"), Options{Seed: 1, TextPrompts: true, Text: TextModel{TokensPerWord: 1, Overhead: 1}})
	require.NoError(t, err)
	r := w.Request(0)
	assert.Empty(t, r.PromptIDs)
	assert.Len(t, strings.Fields(r.Prompt), 63)
	assert.Equal(t, 64, r.InputTokens)
}
