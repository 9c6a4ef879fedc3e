// Command harness holds the pieces bench/compare.sh runs, each in its own
// process so that every CPU figure is one process's own:
//
//	harness serve   a bare OpenAI-compatible SSE server (the least work that
//	                gives a client a vLLM-shaped stream)
//	harness stream  N-token streams through llmslo's client and recorder,
//	                or (-bare) through a client that only drains the bytes
//	harness lag     an open-loop step through the dispatcher, the client and
//	                the recorder: send lag and CPU per request
//	harness mem     memory per in-flight stream, llmslo's or the bare one's
//	harness cpu     runs a command and reports its CPU time (vegeta, llmslo run)
//	harness table   prints the results of the above as one table
//
// Every measuring subcommand appends one JSON line to -out. CPU is the
// kernel's account of the process (getrusage, or /proc for another one),
// taken over the measured window only.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	cmds := map[string]func([]string) error{
		"serve": serveCmd, "stream": streamCmd, "lag": lagCmd,
		"mem": memCmd, "cpu": cpuCmd, "table": tableCmd,
	}
	run, ok := cmds[os.Args[1]]
	if !ok {
		usage()
	}
	// HARNESS_CPUPROFILE=FILE profiles the subcommand, to see where the
	// CPU a row reports goes.
	if path := os.Getenv("HARNESS_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err == nil && pprof.StartCPUProfile(f) == nil {
			defer func() { pprof.StopCPUProfile(); f.Close() }()
		}
	}
	if err := run(os.Args[2:]); err != nil {
		fmt.Fprintf(os.Stderr, "harness %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: harness serve|stream|lag|mem|cpu|table [flags]")
	os.Exit(3)
}

// result is one measurement, as a JSON line.
type result struct {
	Kind  string             `json:"kind"`  // stream, lag, mem, cpu
	Label string             `json:"label"` // which side: llmslo, bare, vegeta, sim, ...
	Mode  string             `json:"mode,omitempty"`
	Rate  float64            `json:"rate,omitempty"`
	Procs int                `json:"gomaxprocs"`
	Load  float64            `json:"load1"` // the machine's 1-minute load average when it ended
	Vals  map[string]float64 `json:"vals"`
}

func emit(path string, r result) error {
	r.Procs = runtime.GOMAXPROCS(0)
	r.Load = loadAvg()
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	fmt.Println(string(b))
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// selfCPU is this process's user + system CPU time.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// pidCPU is another process's user + system CPU time, from /proc (in clock
// ticks of 10 ms: measure over seconds). Zero when pid is 0 or unreadable.
func pidCPU(pid int) time.Duration {
	if pid <= 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name may hold spaces: fields count from after its ')'.
	i := len(b) - 1
	for i > 0 && b[i] != ')' {
		i--
	}
	var state string
	var f [12]int64
	_, err = fmt.Sscan(string(b[i+1:]), &state, &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &f[8], &f[9], &f[10], &f[11])
	if err != nil {
		return 0
	}
	const tick = 10 * time.Millisecond // USER_HZ is 100 on Linux
	return time.Duration(f[10]+f[11]) * tick
}

func loadAvg() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	var l float64
	_, _ = fmt.Sscan(string(b), &l)
	return l
}
