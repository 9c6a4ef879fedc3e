// Package busy keeps goroutines busy on purpose: a process whose CPU is
// taken by other work, for tests and benchmarks that must show what a
// starved load generator does. It is not for anything that measures a
// server.
package busy

import "sync"

// Loops keeps n goroutines spinning until the returned stop is called;
// stop waits for them to end.
func Loops(n int) (stop func()) {
	quit := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := 0
			for {
				select {
				case <-quit:
					return
				default:
				}
				for i := 0; i < 1_000_000; i++ {
					x += i ^ x
				}
			}
		}()
	}
	return func() { close(quit); wg.Wait() }
}
