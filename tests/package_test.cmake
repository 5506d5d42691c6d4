# package_test.cmake - installs the build into a fresh prefix, then builds the examples
# against it as a separate project (find_package(rocjit)) and a one-file program with
# pkg-config, and runs both.  Called by ctest (tests/CMakeLists.txt) with BUILD_DIR,
# SOURCE_DIR and WORK_DIR.

function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGV}")
    message(FATAL_ERROR "failed (${rc}): ${cmd}\n${out}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(f include/rocjit.h ${LIBDIR}/librocjit.so ${LIBDIR}/librocjit.a ${LIBDIR}/pkgconfig/rocjit.pc
          ${LIBDIR}/cmake/rocjit/rocjitConfig.cmake ${LIBDIR}/cmake/rocjit/rocjitConfigVersion.cmake
          ${LIBDIR}/cmake/rocjit/RocjitKernels.cmake)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "the install lacks ${f}")
  endif()
endforeach()

# CMake consumer: the examples, built against the installed package only.
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples -B ${WORK_DIR}/examples
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/examples)
set(ENV{ROCJIT_CACHE_DIR} ${WORK_DIR}/cache)
set(ENV{LD_LIBRARY_PATH} ${prefix}/${LIBDIR})
run(${WORK_DIR}/examples/hello_kernels gfx90a)
run(${WORK_DIR}/examples/hello_kernels gfx90a)
if(NOT out MATCHES "cache hit" OR out MATCHES "compiled")
  message(FATAL_ERROR "the second run of the installed example did not hit the cache:\n${out}")
endif()

# pkg-config consumer.
file(WRITE ${WORK_DIR}/pc.c "#include <rocjit.h>\n#include <stdio.h>\nint main(void) { printf(\"%d\\n\", rocjit_version()); return rocjit_version() == ROCJIT_VERSION_NUMBER ? 0 : 1; }\n")
set(ENV{PKG_CONFIG_PATH} ${prefix}/${LIBDIR}/pkgconfig)
run(pkg-config --cflags --libs rocjit)
string(STRIP "${out}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
run(cc ${WORK_DIR}/pc.c -o ${WORK_DIR}/pc ${flags})
run(${WORK_DIR}/pc)
message(STATUS "installed package consumed by CMake and pkg-config")
