package vllmsim

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestParseServeArgs(t *testing.T) {
	cases := []struct {
		args []string
		want func(c Config) bool
	}{
		{nil, func(c Config) bool { return c.Model == "" && c.Host == DefaultHost && c.Port == DefaultPort }},
		{[]string{"serve", "meta-llama/Llama-3.1-8B", "--port", "9000"}, func(c Config) bool {
			return c.Model == "meta-llama/Llama-3.1-8B" && c.Port == 9000
		}},
		{[]string{"Qwen/Qwen3-8B", "--served-model-name=x", "--max-num-seqs=8", "--max-num-batched-tokens", "2048",
			"--block-size", "32", "--num-gpu-blocks-override", "1000", "--max-model-len=4096", "--host", "0.0.0.0"},
			func(c Config) bool {
				return c.Model == "Qwen/Qwen3-8B" && c.ServedModelName == "x" && c.MaxNumSeqs == 8 && c.MaxNumBatchedTokens == 2048 &&
					c.BlockSize == 32 && c.NumGPUBlocks == 1000 && c.MaxModelLen == 4096 && c.Host == "0.0.0.0"
			}},
		{[]string{"--model", "Qwen/Qwen3-8B", "--no-enable-prefix-caching"}, func(c Config) bool { return c.DisablePrefixCaching }},
		{[]string{"--no-enable-prefix-caching", "--enable-prefix-caching"}, func(c Config) bool { return !c.DisablePrefixCaching }},
		{[]string{"--enable_prefix_caching=true"}, func(c Config) bool { return !c.DisablePrefixCaching }},
		{[]string{"m", "--profile", "instant", "--trust-remote-code", "--dtype", "auto", "--pipeline-parallel-size", "1"},
			func(c Config) bool {
				return c.Model == "m" && strings.Join(c.IgnoredFlags, " ") == "--trust-remote-code --dtype --pipeline-parallel-size"
			}},
		{[]string{"meta-llama/Llama-3.1-70B-Instruct", "--gpu", "H200", "--tensor-parallel-size=2", "--gpu-memory-utilization", "0.85",
			"--quantization", "fp8", "--kv-cache-dtype=fp8", "--performance-mode", "throughput", "--no-enable-chunked-prefill",
			"--step-time-scale", "1.5"},
			func(c Config) bool {
				return c.GPU == "H200" && c.TensorParallelSize == 2 && c.GPUMemoryUtilization == 0.85 && c.Quantization == "fp8" &&
					c.KVCacheDType == "fp8" && c.PerformanceMode == "throughput" && c.DisableChunkedPrefill && c.StepTimeScale == 1.5 &&
					len(c.IgnoredFlags) == 0
			}},
		{[]string{"--no-enable-chunked-prefill", "--enable-chunked-prefill"}, func(c Config) bool { return !c.DisableChunkedPrefill }},
		{[]string{"--gpu", "h100", "--frontend-overhead", "2ms", "--frontend-per-token=3us", "--engine-v0"}, func(c Config) bool {
			return c.FrontendOverhead == 2*time.Millisecond && c.FrontendPerToken == 3*time.Microsecond && c.EngineV0 && !c.NoFrontend
		}},
		{[]string{"--no-frontend"}, func(c Config) bool { return c.NoFrontend }},
		{[]string{"--api-key", "sk-1"}, func(c Config) bool {
			return c.APIKey == "sk-1" && !strings.Contains(fmt.Sprintf("%v %+v %#v", c, c, c), "sk-1")
		}},
		{[]string{"--profile", "instant", "--seed", "-3"}, func(c Config) bool { return c.ProfileName == "instant" && c.Seed == -3 }},
		{[]string{"--fault-error-rate", "0.1", "--fault-error-status=429", "--fault-disconnect-rate", "0.5",
			"--fault-disconnect-after", "7", "--fault-stall-rate=1", "--fault-stall-after=2", "--fault-stall-for", "1.5s",
			"--fault-startup-delay", "2s"}, func(c Config) bool {
			f := c.Faults
			return f.ErrorRate == 0.1 && f.ErrorStatus == 429 && f.DisconnectRate == 0.5 && f.DisconnectAfter == 7 &&
				f.StallRate == 1 && f.StallAfter == 2 && f.StallFor == 1500*time.Millisecond && f.StartupDelay == 2*time.Second
		}},
	}
	for _, c := range cases {
		cfg, err := ParseServeArgs(c.args)
		if err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		if !c.want(cfg) {
			t.Fatalf("%q: got %+v", c.args, cfg)
		}
	}
}

func TestParseServeArgsErrors(t *testing.T) {
	cases := []struct {
		args []string
		msg  string
	}{
		{[]string{"--bogus"}, "unknown flag --bogus"},
		{[]string{"-x"}, `unknown flag "-x"`},
		{[]string{"--dtype"}, "--dtype needs a value"},
		{[]string{"--port"}, "--port needs a value"},
		{[]string{"--port", "abc"}, `--port: "abc" is not an integer`},
		{[]string{"--max-num-seqs", "0"}, "below the minimum 1"},
		{[]string{"a", "b"}, `unexpected argument "b"`},
		{[]string{"a", "--model", "b"}, "model given twice"},
		{[]string{"--profile", "gpu9000"}, `unknown profile "gpu9000"`},
		{[]string{"--fault-error-rate", "2"}, "not a fraction"},
		{[]string{"--fault-stall-for", "soon"}, "not a duration"},
		{[]string{"--no-enable-prefix-caching=false"}, "takes no value"},
		{[]string{"--num-gpu-blocks-override", "10"}, "smaller than --max-model-len"},
		{[]string{"--port", "70000"}, "within 0..65535"},
		{[]string{"acme/model-x", "--gpu", "h100"}, `unknown model "acme/model-x"`},
		{[]string{"--gpu", "v100"}, `unknown GPU "v100"`},
		{[]string{"--gpu-memory-utilization", "1.2"}, "not a fraction within (0, 1]"},
		{[]string{"--step-time-scale", "0"}, "not a positive factor"},
		{[]string{"--step-time-scale", "NaN"}, "not a positive factor"},
		{[]string{"--tensor-parallel-size", "0"}, "below the minimum 1"},
		{[]string{"--tensor-parallel-size", "3"}, "cannot be split"},
		{[]string{"--performance-mode", "max"}, "--performance-mode"},
		{[]string{"--enable-chunked-prefill=false"}, "takes no value"},
		{[]string{"--frontend-overhead", "-1ms"}, "not a duration"},
		{[]string{"--frontend-per-token", "fast"}, "not a duration"},
	}
	for _, c := range cases {
		_, err := ParseServeArgs(c.args)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: error %v, want it to say %q", c.args, err, c.msg)
		}
	}
}

func FuzzParseServeArgs(f *testing.F) {
	f.Add("serve m --port 8000 --max-num-seqs=4")
	f.Add("--no-enable-prefix-caching --profile instant")
	f.Add("--fault-stall-for 1s --fault-error-rate=0.5")
	f.Add("--block-size 0 x y")
	f.Fuzz(func(t *testing.T, line string) {
		cfg, err := ParseServeArgs(strings.Fields(line))
		if err != nil {
			return
		}
		if _, err := cfg.withDefaults(); err != nil {
			t.Fatalf("ParseServeArgs accepted %q but the config is invalid: %v", line, err)
		}
	})
}
