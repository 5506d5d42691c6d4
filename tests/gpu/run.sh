#!/usr/bin/env bash
# run.sh - runs the GPU tests (ctest label "gpu") of a build folder made on another
# machine.  Builds nothing: the GPU machine has no SQLite or xxHash headers.
#
#   tests/gpu/run.sh [BUILD_DIR [CTEST_ARGS...]]     from the repository root
#
# BUILD_DIR defaults to build.  Prints the GPUs (nvidia-smi -L), runs
# `ctest -L gpu --output-on-failure` with a fresh ROCJIT_CACHE_DIR, writes the whole log to
# ${OUT:-/tmp}/gpu-tests.log and exits with ctest's status.  When nvidia-smi lists a GPU,
# ROCJIT_TEST_REQUIRE_GPU=1 turns a test's "no GPU" skip into a failure.
#
# ctest files name the test programs by absolute path; a build folder configured at another
# path (the repository copied to the GPU machine) is run through a copy of its ctest files
# with the configure-time paths replaced by the present ones.
set -u

build=${1:-build}
[ $# -gt 0 ] && shift
out=${OUT:-/tmp}
log=$out/gpu-tests.log

if [ ! -f "$build/CTestTestfile.cmake" ] || [ ! -f "$build/CMakeCache.txt" ]; then
	echo "run.sh: $build is not a configured build folder (no CTestTestfile.cmake or" \
		"CMakeCache.txt); build it elsewhere and bring it along" >&2
	exit 2
fi
mkdir -p "$out" || exit 2
build=$(cd "$build" && pwd -P)
src=$(pwd -P)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rocjit-gpu-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
export ROCJIT_CACHE_DIR=$tmp/cache
# Test programs that read fixtures of the repository find them here, not at the build
# machine's path compiled into them.
export ROCJIT_TEST_DIALECT_DIR=$src/tests/data/dialect

cached() {
	sed -n "s|^$1:[A-Z]*=||p" "$build/CMakeCache.txt" | head -n 1
}

# Rewrites the configure-time build and source paths, the longer match first, in one pass
# (a plain sed pair would rewrite the new path again when one contains the other).
relocate() {
	awk -v ob="$1" -v nb="$2" -v os="$3" -v ns="$4" '
	function swap(s,    r, i, j) {
		r = ""
		for (;;) {
			i = index(s, ob)
			j = os == "" ? 0 : index(s, os)
			if (!i && !j)
				return r s
			if (i && (!j || i <= j)) {
				r = r substr(s, 1, i - 1) nb
				s = substr(s, i + length(ob))
			} else {
				r = r substr(s, 1, j - 1) ns
				s = substr(s, j + length(os))
			}
		}
	}
	{ print swap($0) }'
}

testdir=$build
old_build=$(cached CMAKE_CACHEFILE_DIR)
old_src=$(cached CMAKE_HOME_DIRECTORY)
if [ -n "$old_build" ] && [ "$old_build" != "$build" ]; then
	testdir=$tmp/ctest
	(cd "$build" && find . -name CTestTestfile.cmake) | while IFS= read -r f; do
		mkdir -p "$testdir/$(dirname "$f")"
		relocate "$old_build" "$build" "$old_src" "$src" <"$build/$f" >"$testdir/$f"
	done
fi

gpus=0
run_all() {
	echo "== rocjit GPU tests, $(date -u '+%Y-%m-%d %H:%M:%S') UTC, $(uname -n)"
	echo "build: $build${old_build:+ (configured as $old_build)}"
	if command -v nvidia-smi >/dev/null 2>&1; then
		nvidia-smi -L
	else
		echo "nvidia-smi: not found"
	fi
	echo "ROCJIT_CACHE_DIR=$ROCJIT_CACHE_DIR${ROCJIT_TEST_REQUIRE_GPU:+ ROCJIT_TEST_REQUIRE_GPU=1}"
	ctest --test-dir "$testdir" -L gpu --no-tests=error --output-on-failure "$@"
}
if command -v nvidia-smi >/dev/null 2>&1; then
	gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
fi
[ "$gpus" -gt 0 ] && export ROCJIT_TEST_REQUIRE_GPU=1

run_all "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
echo "log: $log (ctest exit status $status)"
exit "$status"
