"""Resize as lighthouse's function: interpolation along each resized axis by
a constant matrix (or, nearest, a Gather of constant indices).

ONNX's Resize interpolates each axis on its own (its reference computes it
axis by axis), and with the input's shape static and the scales or sizes
constants, the interpolation along an axis is a fixed linear map from the
input's positions to the output's: an [out, in] matrix, computed here with
numpy from the coordinate transformation, mode, cubic coefficient,
`exclude_outside` and `antialias` of ONNX's specification, whatever their
combination. torch-mlir converts a Resize of some combinations only; when it
cannot, the Resize becomes this function (`resize_function`): Gathers of the
nearest positions, MatMuls with the matrices of linear and cubic modes, and
for `tf_crop_and_resize` the extrapolation value where an output position
falls outside the input along some axis. A Resize of an integer input by
linear or cubic interpolation, or of opset 10, has none.
"""

from typing import List, Optional, Tuple

from ..values import attributes_of, constant_node, static_shape, text_of
from ...torch_mlir import require
from .rule import ALWAYS, ON_LOWERING_ERROR, Rule, Site

onnx = require("onnx", "onnx")
np = require("numpy", "onnx")  # onnx's dependency
helper = require("onnx.helper", "onnx")

__all__ = ["interpolation", "resize_function"]


def source_coordinates(mode: str, out: int, size: int, scale: float, roi) -> "np.ndarray":
    """The input coordinate each of the `out` output positions of an axis of
    `size` maps to. The output's length in the formulas is `scale * size`,
    as ONNX's reference computes it, not its rounded length (they differ
    when scales are given)."""
    y = np.arange(out, dtype=np.float64)
    width = scale * size
    if mode == "align_corners":
        return np.zeros(out) if width == 1 else y * (size - 1) / (width - 1)
    if mode == "asymmetric":
        return y / scale
    if mode == "tf_crop_and_resize":
        start, end = roi
        if width == 1:
            return np.full(out, 0.5 * (start + end) * (size - 1))
        return start * (size - 1) + y * (end - start) * (size - 1) / (width - 1)
    if mode == "pytorch_half_pixel":
        return np.full(out, -0.5) if width == 1 else (y + 0.5) / scale - 0.5
    if mode == "half_pixel":
        return (y + 0.5) / scale - 0.5
    if mode == "half_pixel_symmetric":
        offset = size / 2 * (1 - out / width)
        return offset + (y + 0.5) / scale - 0.5
    raise ValueError(f"coordinate_transformation_mode {mode!r}")


def _cubic(distance: "np.ndarray", a: float) -> "np.ndarray":
    """The cubic convolution kernel of coefficient `a` (Keys)."""
    d = np.abs(distance)
    near = ((a + 2) * d - (a + 3)) * d * d + 1
    far = ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
    return np.where(d <= 1, near, np.where(d < 2, far, 0.0))


def interpolation(
    attributes: dict, out: int, size: int, scale: float, roi
) -> Tuple[Optional["np.ndarray"], Optional["np.ndarray"], "np.ndarray"]:
    """The interpolation of an axis of `size` positions into `out`: (the
    indices of nearest mode or None, the [out, size] matrix of the others or
    None, whether each output position is extrapolated)."""
    mode = text_of(attributes.get("mode", "nearest"))
    transformation = text_of(attributes.get("coordinate_transformation_mode", "half_pixel"))
    x = source_coordinates(transformation, out, size, scale, roi)
    extrapolated = np.zeros(out, bool)
    if transformation == "tf_crop_and_resize":
        extrapolated = (x < 0) | (x > size - 1)
    # The taps are counted from `base`, the position left of x (x - 1 when x
    # is a position itself), at `ratio` in (0, 1] from it.
    base = np.ceil(x) - 1
    ratio = x - base
    base = base.astype(np.int64)
    if mode == "nearest":
        rounding = text_of(attributes.get("nearest_mode", "round_prefer_floor"))
        right = {
            "round_prefer_floor": ratio > 0.5,
            "round_prefer_ceil": ratio >= 0.5,
            "floor": ratio == 1,
            "ceil": np.ones(out, bool),
        }[rounding]
        return np.clip(base + right, 0, size - 1), None, extrapolated
    shrink = min(scale, 1.0) if attributes.get("antialias", 0) else 1.0
    if mode == "linear":
        # The triangle kernel, widened by 1 / shrink when downsampling.
        first = int(np.floor(-1 / shrink) + 1)
        taps = np.arange(first, 2 - first)
        weights = np.clip(1 - np.abs(taps[None, :] - ratio[:, None]) * shrink, 0, 1)
    elif mode == "cubic":
        first = int(np.floor(-2 / shrink) + 1)
        taps = np.arange(first, 2 - first)
        a = float(attributes.get("cubic_coeff_a", -0.75))
        weights = _cubic(shrink * (taps[None, :] - ratio[:, None]), a)
    else:
        raise ValueError(f"mode {mode!r}")
    if shrink < 1:
        weights /= weights.sum(axis=1, keepdims=True)
    positions = base[:, None] + taps[None, :]
    if attributes.get("exclude_outside", 0):
        weights = np.where((positions < 0) | (positions >= size), 0.0, weights)
        total = weights.sum(axis=1, keepdims=True)
        weights /= np.where(total == 0, 1.0, total)
    matrix = np.zeros((out, size))
    rows = np.broadcast_to(np.arange(out)[:, None], positions.shape)
    # Positions outside the input take its edge's value.
    np.add.at(matrix, (rows, np.clip(positions, 0, size - 1)), weights)
    matrix[extrapolated] = 0
    return None, matrix, extrapolated


def _axes_to_resize(node, attributes, shape, out_shape, constants):
    """(axis, out, scale, roi) of each axis the Resize changes; None if its
    operands are not constants or do not fit its `axes`."""
    rank = len(shape)
    operands = list(node.input) + [""] * (4 - len(node.input))
    values = [constants.get(name) if name else np.zeros(0) for name in operands[1:4]]
    if any(value is None for value in values):
        return None
    roi, scales, sizes = (np.asarray(value, np.float64).reshape(-1) for value in values)
    axes = [int(a) % rank for a in attributes.get("axes", range(rank))]
    count = len(axes)
    full_roi = [(0.0, 1.0)] * rank
    if roi.size:
        if roi.size != 2 * count:
            return None
        for index, axis in enumerate(axes):
            full_roi[axis] = (roi[index], roi[count + index])
    full_scales = [1.0] * rank
    if scales.size:
        if scales.size != count:
            return None
        for index, axis in enumerate(axes):
            full_scales[axis] = scales[index]
    elif sizes.size == count:
        ratios = {axis: sizes[index] / shape[axis] for index, axis in enumerate(axes)}
        policy = text_of(attributes.get("keep_aspect_ratio_policy", "stretch"))
        if policy != "stretch":
            common = (min if policy == "not_larger" else max)(ratios.values())
            ratios = {axis: common for axis in axes}
        for axis, ratio in ratios.items():
            # Stretched, the scale is that of the output's size.
            full_scales[axis] = ratio if policy != "stretch" else out_shape[axis] / shape[axis]
    else:
        return None
    return [
        (axis, out_shape[axis], full_scales[axis], full_roi[axis])
        for axis in range(rank)
        if (full_scales[axis], out_shape[axis], full_roi[axis]) != (1.0, shape[axis], (0.0, 1.0))
    ]


def resize_function(site: Site) -> Optional["onnx.FunctionProto"]:
    """lighthouse's function of a Resize, specialized to its constants and
    the static shapes of its input and output; None if it has none."""
    node, types, constants = site.node, site.types, site.constants
    x, y = node.input[0], node.output[0]
    if len(node.input) < 3 or x not in types or y not in types:
        return None  # Opset 10's Resize takes (X, scales) and has no roi.
    shape, out_shape = static_shape(types[x]), static_shape(types[y])
    if shape is None or out_shape is None or len(shape) != len(out_shape):
        return None
    element = types[x].tensor_type.elem_type
    dtype = helper.tensor_dtype_to_np_dtype(element)
    attributes = attributes_of(node)
    mode = text_of(attributes.get("mode", "nearest"))
    if mode != "nearest" and not np.issubdtype(dtype, np.floating):
        return None
    resized = _axes_to_resize(node, attributes, shape, out_shape, constants)
    if resized is None:
        return None
    nodes: List["onnx.NodeProto"] = []
    rank = len(shape)
    value = "X"
    outside = np.zeros([1] * rank, bool)
    for axis, out, scale, roi in resized:
        try:
            indices, matrix, extrapolated = interpolation(attributes, out, shape[axis], scale, roi)
        except ValueError:
            return None
        outside = outside | extrapolated.reshape([-1 if a == axis else 1 for a in range(rank)])
        stem = f"axis{axis}"
        if indices is not None:
            nodes.append(constant_node(f"{stem}_indices", indices))
            nodes.append(helper.make_node("Gather", [value, f"{stem}_indices"], [stem], axis=axis))
        else:
            nodes += _along_axis(value, matrix.astype(dtype), axis, rank, stem)
        value = stem
    if outside.any():
        extrapolation = float(attributes.get("extrapolation_value", 0.0))
        nodes.append(constant_node("outside", outside))
        nodes.append(constant_node("extrapolation", np.array(extrapolation, dtype)))
        nodes.append(helper.make_node("Where", ["outside", "extrapolation", value], ["Y"]))
    else:
        nodes.append(helper.make_node("Identity", [value], ["Y"]))
    return helper.make_function(
        "lighthouse", node.op_type, ["X"], ["Y"], nodes, [helper.make_opsetid("", 13)]
    )


def _along_axis(value: str, matrix: "np.ndarray", axis: int, rank: int, stem: str) -> list:
    """The nodes applying `matrix` [out, in] along `axis` of `value`: a
    MatMul with the axis last or second to last, moved there and back
    otherwise."""
    if axis == rank - 1:
        return [
            constant_node(f"{stem}_weights", np.ascontiguousarray(matrix.T)),
            helper.make_node("MatMul", [value, f"{stem}_weights"], [stem]),
        ]
    nodes = [constant_node(f"{stem}_weights", matrix)]
    if axis == rank - 2:
        return nodes + [helper.make_node("MatMul", [f"{stem}_weights", value], [stem])]
    perm = list(range(rank))
    perm[axis], perm[rank - 2] = rank - 2, axis
    return nodes + [
        helper.make_node("Transpose", [value], [f"{stem}_moved"], perm=perm),
        helper.make_node("MatMul", [f"{stem}_weights", f"{stem}_moved"], [f"{stem}_product"]),
        helper.make_node("Transpose", [f"{stem}_product"], [stem], perm=perm),
    ]


def _axes_or_aspect_ratio(site: Site) -> Optional[str]:
    attributes = attributes_of(site.node)
    policy = text_of(attributes.get("keep_aspect_ratio_policy", b"stretch"))
    if "axes" in attributes or policy != "stretch":
        return None
    return "it resizes every axis and stretches them: the form torch-mlir converts"


def _plain_resize(site: Site) -> Optional[List["onnx.NodeProto"]]:
    """The nodes of `node`'s plain form (Constants of the full scales, sizes
    and region, and the Resize), or None if it has none or is one."""
    node, types, constants = site.node, site.types, site.constants
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
    policy = text_of(attributes.get("keep_aspect_ratio_policy", b"stretch"))

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


RULES = [
    Rule("resize-in-plain-form", "Resize", _plain_resize, ALWAYS, _axes_or_aspect_ratio, since=18),
    Rule("resize-as-interpolation", "Resize", resize_function, ON_LOWERING_ERROR),
]
