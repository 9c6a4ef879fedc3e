package verdict_test

import (
	"fmt"

	"github.com/llmslo/llmslo/load/verdict"
)

func ExampleParseSLO() {
	slo, err := verdict.ParseSLO("ttft.p95 <= 0.5s")
	if err != nil {
		panic(err)
	}
	fmt.Println(slo.Name(), slo.Limit, slo)

	_, err = verdict.ParseSLO("tfft.p95<=500ms")
	fmt.Println(err)
	// Output:
	// ttft.p95 500ms ttft.p95<=500ms
	// slo "tfft.p95<=500ms": unknown metric "tfft" (did you mean "ttft"?); valid metrics: ttft, ttft_send, itl, tpot, e2el, e2el_send, error_rate
}
