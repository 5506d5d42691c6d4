# Makes rocjit.1 with help2man from the tool's own help texts (cli/help.c): the page's
# synopsis, description and options are `rocjit --help`; a COMMANDS section holds each
# command's `rocjit help NAME`, as it prints it, so that the page and --help never drift.
#   cmake -DROCJIT=<tool> -DHELP2MAN=<help2man> -DOUT=<rocjit.1> -DWORK=<dir> -P man.cmake
cmake_minimum_required(VERSION 3.16)
execute_process(COMMAND ${ROCJIT} help --commands OUTPUT_VARIABLE list RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${ROCJIT} help --commands failed (${rc})")
endif()
string(REPLACE "\n" ";" list "${list}")
# SYNOPSIS: the usage line of --help (help2man looks for "Usage:" only).
execute_process(COMMAND ${ROCJIT} --help OUTPUT_VARIABLE main RESULT_VARIABLE rc)
string(REGEX MATCH "^usage: ([^\n]*)" usage "${main}")
string(REPLACE "-" "\\-" synopsis "${CMAKE_MATCH_1}")
set(text "[SYNOPSIS]\n${synopsis}\n.br\nrocjit help COMMAND\n\n")
string(APPEND text "[COMMANDS]\nEach command's help, as `rocjit help COMMAND` prints it.\n")
foreach(line ${list})
  string(REGEX REPLACE ":.*" "" name "${line}")
  # An alias (ls) prints its command's usage, listed under the command; help has none.
  execute_process(COMMAND ${ROCJIT} help ${name} OUTPUT_VARIABLE page RESULT_VARIABLE rc)
  string(FIND "${page}" "usage: rocjit ${name} " at)
  if(name STREQUAL "help" OR NOT rc EQUAL 0 OR NOT at EQUAL 0)
    continue()
  endif()
  # roff: a backslash is \e, a minus \-, a line may not start with . or '.
  string(REPLACE "\\" "\\e" page "${page}")
  string(REPLACE "-" "\\-" page "${page}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" page "${page}")
  string(APPEND text ".SS \"rocjit ${name}\"\n.nf\n${page}.fi\n")
endforeach()
file(WRITE ${WORK}/commands.h2m "${text}")
execute_process(COMMAND ${HELP2MAN} --no-info --section=1
                  "--name=compile and cache HIP and CUDA kernels ahead of time"
                  --include=${WORK}/commands.h2m --output=${OUT} ${ROCJIT}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "help2man failed (${rc})")
endif()
