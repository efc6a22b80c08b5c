"""What crosses between Python and compiled code: the dtype of each MLIR
element type, and `TensorSpec`, an argument or result of a compiled function
(its dtype, its shape with dynamic sizes, whether it is a scalar).

`CompiledModule` calls through these specs; saved modules write them to
their manifest, and the compile cache keys on them.
"""

from typing import Optional, Tuple

import numpy as np

from .. import ir

__all__ = ["ELEMENT_TYPES", "ML_DTYPES", "NOT_IN_TORCH", "TensorSpec", "dtype_named"]

ELEMENT_TYPES = {
    "f16": np.float16,
    "f32": np.float32,
    "f64": np.float64,
    "i1": np.bool_,
    "i8": np.int8,
    "i16": np.int16,
    "i32": np.int32,
    "i64": np.int64,
    # MLIR's integers are signless, and torch-mlir lowers a model's unsigned
    # tensors to them: those the model declares unsigned (its torch-dialect
    # signature) cross as such (`TensorSpec.as_unsigned`).
    "ui8": np.uint8,
    "ui16": np.uint16,
    "ui32": np.uint32,
    "ui64": np.uint64,
}

# Element types numpy has no dtype of cross bit for bit as ml_dtypes' (the
# dtypes ONNX gives them; torch's of the same names are the same bits): by
# MLIR's element type, the name of ml_dtypes' dtype. Compiled code holds an
# i4 in a byte of its own, upper bits zero, as ml_dtypes' int4 and uint4
# arrays do. ml_dtypes is imported when a signature has one of them.
ML_DTYPES = {
    "bf16": "bfloat16",
    "f8E4M3FN": "float8_e4m3fn",
    "f8E4M3FNUZ": "float8_e4m3fnuz",
    "f8E5M2": "float8_e5m2",
    "f8E5M2FNUZ": "float8_e5m2fnuz",
    "i4": "int4",
    "ui4": "uint4",
}
# Those torch has no tensors of that lighthouse could pass (torch.int4 and
# torch.uint4 are placeholders, without a layout or arithmetic of their own).
NOT_IN_TORCH = ("int4", "uint4")


def _ml_dtype(name: str) -> np.dtype:
    """ml_dtypes' dtype `name` ("bfloat16", ...)."""
    try:
        import ml_dtypes
    except ImportError:
        raise ImportError(
            f"lighthouse passes tensors of {name} as numpy arrays of ml_dtypes.{name}: "
            "install the ml_dtypes package (pip install ml_dtypes; lighthouse[onnx] and "
            "lighthouse[torch] bring it)",
            name="ml_dtypes",
        ) from None
    return np.dtype(getattr(ml_dtypes, name))


def _element_dtype(element: str) -> np.dtype:
    """The dtype tensors of MLIR's element type `element` cross as; KeyError
    for an element type lighthouse does not pass."""
    if element in ML_DTYPES:
        return _ml_dtype(ML_DTYPES[element])
    return np.dtype(ELEMENT_TYPES[element])


def dtype_named(name: str) -> np.dtype:
    """The dtype of a saved manifest's `name` (`np.dtype.name`)."""
    return _ml_dtype(name) if name in ML_DTYPES.values() else np.dtype(name)


def _stand_in(dtype: np.dtype) -> Optional[np.dtype]:
    """The unsigned integer dtype of the width of `dtype` that the native call
    takes and gives in its place when `dtype` is one of ml_dtypes' (which
    DLPack does not carry); None for numpy's own."""
    if dtype.name in ML_DTYPES.values():
        return np.dtype(f"uint{8 * dtype.itemsize}")
    return None


class TensorSpec:
    """A tensor argument or result of the compiled function, or a scalar one,
    which crosses as a 0-d tensor (lighthouse-scalars-as-tensors)."""

    def __init__(self, dtype: np.dtype, shape: list, scalar: bool = False, value=None):
        self.dtype = np.dtype(dtype)
        # The dtype the native call passes it as, if not its own (`_stand_in`).
        self.stand_in = _stand_in(self.dtype)
        self.shape = list(shape)  # None for a dynamic dimension
        self.scalar = scalar
        # The only value a scalar may take: torch.export makes a Python number
        # of the example inputs a constant of the model.
        self.value = value

    @classmethod
    def of_type(cls, tensor_type: ir.RankedTensorType) -> "TensorSpec":
        element = str(tensor_type.element_type)
        if element not in ELEMENT_TYPES and element not in ML_DTYPES:
            raise NotImplementedError(
                f"lighthouse cannot yet pass tensors of {element} to compiled code"
            )
        return cls(
            _element_dtype(element),
            [
                None if tensor_type.is_dynamic_dim(i) else tensor_type.shape[i]
                for i in range(tensor_type.rank)
            ],
        )

    @classmethod
    def of_scalar_type(cls, element: str) -> "TensorSpec":
        if element not in ELEMENT_TYPES:
            raise NotImplementedError(
                f"lighthouse cannot yet pass scalars of {element} to compiled code"
            )
        return cls(ELEMENT_TYPES[element], [], scalar=True)

    def as_unsigned(self, element: str) -> None:
        """Makes this (signless) integer tensor cross as the unsigned `element`
        ("ui8", ..., "ui4") the model declares: the same bits, with the dtype
        numpy and torch (ml_dtypes for ui4) give them."""
        if self.scalar or self.dtype != _element_dtype(element.removeprefix("u")):
            raise ValueError(
                f"the model declares {element}, but the compiled function takes {self.describe()}"
            )
        self.dtype = _element_dtype(element)
        self.stand_in = _stand_in(self.dtype)

    @classmethod
    def from_json(cls, spec: dict) -> "TensorSpec":
        return cls(
            dtype_named(spec["dtype"]), spec["shape"], spec.get("scalar", False), spec.get("value")
        )

    def native(self) -> tuple:
        """As `NativeFunction` takes it."""
        dtype = self.dtype if self.stand_in is None else self.stand_in
        return (dtype.kind, dtype.itemsize, [-1 if d is None else d for d in self.shape])

    def to_json(self) -> dict:
        spec = {"dtype": self.dtype.name, "shape": self.shape}
        if self.scalar:
            spec["scalar"] = True
        if self.value is not None:
            spec["value"] = self.value
        return spec

    def public(self) -> Tuple[np.dtype, tuple]:
        return self.dtype, tuple(self.shape)

    def describe(self) -> str:
        if self.value is not None:
            return f"{self.dtype} = {self.value!r}"
        if self.scalar:
            return str(self.dtype)
        dims = "x".join("?" if d is None else str(d) for d in self.shape)
        return f"{self.dtype}[{dims}]"
