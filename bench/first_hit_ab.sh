#!/usr/bin/env bash
# first_hit_ab.sh - the first request of a new process served from disk, two builds of
# librocjit alternating process by process (bench/RESULTS.md, issue 14).
#
#   bench/first_hit_ab.sh [--nvidia] [--signed] [-n N] [--target T] LIBDIR_A LIBDIR_B [BENCH_BUILD]
#
# LIBDIR_A and LIBDIR_B each hold a librocjit.so.0.<minor> (a build folder, or a copy of one);
# BENCH_BUILD (default: build) holds the bench programs, which use the public API only and
# run against either library through LD_LIBRARY_PATH.  Each library gets its own cache
# folder (the compiler memo's fingerprint includes LD_LIBRARY_PATH), filled and settled by
# untimed runs first.  Then N rounds (default 30), A then B, each a fresh process:
#   default   build/bench/bench_cache --child axpy.hip T DIR (T default sm_90; no GPU)
#   --nvidia  build/bench/bench_nvidia --child hit axpy.hip axpy_f32 DIR CUBIN (a GPU)
# --signed: every entry signed (a key made with BENCH_BUILD's rocjit keygen, the caches
# filled with ROCJIT_SIGNING_KEY), every timed process checking it (ROCJIT_REQUIRE_SIGNED=all,
# ROCJIT_TRUSTED_KEYS): a signed disk hit (issues 16 and 27).
# Prints one line per process (label open= first= own=, in ms; first is the first
# request without rocjit_open), then min, quartiles and medians, and A/B of the medians.
set -euo pipefail

nvidia=0 n=30 target=sm_90 signed=0
while [[ $# -gt 0 && $1 == -* ]]; do
	case $1 in
	--nvidia) nvidia=1 ;;
	--signed) signed=1 ;;
	-n) n=$2; shift ;;
	--target) target=$2; shift ;;
	*) echo "usage: $0 [--nvidia] [-n N] [--target T] LIBDIR_A LIBDIR_B [BENCH_BUILD]" >&2
	   exit 2 ;;
	esac
	shift
done
[[ $# -ge 2 ]] || { echo "usage: $0 [--nvidia] [-n N] LIBDIR_A LIBDIR_B [BENCH_BUILD]" >&2; exit 2; }
a=$(cd "$1" && pwd) b=$(cd "$2" && pwd) build=$(cd "${3:-build}" && pwd)
cd "$(dirname "$0")/.."            # the repository root: the kernel path is relative to it
kernel=kernels-src/axpy.hip
work=$(mktemp -d /tmp/rocjit-first-hit-XXXXXX)
trap 'rm -rf "$work"' EXIT
export ROCJIT_LOG=off
if ((signed)); then
	LD_LIBRARY_PATH=$b "$build/cli/rocjit" keygen ab --dir "$work" > /dev/null
	export ROCJIT_TRUSTED_KEYS=$work/ab.pub
fi

# One fresh process on library $1 with cache folder $2: prints "open= first= own=".
one() {
	if ((nvidia)); then
		LD_LIBRARY_PATH=$1 "$build/bench/bench_nvidia" --child hit "$kernel" axpy_f32 "$2" \
			"$2.cubin" "$3" | tr ' ' '\n' | grep -E '^(open|first|own)=' | tr '\n' ' '
		echo
	else
		LD_LIBRARY_PATH=$1 "$build/bench/bench_cache" --child "$kernel" "$target" "$2" |
			awk '{ printf "open=%s first=%s own=%s\n", $4, $2, $1 }'
	fi
}

for lib in "$a" "$b"; do
	dir=$work/$(echo "$lib" | md5sum | cut -c1-8)
	if ((nvidia)); then
		LD_LIBRARY_PATH=$lib "$build/bench/bench_nvidia" --child cold "$kernel" axpy_f32 \
			"$dir" "$dir.cubin" > /dev/null
	fi
	for i in 1 2 3; do
		if ((signed)) && ((i == 1)); then
			ROCJIT_SIGNING_KEY=$work/ab.secret one "$lib" "$dir" 0 > /dev/null
		else
			one "$lib" "$dir" 0 > /dev/null
		fi
	done
done
((signed)) && export ROCJIT_REQUIRE_SIGNED=all
echo "A = $a"
echo "B = $b"
for ((i = 0; i < n; i++)); do
	for lib in "$a" "$b"; do
		label=A
		[[ $lib == "$b" ]] && label=B
		echo "$label $(one "$lib" "$work/$(echo "$lib" | md5sum | cut -c1-8)" $((i % 2)))"
	done
done | tee "$work/lines"
python3 - "$work/lines" "$nvidia" <<'EOF'
import collections, statistics, sys
NVIDIA = int(sys.argv[2])
d = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    label, *fields = line.split()
    f = dict(x.split('=') for x in fields)
    # first here: the first request with rocjit_open excluded (bench_nvidia's includes it)
    first = float(f['first']) - (float(f['open']) if NVIDIA else 0)
    for k, v in (('open', float(f['open'])), ('first', first), ('open+first', float(f['open']) + first),
                 ('own', float(f['own']))):
        d[label][k].append(v)
def q(v, p):
    v = sorted(v)
    return v[int(p * (len(v) - 1))]
for label in sorted(d):
    print(f"{label}: {len(d[label]['open'])} processes, ms")
    for k, v in d[label].items():
        print(f"  {k:<10} min {min(v):.4f}  p25 {q(v, .25):.4f}  median {statistics.median(v):.4f}"
              f"  p75 {q(v, .75):.4f}")
print("A/B of the medians: " + ", ".join(
    f"{k} {statistics.median(d['A'][k]) / statistics.median(d['B'][k]):.2f}" for k in d['A']))
EOF
