package vllmsim

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseServeArgs parses `vllm serve` command-line arguments into a Config,
// so that one command line (or one container's arguments) drives vLLM or
// the simulator. It accepts an optional leading "serve" and a positional
// model, `--flag value` and `--flag=value`, and these flags:
//
//	--model M, --served-model-name N, --max-model-len N, --max-num-seqs N,
//	--max-num-batched-tokens N, --block-size N, --num-gpu-blocks-override N,
//	--enable-prefix-caching, --no-enable-prefix-caching, --host H, --port P,
//	--tensor-parallel-size N, --quantization fp8, --kv-cache-dtype fp8,
//	--gpu-memory-utilization F, --performance-mode MODE,
//	--enable-chunked-prefill, --no-enable-chunked-prefill,
//	--seed N, --profile NAME, --gpu NAME, --step-time-scale F,
//	--frontend-overhead DURATION, --frontend-per-token DURATION,
//	--no-frontend, --engine-v0, --async-scheduling, --no-async-scheduling,
//	--output-overhead DURATION, --output-per-seq DURATION,
//	--error-format openai|legacy, --startup-behavior refuse|503, --dev-mode,
//	--max-num-queued-reqs N, --max-num-queued-tokens N,
//	--fault-error-rate F, --fault-error-status CODE,
//	--fault-disconnect-rate F, --fault-disconnect-after TOKENS,
//	--fault-stall-rate F, --fault-stall-after TOKENS, --fault-stall-for DURATION,
//	--fault-startup-delay DURATION
//
//	--api-key KEY
//
// vLLM flags that mean nothing to a simulator (see ignoredFlags) are
// accepted and listed in Config.IgnoredFlags. Any other flag is an error
// that names it. Host and port default to 127.0.0.1 and 8000.
func ParseServeArgs(args []string) (Config, error) {
	cfg := Config{Host: DefaultHost, Port: DefaultPort}
	if len(args) > 0 && args[0] == "serve" {
		args = args[1:]
	}
	positional := ""
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if !strings.HasPrefix(arg, "--") || arg == "--" {
			if arg == "--" || strings.HasPrefix(arg, "-") {
				return cfg, fmt.Errorf("unknown flag %q (flags are spelled --name)", arg)
			}
			if positional != "" {
				return cfg, fmt.Errorf("unexpected argument %q: the model is already %q", arg, positional)
			}
			positional = arg
			continue
		}
		name, value, hasValue := strings.Cut(arg[2:], "=")
		name = strings.ReplaceAll(name, "_", "-")
		f, ok := serveFlags[name]
		if !ok {
			ig, known := ignoredFlags[name]
			if !known {
				return cfg, fmt.Errorf("unknown flag --%s", name)
			}
			if ig == takesValue && !hasValue {
				if i+1 >= len(args) {
					return cfg, fmt.Errorf("flag --%s needs a value", name)
				}
				i++
			}
			cfg.IgnoredFlags = append(cfg.IgnoredFlags, "--"+name)
			continue
		}
		if f.boolean {
			if hasValue {
				b, err := strconv.ParseBool(value)
				if err != nil {
					return cfg, fmt.Errorf("flag --%s: %q is not a boolean", name, value)
				}
				if !b {
					return cfg, fmt.Errorf("flag --%s takes no value", name)
				}
			}
			if err := f.set(&cfg, ""); err != nil {
				return cfg, fmt.Errorf("flag --%s: %w", name, err)
			}
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				return cfg, fmt.Errorf("flag --%s needs a value", name)
			}
			i++
			value = args[i]
		}
		if err := f.set(&cfg, value); err != nil {
			return cfg, fmt.Errorf("flag --%s: %w", name, err)
		}
	}
	if positional != "" {
		if cfg.Model != "" && cfg.Model != positional {
			return cfg, fmt.Errorf("model given twice: %q and --model %q", positional, cfg.Model)
		}
		cfg.Model = positional
	}
	if _, err := cfg.withDefaults(); err != nil {
		return cfg, err
	}
	return cfg, nil
}

type serveFlag struct {
	boolean bool
	set     func(c *Config, v string) error
}

func intFlag(dst func(*Config) *int, min int) serveFlag {
	return serveFlag{set: func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%q is not an integer", v)
		}
		if n < min {
			return fmt.Errorf("%d is below the minimum %d", n, min)
		}
		*dst(c) = n
		return nil
	}}
}

func rateFlag(dst func(*Config) *float64) serveFlag {
	return serveFlag{set: func(c *Config, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 || f > 1 {
			return fmt.Errorf("%q is not a fraction within [0, 1]", v)
		}
		*dst(c) = f
		return nil
	}}
}

func durationFlag(dst func(*Config) *time.Duration) serveFlag {
	return serveFlag{set: func(c *Config, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return fmt.Errorf("%q is not a duration such as 500ms", v)
		}
		*dst(c) = d
		return nil
	}}
}

func stringFlag(dst func(*Config) *string) serveFlag {
	return serveFlag{set: func(c *Config, v string) error {
		if v == "" {
			return fmt.Errorf("empty value")
		}
		*dst(c) = v
		return nil
	}}
}

const (
	takesValue = iota
	boolean
)

// ignoredFlags are vLLM serve flags accepted without effect: they place the
// real model (pipeline and data parallelism, dtype), load it, or tune
// logging.
var ignoredFlags = map[string]int{
	"pipeline-parallel-size": takesValue, "data-parallel-size": takesValue, "dtype": takesValue, "swap-space": takesValue,
	"download-dir": takesValue, "tokenizer": takesValue, "revision": takesValue, "max-log-len": takesValue,
	"uvicorn-log-level": takesValue, "load-format": takesValue,
	"trust-remote-code": boolean, "enforce-eager": boolean, "disable-log-requests": boolean,
	"disable-log-stats": boolean, "disable-frontend-multiprocessing": boolean,
}

func fractionFlag(dst func(*Config) *float64, what string, max float64) serveFlag {
	return serveFlag{set: func(c *Config, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f > 0 && f <= max) {
			return fmt.Errorf("%q is not %s", v, what)
		}
		*dst(c) = f
		return nil
	}}
}

var serveFlags = map[string]serveFlag{
	"api-key": {set: func(c *Config, v string) error {
		if v == "" {
			return fmt.Errorf("empty value")
		}
		c.APIKey = Secret(v)
		return nil
	}},
	"model":                   stringFlag(func(c *Config) *string { return &c.Model }),
	"served-model-name":       stringFlag(func(c *Config) *string { return &c.ServedModelName }),
	"host":                    stringFlag(func(c *Config) *string { return &c.Host }),
	"profile":                 stringFlag(func(c *Config) *string { return &c.ProfileName }),
	"gpu":                     stringFlag(func(c *Config) *string { return &c.GPU }),
	"quantization":            stringFlag(func(c *Config) *string { return &c.Quantization }),
	"kv-cache-dtype":          stringFlag(func(c *Config) *string { return &c.KVCacheDType }),
	"performance-mode":        stringFlag(func(c *Config) *string { return &c.PerformanceMode }),
	"tensor-parallel-size":    intFlag(func(c *Config) *int { return &c.TensorParallelSize }, 1),
	"gpu-memory-utilization":  fractionFlag(func(c *Config) *float64 { return &c.GPUMemoryUtilization }, "a fraction within (0, 1]", 1),
	"step-time-scale":         fractionFlag(func(c *Config) *float64 { return &c.StepTimeScale }, "a positive factor", math.MaxFloat64),
	"max-model-len":           intFlag(func(c *Config) *int { return &c.MaxModelLen }, 1),
	"max-num-seqs":            intFlag(func(c *Config) *int { return &c.MaxNumSeqs }, 1),
	"max-num-batched-tokens":  intFlag(func(c *Config) *int { return &c.MaxNumBatchedTokens }, 1),
	"block-size":              intFlag(func(c *Config) *int { return &c.BlockSize }, 1),
	"num-gpu-blocks-override": intFlag(func(c *Config) *int { return &c.NumGPUBlocks }, 1),
	"port":                    intFlag(func(c *Config) *int { return &c.Port }, 0),
	"seed": {set: func(c *Config, v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("%q is not an integer", v)
		}
		c.Seed = n
		return nil
	}},
	"enable-prefix-caching":     {boolean: true, set: func(c *Config, _ string) error { c.DisablePrefixCaching = false; return nil }},
	"no-enable-prefix-caching":  {boolean: true, set: func(c *Config, _ string) error { c.DisablePrefixCaching = true; return nil }},
	"enable-chunked-prefill":    {boolean: true, set: func(c *Config, _ string) error { c.DisableChunkedPrefill = false; return nil }},
	"no-enable-chunked-prefill": {boolean: true, set: func(c *Config, _ string) error { c.DisableChunkedPrefill = true; return nil }},
	"frontend-overhead":         durationFlag(func(c *Config) *time.Duration { return &c.FrontendOverhead }),
	"frontend-per-token":        durationFlag(func(c *Config) *time.Duration { return &c.FrontendPerToken }),
	"no-frontend":               {boolean: true, set: func(c *Config, _ string) error { c.NoFrontend = true; return nil }},
	"engine-v0":                 {boolean: true, set: func(c *Config, _ string) error { c.EngineV0 = true; return nil }},
	"fault-error-rate":          rateFlag(func(c *Config) *float64 { return &c.Faults.ErrorRate }),
	"fault-error-status":        intFlag(func(c *Config) *int { return &c.Faults.ErrorStatus }, 400),
	"fault-disconnect-rate":     rateFlag(func(c *Config) *float64 { return &c.Faults.DisconnectRate }),
	"fault-disconnect-after":    intFlag(func(c *Config) *int { return &c.Faults.DisconnectAfter }, 1),
	"fault-stall-rate":          rateFlag(func(c *Config) *float64 { return &c.Faults.StallRate }),
	"fault-stall-after":         intFlag(func(c *Config) *int { return &c.Faults.StallAfter }, 1),
	"fault-stall-for":           durationFlag(func(c *Config) *time.Duration { return &c.Faults.StallFor }),
	"fault-startup-delay":       durationFlag(func(c *Config) *time.Duration { return &c.Faults.StartupDelay }),
	"step-jitter": {set: func(c *Config, v string) error {
		f, err := parseShare(v)
		if err != nil || !(f >= 0 && f <= 1) {
			return fmt.Errorf("%q is not a share within [0, 100%%]", v)
		}
		c.StepJitter = f
		return nil
	}},
	"drift": {set: func(c *Config, v string) error {
		d, err := ParseDrift(v)
		c.Drift = d
		return err
	}},
}
