#!/bin/sh
# The dependency checker finds what it is there to find: objects built from three small C
# files whose calls form a cycle (a -> b -> c -> a) fail the check and name every edge
# of it; the same files without the edge c -> a pass; a folder-level cycle between two
# folders whose files form no cycle fails with --folders only.
# Usage: depgraph_selftest.sh PYTHON DEPGRAPH CC WORKDIR
set -eu
python=$1 depgraph=$2 cc=$3 work=$4
rm -rf "$work"
mkdir -p "$work/x.dir/lo" "$work/x.dir/hi"

obj() { # obj NAME BODY: compiles BODY as x.dir/NAME.c.o (the layout CMake gives)
	printf '%s\n' "$2" >"$work/x.dir/$1.c"
	"$cc" -c -o "$work/x.dir/$1.c.o" "$work/x.dir/$1.c"
}
fail() { echo "depgraph_selftest: $*" >&2; exit 1; }

obj lo/a 'int b(void); int a(void) { return b(); }'
obj lo/b 'int c(void); int b(void) { return c(); }'
obj hi/c 'int a(void); int c(void) { return a(); }'
if "$python" "$depgraph" --check "$work"/x.dir/*/*.o 2>"$work/err"; then
	fail "a cycle a -> b -> c -> a passed the check"
fi
for edge in 'lo/a.c -> lo/b.c: b' 'lo/b.c -> hi/c.c: c' 'hi/c.c -> lo/a.c: a'; do
	grep -qF "$edge" "$work/err" || fail "the report does not name the edge '$edge'"
done

obj hi/c 'int c(void) { return 1; }'
"$python" "$depgraph" --check "$work"/x.dir/*/*.o >"$work/out" || fail "no cycle, yet the check failed"
grep -q "no cycle" "$work/out" || fail "a clean graph is not reported as such"

# lo/a -> hi/c and hi/d -> lo/e: no file cycle, but lo and hi use each other.
obj lo/b 'int b(void) { return 2; }'
obj lo/a 'int c(void); int a(void) { return c(); }'
obj hi/d 'int e(void); int d(void) { return e(); }'
obj lo/e 'int e(void) { return 3; }'
"$python" "$depgraph" --check "$work"/x.dir/*/*.o >/dev/null || fail "files without a cycle failed"
if "$python" "$depgraph" --check --folders "$work"/x.dir/*/*.o 2>"$work/err"; then
	fail "folders that use each other passed --folders"
fi
grep -qF "cycle between 2 folders" "$work/err" || fail "the folder cycle is not reported"
echo "depgraph_selftest: cycles of files and of folders are found and named"
