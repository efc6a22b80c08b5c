"""Pipelines contributed by other packages, found by name.

A package adds a pipeline to lighthouse, without touching lighthouse, by
declaring an entry point in the group `lighthouse.pipelines`:

    [project.entry-points."lighthouse.pipelines"]
    fused-cpu = "my_compiler.pipelines:FUSED_CPU"

The entry point names a pass pipeline string from linalg on tensors to the
LLVM dialect (`"builtin.module(...)"`), or an object with a `pipeline`
attribute holding one. `lighthouse.compile(model, inputs, pipeline="fused-cpu")`
then runs it.
"""

import functools
import importlib.metadata

__all__ = ["GROUP", "find_pipeline", "pipeline_names"]

GROUP = "lighthouse.pipelines"


@functools.lru_cache(maxsize=None)
def _entry_points() -> dict:
    return {ep.name: ep for ep in importlib.metadata.entry_points(group=GROUP)}


def pipeline_names() -> list:
    """Names of the pipelines installed packages declare."""
    return sorted(_entry_points())


def find_pipeline(name: str):
    """The pipeline string a package declares under `name`, or None."""
    entry_point = _entry_points().get(name)
    if entry_point is None:
        return None
    value = entry_point.load()
    pipeline = value if isinstance(value, str) else getattr(value, "pipeline", None)
    if not isinstance(pipeline, str) or not pipeline.startswith("builtin.module("):
        raise TypeError(
            f"the {GROUP} entry point {name!r} ({entry_point.value}) must name a pipeline "
            f"string 'builtin.module(...)' or an object with such a `pipeline`, got {value!r}")
    return pipeline
