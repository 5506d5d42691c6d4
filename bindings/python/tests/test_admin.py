"""Cache administration on a temporary cache: entries, find, remove, purge, verify,
compact, counters, zero."""

import sqlite3

import pytest

import rocjit
from conftest import AXPY

SCALE = 'extern "C" __global__ void scale(float *x, float a) { x[threadIdx.x] *= a; }'


def _two(ctx):
    return ctx.compile(AXPY, name="axpy.hip"), ctx.compile(SCALE, name="scale.hip")


def test_entries_list_what_was_compiled(ctx):
    a, s = _two(ctx)
    entries = ctx.entries()
    assert [e.key for e in entries] == sorted([a.key, s.key])
    e = {e.key: e for e in entries}[a.key]
    assert (e.platform, e.target, e.source_name, e.kernels) == ("amd", "gfx90a", "axpy.hip",
                                                                ["axpy"])
    assert e.size == a.size and e.compiler == rocjit.compiler_identity("amd")
    assert e.options == "-O3" and e.headers == [] and len(e.pkey) == 32
    assert e.signer == "" and e.signature == rocjit.SIGNATURE_NONE
    assert e.created > 0 and e.compile_ms > 0


def test_find_gives_the_entry_and_its_code(ctx):
    a, _ = _two(ctx)
    entry, code = ctx.find(a.key[:8])
    assert entry.key == a.key and code == a.data


def test_remove_takes_keys_or_entries(ctx):
    a, s = _two(ctx)
    assert ctx.remove(a.key) == 1
    assert ctx.remove([a.key]) == 0  # gone already
    assert [e.key for e in ctx.entries()] == [s.key]
    assert ctx.remove(ctx.entries()) == 1
    assert ctx.entries() == []


def test_purge_removes_what_the_predicate_picks(ctx):
    a, s = _two(ctx)
    would = ctx.purge(lambda e: "scale" in e.kernels, dry_run=True)
    assert [e.key for e in would] == [s.key] and len(ctx.entries()) == 2
    gone = ctx.purge(lambda e: "scale" in e.kernels)
    assert [e.key for e in gone] == [s.key]
    assert [e.key for e in ctx.entries()] == [a.key]
    assert len(ctx.purge()) == 1 and ctx.entries() == []


def test_verify_finds_and_fixes_a_damaged_entry(ctx):
    a, s = _two(ctx)
    result = ctx.verify()
    assert result.ok and result.checked == 2
    db = sqlite3.connect(ctx.stats().cache_path)
    with db:
        db.execute("UPDATE entries SET checksum = checksum + 1 WHERE hex(key) = ?",
                   (a.key.upper(),))
    db.close()
    result = ctx.verify()
    assert result.checked == 2 and not result.ok
    (bad,) = result.bad
    assert bad.entry.key == a.key and bad.reason == rocjit.VERIFY_CHECKSUM and bad.message
    assert len(ctx.entries()) == 2  # verify alone changes nothing
    assert ctx.verify(fix=True).bad[0].entry.key == a.key
    assert [e.key for e in ctx.entries()] == [s.key]
    assert ctx.verify().ok


def test_compact_runs_on_a_cache(ctx):
    _two(ctx)
    ctx.remove([e.key for e in ctx.entries()])
    ctx.compact()
    assert ctx.stats().entries == 0


def test_counters_add_up_across_contexts_and_zero(cache, hiprtc):
    with rocjit.Context(cache_dir=cache, target="gfx90a", remote="") as first:
        first.compile(AXPY, name="axpy.hip")
    with rocjit.Context(cache_dir=cache, target="gfx90a", remote="") as second:
        assert second.compile(AXPY, name="axpy.hip").from_cache
    with rocjit.Context(cache_dir=cache, target="gfx90a", remote="") as ctx:
        c = ctx.counters()
        assert (c.compiles, c.misses, c.disk_hits) == (1, 1, 1)
        assert c.compile_ms > 0 and c.saved_ms > 0 and c.since > 0
        ctx.zero()
        c = ctx.counters()
        assert (c.compiles, c.misses, c.disk_hits, c.compile_ms) == (0, 0, 0, 0.0)
        r = ctx.remote_counters()
        assert r.hits == 0 and r.puts == 0


def test_failure_counters_are_shared_and_zeroed(cache, hiprtc):
    with rocjit.Context(cache_dir=cache, target="gfx90a", remote="") as first:
        with pytest.raises(rocjit.CompileError):
            first.compile('extern "C" __global__ void k() { nope(); }\n', name="bad.hip")
    with rocjit.Context(cache_dir=cache, target="gfx90a", remote="") as ctx:
        c = ctx.counters()
        assert c.compile_errors == 1
        assert (c.evictions, c.signature_rejects, c.remote_errors) == (0, 0, 0)
        ctx.zero()
        assert ctx.counters().compile_errors == 0
