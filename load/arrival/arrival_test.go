package arrival

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseArrival(t *testing.T) {
	tests := []struct {
		in   string
		want Spec
	}{
		{"constant", Spec{Kind: Constant}},
		{"poisson", Spec{Kind: Poisson}},
		{" Poisson ", Spec{Kind: Poisson}},
		{"gamma:0.25", Spec{Kind: Gamma, Burstiness: 0.25}},
		{"gamma: 2", Spec{Kind: Gamma, Burstiness: 2}},
		{"trace", Spec{Kind: Trace}},
		{"trace:1.5", Spec{Kind: Trace, Speed: 1.5}},
		{"ramp:0", Spec{Kind: Ramp, From: 0}},
		{"ramp", Spec{Kind: Ramp, From: 0}},
		{"ramp:2.5", Spec{Kind: Ramp, From: 2.5}},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("Parse(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
		back, err := Parse(got.String())
		if err != nil || back != got {
			t.Errorf("Parse(%q).String() = %q does not round-trip: %+v, %v", tt.in, got.String(), back, err)
		}
	}
}

func TestParseArrivalErrors(t *testing.T) {
	tests := []struct {
		in      string
		mention string // the part of the message that names the bad part
	}{
		{"", "unknown kind"},
		{"uniform", `unknown kind "uniform"`},
		{"gamma", "gamma needs a burstiness"},
		{"gamma:", "gamma needs a burstiness"},
		{"gamma:0", `burstiness "0" must be greater than 0`},
		{"gamma:-1", `burstiness "-1" must be greater than 0`},
		{"gamma:0.0001", `burstiness "0.0001" is below the smallest supported, 0.001`},
		{"gamma:x", `burstiness "x" is not a number`},
		{"gamma:NaN", `burstiness "NaN" is not a number`},
		{"gamma:inf", `burstiness "inf" is not a number`},
		{"trace:0", `speed "0" must be greater than 0`},
		{"trace:fast", `speed "fast" is not a number`},
		{"ramp:-2", `starting rate "-2" must be 0 or more`},
		{"constant:3", `constant takes no parameter, found "3"`},
		{"poisson:1", `poisson takes no parameter`},
	}
	for _, tt := range tests {
		_, err := Parse(tt.in)
		if err == nil {
			t.Errorf("Parse(%q) succeeded, want an error", tt.in)
			continue
		}
		if !strings.Contains(err.Error(), tt.mention) || !strings.Contains(err.Error(), `"`+tt.in+`"`) {
			t.Errorf("Parse(%q) error %q, want it to quote the input and say %q", tt.in, err, tt.mention)
		}
	}
}

func FuzzParseArrival(f *testing.F) {
	for _, s := range []string{"constant", "poisson", "gamma:0.5", "trace", "trace:2", "ramp:1", "gamma:1e-3", "ramp", "x:y:z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := Parse(s)
		if err != nil {
			return
		}
		back, err := Parse(a.String())
		if err != nil || back != a {
			t.Fatalf("%q parsed to %+v; its String %q gives %+v, %v", s, a, a.String(), back, err)
		}
	})
}

func TestArrivalSchedule(t *testing.T) {
	trace := []time.Duration{0, 100 * time.Millisecond, 300 * time.Millisecond, time.Second}
	tests := []struct {
		a    Spec
		rate float64
		want []time.Duration
	}{
		{Spec{Kind: Constant}, 2, ConstantSchedule(2, 2*time.Second)},
		{Spec{Kind: Ramp, From: 1}, 3, RampSchedule(1, 3, 2*time.Second)},
		{Spec{Kind: Trace, Speed: 2}, 999, TraceSchedule(trace, 2, 2*time.Second)},
		{Spec{Kind: Trace}, 6, TraceAtRate(trace, 6, 2*time.Second)},
	}
	for _, tt := range tests {
		got, err := tt.a.Schedule(tt.rate, 2*time.Second, 1, trace)
		if err != nil {
			t.Fatalf("%v: %v", tt.a, err)
		}
		if len(got) == 0 || !slices.Equal(got, tt.want) {
			t.Errorf("%v at %v: %v, want %v", tt.a, tt.rate, got, tt.want)
		}
	}
}

func TestArrivalScheduleErrors(t *testing.T) {
	tests := []struct {
		name    string
		a       Spec
		rate    float64
		d       time.Duration
		trace   []time.Duration
		mention string
	}{
		{"zero rate", Spec{Kind: Poisson}, 0, time.Second, nil, "rate 0 must be a positive"},
		{"negative rate", Spec{Kind: Constant}, -1, time.Second, nil, "rate -1 must be a positive"},
		{"NaN rate", Spec{Kind: Constant}, math.NaN(), time.Second, nil, "must be a positive"},
		{"infinite rate", Spec{Kind: Constant}, math.Inf(1), time.Second, nil, "must be a positive"},
		{"zero duration", Spec{Kind: Constant}, 1, 0, nil, "duration 0s must be positive"},
		{"absurd size", Spec{Kind: Poisson}, 1e6, time.Hour, nil, "more than the limit of 50000000"},
		{"gamma without burstiness", Spec{Kind: Gamma}, 1, time.Second, nil, "burstiness 0 must be a finite number of at least 0.001"},
		{"gamma too bursty", Spec{Kind: Gamma, Burstiness: 1e-9}, 1, time.Second, nil, "at least 0.001"},
		{"trace without timestamps", Spec{Kind: Trace}, 1, time.Second, nil, "no arrival timestamps"},
		{"trace with negative speed", Spec{Kind: Trace, Speed: -1}, 1, time.Second, []time.Duration{0}, "speed -1 must be positive"},
		{"ramp from negative", Spec{Kind: Ramp, From: -1}, 1, time.Second, nil, "starting rate -1"},
		{"zero value", Spec{}, 1, time.Second, nil, "unknown kind"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.a.Schedule(tt.rate, tt.d, 1, tt.trace)
			if err == nil || !strings.Contains(err.Error(), tt.mention) {
				t.Fatalf("error %v, want one saying %q", err, tt.mention)
			}
		})
	}
}
