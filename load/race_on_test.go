//go:build race

package load

// raceEnabled widens timing tolerances: the race detector slows every
// memory access, the client's and the test server's alike.
const raceEnabled = true
