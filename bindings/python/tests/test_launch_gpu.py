"""What a launch needs beyond grid and block, on a GPU (issue 29): module variables
written and read through rocjit around a launch, occupancy and the suggested block size
against the kernel's launch bound, a cooperative launch with a grid-wide barrier, native
handles.  Self-contained: the kernels work on their module's own variables, so no CuPy
is needed.  Skipped without a GPU."""

import array

import pytest
from conftest import COOP, TABLE, TILE, resources_or_skip

import rocjit

pytestmark = pytest.mark.gpu


def test_a_constant_table_written_through_rocjit_is_what_the_kernel_reads(gpu):
    k = gpu.get_kernel(TABLE, "scale_table", name="table.cu")
    var = k.get_global("table")
    assert var.address != 0 and var.size == 64 * 4
    with pytest.raises(rocjit.NotFoundError, match="table"):
        k.get_global("no_such_table")
    with pytest.raises(rocjit.InvalidArgumentError):
        k.write_global("table", bytes(64), offset=200)

    table = array.array("f", [0.5 + i for i in range(64)])
    k.write_global("table", table)
    k.launch(1, 64, [rocjit.f32(3.0)])
    # Synchronous, on the null stream: after the launch.
    out = k.read_global("scaled", array.array("f", bytes(256)))
    assert list(out) == [t * 3.0 for t in table]
    assert k.read_global("table", offset=63 * 4) == table[63:].tobytes()
    tail = bytearray(8)
    assert k.read_global("table", tail, offset=32 * 4) is tail
    assert tail == table[32:34].tobytes()


def test_occupancy_block_size_attributes_and_native_handles(gpu):
    k = gpu.get_kernel(TILE, "tile_flip", name="tile.hip")
    assert k.occupancy(128) > 0
    b = k.suggested_block_size()
    assert 0 < b.block_threads <= 128 and b.min_grid_blocks > 0, b
    assert k.suggested_block_size(block_limit=64).block_threads <= 64
    assert 0 < k.attribute(rocjit.Attribute.MAX_THREADS_PER_BLOCK) <= 128
    assert k.attribute(rocjit.ATTR_SHARED_BYTES) == 1024
    k.set_attribute(rocjit.Attribute.MAX_DYNAMIC_SHARED_BYTES, 1024)
    assert k.attribute(rocjit.Attribute.MAX_DYNAMIC_SHARED_BYTES) >= 1024
    with pytest.raises(rocjit.InvalidArgumentError):
        k.set_attribute(rocjit.Attribute.MAX_DYNAMIC_SHARED_BYTES, 1 << 30)

    n = k.native()
    assert n.function != 0 and n.module != 0, n
    assert n.platform in (rocjit.PLATFORM_AMD, rocjit.PLATFORM_NVIDIA) and n.device >= 0

    r = resources_or_skip(k.resources)
    assert (r.shared_bytes, r.max_threads, r.platform) == (1024, 128, n.platform)


def test_a_cooperative_launch_synchronizes_the_whole_grid(gpu):
    k = gpu.get_kernel(COOP, "rotate", name="coop.cu")
    assert k.occupancy(128) > 0
    k.launch_cooperative(8, 128, [rocjit.u32(5)])  # 1024 threads: the variables' size
    seen = k.read_global("seen", array.array("I", bytes(4096)))
    assert list(seen) == [((i + 128) % 1024) * 7 + 5 for i in range(1024)]
    # A grid that cannot be resident at once is refused, saying how many blocks fit.
    with pytest.raises(rocjit.InvalidArgumentError, match="at most"):
        k.launch_cooperative(1 << 20, 128, [rocjit.u32(5)])


def test_calls_after_close_are_refused(gpu, cache):
    ctx = rocjit.Context(cache_dir=cache, remote="")
    k = ctx.get_kernel(TABLE, "scale_table", name="table.cu")
    ctx.close()
    with pytest.raises(rocjit.InvalidArgumentError, match="closed"):
        k.native()
    with pytest.raises(rocjit.InvalidArgumentError, match="closed"):
        k.launch_cooperative(1, 1, [rocjit.f32(0)])
