# manifest_script_test.cmake - rocjit_add_kernels(NAME_EXPRESSIONS)'s build step,
# rocjit_manifest.cmake: the manifest is the files' part followed by the expr= lines, kept
# byte for byte (';' and several expressions a line included), comments and blank lines
# left out; any other line fails the build, naming it; so does a file naming no program.
#
#   cmake -DSCRIPT=<rocjit_manifest.cmake> -DWORK=<scratch folder> -P manifest_script_test.cmake

cmake_minimum_required(VERSION 3.16)

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
file(WRITE "${WORK}/files" "# rocjit-manifest 3\ndir=/k\nfile=a.hip\nfile=a.h\n")

# Runs the script on the expressions text; sets rc and err (its stderr).
function(run_script text)
  file(WRITE "${WORK}/exprs" "${text}")
  execute_process(COMMAND ${CMAKE_COMMAND} -DBASE=${WORK}/files -DEXPRESSIONS=${WORK}/exprs
                          -DOUT=${WORK}/out -P ${SCRIPT}
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  set(rc "${rc}" PARENT_SCOPE)
  string(REGEX REPLACE "[ \n]+" " " err "${err}")
  set(err "${err}" PARENT_SCOPE)
endfunction()

run_script("# made by a tool\r\nexpr=a.hip\tk<int>\r\n\n  \nexpr=a.hip\tk<float>;\tm<2>\n# end")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "a good list failed: ${err}")
endif()
file(READ "${WORK}/out" out)
set(want "# rocjit-manifest 3\ndir=/k\nfile=a.hip\nfile=a.h\nexpr=a.hip\tk<int>\nexpr=a.hip\tk<float>;\tm<2>\n")
if(NOT out STREQUAL want)
  message(FATAL_ERROR "the manifest is\n${out}\nnot\n${want}")
endif()

foreach(bad "file=b.hip" "expr=a.hip k<int>" "expr=\tk<int>")
  run_script("expr=a.hip\tk<int>\n${bad}\n")
  if(rc EQUAL 0 OR NOT err MATCHES "holds the line")
    message(FATAL_ERROR "the line '${bad}' was not refused by name: ${rc} ${err}")
  endif()
endforeach()
run_script("# nothing yet\n")
if(rc EQUAL 0 OR NOT err MATCHES "names no program")
  message(FATAL_ERROR "a list of no program was not refused: ${rc} ${err}")
endif()
file(REMOVE "${WORK}/exprs")
execute_process(COMMAND ${CMAKE_COMMAND} -DBASE=${WORK}/files -DEXPRESSIONS=${WORK}/exprs
                        -DOUT=${WORK}/out -P ${SCRIPT}
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "does not[ \n]+exist")
  message(FATAL_ERROR "a missing list was not refused: ${rc} ${err}")
endif()
message(STATUS "rocjit_manifest.cmake: good list kept, bad lines refused")
