# rocjit_manifest.cmake - the build step of rocjit_add_kernels(NAME_EXPRESSIONS <file>):
# writes the kernel manifest OUT as the configure-time list of files (BASE, format 3)
# followed by the expr= lines of EXPRESSIONS (run with cmake -P).
#
#   cmake -DBASE=<t>.rocjit-manifest.files -DEXPRESSIONS=<file> -DOUT=<t>.rocjit-manifest
#         -P rocjit_manifest.cmake
#
# EXPRESSIONS holds lines "expr=<name><TAB><expression>[<TAB><expression>...]", each one
# program the application compiles (the source <name>, relative to DIR, with those name
# expressions instantiated); blank lines and lines starting with '#' are left out.  It is
# read at build time, so a program of the build may write it (the op set's does).  Any
# other line fails the build here, naming it, rather than `rocjit prewarm` later.

foreach(var BASE EXPRESSIONS OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "rocjit_manifest.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT EXISTS "${EXPRESSIONS}")
  message(FATAL_ERROR "rocjit_add_kernels: NAME_EXPRESSIONS '${EXPRESSIONS}' does not "
    "exist: write it (lines expr=<file><TAB><name expression>), or make the rule that "
    "generates it an OUTPUT of this directory")
endif()
file(READ "${BASE}" text)
file(READ "${EXPRESSIONS}" body)
# One list element a line: ';' (CMake's list separator) is kept aside meanwhile.
string(REPLACE ";" "<rocjit-semicolon>" body "${body}")
string(REPLACE "\r" "" body "${body}")
string(REPLACE "\n" ";" lines "${body}")
set(programs 0)
foreach(line IN LISTS lines)
  if(line STREQUAL "" OR line MATCHES "^#" OR line MATCHES "^[ \t]+$")
    continue()
  endif()
  string(REPLACE "<rocjit-semicolon>" ";" line "${line}")
  if(NOT line MATCHES "^expr=[^\t]+\t")
    message(FATAL_ERROR "rocjit_add_kernels: NAME_EXPRESSIONS '${EXPRESSIONS}' holds the "
      "line '${line}': write one program a line, expr=<file><TAB><name expression>"
      "[<TAB><name expression>...] (e.g. expr=scale.hip<TAB>scale<float, 4>)")
  endif()
  string(APPEND text "${line}\n")
  math(EXPR programs "${programs} + 1")
endforeach()
if(programs EQUAL 0)
  message(FATAL_ERROR "rocjit_add_kernels: NAME_EXPRESSIONS '${EXPRESSIONS}' names no "
    "program: write lines expr=<file><TAB><name expression>")
endif()
file(WRITE "${OUT}" "${text}")
