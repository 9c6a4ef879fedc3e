// Package simtest starts the simulator for a test, the one way every
// package's tests do: on loopback, closed when the test ends, or on
// in-memory connections for a test in virtual time (testing/synctest).
// Only tests import it (vllmsim's own tests use vllmsim.NewServer, which
// this wraps).
package simtest

import (
	"context"
	"net"
	"testing"

	"github.com/llmslo/llmslo/internal/memnet"
	"github.com/llmslo/llmslo/vllmsim"
)

// Start starts a simulator configured by cfg and closes it when t ends.
func Start(t testing.TB, cfg vllmsim.Config) *vllmsim.Server {
	t.Helper()
	srv := vllmsim.NewServer(cfg)
	t.Cleanup(srv.Close)
	return srv
}

// Dial makes a connection to a server on in-memory connections, as a
// net.Dialer's DialContext does.
type Dial = func(ctx context.Context, network, address string) (net.Conn, error)

// StartInMemory starts a simulator configured by cfg on in-memory
// connections and closes it when t ends. Its URL names memnet.Host: a
// client reaches it through dial. Inside synctest.Test, the server and its
// clients then run in virtual time.
func StartInMemory(t testing.TB, cfg vllmsim.Config) (srv *vllmsim.Server, dial Dial) {
	t.Helper()
	srv, dial = NewInMemory(cfg)
	t.Cleanup(srv.Close)
	return srv, dial
}

// NewInMemory starts a simulator on in-memory connections; the caller
// closes it. It panics when cfg is invalid, as vllmsim.NewServer does.
func NewInMemory(cfg vllmsim.Config) (*vllmsim.Server, Dial) {
	srv, err := vllmsim.New(cfg)
	if err != nil {
		panic(err)
	}
	ln := memnet.Listen()
	srv.Listener = ln
	srv.Start()
	return srv, ln.Dial
}
