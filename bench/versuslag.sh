#!/usr/bin/env bash
# bench/versuslag.sh measures what a second target costs the client: the PR
# gate's step (azure-conv-2023 at 6 req/s, Poisson) against one simulator
# and side by side against two (--versus URL), alternated, each simulator
# a process of its own (llmslo sim, h200-llama3-8b) as a server is, and
# prints each run's send-lag p99 (both sides' for a side-by-side run) and
# the medians, as a markdown table (docs/versus.md, "The client").
#
# Usage: bench/versuslag.sh [-n REPEATS] [-d DURATION] [-o DIR] [-p PORT]
#   -n  runs of each, alternated (default 5); -d  each step's window (default 20s)
#   -p  the first of two local ports for the simulators (default 18200)
set -euo pipefail
cd "$(dirname "$0")/.."
n=5 d=20s out="" port=18200
while getopts "n:d:o:p:" opt; do
	case $opt in
	n) n=$OPTARG ;;
	d) d=$OPTARG ;;
	o) out=$OPTARG ;;
	p) port=$OPTARG ;;
	*) exit 2 ;;
	esac
done
out=${out:-$(mktemp -d)}
mkdir -p "$out"
go build -o "$out/llmslo" ./cmd/llmslo
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
for p in "$port" "$((port + 1))"; do
	"$out/llmslo" sim --profile h200-llama3-8b --port "$p" 2>>"$out/sim-$p.log" &
	pids+=($!)
done
for p in "$port" "$((port + 1))"; do
	for _ in $(seq 1 50); do
		curl -sf "http://127.0.0.1:$p/health" >/dev/null && break
		sleep 0.1
	done
done
a="http://127.0.0.1:$port" b="http://127.0.0.1:$((port + 1))"
gate=(run --target "$a" --fixture azure-conv-2023 --rates 6 --duration "$d" --warmup 5s
	--slo 'ttft.p90<=5s' --slo 'itl.p99<=2s' --quiet)
p99() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(" ".join("%.3f" % s["send_lag_ms"]["p99"] for s in r["steps"] + (r.get("versus") or {}).get("steps", [])))' "$1"; }
alone=() both=()
echo "| run | alone: send lag p99 (ms) | side by side: target, base (ms) |"
echo "|---|---:|---:|"
for i in $(seq 1 "$n"); do
	"$out/llmslo" "${gate[@]}" --report "$out/alone-$i.json" >/dev/null 2>>"$out/log" || true
	"$out/llmslo" "${gate[@]}" --versus "$b" --report "$out/both-$i.json" >/dev/null 2>>"$out/log" || true
	x=$(p99 "$out/alone-$i.json") y=$(p99 "$out/both-$i.json")
	alone+=("$x") both+=($y)
	echo "| $i | $x | ${y// /, } |"
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
echo "| median | $(median "${alone[@]}") | $(median "${both[@]}") |"
echo
echo "uptime: $(uptime)"
