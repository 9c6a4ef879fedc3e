package client

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/vllmsim"
	"github.com/llmslo/llmslo/workload"
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
	srv := vllmsim.NewServer(vllmsim.Config{Model: testModel, ProfileName: "instant"})
	defer srv.Close()
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
