# signed_bundle_test.cmake - rocjit_add_kernels(... SIGNING_KEY FILE) (issue 16), as an
# application's project uses it: built against the installed package, with a key pair
# from `rocjit keygen`, it proves that
#  - every entry of the bundle the build makes is signed, by that key;
#  - the application, run where no compiler is installed (the HIP library made
#    unloadable) from an empty cache, trusting the key, gets all its kernels from the
#    bundle; trusting another key only, it fails, saying why, and loads none of them;
#  - a key file the tool cannot use fails the build and leaves no bundle;
#  - replacing the key file signs the bundle again with the new key on the next build;
#  - the secret key is in no file of the build tree and in none of the build's output;
#  - a SIGNING_KEY that does not exist stops the configure, saying how to make one.
# Called by ctest (tests/CMakeLists.txt) with BUILD_DIR, SOURCE_DIR, WORK_DIR, LIBDIR and
# PYTHON (python3, whose sqlite3 module reads the bundle).

include(${CMAKE_CURRENT_LIST_DIR}/run_util.cmake)

# "<entries> <entries signed by signer with a 64-byte signature>" of the bundle.
function(bundle_signed var bundle signer)
  run(${PYTHON} -c [[
import sqlite3, sys
db = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True)
n = db.execute('SELECT count(*) FROM entries').fetchone()[0]
s = 0  # a file without the table holds no signature (cache/FORMAT.md)
if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'signatures'").fetchone():
    s = db.execute('SELECT count(*) FROM entries e JOIN signatures s ON s.key = e.key '
                   'WHERE s.signer = ? AND length(s.sig) = 64', (sys.argv[2],)).fetchone()[0]
print(n, s)
]] ${bundle} ${signer})
  string(STRIP "${out}" out)
  set(${var} "${out}" PARENT_SCOPE)
endfunction()

# Runs the application for gfx90a where no compiler is installed (the HIP library, which
# hipRTC is loaded beside, made unloadable), from an empty cache, trusting keys.
function(run_app cache keys)
  file(REMOVE_RECURSE ${cache})
  set(ENV{ROCJIT_CACHE_DIR} ${cache})
  set(ENV{ROCJIT_TRUSTED_KEYS} "${keys}")
  set(ENV{ROCJIT_HIP_LIBRARY} /nonexistent)
  execute_process(COMMAND ${app} gfx90a RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE out)
  unset(ENV{ROCJIT_HIP_LIBRARY})
  unset(ENV{ROCJIT_TRUSTED_KEYS})
  set(rc ${rc} PARENT_SCOPE)
  set(out "${out}" PARENT_SCOPE)
endfunction()

# What the builder's or the test's environment may hold must not decide anything here.
foreach(v ROCJIT_SIGNING_KEY ROCJIT_TRUSTED_KEYS ROCJIT_REQUIRE_SIGNED ROCJIT_BUNDLE_PATH
          ROCJIT_NO_COMPILE ROCJIT_ARCH ROCJIT_KERNEL_PATH ROCJIT_WORKER ROCJIT_LOG
          ROCJIT_HIP_LIBRARY)
  unset(ENV{${v}})
endforeach()

# Two ctest runs on one build (`-R signed` from two shells) would share WORK_DIR and
# replace each other's keys mid-run: the second waits for the first.
file(LOCK ${WORK_DIR}.lock GUARD PROCESS TIMEOUT 600 RESULT_VARIABLE locked)
if(NOT locked EQUAL 0)
  message(FATAL_ERROR "another run of this test holds ${WORK_DIR}.lock: ${locked}")
endif()
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
set(tool ${prefix}/bin/rocjit)
set(ENV{LD_LIBRARY_PATH} ${prefix}/${LIBDIR})

# The application: the example's program and kernels in a project of its own, whose key
# lies in its source folder (SIGNING_KEY relative to it).
set(src ${WORK_DIR}/app)
set(build ${WORK_DIR}/app-build)
set(app ${build}/app)
set(bundle ${build}/app.rocjit)
file(MAKE_DIRECTORY ${src})
file(WRITE ${src}/CMakeLists.txt "cmake_minimum_required(VERSION 3.16)
project(signed_app C)
find_package(rocjit REQUIRED)
set(KEY keys/release.secret CACHE STRING \"the signing key\")
add_executable(app \"${SOURCE_DIR}/examples/hello_kernels/main.c\")
target_link_libraries(app PRIVATE rocjit::rocjit \${CMAKE_DL_LIBS} m)
rocjit_add_kernels(TARGET app DIR \"${SOURCE_DIR}/kernels-src\"
  GLOB axpy.hip binary_strided.hip reduce.hip
  BUNDLE_ARCHS gfx90a BUNDLE_NO_INSTALL SIGNING_KEY \${KEY})
")
# The secret keys (the base64 after "NAME:"), to look for where they must not be.
set(secrets "")
function(read_secret file)
  file(STRINGS ${file} line)
  string(REGEX REPLACE "^[^:]*:" "" secret "${line}")
  if(secret STREQUAL "")
    message(FATAL_ERROR "no key in ${file}")
  endif()
  set(secrets ${secrets} "${secret}" PARENT_SCOPE)
endfunction()

file(MAKE_DIRECTORY ${src}/keys ${WORK_DIR}/other-keys ${WORK_DIR}/rotated-keys)
run(${tool} keygen --dir ${src}/keys release)
file(STRINGS ${src}/keys/release.pub release_pub)
read_secret(${src}/keys/release.secret)
run(${tool} keygen --dir ${WORK_DIR}/other-keys other)
file(STRINGS ${WORK_DIR}/other-keys/other.pub other_pub)

# A missing key stops the configure and says how to make one.
run_fails(${CMAKE_COMMAND} -S ${src} -B ${WORK_DIR}/missing-build
          -DCMAKE_PREFIX_PATH=${prefix} -DKEY=keys/missing.secret)
# CMake wraps the message: compare it with its white space folded.
string(REGEX REPLACE "[ \t\n]+" " " flat "${out}")
string(FIND "${flat}" "SIGNING_KEY '${src}/keys/missing.secret' does not exist" at)
if(at LESS 0 OR NOT flat MATCHES "`rocjit keygen --dir <dir> NAME`")
  message(FATAL_ERROR "a missing SIGNING_KEY did not fail the configure saying how to "
          "make one:\n${out}")
endif()

run(${CMAKE_COMMAND} -S ${src} -B ${build} -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_BUILD_TYPE=Release)
set(build_out "${out}")
run(${CMAKE_COMMAND} --build ${build})
string(APPEND build_out "${out}")

bundle_signed(counts ${bundle} release)
if(NOT counts STREQUAL "3 3")
  message(FATAL_ERROR "the bundle's entries are not all signed by 'release' (entries, "
          "signed): ${counts}")
endif()

# Trusting the key, with no compiler: all three from the bundle.
run_app(${WORK_DIR}/cache-trusted "${release_pub}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "compiles 0 \\(0 ms\\), disk hits 3"
   OR out MATCHES " compiled ")
  message(FATAL_ERROR "the application trusting the bundle's key was not served by the "
          "bundle (exit ${rc}):\n${out}")
endif()
# Trusting another key only: refused, said so, nothing loaded (the first kernel fails).
run_app(${WORK_DIR}/cache-other "${other_pub}")
if(rc EQUAL 0 OR NOT out MATCHES "signed by a key that is not trusted: release "
   OR NOT out MATCHES "in no bundle signed by a trusted key" OR out MATCHES "cache hit")
  message(FATAL_ERROR "the application trusting another key did not fail saying the "
          "bundle's key is not trusted (exit ${rc}):\n${out}")
endif()

# A key file the tool cannot use (open to others) fails the build, saying why, and
# leaves no bundle behind (the export alone would only warn, and write entries unsigned).
file(CHMOD ${src}/keys/release.secret PERMISSIONS OWNER_READ GROUP_READ WORLD_READ)
file(TOUCH ${src}/keys/release.secret)
run_fails(${CMAKE_COMMAND} --build ${build})
string(APPEND build_out "${out}")
if(NOT out MATCHES "chmod 600" OR EXISTS ${bundle})
  message(FATAL_ERROR "a secret key open to others did not fail the build saying why, or "
          "a bundle was left:\n${out}")
endif()
file(CHMOD ${src}/keys/release.secret PERMISSIONS OWNER_READ OWNER_WRITE)

# A new key in the key file's place: the next build signs the bundle with it.
run(${tool} keygen --dir ${WORK_DIR}/rotated-keys rotated)
file(STRINGS ${WORK_DIR}/rotated-keys/rotated.pub rotated_pub)
read_secret(${WORK_DIR}/rotated-keys/rotated.secret)
file(RENAME ${WORK_DIR}/rotated-keys/rotated.secret ${src}/keys/release.secret)
run(${CMAKE_COMMAND} --build ${build})
string(APPEND build_out "${out}")
bundle_signed(counts ${bundle} rotated)
if(NOT counts STREQUAL "3 3")
  message(FATAL_ERROR "after the key file changed, the bundle's entries are not all "
          "signed by the new key 'rotated' (entries, signed): ${counts}")
endif()
run_app(${WORK_DIR}/cache-rotated "${rotated_pub}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "compiles 0 \\(0 ms\\), disk hits 3")
  message(FATAL_ERROR "the application trusting the new key was not served by the "
          "re-signed bundle (exit ${rc}):\n${out}")
endif()

# Neither secret key is in the build tree or in what the builds printed.
file(GLOB_RECURSE built LIST_DIRECTORIES false ${build}/*)
foreach(secret ${secrets})
  string(FIND "${build_out}" "${secret}" at)
  if(at GREATER_EQUAL 0)
    message(FATAL_ERROR "the build printed a secret key")
  endif()
  foreach(f ${built})
    # Printable runs of 20 or more characters: a base64 key is one, in text or binary.
    file(STRINGS ${f} runs LENGTH_MINIMUM 20)
    string(FIND "${runs}" "${secret}" at)
    if(at GREATER_EQUAL 0)
      message(FATAL_ERROR "${f} holds a secret key: the build must read it where it is")
    endif()
  endforeach()
endforeach()
list(LENGTH built n)
message(STATUS "signed bundle: all entries signed, served with the key trusted and no "
        "compiler, refused with another key, re-signed when the key changed; no secret in "
        "${n} built files")
