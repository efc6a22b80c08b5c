"""Pipelines and MLIR plugins contributed by other packages, found by name.

A package adds a pipeline to lighthouse, without touching lighthouse, by
declaring an entry point in the group `lighthouse.pipelines`:

    [project.entry-points."lighthouse.pipelines"]
    fused-cpu = "my_compiler.pipelines:FUSED_CPU"

The entry point names a pass pipeline string from linalg on tensors to the
LLVM dialect (`"builtin.module(...)"`), or an object with a `pipeline`
attribute holding one. Such an object may also list MLIR plugins, shared
libraries built against lighthouse's MLIR (lighthouse's CMake SDK builds
them), to load before the pipeline runs:

    class FUSED_CPU:
        pipeline = "builtin.module(my-fusion,lighthouse-cpu)"
        pass_plugins = [Path(__file__).parent / "libmy_compiler.so"]
        dialect_plugins = []   # dialects the pipeline's input may hold

`lighthouse.compile(model, inputs, pipeline="fused-cpu")` then runs it.
`load_pass_plugin` and `load_dialect_plugin` load a plugin directly.
"""

import functools
import importlib.metadata
import os

from ._mlir_libs import _lighthouse, get_dialect_registry

__all__ = ["GROUP", "find_pipeline", "load_dialect_plugin", "load_pass_plugin", "pipeline_names"]

GROUP = "lighthouse.pipelines"


def _plugin_path(path) -> str:
    path = os.path.realpath(os.fspath(path))
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no MLIR plugin at {path}")
    return path


# The plugins this process loaded: what they were when loaded (path, size,
# modification time), which compiled-code caches key on.
_loaded = set()


@functools.lru_cache(maxsize=None)
def _load_pass_plugin(path: str) -> None:
    _lighthouse.load_pass_plugin(path)
    _remember(path)


@functools.lru_cache(maxsize=None)
def _load_dialect_plugin(path: str) -> None:
    _lighthouse.load_dialect_plugin(path, get_dialect_registry())
    _remember(path)


def _remember(path: str) -> None:
    status = os.stat(path)
    _loaded.add(f"{path}:{status.st_size}:{status.st_mtime_ns}")


def loaded_plugins_identity() -> str:
    """What identifies the plugins loaded so far: their passes and dialects
    may change what a pipeline compiles to."""
    return "\n".join(sorted(_loaded))


def load_pass_plugin(path) -> None:
    """Loads the MLIR pass plugin at `path` (once) and registers its passes,
    so that pipeline strings can name them.

    Raises:
      FileNotFoundError: there is no file at `path`.
      ValueError: it is not an MLIR pass plugin built against this MLIR.
    """
    _load_pass_plugin(_plugin_path(path))


def load_dialect_plugin(path) -> None:
    """Loads the MLIR dialect plugin at `path` (once); contexts created
    afterwards know its dialects.

    Raises:
      FileNotFoundError: there is no file at `path`.
      ValueError: it is not an MLIR dialect plugin built against this MLIR.
    """
    _load_dialect_plugin(_plugin_path(path))


@functools.lru_cache(maxsize=None)
def _entry_points() -> dict:
    return {ep.name: ep for ep in importlib.metadata.entry_points(group=GROUP)}


def pipeline_names() -> list:
    """Names of the pipelines installed packages declare."""
    return sorted(_entry_points())


def find_pipeline(name: str):
    """The pipeline string a package declares under `name`, or None; loads the
    plugins it lists first."""
    entry_point = _entry_points().get(name)
    if entry_point is None:
        return None
    value = entry_point.load()
    pipeline = value if isinstance(value, str) else getattr(value, "pipeline", None)
    if not isinstance(pipeline, str) or not pipeline.startswith("builtin.module("):
        raise TypeError(
            f"the {GROUP} entry point {name!r} ({entry_point.value}) must name a pipeline "
            f"string 'builtin.module(...)' or an object with such a `pipeline`, got {value!r}"
        )
    for path in getattr(value, "dialect_plugins", ()):
        load_dialect_plugin(path)
    for path in getattr(value, "pass_plugins", ()):
        load_pass_plugin(path)
    return pipeline
