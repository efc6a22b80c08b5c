"""Compiled code on disk: the folder a saved module is.

A saved module is a folder holding the code, a shared library linked from the
JIT's object files, and a manifest (versions, function, pipeline, signature,
the sha256 of the object files and of the library). The library carries its
own copy of the manifest but for the library's hash. `open_saved` checks the
library against that hash before loading it, then the manifest against the
library's copy; `compiled.load` runs it without compiling, and the compile
cache (`cache`) keeps one such folder per key.
"""

import contextlib
import ctypes
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
from typing import Dict, List, NamedTuple, Sequence

import numpy as np

from .libraries import runtime_library_paths
from .._version import LIGHTHOUSE_VERSION, MLIR_VERSION
from ..errors import CompileError
from .abi import ELEMENT_TYPES, ML_DTYPES, TensorSpec

__all__ = ["FORMAT", "SavedCode", "is_saved", "link_shared_library", "open_saved", "save"]

# A saved CompiledModule: a folder with the code and a manifest. Format 2
# added the hashes to the manifest and the manifest to the library; format 3,
# unsigned dtypes (uint8 ... uint64) where the model declares them, where
# format 2 had the signed ones of the compiled code's signless integers;
# format 4, ml_dtypes' (bfloat16, float8_*, int4, uint4), which lighthouses
# of format 3 took for a damaged manifest.
FORMAT = 4
_LIBRARY = "module.so"
_MANIFEST = "manifest.json"
# The symbol of the library's copy of its manifest but for the hash (a
# NUL-terminated JSON object), which `load` checks the manifest against.
_EMBEDDED_MANIFEST = "lighthouse_manifest"
# Each field of a manifest and its JSON type.
_FIELDS = {
    "format": int,
    "lighthouse": str,
    "mlir": str,
    "function": str,
    "pipeline": str,
    "arguments": list,
    "results": list,
    "code": str,
    "sha256": str,
}
_DTYPES = sorted([np.dtype(t).name for t in ELEMENT_TYPES.values()] + list(ML_DTYPES.values()))
_JSON_TYPES = {int: "an integer", str: "a string", list: "an array"}
# The sha256 of each library this process loaded, by path. The dynamic loader
# hands back the library it loaded under a name even once the file is
# replaced (a module saved again to the same folder): each new library at a
# path is loaded under a name of its own, the path with more "./" in it.
_loaded: Dict[str, List[str]] = {}


def link_shared_library(inputs: Sequence[str], library: str) -> None:
    """Links `inputs` (the JIT's object files, and C sources the compiler
    compiles) into a shared library that finds lighthouse's runtime libraries
    where the package keeps them."""
    linker = (
        os.environ.get("CC") or shutil.which("cc") or shutil.which("clang") or shutil.which("gcc")
    )
    if linker is None:
        raise CompileError("saving compiled code needs a C compiler to link it (set CC)")
    runtime = runtime_library_paths()
    libs_dir = os.path.dirname(runtime[0]) if runtime else ""
    command = [
        linker,
        "-shared",
        "-fPIC",
        *inputs,
        "-o",
        library,
        *runtime,
        "-lm",
        f"-Wl,-rpath,{libs_dir}",
    ]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise CompileError(f"linking {library} failed: {' '.join(command)}\n{result.stderr}")


def _embedded_manifest_source(manifest: dict) -> str:
    """C source defining the library's copy of `manifest`, as bytes so that no
    character needs escaping."""
    data = json.dumps(manifest, sort_keys=True).encode()
    return (
        f"extern const char {_EMBEDDED_MANIFEST}[];\n"
        f"const char {_EMBEDDED_MANIFEST}[] = {{{', '.join(map(str, data))}, 0}};\n"
    )


def _sha256(file: str) -> str:
    digest = hashlib.sha256()
    with open(file, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


@contextlib.contextmanager
def _written_aside(target: str):
    """Yields a path next to `target` to write, then renames the file over
    `target`: a process running a library mapped from the old file keeps it
    (writing in place would take its pages away), and no reader sees half a
    file."""
    partial = f"{target}.{os.getpid()}-{threading.get_ident()}.partial"
    try:
        yield partial
        os.replace(partial, target)
    finally:
        if os.path.exists(partial):
            os.unlink(partial)


def save(
    path,
    code,
    *,
    function_name: str,
    pipeline: str,
    arguments: Sequence[TensorSpec],
    results: Sequence[TensorSpec],
) -> None:
    """Writes `code` (lighthouse's execution engine, or the `ctypes.CDLL` of a
    saved module) and its manifest to the folder `path`."""
    path = os.path.expanduser(path)
    os.makedirs(path, exist_ok=True)
    manifest = {
        "format": FORMAT,
        "lighthouse": LIGHTHOUSE_VERSION,
        "mlir": MLIR_VERSION,
        "function": function_name,
        "pipeline": pipeline,
        "arguments": [a.to_json() for a in arguments],
        "results": [r.to_json() for r in results],
    }
    with _written_aside(os.path.join(path, _LIBRARY)) as library:
        if isinstance(code, ctypes.CDLL):  # Loaded from a folder: it holds this manifest.
            manifest["code"] = _embedded_manifest(code, code._name)["code"]
            shutil.copyfile(code._name, library)
        else:
            objects = code.objects()
            # The code's identity, which tells apart models of one signature:
            # of the object files, as the library cannot hold its own hash.
            manifest["code"] = hashlib.sha256(b"".join(objects)).hexdigest()
            with tempfile.TemporaryDirectory(prefix="lighthouse-") as scratch:
                inputs = []
                for index, data in enumerate(objects):
                    inputs.append(os.path.join(scratch, f"part{index}.o"))
                    with open(inputs[-1], "wb") as f:
                        f.write(data)
                inputs.append(os.path.join(scratch, "manifest.c"))
                with open(inputs[-1], "w") as f:
                    f.write(_embedded_manifest_source(manifest))
                link_shared_library(inputs, library)
        manifest["sha256"] = _sha256(library)
    with _written_aside(os.path.join(path, _MANIFEST)) as file, open(file, "w") as f:
        json.dump(manifest, f, indent=2)


def _read_manifest(manifest_path: str) -> dict:
    """The manifest at `manifest_path`, every field checked for its type, its
    format and versions for this lighthouse's."""

    def damaged(what: str) -> ValueError:
        return ValueError(f"{manifest_path}: {what}; save or compile the module again")

    try:
        with open(manifest_path, encoding="utf-8") as f:
            manifest = json.load(f)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise damaged(f"not valid JSON ({error})") from None
    if not isinstance(manifest, dict):
        raise damaged(f"expected a JSON object, got {json.dumps(manifest)[:80]}")
    saved_by = (manifest.get("lighthouse"), manifest.get("mlir"), manifest.get("format"))
    if saved_by != (LIGHTHOUSE_VERSION, MLIR_VERSION, FORMAT):
        raise ValueError(
            f"{manifest_path}: the module was saved by lighthouse {saved_by[0]} on MLIR "
            f"{saved_by[1]} (format {saved_by[2]}); this is lighthouse {LIGHTHOUSE_VERSION} "
            f"on MLIR {MLIR_VERSION} (format {FORMAT}): compile it again"
        )
    missing = [key for key in _FIELDS if key not in manifest]
    if missing:
        raise damaged(f"no {', '.join(missing)}")
    unknown = sorted(set(manifest) - set(_FIELDS))
    if unknown:
        raise damaged(f"unknown fields {', '.join(unknown)}")
    for key, kind in _FIELDS.items():
        # bool is an int to Python, not to JSON.
        if type(manifest[key]) is not kind:
            raise damaged(f"{key} must be {_JSON_TYPES[kind]}, got {json.dumps(manifest[key])}")
    for key in ("code", "sha256"):
        if not re.fullmatch("[0-9a-f]{64}", manifest[key]):
            raise damaged(f"{key} must be a sha256, 64 hexadecimal digits, got {manifest[key]!r}")
    for kind in ("arguments", "results"):
        for index, spec in enumerate(manifest[kind]):
            where = f"{kind}[{index}]"
            if not isinstance(spec, dict) or set(spec) - {"scalar", "value"} != {"dtype", "shape"}:
                raise damaged(
                    f"{where} must have a dtype and a shape (a scalar's also scalar, and maybe "
                    f"value), got {json.dumps(spec)}"
                )
            if "scalar" in spec and (spec["scalar"] is not True or spec["shape"] != []):
                raise damaged(
                    f"{where}: only a shape [] may be scalar (true), got {json.dumps(spec)}"
                )
            if "value" in spec and (
                "scalar" not in spec or type(spec["value"]) not in (int, float)
            ):
                raise damaged(
                    f"{where}: only a scalar may have a value, a number, got {json.dumps(spec)}"
                )
            if spec["dtype"] not in _DTYPES:
                raise damaged(
                    f"{where}: dtype {json.dumps(spec['dtype'])} is none of {', '.join(_DTYPES)}"
                )
            shape = spec["shape"]
            if not isinstance(shape, list) or not all(
                d is None or (type(d) is int and d >= 0) for d in shape
            ):
                raise damaged(
                    f"{where}: shape must be a list of sizes (null where dynamic), "
                    f"got {json.dumps(shape)}"
                )
    return manifest


def _embedded_manifest(library: ctypes.CDLL, library_path: str) -> dict:
    """The library's own copy of its manifest."""
    try:
        embedded = json.loads(
            ctypes.string_at(ctypes.addressof(ctypes.c_char.in_dll(library, _EMBEDDED_MANIFEST)))
        )
    except ValueError as error:  # No such symbol, or not JSON.
        raise ValueError(
            f"{library_path} carries no readable lighthouse manifest ({error}): "
            "it was not saved by lighthouse"
        ) from None
    if not isinstance(embedded, dict):
        raise ValueError(f"{library_path} carries no lighthouse manifest: not a JSON object")
    return embedded


def _check_against_library(
    manifest: dict, manifest_path: str, library: ctypes.CDLL, library_path: str
) -> None:
    """Checks each field of `manifest` against the library's own copy."""
    embedded = _embedded_manifest(library, library_path)
    for key in [key for key in _FIELDS if key != "sha256"]:
        if manifest[key] != embedded.get(key):
            raise ValueError(
                f"{manifest_path} does not describe {library_path}: its {key} is "
                f"{json.dumps(manifest[key])}, the library's {json.dumps(embedded.get(key))}; "
                "save or compile the module again"
            )


class SavedCode(NamedTuple):
    """A saved module's code, loaded, and what its manifest says of it."""

    address: int  # Of the packed entry point.
    library: ctypes.CDLL
    function_name: str
    arguments: List[TensorSpec]
    results: List[TensorSpec]
    pipeline: str


def open_saved(path) -> SavedCode:
    """Loads the code saved in the folder `path`.

    The library is loaded only once its sha256 is the manifest's, and the
    manifest is then checked against the library's own copy.

    Raises:
      FileNotFoundError: `path` holds no saved module.
      ValueError: it was saved by another lighthouse or MLIR version or in
        another format, or its manifest or library is damaged, changed or
        another module's; the message names the file and what is wrong.
    """
    path = os.path.expanduser(path)
    manifest_path = os.path.abspath(os.path.join(path, _MANIFEST))
    if not os.path.isfile(manifest_path):
        raise FileNotFoundError(f"no compiled module saved in {path} (no {_MANIFEST})")
    manifest = _read_manifest(manifest_path)
    library_path = os.path.abspath(os.path.join(path, _LIBRARY))
    try:
        digest = _sha256(library_path)
    except OSError as error:
        raise ValueError(f"{library_path} cannot be read: {error.strerror}") from None
    if digest != manifest["sha256"]:
        raise ValueError(
            f"{library_path} is not the library {manifest_path} was saved with (sha256 "
            f"{digest}, the manifest's {manifest['sha256']}): it was changed or replaced; "
            "save or compile the module again"
        )
    loaded = _loaded.setdefault(library_path, [])
    if digest not in loaded:
        loaded.append(digest)
    folder, name = os.path.split(library_path)
    try:
        library = ctypes.CDLL(os.path.join(folder, "./" * loaded.index(digest) + name))
    except OSError as error:
        raise ValueError(f"{library_path} cannot be loaded: {error}") from None
    _check_against_library(manifest, manifest_path, library, library_path)
    try:
        function = library[f"_mlir__mlir_ciface_{manifest['function']}"]
    except AttributeError:
        raise ValueError(
            f"{library_path} has no entry point for @{manifest['function']}, which its "
            "manifest names: a lighthouse bug"
        ) from None
    arguments, results = [
        [TensorSpec.from_json(t) for t in manifest[kind]] for kind in ("arguments", "results")
    ]
    return SavedCode(
        ctypes.cast(function, ctypes.c_void_p).value,
        library,
        manifest["function"],
        arguments,
        results,
        manifest["pipeline"],
    )


def is_saved(path) -> bool:
    """Whether the folder `path` holds a saved module."""
    return os.path.isfile(os.path.join(path, _MANIFEST))
