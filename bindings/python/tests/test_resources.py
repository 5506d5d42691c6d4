"""Each kernel's resources read from code objects compiled here, with no GPU
(rocjit_codeobj_resources_get): gfx90a with hipRTC, sm_90 where NVRTC is installed.
Skipped while the library's reader is a stub (UnsupportedError)."""

import pytest
from conftest import TILE, resources_or_skip

import rocjit


@pytest.mark.parametrize("target, platform, wavefront", [
    ("gfx90a", rocjit.PLATFORM_AMD, 64),
    ("sm_90", rocjit.PLATFORM_NVIDIA, 32),
])
def test_tile_kernel_resources(request, cache, target, platform, wavefront):
    request.getfixturevalue("hiprtc" if platform == rocjit.PLATFORM_AMD else "nvrtc")
    with rocjit.Context(cache_dir=cache, remote="") as ctx:
        code = ctx.compile(TILE, name="tile.hip", target=target)
    r = resources_or_skip(lambda: code.resources("tile_flip"))
    assert isinstance(r, rocjit.KernelResources)
    assert r.platform == platform
    assert r.shared_bytes == 1024
    assert r.max_threads == 128
    assert r.wavefront == wavefront
    assert r.registers > 0
    assert r.param_bytes >= 16  # two pointers (AMD adds hidden arguments)
    assert r.dynamic_stack is False
    assert code.all_resources() == {"tile_flip": r}
    assert rocjit.resources(code.data, "tile_flip") == r
    with pytest.raises(rocjit.NotFoundError):
        code.resources("no_such_kernel")


def test_resources_has_every_field_of_the_struct():
    fields = [f for f, _ in rocjit._lib.KernelResources._fields_ if f != "version"]
    assert [f.name for f in rocjit.KernelResources.__dataclass_fields__.values()] == fields


def test_bytes_that_are_no_code_object_are_refused(lib):
    with pytest.raises(rocjit.RocjitError) as e:
        rocjit.resources(b"\x7fELF but not really", "k")
    if isinstance(e.value, rocjit.UnsupportedError):
        pytest.skip(f"this librocjit reads no resources yet: {e.value}")
    assert isinstance(e.value, rocjit.FormatError), e.value
