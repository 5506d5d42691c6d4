"""CuPy's shapes with no GPU: RawModule / RawKernel compile for a given target (hipRTC and
NVRTC), what they refuse, CodeObject.from_cache on an in-memory hit, and error hints in
Python's terms.  Launching them is tests/test_gpu.py's and examples/cupy_style.py's."""

import io

import pytest
from conftest import AXPY

import rocjit

TEMPLATE = AXPY + r"""
template <typename T>
__global__ void scale(T *x, T a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] *= a;
}
__device__ float bias[4];
"""


@pytest.mark.parametrize("target, compiler", [("gfx90a", "hiprtc"), ("sm_90", "nvrtc")])
def test_a_raw_module_compiles_for_a_target_with_no_gpu(request, cache, target, compiler):
    request.getfixturevalue(compiler)
    with rocjit.Context(cache_dir=cache, remote="") as ctx:
        mod = rocjit.RawModule(code=TEMPLATE, options=("-DUNUSED=1",),
                               name_expressions=["scale<float>"], context=ctx)
        log = io.StringIO()
        code = mod.compile(log, target=target)
        assert code.target.startswith(target) and not code.from_cache
        assert "axpy" in code.kernels
        lowered = code.lowered_names["scale<float>"]
        assert lowered.startswith("_Z") and lowered in code.kernels
        assert mod.compile(target=target).from_cache  # the context's in-memory table
        k = rocjit.RawKernel(AXPY, "axpy", context=ctx)
        assert (k.name, k.code, k.options) == ("axpy", AXPY, ())
        assert "axpy" in k.compile(target=target).kernels


def test_what_rocjit_cannot_do_of_cupys_keywords_is_refused_saying_so():
    for kw, what in (({"backend": "nvcc"}, "backend"), ({"jitify": True}, "jitify"),
                     ({"translate_cucomplex": True}, "translate_cucomplex")):
        with pytest.raises(ValueError, match=what):
            rocjit.RawModule(code=AXPY, **kw)
    with pytest.raises(TypeError, match="code .* or path"):
        rocjit.RawModule()


def test_a_raw_module_reads_path_and_takes_its_name(tmp_path, ctx):
    f = tmp_path / "k.hip"
    f.write_text(AXPY)
    mod = rocjit.RawModule(path=f, context=ctx, backend="hiprtc")
    assert mod.name == "k.hip"
    assert mod.compile().kernels == ["axpy"]


def test_without_a_gpu_get_function_says_how_to_compile_anyway(cache, hiprtc, lib):
    if rocjit.device_count() > 0:
        pytest.skip("this machine has a GPU")
    with rocjit.Context(cache_dir=cache, remote="") as ctx:
        with pytest.raises(rocjit.NoDeviceError, match="target="):
            rocjit.RawModule(code=AXPY, context=ctx).get_function("axpy")


def test_from_cache_is_true_on_a_repeat_and_on_a_disk_hit(cache, hiprtc):
    with rocjit.Context(cache_dir=cache, target="gfx90a", remote="") as ctx:
        first = ctx.compile(AXPY, name="axpy.hip")
        again = ctx.compile(AXPY, name="axpy.hip")
        assert (first.from_cache, again.from_cache) == (False, True)
        assert again.key == first.key and ctx.stats().compiles == 1
    with rocjit.Context(cache_dir=cache, target="gfx90a", remote="") as ctx:
        assert ctx.compile(AXPY, name="axpy.hip").from_cache


def test_error_hints_name_the_python_parameters(ctx):
    with pytest.raises(rocjit.InvalidArgumentError) as e:
        ctx.compile(AXPY, name="axpy.hip", options=["--offload-arch=gfx908"])
    assert "target=" in e.value.message and "rocjit_options" not in str(e.value)
    assert "rocjit_options.target" in e.value.c_message
    assert rocjit._errors.python_terms(
        "list it in rocjit_program.name_expressions; use rocjit_compile, "
        "rocjit_compile_registered or ROCJIT_OPEN_NO_COMPILE (ROCJIT_NO_COMPILE)") == (
        "list it in name_expressions=; use Context.compile, rocjit_compile_registered or "
        "no_compile=True (ROCJIT_NO_COMPILE)")
