"""The rocjit package's PEP 517 build backend: builds its wheel and sdist itself.

Owns the package's metadata and the wheel's format (PEP 427: a zip of the package, plus a
.dist-info holding METADATA, WHEEL and RECORD).  Standard library only, so that pip needs
no build requirement, and no network, in any environment: rocjit is pure Python (ctypes),
and what setuptools would add here is the one thing an offline machine cannot fetch.
Output is reproducible: fixed timestamps (SOURCE_DATE_EPOCH when set), sorted entries.
PEP 660's editable install is a wheel whose .pth file puts this folder on sys.path.
"""

import base64
import hashlib
import io
import os
import re
import tarfile
import time
import zipfile

NAME = "rocjit"
SUMMARY = ("Python bindings of librocjit: compile HIP/CUDA kernels at first use, cache the "
           "code objects in SQLite")
REQUIRES_PYTHON = ">=3.8"
CLASSIFIERS = ("Programming Language :: Python :: 3", "Operating System :: POSIX :: Linux")
TAG = "py3-none-any"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _version():
    with open(os.path.join(ROOT, NAME, "__init__.py"), encoding="utf-8") as f:
        m = re.search(r'^__version__ = "([^"]+)"', f.read(), re.M)
    if not m:
        raise RuntimeError(f"{NAME}/__init__.py has no __version__ = \"...\" line")
    return m.group(1)


def _dist_info():
    return f"{NAME}-{_version()}.dist-info"


def _metadata():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    lines = ["Metadata-Version: 2.1", f"Name: {NAME}", f"Version: {_version()}",
             f"Summary: {SUMMARY}", f"Requires-Python: {REQUIRES_PYTHON}"]
    lines += [f"Classifier: {c}" for c in CLASSIFIERS]
    lines += ["Provides-Extra: test", 'Requires-Dist: pytest; extra == "test"',
              "Description-Content-Type: text/markdown"]
    return ("\n".join(lines) + "\n\n" + readme).encode("utf-8")


def _wheel_file():
    return (f"Wheel-Version: 1.0\nGenerator: {NAME}_build\nRoot-Is-Purelib: true\n"
            f"Tag: {TAG}\n").encode()


def _package_files():
    """(archive name, path) of every file of the package, sorted; no caches."""
    out = []
    for folder, dirs, files in os.walk(os.path.join(ROOT, NAME)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for f in sorted(files):
            if not f.endswith((".pyc", ".pyo")):
                path = os.path.join(folder, f)
                out.append((os.path.relpath(path, ROOT).replace(os.sep, "/"), path))
    return out


def _epoch():
    """Every member's time: SOURCE_DATE_EPOCH, else (and at least) 1980, zip's first."""
    return max(int(os.environ.get("SOURCE_DATE_EPOCH", 315532800)), 315532800)


def _write_wheel(wheel_directory, members):
    """Writes the wheel of members [(archive name, bytes)] plus the .dist-info; returns
    its file name."""
    dist_info = _dist_info()
    members = list(members) + [(f"{dist_info}/METADATA", _metadata()),
                               (f"{dist_info}/WHEEL", _wheel_file())]
    record = []
    for name, data in members:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
        record.append(f"{name},sha256={digest.decode()},{len(data)}")
    record.append(f"{dist_info}/RECORD,,")
    members.append((f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode()))
    filename = f"{NAME}-{_version()}-{TAG}.whl"
    when = time.gmtime(_epoch())[:6]
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w",
                         zipfile.ZIP_DEFLATED) as z:
        for name, data in members:
            info = zipfile.ZipInfo(name, when)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    return filename


def _read(path):
    with open(path, "rb") as f:
        return f.read()


# ---- PEP 517 hooks --------------------------------------------------------------------------


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    dist_info = _dist_info()
    os.makedirs(os.path.join(metadata_directory, dist_info), exist_ok=True)
    for name, data in (("METADATA", _metadata()), ("WHEEL", _wheel_file())):
        with open(os.path.join(metadata_directory, dist_info, name), "wb") as f:
            f.write(data)
    return dist_info


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, [(n, _read(p)) for n, p in _package_files()])


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, [(f"{NAME}.pth", (ROOT + "\n").encode())])


def build_sdist(sdist_directory, config_settings=None):
    base = f"{NAME}-{_version()}"
    files = [("pyproject.toml", os.path.join(ROOT, "pyproject.toml")),
             ("README.md", os.path.join(ROOT, "README.md")),
             ("build_backend/rocjit_build.py", os.path.abspath(__file__))]
    files += _package_files()
    pkg_info = _metadata()
    filename = f"{base}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz",
                      format=tarfile.PAX_FORMAT) as tar:
        for name, data in [("PKG-INFO", pkg_info)] + [(n, _read(p)) for n, p in files]:
            info = tarfile.TarInfo(f"{base}/{name}")
            info.size, info.mode, info.mtime = len(data), 0o644, _epoch()
            tar.addfile(info, io.BytesIO(data))
    return filename
