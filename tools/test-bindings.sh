#!/bin/sh
# The bindings' tests against the library of a build folder (tools/test.sh runs it after
# the C tests): the Rust crates (cargo test, offline, no registry) and the Python package
# (pytest, then an offline pip install into a venv without setuptools or wheel, and an
# import from outside the tree).
#
#   tools/test-bindings.sh [BUILD]      (default: build)
set -eu
cd "$(dirname "$0")/.."
lib=$(cd "${1:-build}" && pwd)
# Debian's python3, which has python3-pytest (install-deps.sh), before any other on PATH.
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3

# Debian's cargo and rustc (1.63, the crates' rust-version) where installed, so that the
# minimum is what is tested: /usr/bin first on PATH makes cargo run that rustc, RUSTC and
# RUSTDOC pin it against a rustup toolchain's environment.  Else whatever is on PATH.
echo "== Rust bindings (cargo test)"
(
	cd bindings/rust
	if [ -x /usr/bin/cargo ] && [ -x /usr/bin/rustc ]; then
		PATH=/usr/bin:$PATH RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc
		export PATH RUSTC RUSTDOC
	fi
	echo "$(cargo --version), $(rustc --version)"
	CARGO_HOME="$PWD/target/cargo-home" ROCJIT_LIB_DIR="$lib" \
		ROCJIT_INCLUDE_DIR="$PWD/../../include" cargo test --offline --locked
)

echo "== Python bindings (pytest)"
ROCJIT_LIBRARY="$lib/librocjit.so" "$py" -m pytest -p no:cacheprovider -q -rs \
	bindings/python/tests
venv="$lib/pyvenv"
rm -rf "$venv"
"$py" -m venv "$venv"
# As a venv of a non-Debian Python can be: no setuptools, no wheel.  The package builds
# with its in-tree backend (bindings/python/pyproject.toml) and needs neither.
"$venv/bin/pip" uninstall -q -y setuptools wheel 2>/dev/null || true
if "$venv/bin/python" -c 'import setuptools' 2>/dev/null ||
	"$venv/bin/python" -c 'import wheel' 2>/dev/null; then
	echo "test-bindings.sh: setuptools or wheel is still in $venv" >&2
	exit 1
fi
# --no-index: as offline as a machine without a network (nothing may be downloaded).
"$venv/bin/pip" install -q --no-index bindings/python
(cd / && ROCJIT_LIBRARY="$lib/librocjit.so" "$venv/bin/python" -c \
	'import rocjit; print("installed rocjit package, library version", rocjit.version())')
