#!/usr/bin/env bash
# bench/compare.sh measures llmslo's client against references, every
# server in a process of its own, and prints one markdown table (see
# docs/benchmarks.md for what each row means):
#
#   CPU per streamed token     llmslo run vs bench/drain (sends the same requests, reads
#                              the bytes, parses nothing), whole processes, with events
#                              spaced 1 ms apart and in bursts (16 events a write); and
#                              llmslo's client + recorder vs a bare draining client, in-process
#   CPU per request            llmslo run vs vegeta attack, 2,000 req/s of one-token streams
#   send lag                   at 1k, 5k and 10k req/s, for each dispatcher wait mode
#   memory per stream          2,000 streams held open, llmslo vs bare
#   simulator CPU per token    llmslo sim (instant) vs a bare SSE writer
#   ceiling                    llmslo sweep: the highest rate with client_saturation quiet,
#                              on two cores beside the simulator or the bare server, and
#                              pinned to one core
#
# Usage: bench/compare.sh [-n REPEATS] [-o DIR] [-s] [-S] [-t] [-p PORT] [-u URL]
#   -n  repeats of each measure, interleaved (default 3); the table shows medians
#   -t  only the CPU per streamed token rows (about 1 minute a repeat)
#   -o  where results, reports and logs go (default: a new temporary directory)
#   -s  skip the sweeps;  -S  run only the sweeps
#   -p  first of the local ports used (default 18100; six in all)
#   -u  send the send-lag rows to a bare server at URL (`harness serve -addr
#       0.0.0.0:8100` on another machine), so that the client has this
#       machine's cores to itself, as a load generator in use does
# Run it on a quiet machine: `uptime` is printed with the results, and a
# figure measured under load is noise.
set -euo pipefail

repeats=3 out="" sweep=1 only_sweep=0 only_tokens=0 port=18100 lag_url=""
while getopts "n:o:sStp:u:" opt; do
	case $opt in
	n) repeats=$OPTARG ;;
	o) out=$OPTARG ;;
	s) sweep=0 ;;
	S) only_sweep=1 ;;
	t) only_tokens=1 sweep=0 ;;
	p) port=$OPTARG ;;
	u) lag_url=$OPTARG ;;
	*) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2; exit 3 ;;
	esac
done
cd "$(dirname "$0")/.."
out=${out:-$(mktemp -d -t llmslo-bench.XXXXXX)}
mkdir -p "$out/bin"
res=$out/results.jsonl
: >"$res"
bin=$out/bin

echo "building into $bin" >&2
go build -o "$bin/llmslo" ./cmd/llmslo
go build -o "$bin/harness" ./bench/harness
go build -o "$bin/drain" ./bench/drain
vegeta=$(command -v vegeta || true)
if [[ -z $vegeta && $only_tokens == 0 ]]; then
	if GOBIN=$bin go install github.com/tsenart/vegeta/v12@v12.13.0 >&2; then
		vegeta=$bin/vegeta
	else
		echo "vegeta could not be installed: its row is skipped" >&2
	fi
fi

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

# start NAME PORT CMD...: runs CMD in the background, logging to NAME.log,
# and waits until PORT answers.
start() {
	local name=$1 p=$2
	shift 2
	"$@" >"$out/$name.log" 2>&1 &
	pids+=($!)
	for _ in $(seq 100); do
		curl -sf "http://127.0.0.1:$p/v1/models" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "$name did not come up on port $p; see $out/$name.log" >&2
	exit 1
}

# h SUBCOMMAND FLAGS...: one measure, its result appended to results.jsonl;
# one that fails is reported and left out of the table.
h() { "$bin/harness" "$1" -out "$res" "${@:2}" >/dev/null || echo "harness $* failed" >&2; }

paced=$((port)) plain=$((port + 1)) held=$((port + 2)) simp=$((port + 3)) sweepp=$((port + 4)) burst=$((port + 5))
lag_url=${lag_url:-http://127.0.0.1:$plain}

{
	echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -sr), $(go version | cut -d' ' -f3)"
	echo "load before: $(uptime | sed 's/.*load average: //')"
	echo "send-lag rows against: $lag_url"
} | tee "$out/machine.txt" >&2

if [[ $only_sweep == 0 ]]; then
	start paced "$paced" "$bin/harness" serve -addr "127.0.0.1:$paced" -itl 1ms
	paced_pid=${pids[-1]}
	start plain "$plain" "$bin/harness" serve -addr "127.0.0.1:$plain"
	start burst "$burst" "$bin/harness" serve -addr "127.0.0.1:$burst" -burst 16
	burst_pid=${pids[-1]}
	start held "$held" "$bin/harness" serve -addr "127.0.0.1:$held" -hold 10m
	start sim "$simp" "$bin/llmslo" sim --profile instant --port "$simp" --served-model-name bench --fault-paced-itl 1ms
	sim_pid=${pids[-1]}

	# The vegeta targets: the body llmslo's client sends for the same request.
	printf 'POST http://127.0.0.1:%s/v1/completions\nContent-Type: application/json\n@%s\n' "$plain" "$out/body.json" >"$out/targets.txt"
	printf '{"model":"bench","prompt":[1000,1001,1002,1003,1004,1005,1006,1007,1008,1009,1010,1011,1012,1013,1014,1015],"max_tokens":1,"min_tokens":1,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":false},"temperature":0}' >"$out/body.json"

	for i in $(seq "$repeats"); do
		echo "repeat $i of $repeats ($(uptime | sed 's/.*load average: //'))" >&2
		# Alternate which side goes first, so a drift in load hits both.
		if ((i % 2)); then sides="bare llmslo"; else sides="llmslo bare"; fi
		# CPU per streamed token, whole processes: llmslo run and the
		# draining client send the same 100 req/s of 256-token streams for
		# 5 s, from a server that spaces events 1 ms apart (one event a
		# read) and from one that writes them 16 at a time (many a read).
		for pattern in spaced burst; do
			url=http://127.0.0.1:$paced
			[[ $pattern == burst ]] && url=http://127.0.0.1:$burst
			# And each for 1 s: the difference is the CPU per token
			# without what a process pays once (start, report).
			for side in $sides; do
				for secs in 5 1; do
					short=""
					[[ $secs == 1 ]] && short=" 1s"
					if [[ $side == bare ]]; then
						h cpu -label "drain$short" -mode "$pattern" -rate 100 -requests $((100 * secs)) -tokens 256 -- \
							"$bin/drain" -url "$url" -rate 100 -duration "${secs}s" -tokens 256
					else
						h cpu -label "llmslo run$short" -mode "$pattern" -rate 100 -requests $((100 * secs)) -tokens 256 \
							-report "$out/run-100-$pattern-$i-${secs}s.json" -- \
							"$bin/llmslo" run --target "$url" --fixture fixed:16:256 --rates 100 --arrival constant \
							--duration "${secs}s" --warmup 0s --quiet --reset-prefix-cache=false --slo 'ttft.p95<=1s' \
							--report "$out/run-100-$pattern-$i-${secs}s.json"
					fi
				done
			done
		done
		for side in $sides; do
			flag=""
			[[ $side == bare ]] && flag=-bare
			h stream $flag -url "http://127.0.0.1:$paced" -server-pid "$paced_pid"
			h stream $flag -label "$side-burst" -url "http://127.0.0.1:$burst" -server-pid "$burst_pid"
		done
		[[ $only_tokens == 1 ]] && continue
		h stream -bare -label bare-vs-sim -url "http://127.0.0.1:$simp" -server-pid "$sim_pid"

		# Each tool for 10 s and for 2 s: the difference is the CPU per
		# request without what a process pays once (start, set-up, report).
		for side in $sides; do
			for secs in 10 2; do
				if [[ $side == llmslo ]]; then
					h cpu -label "llmslo run ${secs}s" -rate 2000 -requests $((2000 * secs)) -stdout "$out/run-2000-$i-${secs}s.txt" -- \
						"$bin/llmslo" run --target "http://127.0.0.1:$plain" --fixture fixed:16:1 --rates 2000 \
						--arrival constant --duration "${secs}s" --warmup 0s --quiet --reset-prefix-cache=false \
						--slo 'ttft.p95<=1s' --report "$out/run-2000-$i-${secs}s.json"
				elif [[ -n $vegeta ]]; then
					h cpu -label "vegeta ${secs}s" -rate 2000 -requests $((2000 * secs)) -- \
						"$vegeta" attack -rate 2000 -duration "${secs}s" -targets "$out/targets.txt" -output /dev/null
				fi
			done
		done
		h lag -url "$lag_url" -rate 2000 -arrival constant -wait fine -duration 5s

		for rate in 1000 5000 10000; do
			for mode in fine timer spin; do
				h lag -url "$lag_url" -rate "$rate" -wait "$mode" -duration 5s
			done
		done
		for side in $sides; do
			flag=""
			[[ $side == bare ]] && flag=-bare
			h mem $flag -url "http://127.0.0.1:$held" -streams 2000
		done
	done
	cleanup
	pids=()
fi

sweeps=""
if [[ $sweep == 1 ]]; then
	# SLOs no step can break, so that only a hazard stops the sweep:
	# client_saturation, or the server's not_steady if it gives out first.
	# The client on both cores beside the instant simulator, then beside
	# the bare server (whose cost per request is smaller), then pinned to
	# one core (GOMAXPROCS=1) with the bare server on the other: the ceiling
	# per core.
	for cfg in "2 sim" "2 bare" "1 bare"; do
		read -r cores server <<<"$cfg"
		pin=() srvpin=()
		if [[ $cores == 1 ]]; then
			pin=(env GOMAXPROCS=1 taskset -c 1) srvpin=(env GOMAXPROCS=1 taskset -c 0)
		fi
		if [[ $server == sim ]]; then
			start sweep-sim "$sweepp" "${srvpin[@]}" "$bin/llmslo" sim --profile instant --port "$sweepp" --served-model-name bench
		else
			start sweep-bare "$sweepp" "${srvpin[@]}" "$bin/harness" serve -addr "127.0.0.1:$sweepp"
		fi
		name="client on $cores core(s), $server server"
		echo "sweep, $name ($(uptime | sed 's/.*load average: //'))" >&2
		"${pin[@]}" "$bin/llmslo" sweep --target "http://127.0.0.1:$sweepp" --fixture fixed:16:1 \
			--rates 1000,2000,3000,5000,7500,10000,15000,20000 --refine 0 --duration 10s --warmup 2s \
			--reset-prefix-cache=false --slo 'ttft.p95<=30s' --slo 'error_rate<=5%' --quiet \
			--report "$out/sweep-$cores-$server.json" >"$out/sweep-$cores-$server.txt" 2>&1 || true
		sweeps+="${sweeps:+;}$name=$out/sweep-$cores-$server.json"
		cleanup
		pids=()
	done
fi

echo "load after: $(uptime | sed 's/.*load average: //')" | tee -a "$out/machine.txt" >&2
echo
cat "$out/machine.txt"
echo
"$bin/harness" table -in "$res" -sweeps "$sweeps"
echo
echo "results, reports and logs: $out"
