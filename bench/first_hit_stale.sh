#!/usr/bin/env bash
# first_hit_stale.sh - the first disk hit of a new process (H100, axpy) with the read
# index's usage board fresh (the entry used within the last minute: the hit is held in
# memory) and stale (used an hour ago: the hit writes the board at once), alternating
# process by process (bench/RESULTS.md, issue 14).
#
#   bench/first_hit_stale.sh [-n N] LIBDIR [BENCH_BUILD]
#
# LIBDIR holds the librocjit.so.0.<minor> to run; BENCH_BUILD (default build) bench/bench_nvidia.
# Prints one line per process and the medians of open + first, in ms.
set -euo pipefail
n=40
[[ ${1:-} == -n ]] && { n=$2; shift 2; }
[[ $# -ge 1 ]] || { echo "usage: $0 [-n N] LIBDIR [BENCH_BUILD]" >&2; exit 2; }
lib=$(cd "$1" && pwd) build=$(cd "${2:-build}" && pwd)
cd "$(dirname "$0")/.."
work=$(mktemp -d /tmp/rocjit-stale-XXXXXX)
trap 'rm -rf "$work"' EXIT
export ROCJIT_LOG=off LD_LIBRARY_PATH=$lib
d=$work/cache
run() { "$build/bench/bench_nvidia" --child "$@"; }
run cold kernels-src/axpy.hip axpy_f32 "$d" "$d.cubin" > /dev/null
for i in 1 2 3; do run hit kernels-src/axpy.hip axpy_f32 "$d" "$d.cubin" 0 > /dev/null; done
for ((i = 0; i < n; i++)); do
	for mode in fresh stale; do
		[[ $mode == stale ]] && python3 bench/stale_board.py "$d/rocjit-cache.index"
		echo "$mode $(run hit kernels-src/axpy.hip axpy_f32 "$d" "$d.cubin" $((i % 2)))"
	done
done | tee "$work/lines"
python3 - "$work/lines" <<'PY'
import re, statistics, sys
d = {}
for line in open(sys.argv[1]):
    m = re.match(r'(\w+) .*first=([0-9.]+) open=([0-9.]+)', line)
    if m:
        d.setdefault(m.group(1), []).append(float(m.group(2)))
for k, v in d.items():
    print(k, len(v), 'open+first median %.4f ms' % statistics.median(v))
PY
