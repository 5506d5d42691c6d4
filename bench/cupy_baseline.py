#!/usr/bin/env python3
"""cupy_baseline.py - CuPy RawModule's time from "get kernel" to a launchable function.

The baseline that bench/bench_nvidia compares rocjit with: the same kernel files, the same
kernels, on the same box, with the same statistics (medians of fresh processes).

    python3 bench/cupy_baseline.py [--procs N] [--iters N] [--rounds N]
                                   [--axpy FILE] [--templated FILE] [--option=OPT]...

Cases, per file (axpy: its first extern "C" kernel, axpy_f32; templated: all of them):
  cold      a fresh process with an empty CUPY_CACHE_DIR: RawModule(code=...) plus
            get_function of each kernel (RawModule compiles on the first get_function).
  disk_hit  a fresh process with a warm CUPY_CACHE_DIR (filled by one untimed process).
  disk_hit_own
            in the same process after disk_hit, another cached program (the same source
            with one more -D): what a disk hit costs once the process is warm.
  repeat    one process: RawModule(code=...) again with the same code plus get_function,
            per call (CuPy memoizes the module per code and options).
  repeat_get_function
            one process: get_function on a RawModule already held, per call.
In every child the CUDA context is created first and is not timed (its time is reported
as the "ctx" case); the source is the file without its "#include <hip/hip_runtime.h>"
line, nothing prepended.  Results: one JSON object per line on stdout; progress on
stderr.  Needs CuPy and a GPU.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HIP_INCLUDE = "#include <hip/hip_runtime.h>"
# bench_nvidia.c's find_kernels finds the same names.
KERNEL_RE = re.compile(r'extern\s+"C"\s+__global__\s+void\s+(\w+)\s*\(')
# The second program of a disk-hit process: the same source, one more -D (another key).
VARIANT = "-DROCJIT_BENCH_VARIANT=1"


def cuda_source(path):
    """The file's text for CuPy: the HIP include line removed, nothing else changed."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines(keepends=True)
    return "".join(line for line in lines if line.strip() != HIP_INCLUDE)


def kernel_names(path, all_kernels):
    with open(path, encoding="utf-8") as f:
        names = KERNEL_RE.findall(f.read())
    if not names:
        sys.exit(f"cupy_baseline: {path} has no extern \"C\" __global__ kernel")
    return names if all_kernels else names[:1]


# ---- Children: one fresh process each; one JSON object on stdout. -------------------------


def child_setup():
    """Imports CuPy and creates the context, untimed; returns (import_ms, ctx_ms)."""
    t0 = time.perf_counter()
    import cupy  # noqa: F401  (the import is part of the setup, not of any timing)

    t1 = time.perf_counter()
    cupy.cuda.Device(0).use()
    try:
        cupy.cuda.runtime.free(0)  # cudaFree(0): forces the primary context into existence
    except AttributeError:
        cupy.empty(1, dtype=cupy.uint8)  # a tiny allocation does the same
    cupy.cuda.runtime.deviceSynchronize()
    t2 = time.perf_counter()
    return (t1 - t0) * 1e3, (t2 - t1) * 1e3


def cache_files(cache_dir):
    n = 0
    for _root, _dirs, files in os.walk(cache_dir):
        n += len(files)
    return n


def get_all(cupy, src, names, options):
    """The timed part: RawModule + get_function of every name; returns ms."""
    t0 = time.perf_counter()
    mod = cupy.RawModule(code=src, options=options)
    for n in names:
        mod.get_function(n)
    return (time.perf_counter() - t0) * 1e3


def child_get(path, names, options, mode):
    """cold, warm (fills a cache, untimed) or disk_hit.

    disk_hit also times own_ms: a second program in the same process (the options plus
    one -D, cached by the warm-up), as bench_nvidia's "own" disk hit.
    """
    import_ms, ctx_ms = child_setup()
    import cupy

    src = cuda_source(path)
    cache_dir = os.environ["CUPY_CACHE_DIR"]
    before = cache_files(cache_dir)
    ms = get_all(cupy, src, names, options)
    own_ms = None
    if mode in ("warm", "disk_hit"):
        own_ms = get_all(cupy, src, names, options + (VARIANT,))
    after = cache_files(cache_dir)
    # A cold request writes its CUBIN to the cache; a disk hit writes nothing.
    if mode == "cold" and (before != 0 or after == 0):
        sys.exit(f"cupy_baseline: the cold child found {cache_dir} not cold "
                 f"({before} files before, {after} after)")
    if mode == "disk_hit" and (before == 0 or after != before):
        sys.exit(f"cupy_baseline: the disk-hit child missed the warm cache {cache_dir} "
                 f"({before} files before, {after} after)")
    print(json.dumps({"ms": ms, "own_ms": own_ms, "ctx_ms": ctx_ms, "import_ms": import_ms}))


def child_repeat(path, name, options, iters, rounds):
    """RawModule with the same code again + get_function; and get_function alone."""
    import_ms, ctx_ms = child_setup()
    import cupy

    src = cuda_source(path)
    held = cupy.RawModule(code=src, options=options)
    held.get_function(name)  # loads the module (a disk hit: the cache is warm)
    again, getf = [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(iters):
            cupy.RawModule(code=src, options=options).get_function(name)
        t1 = time.perf_counter()
        for _ in range(iters):
            held.get_function(name)
        t2 = time.perf_counter()
        again.append((t1 - t0) * 1e3 / iters)
        getf.append((t2 - t1) * 1e3 / iters)
    print(json.dumps({"ms": statistics.median(again), "min_ms": min(again),
                      "get_function_ms": statistics.median(getf),
                      "get_function_min_ms": min(getf), "ctx_ms": ctx_ms,
                      "import_ms": import_ms}))


def child_meta():
    import cupy

    cupy.cuda.Device(0).use()
    props = cupy.cuda.runtime.getDeviceProperties(0)
    name = props["name"]
    if isinstance(name, bytes):
        name = name.decode()
    try:
        nvrtc = ".".join(str(v) for v in cupy.cuda.nvrtc.getVersion())
    except Exception as e:  # an old or odd CuPy: report, do not fail
        nvrtc = f"unknown ({e})"
    print(json.dumps({"cupy": cupy.__version__, "nvrtc": nvrtc, "device": name,
                      "cc": f"{props['major']}{props['minor']}",
                      "runtime": cupy.cuda.runtime.runtimeGetVersion(),
                      "driver": cupy.cuda.runtime.driverGetVersion()}))


# ---- The parent ---------------------------------------------------------------------------


def child_env(cache_dir):
    env = dict(os.environ)
    env["PYTHONUNBUFFERED"] = "1"
    # The on-disk cache is what is measured: nothing may turn it off or bypass it.
    for var in ("CUPY_CACHE_IN_MEMORY", "CUPY_CACHE_SAVE_CUDA_SOURCE",
                "CUPY_CUDA_COMPILE_WITH_DEBUG", "CUPY_DUMP_CUDA_SOURCE_ON_ERROR"):
        env.pop(var, None)
    env["CUPY_CACHE_DIR"] = cache_dir
    return env


def run_child(args, cache_dir):
    cmd = [sys.executable, os.path.abspath(__file__), "--child"] + args
    r = subprocess.run(cmd, env=child_env(cache_dir), stdout=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit(f"cupy_baseline: the child {' '.join(args[:2])} failed "
                 f"(exit status {r.returncode}); its error is above")
    lines = [line for line in r.stdout.splitlines() if line.startswith("{")]
    if not lines:
        sys.exit(f"cupy_baseline: the child {' '.join(args[:2])} printed no result: "
                 f"{r.stdout!r}")
    return json.loads(lines[-1])


def summary(values):
    return {"median_ms": statistics.median(values), "min_ms": min(values),
            "max_ms": max(values), "n": len(values)}


def emit(obj):
    print(json.dumps(obj), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--procs", type=int, default=20, help="fresh processes per case")
    ap.add_argument("--iters", type=int, default=5000, help="calls per repeat round")
    ap.add_argument("--rounds", type=int, default=7, help="repeat rounds (median)")
    ap.add_argument("--axpy", default="kernels-src/axpy.hip")
    ap.add_argument("--templated", default="bench/kernels/templated.hip")
    ap.add_argument("--option", action="append", default=[],
                    help="a RawModule compile option, as --option=-OPT (repeatable); "
                         "default none")
    ap.add_argument("--child", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    a = ap.parse_args()
    options = tuple(a.option)

    if a.child is not None:
        mode, rest = a.child[0], a.child[1:]
        if mode == "meta":
            child_meta()
        elif mode in ("cold", "warm", "disk_hit"):
            child_get(rest[0], rest[1].split(","), tuple(rest[2:]), mode)
        elif mode == "repeat":
            child_repeat(rest[0], rest[1], tuple(rest[4:]), int(rest[2]), int(rest[3]))
        else:
            sys.exit(f"cupy_baseline: unknown child mode {mode}")
        return
    if a.procs < 1 or a.iters < 1 or a.rounds < 1:
        sys.exit("cupy_baseline: --procs, --iters and --rounds must be positive")

    base = tempfile.mkdtemp(prefix="cupy-nvbench-")
    try:
        meta = run_child(["meta"], os.path.join(base, "meta"))
        meta.update({"impl": "cupy", "case": "meta", "options": list(options)})
        emit(meta)
        ctx, imports = [], []
        for index, (path, all_kernels) in enumerate(((a.axpy, False), (a.templated, True))):
            names = kernel_names(path, all_kernels)
            label = os.path.basename(path)
            common = {"impl": "cupy", "file": label, "entries": len(names)}

            print(f"cupy_baseline: {label}: {a.procs} cold processes", file=sys.stderr)
            cold = []
            for p in range(a.procs):
                r = run_child(["cold", path, ",".join(names)] + list(options),
                              os.path.join(base, f"cold-{index}-{p}"))
                cold.append(r["ms"])
                ctx.append(r["ctx_ms"])
                imports.append(r["import_ms"])
            emit(dict(common, case="cold", **summary(cold)))

            warm = os.path.join(base, f"warm-{index}")
            run_child(["warm", path, ",".join(names)] + list(options), warm)
            print(f"cupy_baseline: {label}: {a.procs} disk-hit processes", file=sys.stderr)
            hit, own = [], []
            for p in range(a.procs):
                r = run_child(["disk_hit", path, ",".join(names)] + list(options), warm)
                hit.append(r["ms"])
                own.append(r["own_ms"])
                ctx.append(r["ctx_ms"])
                imports.append(r["import_ms"])
            emit(dict(common, case="disk_hit", **summary(hit)))
            emit(dict(common, case="disk_hit_own", **summary(own)))

            print(f"cupy_baseline: {label}: repeat, {a.rounds} rounds of {a.iters}",
                  file=sys.stderr)
            r = run_child(["repeat", path, names[0], str(a.iters), str(a.rounds)] +
                          list(options), warm)
            emit(dict(common, case="repeat", entries=1, median_ms=r["ms"],
                      min_ms=r["min_ms"], iters=a.iters, rounds=a.rounds))
            emit(dict(common, case="repeat_get_function", entries=1,
                      median_ms=r["get_function_ms"], min_ms=r["get_function_min_ms"],
                      iters=a.iters, rounds=a.rounds))
        emit({"impl": "cupy", "case": "ctx", "median_ms": statistics.median(ctx),
              "import_median_ms": statistics.median(imports), "n": len(ctx)})
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
