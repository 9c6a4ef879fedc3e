// Package drive runs the engine (package engine) in real time for the
// simulated server: one goroutine schedules a step, sleeps until its
// deadline, applies it and publishes each request's tokens to its Stream;
// in front of it, the API server's intake and admission control; behind
// it, the output path that makes tokens visible when the API server would
// have written them. It feeds the metrics (package metrics) as steps end.
//
// It knows nothing of HTTP: the server (package vllmsim) turns a request
// into a Stream, hands it over with Submit and writes what Progress
// reports. To run the engine without real time, drive engine.Engine
// directly (as the virtual-time tests do).
package drive
