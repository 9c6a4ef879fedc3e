package client

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/internal/simtest"
	"github.com/llmslo/llmslo/load/workload"
	"github.com/llmslo/llmslo/vllmsim"
)

// writeCountingConn counts the writes a connection is asked for.
type writeCountingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c writeCountingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// A request's headers and body go out in one write: a second write costs
// a syscall on each side and a packet, per request.
func TestRequestGoesOutInOneWrite(t *testing.T) {
	srv := simtest.Start(t, vllmsim.Config{Model: testModel, ProfileName: "instant"})
	c := newTestClient(t, srv.URL, Config{})
	var writes atomic.Int64
	dial := c.tr.DialContext
	c.tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return writeCountingConn{Conn: conn, writes: &writes}, nil
	}
	for _, prepared := range []bool{false, true} {
		for range 3 {
			req := workload.Request{PromptIDs: tokenIDs(300), InputTokens: 300, OutputTokens: 2}
			if prepared {
				c.Prepare(&req)
			}
			before := writes.Load()
			var out Outcome
			c.Do(context.Background(), req, &out)
			require.NoError(t, out.Err)
			assert.False(t, out.Written.Before(out.Sent), "the body's write time is after the send")
			// The transport's writer reports the body written after Do may
			// have returned; wait for the count to settle.
			deadline := time.Now().Add(time.Second)
			for writes.Load() == before && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			assert.Equal(t, int64(1), writes.Load()-before, "prepared body: %v", prepared)
		}
	}
}

// Outcome.Written − Outcome.Sent (a step's body_write_ms) is the time the
// body took to write, against a server of known behaviour: one that reads
// no request body for hold. A body far larger than the socket buffers
// cannot be written sooner; a small one fits in them at once.
func TestBodyWriteTimeAgainstASlowReader(t *testing.T) {
	const hold = 150 * time.Millisecond
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(hold)
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, Config{})
	write := func(promptBytes int) time.Duration {
		req := workload.Request{Prompt: strings.Repeat("a ", promptBytes/2), OutputTokens: 1}
		c.Prepare(&req) // encoded ahead, as the dispatcher does: only the write is timed
		var out Outcome
		c.Do(context.Background(), req, &out)
		require.NoError(t, out.Err)
		require.False(t, out.Written.IsZero(), "the write time is reported")
		return out.Written.Sub(out.Sent)
	}
	// 16 MB: four times what loopback's send and receive buffers hold
	// together before the server reads.
	big := write(16 << 20)
	small := write(1 << 10)
	t.Logf("body write: 16 MB %v, 1 KB %v, server reading after %v", big, small, hold)
	assert.GreaterOrEqual(t, big, hold-20*time.Millisecond, "a 16 MB body waits for the server to read")
	assert.Less(t, small, hold/2, "a 1 KB body is written before the server reads")
}
