"""What compiling gives: `CompiledModule`, a native function called with arrays.

Its code lives in lighthouse's JIT (compiled in this process) or in a shared
library (`load`, of a folder `CompiledModule.save` wrote); either way it is
called through its packed entry point, with the tensor types of its
signature (`abi.TensorSpec`).
"""

import os
import sys
from typing import Optional, Sequence, Tuple

import numpy as np

from .._mlir_libs._lighthouse import NativeFunction
from . import saved
from .abi import NOT_IN_TORCH, TensorSpec

__all__ = ["CompiledModule", "load"]

# OpenMP threads that wait for work after a parallel region spin for 200 ms by
# default, taking the cores from everything else in the process (PyTorch's own
# threads, say). They spin for 1 ms instead, unless the user chose otherwise:
# long enough to stay awake from one op's region to the next and from one call
# to the next in a loop, as waking a sleeping thread costs tens of
# microseconds and more on a virtual machine's idle core (a BERT layer norm at
# 2 threads, called in a loop: 0.86 ms with no spin, 0.24 ms with 1 ms, 0.40
# ms on one thread), and short next to the 8-10 ms PyTorch's libgomp spins.
os.environ.setdefault("KMP_BLOCKTIME", "1ms")


class CompiledModule:
    """A JIT-compiled function; call it with arrays like the model it came from.

    Arrays are passed without copies when C-contiguous; results are arrays of
    the kind of the arguments (torch tensors if any argument is one), over
    buffers the compiled code allocated and hands over.

    Attributes:
      pipeline: the pass pipeline it was compiled with.
      timings: seconds spent in each compilation stage; `jit.<step>` are
        the JIT's own steps (translate, split, optimize, codegen, weights,
        load: optimize and codegen summed over the parts compiled on
        threads).
      peak_rss: the process's peak resident memory, in bytes, at the end of
        each compilation stage.
      ir: the IR after each stage, when compiled with `dump_ir`.
    """

    def __init__(
        self,
        address: int,
        owner,
        function_name: str,
        arguments: Sequence[TensorSpec],
        results: Sequence[TensorSpec],
        pipeline: str,
        timings: Optional[dict] = None,
        ir: Optional[dict] = None,
        peak_rss: Optional[dict] = None,
    ):
        """Wraps the packed entry point `_mlir_<function_name>` at `address`,
        whose code `owner` (lighthouse's execution engine, or the `ctypes.CDLL`
        of a saved module) holds: it is kept as long as this object."""
        self._function = NativeFunction(
            address, [a.native() for a in arguments], [r.native() for r in results]
        )
        self._owner = owner
        self._function_name = function_name
        self._arguments = list(arguments)
        self._results = list(results)
        self._scalar_results = any(r.scalar for r in self._results)
        # Results the native call gives as another dtype, viewed as theirs:
        # nanobind makes uint64 results numpy's `ulonglong`, which numpy takes
        # for uint64 but torch.from_numpy does not; ml_dtypes' come as their
        # stand-ins.
        self._viewed_results = [
            (i, r.dtype)
            for i, r in enumerate(self._results)
            if r.dtype == np.uint64 or r.stand_in is not None
        ]
        # Those that become torch tensors of torch's dtype of the same name
        # (bfloat16, float8_*) through their stand-ins.
        self._torch_views = [
            (i, r.stand_in, r.dtype.name)
            for i, r in enumerate(self._results)
            if r.stand_in is not None
        ]
        # With an argument that the native call takes as its stand-in, every
        # call is checked first: the native call alone would take a uint16
        # array for a bfloat16 one.
        self._stand_in_arguments = any(a.stand_in is not None for a in self._arguments)
        self._not_in_torch = [
            (i, r.dtype) for i, r in enumerate(self._results) if r.dtype.name in NOT_IN_TORCH
        ]
        self._fixed = [(i, a.value) for i, a in enumerate(self._arguments) if a.value is not None]
        self.pipeline = pipeline
        self.timings = {} if timings is None else timings
        self.peak_rss = {} if peak_rss is None else peak_rss
        self.ir = {} if ir is None else ir

    @property
    def function_name(self) -> str:
        """The name of the compiled function in its module."""
        return self._function_name

    @property
    def arguments(self) -> Tuple[Tuple[np.dtype, tuple], ...]:
        """(dtype, shape) of each argument; None in a shape is a dynamic size."""
        return tuple(a.public() for a in self._arguments)

    @property
    def results(self) -> Tuple[Tuple[np.dtype, tuple], ...]:
        """(dtype, shape) of each result; None in a shape is a dynamic size."""
        return tuple(r.public() for r in self._results)

    def signature(self) -> str:
        arguments = ", ".join(a.describe() for a in self._arguments)
        results = ", ".join(r.describe() for r in self._results)
        return f"{self._function_name}({arguments}) -> ({results})"

    def __repr__(self):
        return f"<lighthouse.CompiledModule {self.signature()}>"

    def save(self, path) -> None:
        """Saves the compiled code (a shared library) and a manifest to the folder
        `path`; `lighthouse.load(path)` runs it without recompiling."""
        saved.save(
            path,
            self._owner,
            function_name=self._function_name,
            pipeline=self.pipeline,
            arguments=self._arguments,
            results=self._results,
        )

    def _check_argument(self, index: int, value, spec: TensorSpec, torch) -> np.ndarray:
        if spec.scalar and isinstance(value, (bool, int, float, np.generic)):
            return self._scalar_argument(index, value, spec)
        if torch is not None and isinstance(value, torch.Tensor):
            if value.device.type != "cpu":
                raise TypeError(
                    f"argument {index}: lighthouse runs on the CPU, the tensor is on {value.device}"
                )
            if value.layout != torch.strided:
                raise TypeError(
                    f"argument {index}: lighthouse takes dense tensors, got a {value.layout} one "
                    "(to_dense() makes one)"
                )
            # Checked before numpy(), which refuses some dtypes (complex
            # tensors with the conjugate bit) in its own words.
            dtype = str(value.dtype).removeprefix("torch.")
            if spec.stand_in is not None and spec.dtype.name in NOT_IN_TORCH:
                raise TypeError(
                    f"argument {index}: expected {spec.dtype} elements, which torch has no "
                    f"tensors of that lighthouse can pass (torch.{spec.dtype} is a placeholder): "
                    f"pass a numpy array of ml_dtypes.{spec.dtype}, got a tensor of {dtype}"
                )
            if dtype != spec.dtype.name:
                raise TypeError(f"argument {index}: expected {spec.dtype} elements, got {dtype}")
            value = value.detach().resolve_neg()
            if spec.stand_in is not None:
                # numpy() refuses bfloat16 and float8 tensors: their bits, as
                # ml_dtypes' dtype of the same name.
                value = value.view(getattr(torch, spec.stand_in.name)).numpy().view(spec.dtype)
            else:
                value = value.numpy()
        elif not isinstance(value, np.ndarray):
            raise TypeError(
                f"argument {index}: expected a numpy array or a torch tensor "
                f"of {spec.describe()}, got {type(value).__name__}"
            )
        if value.dtype != spec.dtype:
            raise TypeError(f"argument {index}: expected {spec.dtype} elements, got {value.dtype}")
        if value.ndim != len(spec.shape):
            raise ValueError(
                f"argument {index}: expected rank {len(spec.shape)} "
                f"({spec.describe()}), got shape {tuple(value.shape)}"
            )
        for dim, (expected, actual) in enumerate(zip(spec.shape, value.shape)):
            if expected is not None and expected != actual:
                raise ValueError(
                    f"argument {index}: dimension {dim} must be {expected} "
                    f"({spec.describe()}), got shape {tuple(value.shape)}"
                )
        if not value.flags.c_contiguous:
            value = np.ascontiguousarray(value)
        return value if spec.stand_in is None else value.view(spec.stand_in)

    @staticmethod
    def _scalar_argument(index: int, value, spec: TensorSpec) -> np.ndarray:
        """A Python or numpy number as the 0-d array a scalar crosses as; a
        number of another kind (a float for an integer) is refused, not
        rounded."""
        kinds = {"b": (bool, np.bool_), "i": (int, np.integer), "u": (int, np.integer)}
        accepted = kinds.get(spec.dtype.kind, (int, float, np.integer, np.floating))
        if isinstance(value, (bool, np.bool_)) and spec.dtype.kind != "b":
            accepted = ()
        if not isinstance(value, accepted):
            raise TypeError(f"argument {index}: expected a {spec.dtype} scalar, got {value!r}")
        try:
            converted = np.array(value, dtype=spec.dtype)
        except OverflowError:
            raise ValueError(f"argument {index}: {value!r} does not fit in {spec.dtype}") from None
        if spec.dtype.kind in "iu" and converted.item() != value:
            raise ValueError(f"argument {index}: {value!r} does not fit in {spec.dtype}")
        return converted

    def _check_fixed(self, args) -> None:
        for index, value in self._fixed:
            if index < len(args) and not (
                isinstance(args[index], (bool, int, float, np.generic, np.ndarray))
                and np.ndim(args[index]) == 0
                and args[index] == value
            ):
                raise ValueError(
                    f"argument {index}: the model was exported with {value!r} there, which "
                    f"torch.export made a constant of the model; got {args[index]!r} "
                    "(pass a tensor to vary it)"
                )

    def __call__(self, *args):
        if self._fixed:
            self._check_fixed(args)
        torch = sys.modules.get("torch")
        tensors = negated = False
        if torch is not None:
            for a in args:
                if isinstance(a, torch.Tensor):
                    tensors = True
                    # DLPack hands over a negative view's memory without its
                    # negation (torch._neg_view): such a tensor is resolved below.
                    negated = negated or a.is_neg()
        # With torch tensors, a result torch has no dtype of is refused
        # once the arguments are checked.
        unchecked = negated or self._stand_in_arguments or (tensors and self._not_in_torch)
        outputs = None if unchecked else self._function(*args)
        if outputs is None:
            # An argument is not a contiguous array of the expected dtype and
            # shape, or is a negative view: check it, then report or convert it.
            if len(args) != len(self._arguments):
                raise TypeError(
                    f"{self.signature()} takes {len(self._arguments)} arguments, got {len(args)}"
                )
            checked = [
                self._check_argument(i, a, s, torch)
                for i, (a, s) in enumerate(zip(args, self._arguments))
            ]
            if tensors and self._not_in_torch:
                index, dtype = self._not_in_torch[0]
                raise TypeError(
                    f"result {index} is of {dtype}, which torch has no tensors of that "
                    f"lighthouse can give (torch.{dtype} is a placeholder): call "
                    f"{self.signature()} with numpy arrays, to have numpy arrays of ml_dtypes' "
                    "dtypes back"
                )
            outputs = self._function(*checked)
            if outputs is None:
                kinds = ", ".join(type(a).__name__ for a in args)
                raise TypeError(
                    f"lighthouse could not pass ({kinds}) to {self.signature()} "
                    "although they passed its checks: a lighthouse bug"
                )
        for index, dtype in self._viewed_results:
            outputs[index] = outputs[index].view(dtype)
        # Results are of the kind the arguments are; scalars are numbers.
        if tensors:
            for index, stand_in, name in self._torch_views:
                outputs[index] = outputs[index].view(stand_in)
            outputs = [torch.from_numpy(o) for o in outputs]
            for index, _, name in self._torch_views:
                outputs[index] = outputs[index].view(getattr(torch, name))
        if self._scalar_results:
            outputs = [o.item() if s.scalar else o for o, s in zip(outputs, self._results)]
        return outputs[0] if len(outputs) == 1 else tuple(outputs)


def load(
    path,
    *,
    timings: Optional[dict] = None,
    ir: Optional[dict] = None,
    peak_rss: Optional[dict] = None,
) -> CompiledModule:
    """Loads code saved by `CompiledModule.save`, without recompiling.

    The library is loaded only once its sha256 is the manifest's, and the
    manifest is then checked against the library's own copy
    (`saved.open_saved`).

    Args:
      path: the folder it was saved to.
      timings, ir, peak_rss: the loaded module's `timings`, `ir` and
        `peak_rss` (a compilation that found it in its cache passes its own).

    Raises:
      FileNotFoundError: `path` holds no saved module.
      ValueError: it was saved by another lighthouse or MLIR version or in
        another format, or its manifest or library is damaged, changed or
        another module's; the message names the file and what is wrong.
    """
    code = saved.open_saved(path)
    return CompiledModule(
        code.address,
        code.library,
        code.function_name,
        code.arguments,
        code.results,
        code.pipeline,
        timings=timings,
        ir=ir,
        peak_rss=peak_rss,
    )
