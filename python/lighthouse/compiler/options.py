"""How lighthouse compiles: `CompileOptions`, given whole or field by field."""

import dataclasses
import os
from typing import Any, Mapping, Optional, Union

__all__ = ["CompileOptions", "OPTION_NAMES", "resolve_options"]


@dataclasses.dataclass(frozen=True)
class CompileOptions:
    """How lighthouse compiles: the pipeline, IR dumps, the JIT's LLVM settings,
    the cache. The entry points take one as `options=`, and each field as a
    keyword argument too, which wins over `options`.

    Attributes:
      pipeline: a name from `PIPELINES` or a plugin's, or a pipeline string
        `builtin.module(...)`.
      dump_ir: True to keep the IR of each stage in the compiled module's
        `.ir`; a folder to also write it there.
      opt_level: LLVM's optimization level for the JIT (0 to 3).
      unroll_loops: True lets LLVM unroll loops (it interleaves the loops it
        vectorizes either way): compiles 1.2x to 6x slower, and code that is
        not always faster (see docs/compile.md, "LLVM").
      jit_threads: threads LLVM compiles on, each a part of the module's
        functions (0: one per hardware thread that gets enough code).
      cache_dir: a folder of compiled code keyed on the linalg IR, the
        pipeline and the versions: a hit skips the pipeline and the JIT; a
        PyTorch model found by its fingerprint (weights, attributes, code
        files, input shapes) also skips torch.export and the lowering.
      runtime_checks: check dynamic sizes and indices before the compiled
        code uses them (ValueError when one is out of range); False leaves
        them unchecked, for code whose inputs are known good
        (lighthouse-insert-runtime-checks, docs/compile.md).
      lowering_time_limit: seconds torch-mlir's lowering of a model may take
        before its process is stopped (`lighthouse.ingress.LoweringCrash`);
        None: `LIGHTHOUSE_LOWERING_TIME_LIMIT`, else 300.
    """

    pipeline: str = "default"
    dump_ir: Union[bool, str, os.PathLike, None] = None
    opt_level: int = 3
    unroll_loops: bool = False
    jit_threads: int = 0
    cache_dir: Union[str, os.PathLike, None] = None
    runtime_checks: bool = True
    lowering_time_limit: Optional[float] = None

    def merged(self, overrides: Mapping[str, Any]) -> "CompileOptions":
        """These options with the fields named in `overrides` replaced."""
        unknown = sorted(set(overrides) - set(OPTION_NAMES))
        if unknown:
            raise TypeError(
                f"unknown compile option(s) {', '.join(unknown)}; the options "
                f"are {', '.join(OPTION_NAMES)}"
            )
        return dataclasses.replace(self, **overrides)


OPTION_NAMES = tuple(field.name for field in dataclasses.fields(CompileOptions))


def resolve_options(
    options: Optional[CompileOptions], overrides: Mapping[str, Any]
) -> CompileOptions:
    if options is None:
        options = CompileOptions()
    elif not isinstance(options, CompileOptions):
        raise TypeError(f"options must be a CompileOptions, got {type(options).__name__}")
    return options.merged(overrides)
