# lighthouse's own version (from pyproject.toml) and the MLIR release it is
# pinned to (from build_tools/llvm_version.txt).

if(SKBUILD_PROJECT_VERSION)
  set(LIGHTHOUSE_VERSION "${SKBUILD_PROJECT_VERSION}")
else()
  file(READ "${CMAKE_CURRENT_LIST_DIR}/../../pyproject.toml" _lighthouse_pyproject)
  string(REGEX MATCH "\nversion = \"([0-9.]+)\"" _ "${_lighthouse_pyproject}")
  set(LIGHTHOUSE_VERSION "${CMAKE_MATCH_1}")
endif()

set(LIGHTHOUSE_LLVM_VERSION_FILE "${CMAKE_CURRENT_LIST_DIR}/../llvm_version.txt")
file(STRINGS "${LIGHTHOUSE_LLVM_VERSION_FILE}" _lighthouse_pins REGEX "^[A-Z_0-9]+=")
foreach(_pin IN LISTS _lighthouse_pins)
  string(REGEX MATCH "^([A-Z_0-9]+)=(.*)$" _ "${_pin}")
  set(LIGHTHOUSE_PINNED_${CMAKE_MATCH_1} "${CMAKE_MATCH_2}")
endforeach()
string(REGEX MATCH "^[0-9]+" LIGHTHOUSE_PINNED_LLVM_MAJOR "${LIGHTHOUSE_PINNED_LLVM_VERSION}")
