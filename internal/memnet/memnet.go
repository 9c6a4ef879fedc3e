// Package memnet is a network inside one process: a listener whose
// connections are net.Pipe pairs. A server and its client on memnet wait
// only on channels, which testing/synctest sees as durable waits, so a test
// can run them in virtual time; over a loopback socket the bubble's clock
// would stand still while a goroutine waits on the kernel.
//
// Use it only there: a pipe has no buffer, so a writer waits for its
// reader, which a server measured in real time should never do.
package memnet

import (
	"context"
	"net"
	"sync"
)

// Listener hands out the server's ends of the pipes that Dial makes.
type Listener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

// Listen returns a listener with nothing connected yet.
func Listen() *Listener {
	return &Listener{conns: make(chan net.Conn), done: make(chan struct{})}
}

// Accept waits for the next Dial, or for Close.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close makes Accept and Dial return net.ErrClosed from now on; connections
// already made stay open until their ends are closed.
func (l *Listener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

// Addr is the listener's name, which is what a URL's host names.
func (l *Listener) Addr() net.Addr { return addr{} }

// Dial connects to the listener, as a net.Dialer's DialContext does; network
// and address are ignored (there is one server).
func (l *Listener) Dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
	case <-ctx.Done():
	}
	client.Close()
	server.Close()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return nil, net.ErrClosed
}

// Host is the host that URLs to the listener carry.
const Host = "memnet"

type addr struct{}

func (addr) Network() string { return "memnet" }
func (addr) String() string  { return Host }
