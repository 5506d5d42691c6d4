#!/usr/bin/env bash
# bench/amd_cold.sh [BUILD_DIR] [-- COMPILER-OPTIONS...]
#
# Cold hipRTC compile time per kernel file for one AMD target (issue 32): every run is a
# fresh, empty cache and an in-process compile (ROCJIT_COMPILE_INPROCESS=1), so the figure
# is hipRTC's own time as `rocjit compile --json` reports it (compile_ms), with no worker
# process and no cache hit. Prints one line per file: kernels, median and min over N runs,
# and the code object's size. Run it before and after a change with the same arguments.
#
# The ops files get every name expression their build's manifest lists for them
# (BUILD_DIR/ops/rocjit_ops.rocjit-manifest, lines expr=FILE<TAB>EXPRESSION).
#
# Environment:
#   N=5          runs per file (median and min over them)
#   ARCH=gfx90a  the target (hipRTC needs no GPU for an explicit one)
#   FILES="..."  a subset of the files, as paths relative to the repository root
#   CO_DIR=DIR   also keep each file's last code object there (DIR/NAME.co), to compare
#                the bytes of two runs with cmp (an option must not change code silently)
#   CWD=DIR      the current directory of the compiles (default: a fresh empty folder).
#                It matters: the clang driver inside comgr takes ./hiprtc_runtime.h.pch
#                (or .gch) as a precompiled header when present (see bench/amd_pch.py),
#                so a stray file where the script is started must not decide the figure.
#
# Besides compile_ms, each run sets AMD_COMGR_TIME_STATISTICS=1 and reads comgr's own
# timers from its log, so the table splits the time by comgr action (medians over N):
#   src_bc  COMPILE_SOURCE_TO_BC: clang front end (parse, templates) + the -O3 IR
#           pipeline hipRTC runs before the device-library link (-mllvm -amdgpu-prelink)
#   link    LINK_BC_TO_BC: linking the device libraries' bitcode
#   cg      CODEGEN_BC_TO_RELOCATABLE: -O3 again on the linked module, then instruction
#           selection and the AMDGPU backend
#   lld     LINK_RELOCATABLE_TO_EXECUTABLE
# The -fsyntax-only figure (front end alone) is not in the table: hipRTC fails that compile
# (no output), so rocjit reports no compile_ms; time it as in bench/results/cpu-amd-cold-issue32.txt.
# Options after -- go to the compiler (rocjit compile ... -- OPTIONS), e.g. -O0.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build-h}
# Absolute: the compiles run in another directory.
build=$(cd "$build" 2>/dev/null && pwd) || { echo "amd_cold.sh: no folder ${1:-$here/build-h}" >&2; exit 2; }
[ $# -gt 0 ] && shift
if [ "${1:-}" = "--" ]; then shift; fi
extra=("$@")

N=${N:-5}
ARCH=${ARCH:-gfx90a}
cli=$build/cli/rocjit
manifest=$build/ops/rocjit_ops.rocjit-manifest
py=/usr/bin/python3
[ -x "$py" ] || py=python3

[ -x "$cli" ] || { echo "amd_cold.sh: no $cli (build first, or pass BUILD_DIR)" >&2; exit 2; }
[ -r "$manifest" ] || { echo "amd_cold.sh: no $manifest" >&2; exit 2; }

default_files="kernels-src/ops/unary.hip kernels-src/ops/binary.hip kernels-src/ops/cast.hip
kernels-src/ops/reductions.hip kernels-src/ops/rows.hip kernels-src/ops/sort.hip
kernels-src/ops/indexing.hip kernels-src/axpy.hip bench/kernels/templated.hip"
files=${FILES:-$default_files}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/cwd"
cwd=${CWD:-$tmp/cwd}
export ROCJIT_COMPILE_INPROCESS=1
# A stray $ROCJIT_CACHE or remote must not serve the compile: every run has its own cache.
unset ROCJIT_REMOTE ROCJIT_CACHE 2>/dev/null || true

echo "# amd_cold.sh: cold in-process hipRTC compile, target $ARCH, N=$N runs per file"
echo "# build: $build ($(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo "# compiler: $("$cli" --version 2>/dev/null | head -1 || true); host: $(nproc) cores, $(uname -m)"
echo "# options: ${extra[*]:-(none)}; compiles run in: ${CWD:-a fresh empty folder}"
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
printf '%-32s %7s %10s %8s %8s | %7s %6s %7s %5s\n' file kernels median_ms min_ms co_KB \
	src_bc link cg lld

for f in $files; do
	exprs=()
	inc=()
	base=$(basename "$f")
	if [[ $f == kernels-src/ops/* ]]; then
		inc=(-I "$here/kernels-src/ops") # rj_ops.h, as the ops library serves it
		while IFS=$'\t' read -r name expr; do
			[ "$name" = "expr=$base" ] && exprs+=(--name-expr "$expr")
		done <"$manifest"
	fi
	: >"$tmp/ms"
	for ((i = 0; i < N; i++)); do
		cache=$(mktemp -d "$tmp/cache.XXXXXX")
		: >"$tmp/comgr.log"
		if ! (cd "$cwd" && AMD_COMGR_TIME_STATISTICS=1 AMD_COMGR_REDIRECT_LOGS="$tmp/comgr.log" \
			"$cli" --cache "$cache" compile "$here/$f" --arch "$ARCH" --json \
			-o "$tmp/co" "${exprs[@]}" -- "${inc[@]}" ${extra[@]+"${extra[@]}"} \
			>"$tmp/out.json" 2>"$tmp/err"); then
			echo "amd_cold.sh: $f did not compile:" >&2
			cat "$tmp/err" >&2
			exit 1
		fi
		rm -rf "$cache"
		"$py" - "$tmp/out.json" "$tmp/comgr.log" >>"$tmp/ms" <<'EOF'
import json, re, sys
r = json.load(open(sys.argv[1]))["results"][0]
t = {}
for line in open(sys.argv[2], errors="replace"):
    m = re.match(r"Profile Point (\S+)\s+was invoked\s+\d+ times and took\s+([0-9.]+) milli", line)
    if m:
        t[m.group(1)] = float(m.group(2))
acts = ["COMPILE_SOURCE_TO_BC", "LINK_BC_TO_BC", "CODEGEN_BC_TO_RELOCATABLE",
        "LINK_RELOCATABLE_TO_EXECUTABLE"]
print(r["compile_ms"], r["num_kernels"], r["size"],
      *[t.get("AMD_COMGR_ACTION_" + a, -1) for a in acts])
EOF
	done
	if [ -n "${CO_DIR:-}" ]; then
		mkdir -p "$CO_DIR"
		cp "$tmp/co" "$CO_DIR/${base%.*}.co"
	fi
	"$py" - "$f" "$tmp/ms" <<'EOF'
import statistics, sys
rows = [line.split() for line in open(sys.argv[2])]
ms = [float(r[0]) for r in rows]
stage = [statistics.median(float(r[i]) for r in rows) for i in range(3, 7)]
print("%-32s %7s %10.0f %8.0f %8.1f | %7.0f %6.0f %7.0f %5.0f" % (sys.argv[1], rows[-1][1],
      statistics.median(ms), min(ms), int(rows[-1][2]) / 1024, *stage))
EOF
done
