// Package simtest starts the simulator for a test, the one way every
// package's tests do: on loopback, closed when the test ends. Only tests
// import it (vllmsim's own tests use vllmsim.NewServer, which this wraps).
package simtest

import (
	"testing"

	"github.com/llmslo/llmslo/vllmsim"
)

// Start starts a simulator configured by cfg and closes it when t ends.
func Start(t testing.TB, cfg vllmsim.Config) *vllmsim.Server {
	t.Helper()
	srv := vllmsim.NewServer(cfg)
	t.Cleanup(srv.Close)
	return srv
}
