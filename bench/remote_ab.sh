#!/usr/bin/env bash
# remote_ab.sh - bench/remote_bench.sh for two builds taking turns (bench/RESULTS.md, issue
# 27): before/after figures of the disk and remote hits, signed and not, from one run.
#
#   bench/remote_ab.sh [-n N] [--rounds R] [--target T] [--redis PATH] [--lib DIR] A B
#
# A and B are build folders (each with librocjit.so, rocjit-worker and bench/bench_remote,
# bench/bench_sign); --lib DIR holds the libraries a machine lacks (libsodium,
# libhiredis). Each round runs remote_bench.sh -n N on A, then on B, each against its own
# library (LD_LIBRARY_PATH) and worker; then the medians of every series, per build and
# round, side by side.
set -euo pipefail

n=20 rounds=2 target=sm_90 redis=redis-server lib=""
while [[ $# -gt 0 && $1 == -* ]]; do
	case $1 in
	-n) n=$2; shift ;;
	--rounds) rounds=$2; shift ;;
	--target) target=$2; shift ;;
	--redis) redis=$2; shift ;;
	--lib) lib=$(cd "$2" && pwd); shift ;;
	*) echo "usage: $0 [-n N] [--rounds R] [--target T] [--redis PATH] [--lib DIR] A B" >&2
	   exit 2 ;;
	esac
	shift
done
[[ $# -eq 2 ]] || { echo "usage: $0 [-n N] [--rounds R] [--target T] A B" >&2; exit 2; }
a=$(cd "$1" && pwd) b=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d /tmp/rocjit-remote-ab-XXXXXX)
trap 'rm -rf "$out"' EXIT

run() { # label build round
	LD_LIBRARY_PATH=$2${lib:+:$lib} ROCJIT_WORKER=$2/rocjit-worker \
		"$here/remote_bench.sh" -n "$n" --target "$target" --redis "$redis" "$2" \
		> "$out/$1-$3.txt" 2>&1 ||
		echo "== $1 round $3: remote_bench.sh failed after the series above (see the run)"
	echo "== $1 round $3: $(grep -c ' own=' "$out/$1-$3.txt") processes"
}
for r in $(seq "$rounds"); do
	run A "$a" "$r"
	run B "$b" "$r"
done
echo "== medians of rocjit's own time per process (ms): series, then A and B by round"
for s in disk disk-signed remote remote-signed bare; do
	line="$s"
	for r in $(seq "$rounds"); do
		for l in A B; do
			m=$(awk -v s="$s" '$1 == s && $2 ~ /^n=/ { print $9 }' "$out/$l-$r.txt")
			line+=" $l$r=${m:-?}"
		done
	done
	echo "$line"
done
echo "== the runs whole"
for f in "$out"/*.txt; do echo "--- $(basename "$f")"; cat "$f"; done
