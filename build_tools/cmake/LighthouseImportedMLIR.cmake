# Adapts an installed MLIR (Debian's packages by default) to lighthouse's
# single aggregate library: MLIR's C++ is linked statically into that library,
# once, and the C API objects it exports come from the installed archives.

# Returns the file an imported target was built into, whatever its config.
function(lighthouse_imported_location out_var target)
  get_target_property(_location ${target} IMPORTED_LOCATION)
  if(NOT _location)
    get_target_property(_configs ${target} IMPORTED_CONFIGURATIONS)
    foreach(_config IN LISTS _configs)
      get_target_property(_location ${target} IMPORTED_LOCATION_${_config})
      if(_location)
        break()
      endif()
    endforeach()
  endif()
  set(${out_var} "${_location}" PARENT_SCOPE)
endfunction()

# An install built with MLIR_LINK_MLIR_DYLIB names libMLIR.so in the link
# interface of a few static libraries. Linked as is, the aggregate would load a
# second, independent copy of MLIR (its own registries, TypeIDs and options)
# next to the static one, and IR crossing between them would break silently.
# Point those interfaces at the static libraries instead.
function(lighthouse_link_static_mlir_only)
  if(TARGET MLIRExecutionEngine)
    set_property(TARGET MLIRExecutionEngine PROPERTY INTERFACE_LINK_LIBRARIES
      MLIRBuiltinToLLVMIRTranslation
      MLIRExecutionEngineUtils
      MLIRLLVMDialect
      MLIRLLVMToLLVMIRTranslation
      MLIRTargetLLVMIRExport
      LLVM)
  endif()
endfunction()

# add_mlir_aggregate embeds the objects of each C API library through an
# `obj.<lib>` object library, which an install only provides when it was built
# with MLIR_INSTALL_AGGREGATE_OBJECTS. Otherwise the static archives hold
# exactly those objects: unpack them once and import them under that name.
function(lighthouse_import_capi_objects)
  if(MLIR_INSTALL_AGGREGATE_OBJECTS)
    return()
  endif()
  set(_objects_root "${CMAKE_BINARY_DIR}/mlir-capi-objects")
  foreach(_lib IN LISTS MLIR_EXPORTED_TARGETS)
    if(NOT _lib MATCHES "^MLIRCAPI" OR NOT TARGET ${_lib} OR TARGET obj.${_lib})
      continue()
    endif()
    lighthouse_imported_location(_archive ${_lib})
    set(_dir "${_objects_root}/${_lib}")
    set(_stamp "${_dir}/.extracted-from")
    file(TIMESTAMP "${_archive}" _archive_time)
    set(_stamp_text "${_archive} ${_archive_time}")
    if(EXISTS "${_stamp}")
      file(READ "${_stamp}" _previous)
    else()
      set(_previous "")
    endif()
    if(NOT _previous STREQUAL _stamp_text)
      file(REMOVE_RECURSE "${_dir}")
      file(MAKE_DIRECTORY "${_dir}")
      execute_process(COMMAND "${CMAKE_AR}" x "${_archive}"
        WORKING_DIRECTORY "${_dir}" RESULT_VARIABLE _result)
      if(NOT _result EQUAL 0)
        message(FATAL_ERROR "Could not unpack ${_archive} (for ${_lib}).")
      endif()
      file(WRITE "${_stamp}" "${_stamp_text}")
    endif()
    file(GLOB _objects "${_dir}/*.o")
    add_library(obj.${_lib} OBJECT IMPORTED GLOBAL)
    set_target_properties(obj.${_lib} PROPERTIES IMPORTED_OBJECTS "${_objects}")
  endforeach()
  set(MLIR_INSTALL_AGGREGATE_OBJECTS ON PARENT_SCOPE)
endfunction()
