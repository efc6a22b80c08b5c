"""A fingerprint of a PyTorch model as `lighthouse.compile` would export it,
taken before torch.export runs, so that a compile cache can be looked up in
a fraction of the export's time (2.4 s of BERT-base's 7 s compile).

What torch.export makes of a module depends on:
- its weights and buffers: their bytes (sha256, about 1.3 GB/s here: 0.34 s
  for BERT-base's 440 MB), dtypes, shapes and strides;
- the state its Python code reads: every submodule's attributes, followed
  into plain objects (a transformers configuration), the `training` flags,
  hooks, and the closures and defaults of the functions it holds;
- its code: the path, size and modification time of every module file the
  process has loaded (statting 200-3000 files takes milliseconds);
- the example inputs (their shapes, dtypes and strides, not their values,
  which are not exported; but the values of Python numbers, which the
  export makes constants), `dynamic_shapes`, the grad mode and the default
  dtype.

What it cannot pin down, it refuses (`None`): code defined without a file (a
class typed into a notebook or built by `exec`, where no file tells its
version), an attribute of a kind it does not know, a tensor it cannot read
(meta, quantized). A module first imported while the model is exported
(after the fingerprint) is not in it.

A module of its own, beside `lighthouse.ingress.torch`: that package imports
torch-mlir's importer (0.5 s), which a model found in the cache does without.
"""

import concurrent.futures
import enum
import functools
import hashlib
import os
import struct
import sys
import types
from typing import Any, Optional

import torch

__all__ = ["fingerprint"]

#: How deep attributes are followed into plain objects; deeper state is
#: refused.
_DEPTH = 8


class _Unknown(Exception):
    """A part of the model the fingerprint cannot pin down."""


def fingerprint(model, example_inputs=(), dynamic_shapes: Any = None) -> Optional[str]:
    """The sha256 of what `model` exported on `example_inputs` with
    `dynamic_shapes` depends on (see the module's docstring), or None where
    the model holds something it cannot pin down."""
    if not isinstance(model, torch.nn.Module) or not _has_file(sys.modules.get("__main__")):
        return None
    digest = _Digest()
    try:
        digest.add("lighthouse model fingerprint 1", torch.__version__, sys.version)
        digest.add(torch.is_grad_enabled(), torch.get_default_dtype())
        names = {id(module): name for name, module in model.named_modules(remove_duplicate=False)}
        for name, module in model.named_modules(remove_duplicate=False):
            digest.add("module", name)
            digest.value(module, names, _DEPTH, top=True)
        # The values of the inputs' tensors are not exported (a branch on
        # them fails to export), and an unseeded torch.randn must still hit.
        digest.add("inputs")
        digest.tensor_values = False
        digest.value(example_inputs, names, _DEPTH)
        digest.add("dynamic_shapes", repr(dynamic_shapes))
        digest.code()
    except Exception:  # noqa: BLE001 - _Unknown, or a user's object the walk
        # cannot read (a tensor torch cannot view as bytes): the model is
        # exported and found by its linalg IR instead.
        return None
    return digest.hexdigest()


def _has_file(module) -> bool:
    return module is not None and bool(getattr(module, "__file__", None))


class _Digest:
    def __init__(self):
        self._sha = hashlib.sha256()
        # Objects already fingerprinted, by the order they were met in (an
        # id differs from process to process).
        self._seen = {}
        #: Whether a tensor counts for its bytes, or only its kind and shape.
        self.tensor_values = True
        #: The tensors' bytes, in the order met, hashed at the end.
        self._bytes = []

    def add(self, *parts) -> None:
        for part in parts:
            self._sha.update(str(part).encode() + b"\0")

    def hexdigest(self) -> str:
        """The digest, with each tensor's bytes hashed on a thread of its
        own: hashlib lets go of the GIL, and BERT-base's 440 MB take 0.34 s
        on one core."""
        with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
            for digest in pool.map(lambda data: hashlib.sha256(data).digest(), self._bytes):
                self._sha.update(digest)
        return self._sha.hexdigest()

    def code(self) -> None:
        """The path, size and modification time of every loaded module's file."""
        for name, module in sorted(list(sys.modules.items()), key=lambda item: item[0]):
            path = getattr(module, "__file__", None)
            if not path:
                continue
            try:
                status = os.stat(path)
            except OSError:
                status = None
            self.add(name, path, status and (status.st_size, status.st_mtime_ns))

    def tensor(self, tensor: torch.Tensor) -> None:
        if (
            type(tensor) not in (torch.Tensor, torch.nn.Parameter, torch.nn.Buffer)
            or tensor.is_meta
            or tensor.is_quantized
            or tensor.layout != torch.strided
        ):
            raise _Unknown
        self.add("tensor", tensor.dtype, tuple(tensor.shape), tensor.stride())
        self.add(type(tensor).__name__, tensor.requires_grad)
        if self.tensor_values:
            data = tensor.detach().contiguous().reshape(-1)
            self._bytes.append(data.view(torch.uint8).numpy())

    def defined(self, value) -> None:
        """A class or function by where it is defined: its code is in the
        module files fingerprinted (an extension's submodules, `torch._C._nn`,
        in the extension's), or built into Python."""
        name = getattr(value, "__module__", None) or ""
        if name not in sys.builtin_module_names and not any(
            _has_file(sys.modules.get(".".join(name.split(".")[:length])))
            for length in range(name.count(".") + 1, 0, -1)
        ):
            raise _Unknown
        self.add("defined", name, getattr(value, "__qualname__", None))

    def value(self, value, names, depth: int, top: bool = False) -> None:
        if depth < 0:
            raise _Unknown
        if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
            self.add(type(value).__name__, repr(value))
        elif isinstance(value, (torch.dtype, torch.device, torch.layout, torch.memory_format)):
            self.add(repr(value))
        elif isinstance(value, enum.Enum):
            self.defined(type(value))
            self.add(value.name)
        elif isinstance(value, types.ModuleType):
            self.add("module", value.__name__)
        elif isinstance(value, torch.Tensor):
            self.tensor(value)
        elif isinstance(value, torch.nn.Module) and not top and id(value) in names:
            # Each submodule of the model is fingerprinted once, under its name.
            self.add("submodule", names[id(value)])
        elif isinstance(value, (list, tuple, dict, set, frozenset)):
            self.defined(type(value))
            if isinstance(value, dict):
                items = list(value.items())
            elif isinstance(value, (set, frozenset)):
                items = list(enumerate(sorted(value, key=repr)))
            else:
                items = list(enumerate(value))
            self.add(len(items))
            for key, item in items:
                self.value(key, names, depth - 1)
                self.value(item, names, depth - 1)
        elif isinstance(value, type):
            self.defined(value)
        elif isinstance(value, functools.partial):
            self.add("partial")
            self.value((value.func, value.args, value.keywords), names, depth - 1)
        elif isinstance(value, (types.FunctionType, types.MethodType, types.BuiltinFunctionType)):
            # A function's code is in its file; the state it carries is not.
            self.defined(value)
            for state in ("__defaults__", "__kwdefaults__", "__self__"):
                self.value(getattr(value, state, None), names, depth - 1)
            for cell in getattr(value, "__closure__", None) or ():
                self.value(cell.cell_contents, names, depth - 1)
        else:
            self.instance(value, names, depth)

    def instance(self, value, names, depth: int) -> None:
        """Any other object whose state is its attributes (`_plain`): its
        class and its attributes. Others keep state their attributes do not
        show: refused."""
        cls = type(value)
        if not _plain(cls):
            raise _Unknown
        self.defined(cls)
        if id(value) in self._seen:
            self.add("seen", self._seen[id(value)])
            return
        self._seen[id(value)] = len(self._seen)
        state = {k: v for k, v in vars(value).items() if k not in _PER_PROCESS}
        self.value(dict(sorted(state.items())), names, depth - 1)


#: Attributes that differ from process to process and say nothing of what a
#: model computes: transformers' GenerationConfig keeps its own `hash()`,
#: which Python seeds anew in each process.
_PER_PROCESS = frozenset({"_original_object_hash"})


def _plain(cls: type) -> bool:
    """Whether the instances of `cls` keep all their state in their
    `__dict__`: no slots, and no more memory than `object` and a weak
    reference (a base written in C keeps fields there: `functools.partial`
    takes 64 bytes, a lock 40, a plain class 24)."""
    return (
        cls.__dictoffset__ != 0
        and cls.__basicsize__ <= object.__basicsize__ + struct.calcsize("P")
        and not any(base.__dict__.get("__slots__") for base in cls.__mro__)
    )
