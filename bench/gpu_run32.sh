C=$PWD/.carry; export LD_LIBRARY_PATH=$C/after:$C/lib
echo "== before (c859623): rocjit_first"
OUT=$OUT/before LIBS=$C/lib PROCS=2 BUDGET_S=170 CASES=rocjit_first bench/run_cold_bench.sh .carry/before32 > $OUT/before.log 2>&1; echo "rc $?"; tail -16 $OUT/before.log
echo "== after, ROCJIT_PCH_MAX_MB=0: rocjit_first"
ROCJIT_PCH_MAX_MB=0 OUT=$OUT/nopch LIBS=$C/lib PROCS=2 BUDGET_S=90 CASES=rocjit_first bench/run_cold_bench.sh .carry/after > $OUT/nopch.log 2>&1; echo "rc $?"; tail -16 $OUT/nopch.log
echo "== after, ROCJIT_COMPILE_THREADS=1, small files"
ROCJIT_COMPILE_THREADS=1 OUT=$OUT/t1 LIBS=$C/lib PROCS=3 BUDGET_S=60 FILES=half_math,axpy,templated,cg_reduce,sort CASES=rocjit_first,rocjit_warm_prefix bench/run_cold_bench.sh .carry/after > $OUT/t1.log 2>&1; echo "rc $?"; tail -9 $OUT/t1.log
