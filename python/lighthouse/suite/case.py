"""A case of a corpus: a workload in one or more forms, its inputs, and the
outputs any compiler must reproduce."""

import contextlib
import copy
import inspect
import io
import os
import shutil
import tempfile
import weakref
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

__all__ = [
    "Case",
    "CaseInfo",
    "Crashed",
    "FORMS",
    "InvalidCase",
    "Unsupported",
    "export_onnx",
    "to_numpy",
    "to_torch",
]

#: The forms a case may offer and a compiler may take:
#:   "torch": a `torch.nn.Module` called with torch tensors;
#:   "onnx":  a serialized ONNX model (bytes), or the `Path` of one whose
#:            weights are in files beside it (over protobuf's 2 GiB), called
#:            with numpy arrays in the order of the graph's inputs;
#:   "mlir":  linalg-on-tensors IR text whose @main takes the inputs.
FORMS = ("torch", "onnx", "mlir")


class Unsupported(Exception):
    """A compiler cannot take a case in any form it offers (or is not
    installed): recorded as `unsupported`, not as a failure."""


class Crashed(Exception):
    """A compiler's own process (a compiler run as a command) died of `signal`:
    recorded as a `crash`, as when the worker itself dies."""

    def __init__(self, message: str, signal: str):
        super().__init__(message)
        self.signal = signal


class InvalidCase(Exception):
    """A case cannot be run at all (its reference raises, or is not
    deterministic): recorded once as `invalid` and left out of pass rates."""


class CaseInfo:
    """What a corpus lists of a case without building it: its name (unique in
    the corpus) and tags the report groups by (`op`, `family`, `dtype`, ...)."""

    __slots__ = ("name", "tags")

    def __init__(self, name: str, **tags):
        self.name = name
        self.tags = tags

    def __repr__(self):
        return f"CaseInfo({self.name!r}, {self.tags})"


class Case:
    """A workload in the forms it is given in, with its inputs.

    Args:
      name: the case's name in its corpus.
      inputs: the arguments of every form: numpy arrays (lists of them for
        ONNX sequences, None for an absent ONNX optional).
      torch: a `torch.nn.Module`, or a function returning one.
      onnx: a serialized ONNX model, or a function returning one.
      mlir: linalg-on-tensors IR text, or a function returning it.
      expected: the outputs a compiler must give; None to take them from the
        torch form run eagerly.
      rtol, atol: the tolerance of floating-point outputs; other outputs must
        match exactly.
      scaled_atol: `atol` is a fraction of each output's largest finite
        magnitude: for models whose outputs' scale is not known before they
        run (networks of random weights: AlexNet's largest logit here is
        0.03, ResNet-18's 1.5).
      dynamic: the sizes a compiler is to take as unknown until called, by
        input index and dimension: `{0: {1: ("sequence", 2, 512)}}` (a name
        shared by the dimensions of equal size, the least and the most
        size); None for a case of fixed sizes.
      also_at: more inputs, of other sizes within `dynamic`, at which the
        code compiled once must give the reference's outputs too.
      tags: as in `CaseInfo`.

    A form given as a function is built on first use. A case with a torch
    form and no ONNX form offers one exported with `torch.onnx.export`
    (with `dynamic`'s dimensions as named ONNX dimensions).
    """

    def __init__(
        self,
        name: str,
        inputs: Sequence[np.ndarray],
        *,
        torch=None,
        onnx=None,
        mlir=None,
        expected: Optional[Sequence[np.ndarray]] = None,
        rtol: float = 1e-3,
        atol: float = 1e-5,
        scaled_atol: bool = False,
        dynamic: Optional[Dict[int, Dict[int, Tuple[str, int, int]]]] = None,
        also_at: Sequence[Sequence[np.ndarray]] = (),
        **tags,
    ):
        self.name = name
        self.inputs = [
            x if x is None or isinstance(x, (list, dict)) else np.asarray(x) for x in inputs
        ]
        self._forms: Dict[str, object] = {
            kind: value
            for kind, value in (("torch", torch), ("onnx", onnx), ("mlir", mlir))
            if value is not None
        }
        self._built: Dict[str, object] = {}
        self._expected = None if expected is None else to_numpy(expected)
        self.rtol = rtol
        self.atol = atol
        self.scaled_atol = scaled_atol
        self.dynamic = dynamic
        self.also_at = [[np.asarray(x) for x in inputs] for inputs in also_at]
        self._expected_at: Dict[int, List[np.ndarray]] = {}
        self.tags = tags

    def offers(self, kind: str) -> bool:
        """Whether the case can be had in form `kind` (possibly by conversion)."""
        return kind in self._forms or (kind == "onnx" and "torch" in self._forms)

    def form(self, kind: str):
        """The case in form `kind`, built or converted on first use.

        Raises:
          Unsupported: the case is not offered in that form, or converting it
            failed (the ONNX export of a torch module, say).
        """
        if kind in self._built:
            value = self._built[kind]
            if isinstance(value, Unsupported):
                raise value
            return value
        try:
            if kind in self._forms:
                value = self._forms[kind]
                value = value() if callable(value) and not _is_module(value) else value
            elif kind == "onnx" and "torch" in self._forms:
                value = _export_onnx(self.form("torch"), self.inputs, self.dynamic)
                if isinstance(value, Path):  # Its folder goes with the case.
                    weakref.finalize(self, shutil.rmtree, value.parent, True)
            else:
                raise Unsupported(f"the case has no {kind} form")
        except Unsupported as error:
            self._built[kind] = error
            raise
        self._built[kind] = value
        return value

    def expected(self) -> List[np.ndarray]:
        """The reference outputs: given, or computed once by the torch form
        run eagerly (twice: a case whose outputs differ is not deterministic).

        Raises:
          InvalidCase: there is no reference, or it failed.
        """
        if self._expected is None:
            if "torch" not in self._forms:
                raise InvalidCase("the case has neither expected outputs nor a torch form")
            self._expected = self._eager(self.inputs)
        return self._expected

    def atols(self, expected: Sequence[np.ndarray]) -> List[float]:
        """The absolute tolerance of each of the outputs `expected`."""
        if not self.scaled_atol:
            return [self.atol] * len(expected)
        atols = []
        for output in expected:
            output = np.asarray(output)
            finite = output[np.isfinite(output)] if output.dtype.kind == "f" else output[:0]
            scale = float(np.abs(finite).max()) if finite.size else 1.0
            atols.append(self.atol * (scale or 1.0))
        return atols

    def expected_at(self, index: int) -> List[np.ndarray]:
        """The reference outputs at `also_at[index]`, computed once by the torch
        form run eagerly, as `expected`."""
        if index not in self._expected_at:
            if "torch" not in self._forms:
                raise InvalidCase("a case checked at other sizes needs a torch form")
            self._expected_at[index] = self._eager(self.also_at[index])
        return self._expected_at[index]

    def _eager(self, inputs) -> List[np.ndarray]:
        import torch

        module = self.form("torch")
        try:
            # On copies: an in-place op (`exponential_`) must not change the
            # inputs the compilers get.
            with torch.no_grad():
                first = to_numpy(module(*to_torch(copy.deepcopy(inputs))))
                second = to_numpy(module(*to_torch(copy.deepcopy(inputs))))
        except Exception as error:
            raise InvalidCase(
                f"eager PyTorch raised {type(error).__name__}: {_first_line(error)}"
            ) from None
        if any(
            a.shape != b.shape or not np.array_equal(a, b, equal_nan=True)
            for a, b in zip(first, second)
        ):
            raise InvalidCase("eager PyTorch gives different outputs on the same inputs")
        return first

    def torch_dynamic_shapes(self):
        """`dynamic` as `torch.export`'s `dynamic_shapes` of the torch form's
        inputs, or None for a case of fixed sizes."""
        return _torch_dynamic_shapes(self.form("torch"), self.dynamic, len(self.inputs))


def _torch_dynamic_shapes(module, dynamic, count: int):
    """`dynamic` (as `Case`'s) as `torch.export`'s `dynamic_shapes` of
    `count` inputs given positionally to `module` (one `Dim` per name)."""
    if not dynamic:
        return None
    import torch

    dims = {}
    for sizes in dynamic.values():
        for name, low, high in sizes.values():
            dims.setdefault(name, torch.export.Dim(name, min=low, max=high))
    shapes = tuple(
        {dim: dims[name] for dim, (name, _, _) in dynamic.get(index, {}).items()} or None
        for index in range(count)
    )
    # torch.export matches them to forward's parameters: `*inputs` takes the
    # tuple of the rest.
    parameters = inspect.signature(module.forward).parameters.values()
    for index, parameter in enumerate(parameters):
        if parameter.kind == inspect.Parameter.VAR_POSITIONAL:
            return (*shapes[:index], shapes[index:])
    return shapes


def _is_module(value) -> bool:
    try:
        import torch
    except ImportError:
        return False
    return isinstance(value, torch.nn.Module)


def _weight_bytes(module) -> int:
    """The bytes of a torch module's parameters and buffers (0 for other
    callables)."""
    tensors = [*module.parameters(), *module.buffers()] if hasattr(module, "parameters") else []
    return sum(tensor.numel() * tensor.element_size() for tensor in tensors)


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else ""


def to_torch(arrays: Sequence[np.ndarray]) -> list:
    """numpy arrays as torch tensors, sharing memory where torch allows."""
    import torch

    # Not np.ascontiguousarray: it makes 0-d arrays 1-d.
    return [
        torch.from_numpy(a if a.flags.c_contiguous else a.copy(order="C"))
        if isinstance(a, np.ndarray)
        else a
        for a in arrays
    ]


def to_numpy(outputs) -> List[np.ndarray]:
    """A model's outputs (a tensor, an array, a scalar or a nested tuple/list
    of them) as a flat list of numpy arrays of their own (an output may be an
    input changed in place, or a view of one)."""
    flat: List[np.ndarray] = []

    def visit(value):
        if isinstance(value, (tuple, list)):
            for item in value:
                visit(item)
        elif hasattr(value, "detach"):  # A torch tensor.
            value = value.detach()
            if value.is_conj():
                value = value.resolve_conj()
            if value.is_neg():
                value = value.resolve_neg()
            flat.append(value.cpu().numpy().copy())
        elif value is not None:
            flat.append(np.array(value))

    visit(outputs)
    return flat


def export_onnx(
    module,
    inputs: Sequence,
    *,
    opset: int = 17,
    dynamic_batch: bool = False,
    output_names: Optional[Sequence[str]] = None,
    dynamic: Optional[Dict[int, Dict[int, Tuple[str, int, int]]]] = None,
    folder: Optional[str] = None,
) -> Union[bytes, Path]:
    """The ONNX model of a torch module, by TorchScript's exporter (it needs
    no onnxscript and covers more of the operators small cases use); its
    inputs are named `input0`, `input1`, ..., their first dimension named
    "batch" with `dynamic_batch`, and the dimensions `dynamic` gives (as
    `Case`'s) by their names. Its bytes; with `folder`, the path of
    `model.onnx` written there, its weights in files beside it (ONNX's
    external data: a model over protobuf's 2 GiB has no bytes). Raises what
    the exporter raises."""
    import warnings

    import torch

    buffer = Path(folder, "model.onnx") if folder else io.BytesIO()
    names = [f"input{i}" for i in range(len(inputs))]
    with warnings.catch_warnings(), torch.no_grad():
        # The TorchScript exporter warns that it is legacy.
        warnings.simplefilter("ignore")
        torch.onnx.export(
            module,
            tuple(to_torch(inputs)),
            buffer,
            dynamo=False,
            opset_version=opset,
            input_names=names,
            output_names=output_names,
            dynamic_axes=_dynamic_axes(names, dynamic_batch, dynamic),
        )
    if not folder:
        return buffer.getvalue()
    _weights_beside(buffer)
    return buffer


def _weights_beside(path: Path) -> None:
    """Moves the weights of the ONNX model at `path` into a file beside it
    where the exporter kept them in the model (it does only past protobuf's
    limit), so that a model in a folder always has them there."""
    import onnx

    model = onnx.load(str(path), load_external_data=False)
    if any(t.data_location == onnx.TensorProto.EXTERNAL for t in model.graph.initializer):
        return
    onnx.save_model(
        model,
        str(path),
        save_as_external_data=True,
        location=f"{path.name}.data",
        size_threshold=0,
    )


def _dynamic_axes(names: Sequence[str], batch: bool, dynamic) -> Optional[dict]:
    axes = {name: {0: "batch"} for name in names} if batch else {}
    for index, sizes in (dynamic or {}).items():
        axes.setdefault(names[index], {}).update({dim: name for dim, (name, _, _) in sizes.items()})
    return axes or None


#: The opset of models exported by torch.export (`torch.onnx.export(...,
#: dynamo=True)`): the least it exports.
DYNAMO_EXPORT_OPSET = 18


#: Protobuf's limit on a serialized message: a model whose weights take more
#: is written to a file, its weights beside it.
PROTOBUF_LIMIT = 2**31

#: The environment variable naming the folder a test bench worker writes
#: large files into: its runner removes it with the worker, killed or not.
SCRATCH_VARIABLE = "LH_SUITE_SCRATCH"


def _export_onnx(module, inputs: Sequence[np.ndarray], dynamic=None) -> Union[bytes, Path]:
    """The ONNX form of a case: `export_onnx`, its bytes, or for a module
    whose parameters and buffers take more than protobuf's 2 GiB, the path of
    a model written into a folder of its own with its weights beside it (in
    the worker's scratch folder, `SCRATCH_VARIABLE`, where there is one); where TorchScript's exporter fails
    (transformers' causal masks use `aten::diff`, which it does not export)
    and onnxscript is installed, torch.export's exporter. A failure of both
    is `Unsupported`, naming each one's error."""
    folder = None
    if _weight_bytes(module) >= PROTOBUF_LIMIT:
        folder = tempfile.mkdtemp(prefix="lh-suite-onnx-", dir=os.environ.get(SCRATCH_VARIABLE))
    try:
        return export_onnx(module, inputs, dynamic=dynamic, folder=folder)
    except Exception as error:
        failed = f"torch.onnx.export failed: {type(error).__name__}: {_first_line(error)}"
    try:
        import onnxscript  # noqa: F401 - torch.export's exporter needs it
    except ImportError:
        raise Unsupported(f"{failed} (pip install onnxscript for torch.export's)") from None
    import warnings

    import torch

    try:
        with warnings.catch_warnings(), torch.no_grad(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            program = torch.onnx.export(
                module,
                tuple(to_torch(inputs)),
                dynamo=True,
                opset_version=DYNAMO_EXPORT_OPSET,
                dynamic_shapes=_torch_dynamic_shapes(module, dynamic, len(inputs)),
            )
        if folder:
            path = Path(folder, "model.onnx")
            program.save(str(path), external_data=True)
            return path
        return program.model_proto.SerializeToString()
    except Exception as error:
        raise Unsupported(
            f"{failed}; with dynamo=True: {type(error).__name__}: {_first_line(error)}"
        ) from None
