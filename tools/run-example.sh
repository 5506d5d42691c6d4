#!/bin/sh
# The main job (README.md): installs the dependencies, builds, and runs the example
# twice: on a machine without a GPU the first run compiles the bundled kernels for
# ${1:-gfx90a} and the second is served from the cache.
set -eu
cd "$(dirname "$0")/.."
tools/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$(nproc)" --target hello_kernels
echo "== first run"
build/examples/hello_kernels "${1:-gfx90a}"
echo "== second run"
build/examples/hello_kernels "${1:-gfx90a}"
