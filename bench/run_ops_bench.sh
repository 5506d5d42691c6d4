#!/usr/bin/env bash
# run_ops_bench.sh - the rocjit_ops benchmark on the GPU box: bench_ops_gpu (bandwidth of
# the add and the sums against the D2D copy, first use of the whole kernel set, cold and
# cached).  Builds nothing: the build folder (bench/bench_ops_gpu, librocjit.so) comes from
# the build machine.
#
#   bench/run_ops_bench.sh [BUILD_DIR]        (BUILD_DIR defaults to build)
#
# Environment: OUT (default /tmp) receives ops-gpu.txt (the report), ops-gpu.json (its
# JSON lines) and ops-gpu.err (progress, the first-run times, errors).  MIB (256), REPS
# (30), COLD (3) and HITS (10) are passed on as --mib, --reps, --cold and --hits.
# COMPILE=1 also runs bench_ops_compile for NVRTC alone on this machine's CPU
# (ops-compile.txt, ops-compile.json; about 2 minutes more per repetition, COMPILE_REPS=1).
# About 2 minutes on an H100 with the defaults, most of it the cold NVRTC compiles.
# Exit status: bench_ops_gpu's (0; 1 a failure or a wrong result; 3 a target not met).
set -uo pipefail

build=${1:-build}
[[ -d $build ]] || { echo "run_ops_bench: no build folder $build" >&2; exit 2; }
build=$(cd "$build" && pwd)
cd "$(dirname "$0")/.." || exit 2
out=${OUT:-/tmp}
bin=$build/bench/bench_ops_gpu
mkdir -p "$out" || exit 2
[[ -x $bin ]] || { echo "run_ops_bench: no $bin: build the bench_ops_gpu target first" >&2; exit 2; }
# The build folder's RUNPATH names the build machine's path: find librocjit.so here.
export LD_LIBRARY_PATH=$build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

echo "== $(date -u +%FT%TZ) $(uname -n); $(nvidia-smi --query-gpu=name,driver_version,clocks.max.memory --format=csv,noheader 2>/dev/null || echo 'nvidia-smi unavailable')"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	echo "== git $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- 2>/dev/null || echo ' (with local changes)')"
fi

args=(--mib "${MIB:-256}" --reps "${REPS:-30}" --cold "${COLD:-3}" --hits "${HITS:-10}"
      --json "$out/ops-gpu.json")
echo "== $bin ${args[*]}"
"$bin" "${args[@]}" > "$out/ops-gpu.txt" 2> >(tee "$out/ops-gpu.err" >&2)
status=$?
cat "$out/ops-gpu.txt"
echo "== bench_ops_gpu exit status $status (0 ok; 1 failure or wrong result; 3 target not met)"

if [[ ${COMPILE:-0} == 1 ]]; then
	cbin=$build/bench/bench_ops_compile
	cargs=(--amd none --reps "${COMPILE_REPS:-1}" --json "$out/ops-compile.json")
	echo "== $cbin ${cargs[*]}"
	if "$cbin" "${cargs[@]}" > "$out/ops-compile.txt" 2>> "$out/ops-gpu.err"; then
		cat "$out/ops-compile.txt"
	else
		echo "run_ops_bench: bench_ops_compile failed (see $out/ops-gpu.err)" >&2
	fi
fi
files="$out/ops-gpu.txt $out/ops-gpu.json $out/ops-gpu.err"
[[ ${COMPILE:-0} == 1 ]] && files+=" $out/ops-compile.txt $out/ops-compile.json"
echo "== files: $files"
exit "$status"
