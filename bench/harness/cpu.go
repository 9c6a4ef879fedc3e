package main

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// cpuCmd runs a command (after "--") and reports its CPU time, whole
// process from start to exit, as the kernel accounts it; -requests turns
// it into CPU per request. Used for the load generators that are not
// llmslo's own code (vegeta) and for llmslo run as a user runs it.
func cpuCmd(args []string) error {
	fs := flag.NewFlagSet("cpu", flag.ExitOnError)
	label := fs.String("label", "", "the result's label")
	rate := fs.Float64("rate", 0, "the rate the command was given, for the table")
	requests := fs.Int("requests", 0, "requests the command sends")
	tokens := fs.Int("tokens", 0, "tokens each request streams (for CPU per token)")
	mode := fs.String("mode", "", "the result's mode, for the table (spaced, burst)")
	stdout := fs.String("stdout", "", "write the command's standard output here (default: discard)")
	report := fs.String("report", "", "an llmslo report the command writes: its completed requests are recorded")
	out := fs.String("out", "", "append the result to this file")
	_ = fs.Parse(args)
	argv := fs.Args()
	if len(argv) == 0 {
		return errors.New("no command: harness cpu [flags] -- cmd args...")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	if *stdout != "" {
		f, err := os.Create(*stdout)
		if err != nil {
			return err
		}
		defer f.Close()
		cmd.Stdout = f
	}
	t0 := time.Now()
	err := cmd.Run()
	wall := time.Since(t0)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return err
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if ru == nil {
		return errors.New("no resource usage for the command")
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	vals := map[string]float64{
		"cpu_s": cpu.Seconds(), "wall_s": wall.Seconds(),
		"user_s": time.Duration(ru.Utime.Nano()).Seconds(), "sys_s": time.Duration(ru.Stime.Nano()).Seconds(),
		"nvcsw": float64(ru.Nvcsw), "nivcsw": float64(ru.Nivcsw),
		"maxrss_mib": float64(ru.Maxrss) / 1024,
		"exit":       float64(cmd.ProcessState.ExitCode()),
	}
	if *requests > 0 {
		vals["requests"] = float64(*requests)
		vals["cpu_us_per_req"] = float64(cpu.Microseconds()) / float64(*requests)
		if *tokens > 0 {
			n := float64(*requests * *tokens)
			vals["tokens"] = n
			vals["cpu_ns_per_token"] = float64(cpu.Nanoseconds()) / n
			vals["user_ns_per_token"] = float64(ru.Utime.Nano()) / n
			vals["sys_ns_per_token"] = float64(ru.Stime.Nano()) / n
		}
	}
	if *report != "" {
		// An llmslo run that judged its step invalid (on this machine,
		// client_saturation beside the server) still streamed every
		// request: what counts for its CPU is that all completed.
		var rep struct {
			Steps []struct {
				Requests struct {
					Completed int `json:"completed"`
				} `json:"requests"`
			} `json:"steps"`
		}
		if b, err := os.ReadFile(*report); err == nil && json.Unmarshal(b, &rep) == nil && len(rep.Steps) == 1 {
			vals["completed"] = float64(rep.Steps[0].Requests.Completed)
		}
	}
	return emit(*out, result{Kind: "cpu", Label: *label, Mode: *mode, Rate: *rate, Vals: vals})
}
