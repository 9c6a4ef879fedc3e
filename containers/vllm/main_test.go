package vllm

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/moby/moby/client"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	code := m.Run()
	removeFakeImage()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			os.Stderr.WriteString("goleak: " + err.Error() + "\n")
			code = 1
		}
	}
	os.Exit(code)
}

// removeFakeImage deletes the fixture image; the simulator's image is kept,
// tagged, for the next run and for anything else that starts it.
func removeFakeImage() {
	if !fakeImageBuilt {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cli, err := client.New(client.FromEnv)
	if err != nil {
		return
	}
	defer cli.Close()
	_, _ = cli.ImageRemove(ctx, fakeImageTag, client.ImageRemoveOptions{PruneChildren: true})
}
