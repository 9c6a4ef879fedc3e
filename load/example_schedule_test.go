package load_test

import (
	"fmt"
	"time"

	"github.com/llmslo/llmslo/load"
)

// A schedule is fixed before the step starts: the dispatcher sends request
// i at offset i whether or not earlier requests have finished.
func ExampleArrival_Schedule() {
	arrival, err := load.ParseArrival("constant")
	if err != nil {
		panic(err)
	}
	offsets, err := arrival.Schedule(4, time.Second, 1, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(arrival, offsets)

	bursty, _ := load.ParseArrival("gamma:0.25")
	a, _ := bursty.Schedule(100, 10*time.Second, 42, nil)
	b, _ := bursty.Schedule(100, 10*time.Second, 42, nil)
	fmt.Println(bursty, "same seed, same schedule:", fmt.Sprint(a) == fmt.Sprint(b))
	// Output:
	// constant [0s 250ms 500ms 750ms]
	// gamma:0.25 same seed, same schedule: true
}

func ExampleRampSchedule() {
	// From 0 to 4 requests per second over 2s: request k is sent when the
	// integrated rate t² reaches k.
	fmt.Println(load.RampSchedule(0, 4, 2*time.Second))
	// Output: [0s 1s 1.414213562s 1.732050808s]
}

func ExampleParseSLO() {
	slo, err := load.ParseSLO("ttft.p95 <= 0.5s")
	if err != nil {
		panic(err)
	}
	fmt.Println(slo.Name(), slo.Limit, slo)

	_, err = load.ParseSLO("tfft.p95<=500ms")
	fmt.Println(err)
	// Output:
	// ttft.p95 500ms ttft.p95<=500ms
	// slo "tfft.p95<=500ms": unknown metric "tfft" (did you mean "ttft"?); valid metrics: ttft, ttft_send, itl, tpot, e2el, error_rate
}

func ExampleHistogram() {
	h := load.NewHistogram()
	for i := 1; i <= 1000; i++ {
		h.Record(time.Duration(i) * time.Millisecond)
	}
	// Values come back at the histogram's resolution (3 significant
	// digits), rounded up: 950ms reads as 950.271ms.
	lo, hi, _ := h.QuantileCI(95)
	fmt.Println("p95", h.Quantile(95), "95% CI", lo, "to", hi)
	fmt.Println("a conclusive p99 needs", load.MinSamplesForCI(99, 0.95), "requests")
	// Output:
	// p95 950.271ms 95% CI 936.447ms to 964.095ms
	// a conclusive p99 needs 368 requests
}
