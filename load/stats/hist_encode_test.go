package stats

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"io"
	"math"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stretchr/testify/require"
)

// v2Payload undoes the base64 and the deflate of a V2 compressed encoding.
func v2Payload(t *testing.T, enc []byte) []byte {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(string(enc))
	require.NoError(t, err)
	require.Equal(t, uint32(v2CompressedCookie), binary.BigEndian.Uint32(raw))
	require.Equal(t, int(binary.BigEndian.Uint32(raw[4:])), len(raw)-8, "compressed length")
	r, err := zlib.NewReader(bytes.NewReader(raw[8:]))
	require.NoError(t, err)
	p, err := io.ReadAll(r)
	require.NoError(t, err)
	return p
}

// The encoder writes what the library's own Encode writes, byte for byte
// once inflated, and the library reads it back to an equal histogram.
func TestEncodeV2MatchesTheLibrarysEncoding(t *testing.T) {
	cases := map[string]func(h *Histogram){
		"empty":     func(*Histogram) {},
		"one value": func(h *Histogram) { h.Record(42 * time.Millisecond) },
		"at both ends": func(h *Histogram) {
			h.Record(0)
			h.Record(2 * time.Hour)
		},
		"a run of tokens": func(h *Histogram) {
			for i := range 100_000 {
				h.Record(time.Duration(i%5000+1) * time.Microsecond)
			}
		},
		"counts past 2^56": func(h *Histogram) {
			_ = h.h.RecordValues(1000, math.MaxInt64/4) // nine LEB128 bytes
			_ = h.h.RecordValues(3, 1<<40)
		},
	}
	for name, fill := range cases {
		t.Run(name, func(t *testing.T) {
			h := NewHistogram()
			fill(h)
			lib, err := h.h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
			require.NoError(t, err)
			ours := encodeV2(h.h)
			require.Equal(t, v2Payload(t, lib), v2Payload(t, ours))

			back, err := hdrhistogram.Decode(ours)
			require.NoError(t, err)
			require.True(t, h.h.Equals(back), "decoded histogram differs")
			require.Equal(t, h.h.TotalCount(), back.TotalCount())
		})
	}
}

func TestAppendZigZag(t *testing.T) {
	for _, tc := range []struct {
		v    int64
		want []byte
	}{
		{0, []byte{0}},
		{-1, []byte{1}},
		{1, []byte{2}},
		{63, []byte{0x7e}},
		{64, []byte{0x80, 0x01}},
		{-1000, []byte{0xcf, 0x0f}},
		{math.MaxInt64, []byte{0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
		{math.MinInt64, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
	} {
		require.Equal(t, tc.want, appendZigZag(nil, tc.v), "%d", tc.v)
	}
}

// BenchmarkHistogramMarshal is one histogram of a step's ITL written into
// a report: the encoder beside the library's Encode.
func BenchmarkHistogramMarshal(b *testing.B) {
	h := NewHistogram()
	for i := range 128_000 {
		h.Record(time.Duration(i%3000+1) * time.Microsecond)
	}
	b.Run("encodeV2", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = encodeV2(h.h)
		}
	})
	b.Run("library", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = h.h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		}
	})
}
