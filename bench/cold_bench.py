#!/usr/bin/env python3
"""cold_bench.py - a cold compile through rocjit against CuPy RawModule's, per file (issue 32).

    python3 bench/cold_bench.py [--build DIR] [--manifest FILE] [--procs N] [--budget-s S]
                                [--jobs J] [--files A,B] [--cases A,B] [--no-gpu]
                                [--target T]
                                [--cuda-include DIR] [--json FILE]

Files (--files takes these labels, or a group: ops, heavy, pair):
  ops    kernels-src/ops/{unary,binary,cast,reductions,rows,sort,indexing}.hip, each with ALL
         its name expressions: the expr= lines of the build's manifest (--manifest, default
         BUILD/ops/rocjit_ops.rocjit-manifest, generated from ops/ops_exprs.c).
  heavy  bench/kernels/heavy/{half_math,cg_reduce,block_prims}.cu, plain CUDA (cuda_fp16 and
         cuda_bf16, cooperative groups, CUB's block primitives); every extern "C" kernel.
  pair   kernels-src/axpy.hip and bench/kernels/templated.hip; every extern "C" kernel.

Cases (--cases), each timed in a FRESH child process, from the request to every kernel
loaded (get_function of each name), with the import and the CUDA context made first and
not timed (as bench/cupy_baseline.py's child_setup):
  cupy_cold           an empty CUPY_CACHE_DIR: cupy.RawModule(code=, options=,
                      name_expressions=) plus get_function of every name.
  rocjit_first        an empty rocjit cache folder: rocjit.Context(cache_dir=) (its open is
                      timed, and reported apart as open_ms) and rocjit.RawModule(...,
                      context=) - the binding's CuPy-shaped module, so the request is the
                      same call shape as CuPy's - plus get_function of every name.
  rocjit_warm_prefix  the same, in a folder where two other processes first compiled
                      (untimed) the source with "// variant <pid>" appended: other keys,
                      the same include prefix, so whatever rocjit keeps per prefix
                      (precompiled headers, under the cache folder: made by the second
                      compile of a leading part) is there.  Two fills per timed process.
  rocjit_pch_create   (with --cases) one fill first: the timed request is the second
                      compile of its leading part, the one that makes the precompiled
                      header.
rocjit's Python package is used, not the CLI: it makes the same request through the C
library (rocjit_kernel_get), keeps the device and the cache in one process as CuPy does,
and its Context.stats() gives compile_ms and worker_overhead_ms, from which the compiler's
time (compile_ms - worker_overhead_ms: what the compile worker measured around its work -
in a fresh worker that includes loading NVRTC - src/worker/serve.c) and rocjit's own
share, (request - compiler) / compiler, are reported: the context's open, the key, the
worker's start and round trip, the store, the module load, the get_function calls.
Every rocjit case also checks that exactly one compile ran and no disk hit.

What each compiler is given:
  rocjit  the file as it is, named by its base name (.hip: HIP, rocjit pre-includes its
          HIP-on-CUDA header; .cu: CUDA), ops with -I<repo>/kernels-src/ops; rocjit serves
          the CUDA headers the heavy files include itself.
  CuPy    the file without its "#include <hip/hip_runtime.h>" line, nothing prepended
          (cupy_baseline.py's cuda_source()).  The op set cannot compile that way: its
          rj_ops.h includes <hip/hip_runtime.h> itself, and CuPy has no such header.  The
          smallest honest fix, used here: CuPy gets -I<repo>/bench/cupy_hip, a folder
          holding a 3-line hip/hip_runtime.h written for this benchmark (#include
          <cuda_fp16.h>, #define __HIP_PLATFORM_NVIDIA__ 1), plus -I<repo>/kernels-src/ops
          and -I<cuda include>; the files compile unchanged.  The heavy files get
          -I<cuda include> -I<cuda include>/cccl (CUDA 13 keeps CUB and libcu++ there).
          axpy and templated get no option (as in cupy_baseline.py).

Every child runs with CUDA_CACHE_DISABLE=1: the driver's compute cache serves NVRTC's
CUBIN compiles (bench/RESULTS.md, NOTES.md) and would make "cold" a partial hit.

Rounds: a round of a file runs each selected case once, in order, in fresh processes;
up to --procs rounds per file (default 5).  The next unit of work is always a file with
the fewest rounds so far, the cheapest first (by its last round's time), so every file
gets round 2 before any gets round 3.  Within the time budget: a file's next round starts
only while the time so far plus its last round's time stays within --budget-s (default
400), else that file stops; so the cheap files get more rounds than the op set (up to 15 s
per NVRTC compile on the GPU box, four compiles a round with the warm-prefix fill).
Every file gets at least one round; the figures are the medians of the rounds it had (n
says how many).  Interleaved rounds, not one case after the other, so that drifting noise
falls on all cases alike.  --jobs J (default 1) runs up to J files' rounds at once (each
file's cases still one after the other): more rounds in the budget on a many-core box,
at the price of J compiles sharing the machine - for CuPy and rocjit alike, but the
absolute times then include that contention; say so when quoting them.

Exit status: 0; 1 when a child failed (its (file, case) gets an "error" JSON line and is
not tried again; the rest of the run goes on) or the run could not start.

Output: one JSON object per line on stdout per (file, case) - median_ms, min_ms, max_ms,
n, and for rocjit compiler_ms (median), own_pct (median of per-process shares), open_ms -
then a table: file, cupy_cold, rocjit_first, rocjit_warm_prefix, cupy/first, cupy/warm
(ratios above 1: rocjit faster), own% of first and warm.  --json FILE writes the JSON lines
there too.  Progress goes to stderr.

--no-gpu: a dry run on a machine without a GPU (or CuPy): the CuPy case is left out (it
needs CuPy and a device) and the rocjit cases compile for --target (default sm_90) with
Context.compile (rocjit_compile), which loads nothing; the name expressions are checked
to be lowered instead of loaded.  Without --no-gpu, a missing CuPy or GPU stops the run
with a message saying so.

Environment: ROCJIT_LIBRARY / ROCJIT_WORKER / LD_LIBRARY_PATH as bench/run_cold_bench.sh
sets them; bindings/python is put on the children's path when rocjit is not importable.
"""

import argparse
import heapq
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The baseline's own rules: the HIP include CuPy does without, the extern "C" kernels, and
# the untimed import and context of a child.
from cupy_baseline import HIP_INCLUDE, KERNEL_RE, child_setup as gpu_setup  # noqa: E402
OPS = ("unary", "binary", "cast", "reductions", "rows", "sort", "indexing")
HEAVY = ("half_math", "cg_reduce", "block_prims")
PAIR = ("axpy", "templated")
GROUPS = {"ops": OPS, "heavy": HEAVY, "pair": PAIR}
CASES = ("cupy_cold", "rocjit_first", "rocjit_warm_prefix")
EXTRA_CASES = ("nvrtc_direct", "rocjit_pch_create")
# Untimed compiles of another variant before the timed one, per case.
FILLS = {"rocjit_warm_prefix": 2, "rocjit_pch_create": 1}


def note(msg):
    print(f"cold_bench: {msg}", file=sys.stderr, flush=True)


def die(msg):
    sys.exit(f"cold_bench: {msg}")


# ---- What each file is and what each compiler gets -------------------------------------


def cuda_source(text):
    """The text for CuPy: the HIP include line removed, nothing else changed."""
    return "".join(line for line in text.splitlines(keepends=True)
                   if line.strip() != HIP_INCLUDE)


def manifest_exprs(path):
    """{file name: [expression, ...]} from the manifest's expr=<file>\\t<expr> lines."""
    exprs = {}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith("expr="):
                    name, _, expr = line[5:].rstrip("\n").partition("\t")
                    if not expr:
                        die(f"{path}: an expr= line without a tab: {line.rstrip()!r}")
                    exprs.setdefault(name, []).append(expr)
    except OSError as e:
        die(f"cannot read the manifest {path} ({e.strerror}): build the op set "
            "(cmake --build BUILD --target rocjit_ops) or give --manifest")
    return exprs


def file_spec(label, manifest, cuda_inc):
    """A dict the children take: path, rocjit's name and options, CuPy's options, and the
    names to get (name expressions for the op set, extern "C" kernels otherwise)."""
    if label in OPS:
        ops_dir = os.path.join(REPO, "kernels-src", "ops")
        path = os.path.join(ops_dir, label + ".hip")
        exprs = manifest.get(label + ".hip")
        if not exprs:
            die(f"the manifest lists no expression for {label}.hip")
        return dict(label=label, path=path, names=exprs, name_expressions=exprs,
                    rocjit_options=["-I" + ops_dir],
                    cupy_options=["-I" + ops_dir, "-I" + os.path.join(REPO, "bench", "cupy_hip"),
                                  "-I" + cuda_inc])
    if label in HEAVY:
        path = os.path.join(REPO, "bench", "kernels", "heavy", label + ".cu")
        cupy_options = ["-I" + cuda_inc, "-I" + os.path.join(cuda_inc, "cccl")]
    elif label == "axpy":
        path, cupy_options = os.path.join(REPO, "kernels-src", "axpy.hip"), []
    elif label == "templated":
        path, cupy_options = os.path.join(REPO, "bench", "kernels", "templated.hip"), []
    else:
        die(f"unknown file {label!r}: give one of {', '.join(OPS + HEAVY + PAIR)} or a "
            f"group ({', '.join(GROUPS)})")
    with open(path, encoding="utf-8") as f:
        names = KERNEL_RE.findall(f.read())
    if not names:
        die(f"{path} has no extern \"C\" __global__ kernel")
    return dict(label=label, path=path, names=names, name_expressions=[],
                rocjit_options=[], cupy_options=cupy_options)


# ---- Children: one fresh process each; one JSON object on stdout -----------------------


def cache_files(folder):
    return sum(len(files) for _r, _d, files in os.walk(folder))


def child_cupy(spec):
    import_ms, ctx_ms = gpu_setup()
    import cupy

    with open(spec["path"], encoding="utf-8") as f:
        src = cuda_source(f.read())
    folder = os.environ["CUPY_CACHE_DIR"]
    before = cache_files(folder)
    kw = {"name_expressions": spec["name_expressions"]} if spec["name_expressions"] else {}
    t0 = time.perf_counter()
    mod = cupy.RawModule(code=src, options=tuple(spec["cupy_options"]), **kw)
    for n in spec["names"]:
        mod.get_function(n)
    ms = (time.perf_counter() - t0) * 1e3
    after = cache_files(folder)
    if before != 0 or after == 0:  # a cold request writes its CUBIN, into an empty folder
        die(f"the CuPy child found {folder} not cold ({before} files before, {after} after)")
    print(json.dumps({"ms": ms, "import_ms": import_ms, "ctx_ms": ctx_ms}))


def import_rocjit():
    t0 = time.perf_counter()
    try:
        import rocjit
    except ImportError:
        sys.path.insert(0, os.path.join(REPO, "bindings", "python"))
        import rocjit
    rocjit.version()  # loads librocjit: part of the import, untimed
    return rocjit, (time.perf_counter() - t0) * 1e3


def child_rocjit(spec, variant, no_gpu, target):
    """A rocjit request in the folder $COLD_BENCH_ROCJIT_DIR.  variant: the fill of the
    warm-prefix case (the source plus a last comment line, another key)."""
    if no_gpu:
        ctx_ms = 0.0
        rocjit, import_ms = import_rocjit()
        import_ms_cupy = 0.0
    else:
        import_ms_cupy, ctx_ms = gpu_setup()
        rocjit, import_ms = import_rocjit()
        t = time.perf_counter()
        rocjit.device_target("nvidia", 0)  # rocjit's own libcuda load and cuInit: untimed,
        ctx_ms += (time.perf_counter() - t) * 1e3  # as CuPy's context is
    with open(spec["path"], encoding="utf-8") as f:
        src = f.read()
    if variant:
        src += f"\n// variant {os.getpid()}\n"
    name = os.path.basename(spec["path"])
    opts = tuple(spec["rocjit_options"])
    exprs = tuple(spec["name_expressions"])
    folder = os.environ["COLD_BENCH_ROCJIT_DIR"]

    t0 = time.perf_counter()
    # platform="nvidia": the GPU box also has a HIP 5.7 library (NOTES.md), and the
    # comparison is with CuPy on the NVIDIA device.
    ctx = rocjit.Context(cache_dir=folder, target=target if no_gpu else None, remote="",
                         platform="nvidia")
    t1 = time.perf_counter()
    if no_gpu:
        code = ctx.compile(src, name=name, options=opts, name_expressions=exprs,
                           target=target)
    else:
        mod = rocjit.RawModule(code=src, options=opts, name_expressions=exprs or None,
                               name=name, context=ctx)
        for n in spec["names"]:
            mod.get_function(n)
    t2 = time.perf_counter()

    st = ctx.stats()
    if no_gpu:  # nothing is loaded: check what a load would need instead
        missing = [e for e in exprs if not code.lowered_names.get(e)]
        kernels = set(code.kernels)
        missing += [n for n in spec["names"] if not exprs and n not in kernels]
        if missing:
            die(f"{name}: {len(missing)} names not in the code object, e.g. {missing[0]!r}")
    if st.compiles != 1 or st.disk_hits != 0:
        die(f"{name}: expected one compile and no disk hit, got {st.compiles} compiles, "
            f"{st.disk_hits} disk hits, {st.memory_hits} memory hits")
    compiler_ms = st.compile_ms - st.worker_overhead_ms
    ms = (t2 - t0) * 1e3
    # Whatever the library reports about precompiled headers or prefixes (fields that
    # later versions of rocjit_stats may add): kept with the result as they are.
    extra = {k: v for k, v in vars(st).items() if "pch" in k or "prefix" in k}
    print(json.dumps({"ms": ms, "open_ms": (t1 - t0) * 1e3, "compile_ms": st.compile_ms,
                      "worker_overhead_ms": st.worker_overhead_ms, "compiler_ms": compiler_ms,
                      "own_pct": (ms - compiler_ms) / compiler_ms * 100 if compiler_ms > 0
                      else None, "worker_compiles": st.worker_compiles,
                      "import_ms": import_ms + import_ms_cupy, "ctx_ms": ctx_ms, **extra}))
    ctx.close()


def load_nvrtc(cuda_inc):
    import ctypes

    lib64 = os.path.join(os.path.dirname(cuda_inc), "lib64")
    tried = []
    for cand in (os.path.join(lib64, "libnvrtc.so"), "libnvrtc.so.13", "libnvrtc.so.12",
                 "libnvrtc.so"):
        try:
            return ctypes, ctypes.CDLL(cand)
        except OSError as e:
            tried.append(f"{cand} ({e})")
    die("NVRTC cannot be loaded: tried " + "; ".join(tried))


def child_nvrtc(spec, cuda_inc, target):
    """nvrtc_direct: NVRTC alone (ctypes, no CuPy, no GPU) on exactly the source, options
    and name expressions CuPy gets, for sm_XX: checks CuPy's inputs compile on a machine
    without CuPy, and gives NVRTC's own floor (load, compile, lowered names)."""
    t0 = time.perf_counter()
    ct, nv = load_nvrtc(cuda_inc)
    load_ms = (time.perf_counter() - t0) * 1e3
    with open(spec["path"], encoding="utf-8") as f:
        src = cuda_source(f.read()).encode()
    opts = [o.encode() for o in spec["cupy_options"] + [f"-arch={target}"]]
    t0 = time.perf_counter()
    prog = ct.c_void_p()
    rc = nv.nvrtcCreateProgram(ct.byref(prog), src, b"kern.cu", 0, None, None)
    for e in spec["name_expressions"]:
        rc = rc or nv.nvrtcAddNameExpression(prog, e.encode())
    arr = (ct.c_char_p * len(opts))(*opts)
    rc = rc or nv.nvrtcCompileProgram(prog, len(opts), arr)
    size = ct.c_size_t()
    if rc == 0:
        rc = nv.nvrtcGetCUBINSize(prog, ct.byref(size))
    for e in spec["name_expressions"] if rc == 0 else ():
        lowered = ct.c_char_p()
        if nv.nvrtcGetLoweredName(prog, e.encode(), ct.byref(lowered)) != 0:
            die(f"NVRTC lowered no name for {e!r}")
    ms = (time.perf_counter() - t0) * 1e3
    if rc != 0:
        n = ct.c_size_t()
        nv.nvrtcGetProgramLogSize(prog, ct.byref(n))
        log = ct.create_string_buffer(n.value + 1)
        nv.nvrtcGetProgramLog(prog, log)
        die(f"NVRTC failed on CuPy's input for {os.path.basename(spec['path'])} "
            f"(nvrtcResult {rc}):\n{log.value.decode(errors='replace')[:4000]}")
    nv.nvrtcDestroyProgram(ct.byref(prog))
    print(json.dumps({"ms": ms, "load_ms": load_ms, "cubin_bytes": size.value}))


def child_meta(no_gpu):
    out = {"case": "meta", "python": sys.version.split()[0], "cpus": os.cpu_count()}
    try:
        rocjit, _ = import_rocjit()
        out.update(rocjit=rocjit.version(), rocjit_library=rocjit.library_path())
        try:
            out["nvrtc_identity"] = rocjit.compiler_identity("nvidia")
        except Exception as e:  # noqa: BLE001 - reported, not fatal
            out["nvrtc_identity"] = f"unknown ({e})"
    except Exception as e:  # noqa: BLE001
        out["rocjit_error"] = f"{type(e).__name__}: {e}"
    if not no_gpu:
        try:
            import cupy

            cupy.cuda.Device(0).use()
            props = cupy.cuda.runtime.getDeviceProperties(0)
            dev = props["name"]
            out.update(cupy=cupy.__version__,
                       device=dev.decode() if isinstance(dev, bytes) else dev,
                       cc=f"{props['major']}{props['minor']}",
                       nvrtc=".".join(str(v) for v in cupy.cuda.nvrtc.getVersion()))
        except Exception as e:  # noqa: BLE001
            out["cupy_error"] = f"{type(e).__name__}: {e}"
    print(json.dumps(out))


# ---- The parent -------------------------------------------------------------------------


def child_env(cupy_dir=None, rocjit_dir=None):
    env = dict(os.environ)
    env["PYTHONUNBUFFERED"] = "1"
    env["CUDA_CACHE_DISABLE"] = "1"  # the driver's compute cache off, for both
    for var in ("CUPY_CACHE_IN_MEMORY", "CUPY_CACHE_SAVE_CUDA_SOURCE", "ROCJIT_CACHE_DIR",
                "ROCJIT_REMOTE", "ROCJIT_BUNDLES", "ROCJIT_ARCH", "CUDA_CACHE_PATH"):
        env.pop(var, None)
    if cupy_dir:
        env["CUPY_CACHE_DIR"] = cupy_dir
    if rocjit_dir:
        env["COLD_BENCH_ROCJIT_DIR"] = rocjit_dir
    return env


def run_child(args, env, what, fatal=True):
    """The child's JSON result; on a failure (its error went to stderr) die, or return
    None when not fatal."""
    cmd = [sys.executable, os.path.abspath(__file__), "--child"] + args
    r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, text=True)
    lines = [line for line in r.stdout.splitlines() if line.startswith("{")]
    if r.returncode != 0 or not lines:
        msg = (f"the child for {what} failed (exit status {r.returncode}; its error is "
               f"above){'' if lines else ': no result'}")
        if fatal:
            die(msg)
        note(msg)
        return None
    return json.loads(lines[-1])


def pick(arg, allowed, groups, what):
    out = []
    for item in (s.strip() for s in arg.split(",") if s.strip()):
        for x in groups.get(item, (item,)):
            if x not in allowed:
                die(f"unknown {what} {x!r}: give some of {', '.join(allowed)}"
                    + (f" or a group ({', '.join(groups)})" if groups else ""))
            if x not in out:
                out.append(x)
    if not out:
        die(f"no {what} selected")
    return out


def med(rows, key):
    vals = [r[key] for r in rows if r.get(key) is not None]
    return statistics.median(vals) if vals else None


def fmt(v, unit=""):
    if v is None:
        return "-"
    return f"{v:.0f}{unit}" if abs(v) >= 100 else f"{v:.1f}{unit}"


def table(results, files):
    """The summary: one line per file; ratios CuPy / rocjit (above 1: rocjit faster)."""
    head = ("file", "cupy_cold", "rocjit_first", "rocjit_warm_prefix", "cupy/first",
            "cupy/warm", "own%first", "own%warm")
    extra = [e for e in EXTRA_CASES if any(k[1] == e for k in results)]
    head += tuple(extra)
    rows = [head]
    for f in files:
        c, r1, r2 = (results.get((f, k)) for k in CASES)
        cm, m1, m2 = ((x or {}).get("median_ms") for x in (c, r1, r2))
        rows.append((f, fmt(cm), fmt(m1), fmt(m2),
                     f"{cm / m1:.2f}" if cm and m1 else "-",
                     f"{cm / m2:.2f}" if cm and m2 else "-",
                     fmt((r1 or {}).get("own_pct"), "%"), fmt((r2 or {}).get("own_pct"), "%"))
                    + tuple(fmt((results.get((f, e)) or {}).get("median_ms")) for e in extra))
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = ["  ".join(s.ljust(w) if i == 0 else s.rjust(w)
                       for i, (s, w) in enumerate(zip(r, widths))) for r in rows]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(REPO, "build"),
                    help="rocjit's build folder (for the manifest's default path)")
    ap.add_argument("--manifest", help="the op set's manifest (default "
                    "BUILD/ops/rocjit_ops.rocjit-manifest)")
    ap.add_argument("--procs", type=int, default=5,
                    help="at most this many rounds: fresh processes per (file, case)")
    ap.add_argument("--budget-s", type=float, default=400,
                    help="start no round that would end past this many seconds (by the "
                         "last round's time); at least one round runs")
    ap.add_argument("--jobs", type=int, default=1,
                    help="files run at once (each its cases in turn); default 1: one "
                         "child at a time")
    ap.add_argument("--files", default="ops,heavy,pair")
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--no-gpu", action="store_true",
                    help="dry run without a GPU: rocjit only, compiled for --target")
    ap.add_argument("--target", default="sm_90", help="the target under --no-gpu")
    ap.add_argument("--cuda-include",
                    default=os.path.join(os.environ.get("CUDA_PATH", "/usr/local/cuda"),
                                         "include"),
                    help="CUDA's include folder, for CuPy's -I options")
    ap.add_argument("--json", help="also write the JSON lines to this file")
    ap.add_argument("--child", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    a = ap.parse_args()

    if a.child is not None:
        mode = a.child[0]
        if mode == "meta":
            child_meta(a.child[1] == "1")
        elif mode == "cupy":
            child_cupy(json.loads(a.child[1]))
        elif mode == "nvrtc":
            child_nvrtc(json.loads(a.child[1]), a.child[2], a.child[3])
        elif mode in ("rocjit", "rocjit_fill"):
            child_rocjit(json.loads(a.child[1]), mode == "rocjit_fill", a.child[2] == "1",
                         a.child[3])
        else:
            die(f"unknown child mode {mode}")
        return

    if a.procs < 1 or a.jobs < 1:
        die("--procs and --jobs must be positive")
    files = pick(a.files, OPS + HEAVY + PAIR, GROUPS, "file")
    cases = pick(a.cases, CASES + EXTRA_CASES, {}, "case")
    if a.no_gpu and "cupy_cold" in cases:
        note("--no-gpu: the CuPy case needs CuPy and a GPU; left out")
        cases.remove("cupy_cold")
        if not cases:
            die("--no-gpu leaves no case to run: select a rocjit case")
    manifest = a.manifest or os.path.join(a.build, "ops", "rocjit_ops.rocjit-manifest")
    exprs = manifest_exprs(manifest) if any(f in OPS for f in files) else {}
    specs = {f: file_spec(f, exprs, a.cuda_include) for f in files}
    needs_cuda = "cupy_cold" in cases or "nvrtc_direct" in cases
    if needs_cuda and not os.path.isfile(os.path.join(a.cuda_include, "cuda_fp16.h")):
        die(f"no cuda_fp16.h in {a.cuda_include}: give --cuda-include")

    out_json = open(a.json, "w", encoding="utf-8") if a.json else None

    def emit(obj):
        line = json.dumps(obj)
        print(line, flush=True)
        if out_json:
            out_json.write(line + "\n")
            out_json.flush()

    base = tempfile.mkdtemp(prefix="cold-bench-")
    try:
        meta = run_child(["meta", "1" if a.no_gpu else "0"], child_env(), "meta")
        meta.update(no_gpu=a.no_gpu, target=a.target if a.no_gpu else None, files=files,
                    cases=cases, procs=a.procs, budget_s=a.budget_s, manifest=manifest)
        emit(meta)
        if "rocjit_error" in meta:
            die(f"rocjit cannot be loaded: {meta['rocjit_error']} (set ROCJIT_LIBRARY, or "
                "run bench/run_cold_bench.sh BUILD_DIR)")
        if not a.no_gpu and "cupy_error" in meta:
            die(f"CuPy or the GPU is not usable here: {meta['cupy_error']}; this benchmark "
                "needs both (on a machine without them: --no-gpu, rocjit only)")
        for f in files:
            s = specs[f]
            note(f"{f}: {os.path.relpath(s['path'], REPO)}, {len(s['names'])} "
                 f"{'name expressions' if s['name_expressions'] else 'kernels'}")

        samples = {(f, c): [] for f in files for c in cases}
        failed = {}  # (file, case) -> why: a child failed (its error is on stderr)
        mode_args = ["1" if a.no_gpu else "0", a.target]
        nvrtc_arch = a.target if a.no_gpu else "sm_" + meta.get("cc", "90")
        lock = threading.Lock()

        def run_unit(f, rnd):
            """Round rnd of file f: each case once, in order, in fresh processes."""
            spec = json.dumps(specs[f])
            for c in cases:
                with lock:
                    if (f, c) in failed:
                        continue
                folder = os.path.join(base, f"{f}-{c}-{rnd}")
                os.mkdir(folder)
                what = f"{f} {c} (round {rnd + 1})"
                if c == "nvrtc_direct":
                    r = run_child(["nvrtc", spec, a.cuda_include, nvrtc_arch], child_env(),
                                  what, False)
                elif c == "cupy_cold":
                    r = run_child(["cupy", spec], child_env(cupy_dir=folder), what, False)
                else:
                    env = child_env(rocjit_dir=folder)
                    r = None
                    if all(run_child(["rocjit_fill", spec] + mode_args, env,
                                     f"{f} fill {k + 1} (round {rnd + 1})", False)
                           for k in range(FILLS.get(c, 0))):
                        r = run_child(["rocjit", spec] + mode_args, env, what, False)
                shutil.rmtree(folder, ignore_errors=True)
                with lock:
                    if r is None:  # reported as a JSON line; not tried again
                        failed[(f, c)] = f"failed in round {rnd + 1}: see stderr"
                        continue
                    samples[(f, c)].append(r)
                extra = (f" (compiler {r['compiler_ms']:.0f} ms, own "
                         f"{fmt(r['own_pct'], '%')})" if "compiler_ms" in r else "")
                note(f"round {rnd + 1}: {f} {c}: {r['ms']:.0f} ms{extra}")

        # Units (file, round) in a queue: the lowest round first, then (from round 2 on)
        # the file whose last round was cheapest; a file's next round is queued when its
        # last one ends.  A unit that would end past the budget (by its file's last
        # round) is dropped, and its file has no more rounds.
        queue = [(0, 0.0, i, f) for i, f in enumerate(files)]
        heapq.heapify(queue)
        t_start = time.perf_counter()
        rounds_of = {f: 0 for f in files}
        running = [0]
        cond = threading.Condition(lock)

        def worker():
            while True:
                with cond:
                    while not queue and running[0]:
                        cond.wait()
                    if not queue:
                        cond.notify_all()
                        return
                    rnd, cost, i, f = heapq.heappop(queue)
                    elapsed = time.perf_counter() - t_start
                    if rnd > 0 and elapsed + cost > a.budget_s:
                        note(f"{f}: round {rnd + 1} would end past --budget-s "
                             f"{a.budget_s:.0f} ({elapsed:.0f} s so far, its last round "
                             f"took {cost:.0f} s): {rnd} round(s)")
                        cond.notify_all()
                        continue
                    running[0] += 1
                t0 = time.perf_counter()
                try:
                    run_unit(f, rnd)
                finally:
                    with cond:
                        running[0] -= 1
                        rounds_of[f] = rnd + 1
                        if rnd + 1 < a.procs:
                            heapq.heappush(queue, (rnd + 1, time.perf_counter() - t0, i, f))
                        cond.notify_all()

        threads = [threading.Thread(target=worker, daemon=True) for _ in range(a.jobs)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        rounds = max(rounds_of.values())

        results = {}
        for (f, c), rows in samples.items():
            if not rows:
                emit({"file": f, "case": c, "error": failed.get((f, c), "no result")})
                continue
            ms = [r["ms"] for r in rows]
            obj = {"file": f, "case": c, "median_ms": statistics.median(ms), "min_ms": min(ms),
                   "max_ms": max(ms), "n": len(ms), "names": len(specs[f]["names"])}
            for k in ("import_ms", "ctx_ms", "load_ms", "cubin_bytes"):  # untimed parts
                if med(rows, k) is not None:
                    obj[k] = med(rows, k)
            if c.startswith("rocjit"):
                obj.update(compiler_ms=med(rows, "compiler_ms"), own_pct=med(rows, "own_pct"),
                           open_ms=med(rows, "open_ms"),
                           worker_overhead_ms=med(rows, "worker_overhead_ms"),
                           target=a.target if a.no_gpu else "device")
            results[(f, c)] = obj
            emit(obj)
        total = time.perf_counter() - t_start
        emit({"case": "total", "rounds": rounds, "rounds_of": rounds_of, "jobs": a.jobs,
              "seconds": total})
        print()
        print(f"cold compile, median of up to {rounds} fresh processes per case (n in the "
              f"JSON lines), ms "
              f"({'--no-gpu, rocjit for ' + a.target if a.no_gpu else meta.get('device', '?')}; "
              f"CUDA_CACHE_DISABLE=1; {total:.0f} s)")
        print(table(results, files))
        if failed:
            print("failed (see stderr): " + ", ".join(f"{f} {c}" for f, c in failed))
        return 1 if failed else 0
        print("cupy/first, cupy/warm: CuPy's time over rocjit's (above 1: rocjit faster); "
              "own%: rocjit's request time beyond the compiler's, as % of the compiler's")
    finally:
        if out_json:
            out_json.close()
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
