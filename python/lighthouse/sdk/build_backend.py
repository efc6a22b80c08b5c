"""The build backend of projects that build dialects against lighthouse: scikit-build-core,
compiling with the compiler lighthouse was built with.

A dialect project names it in its pyproject.toml::

    [build-system]
    requires = ["lighthouse[sdk]==<lighthouse's version>", "scikit-build-core>=0.10",
                "nanobind==2.9.2"]
    build-backend = "lighthouse.build_backend"

MLIR's C++ compiled by another compiler family or major release than lighthouse's links and
loads, but its TypeIDs silently disagree with lighthouse's. So unless CC and CXX choose a
compiler (which must then be of lighthouse's family and release), this backend sets them to the
compilers lighthouse recorded at its build, found by name on PATH or at their recorded path; a
missing or mismatched compiler stops the build before CMake runs, with one line naming it.
CMake finds the lighthouse the backend runs from (the build environment's, in build
isolation), not another on the interpreter's path. Everything else is scikit-build-core's,
configured by the project's [tool.scikit-build].
"""

import os
import re
import shutil
import subprocess
import sys

from scikit_build_core import build as _scikit_build

from .. import _version

__all__ = [
    "build_editable",
    "build_sdist",
    "build_wheel",
    "get_requires_for_build_editable",
    "get_requires_for_build_sdist",
    "get_requires_for_build_wheel",
    "prepare_metadata_for_build_editable",
    "prepare_metadata_for_build_wheel",
]

_MAJOR = _version.CXX_COMPILER_VERSION.split(".")[0]
_BUILT_WITH = f"{_version.CXX_COMPILER_ID} {_version.CXX_COMPILER_VERSION}"


def _fail(message: str):
    # pip shows a backend's output under its error banner: one line, first.
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(1)


def _find(recorded: str, search_path: str | None) -> str | None:
    return shutil.which(os.path.basename(recorded), path=search_path) or (
        recorded if os.access(recorded, os.X_OK) else None
    )


def _release_of(compiler: str) -> str | None:
    """The family and major release a compiler names itself with, e.g. 'Clang 22'."""
    try:
        banner = subprocess.run(
            [compiler, "--version"], capture_output=True, text=True, timeout=30
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.search(r"clang version (\d+)", banner)
    if match:
        return f"Clang {match.group(1)}"
    match = re.search(r" (\d+)\.\d+\.\d+", banner)
    if match and "Free Software Foundation" in banner:
        return f"GNU {match.group(1)}"
    return None


def select_compilers(environ=os.environ) -> None:
    """Sets CC and CXX in `environ` to lighthouse's compilers unless set; checks them.

    Raises:
      SystemExit: a compiler is missing or of another family or release than lighthouse's.
    """
    wanted = f"{_version.CXX_COMPILER_ID} {_MAJOR}"
    for variable, recorded in (("CC", _version.C_COMPILER), ("CXX", _version.CXX_COMPILER)):
        chosen = environ.get(variable)
        if not chosen:
            found = _find(recorded, environ.get("PATH"))
            if found is None:
                _fail(
                    f"lighthouse was built with {_BUILT_WITH} ({os.path.basename(recorded)}), "
                    f"which a dialect built against it must use, but it is not on PATH: install "
                    f"it (Debian: apt install clang-{_MAJOR}) or set {variable} to it"
                )
            environ[variable] = found
            continue
        path = shutil.which(chosen.split()[0], path=environ.get("PATH"))
        if path is None:
            _fail(f"{variable}={chosen} is not a program on PATH")
        release = _release_of(path)
        if release is not None and release != wanted:
            _fail(
                f"{variable}={chosen} is {release}, but lighthouse was built with {_BUILT_WITH}: "
                f"MLIR's TypeIDs differ between compilers, so a dialect must be built with "
                f"{wanted} (unset {variable} to use {os.path.basename(recorded)})"
            )


def get_requires_for_build_wheel(config_settings=None):
    return _scikit_build.get_requires_for_build_wheel(config_settings)


def get_requires_for_build_sdist(config_settings=None):
    return _scikit_build.get_requires_for_build_sdist(config_settings)


def get_requires_for_build_editable(config_settings=None):
    return _scikit_build.get_requires_for_build_editable(config_settings)


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return _scikit_build.prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    return _scikit_build.prepare_metadata_for_build_editable(metadata_directory, config_settings)


def build_sdist(sdist_directory, config_settings=None):
    return _scikit_build.build_sdist(sdist_directory, config_settings)


def with_this_lighthouse(config_settings=None) -> dict:
    """`config_settings` with CMake's Lighthouse_DIR set, unless given, to the
    CMake package of the lighthouse this backend runs from: in build
    isolation, the build environment's, with the SDK the project requires.
    scikit-build-core puts the interpreter's site-packages on
    CMAKE_PREFIX_PATH, where the user's own lighthouse (without the SDK, or
    of another version) would otherwise be found first."""
    settings = dict(config_settings or {})
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    settings.setdefault("cmake.define.Lighthouse_DIR", os.path.join(package, "cmake"))
    return settings


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    select_compilers()
    return _scikit_build.build_wheel(
        wheel_directory, with_this_lighthouse(config_settings), metadata_directory
    )


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    select_compilers()
    return _scikit_build.build_editable(
        wheel_directory, with_this_lighthouse(config_settings), metadata_directory
    )
