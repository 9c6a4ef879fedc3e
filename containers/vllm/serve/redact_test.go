package serve

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIsSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"HF_TOKEN":               true,
		"HUGGING_FACE_HUB_TOKEN": true,
		"OPENAI_API_KEY":         true,
		"db_password":            true,
		"AWS_SECRET_ACCESS_KEY":  true,
		"VLLM_SERVER_DEV_MODE":   false,
		"CUDA_VISIBLE_DEVICES":   false,
		"HF_HOME":                false,
		"VLLM_MAX_TOKENS_LIMIT":  true, // a false positive costs a hidden value, never a leak
	} {
		assert.Equal(t, want, IsSecretName(name), name)
	}
}

func TestRedactorString(t *testing.T) {
	r := NewRedactor(map[string]string{
		"HF_TOKEN":       "hf_abc",
		"OTHER_TOKEN":    "hf_abcdef", // contains the first: replaced whole
		"EMPTY_TOKEN":    "",
		"VLLM_LOG_LEVEL": "DEBUG", // not a secret
	}, nil)
	got := r.String("token hf_abcdef and hf_abc at DEBUG")
	assert.Equal(t, "token [REDACTED] and [REDACTED] at DEBUG", got)
	assert.False(t, r.leaks(got))
	assert.True(t, r.leaks("x hf_abc y"))
}

func TestRedactorCommandLine(t *testing.T) {
	r := NewRedactor(nil, []string{"--model", "m", "--api-key", "sk-one", "--api-key=sk-two", "--api-key"})
	assert.Equal(t, "[REDACTED] [REDACTED] m", r.String("sk-one sk-two m"))
}

func TestRedactorError(t *testing.T) {
	r := NewRedactor(map[string]string{"HF_TOKEN": "hf_fake_123"}, nil)
	base := errors.New("boom")

	clean := fmt.Errorf("wrapped: %w", base)
	assert.Same(t, clean, r.Error(clean), "an error showing no secret is kept, chain and all")
	assert.ErrorIs(t, r.Error(clean), base)

	leaky := fmt.Errorf("outer: %w", fmt.Errorf("config HF_TOKEN=hf_fake_123: %w", base))
	got := r.Error(leaky)
	assert.Equal(t, "outer: config HF_TOKEN=[REDACTED]: boom", got.Error())
	for e := got; e != nil; e = errors.Unwrap(e) {
		assert.NotContains(t, e.Error(), "hf_fake_123")
	}

	joined := errors.Join(base, errors.New("hf_fake_123"))
	assert.NotContains(t, r.Error(joined).Error(), "hf_fake_123")
	assert.Nil(t, r.Error(nil))
}

// hiddenLeak shows a secret only in what it wraps.
type hiddenLeak struct{ inner error }

func (h hiddenLeak) Error() string { return "opaque" }
func (h hiddenLeak) Unwrap() error { return h.inner }

func TestRedactorErrorCutsAChainThatHidesASecret(t *testing.T) {
	r := NewRedactor(map[string]string{"HF_TOKEN": "hf_fake_123"}, nil)
	got := r.Error(hiddenLeak{inner: errors.New("hf_fake_123")})
	assert.Equal(t, "opaque", got.Error())
	assert.Nil(t, errors.Unwrap(got))
}

func TestTailLines(t *testing.T) {
	tests := []struct {
		name string
		in   string
		n    int
		want []string
	}{
		{"empty", "", 3, []string{}},
		{"fewer than n", "a\nb\n", 3, []string{"a", "b"}},
		{"exactly n", "a\nb\nc\n", 3, []string{"a", "b", "c"}},
		{"more than n", "a\nb\nc\nd\ne\n", 2, []string{"d", "e"}},
		{"no final newline", "a\nb\nc", 2, []string{"b", "c"}},
		{"CRLF", "a\r\nb\r\n", 5, []string{"a", "b"}},
		{"blank lines count", "a\n\n\n", 2, []string{"", ""}},
		{"one", "a\nb\nc\n", 1, []string{"c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := TailLines(strings.NewReader(tt.in), tt.n)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestTailLinesKeepsLongLines(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	got, err := TailLines(strings.NewReader("a\n"+long+"\nb"), 2)
	require.NoError(t, err)
	assert.Equal(t, []string{long, "b"}, got)
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("read failed") }

func TestTailLinesFailingReader(t *testing.T) {
	_, err := TailLines(failingReader{}, 2)
	assert.EqualError(t, err, "read failed")
	got, err := TailLines(strings.NewReader("1\n"), 0)
	require.NoError(t, err)
	assert.Empty(t, got)
}

func FuzzTailLines(f *testing.F) {
	f.Add("a\nb\nc\n", 2)
	f.Add("", 1)
	f.Add("\r\n\r\n", 3)
	f.Add("no newline", 4)
	f.Fuzz(func(t *testing.T, in string, n int) {
		if n <= 0 || n > 1000 {
			return
		}
		got, err := TailLines(strings.NewReader(in), n)
		require.NoError(t, err)
		var want []string
		if in != "" {
			want = strings.Split(strings.TrimSuffix(in, "\n"), "\n")
		}
		if len(want) > n {
			want = want[len(want)-n:]
		}
		require.Len(t, got, len(want))
		for i := range want {
			assert.Equal(t, strings.TrimRight(want[i], "\r\n"), got[i])
		}
	})
}
