package arrival_test

import (
	"fmt"
	"time"

	"github.com/llmslo/llmslo/load/arrival"
)

// A schedule is fixed before the step starts: the dispatcher sends request
// i at offset i whether or not earlier requests have finished.
func ExampleSpec_Schedule() {
	constant, err := arrival.Parse("constant")
	if err != nil {
		panic(err)
	}
	offsets, err := constant.Schedule(4, time.Second, 1, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(constant, offsets)

	bursty, _ := arrival.Parse("gamma:0.25")
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
	fmt.Println(arrival.RampSchedule(0, 4, 2*time.Second))
	// Output: [0s 1s 1.414213562s 1.732050808s]
}
