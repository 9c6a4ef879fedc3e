package testkit

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestMedianLeavesItsInputAlone(t *testing.T) {
	d := []time.Duration{3, 1, 2, 5}
	assert.Equal(t, time.Duration(3), Median(d), "the upper median")
	assert.Equal(t, []time.Duration{3, 1, 2, 5}, d)
}

func TestNewRandIsReproducible(t *testing.T) {
	assert.Equal(t, NewRand(7).Uint64(), NewRand(7).Uint64())
	assert.NotEqual(t, NewRand(7).Uint64(), NewRand(8).Uint64())
}
