#!/usr/bin/env bash
# run_cold_bench.sh - issue 32's benchmark on the GPU box: a cold compile through rocjit
# (first, and with another program of the same include prefix compiled before) against
# CuPy RawModule's, per file, in one run (bench/cold_bench.py says what and how).  Builds
# nothing: the build folder (librocjit.so, rocjit-worker, ops/rocjit_ops.rocjit-manifest)
# comes from the build machine.
#
#   bench/run_cold_bench.sh [BUILD_DIR] [cold_bench.py options...]   (BUILD_DIR: build)
#
# Environment: OUT (default /tmp) receives cold-bench.json (the JSON lines), cold-bench.txt
# (the JSON lines and the table) and cold-bench.err (progress, errors).  PROCS (5: at most
# that many rounds, each a fresh process per file and case), BUDGET_S (400: no round
# starts that would end past it), JOBS (1: files run at once; more gives the op set more
# rounds in the budget, with compiles sharing the machine), FILES, CASES are passed on as
# --procs, --budget-s, --jobs, --files, --cases; NO_GPU=1 adds --no-gpu (rocjit only, for sm_90: the dry run of a
# machine without a GPU).  LIBS: a folder of libraries the machine lacks (libsodium,
# libhiredis: NOTES.md), put on LD_LIBRARY_PATH after the build folder; BUILD_DIR/libs is
# used when it exists.  Under 8 minutes with the defaults (the budget plus the last round).
set -uo pipefail

build=${1:-build}
[[ $# -gt 0 ]] && shift
[[ -d $build ]] || { echo "run_cold_bench: no build folder $build" >&2; exit 2; }
build=$(cd "$build" && pwd)
cd "$(dirname "$0")/.." || exit 2
out=${OUT:-/tmp}
mkdir -p "$out" || exit 2

lib=$build/librocjit.so.0.1
[[ -f $lib ]] || lib=$build/librocjit.so
[[ -f $lib ]] || { echo "run_cold_bench: no librocjit.so in $build: build the rocjit target" >&2; exit 2; }
[[ -x $build/rocjit-worker ]] || { echo "run_cold_bench: no $build/rocjit-worker: build it" >&2; exit 2; }
libs=${LIBS:-}
[[ -z $libs && -d $build/libs ]] && libs=$build/libs
# The build folder's RUNPATH names the build machine's path: find the library here.
export LD_LIBRARY_PATH=$build${libs:+:$libs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ROCJIT_LIBRARY=$lib ROCJIT_WORKER=$build/rocjit-worker
export PYTHONUNBUFFERED=1
# The driver's compute cache serves NVRTC's CUBIN compiles; cold_bench.py sets this in
# every child too.
export CUDA_CACHE_DISABLE=1
missing=$(ldd "$lib" "$build/rocjit-worker" 2>/dev/null | grep "not found" | sort -u)
if [[ -n $missing ]]; then
	echo "run_cold_bench: libraries not found (carry them in a folder named by LIBS):" >&2
	echo "$missing" >&2
	exit 2
fi

echo "== $(date -u +%FT%TZ) $(uname -n); $(nproc) cores; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo 'nvidia-smi unavailable')"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	echo "== git $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- 2>/dev/null || echo ' (with local changes)')"
fi
echo "== CUDA_CACHE_DISABLE=$CUDA_CACHE_DISABLE; ROCJIT_LIBRARY=$ROCJIT_LIBRARY"

args=(--build "$build" --procs "${PROCS:-5}" --budget-s "${BUDGET_S:-400}" --jobs "${JOBS:-1}"
      --json "$out/cold-bench.json")
[[ -n ${FILES:-} ]] && args+=(--files "$FILES")
[[ -n ${CASES:-} ]] && args+=(--cases "$CASES")
[[ ${NO_GPU:-0} == 1 ]] && args+=(--no-gpu)
echo "== python3 bench/cold_bench.py ${args[*]} $*"
python3 bench/cold_bench.py "${args[@]}" "$@" > "$out/cold-bench.txt" \
	2> >(tee "$out/cold-bench.err" >&2)
status=$?
cat "$out/cold-bench.txt"
echo "== cold_bench.py exit status $status; files: $out/cold-bench.json $out/cold-bench.txt $out/cold-bench.err"
exit $status
