"""Graph inputs whose values an ONNX model's lowering needs as constants.

Since opset 10-18, ONNX gives as input tensors what earlier opsets gave as
attributes: the axes of the reductions, Slice's starts and ends, Pad's pads,
Resize's scales, CumSum's axis. torch-mlir lowers those ops only when such
an operand is a constant, since the result's shape (or the loop nest that
computes it) follows from its value. In most models the operand is an
initializer or is computed from constants, and `fold` makes it one;
when it is a graph input, its value is known at the call only, and the
model is compiled at each call for the values it is given
(`lighthouse.execution.specialized`), as onnxruntime, which interprets the graph,
takes them.
"""

import math
from typing import Dict, Iterable, List, Optional, Tuple

from .values import DEFAULT_DOMAINS, default_opset, used_names
from ..torch_mlir import require

onnx = require("onnx", "onnx")
np = require("numpy", "onnx")  # onnx's dependency

__all__ = ["SHAPE_OPERANDS", "bind_inputs", "declared_inputs", "value_determined_inputs"]

#: The names ONNX's schemas give to operands that stand for an attribute or
#: determine the shape of a result: `axes` of the reductions, Squeeze,
#: Unsqueeze, Pad and Slice; `shape` of Reshape and Expand; `scales` and
#: `sizes` of Resize; Range's `start`, `limit` and `delta`; Dropout's
#: `ratio` and `training_mode`; Loop's trip count `M` and `cond`, and If's
#: `cond`, which fix how many values a Loop stacks and which branch's
#: shapes an If has...
SHAPE_OPERANDS = frozenset(
    {
        "K",
        "M",
        "axes",
        "axis",
        "block_shape",
        "cond",
        "delta",
        "depth",
        "dft_length",
        "ends",
        "frame_length",
        "frame_step",
        "image_shape",
        "k",
        "limit",
        "output_shape",
        "pads",
        "ratio",
        "repeats",
        "roi",
        "scales",
        "shape",
        "size",
        "sizes",
        "split",
        "start",
        "starts",
        "steps",
        "training_mode",
    }
)

#: The largest graph input a model is compiled for the values of, in
#: elements: the operands above hold one value per dimension (pads two), and
#: tensors have at most a few dimensions; a larger input reaching one is
#: data, which the model is not compiled for each value of.
MAX_SPECIALIZED_ELEMENTS = 64

#: Nodes through which an operand depends on the shape of their input, not
#: its values.
_SHAPE_OF = ("Shape", "Size")


def declared_inputs(
    proto: "onnx.ModelProto",
) -> List[Tuple[str, Optional["np.dtype"], Optional[Tuple[Optional[int], ...]]]]:
    """(name, dtype, shape) of each graph input that is not an initializer,
    in order; None for what the model leaves undeclared, in a shape for a
    dimension of unknown size."""
    initialized = {tensor.name for tensor in proto.graph.initializer}
    declared = []
    for value in proto.graph.input:
        if value.name in initialized:
            continue
        tensor_type = value.type.tensor_type
        dtype = shape = None
        if value.type.HasField("tensor_type"):
            try:
                dtype = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(tensor_type.elem_type))
            except (KeyError, TypeError, ValueError):
                dtype = None
            if tensor_type.HasField("shape"):
                shape = tuple(
                    dim.dim_value if dim.HasField("dim_value") else None
                    for dim in tensor_type.shape.dim
                )
        declared.append((value.name, dtype, shape))
    return declared


def value_determined_inputs(proto: "onnx.ModelProto", nodes: Iterable[str]) -> List[str]:
    """The graph inputs whose values the main graph's `nodes` (by name; a node
    of a subgraph or of an expanded function, `ReduceL1_0/ReduceSum_1`,
    stands for the node holding it) take as one of the `SHAPE_OPERANDS`,
    directly or through other nodes; in the graph's order. Empty when one of
    them is larger than `MAX_SPECIALIZED_ELEMENTS` or of unknown shape: the
    model is not compiled for each value of data."""
    graph = proto.graph
    by_name = {node.name: node for node in graph.node if node.name}
    # A node of the graph itself, or the one holding it.
    held = [name if name in by_name else name.split("/")[0] for name in nodes]
    starts = [by_name[name] for name in held if name in by_name]
    producers = {output: node for node in graph.node for output in node.output if output}
    inputs = {name: (dtype, shape) for name, dtype, shape in declared_inputs(proto)}
    opset = default_opset(proto)

    # (value, whether it determines a shape): the failing nodes' operands,
    # then their producers' operands, back to the graph's inputs. A value
    # that determines a shape makes every operand of its producer one; the
    # data a node takes has the shapes of its own producers' shape operands
    # (an expanded AffineGrid fails at a Transpose of a grid whose size is
    # a Range to an input's value).
    pending = [
        (value, value in _shape_operands(node, opset)) for node in starts for value in node.input
    ]
    seen, found = set(), set()
    while pending:
        value, shaping = pending.pop()
        if not value or (value, shaping) in seen:
            continue
        seen.add((value, shaping))
        if value in inputs:
            if shaping:
                found.add(value)
            continue
        producer = producers.get(value)
        if producer is None or producer.op_type in _SHAPE_OF:
            continue
        operands = set(_shape_operands(producer, opset))
        # An If's or Loop's branches read values of the graph by name.
        pending.extend((v, shaping or v in operands) for v in used_names([producer]))
    for name in found:
        dtype, shape = inputs[name]
        if dtype is None or shape is None or None in shape:
            return []
        if math.prod(shape) > MAX_SPECIALIZED_ELEMENTS:
            return []
    return [name for name in inputs if name in found]


def _shape_operands(node: "onnx.NodeProto", opset: Optional[int]) -> List[str]:
    """The values `node` takes as one of the `SHAPE_OPERANDS`."""
    if node.domain not in DEFAULT_DOMAINS or opset is None:
        return []
    try:
        schema = onnx.defs.get_schema(node.op_type, max_inclusive_version=opset, domain="")
    except onnx.defs.SchemaError:
        return []
    formals = schema.inputs
    if not formals:
        return []
    # A variadic last formal parameter names the inputs past it too.
    return [
        value
        for index, value in enumerate(node.input)
        if formals[min(index, len(formals) - 1)].name in SHAPE_OPERANDS
    ]


def bind_inputs(proto: "onnx.ModelProto", values: Dict[str, "np.ndarray"]) -> "onnx.ModelProto":
    """A copy of `proto` in which the graph inputs named in `values` are
    initializers of those values, no longer inputs.

    Raises:
      ValueError: ONNX's shape inference finds the values invalid for the
        ops taking them (an axis past the rank, say).
    """
    bound = onnx.ModelProto()
    bound.CopyFrom(proto)
    graph = bound.graph
    kept = [value for value in graph.input if value.name not in values]
    del graph.input[:]
    graph.input.extend(kept)
    initializers = [tensor for tensor in graph.initializer if tensor.name not in values]
    del graph.initializer[:]
    graph.initializer.extend(initializers)
    for name, value in values.items():
        graph.initializer.append(onnx.numpy_helper.from_array(np.asarray(value), name))
    # Subgraphs that capture the input now see the initializer of its name.
    # Checked without the shapes the model declares, which ONNX's inference
    # of some ops disagrees with (STFT's onesided results).
    checked = onnx.ModelProto()
    checked.CopyFrom(bound)
    del checked.graph.value_info[:]
    for value in checked.graph.output:
        value.type.tensor_type.ClearField("shape")
    try:
        onnx.shape_inference.infer_shapes(checked, strict_mode=True, data_prop=True)
    except onnx.shape_inference.InferenceError as error:
        given = ", ".join(f"{name}={np.asarray(value).tolist()}" for name, value in values.items())
        raise ValueError(f"the model cannot take {given}: {error}") from None
    return bound
