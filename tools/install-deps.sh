#!/bin/sh
# Installs what building and testing rocjit needs on Debian 12 (root or sudo).
# Idempotent: a no-op when everything is there.
set -eu
# libhiredis-dev: the remote tier's client (src/remote/conn.c); redis-server (with
# redis-tools' redis-cli, which makes a cluster): its tests start their own servers
# (tests/redis_server.c).  libsodium-dev: signed code objects (src/sign/sign.c).
# python3-pytest, python3-numpy: the Python binding's tests (bindings/python; NumPy scalars
# as kernel arguments); python3-venv: installing it offline (its in-tree build backend needs
# no setuptools or wheel).  rustc, cargo (Debian's 1.63): the Rust crates
# (bindings/rust), always: their tests run with that toolchain, the crates' minimum
# (tools/test-bindings.sh), whatever newer one (rustup's) is also on PATH.
# librocprim-dev (header-only): the CUB subset rocjit serves on AMD is built on it
# (src/compile/devlib/cuda/cub; tests/test_cub.c skips without it).  llvm (Debian 12: 14):
# /usr/bin/llvm-readelf, the independent reading of AMDGPU metadata tests/test_resources.c
# checks rocjit's kernel resources against.  help2man: the man page rocjit.1, made from
# `rocjit --help` at build time (cli/man.cmake; skipped with a message without it).  zsh:
# tests/test_cli_ux.c runs the zsh completion script in it (skipped without).  clang: the
# preprocessor tests/test_reach.c holds the include scanner to (every header it reads).
pkgs="cmake make gcc g++ pkg-config libamdhip64-dev libsqlite3-dev libxxhash-dev python3
      libhiredis-dev redis-server redis-tools libsodium-dev python3-pytest python3-numpy
      python3-venv librocprim-dev llvm rustc cargo help2man zsh clang"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
