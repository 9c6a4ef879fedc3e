package client

import (
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A dial that fails for want of the client's own descriptors or ports
// never reached the server: it is the client's limit, not a connect
// failure of the server's.
func TestClientLimitIsTheClientsOwn(t *testing.T) {
	wrap := func(errno syscall.Errno) error {
		return fmt.Errorf("POST /v1/completions: %w", &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("socket", errno)})
	}
	assert.True(t, clientLimit(wrap(syscall.EMFILE)), "too many open files")
	assert.True(t, clientLimit(wrap(syscall.ENFILE)))
	assert.True(t, clientLimit(wrap(syscall.EADDRNOTAVAIL)), "no local port left")
	assert.False(t, clientLimit(wrap(syscall.ECONNREFUSED)), "a server that refused is the server's")
	assert.False(t, clientLimit(wrap(syscall.ECONNRESET)))
}
