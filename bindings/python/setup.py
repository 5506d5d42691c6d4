# The rocjit package: ctypes bindings of librocjit (standard library only).
#
# A setup.py and no pyproject.toml, on purpose: with a pyproject.toml, pip builds in an
# isolated environment and downloads setuptools for it, which an offline machine cannot;
# without one it builds with the setuptools already installed, so `pip install
# bindings/python` works offline (Debian 12's pip 23.0 and setuptools 66).
from setuptools import setup

with open("README.md", encoding="utf-8") as f:
    long_description = f.read()

setup(
    name="rocjit",
    version="0.1.0",
    description="Python bindings of librocjit: compile HIP/CUDA kernels at first use, "
    "cache the code objects in SQLite",
    long_description=long_description,
    long_description_content_type="text/markdown",
    packages=["rocjit"],
    python_requires=">=3.8",
    extras_require={"test": ["pytest"]},
    classifiers=[
        "Programming Language :: Python :: 3",
        "Operating System :: POSIX :: Linux",
    ],
)
