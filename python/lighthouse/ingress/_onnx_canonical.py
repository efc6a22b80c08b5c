"""ONNX ops rewritten, before import, into equivalent forms that torch-mlir's
conversions take. Each rewrite is a function of the node, the types of the
graph's values and its constants, by op type (`_FORMS`), which gives the
replacing nodes or None to leave the node as it is.

- Resize: since opset 18, Resize may name the `axes` its scales or sizes are
  for, and keep the input's aspect ratio (`keep_aspect_ratio_policy`);
  torch-mlir converts neither. With the scales or sizes constants (folded, or
  compiled for by value) and the input's shape static, both are the plain
  form: scales, sizes and the region of interest given for every axis,
  stretched. An aspect ratio is kept by one scale for all the axes, and the
  sizes are that scale times the input's, rounded; the plain form then
  interpolates with each axis' own size ratio, the same only when the
  rounding changed nothing, and only then is a Resize rewritten.
- MatMul of a vector and a stack of matrices (rank 3 or more), which
  torch-mlir's `aten.matmul` lowering refuses: the vector made a one-row (or
  one-column) matrix, and that dimension squeezed out of the product.
- ONNX-ML's Binarizer and ArrayFeatureExtractor (torch-mlir converts no
  ONNX-ML op): Greater and Cast, and Gather along the last axis.
- Slice with negative steps, which torch-mlir lowers to IR of mismatched
  shapes: the axes of positive steps sliced, those of negative ones
  gathered at the positions ONNX's clamping of the bounds gives.
- RNN, GRU and LSTM: in the forms torch-mlir converts right
  (`_onnx_recurrences`).
- GridSample: gathers at the taps of each sampled point
  (`_onnx_grid_sample`), as torch-mlir converts few of its modes, one of
  them wrong.

Ops torch-mlir converts wrong in some forms, and ONNX or lighthouse define
by functions, are expanded into them instead (`converted_wrong`,
`_CONVERTED_WRONG`):

- SoftmaxCrossEntropyLoss of rows ([N, C] scores) with weights, averaged:
  torch-mlir sums the weights as integers (each truncated: weights below 1
  sum to 0, and the loss is inf).
- QLinearMatMul of stacks of matrices: torch-mlir's batched product of
  int8 gives wrong values (lighthouse's function, `_onnx_functions`, as
  for the next ones).
- LpNormalization: a vector of zeros gives NaN (ONNX: zeros).
- SpaceToDepth of CRD mode: torch-mlir ignores the mode.
- Pad of wrap mode: torch-mlir's conversion does not end.
"""

from typing import List, Optional

from ._onnx_values import (
    DEFAULT_DOMAINS,
    along_axis,
    attributes_of,
    constant_node,
    constant_values,
    default_opset,
    replace_nodes,
    static_shape,
    types_of,
)
from ._onnx_grid_sample import sampled_grid
from ._onnx_recurrences import forward_recurrences
from ._torch_mlir import require

onnx = require("onnx", "onnx")
np = require("numpy", "onnx")  # onnx's dependency
helper = require("onnx.helper", "onnx")

__all__ = ["canonical_forms", "converted_wrong", "outputs_as_inferred"]


def canonical_forms(proto: "onnx.ModelProto") -> "onnx.ModelProto":
    """`proto` with the main graph's ops that have a canonical form
    (`_FORMS`) in it; `proto` itself when none is rewritten."""
    if not any(_form_of(node) for node in proto.graph.node):
        return proto
    types = types_of(proto.graph)
    constants = constant_values(proto.graph)
    opset = default_opset(proto, 0)
    # The forms of the nodes, by position, before the model is copied: most
    # models (of MatMuls and Slices) have none, and a copy of their weights
    # costs.
    forms = {}
    for index, node in enumerate(proto.graph.node):
        form = _form_of(node)
        nodes = form(node, types, constants, opset) if form else None
        if nodes is not None:
            forms[index] = nodes
    if not forms:
        return proto
    rewritten = onnx.ModelProto()
    rewritten.CopyFrom(proto)
    positions = iter(range(len(rewritten.graph.node)))
    replace_nodes(rewritten.graph, lambda node: forms.get(next(positions)))
    if not opset:
        # A model of ONNX-ML ops alone imports no opset of the default
        # domain, which the ops replacing them are of (and torch-mlir's
        # importer needs).
        rewritten.opset_import.append(helper.make_opsetid("", _ML_REPLACEMENTS_OPSET))
    return onnx.shape_inference.infer_shapes(rewritten, data_prop=True)


def _form_of(node):
    if node.domain in DEFAULT_DOMAINS:
        return _FORMS.get(node.op_type)
    return _ML_FORMS.get(node.op_type) if node.domain == "ai.onnx.ml" else None


def _resize_to_rewrite(node) -> bool:
    attributes = attributes_of(node)
    return "axes" in attributes or attributes.get("keep_aspect_ratio_policy", b"stretch") not in (
        b"stretch",
        "stretch",
    )


def _plain_resize(node, types, constants, opset) -> Optional[List["onnx.NodeProto"]]:
    """The nodes of `node`'s plain form (Constants of the full scales, sizes
    and region, and the Resize), or None if it has none or is one."""
    if not _resize_to_rewrite(node):
        return None
    shape = static_shape(types[node.input[0]]) if node.input[0] in types else None
    if shape is None:
        return None
    rank = len(shape)
    operands = list(node.input) + [""] * (4 - len(node.input))
    roi, scales, sizes = (constants.get(name) if name else np.zeros(0) for name in operands[1:4])
    if roi is None or scales is None or sizes is None:
        return None
    attributes = attributes_of(node)
    axes = [int(a) % rank for a in attributes.get("axes", range(rank))]
    policy = attributes.get("keep_aspect_ratio_policy", b"stretch")
    policy = policy.decode() if isinstance(policy, bytes) else policy

    full_roi = np.zeros(0, np.float32)
    if roi.size:
        full = [0.0] * rank + [1.0] * rank
        for index, axis in enumerate(axes):
            full[axis] = roi[index]
            full[rank + axis] = roi[len(axes) + index]
        full_roi = np.array(full, roi.dtype)
    full_scales, full_sizes = np.zeros(0, np.float32), np.zeros(0, np.int64)
    if scales.size:
        if policy != "stretch":
            return None  # ONNX keeps the aspect ratio of sizes only.
        full = [1.0] * rank
        for index, axis in enumerate(axes):
            full[axis] = scales[index]
        full_scales = np.array(full, scales.dtype)
    elif sizes.size:
        full = list(shape)
        for index, axis in enumerate(axes):
            full[axis] = int(sizes[index])
        if policy != "stretch":
            ratios = [full[axis] / shape[axis] for axis in axes]
            scale = min(ratios) if policy == "not_larger" else max(ratios)
            for axis in axes:
                # ONNX rounds halfway cases up.
                full[axis] = int(scale * shape[axis] + 0.5)
                if full[axis] != scale * shape[axis]:
                    return None  # Stretched, the axis' ratio would not be `scale`.
        full_sizes = np.array(full, np.int64)
    else:
        return None

    nodes = []
    names = []
    for role, value in (("roi", full_roi), ("scales", full_scales), ("sizes", full_sizes)):
        if not value.size:
            names.append("")
            continue
        name = f"{node.name}/{role}_of_every_axis"
        nodes.append(constant_node(name, value))
        names.append(name)
    while names and not names[-1]:
        names.pop()
    kept = [a for a in node.attribute if a.name not in ("axes", "keep_aspect_ratio_policy")]
    resize = helper.make_node("Resize", [node.input[0], *names], list(node.output), name=node.name)
    resize.attribute.extend(kept)
    nodes.append(resize)
    return nodes


def _matmul_of_matrices(node, types, constants, opset) -> Optional[List["onnx.NodeProto"]]:
    """A MatMul of a vector and a stack of matrices as one of matrices."""
    ranks = [
        len(types[name].tensor_type.shape.dim)
        if name in types and types[name].tensor_type.HasField("shape")
        else None
        for name in node.input
    ]
    if None in ranks or sorted(ranks)[0] != 1 or sorted(ranks)[1] < 3:
        return None
    vector_is_left = ranks[0] == 1
    # [K] as [1, K] on the left, [K, 1] on the right.
    widen, narrow = (0, -2) if vector_is_left else (1, -1)

    vector = node.input[0] if vector_is_left else node.input[1]
    matrix = f"{node.name}/vector_as_matrix"
    nodes = along_axis("Unsqueeze", vector, widen, matrix, opset)
    product = f"{node.name}/product"
    operands = [matrix, node.input[1]] if vector_is_left else [node.input[0], matrix]
    nodes.append(helper.make_node("MatMul", operands, [product], name=product))
    nodes += along_axis("Squeeze", product, narrow, node.output[0], opset)
    return nodes


def _reversed_slices(node, types, constants, opset) -> Optional[List["onnx.NodeProto"]]:
    """A Slice with a negative step as a Slice of the other axes and a Gather
    per reversed axis; its operands must be constants, its input's shape
    static."""
    if opset < 10 or len(node.input) < 5 or node.input[0] not in types:
        return None
    shape = static_shape(types[node.input[0]])
    operands = [constants.get(name) for name in node.input[1:5]]
    if shape is None or any(value is None for value in operands):
        return None
    starts, ends, axes, steps = (value.reshape(-1).astype(np.int64) for value in operands)
    if not (steps < 0).any():
        return None
    rank = len(shape)
    forward, backward = [], []
    for start, end, axis, step in zip(starts, ends, axes % rank, steps):
        (forward if step > 0 else backward).append((int(start), int(end), int(axis), int(step)))
    nodes: List["onnx.NodeProto"] = []
    value = node.input[0]
    if forward:
        sliced = f"{node.name}/forward"
        operands = []
        for role, values in zip(("starts", "ends", "axes", "steps"), zip(*forward)):
            operands.append(f"{sliced}/{role}")
            nodes.append(constant_node(operands[-1], np.array(values, np.int64)))
        nodes.append(helper.make_node("Slice", [value, *operands], [sliced], name=sliced))
        value = sliced
    for index, (start, end, axis, step) in enumerate(backward):
        size = shape[axis]
        # ONNX's bounds of a negative step: start in [0, size - 1], end in
        # [-1, size - 1], after adding the size to negative ones.
        start = min(max(start + size if start < 0 else start, 0), size - 1)
        end = min(max(end + size if end < 0 else end, -1), size - 1)
        positions = f"{node.name}/positions{axis}"
        nodes.append(constant_node(positions, np.arange(start, end, step, dtype=np.int64)))
        last = index == len(backward) - 1
        output = node.output[0] if last else f"{node.name}/reversed{axis}"
        nodes.append(
            helper.make_node("Gather", [value, positions], [output], name=output, axis=axis)
        )
        value = output
    return nodes


_FORMS = {
    "Slice": _reversed_slices,
    "Resize": _plain_resize,
    "MatMul": _matmul_of_matrices,
    "RNN": forward_recurrences,
    "GRU": forward_recurrences,
    "LSTM": forward_recurrences,
    "GridSample": sampled_grid,
}


def _weighted_mean_over_rows(node, types) -> bool:
    attributes = attributes_of(node)
    reduction = attributes.get("reduction", b"mean")
    scores = types.get(node.input[0])
    rank = len(scores.tensor_type.shape.dim) if scores is not None else None
    weighted = len(node.input) > 2 and bool(node.input[2])
    return weighted and reduction in (b"mean", "mean") and rank == 2


def _stacked(node, types) -> bool:
    a = types.get(node.input[0])
    return a is not None and len(a.tensor_type.shape.dim) > 2


def _attribute_is(name: str, value: str):
    def test(node, types) -> bool:
        for attribute in node.attribute:
            if attribute.name == name:
                return helper.get_attribute_value(attribute) in (value, value.encode())
        return False

    return test


_CONVERTED_WRONG = {
    "SoftmaxCrossEntropyLoss": _weighted_mean_over_rows,
    "QLinearMatMul": _stacked,
    "LpNormalization": lambda node, types: True,
    "SpaceToDepth": _attribute_is("mode", "CRD"),
    "Pad": _attribute_is("mode", "wrap"),
}


#: The opset of the default domain's ops that replace ONNX-ML ones.
_ML_REPLACEMENTS_OPSET = 13


def _binarizer(node, types, constants, opset) -> Optional[List["onnx.NodeProto"]]:
    """ONNX-ML's Binarizer: 1 where X exceeds the threshold, else 0."""
    x = node.input[0]
    if x not in types:
        return None
    element = types[x].tensor_type.elem_type
    threshold = helper.get_attribute_value(
        next((a for a in node.attribute if a.name == "threshold"), helper.make_attribute("t", 0.0))
    )
    name = f"{node.name}/threshold"
    above = f"{node.name}/above"
    return [
        constant_node(name, np.array(threshold, helper.tensor_dtype_to_np_dtype(element))),
        helper.make_node("Greater", [x, name], [above], name=above),
        helper.make_node("Cast", [above], list(node.output), name=node.name, to=element),
    ]


def _array_feature_extractor(node, types, constants, opset) -> Optional[List["onnx.NodeProto"]]:
    """ONNX-ML's ArrayFeatureExtractor: the elements at the indices along the
    last axis."""
    x = node.input[0]
    if x not in types or len(types[x].tensor_type.shape.dim) < 2:
        return None  # Of a vector, ONNX-ML gives a row.
    return [
        helper.make_node("Gather", list(node.input), list(node.output), name=node.name, axis=-1)
    ]


#: Canonical forms of ONNX-ML ops, in the default domain.
_ML_FORMS = {"Binarizer": _binarizer, "ArrayFeatureExtractor": _array_feature_extractor}


def converted_wrong(proto: "onnx.ModelProto") -> set:
    """The ops of which the main graph has a node in a form torch-mlir
    converts wrong (`_CONVERTED_WRONG`): to expand into ONNX's or
    lighthouse's functions."""
    types = types_of(proto.graph)
    return {
        node.op_type
        for node in proto.graph.node
        if node.domain in DEFAULT_DOMAINS
        and node.op_type in _CONVERTED_WRONG
        and _CONVERTED_WRONG[node.op_type](node, types)
    }


def outputs_as_inferred(proto: "onnx.ModelProto") -> "onnx.ModelProto":
    """`proto` with the sizes its graph outputs declare but its computation
    leaves to the data left unknown (`proto` itself when there are none):
    the number of elements Compress or NonZero select depends on the data,
    and torch-mlir cannot cast what it computes to the size a model
    declares (from the data it was exported with). A size ONNX's inference
    ties to a named dimension of an input stays declared, and the compiled
    code checks it; one it cannot tell (data-dependent, or computed from
    several sizes) is left to the computation."""
    if not any(
        dim.HasField("dim_value")
        for value in proto.graph.output
        for dim in value.type.tensor_type.shape.dim
    ):
        return proto
    # The model without its large initializers, as inputs of their types:
    # inference reads the values of small ones only (shapes, axes), and a
    # copy of the weights cost 0.9 s of a 134 MB model's rewrites.
    probe = _without_initializers(proto)
    for value in probe.graph.output:
        value.type.tensor_type.ClearField("shape")
    try:
        inferred = onnx.shape_inference.infer_shapes(probe, data_prop=True).graph.output
    except Exception:  # noqa: BLE001 - onnx's C++ inference fails in its own ways
        return proto
    named = {
        dim.dim_param
        for value in proto.graph.input
        for dim in value.type.tensor_type.shape.dim
        if dim.HasField("dim_param")
    }
    relaxed = None
    for index, (declared, computed) in enumerate(zip(proto.graph.output, inferred)):
        declared_dims = declared.type.tensor_type.shape.dim
        computed_type = computed.type.tensor_type
        if not computed_type.HasField("shape") or len(computed_type.shape.dim) != len(
            declared_dims
        ):
            continue
        for axis, (dim, found) in enumerate(zip(declared_dims, computed_type.shape.dim)):
            of_data = not found.HasField("dim_value") and found.dim_param not in named
            if dim.HasField("dim_value") and of_data:
                if relaxed is None:
                    relaxed = onnx.ModelProto()
                    relaxed.CopyFrom(proto)
                target = relaxed.graph.output[index].type.tensor_type.shape.dim[axis]
                target.dim_param = f"{declared.name}_dim{axis}"
    return proto if relaxed is None else relaxed


#: Initializers of more elements are left out of the model shape inference
#: runs on for `outputs_as_inferred`: shapes and axes are smaller.
_INFERENCE_ELEMENTS = 1024


def _without_initializers(proto: "onnx.ModelProto") -> "onnx.ModelProto":
    """A copy of `proto` whose initializers of more than
    `_INFERENCE_ELEMENTS` elements are typed inputs."""
    model = onnx.ModelProto()
    model.ir_version = proto.ir_version
    model.opset_import.extend(proto.opset_import)
    model.functions.extend(proto.functions)
    graph = model.graph
    for field in ("node", "input", "output", "value_info"):
        getattr(graph, field).extend(getattr(proto.graph, field))
    inputs = {value.name for value in proto.graph.input}
    for tensor in proto.graph.initializer:
        if int(np.prod(tensor.dims)) <= _INFERENCE_ELEMENTS:
            graph.initializer.append(tensor)
        elif tensor.name not in inputs:
            graph.input.append(
                helper.make_tensor_value_info(tensor.name, tensor.data_type, tensor.dims)
            )
    return model
