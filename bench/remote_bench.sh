#!/usr/bin/env bash
# remote_bench.sh - the remote tier's figures (bench/RESULTS.md, issues 15 and 16): a new
# process's first request served by the remote tier, beside the disk cache and the
# compiler, for a 16 KB and a 1.8 MB code object, over TCP on loopback and over a unix
# socket, each unsigned and signed (the consumer verifying the signature); what verifying
# costs by itself (bench_sign, on the sizes served); and what a server that never answers
# costs the processes of a node.
#
#   bench/remote_bench.sh [-n N] [--target T] [--big] [--nbig N] [--redis PATH] [BUILD]
#
# BUILD (default: build) holds bench/bench_remote and bench/bench_sign.  A redis-server (PATH, default the one
# on PATH; the GPU box gets one carried in) is started here, on a free port and a unix
# socket, saving nothing, and stopped at the end.  --big adds the 1.8 MB object, --nbig
# rounds of it (default 5; each round's value is compiled first: about a minute at -O0 on
# the 2-core box for gfx90a, 20 s for sm_90).  For sm_* targets on a machine
# with a driver, CUDA_CACHE_DISABLE=1 is set: the driver's cache would serve the compiles.
set -euo pipefail

n=30 target=gfx90a big=0 redis=redis-server nbig=5
while [[ $# -gt 0 && $1 == -* ]]; do
	case $1 in
	-n) n=$2; shift ;;
	--target) target=$2; shift ;;
	--big) big=1 ;;
	--nbig) nbig=$2; shift ;;
	--redis) redis=$2; shift ;;
	*) echo "usage: $0 [-n N] [--target T] [--big] [--redis PATH] [BUILD]" >&2; exit 2 ;;
	esac
	shift
done
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/redis_bench.sh"
bench_scratch rocjit-remote-bench
export CUDA_CACHE_DISABLE=1
bench_redis "$redis"
echo "# $("$redis" --version | head -1)"
echo "# $(uname -n), $(nproc) CPUs, target $target, $n rounds"

# Kernels of about 16 KB and 1.8 MB of code for the target (sizes differ by compiler).
case $target in
sm_*) small="1 280" large="4 2500" ;;
*) small="1 500" large="5 3000" ;;
esac
# The code object's size a run served (its children's size=), for bench_sign.
served_size() { grep -m1 -o ' size=[0-9]*' "$1" | cut -d= -f2; }
python3 "$here/gen_kernel.py" $small > "$work/k16.hip"
echo "== 16 KB object, TCP on loopback"
"$build/bench/bench_remote" --url "redis://127.0.0.1:$port" -n "$n" --target "$target" \
	--cold 3 "$work/k16.hip" | tee "$work/k16.out"
sizes=$(served_size "$work/k16.out")
echo "== 16 KB object, unix socket"
"$build/bench/bench_remote" --url "unix://$work/redis.sock" -n "$n" --target "$target" \
	--cold 0 "$work/k16.hip"
if ((big)); then
	python3 "$here/gen_kernel.py" $large > "$work/k1800.hip"
	echo "== 1.8 MB object (-O0), TCP on loopback"
	"$build/bench/bench_remote" --url "redis://127.0.0.1:$port" -n "${nbig:-5}" \
		--target "$target" --cold 1 "$work/k1800.hip" -- -O0 | tee "$work/k1800.out"
	sizes+=" $(served_size "$work/k1800.out")"
else
	sizes+=" 1887437" # 1.8 MB: what the signature check of the big object would cost
fi
echo "== verifying a signature by itself (rj_sig_verify; sizes served above)"
"$build/bench/bench_sign" $sizes

# A server that never answers: a listening socket whose accept queue is full.
python3 - "$work/hole.port" <<'EOF' &
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(0)
c = socket.create_connection(s.getsockname())  # fills the queue: later SYNs are dropped
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
time.sleep(3600)
EOF
pids+=($!)
for _ in $(seq 100); do [[ -s $work/hole.port ]] && break; sleep 0.05; done
echo "== a server that never answers (connect_timeout=100, retry=30000), one node"
"$build/bench/bench_remote" --dead "redis://127.0.0.1:$(cat "$work/hole.port")?connect_timeout=100&retry=30000" \
	-n 6 --target "$target" "$work/k16.hip"
