"""The data of an ONNX model's tensors against their dims and element
types, as onnxruntime checks them when it creates a session: the bytes of
`raw_data`, or the values of the typed field (`float_data`, `int64_data`,
...), are exactly those of the elements the dims count; a tensor stored as
external data is as long as they take (its `length`, else what its file
holds past its offset). ONNX's checker refuses data too short for its dims,
not data too long, which lighthouse then read in part: a Gemm's bias of
dims [1, 1] holding six floats compiled, with its first value as the bias.
Used by `load`, before it reads the external data."""

import math
import os
from typing import Optional

from .places import all_tensors
from .values import used_names
from ..torch_mlir import require

onnx = require("onnx", "onnx")
helper = require("onnx.helper", "onnx")

__all__ = ["data_bytes", "refuse_data_unlike_dims"]

TensorProto = onnx.TensorProto

#: The bits of an element of the types ONNX packs into fewer than a byte
#: an element, by type (of those the installed onnx knows).
PACKED_BITS = {
    getattr(TensorProto, name): bits
    for name, bits in [
        ("UINT4", 4),
        ("INT4", 4),
        ("FLOAT4E2M1", 4),
        ("UINT2", 2),
        ("INT2", 2),
        ("FLOAT6E2M3", 6),
        ("FLOAT6E3M2", 6),
    ]
    if hasattr(TensorProto, name)
}

#: The types of two numbers an element in their typed field.
COMPLEX = (TensorProto.COMPLEX64, TensorProto.COMPLEX128)


def refuse_data_unlike_dims(proto: "onnx.ModelProto", source: str, folder: str) -> None:
    """Raises a ValueError naming the first tensor of `proto` whose data is
    not that of the elements its dims count, with both counts. Its external
    data, not read, is checked by the length it is given, else by the size
    of its file in `folder` where the file is there. An initializer no node
    uses is not checked: onnxruntime removes it first."""
    used = used_names(proto.graph.node) | {value.name for value in proto.graph.output}
    for where, tensor, initializer in all_tensors(proto):
        if initializer is not None and initializer not in used:
            continue
        mismatch = _mismatch(tensor, folder)
        if mismatch:
            raise ValueError(f"{source}: {where} {mismatch}")


def data_bytes(tensor: "onnx.TensorProto") -> int:
    """The bytes of `tensor`'s data in `raw_data` or an external file, by its
    dims and type (not strings)."""
    count = math.prod(tensor.dims)
    bits = PACKED_BITS.get(tensor.data_type)
    if bits is None:
        return count * helper.tensor_dtype_to_np_dtype(tensor.data_type).itemsize
    return math.ceil(count * bits / 8)


def _typed_values(tensor: "onnx.TensorProto") -> int:
    """The values of `tensor`'s typed field its dims and type take: two an
    element of a complex type; a byte of elements each for 2- and 4-bit
    types."""
    count = math.prod(tensor.dims)
    if tensor.data_type in COMPLEX:
        return 2 * count
    if PACKED_BITS.get(tensor.data_type) in (2, 4):
        return data_bytes(tensor)
    return count


def _mismatch(tensor: "onnx.TensorProto", folder: str) -> Optional[str]:
    """What `tensor` holds that its dims and type do not take, in words;
    None for the data of a type the installed onnx does not know, of strings
    as bytes (which ONNX's checker refuses), or stored in segments."""
    try:
        field = helper.tensor_dtype_to_field(tensor.data_type)
    except KeyError:
        return None  # A type this onnx does not know: its checker says so.
    external = tensor.data_location == TensorProto.EXTERNAL
    if tensor.HasField("segment") or (
        tensor.data_type == TensorProto.STRING and (external or tensor.HasField("raw_data"))
    ):
        return None
    type_name = TensorProto.DataType.Name(tensor.data_type).lower()
    takes = f"where its dims {list(tensor.dims)} of {type_name} take"
    if external:
        return _external_mismatch(tensor, folder, takes)
    if tensor.HasField("raw_data"):
        size, expected = len(tensor.raw_data), data_bytes(tensor)
        if size != expected:
            return f"holds {size} bytes of raw_data, {takes} {expected}"
        return None
    held, expected = len(getattr(tensor, field)), _typed_values(tensor)
    if held != expected:
        return f"holds {held} values in {field}, {takes} {expected}"
    return None


def _external_mismatch(tensor: "onnx.TensorProto", folder: str, takes: str) -> Optional[str]:
    info = {entry.key: entry.value for entry in tensor.external_data}
    expected = data_bytes(tensor)
    try:
        length = int(info["length"]) if "length" in info else None
        offset = int(info.get("offset", "0"))
    except ValueError:
        numbers = {key: info.get(key) for key in ("offset", "length")}
        return f"has external data of {numbers}, not numbers of bytes"
    if length is not None:
        if length != expected:
            return f"has external data of length {length} bytes, {takes} {expected}"
        return None
    path = os.path.join(folder, info.get("location", ""))
    if not os.path.isfile(path):
        return None  # Reading it says that it is missing.
    available = os.path.getsize(path) - offset
    if available < expected:
        return (
            f"has {max(available, 0)} bytes of external data in {info['location']!r} past "
            f"offset {offset}, {takes} {expected}"
        )
    return None
