package stats_test

import (
	"fmt"
	"time"

	"github.com/llmslo/llmslo/load/stats"
)

func ExampleHistogram() {
	h := stats.NewHistogram()
	for i := 1; i <= 1000; i++ {
		h.Record(time.Duration(i) * time.Millisecond)
	}
	// Values come back at the histogram's resolution (3 significant
	// digits), rounded up: 950ms reads as 950.271ms.
	lo, hi, _ := h.QuantileCI(95)
	fmt.Println("p95", h.Quantile(95), "95% CI", lo, "to", hi)
	fmt.Println("a conclusive p99 needs", stats.MinSamplesForCI(99, 0.95), "requests")
	// Output:
	// p95 950.271ms 95% CI 936.447ms to 964.095ms
	// a conclusive p99 needs 368 requests
}
