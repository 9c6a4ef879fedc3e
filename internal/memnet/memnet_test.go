package memnet

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A Dial meets the next Accept, and bytes written on one end are read on
// the other.
func TestDialMeetsAccept(t *testing.T) {
	l := Listen()
	defer l.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := l.Accept()
		assert.NoError(t, err)
		accepted <- c
	}()
	c, err := l.Dial(context.Background(), "tcp", "ignored:80")
	require.NoError(t, err)
	s := <-accepted
	go func() { _, _ = c.Write([]byte("ping")); c.Close() }()
	b, err := io.ReadAll(s)
	require.NoError(t, err)
	assert.Equal(t, "ping", string(b))
	assert.Equal(t, Host, l.Addr().String())
}

// After Close, Accept and Dial fail with net.ErrClosed, and a Dial that no
// Accept meets ends with its context.
func TestCloseAndCancelEndTheWaits(t *testing.T) {
	l := Listen()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := l.Dial(ctx, "tcp", "")
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	require.NoError(t, l.Close())
	_, err = l.Accept()
	assert.True(t, errors.Is(err, net.ErrClosed))
	_, err = l.Dial(context.Background(), "tcp", "")
	assert.True(t, errors.Is(err, net.ErrClosed))
	require.NoError(t, l.Close(), "Close twice is no error")
}

// In a testing/synctest bubble, a wait on a memnet connection lets the
// clock move: a reader waiting a virtual hour for a writer's byte returns
// at once.
func TestAWaitOnAConnectionIsDurable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := Listen()
		defer l.Close()
		go func() {
			s, err := l.Accept()
			if !assert.NoError(t, err) {
				return
			}
			time.Sleep(time.Hour)
			_, _ = s.Write([]byte{1})
			s.Close()
		}()
		c, err := l.Dial(context.Background(), "", "")
		require.NoError(t, err)
		start := time.Now()
		b := make([]byte, 1)
		_, err = io.ReadFull(c, b)
		require.NoError(t, err)
		assert.Equal(t, time.Hour, time.Since(start))
		c.Close()
	})
}
