"""The compile cache: compiled code kept in a folder of saved modules, one
per key (`CompileOptions.cache_dir`), where a hit skips the pipeline and the
JIT."""

import functools
import hashlib
import json
import os
from typing import Optional, Sequence, Tuple

from .._version import LIGHTHOUSE_VERSION, MLIR_VERSION
from .abi import TensorSpec
from .libraries import LIBRARY_DIR
from .saved import FORMAT, is_saved

__all__ = ["cache_key", "entry_of_model", "model_key", "remember_model"]


@functools.lru_cache(maxsize=None)
def compiler_identity() -> str:
    """The size and modification time of the library that holds lighthouse's
    passes, pipelines and JIT: they change with every build, where the
    version may not, and the same pipeline name may come to mean other
    passes (`lighthouse-cpu` was the loops pipeline before it named the
    default). Statting it costs microseconds; hashing it, a second."""
    status = os.stat(os.path.join(LIBRARY_DIR, "libLighthouseCAPI.so"))
    return f"{status.st_size}:{status.st_mtime_ns}"


def _identity(function_name: str, pipeline_text: str, opt_level: int, unroll_loops: bool):
    """What compiled code depends on besides its model."""
    # Imported here: reading the installed packages' entry points takes 25
    # ms, which code compiled without a cache does without.
    from .. import plugins

    return (
        str(FORMAT),
        LIGHTHOUSE_VERSION,
        MLIR_VERSION,
        compiler_identity(),
        function_name,
        pipeline_text,
        str(opt_level),
        str(unroll_loops),
        plugins.loaded_plugins_identity(),
    )


def _digest(parts: Sequence[str]):
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode() + b"\0")
    return digest


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
    digest = _digest(
        (
            *_identity(function_name, pipeline_text, opt_level, unroll_loops),
            json.dumps([[spec.to_json() for spec in specs] for specs in signature]),
        )
    )
    digest.update(module.operation.get_asm(binary=True, print_generic_op_form=True))
    return digest.hexdigest()[:32]


#: The folder of a cache that names, for a model's fingerprint, the entry its
#: compilation is in.
MODELS_FOLDER = "by-model"


def model_key(
    fingerprint: str,
    function_name: str,
    pipeline_text: str,
    opt_level: int,
    unroll_loops: bool,
    runtime_checks: bool,
) -> str:
    """The key of a model known by its fingerprint (taken before it is
    exported: `lighthouse.ingress.torch.fingerprint`), with the same
    settings as `cache_key`."""
    parts = _identity(function_name, pipeline_text, opt_level, unroll_loops)
    return _digest((*parts, str(runtime_checks), fingerprint)).hexdigest()[:32]


def entry_of_model(cache_dir: str, key: str) -> Optional[str]:
    """The entry the model of `key` was compiled into, if `remember_model`
    noted one and it is still there."""
    try:
        with open(os.path.join(cache_dir, MODELS_FOLDER, key)) as note:
            entry = note.read().strip()
    except OSError:
        return None
    # A name of the cache's own, not a path from elsewhere.
    if not entry or os.path.basename(entry) != entry:
        return None
    path = os.path.join(cache_dir, entry)
    return path if is_saved(path) else None


def remember_model(cache_dir: str, key: str, entry: str) -> None:
    """Notes that the model of `key` compiles into the entry `entry` (a
    folder of `cache_dir`); written whole or not at all."""
    folder = os.path.join(cache_dir, MODELS_FOLDER)
    os.makedirs(folder, exist_ok=True)
    partial = os.path.join(folder, f".{key}.{os.getpid()}.partial")
    with open(partial, "w") as note:
        note.write(os.path.basename(entry))
    os.replace(partial, os.path.join(folder, key))
