# package_test.cmake - proves what rocjit gives the projects that use it:
#  - the installed package (a fresh prefix) is consumed by a separate CMake project (the
#    examples, find_package(rocjit)) and by one-file programs with pkg-config, linked
#    with the shared and with the static library, and all of them run;
#  - the package holds no absolute path of this machine (xxHash and SQLite are imported
#    targets found again where it is used);
#  - the example program and its bundle are installed together (standalone) or not at
#    all (the rocjit build);
#  - `--component runtime` installs the shared library and the tool only, and every file
#    belongs to the runtime or the development component;
#  - added with add_subdirectory(), rocjit builds the library alone: tests, benchmarks,
#    examples, fuzz targets and the tool default OFF.
# Called by ctest (tests/CMakeLists.txt) with BUILD_DIR, SOURCE_DIR, WORK_DIR, LIBDIR,
# LIBEXECDIR and SONAME (the shared library's soname).

include(${CMAKE_CURRENT_LIST_DIR}/run_util.cmake)

# The files under dir, relative to it, sorted.
function(installed_files var dir)
  file(GLOB_RECURSE files LIST_DIRECTORIES false RELATIVE ${dir} ${dir}/*)
  list(SORT files)
  set(${var} "${files}" PARENT_SCOPE)
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

# No absolute path of this machine in the CMake package: xxHash, SQLite and the thread
# library are imported targets that rocjitConfig.cmake finds again (find_dependency).
file(GLOB package_files ${prefix}/${LIBDIR}/cmake/rocjit/*.cmake)
foreach(f ${package_files})
  file(READ ${f} text)
  foreach(path /usr/lib libxxhash.so libsqlite3.so ${SOURCE_DIR} ${BUILD_DIR})
    string(FIND "${text}" "${path}" at)
    if(at GREATER_EQUAL 0)
      message(FATAL_ERROR "${f} holds \"${path}\": the package must not name paths of "
              "the machine it was built on")
    endif()
  endforeach()
endforeach()

# The rocjit build installs neither the example program nor its bundle.
foreach(f hello_kernels hello_kernels.rocjit)
  if(EXISTS ${prefix}/bin/${f})
    message(FATAL_ERROR "the rocjit install holds bin/${f}: the examples are not installed")
  endif()
endforeach()

# Components: runtime is the shared library (not its development link) and the tool, with
# its man page (where help2man made one) and shell completion; every installed file is in
# runtime or development.
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/runtime --component runtime)
installed_files(runtime_files ${WORK_DIR}/runtime)
foreach(f ${runtime_files})
  if(NOT f MATCHES "^${LIBDIR}/librocjit\\.so\\.[0-9.]+$" AND NOT f STREQUAL "bin/rocjit"
     AND NOT f STREQUAL "${LIBEXECDIR}/rocjit/rocjit-worker"
     AND NOT f MATCHES "^share/man/man1/rocjit\\.1$"
     AND NOT f MATCHES "^share/bash-completion/completions/rocjit$"
     AND NOT f MATCHES "^share/zsh/site-functions/_rocjit$")
    message(FATAL_ERROR "--component runtime installed ${f}; it holds only "
            "${LIBDIR}/librocjit.so.*, ${LIBEXECDIR}/rocjit/rocjit-worker, bin/rocjit, "
            "its man page and its bash and zsh completion")
  endif()
endforeach()
foreach(f share/bash-completion/completions/rocjit share/zsh/site-functions/_rocjit)
  if(NOT EXISTS ${WORK_DIR}/runtime/${f})
    message(FATAL_ERROR "--component runtime lacks the tool's completion ${f}")
  endif()
endforeach()
if(EXISTS ${BUILD_DIR}/cli/rocjit.1 AND NOT EXISTS ${WORK_DIR}/runtime/share/man/man1/rocjit.1)
  message(FATAL_ERROR "--component runtime lacks the man page share/man/man1/rocjit.1")
endif()
if(NOT EXISTS ${WORK_DIR}/runtime/${LIBEXECDIR}/rocjit/rocjit-worker)
  message(FATAL_ERROR "--component runtime lacks the compile worker:\n${runtime_files}")
endif()
# The soname's file (librocjit.so.0.1 while the major version is 0: README "ABI and
# soname"), which is what programs linked with the library ask the loader for.
if(NOT EXISTS ${WORK_DIR}/runtime/${LIBDIR}/${SONAME})
  message(FATAL_ERROR "--component runtime lacks the shared library ${SONAME}:\n"
          "${runtime_files}")
endif()
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/development
    --component development)
installed_files(development_files ${WORK_DIR}/development)
installed_files(all_files ${prefix})
set(both ${runtime_files} ${development_files})
list(SORT both)
if(NOT both STREQUAL all_files)
  message(FATAL_ERROR "the runtime and development components together are not the whole "
          "install:\nboth: ${both}\nall: ${all_files}")
endif()

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
# Installed, the standalone example is an application: the program and its bundle go
# together, and the bundle serves it where no compiler is installed.
# The installed library compiles in the installed worker, which it finds by itself.
unset(ENV{ROCJIT_WORKER})
set(ENV{ROCJIT_LOG} info)
run(${prefix}/bin/rocjit --cache ${WORK_DIR}/cli-cache compile
    ${SOURCE_DIR}/kernels-src/axpy.hip --arch gfx90a)
unset(ENV{ROCJIT_LOG})
if(NOT out MATCHES "started compile worker [0-9]+ \\(${prefix}/${LIBDIR}/[^)]*rocjit-worker\\)"
   OR out MATCHES "no compile worker")
  message(FATAL_ERROR "the installed library did not compile in the installed worker:\n${out}")
endif()
run(${CMAKE_COMMAND} --install ${WORK_DIR}/examples --prefix ${WORK_DIR}/app)
foreach(f hello_kernels hello_kernels.rocjit)
  if(NOT EXISTS ${WORK_DIR}/app/bin/${f})
    message(FATAL_ERROR "the example's install lacks bin/${f}")
  endif()
endforeach()
set(ENV{ROCJIT_CACHE_DIR} ${WORK_DIR}/app-cache)
set(ENV{ROCJIT_HIP_LIBRARY} /nonexistent)
run(${WORK_DIR}/app/bin/hello_kernels gfx90a)
unset(ENV{ROCJIT_HIP_LIBRARY})
set(ENV{ROCJIT_CACHE_DIR} ${WORK_DIR}/cache)
if(NOT out MATCHES "compiles 0 \\(0 ms\\), disk hits 3")
  message(FATAL_ERROR "the installed example was not served by its installed bundle:\n${out}")
endif()

# pkg-config consumer.
file(WRITE ${WORK_DIR}/pc.c "#include <rocjit.h>\n#include <stdio.h>\nint main(void) { printf(\"%d\\n\", rocjit_version()); return rocjit_version() == ROCJIT_VERSION_NUMBER ? 0 : 1; }\n")
set(ENV{PKG_CONFIG_PATH} ${prefix}/${LIBDIR}/pkgconfig)
run(pkg-config --cflags --libs rocjit)
string(STRIP "${out}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
run(cc ${WORK_DIR}/pc.c -o ${WORK_DIR}/pc ${flags})
run(${WORK_DIR}/pc)
# Static: the archive and what `pkg-config --static` adds (Requires.private, Libs.private).
file(WRITE ${WORK_DIR}/pc_static.c "#include <rocjit.h>\n#include <stdio.h>\nint main(void) { rocjit_ctx *ctx = NULL; int rc = rocjit_open(&ctx, NULL); if (rc) fprintf(stderr, \"%s\\n\", rocjit_last_error()); rocjit_close(ctx); return rc ? 1 : 0; }\n")
run(pkg-config --static --cflags --libs rocjit)
string(STRIP "${out}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
list(TRANSFORM flags REPLACE "^-lrocjit$" "${prefix}/${LIBDIR}/librocjit.a")
run(cc ${WORK_DIR}/pc_static.c -o ${WORK_DIR}/pc_static ${flags})
run(${WORK_DIR}/pc_static)

# A project that adds rocjit with add_subdirectory(): the library alone, its options OFF.
file(MAKE_DIRECTORY ${WORK_DIR}/sub)
file(WRITE ${WORK_DIR}/sub/CMakeLists.txt "cmake_minimum_required(VERSION 3.20)
project(rocjit_subproject_consumer C)
add_subdirectory(\"${SOURCE_DIR}\" rocjit)
foreach(opt TESTS EXAMPLES BENCH FUZZ CLI)
  if(ROCJIT_BUILD_\${opt})
    message(FATAL_ERROR \"ROCJIT_BUILD_\${opt} is ON in a subproject\")
  endif()
endforeach()
foreach(t rocjit_cli rocjit_ops hello_kernels bench_cache rocjit_probe fuzz_codeobj_replay)
  if(TARGET \${t})
    message(FATAL_ERROR \"a subproject build defines \${t}\")
  endif()
endforeach()
add_executable(app \"${WORK_DIR}/pc.c\")
target_link_libraries(app PRIVATE rocjit::rocjit)
add_executable(app_static \"${WORK_DIR}/pc.c\")
target_link_libraries(app_static PRIVATE rocjit::rocjit_static)
")
run(${CMAKE_COMMAND} -S ${WORK_DIR}/sub -B ${WORK_DIR}/sub/build -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/sub/build --target app app_static)
run(${WORK_DIR}/sub/build/app)
run(${WORK_DIR}/sub/build/app_static)
message(STATUS "installed package consumed by CMake and pkg-config (shared and static); "
        "components and the subproject build checked")
