"""The ctypes mirrors against include/rocjit.h: a C program compiled now prints every
mirrored struct's size and field offsets, and the constants the bindings copy.

Needs a C compiler (cc, else gcc; $CC first) and the header ($ROCJIT_INCLUDE_DIR, else the
checkout's include/): skipped, saying which, without them.
"""

import ctypes
import os
import shutil
import subprocess
import warnings
from pathlib import Path

import pytest

import rocjit
from rocjit import _core, _errors, _lib

REPO = Path(__file__).resolve().parents[3]

# Python constant -> the C macro it copies (a tuple: the first one the header defines).
CONSTANTS = {
    **{f"E{n}": f"ROCJIT_E{n}" for n in ("INVAL", "NOMEM", "NOTFOUND", "COMPILE", "UNSUPPORTED",
                                         "NODEV", "NOCOMPILER", "DEVICE", "IO", "FORMAT",
                                         "NOTCACHED")},
    **{n: f"ROCJIT_{n}" for n in (
        "PLATFORM_AUTO", "PLATFORM_AMD", "PLATFORM_NVIDIA", "LANG_AUTO", "LANG_HIP",
        "LANG_CUDA", "OPEN_NO_CACHE", "OPEN_NO_COMPILE", "OPEN_READONLY",
        "OPEN_COMPILE_INPROCESS", "REQUIRE_SIGNED_DEFAULT", "REQUIRE_SIGNED_NONE",
        "REQUIRE_SIGNED_SHARED", "REQUIRE_SIGNED_ALL", "REMOTE_NONE", "REMOTE_UP",
        "REMOTE_OFF", "SIGNATURE_NONE", "SIGNATURE_UNCHECKED", "SIGNATURE_TRUSTED",
        "SIGNATURE_UNTRUSTED", "SIGNATURE_BAD")},
    # issue 29: function attributes
    **{f"ATTR_{n}": f"ROCJIT_ATTR_{n}" for n in (
        "MAX_THREADS_PER_BLOCK", "SHARED_BYTES", "CONST_BYTES", "LOCAL_BYTES", "NUM_REGS",
        "PTX_VERSION", "BINARY_VERSION", "MAX_DYNAMIC_SHARED_BYTES",
        "PREFERRED_SHARED_CARVEOUT")},
    "VERIFY_CHECKSUM": ("ROCJIT_VERIFY_CHECKSUM", "ROCJIT_BAD_CHECKSUM"),
    "VERIFY_OBJECT": ("ROCJIT_VERIFY_OBJECT", "ROCJIT_BAD_OBJECT"),
    "VERIFY_SIGNATURE": ("ROCJIT_VERIFY_SIGNATURE", "ROCJIT_BAD_SIGNATURE"),
    # issue 17: the log levels (absent from an older header)
    "LOG_ERROR": ("ROCJIT_LOG_ERROR",),
    "LOG_WARN": ("ROCJIT_LOG_WARN",),
    "LOG_INFO": ("ROCJIT_LOG_INFO",),
    "LOG_DEBUG": ("ROCJIT_LOG_DEBUG",),
}

# Struct version macros and the version each mirror is written for.
VERSIONS = {
    "ROCJIT_OPTIONS_VERSION": _lib.Options.VERSION,
    "ROCJIT_PROGRAM_VERSION": _lib.Program.VERSION,
    "ROCJIT_REGISTERED_OPTIONS_VERSION": _lib.RegisteredOptions.VERSION,
    "ROCJIT_STATS_VERSION": _lib.Stats.VERSION,
    "ROCJIT_COUNTERS_VERSION": _lib.Counters.VERSION,
    "ROCJIT_REMOTE_COUNTERS_VERSION": _lib.RemoteCounters.VERSION,
    "ROCJIT_KERNEL_NATIVE_VERSION": _lib.KernelNative.VERSION,
    "ROCJIT_KERNEL_RESOURCES_VERSION": _lib.KernelResources.VERSION,
}
VERSION_OF = {
    "rocjit_options": "ROCJIT_OPTIONS_VERSION",
    "rocjit_program": "ROCJIT_PROGRAM_VERSION",
    "rocjit_registered_options": "ROCJIT_REGISTERED_OPTIONS_VERSION",
    "rocjit_stats": "ROCJIT_STATS_VERSION",
    "rocjit_counters": "ROCJIT_COUNTERS_VERSION",
    "rocjit_remote_counters": "ROCJIT_REMOTE_COUNTERS_VERSION",
    "rocjit_kernel_native": "ROCJIT_KERNEL_NATIVE_VERSION",
    "rocjit_kernel_resources": "ROCJIT_KERNEL_RESOURCES_VERSION",
}
# Fields a header of an older struct version lacks: printed only under this condition.
GUARDED = {("rocjit_program", "header_size"): "ROCJIT_PROGRAM_VERSION >= 3"}


def _program_text():
    lines = ["#include <stddef.h>", "#include <stdio.h>", "#include <rocjit.h>",
             "int main(void) {"]
    for cname, mirror in _lib.MIRRORS.items():
        if cname == "rocjit_counters":
            # Before issue 17 rocjit_counters had no version field (CountersV0).
            lines.append("#ifdef ROCJIT_COUNTERS_VERSION")
            lines.append('printf("counters_versioned 1\\n");')
            lines.append("#else")
            lines.append('printf("counters_versioned 0\\n");')
            lines.append("#endif")
            fields = [f for f, _ in _lib.Counters._fields_]
        else:
            fields = [f for f, _ in mirror._fields_]
        lines.append(f'printf("{cname} sizeof %zu\\n", sizeof({cname}));')
        for f in fields:
            guard = GUARDED.get((cname, f))
            if cname == "rocjit_counters" and f == "version":
                guard = "defined(ROCJIT_COUNTERS_VERSION)"
            if guard:
                lines.append(f"#if {guard}")
            lines.append(f'printf("{cname}.{f} %zu\\n", offsetof({cname}, {f}));')
            if guard:
                lines.append("#endif")
    macros = list(VERSIONS) + ["ROCJIT_VERSION_MAJOR", "ROCJIT_VERSION_MINOR"]
    for c in CONSTANTS.values():
        macros += list(c) if isinstance(c, tuple) else [c]
    for m in macros:
        lines += [f"#ifdef {m}", f'printf("{m} %lld\\n", (long long)({m}));', "#endif"]
    lines += ["return 0;", "}"]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def header_facts(tmp_path_factory):
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler (cc, gcc, $CC): the layout test needs one")
    include = Path(os.environ.get("ROCJIT_INCLUDE_DIR", REPO / "include"))
    if not (include / "rocjit.h").is_file():
        pytest.skip(f"no rocjit.h in {include}: set ROCJIT_INCLUDE_DIR")
    d = tmp_path_factory.mktemp("layout")
    (d / "layout.c").write_text(_program_text())
    build = subprocess.run([cc, "-std=c11", "-I", str(include), "-o", str(d / "layout"),
                            str(d / "layout.c")], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(d / "layout")], capture_output=True, text=True, check=True)
    facts = {}
    for line in run.stdout.splitlines():
        k, v = line.rsplit(" ", 1)
        facts[k] = int(v)
    return facts


def test_struct_layouts_match_the_header(header_facts):
    for cname, mirror in _lib.MIRRORS.items():
        if cname == "rocjit_counters" and not header_facts["counters_versioned"]:
            mirror = _lib.CountersV0  # a header before issue 17
        for fname, _ in mirror._fields_:
            key = f"{cname}.{fname}"
            if key not in header_facts:
                # A field of a newer version than the header's (guarded above).
                assert (cname, fname) in GUARDED, f"{key} missing from the header's output"
                continue
            assert getattr(mirror, fname).offset == header_facts[key], key
        size = header_facts[f"{cname} sizeof"]
        version_macro = VERSION_OF.get(cname)
        header_version = header_facts.get(version_macro) if version_macro else None
        mine = VERSIONS.get(version_macro)
        if header_version is None or header_version == mine:
            assert ctypes.sizeof(mirror) == size, cname
        elif header_version > mine:
            # A newer header grew the struct: the mirror is a valid prefix of it.
            assert ctypes.sizeof(mirror) <= size, cname
            warnings.warn(f"{cname}: header version {header_version}, bindings mirror "
                          f"{mine}: the new fields are not bound")
        else:
            # Only rocjit_program may be older (version 2, before header_size): the
            # mirror's version 3 field starts where the header's struct ends.
            assert cname == "rocjit_program" and header_version == _lib.Program.BASE_VERSION
            assert _lib.Program.header_size.offset == size, cname


def test_constants_match_the_header(header_facts):
    missing = []
    for pyname, macros in CONSTANTS.items():
        macros = macros if isinstance(macros, tuple) else (macros,)
        value = next((header_facts[m] for m in macros if m in header_facts), None)
        if value is None:
            assert pyname.startswith("LOG_"), f"{macros} missing from the header"
            missing.append(pyname)
            continue
        py = getattr(_errors, pyname, None)
        if py is None:
            py = getattr(_core, pyname)
        assert py == value, pyname
        assert getattr(rocjit, pyname) == value
    if missing:
        warnings.warn(f"not in the header yet (issue 17): {missing}")


def test_bindings_accept_the_header_abi(header_facts):
    abi = (header_facts["ROCJIT_VERSION_MAJOR"], header_facts["ROCJIT_VERSION_MINOR"])
    assert abi in _lib.SUPPORTED_ABIS
