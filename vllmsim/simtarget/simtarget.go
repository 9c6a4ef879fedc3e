// Package simtarget makes the simulator a target of package load: the
// default server both faces measure when none is named. The engine does not
// import the simulator; a face that offers it fills load.Plan.Target with a
// Sim.
//
// Use it to measure the simulator from a program; to serve the simulator
// for another client, use vllmsim (or llmslo sim) directly.
package simtarget

import (
	"context"
	"fmt"
	"net"
	"slices"

	"github.com/llmslo/llmslo/internal/memnet"
	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/vllmsim"
)

// Sim is the simulator on a loopback port of the measuring process.
type Sim struct {
	// Config configures the simulator (the zero Config is the default
	// profile).
	Config vllmsim.Config
	// Args are the vLLM serve flags Config was parsed from, when it was
	// (vllmsim.ParseServeArgs): a variant adds its flags to them.
	Args []string
	// Model is the name requests carry when Config names none.
	Model string
	// Virtual serves on in-memory connections (internal/memnet), for a
	// test that measures inside a testing/synctest bubble: there the clock
	// moves only when every goroutine waits, so a minute's step takes the
	// CPU time it needs. What such a run shows of the client is nothing:
	// its sends are never late and its CPU is free.
	Virtual bool
}

// Start starts the simulator on 127.0.0.1 and stops it with the Endpoint.
func (s Sim) Start(context.Context) (*load.Endpoint, error) {
	cfg := s.Config
	if s.Model != "" && cfg.Model == "" {
		cfg.Model = s.Model
	}
	// As llmslo starts a vLLM container (VLLM_SERVER_DEV_MODE=1), so that
	// the prefix cache can be reset before each step.
	cfg.DevMode = true
	srv, err := vllmsim.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("simulator: %w", err)
	}
	var mem *memnet.Listener
	if s.Virtual {
		mem = memnet.Listen()
		srv.Listener = mem
	} else {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("simulator: %w", err)
		}
		srv.Listener = ln
	}
	srv.Start()
	model := srv.Config.ServedModelName
	if model == "" {
		model = srv.Config.Model
	}
	ep := &load.Endpoint{Kind: load.KindSim, URL: srv.URL, Model: model,
		MaxModelLen: srv.Config.MaxModelLen, MaxNumSeqs: srv.Config.MaxNumSeqs,
		KVCacheTokens: srv.Config.NumGPUBlocks * srv.Config.BlockSize,
		Stop:          func() error { srv.Close(); return nil }}
	if mem != nil {
		ep.Dial, ep.VirtualTime = mem.Dial, true
	}
	return ep, nil
}

// WithFlags is the simulator configured by Args and flags, as vLLM serve
// flags (a server variant).
func (s Sim) WithFlags(flags []string) (load.Target, error) {
	args := append(slices.Clone(s.Args), flags...)
	cfg, err := vllmsim.ParseServeArgs(args)
	if err != nil {
		return nil, err
	}
	return Sim{Config: cfg, Args: args, Model: s.Model, Virtual: s.Virtual}, nil
}

// VLLMArgs splits serve flags into vLLM's and the simulator's own, so
// that a tuning session prints a command line vLLM serve takes.
func (s Sim) VLLMArgs(args []string) (vllm, simOnly []string) { return vllmsim.VLLMArgs(args) }

// ServeArgs are the vLLM serve flags the simulator starts with.
func (s Sim) ServeArgs() []string { return slices.Clone(s.Args) }
