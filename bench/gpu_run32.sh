#!/usr/bin/env bash
# gpu_run32.sh - issue 32's figures on the GPU box in one command: rocjit's cold compile
# against CuPy's (bench/run_cold_bench.sh), then the compile that makes a precompiled
# header.  The build folder and the libraries the box lacks are carried in .carry/
# (bench/RESULTS.md, "Issue 32"):
#
#   bash bench/gpu_run32.sh          (results under $OUT/cold and $OUT/create)
set -u
C=$PWD/.carry
export LD_LIBRARY_PATH=$C/after:$C/lib
OUT=$OUT/cold LIBS=$C/lib PROCS=3 BUDGET_S=300 \
	CASES=cupy_cold,rocjit_first,rocjit_warm_prefix bench/run_cold_bench.sh .carry/after \
	> "$OUT/cold-run.log" 2>&1
echo "cold: rc $?"; tail -16 "$OUT/cold-run.log"
OUT=$OUT/create LIBS=$C/lib PROCS=3 BUDGET_S=60 FILES=heavy,pair CASES=rocjit_pch_create \
	bench/run_cold_bench.sh .carry/after > "$OUT/create-run.log" 2>&1
echo "create: rc $?"; tail -8 "$OUT/create-run.log"
