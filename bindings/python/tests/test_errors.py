"""Failures become RocjitError subclasses carrying rocjit_last_error's text."""

import pytest

import rocjit
from conftest import AXPY, run_python


def test_bad_source_raises_compile_error_with_the_compiler_message(ctx):
    with pytest.raises(rocjit.CompileError) as info:
        ctx.compile("this is not C++;", name="bad.hip")
    e = info.value
    assert isinstance(e, rocjit.RocjitError)
    assert e.code == rocjit.ECOMPILE and e.name == "compile error"
    assert "bad.hip:1:1: error:" in e.message  # the first diagnostic, FILE:LINE:COL
    assert "bad.hip did not compile for gfx90a" in str(e)
    assert "this is not C++;" in e.log  # the whole compiler log, source line included
    assert ctx.stats().compile_errors == 1


def test_unknown_target_raises_unsupported(ctx):
    with pytest.raises(rocjit.UnsupportedError, match="gfx9999") as info:
        ctx.compile(AXPY, name="axpy.hip", target="gfx9999")
    assert info.value.code == rocjit.EUNSUPPORTED
    assert "gfx90a" in info.value.message  # it lists what the compiler supports


def test_target_that_names_no_platform_is_refused(ctx):
    with pytest.raises(rocjit.RocjitError, match="nonsense"):
        ctx.compile(AXPY, name="axpy.hip", target="nonsense")


def test_target_option_is_invalid(ctx):
    with pytest.raises(rocjit.InvalidArgumentError) as info:
        ctx.compile(AXPY, name="axpy.hip", options=["--offload-arch=gfx90a"])
    assert isinstance(info.value, ValueError) and info.value.code == rocjit.EINVAL


def test_find_unknown_and_malformed_prefix(ctx):
    ctx.compile(AXPY, name="axpy.hip")
    key = ctx.entries()[0].key
    other = "0000" if not key.startswith("0000") else "ffff"
    with pytest.raises(rocjit.NotFoundError):
        ctx.find(other)
    with pytest.raises(rocjit.InvalidArgumentError):
        ctx.find("zz")


def test_closed_context_refuses_calls(cache, hiprtc):
    ctx = rocjit.Context(cache_dir=cache, target="gfx90a", remote="")
    ctx.close()
    ctx.close()  # twice is fine
    assert ctx.closed
    with pytest.raises(rocjit.InvalidArgumentError, match="closed"):
        ctx.stats()


def test_bad_open_options_raise(lib):
    with pytest.raises(rocjit.InvalidArgumentError, match="remote"):
        rocjit.Context(remote="http://not-redis", no_cache=True)


def test_every_code_has_its_class_and_name(lib):
    for code, cls in rocjit._errors.BY_CODE.items():
        e = rocjit._errors.error_for(code, "m", rocjit.strerror(code))
        assert type(e) is cls and e.code == code and issubclass(cls, rocjit.RocjitError)
        assert e.name and "unknown" not in e.name.lower()


def test_missing_library_says_what_to_set(tmp_path):
    out = run_python("import rocjit; rocjit.Context()",
                     ROCJIT_LIBRARY=str(tmp_path / "librocjit.so.0"))
    assert out.returncode != 0
    assert "LibraryNotFoundError" in out.stderr and "set ROCJIT_LIBRARY" in out.stderr


def test_grid_and_stream_arguments_are_checked_before_any_call():
    # (kernel arguments: tests/test_args.py)
    from rocjit._core import _dim3, _stream

    assert tuple(getattr(_dim3((4, 2), "grid"), a) for a in "xyz") == (4, 2, 1)
    with pytest.raises(ValueError):
        _dim3((1, 2, 3, 4), "grid")

    class CupyLike:
        ptr = 0xABC

    class Protocol:
        def __cuda_stream__(self):
            return (0, 0xDEF)

    assert _stream(0) is None and _stream(None) is None
    assert _stream(CupyLike()) == 0xABC and _stream(Protocol()) == 0xDEF and _stream(5) == 5
    with pytest.raises(TypeError):
        _stream("default")
