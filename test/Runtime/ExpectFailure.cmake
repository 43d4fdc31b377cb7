# cmake -P: runs COMMAND (a ;-list), which must fail with a non-zero exit code
# and print a line matching the regular expression in the file EXPECT.
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err TIMEOUT 50)
file(READ ${EXPECT} pattern)
string(STRIP "${pattern}" pattern)
message(STATUS "exit code: ${rc}\n${out}${err}")
if(rc EQUAL 0)
  message(FATAL_ERROR "expected a failure, but the command succeeded")
endif()
if(NOT "${out}${err}" MATCHES "${pattern}")
  message(FATAL_ERROR "the output does not match: ${pattern}")
endif()
