package client

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/llmslo/llmslo/vllmsim"
	"github.com/llmslo/llmslo/vllmsim/engine"
)

// testModel is the model the simulator serves and newTestClient asks for.
const testModel = "test-model"

// simServer starts the simulator for a client test, on the instant profile
// unless cfg names another, and taps its connections so that a test can
// check what went over the wire and when.
func simServer(t testing.TB, cfg vllmsim.Config) *tappedSim {
	t.Helper()
	if cfg.Model == "" {
		cfg.Model = testModel
	}
	if cfg.ProfileName == "" && cfg.Profile == (engine.StepProfile{}) {
		cfg.ProfileName = "instant"
	}
	s := &tappedSim{Server: vllmsim.NewUnstartedServer(cfg)}
	s.Listener = &tapListener{Listener: s.Listener, sim: s}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// tappedSim is a simulator whose connections record every read and write
// with its time.
type tappedSim struct {
	*vllmsim.Server
	mu    sync.Mutex
	conns []*tapConn
}

type tapListener struct {
	net.Listener
	sim *tappedSim
}

func (l *tapListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc := &tapConn{Conn: c, sim: l.sim}
	l.sim.mu.Lock()
	l.sim.conns = append(l.sim.conns, tc)
	l.sim.mu.Unlock()
	return tc, nil
}

// tapConn records what the server read (the requests) and wrote (the
// responses). Writes are timed just before they go to the socket, so a
// client that has read an event finds its write recorded.
type tapConn struct {
	net.Conn
	sim    *tappedSim
	in     []byte
	inAt   []timedSpan // when the bytes up to end arrived
	writes []timedWrite
}

type timedSpan struct {
	end int
	at  time.Time
}

type timedWrite struct {
	at   time.Time
	data []byte
}

func (c *tapConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		at := time.Now()
		c.sim.mu.Lock()
		c.in = append(c.in, p[:n]...)
		c.inAt = append(c.inAt, timedSpan{len(c.in), at})
		c.sim.mu.Unlock()
	}
	return n, err
}

func (c *tapConn) Write(p []byte) (int, error) {
	c.sim.mu.Lock()
	c.writes = append(c.writes, timedWrite{time.Now(), bytes.Clone(p)})
	c.sim.mu.Unlock()
	return c.Conn.Write(p)
}

// wireRequest is one request as it came over the wire, with its response's
// token events.
type wireRequest struct {
	Path   string
	Header http.Header
	Body   []byte
	// Arrived is when the request's last byte was read.
	Arrived time.Time
	// Writes holds, for each token event of the response, when the write
	// that carried it began.
	Writes []time.Time
}

// tokenMarks begin every token event: the simulator's token texts all start
// with a space, and the chat role chunk's content is empty.
var tokenMarks = [][]byte{[]byte(`"text":" `), []byte(`"delta":{"content":" `)}

// Requests returns the requests read so far, in order of arrival. A
// connection answers its requests in order, so its n-th response, which
// begins with a write of "HTTP/1.1 ", is its n-th request's.
func (s *tappedSim) Requests() []wireRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []wireRequest
	for _, c := range s.conns {
		var responses [][]time.Time
		for _, w := range c.writes {
			if bytes.HasPrefix(w.data, []byte("HTTP/1.1 ")) {
				responses = append(responses, nil)
			}
			if len(responses) == 0 {
				continue
			}
			for _, m := range tokenMarks {
				for range bytes.Count(w.data, m) {
					responses[len(responses)-1] = append(responses[len(responses)-1], w.at)
				}
			}
		}
		rd := bytes.NewReader(c.in)
		br := bufio.NewReader(rd)
		for k := 0; ; k++ {
			req, err := http.ReadRequest(br)
			if err != nil {
				break
			}
			body, err := io.ReadAll(req.Body)
			if err != nil {
				break
			}
			end := len(c.in) - rd.Len() - br.Buffered()
			r := wireRequest{Path: req.URL.Path, Header: req.Header, Body: body, Arrived: c.inAt[len(c.inAt)-1].at}
			if i := sort.Search(len(c.inAt), func(i int) bool { return c.inAt[i].end >= end }); i < len(c.inAt) {
				r.Arrived = c.inAt[i].at
			}
			if k < len(responses) {
				r.Writes = responses[k]
			}
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Arrived.Before(out[j].Arrived) })
	return out
}

// MaxInFlight is the most requests that were between arrival and their last
// token event at once.
func (s *tappedSim) MaxInFlight() int {
	type edge struct {
		at time.Time
		d  int
	}
	var edges []edge
	for _, r := range s.Requests() {
		if len(r.Writes) > 0 {
			edges = append(edges, edge{r.Arrived, 1}, edge{r.Writes[len(r.Writes)-1], -1})
		}
	}
	sort.Slice(edges, func(i, j int) bool {
		if edges[i].at.Equal(edges[j].at) {
			return edges[i].d < edges[j].d
		}
		return edges[i].at.Before(edges[j].at)
	})
	n, most := 0, 0
	for _, e := range edges {
		n += e.d
		most = max(most, n)
	}
	return most
}
