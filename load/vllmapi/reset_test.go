package vllmapi

import (
	"bytes"
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/llmslo/llmslo/internal/simtest"
	"github.com/llmslo/llmslo/vllmsim"
	"github.com/llmslo/llmslo/vllmsim/engine"
)

// A reset is trusted only when it can have worked. Against the simulator,
// which refuses as vLLM does (200 all the same) while requests run: a reset
// asked while a request runs and the wait for idle runs out is reported
// busy, not done, and the server did not reset; once the server is idle
// the reset is done; allowed to preempt the running requests it is done
// at once; a server without dev mode does not serve it.
func TestResetTrustedOnlyWhenItCanHaveWorked(t *testing.T) {
	ctx := context.Background()
	hc := &http.Client{Timeout: 5 * time.Second}
	srv := simtest.Start(t, vllmsim.Config{Model: "m", DevMode: true,
		Profile: engine.StepProfile{Name: "slow", Fixed: 100 * time.Millisecond}})
	running := func() chan struct{} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			resp, err := hc.Post(srv.URL+"/v1/completions", "application/json",
				bytes.NewReader([]byte(`{"model":"m","prompt":"a b c","max_tokens":8,"ignore_eos":true}`)))
			if err == nil {
				resp.Body.Close()
			}
		}()
		for srv.Stats().Running == 0 {
			time.Sleep(time.Millisecond)
		}
		return done
	}

	done := running()
	st, err := ResetPrefixCache(ctx, hc, srv.URL, ResetOptions{WaitIdle: 150 * time.Millisecond})
	if err != nil || st != ResetBusy {
		t.Fatalf("reset while a request runs: %q, %v; want %q", st, err, ResetBusy)
	}
	if s := srv.Stats(); s.PrefixCacheResets != 0 || s.PrefixCacheResetsRefused != 1 {
		t.Fatalf("the server reset %d times and refused %d; want 0 and 1", s.PrefixCacheResets, s.PrefixCacheResetsRefused)
	}
	// The default wait outlasts the request (0.8 s): the reset waits for
	// the idle server and is done.
	if st, err = ResetPrefixCache(ctx, hc, srv.URL, ResetOptions{}); err != nil || st != ResetDone {
		t.Fatalf("reset after waiting for idle: %q, %v; want %q", st, err, ResetDone)
	}
	<-done
	if s := srv.Stats(); s.PrefixCacheResets != 1 {
		t.Fatalf("the server reset %d times, want 1", s.PrefixCacheResets)
	}

	done = running()
	st, err = ResetPrefixCache(ctx, hc, srv.URL, ResetOptions{WaitIdle: -1, ResetRunning: true})
	<-done
	if err != nil || st != ResetDone || srv.Stats().PrefixCacheResets != 2 || srv.Stats().Preemptions != 1 {
		t.Fatalf("reset preempting: %q, %v, stats %+v; want done after one preemption", st, err, srv.Stats())
	}

	plain := simtest.Start(t, vllmsim.Config{Model: "m", ProfileName: "instant"})
	if st, err = ResetPrefixCache(ctx, hc, plain.URL, ResetOptions{}); err != nil || st != ResetNotServed {
		t.Fatalf("reset outside dev mode: %q, %v; want %q", st, err, ResetNotServed)
	}
}
