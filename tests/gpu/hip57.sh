#!/bin/sh
# hip57.sh - the kernel fixtures compiled by the hipRTC that the machine has, for the
# targets only a newer HIP knows: on the GPU machine its system libamdhip64.so.5 is HIP 5.7
# (comgr 2.6), which compiles for gfx942 and gfx1100 and ships no HIP headers (rocjit
# serves them).  No GPU is used: these are compiles, checked by their kernel lists.
#
#   tests/gpu/hip57.sh [BUILD_DIR] [TARGETS]     from the repository root
#
# BUILD_DIR defaults to build, TARGETS to "gfx90a gfx942 gfx1100".  The CUB fixtures
# (tests/data/cub) need rocPRIM's headers: ROCJIT_ROCPRIM_DIR names a folder holding
# rocprim/ (a copy of Debian's /usr/include/rocprim), put on the include path.
# For each fixture and target prints the kernels found, compares them with the kernels the fixture must hold
# (the same lists test_dialect.c and test_devlib.c check on HIP 5.2), and exits 1 when a
# compile fails or a kernel is missing.  Needs python3 (to read the JSON).
set -u
build=${1:-build}
targets=${2:-gfx90a gfx942 gfx1100}
cache=$(mktemp -d "${TMPDIR:-/tmp}/rocjit-hip57-XXXXXX") || exit 2
trap 'rm -rf "$cache"' EXIT
export LD_LIBRARY_PATH="$build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

"$build/cli/rocjit" targets 2>&1 | sed -n '1,2p'
fail=0
rocprim=${ROCJIT_ROCPRIM_DIR:+-I$ROCJIT_ROCPRIM_DIR}
# fixture, then the count of kernels it must hold on an AMD target
for spec in tests/data/dialect/convert.cu:20 tests/data/dialect/reduce.cu:13 \
	tests/data/dialect/coop_tex.cu:13:gfx94 tests/data/dialect/implicit.cu:4 \
	tests/data/dialect/hip/platform.hip:5 tests/data/dialect/cuda_headers.cu:3 tests/data/dialect/host_helpers.cu:1 \
	tests/data/dialect/arch_gates.cu:1 tests/data/dialect/intrinsics.cu:4 \
	tests/data/dialect/atomics.cu:8 tests/data/dialect/std_math.cu:8 \
	tests/data/devlib/std_types.hip:2 tests/data/devlib/std_cpp.hip:2 \
	tests/data/devlib/hip_headers.hip:2 kernels-src/axpy.hip:2 \
	kernels-src/binary_strided.hip:4 kernels-src/reduce.hip:2 \
	tests/data/cub/reduce.cu:6 tests/data/cub/scan.cu:4 tests/data/cub/load_store.cu:3 \
	tests/data/cub/radix_sort.cu:3 tests/data/cub/hipcub.hip:2 \
	tests/data/dialect/types_cuda_h.cu:2 tests/data/dialect/types_fp16_bf16.cu:1 \
	tests/data/dialect/hip/implicit_types.hip:2 tests/data/dialect/hip/types_mix.hip:3 \
	tests/data/dialect/hip/types.hip:6; do
	# file:count, or file:count:PREFIX where targets named PREFIX* must refuse the file
	# with rocjit's message on sampled texture fetches (gfx940-942 have no sampling)
	refuse=
	case $spec in *:*:*) refuse=${spec##*:} spec=${spec%:*} ;; esac
	file=${spec%:*} want=${spec##*:}
	for t in $targets; do
		if [ -n "$refuse" ] && [ "${t#"$refuse"}" != "$t" ]; then
			if "$build/cli/rocjit" --cache "$cache" compile "$file" --arch "$t" \
				-- -I tests/data/dialect $rocprim 2>&1 | grep -q "sampled texture fetches"; then
				echo "ok   $file for $t: refused, naming the sampled fetches"
			else
				echo "FAIL $file for $t: not refused with rocjit's message on sampled fetches"
				fail=1
			fi
			continue
		fi
		got=$("$build/cli/rocjit" --cache "$cache" compile "$file" --arch "$t" --json \
			-- -I tests/data/dialect $rocprim 2>/dev/null |
			python3 -c 'import json,sys; r=json.load(sys.stdin)["results"][0]; print(r["num_kernels"] if r["ok"] else -1)' 2>/dev/null)
		got=${got:--1}
		if [ "$got" -ne "$want" ]; then
			echo "FAIL $file for $t: $got kernels, want $want"
			"$build/cli/rocjit" --cache "$cache" compile "$file" --arch "$t" \
				-- -I tests/data/dialect $rocprim 2>&1 | head -5
			fail=1
		else
			echo "ok   $file for $t: $got kernels"
		fi
	done
done

# Each kernel's resources read from the code object (what rocjit show/compile print) for
# the fixture written to use known ones; with $OUT set, the JSON and the code object are
# kept there, to be compared with llvm-readelf --notes on a machine that has it.
for t in $targets; do
	json=$("$build/cli/rocjit" --cache "$cache" compile tests/data/resources/resources.hip \
		--arch "$t" --json 2>/dev/null)
	if ! echo "$json" | python3 -c '
import json, sys
t = sys.argv[1]
r = {k["kernel"]: k for k in json.load(sys.stdin)["results"][0]["resources"]}
wave = 32 if t.startswith("gfx1") else 64
bad = [w for w, ok in [
    ("tile: 4096 B LDS", r["tile"]["shared_bytes"] == 4096),
    ("bounded: max 256 threads", r["bounded"]["max_threads"] == 256),
    ("spill: spills to scratch", r["spill"]["vgpr_spills"] > 0 and r["spill"]["scratch_bytes"] > 0),
    # LLVM 15 (HIP 5.2) flags recursion .uses_dynamic_stack; LLVM 17 (HIP 5.7) writes no
    # such key and reserves a fixed 16 KB stack instead (llvm-readelf --notes agrees)
    ("recur: a dynamic or 16 KB stack",
     r["recur"]["dynamic_stack"] or r["recur"]["scratch_bytes"] >= 16384),
    ("wave%d" % wave, all(k["wavefront"] == wave for k in r.values())),
] if not ok]
print(" ".join("%s %dV/%dS/%dA" % (n, k["registers"], k["sgprs"], k["agprs"]) for n, k in r.items()))
sys.exit("missing: " + ", ".join(bad) if bad else 0)
' "$t"; then
		echo "FAIL resources of tests/data/resources/resources.hip for $t"
		fail=1
	else
		echo "ok   resources of tests/data/resources/resources.hip for $t"
	fi
	if [ -n "${OUT:-}" ]; then
		echo "$json" > "$OUT/resources-$t.json"
		key=$(echo "$json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["results"][0]["key"])')
		"$build/cli/rocjit" --cache "$cache" show "$key" --extract "$OUT/resources-$t.co" \
			>/dev/null
	fi
done
exit $fail
