#!/bin/sh
# The test command (README.md, .ci/run): installs the dependencies, builds with
# warnings as errors, runs every test that needs no GPU.
set -eu
cd "$(dirname "$0")/.."
tools/install-deps.sh
build=${ROCJIT_BUILD_DIR:-build}
cmake -S . -B "$build" -DROCJIT_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" -j"$(nproc)" --output-on-failure -LE gpu
