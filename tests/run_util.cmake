# run_util.cmake - running commands from the CMake-script tests (package_test.cmake,
# signed_bundle_test.cmake): a failure stops the test with the command and its output.

# Runs a command that must succeed; its output (stdout and stderr) in ${out}.
function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGV}")
    message(FATAL_ERROR "failed (${rc}): ${cmd}\n${out}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

# Like run(), for a command that must fail.
function(run_fails)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGV}")
    message(FATAL_ERROR "succeeded, and must fail: ${cmd}\n${out}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()
