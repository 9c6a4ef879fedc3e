//go:build race

package main

// raceEnabled: the race detector slows the in-process simulator and the
// client alike, so tests whose verdict rests on the client keeping its
// schedule run their timing checks only without it.
const raceEnabled = true
