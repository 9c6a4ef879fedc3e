// Command ollamabuild builds the pinned Ollama binary into the cache, or
// finds it there, and prints its path: CI runs it beside its compile
// stages, so that the end-to-end tests find the binary built. Run it from
// e2e/ollama, whose go.mod pins the version.
package main

import (
	"fmt"
	"os"

	ollamae2e "github.com/llmslo/llmslo/e2e/ollama"
)

func main() {
	path, took, err := ollamae2e.Binary()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if took > 0 {
		fmt.Printf("built %s in %.0f s\n", path, took.Seconds())
		return
	}
	fmt.Printf("cached: %s\n", path)
}
