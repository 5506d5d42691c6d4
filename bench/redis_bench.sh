# redis_bench.sh - sourced by the remote tier's benchmarks (remote_bench.sh,
# fleet_bench.sh): a scratch folder removed at exit with every process started here, and
# a redis-server in it that saves nothing.
#
#   bench_scratch PREFIX         sets $work (a new folder under /tmp) and the exit trap
#   bench_redis REDIS [ARGS...]  starts REDIS on a free 127.0.0.1 port and the unix
#                                socket $work/redis.sock, with ARGS; sets $port; returns
#                                once it answers, exits 1 with its log when it does not

bench_scratch() {
	work=$(mktemp -d "/tmp/$1-XXXXXX")
	pids=()
	trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	      wait 2>/dev/null || true; rm -rf "$work"' EXIT
}

bench_redis() {
	local redis=$1
	shift
	# A free port: the kernel's choice, released just before the server takes it.
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	"$redis" --port "$port" --bind 127.0.0.1 --unixsocket "$work/redis.sock" \
		--unixsocketperm 700 --save '' --appendonly no --dir "$work" \
		--logfile "$work/redis.log" "$@" &
	pids+=($!)
	for _ in $(seq 100); do
		[[ -S $work/redis.sock ]] && return 0
		sleep 0.05
	done
	echo "redis-server did not start: $(cat "$work/redis.log")" >&2
	exit 1
}
