#!/usr/bin/env bash
# bench_prewarm.sh - `rocjit prewarm` of kernels-src/ for two AMD targets with one worker
# process vs two, each on a fresh cache; prints the median wall time of each and the
# speed-up (issue 4's target: >= 1.7x on the 2-core box).
#
#   bench/bench_prewarm.sh [BUILD_DIR]        (BUILD_DIR defaults to build)
#
# Environment: REPS (default 5) repetitions per setting, alternated (1, 2, 1, 2, ...) so
# that drifting machine load hits both alike; ARCH (default gfx90a,gfx1030); JOBS (default
# "1 2"): the --jobs values compared, the speed-up is first/last.  Needs no GPU.
set -euo pipefail

build=${1:-build}
[[ -d $build ]] || { echo "bench_prewarm: no build folder $build" >&2; exit 1; }
build=$(cd "$build" && pwd)
cd "$(dirname "$0")/.."            # the repository root: kernels-src/ is relative to it
rocjit=$build/cli/rocjit
[[ -x $rocjit ]] || { echo "bench_prewarm: no $rocjit: build the rocjit_cli target first" >&2; exit 1; }
reps=${REPS:-5}
arch=${ARCH:-gfx90a,gfx1030}
# The three demonstration kernels (the results in RESULTS.md are theirs); SOURCES=kernels-src/ops
# prewarms the op set instead.
read -r -a sources <<< "${SOURCES:-kernels-src/axpy.hip kernels-src/binary_strided.hip kernels-src/reduce.hip}"
read -r -a jobs <<< "${JOBS:-1 2}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-prewarm.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "== $(date -u +%FT%TZ) $(uname -n); $(nproc) CPUs; $($rocjit --version)"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	echo "== git $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- 2>/dev/null || echo ' (with local changes)')"
fi
echo "== sources: ${sources[*]}; targets: $arch; $reps repetitions each"
for j in "${jobs[@]}"; do
	echo "== command: rocjit --cache <fresh folder> prewarm --arch $arch --jobs $j --no-progress ${sources[*]}"
done

# One warm-up run: the first process after a build pays for loading the libraries from disk.
"$rocjit" --cache "$tmp/warmup" prewarm --arch "$arch" --jobs 1 --no-progress "${sources[@]}" >/dev/null

declare -A times
for ((r = 1; r <= reps; r++)); do
	for j in "${jobs[@]}"; do
		cache=$tmp/cache-$r-$j
		t0=$(date +%s.%N)
		out=$("$rocjit" --cache "$cache" prewarm --arch "$arch" --jobs "$j" --no-progress "${sources[@]}")
		t1=$(date +%s.%N)
		s=$(echo "$t1 - $t0" | bc -l)
		times[$j]+="$s "
		printf 'rep %d  --jobs %d  %.3f s   (%s)\n' "$r" "$j" "$s" "$out"
		case $out in *"0 failed"*) ;; *) echo "bench_prewarm: a compile failed" >&2; exit 1 ;; esac
	done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
first=${jobs[0]}
last=${jobs[${#jobs[@]} - 1]}
m_first=$(echo "${times[$first]}" | median)
m_last=$(echo "${times[$last]}" | median)
echo
for j in "${jobs[@]}"; do
	printf 'median --jobs %d: %.3f s   (all: %s)\n' "$j" "$(echo "${times[$j]}" | median)" "${times[$j]% }"
done
printf 'speed-up --jobs %d vs --jobs %d: %.2fx\n' "$last" "$first" "$(echo "$m_first / $m_last" | bc -l)"
