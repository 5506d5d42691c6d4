#!/bin/sh
# The test command (README.md, .ci/run): installs the dependencies, builds with
# warnings as errors, runs every test that needs no GPU and the bindings' tests (cargo
# test, pytest: tools/test-bindings.sh); then the whole suite again under
# AddressSanitizer + UndefinedBehaviorSanitizer and the threaded tests under
# ThreadSanitizer (ROCJIT_SANITIZERS=0 skips those two).
set -eu
cd "$(dirname "$0")/.."
tools/install-deps.sh
build=${ROCJIT_BUILD_DIR:-build}
cmake -S . -B "$build" -DROCJIT_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" -j"$(nproc)" --output-on-failure -LE gpu
tools/test-bindings.sh "$build"

if [ "${ROCJIT_SANITIZERS:-1}" != 0 ]; then
	echo "== AddressSanitizer + UndefinedBehaviorSanitizer"
	# Every test process gets ASAN_OPTIONS=use_sigaltstack=0 from CMakeLists.txt
	# (ROCJIT_TEST_ENV): with ASan's alternate signal stack, threads that compile fail at
	# exit on CPUs with large signal frames (AVX-512), because LLVM in comgr replaces the
	# stack.  Without it, this pass behaves the same on every x86-64 CPU.
	cmake -S . -B "$build-asan" -DROCJIT_WERROR=ON -DCMAKE_BUILD_TYPE=Debug \
		-DROCJIT_SANITIZE=address,undefined -DROCJIT_BUILD_BENCH=OFF
	cmake --build "$build-asan" -j"$(nproc)"
	# The package tests install and build a separate project (not instrumented: the
	# package test, and the signed bundle rocjit_add_kernels builds); the
	# kill -9 trials measure crashes, not memory errors: both run in the plain build, as
	# do the compiles of the whole op set (minutes of uninstrumented compiler time).
	ctest --test-dir "$build-asan" -j"$(nproc)" --output-on-failure -LE gpu \
		-E 'package|signed_bundle_from_rocjit_add_kernels|kill_9|every_file_compiles|projects_kernel_folder'
	echo "== ThreadSanitizer"
	# Not the fork tests: a child forked while another thread runs inherits that thread's
	# shadow state but not the thread, which TSan reports as races it cannot order (its
	# documentation lists fork from a threaded process as unsupported).  They run in the
	# plain and the ASan+UBSan passes; so do the remote tier's tests whose nodes are
	# forked processes (the remote tests named here run their nodes in one process, the
	# lease thread and the compile workers beside the requesting thread).
	cmake -S . -B "$build-tsan" -DROCJIT_WERROR=ON -DCMAKE_BUILD_TYPE=Debug \
		-DROCJIT_SANITIZE=thread -DROCJIT_BUILD_BENCH=OFF -DROCJIT_BUILD_EXAMPLES=OFF
	cmake --build "$build-tsan" -j"$(nproc)"
	ctest --test-dir "$build-tsan" -j"$(nproc)" --output-on-failure -LE gpu \
		-R 'thread|race|stampede|holder|recent|registry|log_callback|cache\.|workers\.|cli\.prewarm|remote\.(server_killed|stopped|unanswered|planted|readonly|lock_of|failed_holder|lease|unix|cluster|no_wait|ttl)' \
		-E 'fork'
fi
