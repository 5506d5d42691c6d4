"""examples/cupy_style.py as a user runs it: compile-only for gfx90a (hipRTC) and sm_90
(NVRTC) with no GPU, then (GPU and CuPy: skipped visibly without them) the launches inside
`with cupy.cuda.Stream()`, compared with NumPy."""

import pytest
from conftest import PKG_DIR, run_python

import rocjit

EXAMPLE = PKG_DIR / "examples" / "cupy_style.py"


def run_example(cache, *args):
    code = f"import runpy, sys; sys.argv = {[str(EXAMPLE), *args]!r}; " \
           f"runpy.run_path({str(EXAMPLE)!r}, run_name='__main__')"
    out = run_python(code, ROCJIT_CACHE_DIR=str(cache), ROCJIT_REMOTE="")
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


@pytest.mark.parametrize("target, compiler", [("gfx90a", "hiprtc"), ("sm_90", "nvrtc")])
def test_the_cupy_style_example_compiles_with_no_gpu(request, cache, target, compiler):
    pytest.importorskip("numpy", reason="NumPy is not installed (python3-numpy)")
    request.getfixturevalue(compiler)
    assert "from_cache False" in run_example(cache, "--target", target)
    assert "from_cache True" in run_example(cache, "--target", target)


@pytest.mark.gpu
def test_the_cupy_style_example_matches_numpy_on_the_gpu(cache, lib):
    pytest.importorskip("numpy", reason="NumPy is not installed")
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    try:
        if cp.cuda.runtime.getDeviceCount() == 0 or rocjit.device_count() == 0:
            pytest.skip("no GPU")
    except Exception as e:  # noqa: BLE001 - no driver
        pytest.skip(f"CuPy finds no GPU: {e}")
    assert "GPU matches the CPU" in run_example(cache)
