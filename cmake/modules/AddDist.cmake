# Helpers for dist's libraries and tools.
#
# add_dist_library(name SRCS... [MLIR_LIBS libs...] [LINK_LIBS libs...] ...)
#   An MLIR library that is installed and exported in DistTargets. MLIR
#   libraries go in MLIR_LIBS so that one switch (MLIR_LINK_MLIR_DYLIB) picks
#   libMLIR.so or the static libraries; other libraries go in LINK_LIBS.
# add_dist_dialect_library(...)
#   The same, and records the library in DIST_DIALECT_LIBS.

include_guard()

function(_dist_filter_mlir_libs out)
  # Debian's library lists contain test libraries that depend on libMLIR.so;
  # keep them out of a static link or it silently becomes mixed.
  set(result)
  foreach(lib ${ARGN})
    if(NOT lib MATCHES "Test")
      list(APPEND result ${lib})
    endif()
  endforeach()
  set(${out} ${result} PARENT_SCOPE)
endfunction()

function(dist_link_mlir_libraries target type)
  _dist_filter_mlir_libs(libs ${ARGN})
  if(libs)
    mlir_target_link_libraries(${target} ${type} ${libs})
  endif()
endfunction()

function(add_dist_library name)
  cmake_parse_arguments(ARG "" "" "MLIR_LIBS;LINK_LIBS;DEPENDS;LINK_COMPONENTS" ${ARGN})
  add_mlir_library(${name} ${ARG_UNPARSED_ARGUMENTS}
    DISABLE_INSTALL EXCLUDE_FROM_LIBMLIR
    DEPENDS ${ARG_DEPENDS}
    LINK_COMPONENTS ${ARG_LINK_COMPONENTS}
    LINK_LIBS ${ARG_LINK_LIBS})
  dist_link_mlir_libraries(${name} PUBLIC ${ARG_MLIR_LIBS})
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${DIST_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${DIST_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:include>)
  set_property(GLOBAL APPEND PROPERTY DIST_EXPORTS ${name})
  install(TARGETS ${name} EXPORT DistTargets
    LIBRARY DESTINATION lib ARCHIVE DESTINATION lib RUNTIME DESTINATION bin
    COMPONENT ${name})
endfunction()

function(add_dist_dialect_library name)
  set_property(GLOBAL APPEND PROPERTY DIST_DIALECT_LIBS ${name})
  add_dist_library(${name} ${ARGN})
endfunction()

# add_dist_tool(name SRCS... [MLIR_LIBS ...] [LINK_LIBS ...])
function(add_dist_tool name)
  cmake_parse_arguments(ARG "" "" "MLIR_LIBS;LINK_LIBS;DEPENDS" ${ARGN})
  add_llvm_executable(${name} ${ARG_UNPARSED_ARGUMENTS} DEPENDS ${ARG_DEPENDS})
  target_link_libraries(${name} PRIVATE ${ARG_LINK_LIBS})
  dist_link_mlir_libraries(${name} PRIVATE ${ARG_MLIR_LIBS})
  llvm_update_compile_flags(${name})
  # Installed tools must find libMLIR.so/libLLVM.so where they were found here.
  set_property(TARGET ${name} APPEND PROPERTY INSTALL_RPATH "${LLVM_LIBRARY_DIR}")
  install(TARGETS ${name} EXPORT DistTargets RUNTIME DESTINATION bin COMPONENT ${name})
endfunction()
