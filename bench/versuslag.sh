#!/usr/bin/env bash
# bench/versuslag.sh measures what a second target costs the client: the PR
# gate's step (azure-conv-2023 at 6 req/s, Poisson, the h200-llama3-8b
# simulator) run alone and side by side (--versus sim), alternated, and
# prints each run's send-lag p99 (both sides' for a side-by-side run) and
# the medians, as a markdown table (docs/versus.md, "The client").
#
# Usage: bench/versuslag.sh [-n REPEATS] [-d DURATION] [-o DIR]
#   -n  runs of each, alternated (default 5); -d  each step's window (default 20s)
set -euo pipefail
cd "$(dirname "$0")/.."
n=5 d=20s out=""
while getopts "n:d:o:" opt; do
	case $opt in
	n) n=$OPTARG ;;
	d) d=$OPTARG ;;
	o) out=$OPTARG ;;
	*) exit 2 ;;
	esac
done
out=${out:-$(mktemp -d)}
mkdir -p "$out"
go build -o "$out/llmslo" ./cmd/llmslo
gate=(run --fixture azure-conv-2023 --rates 6 --duration "$d" --warmup 5s --sim-args '--profile h200-llama3-8b'
	--slo 'ttft.p90<=5s' --slo 'itl.p99<=2s' --quiet)
p99() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(" ".join("%.3f" % s["send_lag_ms"]["p99"] for s in r["steps"] + (r.get("versus") or {}).get("steps", [])))' "$1"; }
alone=() both=()
echo "| run | alone: send lag p99 (ms) | side by side: target, base (ms) |"
echo "|---|---:|---:|"
for i in $(seq 1 "$n"); do
	"$out/llmslo" "${gate[@]}" --report "$out/alone-$i.json" >/dev/null || true
	"$out/llmslo" "${gate[@]}" --versus sim --versus-sim-args '--profile h200-llama3-8b' --report "$out/both-$i.json" >/dev/null || true
	a=$(p99 "$out/alone-$i.json") b=$(p99 "$out/both-$i.json")
	alone+=("$a") both+=($b)
	echo "| $i | $a | ${b// /, } |"
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
echo "| median | $(median "${alone[@]}") | $(median "${both[@]}") |"
echo
echo "uptime: $(uptime)"
