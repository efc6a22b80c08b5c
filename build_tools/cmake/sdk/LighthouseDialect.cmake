# lighthouse_add_dialect: a dialect of another project, built against an
# installed lighthouse, with its Python op classes.
#
#   lighthouse_add_dialect(<name>
#     TD <file.td>             ODS of the dialect, its ops, types and attributes
#                              (it may include other .td files)
#     [PASSES_TD <file.td>]    ODS of its passes
#     [TD_INCLUDE_DIRS <dir>...]  where those includes are found, besides MLIR's
#                              include folder and the folder of each .td
#     SOURCES <file.cpp>...    its C++
#     [INCLUDE_DIRS <dir>...]  its headers' folders, for SOURCES and PYTHON_SOURCES
#     [PYTHON_SOURCES <file.cpp>...]  C++ of its Python extension, which must
#                              define void <name>PopulatePython(nanobind::module_ &)
#                              (e.g. Python classes of its types and attributes)
#     PYTHON_PACKAGE <dir>     where its Python files go, e.g. my_project/dialects
#     [INSTALL_DESTINATION <dir>])   the same, relative to the install prefix
#
# From TD it generates, in ${CMAKE_CURRENT_BINARY_DIR}/<name>/ (on the include
# path of SOURCES and PYTHON_SOURCES), the files the C++ includes:
# <name>Dialect.{h,cpp}.inc, <name>Ops.{h,cpp}.inc, <name>Types.{h,cpp}.inc,
# <name>Attrs.{h,cpp}.inc, <name>Passes.h.inc.
# It builds:
#   lib<name>.so   the C++, linked against lighthouse's shared library (which
#                  holds MLIR), loadable by lh-opt as a dialect or pass plugin;
#   _<name>        a Python extension whose register_dialect(context) registers
#                  the dialect in a lighthouse.ir.Context, and whose
#                  insert_into_registry(registry) adds it to a DialectRegistry;
#   <name>.py, _<name>_ops_gen.py, _ods_common.py: the op classes, bound to
#                  lighthouse's bindings; importing <name>.py adds the dialect
#                  to every lighthouse.ir.Context made afterwards.
# The C++ must define, inside extern "C", the C API handle of the dialect
# (MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(<Name>, <name>, ...)) and, with
# PASSES_TD, `void <name>RegisterPasses(void)`.

# Runs mlir-tblgen on td into output. The .td files it includes are tracked
# through mlir-tblgen's dependency file, so editing one regenerates.
function(_lighthouse_tblgen output td)
  set(includes)
  get_filename_component(td_dir "${td}" DIRECTORY)
  foreach(dir IN LISTS LIGHTHOUSE_MLIR_INCLUDE_DIRS _lighthouse_td_include_dirs td_dir)
    list(APPEND includes -I "${dir}")
  endforeach()
  add_custom_command(
    OUTPUT "${output}"
    COMMAND "${LIGHTHOUSE_MLIR_TBLGEN}" ${ARGN} ${includes} "${td}" -o "${output}"
            -d "${output}.d"
    DEPFILE "${output}.d"
    DEPENDS "${td}" "${LIGHTHOUSE_MLIR_TBLGEN}"
    COMMENT "mlir-tblgen ${ARGN} ${td}")
endfunction()

function(lighthouse_add_dialect name)
  cmake_parse_arguments(ARG "" "TD;PASSES_TD;PYTHON_PACKAGE;INSTALL_DESTINATION"
                        "SOURCES;PYTHON_SOURCES;TD_INCLUDE_DIRS;INCLUDE_DIRS" ${ARGN})
  if(NOT ARG_TD OR NOT ARG_SOURCES OR NOT ARG_PYTHON_PACKAGE)
    message(FATAL_ERROR "lighthouse_add_dialect(${name}) needs TD, SOURCES and PYTHON_PACKAGE")
  endif()
  get_filename_component(td "${ARG_TD}" ABSOLUTE)
  set(_lighthouse_td_include_dirs)
  foreach(dir IN LISTS ARG_TD_INCLUDE_DIRS)
    get_filename_component(dir "${dir}" ABSOLUTE)
    list(APPEND _lighthouse_td_include_dirs "${dir}")
  endforeach()
  set(gen "${CMAKE_CURRENT_BINARY_DIR}/${name}")
  file(MAKE_DIRECTORY "${gen}")
  set(generated)
  foreach(kind_flags
      "Dialect.h.inc|-gen-dialect-decls|-dialect=${name}"
      "Dialect.cpp.inc|-gen-dialect-defs|-dialect=${name}"
      "Ops.h.inc|-gen-op-decls" "Ops.cpp.inc|-gen-op-defs"
      "Types.h.inc|-gen-typedef-decls|-typedefs-dialect=${name}"
      "Types.cpp.inc|-gen-typedef-defs|-typedefs-dialect=${name}"
      "Attrs.h.inc|-gen-attrdef-decls|-attrdefs-dialect=${name}"
      "Attrs.cpp.inc|-gen-attrdef-defs|-attrdefs-dialect=${name}")
    string(REPLACE "|" ";" kind_flags "${kind_flags}")
    list(POP_FRONT kind_flags suffix)
    _lighthouse_tblgen("${gen}/${name}${suffix}" "${td}" ${kind_flags})
    list(APPEND generated "${gen}/${name}${suffix}")
  endforeach()
  if(ARG_PASSES_TD)
    get_filename_component(passes_td "${ARG_PASSES_TD}" ABSOLUTE)
    _lighthouse_tblgen("${gen}/${name}Passes.h.inc" "${passes_td}" -gen-pass-decls)
    list(APPEND generated "${gen}/${name}Passes.h.inc")
  endif()

  # The dialect's C++, on lighthouse's MLIR.
  add_library(${name} SHARED ${ARG_SOURCES} ${generated})
  target_include_directories(${name} PRIVATE "${gen}" "${CMAKE_CURRENT_SOURCE_DIR}"
                                             ${ARG_INCLUDE_DIRS})
  target_link_libraries(${name} PUBLIC Lighthouse::CAPI)
  # lighthouse's library (and the libLLVM a repaired wheel carries beside it).
  # Installed by pip next to lighthouse, the dialect finds them relative to
  # itself: pip's isolated build environment, which held the lighthouse built
  # against, is gone by then. (A Python process or lh-opt has them loaded
  # already, which the loader matches by name wherever the dialect lies.)
  set(_rpath "${LIGHTHOUSE_LIBS_DIR};${LIGHTHOUSE_PACKAGE_DIR}/../lighthouse.libs")
  set(_install_rpath "${_rpath}")
  if(ARG_INSTALL_DESTINATION AND NOT IS_ABSOLUTE "${ARG_INSTALL_DESTINATION}")
    file(RELATIVE_PATH _up "/${ARG_INSTALL_DESTINATION}" "/")
    set(_install_rpath "$ORIGIN/${_up}/lighthouse/_mlir_libs;$ORIGIN/${_up}/lighthouse.libs")
  endif()
  set_target_properties(${name} PROPERTIES
    CXX_STANDARD 17 CXX_VISIBILITY_PRESET default
    BUILD_RPATH "${_rpath}" INSTALL_RPATH "${_install_rpath}")

  # The Python extension: register_dialect(context).
  set(extension_source "${gen}/_${name}_extension.cpp")
  string(MAKE_C_IDENTIFIER "${name}" ident)
  set(LIGHTHOUSE_DIALECT_NAME "${ident}")
  set(LIGHTHOUSE_DIALECT_HAS_PASSES 0)
  if(ARG_PASSES_TD)
    set(LIGHTHOUSE_DIALECT_HAS_PASSES 1)
  endif()
  set(LIGHTHOUSE_DIALECT_HAS_PYTHON_SOURCES 0)
  if(ARG_PYTHON_SOURCES)
    set(LIGHTHOUSE_DIALECT_HAS_PYTHON_SOURCES 1)
  endif()
  configure_file("${_LIGHTHOUSE_SDK_DIR}/DialectExtension.cpp.in" "${extension_source}" @ONLY)
  nanobind_add_module(_${name} NB_DOMAIN ${name} "${extension_source}" ${ARG_PYTHON_SOURCES})
  target_link_libraries(_${name} PRIVATE ${name})
  target_include_directories(_${name} PRIVATE "${gen}" "${CMAKE_CURRENT_SOURCE_DIR}"
                                               ${ARG_INCLUDE_DIRS})
  target_compile_definitions(_${name} PRIVATE MLIR_PYTHON_PACKAGE_PREFIX=lighthouse.)
  set_target_properties(_${name} PROPERTIES
    BUILD_RPATH "$ORIGIN;${_rpath}" INSTALL_RPATH "$ORIGIN;${_install_rpath}")

  # The op classes.
  set(python_out "${CMAKE_CURRENT_BINARY_DIR}/python/${ARG_PYTHON_PACKAGE}")
  file(MAKE_DIRECTORY "${python_out}")
  _lighthouse_tblgen("${python_out}/_${name}_ops_gen.py" "${td}"
                     -gen-python-op-bindings -bind-dialect=${name})
  configure_file("${_LIGHTHOUSE_SDK_DIR}/ods_common.py.in" "${python_out}/_ods_common.py" COPYONLY)
  file(WRITE "${python_out}/${name}.py"
    "# Generated by lighthouse_add_dialect: the ${name} dialect on lighthouse's bindings.\n"
    "import lighthouse as _lighthouse\n"
    "\n"
    "# The dialect's C++ holds MLIR's ABI of the lighthouse it was built against.\n"
    "if _lighthouse.__version__ != '${LIGHTHOUSE_VERSION}+mlir${LIGHTHOUSE_MLIR_VERSION}':\n"
    "    raise ImportError(\n"
    "        f'{__name__} was built against lighthouse ${LIGHTHOUSE_VERSION}+mlir${LIGHTHOUSE_MLIR_VERSION}, '\n"
    "        f'but lighthouse {_lighthouse.__version__} is installed: rebuild it against this one'\n"
    "    )\n"
    "\n"
    "from ._ods_common import _cext  # noqa: E402\n"
    "from ._${name}_ops_gen import *  # noqa: E402,F401,F403\n"
    "from ._${name} import *  # noqa: E402,F401,F403\n"
    "\n"
    "# Operations of this dialect found in IR resolve to the classes above.\n"
    "_cext.globals.append_dialect_search_prefix(__name__.rpartition('.')[0])\n"
    "\n"
    "# Every lighthouse.ir.Context made from now on knows the dialect, so IR text\n"
    "# using it parses anywhere (lighthouse.compiler.compile_module included).\n"
    "from lighthouse._mlir_libs import get_dialect_registry  # noqa: E402\n"
    "\n"
    "insert_into_registry(get_dialect_registry())\n")
  add_custom_target(${name}_python ALL DEPENDS "${python_out}/_${name}_ops_gen.py")

  if(ARG_INSTALL_DESTINATION)
    install(TARGETS ${name} _${name} LIBRARY DESTINATION "${ARG_INSTALL_DESTINATION}")
    install(FILES "${python_out}/_${name}_ops_gen.py" "${python_out}/_ods_common.py"
                  "${python_out}/${name}.py"
            DESTINATION "${ARG_INSTALL_DESTINATION}")
  endif()
endfunction()
