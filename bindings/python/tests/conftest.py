"""Fixtures of the rocjit Python tests.

The tests import the package from this checkout (bindings/python), not an installed copy.
The library: $ROCJIT_LIBRARY, else what rocjit finds (the loader's path, the checkout's
build/).  Every test gets its own cache folder, and no remote tier.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

PKG_DIR = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PKG_DIR))

import rocjit  # noqa: E402

# The kernels both bindings' tests compile (bindings/testdata).
TESTDATA = PKG_DIR.parent / "testdata"
TILE, TABLE, COOP = (
    (TESTDATA / f).read_text() for f in ("tile.hip", "table.cu", "coop.cu"))


def resources_or_skip(read):
    """read() -> KernelResources, skipping while the library answers UnsupportedError
    (rocjit_codeobj_resources_get is a stub until the code-object reader lands)."""
    try:
        return read()
    except rocjit.UnsupportedError as e:
        pytest.skip(f"this librocjit reads no resources yet: {e}")


AXPY = r"""
extern "C" __global__ void axpy(int n, float a, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i];
}
"""

# Variables that would change what a test sees (the tests give these explicitly).
_ENV_CLEARED = (
    "ROCJIT_ARCH", "ROCJIT_CACHE_DIR", "ROCJIT_DISABLE_CACHE", "ROCJIT_NO_COMPILE",
    "ROCJIT_REMOTE", "ROCJIT_KERNEL_PATH", "ROCJIT_BUNDLE_PATH", "ROCJIT_CACHE_MAXSIZE",
    "ROCJIT_REQUIRE_SIGNED", "ROCJIT_TRUSTED_KEYS", "ROCJIT_SIGNING_KEY", "ROCJIT_PLATFORM",
)


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a GPU (and CuPy); skipped without them")


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    for name in _ENV_CLEARED:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def lib():
    """The loaded library (a test fails with the loader's message when it is missing)."""
    return rocjit._lib.load()


@pytest.fixture(scope="session")
def hiprtc(lib):
    """hipRTC's identity; skips (visibly) where hipRTC is not installed."""
    try:
        return rocjit.compiler_identity("amd")
    except rocjit.NoCompilerError as e:
        pytest.skip(f"hipRTC not available: {e}")


@pytest.fixture(scope="session")
def nvrtc(lib):
    """NVRTC's identity; skips (visibly) where NVRTC is not installed."""
    try:
        return rocjit.compiler_identity("nvidia")
    except rocjit.NoCompilerError as e:
        pytest.skip(f"NVRTC not available: {e}")


@pytest.fixture
def cache(tmp_path):
    d = tmp_path / "cache"
    d.mkdir()
    return d


@pytest.fixture
def ctx(cache, hiprtc):
    """A context on a fresh cache, compiling for gfx90a (no GPU needed)."""
    with rocjit.Context(cache_dir=cache, target="gfx90a", remote="") as c:
        yield c


@pytest.fixture
def gpu(cache, lib):
    """A context on this machine's GPU (NVIDIA first), on a fresh cache; skips without a
    GPU.  Needs nothing else (no CuPy)."""
    if rocjit.device_count() == 0:
        pytest.skip("rocjit finds no GPU")
    with rocjit.Context(cache_dir=cache, remote="") as c:
        yield c


def run_python(code: str, **env) -> subprocess.CompletedProcess:
    """Runs code in a new interpreter that imports this checkout's rocjit with the library
    this process loaded."""
    e = {k: v for k, v in os.environ.items() if k not in _ENV_CLEARED}
    e["PYTHONPATH"] = str(PKG_DIR) + os.pathsep + e.get("PYTHONPATH", "")
    e.setdefault("ROCJIT_LIBRARY", rocjit.library_path())
    e.update(env)
    return subprocess.run([sys.executable, "-c", code], env=e, capture_output=True,
                          text=True, timeout=300)
