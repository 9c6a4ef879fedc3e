package main

import (
	"context"
	"flag"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var virtualFlag = flag.Bool("virtual", false, "run gatepower's flags in virtual time (TestVirtual)")

// TestVirtual is gatepower in virtual time: every simulator on in-memory
// connections inside a testing/synctest bubble, where a trial of minutes
// takes the CPU time it needs, and -parallel costs nothing. The flags are
// gatepower's own, after -args:
//
//	go test ./bench/gatepower -run TestVirtual -v -timeout 1h -args -virtual -trials 40 -until-decided -parallel 8
//	go test ./bench/gatepower -run TestVirtual -v -args -virtual -refusals inproc -trials 40 -until-decided
//
// The real-time modes (process, neighbour, starved) are refused there.
func TestVirtual(t *testing.T) {
	if !*virtualFlag {
		t.Skip("a measurement, run by hand: go test ./bench/gatepower -run TestVirtual -v -args -virtual [flags]")
	}
	synctest.Test(t, func(t *testing.T) {
		require.NoError(t, runFlags(context.Background(), true))
	})
}

// The power mode's tally in virtual time, at a size that fits the test
// suite (one trial): the unchanged server raises no alarm against its own
// baseline, and one whose every engine step takes half as long again is
// caught.
func TestPowerInVirtualTime(t *testing.T) {
	g := gateSpec{rate: 6, d: 20 * time.Second, warmup: 5 * time.Second, slos: refusalSLOs, virtual: true, untilDecided: true}
	var rows []*tally
	synctest.Test(t, func(t *testing.T) {
		var err error
		rows, err = run(context.Background(), 1, []float64{1.5}, 0.10, g, 8)
		require.NoError(t, err)
	})
	require.Len(t, rows, 4)
	for _, r := range rows {
		t.Logf("%s: %d runs, %d pass, %d fail, %d invalid, %d alarms", r.name, r.runs, r.pass, r.fail, r.invalid, r.alarms)
	}
	assert.Equal(t, 1, rows[0].runs, "one baseline recorded")
	assert.Zero(t, rows[0].invalid, "none refused: the client is never late in virtual time")
	assert.Zero(t, rows[1].alarms, "unchanged, paired: no alarm")
	assert.Equal(t, rows[3].runs, rows[3].alarms, "×1.5: caught every time")
}
