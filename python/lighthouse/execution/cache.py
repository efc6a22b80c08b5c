"""The compile cache: compiled code kept in a folder of saved modules, one
per key (`CompileOptions.cache_dir`), where a hit skips the pipeline and the
JIT."""

import functools
import hashlib
import json
import os
from typing import Sequence, Tuple

from .._version import LIGHTHOUSE_VERSION, MLIR_VERSION
from .abi import TensorSpec
from .libraries import LIBRARY_DIR
from .saved import FORMAT

__all__ = ["cache_key"]


@functools.lru_cache(maxsize=None)
def compiler_identity() -> str:
    """The size and modification time of the library that holds lighthouse's
    passes, pipelines and JIT: they change with every build, where the
    version may not, and the same pipeline name may come to mean other
    passes (`lighthouse-cpu` was the loops pipeline before it named the
    default). Statting it costs microseconds; hashing it, a second."""
    status = os.stat(os.path.join(LIBRARY_DIR, "libLighthouseCAPI.so"))
    return f"{status.st_size}:{status.st_mtime_ns}"


def cache_key(
    module,
    function_name: str,
    pipeline_text: str,
    opt_level: int,
    unroll_loops: bool,
    signature: Tuple[Sequence[TensorSpec], Sequence[TensorSpec]] = ((), ()),
) -> str:
    """The compile cache's key for `module` (linalg IR, an `ir.Module`): its
    text and everything else the compiled code depends on, and the
    `signature` (arguments, results) it is called with, which the IR does not
    tell in full (a uint8 and an int8 tensor are both i8 there)."""
    # Imported here: reading the installed packages' entry points takes 25
    # ms, which code compiled without a cache does without.
    from .. import plugins

    digest = hashlib.sha256()
    for part in (
        str(FORMAT),
        LIGHTHOUSE_VERSION,
        MLIR_VERSION,
        compiler_identity(),
        function_name,
        pipeline_text,
        str(opt_level),
        str(unroll_loops),
        plugins.loaded_plugins_identity(),
        json.dumps([[spec.to_json() for spec in specs] for specs in signature]),
    ):
        digest.update(part.encode() + b"\0")
    digest.update(module.operation.get_asm(binary=True, print_generic_op_form=True))
    return digest.hexdigest()[:32]
