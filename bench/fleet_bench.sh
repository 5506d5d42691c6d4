#!/usr/bin/env bash
# fleet_bench.sh - a simulated fleet cold on the op set (bench/RESULTS.md, issue 15): NODES
# processes start at once, each a "node" with its own empty cache folder and K compile
# workers, each asking for the same N instantiations of the op set (rocjit_prefetch, as
# bench_workers --child prefetch does).  Three runs:
#   one    a single node alone: what each node takes on a machine of its own;
#   alone  the NODES nodes without a remote tier: each compiles everything (NODES x N);
#   fleet  the NODES nodes sharing a redis-server started here: one compile per key.
# Prints each node's wall time, compiles and remote hits, then per run the compiles
# fleet-wide, the compile time summed over the fleet (CPU spent compiling), and the wall
# time (the last node done).  On one machine the nodes share its cores, so "alone" also
# pays for the others' compiles; the compiles and the CPU time are the fleet's figures.
#
#   bench/fleet_bench.sh [--nodes 8] [--kernels N|all] [--workers K] [--target T]
#                        [--redis PATH] [BUILD]
set -euo pipefail

nodes=8 kernels=40 workers=2 target=gfx90a redis=redis-server
while [[ $# -gt 0 && $1 == -* ]]; do
	case $1 in
	--nodes) nodes=$2; shift ;;
	--kernels) kernels=$2; shift ;;
	--workers) workers=$2; shift ;;
	--target) target=$2; shift ;;
	--redis) redis=$2; shift ;;
	*) echo "usage: $0 [--nodes N] [--kernels N|all] [--workers K] [--target T] [--redis PATH] [BUILD]" >&2
	   exit 2 ;;
	esac
	shift
done
build=$(cd "${1:-build}" && pwd)
[[ $kernels == all ]] && kernels=0
. "$(cd "$(dirname "$0")" && pwd)/redis_bench.sh"
bench_scratch rocjit-fleet-bench
export CUDA_CACHE_DISABLE=1 ROCJIT_LOG=off ROCJIT_WORKERS=$workers
bench_redis "$redis" --maxmemory 2gb --maxmemory-policy allkeys-lru
echo "# $(uname -n), $(nproc) CPUs, $nodes nodes x $workers workers, target $target, kernels ${kernels/#0/all}"

# run LABEL COUNT REMOTE: COUNT nodes at once; prints per node and the run's totals.
run() {
	local label=$1 count=$2 remote=$3 t0 t1 node=()
	t0=$(date +%s.%N)
	for ((i = 0; i < count; i++)); do
		ROCJIT_REMOTE=$remote "$build/bench/bench_workers" --child prefetch "$target" \
			"$kernels" "$workers" "$work/$label-node$i" > "$work/$label-$i.out" &
		node+=($!)
	done
	for p in "${node[@]}"; do wait "$p" || echo "$label: a node failed" >&2; done
	t1=$(date +%s.%N)
	for ((i = 0; i < count; i++)); do echo "$label node$i $(cat "$work/$label-$i.out")"; done
	awk -v label="$label" -v wall="$(python3 -c "print($t1 - $t0)")" '
		{ for (f = 1; f <= NF; f++) { split($f, kv, "="); v[kv[1]] += kv[2] } }
		END { printf "%s: compiles %d, remote hits %d, waits %d, failed %d; compile time summed %.1f s; wall %.1f s\n",
		      label, v["compiles"], v["remote_hits"], v["remote_waits"], v["failed"],
		      v["compile_ms"] / 1000, wall }' "$work"/"$label"-*.out
}

run one 1 ""
run alone "$nodes" ""
run fleet "$nodes" "redis://127.0.0.1:$port"
echo "keys on the server: $(python3 - "$port" <<'EOF'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"DBSIZE\r\n")
print(s.recv(64).decode().strip().lstrip(":"))
EOF
)"
