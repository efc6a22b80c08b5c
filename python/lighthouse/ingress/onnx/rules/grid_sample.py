"""GridSample as gathers of the input at the taps of each sampled point.

torch-mlir converts GridSample of 2-D inputs with linear interpolation
only, rounds nearest mode's coordinates other than ONNX (which rounds half
to even) and reads out of bounds with zeros padding. lighthouse computes
every GridSample, of any number of spatial dimensions, with ONNX ops: for
each spatial dimension, the grid's coordinate (its components are in
reverse order of the dimensions) is denormalized to the input's positions,
rounded to even for nearest mode, and brought into range by the padding
mode (clamped for `border`, reflected for `reflection`; as ONNX, only when
it falls past the borders). Nearest mode has one tap per dimension, linear
two and cubic four (Keys' kernel, a = -0.75). Each combination of taps
gathers the input, flattened over its spatial dimensions, at the taps'
position (GatherElements), weighted by the product of their weights and,
for `zeros` padding, by whether every tap is inside the input; a tap past
the border reads the border for `border` padding, its reflection for
`reflection`. The input's and grid's shapes must be static.
"""

import itertools
from typing import List, Optional

from ..values import attributes_of, constant_node, static_shape, text_of
from ...torch_mlir import require
from .rule import ALWAYS, Rule, Site

onnx = require("onnx", "onnx")
np = require("numpy", "onnx")  # onnx's dependency
helper = require("onnx.helper", "onnx")

__all__ = ["sampled_grid"]

_MODES = ("nearest", "linear", "cubic")
_PADDINGS = ("zeros", "border", "reflection")
#: Keys' cubic convolution coefficient, ONNX's for GridSample.
_CUBIC_A = -0.75


class _Builder:
    """Nodes named after the GridSample they compute."""

    def __init__(self, node, dtype):
        self.node = node
        self.dtype = dtype
        self.nodes: List["onnx.NodeProto"] = []

    def op(self, op_type: str, *inputs: str, **attributes) -> str:
        output = f"{self.node.name}/{len(self.nodes)}_{op_type.lower()}"
        self.nodes.append(
            helper.make_node(op_type, list(inputs), [output], name=output, **attributes)
        )
        return output

    def constant(self, value, dtype=None) -> str:
        name = f"{self.node.name}/{len(self.nodes)}_constant"
        self.nodes.append(constant_node(name, np.array(value, dtype or self.dtype)))
        return name

    def outside(self, value: str, low: float, high: float) -> str:
        return self.op(
            "Or",
            self.op("Less", value, self.constant(low)),
            self.op("Greater", value, self.constant(high)),
        )

    def reflected(self, value: str, low: float, high: float) -> str:
        """`value` reflected by the nearer border until within [low, high]."""
        span = self.constant(high - low)
        below = self.op("Less", value, self.constant(low))
        # The distance past the border crossed, whole spans and the rest.
        past = self.op(
            "Where",
            below,
            self.op("Sub", self.constant(low), value),
            self.op("Sub", value, self.constant(high)),
        )
        spans = self.op("Floor", self.op("Div", past, span))
        rest = self.op("Sub", past, self.op("Mul", spans, span))
        odd = self.op(
            "Equal",
            self.op("Mod", spans, self.constant(2.0), fmod=1),
            self.constant(1.0),
        )
        # Reflected an even number of times, it comes back from the border
        # it crossed; an odd number, from the other.
        from_low = self.op("Add", self.constant(low), rest)
        from_high = self.op("Sub", self.constant(high), rest)
        at_low = self.op("Xor", below, odd)
        inside = self.op("Where", at_low, from_low, from_high)
        return self.op("Where", self.outside(value, low, high), inside, value)

    def cubic(self, distance: str, near: bool) -> str:
        """Keys' kernel at `distance` (in [0, 1] if `near`, else [1, 2])."""
        a = _CUBIC_A
        d = distance
        if near:  # ((a + 2) d - (a + 3)) d^2 + 1
            inner = self.op("Sub", self.op("Mul", self.constant(a + 2), d), self.constant(a + 3))
            return self.op("Add", self.op("Mul", self.op("Mul", inner, d), d), self.constant(1.0))
        # ((a d - 5a) d + 8a) d - 4a
        inner = self.op("Sub", self.op("Mul", self.constant(a), d), self.constant(5 * a))
        inner = self.op("Add", self.op("Mul", inner, d), self.constant(8 * a))
        return self.op("Sub", self.op("Mul", inner, d), self.constant(4 * a))


def sampled_grid(site: Site) -> Optional[List["onnx.NodeProto"]]:
    """The nodes computing GridSample `node`; None if a shape is not static."""
    node, types, opset = site.node, site.types, site.opset
    x, grid = node.input[0], node.input[1]
    if x not in types or grid not in types or opset < 16:
        return None
    x_shape, grid_shape = static_shape(types[x]), static_shape(types[grid])
    if x_shape is None or grid_shape is None or len(x_shape) < 3:
        return None
    spatial = x_shape[2:]
    rank = len(spatial)
    if grid_shape[-1] != rank or len(grid_shape) != rank + 2:
        return None
    x_type = types[x].tensor_type.elem_type
    grid_type = types[grid].tensor_type.elem_type
    x_dtype = helper.tensor_dtype_to_np_dtype(x_type)
    if not np.issubdtype(x_dtype, np.floating):
        return None
    attributes = attributes_of(node)
    mode = text_of(attributes.get("mode", "linear"))
    # Opset 16's names of the modes.
    mode = {"bilinear": "linear", "bicubic": "cubic"}.get(mode, mode)
    padding = text_of(attributes.get("padding_mode", "zeros"))
    aligned = bool(attributes.get("align_corners", 0))
    if mode not in _MODES or padding not in _PADDINGS:
        return None
    batch, channels = x_shape[:2]
    points = int(np.prod(grid_shape[1:-1]))
    b = _Builder(node, helper.tensor_dtype_to_np_dtype(grid_type))

    # Per spatial dimension: the taps' positions (floats) and weights.
    taps_of = []
    for dim, size in enumerate(spatial):
        component = b.op("Gather", grid, b.constant(rank - 1 - dim, np.int64), axis=-1)
        g = b.op("Reshape", component, b.constant([batch, points], np.int64))
        one = b.constant(1.0)
        if aligned:
            low, high = 0.0, size - 1.0
            position = b.op("Mul", b.op("Add", g, one), b.constant((size - 1) / 2))
        else:
            low, high = -0.5, size - 0.5
            position = b.op(
                "Div",
                b.op("Sub", b.op("Mul", b.op("Add", g, one), b.constant(float(size))), one),
                b.constant(2.0),
            )
        if mode == "nearest":
            position = b.op("Round", position)
        if padding == "border":
            clamped = b.op("Clip", position, b.constant(0.0), b.constant(size - 1.0))
            position = b.op("Where", b.outside(position, low, high), clamped, position)
        elif padding == "reflection":
            position = b.reflected(position, low, high)
        if mode == "nearest":
            taps_of.append([(position, None)])
            continue
        floor = b.op("Floor", position)
        t = b.op("Sub", position, floor)
        if mode == "linear":
            taps_of.append(
                [
                    (floor, b.op("Sub", one, t)),
                    (b.op("Add", floor, one), t),
                ]
            )
        else:
            one_minus_t = b.op("Sub", one, t)
            taps_of.append(
                [
                    (b.op("Sub", floor, one), b.cubic(b.op("Add", t, one), near=False)),
                    (floor, b.cubic(t, near=True)),
                    (b.op("Add", floor, one), b.cubic(one_minus_t, near=True)),
                    (
                        b.op("Add", floor, b.constant(2.0)),
                        b.cubic(b.op("Add", one_minus_t, one), near=False),
                    ),
                ]
            )

    # Each tap's index along its dimension, and whether it is inside.
    indexed = []
    for dim, (size, taps) in enumerate(zip(spatial, taps_of)):
        low, high = (0.0, size - 1.0) if aligned else (-0.5, size - 0.5)
        per_tap = []
        for position, weight in taps:
            inside = None
            if padding == "zeros":
                inside = b.op("Not", b.outside(position, 0.0, size - 1.0))
                position = b.op("Clip", position, b.constant(0.0), b.constant(size - 1.0))
            elif padding == "border":
                position = b.op("Clip", position, b.constant(0.0), b.constant(size - 1.0))
            else:
                position = b.reflected(position, low, high)
            index = b.op("Cast", position, to=onnx.TensorProto.INT64)
            per_tap.append((index, weight, inside))
        indexed.append(per_tap)

    strides = [int(np.prod(spatial[dim + 1 :])) for dim in range(rank)]
    flat = b.op("Reshape", x, b.constant([batch, channels, -1], np.int64))
    every_channel = b.constant([batch, channels, points], np.int64)
    total = None
    for combination in itertools.product(*indexed):
        index = weight = inside = None
        for (tap_index, tap_weight, tap_inside), stride in zip(combination, strides):
            term = (
                b.op("Mul", tap_index, b.constant(stride, np.int64)) if stride != 1 else tap_index
            )
            index = term if index is None else b.op("Add", index, term)
            if tap_weight is not None:
                weight = tap_weight if weight is None else b.op("Mul", weight, tap_weight)
            if tap_inside is not None:
                inside = tap_inside if inside is None else b.op("And", inside, tap_inside)
        index = b.op(
            "Expand",
            b.op("Reshape", index, b.constant([batch, 1, points], np.int64)),
            every_channel,
        )
        sampled = b.op("GatherElements", flat, index, axis=2)
        if inside is not None:
            kept = b.op("Cast", inside, to=grid_type)
            weight = kept if weight is None else b.op("Mul", weight, kept)
        if weight is not None:
            weight = b.op("Reshape", weight, b.constant([batch, 1, points], np.int64))
            if grid_type != x_type:
                weight = b.op("Cast", weight, to=x_type)
            sampled = b.op("Mul", sampled, weight)
        total = sampled if total is None else b.op("Add", total, sampled)
    b.nodes.append(
        helper.make_node(
            "Reshape",
            [total, b.constant([batch, channels, *grid_shape[1:-1]], np.int64)],
            [node.output[0]],
            name=node.name,
        )
    )
    return b.nodes


RULES = [Rule("grid-sample-as-gathers", "GridSample", sampled_grid, ALWAYS)]
