#!/usr/bin/env python3
"""bench/amd_pch.py DIR [--arch gfx90a] [--option OPT]...  (issue 32, an experiment)

Builds DIR/hiprtc_runtime.h.pch: a clang precompiled header of the HIP runtime header
that hipRTC 5.x puts before every source (hiprtc_runtime.h, ~360 KB of preprocessed text
from libhiprtc-builtins), made by hipRTC's own clang so that it matches.

Why it works (measured with hipRTC 5.2.3 / comgr 2.4, Debian 12):
  * hipRTC hands comgr `-include hiprtc_runtime.h`; comgr runs the clang *driver* in
    process, and the driver, as for gcc-style PCH, looks for `hiprtc_runtime.h.pch`
    (then `.gch`) relative to the process's current directory and, if present, turns the
    include into `-include-pch`. So a compile run with DIR as its current directory
    parses the header from the PCH instead of from text.
  * hipRTC refuses nothing in `-Xclang -emit-pch`: the compile of an empty source then
    writes a PCH where comgr expects bitcode and fails (HIPRTC_ERROR_COMPILATION, empty
    log); with AMD_COMGR_SAVE_TEMPS=1 comgr keeps its temp folder, output/CompileSource.bc
    holds the PCH ("CPCH" magic). This script takes it from there.
  * clang checks the PCH against the compile: another target or target feature, another
    -std, or -O0 (the __OPTIMIZE__ macro) is an error, not silent. An extra -D is fine.
    So one PCH per (compiler, target id, -std, optimised or not).

Use: bench/amd_pch.py /tmp/pch --arch gfx90a [--option=-std=c++17], then run compiles with /tmp/pch as the
current directory, e.g. `CWD=/tmp/pch bench/amd_cold.sh` (compare with CO_DIR and cmp).
Exit status 0 when the PCH was written, 1 otherwise.
"""
import argparse
import ctypes
import glob
import os
import shutil
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir", help="where to write hiprtc_runtime.h.pch")
    ap.add_argument("--arch", default="gfx90a", help="the target id (default gfx90a)")
    ap.add_argument("--option", action="append", default=[],
                    help="a compiler option the later compiles use too (write --option=-std=c++17)")
    ap.add_argument("--lib", default="libamdhip64.so.5",
                    help="the library holding hipRTC (libhiprtc.so from ROCm 5.3 on)")
    a = ap.parse_args()

    # The PCH names the header by the path it had when made (comgr's temp folder) and
    # clang checks that file's size and time on every use: the folder stays, in DIR.
    os.makedirs(a.dir, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix="src.", dir=os.path.abspath(a.dir))
    # Read by comgr when it runs an action, so set before the first compile.
    os.environ["AMD_COMGR_SAVE_TEMPS"] = "1"
    os.environ["TMPDIR"] = scratch
    try:
        rtc = ctypes.CDLL(a.lib)
    except OSError as e:
        print("amd_pch.py: cannot load %s: %s" % (a.lib, e), file=sys.stderr)
        return 1
    prog = ctypes.c_void_p()
    rc = rtc.hiprtcCreateProgram(ctypes.byref(prog), b"\n", b"rocjit_pch.hip", 0, None, None)
    if rc != 0:
        print("amd_pch.py: hiprtcCreateProgram: %d" % rc, file=sys.stderr)
        return 1
    opts = ["--offload-arch=" + a.arch] + a.option + ["-Xclang", "-emit-pch"]
    argv = (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts])
    rc = rtc.hiprtcCompileProgram(prog, len(opts), argv)
    rtc.hiprtcDestroyProgram(ctypes.byref(prog))
    # rc is expected to be 6 (the PCH is not bitcode); what counts is the file.
    found = glob.glob(os.path.join(scratch, "comgr-*", "output", "CompileSource.bc"))
    pch = None
    for f in found:
        with open(f, "rb") as fh:
            if fh.read(4) == b"CPCH":
                pch = f
    if not pch:
        print("amd_pch.py: no PCH came out (hipRTC rc %d, files %s)" % (rc, found),
              file=sys.stderr)
        shutil.rmtree(scratch, ignore_errors=True)
        return 1
    dest = os.path.join(a.dir, "hiprtc_runtime.h.pch")
    shutil.copyfile(pch, dest)
    os.remove(pch)
    print("%s: %d bytes, for %s %s" % (dest, os.path.getsize(dest), a.arch, " ".join(a.option)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
