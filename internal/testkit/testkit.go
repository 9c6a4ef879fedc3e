// Package testkit holds the small helpers several packages' tests share, so
// that each is written once. Only tests import it.
package testkit

import (
	"math/rand/v2"
	"slices"
	"time"
)

// Median is the upper median of d (d[len/2] once sorted), d left as it was.
func Median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// NewRand is a generator seeded for a reproducible test.
func NewRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed)) }

// NoEnv is an environment with no variable set, for code that reads the
// environment through a lookup function.
func NoEnv(string) (string, bool) { return "", false }
