# cmake -P script: install, configure + build the consumer, run it.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK})
set(prefix ${WORK}/prefix)
run(${CMAKE_COMMAND} --install ${DIST_BINARY_DIR} --prefix ${prefix})
run(${CMAKE_COMMAND} -S ${SOURCE} -B ${WORK}/build -G ${GENERATOR}
  -DCMAKE_CXX_COMPILER=${CXX} -DDist_DIR=${prefix}/lib/cmake/dist
  -DMLIR_DIR=${MLIR_DIR})
run(${CMAKE_COMMAND} --build ${WORK}/build)
execute_process(COMMAND ${WORK}/build/consumer OUTPUT_VARIABLE out RESULT_VARIABLE rc)
message(STATUS "consumer printed:\n${out}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "local type: tensor<4x2xf32>")
  message(FATAL_ERROR "consumer failed (${rc})")
endif()
# The installed dist-opt runs and knows dist's passes.
execute_process(COMMAND ${prefix}/bin/dist-opt --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT help MATCHES "dist-verify")
  message(FATAL_ERROR "installed dist-opt does not list dist-verify")
endif()
