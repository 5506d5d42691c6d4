# rocjit_host_only.cmake - writes the headers rocjit serves under the names of
# src/compile/devlib/host-only.txt: each stops the compile with one message naming the
# header, what it is and what to do (included from CMakeLists.txt at configure time).
#
#   rocjit_host_only(<list file> <output folder>)
#
# NVRTC stops at the first #error.  clang (hipRTC) goes on after one and buries it under
# the errors that follow, so there the message is a #warning made fatal.  The texts hold
# no quote or apostrophe: the preprocessor would read one as the start of a literal.
# A file is only rewritten when its text changes, so the embedded table is rebuilt (and
# the served set's digest, part of every key, changes) only when a message does.

function(rocjit_host_only list out)
  file(STRINGS ${list} lines)
  set(written "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^(host|library): (.*)$")
      set(kind ${CMAKE_MATCH_1})
      string(REGEX REPLACE " +" ";" names "${CMAKE_MATCH_2}")
      foreach(name IN LISTS names)
        if(kind STREQUAL "host")
          set(msg "rocjit: <${name}> is host code, and a kernel compiled at run time (hipRTC, NVRTC) cannot include it. Keep host code out of the kernel source, or guard the include and the code that uses it with #ifndef __HIPCC_RTC__ (defined in every rocjit compile)")
        else()
          set(msg "rocjit: <${name}> declares a host library API, and a kernel compiled at run time (hipRTC, NVRTC) cannot include it. Call the library from host code, or guard the include with #ifndef __HIPCC_RTC__ (defined in every rocjit compile)")
        endif()
        set(text "/* Served by rocjit in place of <${name}> (src/compile/devlib/host-only.txt). */\n#if defined(__clang__)\n#pragma clang diagnostic fatal \"-W#warnings\"\n#warning ${msg}\n#else\n#error ${msg}\n#endif\n")
        set(path ${out}/${name})
        set(old "")
        if(EXISTS ${path})
          file(READ ${path} old)
        endif()
        if(NOT old STREQUAL text)
          file(WRITE ${path} "${text}")
        endif()
        list(APPEND written ${path})
      endforeach()
    endif()
  endforeach()
  # A name taken off the list stops being served.
  file(GLOB_RECURSE present LIST_DIRECTORIES false ${out}/*)
  foreach(path IN LISTS present)
    if(NOT path IN_LIST written)
      file(REMOVE ${path})
    endif()
  endforeach()
endfunction()
