package stats

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"math"
	"sync"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// The V2 encoding's cookies, as HdrHistogram writes them (the low byte
// says the counts are 64-bit words, 0x10).
const (
	v2Cookie           = hdrhistogram.V2EncodingCookieBase | 0x10
	v2CompressedCookie = hdrhistogram.V2CompressedEncodingCookieBase | 0x10
)

// Deflate's writers are pooled, and Huffman-only: a fresh writer at any
// level allocates its compressor's tables (about 1 MiB), and at the LZ77
// levels fills a match table too; their page faults were most of what a
// report cost to write, sixteen encodings a step. The payloads are varints
// of a few KiB in which matching finds little: a 10 s step's report came
// to 15,255 bytes Huffman-only against 15,124 at BestCompression.
var (
	zlibWriters = sync.Pool{New: func() any {
		w, _ := zlib.NewWriterLevel(nil, zlib.HuffmanOnly) // a valid level
		return w
	}}
	flateWriters = sync.Pool{New: func() any {
		w, _ := flate.NewWriter(nil, flate.HuffmanOnly) // a valid level
		return w
	}}
)

// encodeV2 writes h in HdrHistogram's V2 compressed encoding, base64, as
// h.Encode(hdrhistogram.V2CompressedEncodingCookieBase) does: the header,
// then the counts in ZigZag LEB128 with runs of zeros as negative lengths,
// up to the largest value's bucket, deflated. Any HdrHistogram reader reads
// it; only the deflate level differs from the library's.
func encodeV2(h *hdrhistogram.Histogram) []byte {
	// Export copies every count of the range (188 KiB, a page fault for
	// each 4 KiB, read or written): a histogram whose range ends at the
	// largest value holds the same counts at the same indices (they depend
	// on the lowest value and the digits alone) in a fraction of it.
	top := max(h.Max(), 2*h.LowestTrackableValue())
	short := hdrhistogram.New(h.LowestTrackableValue(), top, int(h.SignificantFigures()))
	short.Merge(h)
	counts := short.Export().Counts
	limit := len(counts)
	for limit > 1 && counts[limit-1] == 0 {
		limit-- // an empty histogram still writes its first count, as Encode does
	}
	payload := make([]byte, 40, 40+2*limit/16+64)
	for i := 0; i < limit; {
		c := counts[i]
		i++
		if c == 0 {
			zeros := int64(1)
			for i < limit && counts[i] == 0 {
				zeros++
				i++
			}
			if zeros > 1 {
				c = -zeros
			}
		}
		payload = appendZigZag(payload, c)
	}
	ratio := 1.0 // the library's, unless values were scaled to doubles (never here)
	be := binary.BigEndian
	be.PutUint32(payload[0:], uint32(v2Cookie))
	be.PutUint32(payload[4:], uint32(len(payload)-40))
	be.PutUint32(payload[8:], 0) // normalizing index offset: counts are not rotated
	be.PutUint32(payload[12:], uint32(h.SignificantFigures()))
	be.PutUint64(payload[16:], uint64(h.LowestTrackableValue()))
	be.PutUint64(payload[24:], uint64(h.HighestTrackableValue()))
	be.PutUint64(payload[32:], math.Float64bits(ratio))

	var z bytes.Buffer
	z.Write(make([]byte, 8)) // cookie and compressed length, filled below
	w := zlibWriters.Get().(*zlib.Writer)
	w.Reset(&z)
	_, _ = w.Write(payload) // a bytes.Buffer does not fail
	_ = w.Close()
	zlibWriters.Put(w)
	out := z.Bytes()
	be.PutUint32(out[0:], uint32(v2CompressedCookie))
	be.PutUint32(out[4:], uint32(len(out)-8))
	return base64.StdEncoding.AppendEncode(nil, out)
}

// appendZigZag appends v as HdrHistogram's ZigZag LEB128 of at most nine
// bytes: the ninth, when there is one, carries eight bits whole.
func appendZigZag(b []byte, v int64) []byte {
	u := uint64((v << 1) ^ (v >> 63))
	for i := 0; i < 8; i++ {
		if u>>7 == 0 {
			return append(b, byte(u))
		}
		b = append(b, byte(u&0x7f|0x80))
		u >>= 7
	}
	return append(b, byte(u))
}
