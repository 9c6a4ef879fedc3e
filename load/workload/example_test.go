package workload_test

import (
	"fmt"

	"github.com/llmslo/llmslo/fixtures/formats"
	"github.com/llmslo/llmslo/load/workload"
)

func ExampleNew() {
	fx, err := formats.Open("fixed:6:4")
	if err != nil {
		panic(err)
	}
	w, err := workload.New(fx, workload.Options{Seed: 1, API: workload.APICompletions})
	if err != nil {
		panic(err)
	}
	r := w.Request(0)
	fmt.Println(len(r.PromptIDs), r.InputTokens, r.OutputTokens)
	// Output: 6 6 4
}
