# MLIR gives types without an explicit TypeID a fallback one keyed on the
# spelling of __PRETTY_FUNCTION__, which differs between compilers. C++ built
# by another compiler than the MLIR install's links and loads, yet its traits
# and interfaces silently fail to match across the library boundary. So all of
# lighthouse's C++ is compiled by clang of the MLIR install's major release.

# Defaults the compilers to clang-<pinned major> unless the user chose some.
macro(lighthouse_select_default_compiler)
  if(NOT CMAKE_CXX_COMPILER AND NOT DEFINED ENV{CXX})
    find_program(LIGHTHOUSE_DEFAULT_CXX clang++-${LIGHTHOUSE_PINNED_LLVM_MAJOR})
    find_program(LIGHTHOUSE_DEFAULT_CC clang-${LIGHTHOUSE_PINNED_LLVM_MAJOR})
    if(LIGHTHOUSE_DEFAULT_CXX AND LIGHTHOUSE_DEFAULT_CC)
      set(CMAKE_CXX_COMPILER "${LIGHTHOUSE_DEFAULT_CXX}")
      set(CMAKE_C_COMPILER "${LIGHTHOUSE_DEFAULT_CC}")
    endif()
  endif()
  find_program(LIGHTHOUSE_CCACHE ccache)
  if(LIGHTHOUSE_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
    set(CMAKE_C_COMPILER_LAUNCHER "${LIGHTHOUSE_CCACHE}")
    set(CMAKE_CXX_COMPILER_LAUNCHER "${LIGHTHOUSE_CCACHE}")
  endif()
endmacro()

# Fails the configure unless the C++ compiler is clang of MLIR's major release.
function(lighthouse_check_compiler_matches_mlir)
  string(REGEX MATCH "^[0-9]+" _compiler_major "${CMAKE_CXX_COMPILER_VERSION}")
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang"
     OR NOT _compiler_major STREQUAL LLVM_VERSION_MAJOR)
    message(FATAL_ERROR
      "lighthouse compiles MLIR C++ with clang ${LLVM_VERSION_MAJOR} (the MLIR "
      "install at ${MLIR_DIR} is release ${LLVM_PACKAGE_VERSION}), but the C++ "
      "compiler is ${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION} "
      "(${CMAKE_CXX_COMPILER}). Another compiler breaks MLIR's TypeIDs across "
      "the library boundary without any error. Install clang-${LLVM_VERSION_MAJOR} "
      "(build_tools/setup.sh does) or pass "
      "-DCMAKE_CXX_COMPILER=clang++-${LLVM_VERSION_MAJOR} "
      "-DCMAKE_C_COMPILER=clang-${LLVM_VERSION_MAJOR}, in a fresh build directory.")
  endif()
  find_program(LIGHTHOUSE_LLD ld.lld-${LLVM_VERSION_MAJOR} ld.lld)
  if(LIGHTHOUSE_LLD)
    set(CMAKE_LINKER_TYPE LLD PARENT_SCOPE)
  endif()
endfunction()
