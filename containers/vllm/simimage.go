package vllm

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
)

// SimImage is the tag BuildSimImage gives the simulator's image by default.
const SimImage = "llmslo/vllm-sim:dev"

// TagLabel is the label BuildSimImage puts on the simulator's image: the
// tag it was built under.
const TagLabel = "io.llmslo.image"

// simDockerfile is the simulator's Dockerfile, relative to the repository root.
const simDockerfile = "Dockerfile.sim"

// BuildSimImage compiles the llmslo command of the checkout at repoRoot as a
// static Linux binary and builds Dockerfile.sim around it, tagged tag
// (SimImage when empty). The image is FROM scratch, so no registry is needed:
// only the Go toolchain and a Docker engine. The build's output goes to
// buildLog when it is not nil. A previous image with the same tag, left
// untagged by the new one, is removed when no container uses it.
//
// The image's entrypoint is "llmslo sim", which takes vLLM's serve flags, so
// Run starts it like a vLLM image.
func BuildSimImage(ctx context.Context, repoRoot, tag string, buildLog io.Writer) (string, error) {
	if tag == "" {
		tag = SimImage
	}
	dockerfile, err := os.ReadFile(filepath.Join(repoRoot, simDockerfile))
	if err != nil {
		return "", fmt.Errorf("vllm: simulator image: %w", err)
	}
	dir, err := os.MkdirTemp("", "llmslo-sim-build-")
	if err != nil {
		return "", fmt.Errorf("vllm: simulator image: %w", err)
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "llmslo")
	if err := goBuildStatic(ctx, repoRoot, "./cmd/llmslo", bin); err != nil {
		return "", fmt.Errorf("vllm: simulator image: %w", err)
	}
	binary, err := os.ReadFile(bin)
	if err != nil {
		return "", fmt.Errorf("vllm: simulator image: %w", err)
	}
	// A label naming the tag makes each tag its own image: two tags built
	// from one checkout would otherwise share an ID, and asking the engine
	// for the containers of one (docker ps --filter ancestor=TAG) would
	// list the other's too.
	dockerfile = fmt.Appendf(bytes.TrimRight(dockerfile, "\n"), "\nLABEL %s=%q\n", TagLabel, tag)
	files := []imageFile{
		{Name: simDockerfile, Data: dockerfile, Mode: 0o644},
		{Name: "llmslo", Data: binary, Mode: 0o755},
	}
	if err := buildImage(ctx, tag, simDockerfile, files, buildLog); err != nil {
		return "", fmt.Errorf("vllm: simulator image: %w", err)
	}
	return tag, nil
}

// goBuildStatic compiles the Go package pkg (a path relative to dir) into
// out as a static binary (CGO_ENABLED=0) for Linux on the host's
// architecture, small enough (stripped) for a FROM scratch image. Without
// -trimpath, unlike the release build in Dockerfile.sim: -trimpath compiles
// every package again, where a test run under CGO_ENABLED=0 (as CI's is)
// has them all compiled already, and the image is a test's.
func goBuildStatic(ctx context.Context, dir, pkg, out string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-ldflags=-s -w", "-o", out, pkg)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s: %w\n%s", pkg, err, stderr.Bytes())
	}
	return nil
}

// imageFile is one file of a build context.
type imageFile struct {
	Name string // path inside the build context
	Data []byte
	Mode int64
}

// buildImage builds an image tagged tag from an in-memory build context made
// of files, one of which is the Dockerfile named dockerfile.
func buildImage(ctx context.Context, tag, dockerfile string, files []imageFile, buildLog io.Writer) error {
	if buildLog == nil {
		buildLog = io.Discard
	}
	var archive bytes.Buffer
	tw := tar.NewWriter(&archive)
	for _, f := range files {
		hdr := &tar.Header{Name: f.Name, Mode: f.Mode, Size: int64(len(f.Data)), Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("build context: %w", err)
		}
		if _, err := tw.Write(f.Data); err != nil {
			return fmt.Errorf("build context: %w", err)
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("build context: %w", err)
	}

	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return fmt.Errorf("docker: %w", err)
	}
	defer cli.Close()

	previous := ""
	if img, err := cli.ImageInspect(ctx, tag); err == nil {
		previous = img.ID
	}
	res, err := cli.ImageBuild(ctx, &archive, client.ImageBuildOptions{
		Tags:        []string{tag},
		Dockerfile:  dockerfile,
		Remove:      true,
		ForceRemove: true,
	})
	if err != nil {
		return fmt.Errorf("build %s: %w", tag, err)
	}
	defer res.Body.Close()
	if err := readBuildStream(res.Body, buildLog); err != nil {
		return fmt.Errorf("build %s: %w", tag, err)
	}
	if previous != "" {
		if img, err := cli.ImageInspect(ctx, tag); err == nil && img.ID != previous {
			// The old image is now untagged; it is kept only while a
			// container still uses it, so the error is of no interest.
			_, _ = cli.ImageRemove(ctx, previous, client.ImageRemoveOptions{PruneChildren: true})
		}
	}
	return nil
}

// buildMessage is one line of the engine's build output stream.
type buildMessage struct {
	Stream      string `json:"stream"`
	Error       string `json:"error"`
	ErrorDetail struct {
		Message string `json:"message"`
	} `json:"errorDetail"`
}

// readBuildStream copies the build output to w and returns the build's error.
func readBuildStream(r io.Reader, w io.Writer) error {
	dec := json.NewDecoder(r)
	for {
		var m buildMessage
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading build output: %w", err)
		}
		if m.Stream != "" {
			_, _ = io.WriteString(w, m.Stream)
		}
		if m.ErrorDetail.Message != "" {
			return errors.New(m.ErrorDetail.Message)
		}
		if m.Error != "" {
			return errors.New(m.Error)
		}
	}
}
