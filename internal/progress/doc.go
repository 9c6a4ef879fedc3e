// Package progress shows a run while it goes, for the faces (the llmslo
// command, slotest): it implements load.Progress.
//
// On a terminal (Terminal) each running step has one live line, redrawn in
// place with a carriage return and an ANSI clear-line: the phase (warm-up,
// measure, drain) with a bar of the time elapsed against the step's warm-up
// and measured window, the requests sent, in flight, done and failed, TTFT
// p95 so far, and the step's place in the run. When the step ends, its
// summary row replaces the line and stays.
//
// Off a terminal (Plain: CI logs, pipes, files) a redraw would pile up as
// one line per frame, so it writes a plain line every 10 s and the summary
// row at each step's end, nothing in between.
//
// During a warm-up the line shows the warm-up's own requests
// (observe.Snapshot.Warmup): they are not measured, but a display that
// counted only measured ones would read zero and look stalled.
//
// A Writer reads the step's snapshot on its own ticker, from its own
// goroutine: it never touches the send path. Its clock is injectable, so
// its tests run on a fake one.
package progress
