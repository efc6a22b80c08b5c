# Makes upstream MLIR's declarations of its Python binding sources
# (MLIRPythonSources.*, MLIRPythonExtension.*) available, from one of:
#   1. an MLIR install built with Python bindings, which exports them;
#   2. LIGHTHOUSE_MLIR_SOURCE_DIR, an llvm-project source tree of the install's
#      version;
#   3. the source tarball pinned in build_tools/llvm_version.txt, fetched and
#      checked by build_tools/fetch_mlir_sources.py (the default, matching
#      Debian's packages).
# Upstream's own mlir/python/CMakeLists.txt does the declaring in cases 2 and
# 3, so no upstream file is listed here. It also defines upstream's `mlir`
# package targets; those are never built nor installed (EXCLUDE_FROM_ALL and a
# separate install component).

set(LIGHTHOUSE_MLIR_SOURCE_DIR "$ENV{LIGHTHOUSE_MLIR_SOURCE_DIR}" CACHE PATH
  "llvm-project source tree matching the MLIR install (empty: installed \
bindings sources, else the pinned source tarball)")

# Reads the LLVM version of an llvm-project source tree.
function(_lighthouse_source_tree_version out_var source_dir)
  set(_version_file "${source_dir}/cmake/Modules/LLVMVersion.cmake")
  if(NOT EXISTS "${_version_file}")
    message(FATAL_ERROR
      "${source_dir} is not an llvm-project source tree: "
      "${_version_file} is missing. Point LIGHTHOUSE_MLIR_SOURCE_DIR at the "
      "root of an llvm-project checkout (the folder holding mlir/ and cmake/).")
  endif()
  file(READ "${_version_file}" _text)
  foreach(_part MAJOR MINOR PATCH)
    string(REGEX MATCH "set\\(LLVM_VERSION_${_part} ([0-9]+)\\)" _ "${_text}")
    set(_${_part} "${CMAKE_MATCH_1}")
  endforeach()
  set(${out_var} "${_MAJOR}.${_MINOR}.${_PATCH}" PARENT_SCOPE)
endfunction()

function(_lighthouse_declare_from_source_tree source_dir)
  _lighthouse_source_tree_version(_source_version "${source_dir}")
  if(NOT _source_version VERSION_EQUAL LLVM_PACKAGE_VERSION)
    message(FATAL_ERROR
      "The MLIR install at ${MLIR_DIR} is version ${LLVM_PACKAGE_VERSION}, but "
      "the binding sources in ${source_dir} are version ${_source_version}. "
      "The bindings must be built from the sources of the installed release: "
      "point LIGHTHOUSE_MLIR_SOURCE_DIR at an llvm-project checkout of "
      "${LLVM_PACKAGE_VERSION}, or use the pinned Debian packages "
      "(${LIGHTHOUSE_PINNED_DEBIAN_PACKAGE_VERSION}, installed by "
      "build_tools/setup.sh) with LIGHTHOUSE_MLIR_SOURCE_DIR unset.")
  endif()
  message(STATUS "Declaring MLIR Python sources from ${source_dir}")
  set(LIGHTHOUSE_MLIR_SOURCE_ROOT "${source_dir}" CACHE INTERNAL
    "llvm-project source tree the bindings are built from")

  # Variables upstream's folder expects from an in-tree build.
  set(MLIR_SOURCE_DIR "${source_dir}/mlir")
  set(MLIR_BINDINGS_PYTHON_INSTALL_PREFIX "upstream_python_packages/mlir")
  # In-tree targets that upstream lists as dependencies of generated sources;
  # an install already carries the files they would generate.
  foreach(_target LinalgOdsGen acc_common_td omp_common_td)
    if(NOT TARGET ${_target})
      add_custom_target(${_target})
    endif()
  endforeach()
  add_subdirectory("${source_dir}/mlir/python"
    "${CMAKE_BINARY_DIR}/upstream_mlir_python" EXCLUDE_FROM_ALL)
endfunction()

function(lighthouse_declare_mlir_python_sources)
  if(LIGHTHOUSE_MLIR_SOURCE_DIR)
    _lighthouse_declare_from_source_tree("${LIGHTHOUSE_MLIR_SOURCE_DIR}")
  elseif(MLIR_ENABLE_BINDINGS_PYTHON AND TARGET MLIRPythonSources)
    message(STATUS "Using the MLIR Python sources installed with ${MLIR_DIR}")
    set(LIGHTHOUSE_MLIR_SOURCE_ROOT "" CACHE INTERNAL
      "llvm-project source tree the bindings are built from")
  else()
    if(NOT LLVM_PACKAGE_VERSION VERSION_EQUAL LIGHTHOUSE_PINNED_LLVM_VERSION)
      message(FATAL_ERROR
        "The MLIR install at ${MLIR_DIR} is version ${LLVM_PACKAGE_VERSION}, "
        "but build_tools/llvm_version.txt pins ${LIGHTHOUSE_PINNED_LLVM_VERSION}, "
        "the version of the source tarball lighthouse fetches. Install the "
        "pinned Debian packages (build_tools/setup.sh does), or pass "
        "LIGHTHOUSE_MLIR_SOURCE_DIR pointing at an llvm-project checkout of "
        "${LLVM_PACKAGE_VERSION}.")
    endif()
    execute_process(
      COMMAND "${Python3_EXECUTABLE}"
        "${PROJECT_SOURCE_DIR}/build_tools/fetch_mlir_sources.py"
      OUTPUT_VARIABLE _fetched_dir
      OUTPUT_STRIP_TRAILING_WHITESPACE
      RESULT_VARIABLE _result)
    if(NOT _result EQUAL 0)
      message(FATAL_ERROR "build_tools/fetch_mlir_sources.py failed (see above).")
    endif()
    _lighthouse_declare_from_source_tree("${_fetched_dir}")
  endif()
endfunction()
