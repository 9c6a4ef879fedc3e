package vllmsim

import (
	"fmt"
	"net"
	"net/http"
	"time"
)

// How the server behaves while it is "loading" (Faults.StartupDelay),
// Config.StartupBehavior, --startup-behavior. Today's vLLM builds its
// engine before its API server binds the port, so a client is refused a
// connection until the model is up; vLLM 0.9 and before answered 503 on
// every endpoint meanwhile. Keep the old behavior to test a client against
// an old server, as --error-format legacy keeps the old error shape.
const (
	StartupRefuse = "refuse" // connections refused until ready; the default
	Startup503    = "503"    // vLLM ≤ 0.9: 503 on every endpoint until ready
)

func (c *Config) checkStartup() error {
	return chooseOne(&c.StartupBehavior, "--startup-behavior", StartupRefuse, Startup503)
}

// refusesWhileLoading reports whether the port is closed until ready.
func (s *Server) refusesWhileLoading() bool {
	return s.Config.Faults.StartupDelay > 0 && s.Config.StartupBehavior == StartupRefuse
}

// closeWhileLoading closes ln when the server refuses connections while
// loading, before Start or Serve returns, and returns the address to
// listen on again once ready; "" when ln serves from the start.
func (s *Server) closeWhileLoading(ln net.Listener) string {
	if !s.refusesWhileLoading() {
		return ""
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// serveWhenReady serves ln, or, after closeWhileLoading closed it (addr
// set), waits until ready and listens again on the same address: a client
// meanwhile sees "connection refused", as from vLLM.
func (s *Server) serveWhenReady(ln net.Listener, addr string) error {
	if addr == "" {
		return s.http.Serve(ln)
	}
	t := time.NewTimer(time.Until(s.readyAt))
	defer t.Stop()
	select {
	case <-t.C:
	case <-s.closing:
		return http.ErrServerClosed
	}
	again, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("vllmsim: listening again on %s after loading: %w", addr, err)
	}
	return s.http.Serve(again)
}

func init() {
	serveFlags["startup-behavior"] = stringFlag(func(c *Config) *string { return &c.StartupBehavior })
}
