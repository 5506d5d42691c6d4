"""rocjit's diagnostics reach Python's logging (rocjit_set_log_callback)."""

import gc
import logging

import pytest

import rocjit
from conftest import run_python

# Compiles into a code object without kernels: rocjit warns about it.
NO_KERNELS = "__device__ float twice(float x) { return 2 * x; }"


@pytest.fixture
def hook(lib):
    if not rocjit.log_hook_available():
        pytest.skip("this librocjit has no rocjit_set_log_callback (issue 17)")
    assert rocjit.log_to_python(True)
    yield
    rocjit.log_to_python(True)


def test_a_real_warning_reaches_the_rocjit_logger(ctx, hook, caplog):
    gc.collect()  # the callback object must survive a collection
    with caplog.at_level(logging.WARNING, logger="rocjit"):
        code = ctx.compile(NO_KERNELS, name="helpers.hip")
    assert code.kernels == []
    records = [r for r in caplog.records if r.name == "rocjit"]
    assert records, "no warning reached logging"
    (r,) = [r for r in records if "0 kernels" in r.getMessage()]
    assert r.levelno == logging.WARNING
    msg = r.getMessage()
    assert "helpers.hip" in msg and not msg.startswith("rocjit:") and "\n" not in msg
    assert ctx.stats().empty_objects == 1


def test_info_diagnostics_follow_rocjit_log(tmp_path, lib):
    if not rocjit.log_hook_available():
        pytest.skip("this librocjit has no rocjit_set_log_callback (issue 17)")
    # ROCJIT_LOG is read once a process: a new one.
    out = run_python(
        f"""
import logging, rocjit
seen = []
class H(logging.Handler):
    def emit(self, record): seen.append((record.levelno, record.getMessage()))
logging.getLogger("rocjit").addHandler(H())
logging.getLogger("rocjit").setLevel(logging.DEBUG)
with rocjit.Context(cache_dir={str(tmp_path)!r}, target="gfx90a", remote="") as ctx:
    ctx.compile('extern "C" __global__ void k(float *x) {{ x[0] = 1; }}', name="k.hip")
assert any(l == logging.INFO and "compiled" in m for l, m in seen), seen
print("ok", len(seen))
""",
        ROCJIT_LOG="info",
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ok")
    assert "rocjit:" not in out.stderr  # all of it went to logging


def test_unconfigured_logging_prints_like_the_library(tmp_path, lib):
    if not rocjit.log_hook_available():
        pytest.skip("this librocjit has no rocjit_set_log_callback (issue 17)")
    code = f"""
import rocjit
with rocjit.Context(cache_dir={str(tmp_path)!r}, target="gfx90a", remote="") as ctx:
    ctx.compile({NO_KERNELS!r}, name="helpers.hip")
"""
    out = run_python(code)
    assert out.returncode == 0, out.stderr
    expected = "rocjit: warning: helpers.hip compiled for gfx90a into a code object with 0 kernels"
    assert expected in out.stderr
    # Back to the library's own stderr.
    out = run_python("import rocjit; rocjit.log_to_python(False)\n" + code.replace(
        "helpers.hip", "helpers2.hip").replace("2 * x", "3 * x"))
    assert out.returncode == 0, out.stderr
    assert expected.replace("helpers", "helpers2") in out.stderr
