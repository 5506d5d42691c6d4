#!/usr/bin/env bash
# run_gpu_bench.sh - the NVIDIA benchmark on the GPU box: CuPy's baseline, then rocjit,
# then one summary with the rocjit/CuPy ratios.  Builds nothing: the build folder (with
# bench/bench_nvidia and librocjit.so) comes from the build machine.
#
#   bench/run_gpu_bench.sh [BUILD_DIR]        (BUILD_DIR defaults to build)
#
# Environment: OUT (default /tmp) receives bench-cupy.json, bench-cupy.txt,
# bench-rocjit.json and bench-rocjit.txt; PROCS (default 20) fresh processes per case.
# About 3 minutes on an H100.
set -euo pipefail

build=${1:-build}
[[ -d $build ]] || { echo "run_gpu_bench: no build folder $build" >&2; exit 1; }
build=$(cd "$build" && pwd)
cd "$(dirname "$0")/.."            # the repository root: the kernel paths are relative to it
out=${OUT:-/tmp}
procs=${PROCS:-20}
bin=$build/bench/bench_nvidia
mkdir -p "$out"
[[ -x $bin ]] || { echo "run_gpu_bench: no $bin: build the bench_nvidia target first" >&2; exit 1; }
# The build folder's RUNPATH names the build machine's path: find librocjit.so here.
export LD_LIBRARY_PATH=$build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PYTHONUNBUFFERED=1
# The CUDA driver's compute cache (~/.nv/ComputeCache) serves NVRTC's CUBIN compiles on a
# machine with a driver: a "cold" compile would partly be a hit in it, for CuPy and rocjit
# alike.  Every figure here is taken with it off (bench/RESULTS.md, the correction).
export CUDA_CACHE_DISABLE=1

echo "== CUDA_CACHE_DISABLE=$CUDA_CACHE_DISABLE (the driver's compute cache is off)"
echo "== $(date -u +%FT%TZ) $(uname -n); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo 'nvidia-smi unavailable')"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	echo "== git $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- 2>/dev/null || echo ' (with local changes)')"
fi

echo "== CuPy RawModule baseline: python3 bench/cupy_baseline.py --procs $procs"
cupy_args=()
# stdout (JSON lines) to the .json file; progress and errors to the screen and the .txt file.
if python3 bench/cupy_baseline.py --procs "$procs" 2> >(tee "$out/bench-cupy.txt" >&2) \
	> "$out/bench-cupy.json"; then
	cupy_args=(--cupy "$out/bench-cupy.json")
	cat "$out/bench-cupy.json"
else
	echo "run_gpu_bench: the CuPy baseline failed (see above); rocjit runs without it" >&2
fi

echo "== rocjit: $bin --procs $procs ${cupy_args[*]} --json $out/bench-rocjit.json"
"$bin" --procs "$procs" ${cupy_args[@]+"${cupy_args[@]}"} --json "$out/bench-rocjit.json" \
	> "$out/bench-rocjit.txt"
cat "$out/bench-rocjit.txt"
echo "== files: $out/bench-cupy.json $out/bench-cupy.txt $out/bench-rocjit.json $out/bench-rocjit.txt"
