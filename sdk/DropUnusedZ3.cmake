# Install script (see CMakeLists.txt): drops mlir-tblgen's dependency on libz3
# when it uses no Z3 symbol. Expects _nm (llvm-nm) and _tool (the installed
# mlir-tblgen); patchelf comes from the build environment.
execute_process(COMMAND "${_nm}" -D --undefined-only "${_tool}"
  OUTPUT_VARIABLE _undefined COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND patchelf --print-needed "${_tool}"
  OUTPUT_VARIABLE _needed COMMAND_ERROR_IS_FATAL ANY)
string(REGEX MATCH "libz3[^\n]*" _z3 "${_needed}")
if(_z3 AND NOT _undefined MATCHES "Z3_")
  message(STATUS "mlir-tblgen: dropping ${_z3}, of which it uses no symbol")
  execute_process(COMMAND patchelf --remove-needed "${_z3}" "${_tool}" COMMAND_ERROR_IS_FATAL ANY)
endif()
