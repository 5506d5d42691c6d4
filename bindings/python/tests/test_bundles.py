"""Bundles, signing and pushing from Python, with no GPU (compiles for gfx90a): a key pair,
entries signed and exported, imported where their signer is trusted and refused where it
is not, a bundle signed in place, and a push with no remote tier refused."""

import pytest
from conftest import AXPY

import rocjit


def test_a_signed_bundle_is_taken_where_its_signer_is_trusted_only(tmp_path, hiprtc):
    ci = rocjit.keygen("ci", tmp_path)
    other = rocjit.keygen("other", tmp_path)
    assert ci.startswith("ci:") and (tmp_path / "ci.secret").exists()
    with pytest.raises(rocjit.RocjitIOError, match="ci"):
        rocjit.keygen("ci", tmp_path)  # never overwrites a key

    bundle = tmp_path / "kernels.rjb"
    with rocjit.Context(cache_dir=tmp_path / "a", target="gfx90a", remote="",
                        signing_key=tmp_path / "ci.secret") as a:
        key = a.compile(AXPY, name="axpy.hip").key
        assert a.sign() == 1 and a.sign([key]) == 1
        assert a.export_bundle(bundle, [key]) == 1
        assert a.sign_bundle(bundle) == 1
        with pytest.raises(rocjit.InvalidArgumentError, match="remote"):
            a.push([key])

    with rocjit.Context(cache_dir=tmp_path / "b", target="gfx90a", remote="",
                        trusted_keys=ci) as b:
        assert b.import_bundle(bundle) == rocjit.Transfer(1, 0, [])
        assert [e.key for e in b.entries()] == [key]
        assert b.compile(AXPY, name="axpy.hip").from_cache

    with rocjit.Context(cache_dir=tmp_path / "c", target="gfx90a", remote="",
                        trusted_keys=other) as c:
        got = c.import_bundle(bundle)
        assert got.done == 0 and [k for k, _ in got.refused] == [key], got
        assert c.entries() == []
