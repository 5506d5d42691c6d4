"""Compiling for gfx90a with the real hipRTC, on a machine without a GPU."""

import json
import threading

import pytest

import rocjit
from conftest import AXPY, run_python


def test_compile_for_gfx90a_gives_an_amdgpu_code_object(ctx):
    code = ctx.compile(AXPY, name="axpy.hip")
    assert code.data[:4] == b"\x7fELF"
    assert code.target == "gfx90a"
    assert len(code.key) == 32 and int(code.key, 16) >= 0
    assert code.from_cache is False and code.compile_ms > 0
    assert code.kernels == ["axpy"]
    info = rocjit.inspect(code.data)
    assert info.platform == rocjit.PLATFORM_AMD and info.target.startswith("gfx90a")
    s = ctx.stats()
    assert (s.misses, s.compiles, s.stores, s.entries) == (1, 1, 1, 1)
    assert s.bytes == code.size


def test_compile_again_in_the_same_context_is_a_memory_hit(ctx):
    first = ctx.compile(AXPY, name="axpy.hip")
    again = ctx.compile(AXPY, name="axpy.hip")
    assert again.key == first.key and again.data == first.data
    s = ctx.stats()
    assert (s.compiles, s.memory_hits) == (1, 1)


def test_a_second_process_is_served_from_the_disk_cache(ctx, cache):
    first = ctx.compile(AXPY, name="axpy.hip")
    out = run_python(
        f"""
import json, rocjit
with rocjit.Context(cache_dir={str(cache)!r}, target="gfx90a", remote="") as ctx:
    code = ctx.compile({AXPY!r}, name="axpy.hip")
    s = ctx.stats()
    print(json.dumps(dict(key=code.key, from_cache=code.from_cache, disk_hits=s.disk_hits,
                          compiles=s.compiles, misses=s.misses, data=code.data.hex())))
"""
    )
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["key"] == first.key
    assert got["from_cache"] is True
    assert (got["disk_hits"], got["compiles"], got["misses"]) == (1, 0, 0)
    assert bytes.fromhex(got["data"]) == first.data
    # The child wrote its hit into the cache's counters when it exited.
    assert ctx.counters().disk_hits >= 1
    assert ctx.entries()[0].hits >= 1


def test_name_expressions_give_lowered_names(ctx):
    src = "template <typename T, int N> __global__ void scale(T *x) { x[0] *= N; }"
    code = ctx.compile(src, name="scale.hip", name_expressions=["scale<float, 4>"])
    lowered = code.lowered_names["scale<float, 4>"]
    assert lowered.startswith("_Z") and code.kernels == [lowered]
    (entry,) = ctx.entries()
    assert entry.name_expressions == {"scale<float, 4>": lowered}


def test_options_and_headers_are_part_of_the_key(ctx):
    src = '#include "factor.h"\nextern "C" __global__ void k(float *x) { x[0] *= FACTOR * N; }'
    a = ctx.compile(src, name="k.hip", options=["-DN=2"], headers={"factor.h": "#define FACTOR 3"})
    b = ctx.compile(src, name="k.hip", options=["-DN=3"], headers={"factor.h": "#define FACTOR 3"})
    c = ctx.compile(src, name="k.hip", options=["-DN=2"], headers=[("factor.h", "#define FACTOR 4")])
    assert len({a.key, b.key, c.key}) == 3
    entries = {e.key: e for e in ctx.entries()}
    assert entries[a.key].headers == ["factor.h"] and "-DN=2" in entries[a.key].options


def test_options_must_be_a_list_not_one_string(ctx):
    with pytest.raises(TypeError, match="sequence of strings"):
        ctx.compile(AXPY, name="axpy.hip", options="-O2 -DN=4")


def test_registered_source_compiles_by_name(ctx):
    rocjit.register_sources({"pytest/reg_axpy.hip": AXPY})
    code = ctx.compile(registered="pytest/reg_axpy.hip")
    assert code.kernels == ["axpy"]
    assert ctx.entries()[0].source_name == "pytest/reg_axpy.hip"
    with pytest.raises(rocjit.NotFoundError):
        ctx.compile(registered="pytest/never_registered.hip")


def test_cuda_source_compiles_for_amd(ctx):
    src = 'extern "C" __global__ void k(float *x) { x[threadIdx.x] = __saturatef(x[0]); }'
    code = ctx.compile(src, name="k.cu")
    assert code.kernels == ["k"]
    assert ctx.compile(src, name="k.cu", language="hip").key != code.key


def test_threads_compile_at_once(ctx):
    results, errors = {}, []

    def work(i):
        try:
            src = f'extern "C" __global__ void k{i}(float *x) {{ x[0] = {i}; }}'
            results[i] = ctx.compile(src, name=f"k{i}.hip").kernels
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert results == {i: [f"k{i}"] for i in range(3)}


def test_get_kernel_without_a_gpu_says_no_device(ctx):
    if rocjit.device_count() > 0:
        pytest.skip("a GPU is present")
    with pytest.raises(rocjit.NoDeviceError, match="GPU"):
        ctx.get_kernel(AXPY, "axpy", name="axpy.hip")


def test_memory_only_context_compiles_without_a_cache(hiprtc):
    with rocjit.Context(target="gfx90a", no_cache=True, remote="") as ctx:
        assert ctx.compile(AXPY, name="axpy.hip").kernels == ["axpy"]
        assert ctx.stats().cache_open == 0
        with pytest.raises(rocjit.RocjitIOError):
            ctx.entries()


def test_no_compile_context_refuses_a_miss(cache, hiprtc):
    with rocjit.Context(cache_dir=cache, target="gfx90a", no_compile=True, remote="") as ctx:
        with pytest.raises(rocjit.NotCachedError):
            ctx.compile(AXPY, name="axpy.hip")


def test_module_calls(lib, hiprtc):
    assert rocjit.version().startswith("0.1.")
    assert "gfx90a" in rocjit.compiler_targets("amd")
    assert rocjit.normalize_target("gfx90a:xnack-:sramecc+") == "gfx90a:sramecc+:xnack-"
    assert rocjit.target_platform("sm_90") == rocjit.PLATFORM_NVIDIA
    assert rocjit.target_platform("gfx90a") == rocjit.PLATFORM_AMD
    assert rocjit.strerror(rocjit.ECOMPILE) == "compile error"
    assert rocjit.cache_dir("/x/y") == "/x/y"
