"""Sizes ONNX's shape inference leaves unknown that the graph tells.

ONNX infers a Slice whose starts or ends are computed (a slice up to the
sequence's length) as of unknown sizes in every dimension, the ones it does
not slice too. torch-mlir then takes such a size for one that is not 1, and
a broadcast of it fails at run time: BERT's position ids, [1, 512] sliced to
[1, n] along their last axis, came out [?, ?], and their Expand to the batch
failed its check at any batch but 1. A Slice keeps the sizes of the
dimensions it does not slice; the graph's shapes are inferred again from
there.
"""

from typing import Dict, List, Optional, Set

from ..torch_mlir import require
from .values import constant_values, types_of, without_initializers

onnx = require("onnx", "onnx")

__all__ = ["slices_keep_their_other_dims"]


def slices_keep_their_other_dims(proto: "onnx.ModelProto") -> "onnx.ModelProto":
    """`proto` with the sizes of the dimensions its Slices do not slice
    given to their outputs where inference left them unknown, and its
    shapes inferred again (`proto` itself when there are none)."""
    graph = proto.graph
    types = types_of(graph)
    constants = constant_values(graph)
    refined: Dict[str, List["onnx.TensorShapeProto.Dimension"]] = {}
    for node in graph.node:
        if node.op_type != "Slice" or node.domain not in ("", "ai.onnx") or len(node.input) < 3:
            continue  # Slice-1 takes its bounds as attributes, which inference reads.
        source, result = types.get(node.input[0]), types.get(node.output[0])
        if source is None or result is None:
            continue
        source_dims = source.tensor_type.shape.dim
        result_dims = result.tensor_type.shape.dim
        if len(source_dims) != len(result_dims):
            continue
        sliced = _sliced_axes(node, types, constants, len(source_dims))
        if sliced is None:
            continue
        dims = list(result_dims)
        for axis, (size, found) in enumerate(zip(source_dims, result_dims)):
            known = size.HasField("dim_value") or size.HasField("dim_param")
            if axis not in sliced and known and not found.HasField("dim_value") and found != size:
                dims[axis] = size
        if dims != list(result_dims):
            refined[node.output[0]] = dims
    if not refined:
        return proto
    return _inferred_again(proto, refined) or proto


def _sliced_axes(node, types, constants, rank: int) -> Optional[Set[int]]:
    """The axes `node` (a Slice) slices, if known."""
    if len(node.input) > 3 and node.input[3]:
        axes = constants.get(node.input[3])
        if axes is None:
            return None
        return {int(axis) % rank for axis in axes.reshape(-1)} if rank else set()
    # No axes: the first len(starts).
    starts = types.get(node.input[1])
    if starts is None or len(starts.tensor_type.shape.dim) != 1:
        return None
    count = starts.tensor_type.shape.dim[0]
    return set(range(count.dim_value)) if count.HasField("dim_value") else None


def _inferred_again(proto: "onnx.ModelProto", refined) -> Optional["onnx.ModelProto"]:
    """A copy of `proto` whose values of `refined` have those dimensions, and
    whose other shapes are inferred again from them; None if inference
    fails."""
    model = onnx.ModelProto()
    model.CopyFrom(proto)
    for value in [*model.graph.value_info, *model.graph.output]:
        if value.name in refined:
            shape = value.type.tensor_type.shape
            for dim, size in zip(shape.dim, refined[value.name]):
                dim.CopyFrom(size)
    probe = without_initializers(model)
    try:
        inferred = onnx.shape_inference.infer_shapes(probe, data_prop=True).graph
    except Exception:  # noqa: BLE001 - onnx's C++ inference fails in its own ways
        return None
    inputs = {value.name for value in model.graph.input} | {
        tensor.name for tensor in model.graph.initializer
    }
    del model.graph.value_info[:]
    model.graph.value_info.extend(v for v in inferred.value_info if v.name not in inputs)
    for output, found in zip(model.graph.output, inferred.output):
        output.type.CopyFrom(found.type)
    return model
