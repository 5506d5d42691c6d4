# embed_digest_test.cmake - the served headers' digest that rocjit_embed.cmake writes at
# build time (TABLE mode) follows every name and byte of the folder, and nothing else.
#
#   cmake -DEMBED=<rocjit_embed.cmake> -DWORK=<scratch folder> -P embed_digest_test.cmake

cmake_minimum_required(VERSION 3.16)

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/d/sub")

# Runs rocjit_embed.cmake on WORK/d with the given names; sets out to the digest it wrote.
function(digest_of out)
  execute_process(COMMAND ${CMAKE_COMMAND} -DOUT=${WORK}/t.h -DDIR=${WORK}/d
                          "-DFILES=${ARGN}" -DTABLE=rj_test -P ${EMBED}
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "rocjit_embed.cmake failed: ${rc}")
  endif()
  file(STRINGS "${WORK}/t.h" line REGEX "^static const char rj_test_digest\\[\\] = ")
  if(NOT line MATCHES "= \"([0-9a-f]+)\"")
    message(FATAL_ERROR "no digest in ${WORK}/t.h: '${line}'")
  endif()
  string(LENGTH "${CMAKE_MATCH_1}" n)
  if(NOT n EQUAL 64)
    message(FATAL_ERROR "the digest is ${n} hex digits, not 64")
  endif()
  set(${out} "${CMAKE_MATCH_1}" PARENT_SCOPE)
endfunction()

function(expect_differs a b what)
  if("${a}" STREQUAL "${b}")
    message(FATAL_ERROR "the digest did not change when ${what}")
  endif()
endfunction()

file(WRITE "${WORK}/d/a.h" "#define A 1\n")
file(WRITE "${WORK}/d/sub/b.h" "#define B 2\n")
digest_of(base "a.h;sub/b.h")
digest_of(again "a.h;sub/b.h")
if(NOT base STREQUAL again)
  message(FATAL_ERROR "the same folder gave two digests: ${base} ${again}")
endif()

file(WRITE "${WORK}/d/sub/b.h" "#define B 3\n")                 # one byte
digest_of(byte "a.h;sub/b.h")
expect_differs("${base}" "${byte}" "one byte of a file changed")

file(WRITE "${WORK}/d/sub/b.h" "#define B 2\n")                 # back as it was
digest_of(back "a.h;sub/b.h")
if(NOT back STREQUAL base)
  message(FATAL_ERROR "the restored folder gave another digest")
endif()

file(RENAME "${WORK}/d/a.h" "${WORK}/d/c.h")                      # a name
digest_of(renamed "c.h;sub/b.h")
expect_differs("${base}" "${renamed}" "a file was renamed")

file(WRITE "${WORK}/d/e.h" "")                                   # an empty file added
digest_of(added "c.h;e.h;sub/b.h")
expect_differs("${renamed}" "${added}" "an empty file was added")

# Moving bytes between files keeps the concatenation but not the digest.
file(WRITE "${WORK}/d/c.h" "#define A 1\n#define")
file(WRITE "${WORK}/d/e.h" "")
digest_of(split1 "c.h;e.h;sub/b.h")
file(WRITE "${WORK}/d/c.h" "#define A 1\n")
file(WRITE "${WORK}/d/e.h" "#define")
digest_of(split2 "c.h;e.h;sub/b.h")
expect_differs("${split1}" "${split2}" "bytes moved from one file to the next")

file(REMOVE_RECURSE "${WORK}")
message(STATUS "embed digest: 6 cases passed")
