"""The in-tree build backend (build_backend/rocjit_build.py), called as pip calls it: the
wheel holds the package and a .dist-info whose RECORD hashes match, the sdist holds what
builds the wheel again, and both are the same bytes twice.  tools/test-bindings.sh installs
it with pip into a venv without setuptools or wheel."""

import base64
import hashlib
import importlib.util
import tarfile
import zipfile
from pathlib import Path

import pytest
from conftest import PKG_DIR

import rocjit


@pytest.fixture(scope="module")
def backend():
    spec = importlib.util.spec_from_file_location(
        "rocjit_build", PKG_DIR / "build_backend" / "rocjit_build.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_pyproject_names_the_in_tree_backend_and_no_requirement():
    text = (PKG_DIR / "pyproject.toml").read_text()
    assert "requires = []" in text and 'build-backend = "rocjit_build"' in text
    assert 'backend-path = ["build_backend"]' in text


def test_the_wheel_holds_the_package_and_a_matching_record(backend, tmp_path):
    assert backend.get_requires_for_build_wheel() == []
    name = backend.build_wheel(str(tmp_path))
    assert name == f"rocjit-{rocjit.__version__}-py3-none-any.whl"
    dist_info = f"rocjit-{rocjit.__version__}.dist-info"
    with zipfile.ZipFile(tmp_path / name) as z:
        names = set(z.namelist())
        assert {"rocjit/__init__.py", "rocjit/_core.py", "rocjit/_args.py",
                "rocjit/_raw.py"} <= names
        assert not any("__pycache__" in n for n in names)
        meta = z.read(f"{dist_info}/METADATA").decode()
        assert f"Name: rocjit\nVersion: {rocjit.__version__}\n" in meta
        assert "Tag: py3-none-any" in z.read(f"{dist_info}/WHEEL").decode()
        rows = [r.split(",") for r in z.read(f"{dist_info}/RECORD").decode().splitlines()]
        assert {r[0] for r in rows} == names
        for path, digest, size in rows:
            if path.endswith("RECORD"):
                assert digest == size == ""
                continue
            data = z.read(path)
            want = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            assert (digest, int(size)) == ("sha256=" + want.decode(), len(data)), path
    again = tmp_path / "again"
    again.mkdir()
    backend.build_wheel(str(again))
    assert (again / name).read_bytes() == (tmp_path / name).read_bytes()


def test_the_sdist_and_the_editable_wheel(backend, tmp_path):
    name = backend.build_sdist(str(tmp_path))
    base = f"rocjit-{rocjit.__version__}"
    with tarfile.open(tmp_path / name) as t:
        names = set(t.getnames())
    assert {f"{base}/pyproject.toml", f"{base}/build_backend/rocjit_build.py",
            f"{base}/rocjit/__init__.py", f"{base}/PKG-INFO"} <= names
    name = backend.build_editable(str(tmp_path))
    with zipfile.ZipFile(tmp_path / name) as z:
        assert Path(z.read("rocjit.pth").decode().strip()).resolve() == PKG_DIR
