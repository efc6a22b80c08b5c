"""Convolutions torch-mlir converts in some forms only.

- ConvTranspose: one per group (torch-mlir's grouped transposed convolution
  fails), with `auto_pad`'s pads made explicit (it converts none):
  `stride * (in - 1) + output_padding + (kernel - 1) * dilation + 1 - out`
  split in halves, the odd one at the end for SAME_UPPER; pads that differ
  at the two ends (which it refuses) as the smaller at both, the rest
  sliced off the result.
- Col2Im: the transposed convolution of the columns, as blocks of the
  grid of block positions, with one-hot kernels (one per block element,
  grouped by channel): each column element lands at its block's position
  plus its offset in the block, and overlapping ones add up.
- Conv of groups over three spatial dimensions (MViT's pooled attention,
  which torch-mlir does not lower): the sum over the kernel's depth of
  grouped 2-D convolutions of the input's depth slices each kernel depth
  reads, folded into the batch.
- DeformConv of one group: each tap of each output position samples the
  input at its offset position bilinearly (a corner outside reads zero;
  GatherElements of the flattened input per corner), weighted by the mask,
  and the columns of samples are multiplied by the kernel (MatMul), as
  im2col does for a plain convolution.
"""

from typing import Optional

from ...torch_mlir import require
from ..values import attributes_of, constant_node, lighthouse_function, static_shapes
from .rule import ON_LOWERING_ERROR, Rule, Site

onnx = require("onnx", "onnx")
np = require("numpy", "onnx")  # onnx's dependency
helper = require("onnx.helper", "onnx")


def _transposed_convolution(site: Site) -> Optional["onnx.FunctionProto"]:
    node, types = site.node, site.types
    shapes = static_shapes(types, node.input[0], node.input[1])
    if shapes is None:
        return None
    x_shape, w_shape = shapes
    attributes = attributes_of(node)
    spatial = len(x_shape) - 2
    group = attributes.pop("group", 1)
    auto_pad = attributes.pop("auto_pad", b"NOTSET")
    auto_pad = auto_pad.decode() if isinstance(auto_pad, bytes) else auto_pad
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        strides = attributes.get("strides", [1] * spatial)
        dilations = attributes.get("dilations", [1] * spatial)
        kernel = attributes.get("kernel_shape", w_shape[2:])
        extra = attributes.get("output_padding", [0] * spatial)
        out = attributes.pop("output_shape", None) or [
            size * stride for size, stride in zip(x_shape[2:], strides)
        ]
        total = [
            s * (size - 1) + e + (k - 1) * d + 1 - o
            for s, size, e, k, d, o in zip(strides, x_shape[2:], extra, kernel, dilations, out)
        ]
        smaller = [t // 2 for t in total]
        larger = [t - t // 2 for t in total]
        attributes["pads"] = smaller + larger if auto_pad == "SAME_UPPER" else larger + smaller
    elif auto_pad != "NOTSET":
        return None
    pads = list(attributes.get("pads", [0] * 2 * spatial))
    begins, ends = pads[:spatial], pads[spatial:]
    if group == 1 and begins == ends and auto_pad == "NOTSET":
        return None
    # torch-mlir takes pads the same at both ends only: the smaller, and the
    # rest of the other end sliced off the result.
    both = [min(b, e) for b, e in zip(begins, ends)]
    attributes["pads"] = both + both
    inputs = ["X", "W", "B"][: len(node.input)]
    nodes = []
    if group == 1:
        nodes.append(helper.make_node("ConvTranspose", inputs, ["full"], **attributes))
    else:
        parts = {}
        for name, size in (("X", x_shape[1]), ("W", w_shape[0]), ("B", w_shape[1] * group)):
            if name not in inputs:
                continue
            nodes.append(constant_node(f"{name}_split", np.full(group, size // group, np.int64)))
            parts[name] = [f"{name}_{g}" for g in range(group)]
            axis = 1 if name == "X" else 0
            nodes.append(helper.make_node("Split", [name, f"{name}_split"], parts[name], axis=axis))
        for g in range(group):
            nodes.append(
                helper.make_node(
                    "ConvTranspose",
                    [parts[name][g] for name in inputs],
                    [f"full_{g}"],
                    **attributes,
                )
            )
        nodes.append(
            helper.make_node("Concat", [f"full_{g}" for g in range(group)], ["full"], axis=1)
        )
    if begins == ends:
        nodes.append(helper.make_node("Identity", ["full"], ["Y"]))
    else:
        starts = [b - m for b, m in zip(begins, both)]
        stops = [-(e - m) if e > m else np.iinfo(np.int64).max for e, m in zip(ends, both)]
        nodes += [
            constant_node("starts", np.array(starts, np.int64)),
            constant_node("stops", np.array(stops, np.int64)),
            constant_node("axes", np.arange(2, 2 + spatial, dtype=np.int64)),
            helper.make_node("Slice", ["full", "starts", "stops", "axes"], ["Y"]),
        ]
    return lighthouse_function(node, inputs, ["Y"], nodes, 18)


def _grouped_3d_declines(site: Site) -> Optional[str]:
    node = site.node
    attributes = attributes_of(node)
    shapes = static_shapes(site.types, node.input[0], node.input[1])
    if shapes is None:
        return "its input and kernel have no static shapes"
    if len(shapes[0]) != 5:
        return "it is not a convolution over three spatial dimensions"
    if attributes.get("group", 1) == 1:
        return "it has one group, which torch-mlir lowers"
    auto_pad = attributes.get("auto_pad", b"NOTSET")
    if (auto_pad.decode() if isinstance(auto_pad, bytes) else auto_pad) != "NOTSET":
        return "its auto_pad is not NOTSET"
    return None


def _grouped_3d_convolution(site: Site) -> "onnx.FunctionProto":
    node = site.node
    (batch, channels, depth, height, width), w_shape = static_shapes(
        site.types, node.input[0], node.input[1]
    )
    filters, kernel_depth = w_shape[0], w_shape[2]
    attributes = attributes_of(node)
    strides = attributes.get("strides", [1, 1, 1])
    dilations = attributes.get("dilations", [1, 1, 1])
    pads = attributes.get("pads", [0] * 6)
    kernel = attributes.get("kernel_shape", w_shape[2:])
    out = [
        (size + pads[k] + pads[3 + k] - dilations[k] * (kernel[k] - 1) - 1) // strides[k] + 1
        for k, size in enumerate((depth, height, width))
    ]
    inputs = ["X", "W", "B"][: len(node.input)]
    nodes = [
        constant_node("depth_pads", np.array([0, 0, pads[0], 0, 0, 0, 0, pads[3], 0, 0], np.int64)),
        helper.make_node("Pad", ["X", "depth_pads"], ["padded"]),
        constant_node("depth_axis", np.array([2], np.int64)),
        constant_node("depth_step", np.array([strides[0]], np.int64)),
        constant_node(
            "planes_shape", np.array([batch * out[0], channels, height, width], np.int64)
        ),
    ]
    parts = []
    for k in range(kernel_depth):
        start = k * dilations[0]
        nodes += [
            constant_node(f"start_{k}", np.array([start], np.int64)),
            constant_node(f"stop_{k}", np.array([start + strides[0] * (out[0] - 1) + 1], np.int64)),
            # The depth slices kernel depth k reads, one per output slice.
            helper.make_node(
                "Slice",
                ["padded", f"start_{k}", f"stop_{k}", "depth_axis", "depth_step"],
                [f"slices_{k}"],
            ),
            helper.make_node("Transpose", [f"slices_{k}"], [f"by_depth_{k}"], perm=[0, 2, 1, 3, 4]),
            helper.make_node("Reshape", [f"by_depth_{k}", "planes_shape"], [f"planes_{k}"]),
            constant_node(f"kernel_depth_{k}", np.array(k, np.int64)),
            helper.make_node("Gather", ["W", f"kernel_depth_{k}"], [f"W_{k}"], axis=2),
            helper.make_node(
                "Conv",
                [f"planes_{k}", f"W_{k}"],
                [f"part_{k}"],
                group=attributes["group"],
                strides=strides[1:],
                dilations=dilations[1:],
                pads=[pads[1], pads[2], pads[4], pads[5]],
            ),
        ]
        parts.append(f"part_{k}")
    nodes += [
        helper.make_node("Sum", parts, ["planes_out"]),
        constant_node("out_shape", np.array([batch, out[0], filters, out[1], out[2]], np.int64)),
        helper.make_node("Reshape", ["planes_out", "out_shape"], ["by_depth_out"]),
        helper.make_node(
            "Transpose",
            ["by_depth_out"],
            ["Y" if "B" not in inputs else "unbiased"],
            perm=[0, 2, 1, 3, 4],
        ),
    ]
    if "B" in inputs:
        nodes += [
            constant_node("bias_shape", np.array([1, filters, 1, 1, 1], np.int64)),
            helper.make_node("Reshape", ["B", "bias_shape"], ["bias"]),
            helper.make_node("Add", ["unbiased", "bias"], ["Y"]),
        ]
    return lighthouse_function(node, inputs, ["Y"], nodes, 18)


def _columns_to_image(site: Site) -> Optional["onnx.FunctionProto"]:
    node, types, constants = site.node, site.types, site.constants
    shapes = static_shapes(types, node.input[0])
    image, block = (constants.get(name) for name in node.input[1:3])
    if shapes is None or image is None or block is None or len(shapes[0]) != 3:
        return None
    (batch, columns, count), image, block = shapes[0], list(image), list(block)
    spatial = len(block)
    attributes = attributes_of(node)
    dilations = attributes.get("dilations", [1] * spatial)
    pads = attributes.get("pads", [0] * 2 * spatial)
    strides = attributes.get("strides", [1] * spatial)
    size = int(np.prod(block))
    if columns % size:
        return None
    channels = columns // size
    extents = [d * (b - 1) + 1 for d, b in zip(dilations, block)]
    grid = [
        (i + pads[k] + pads[spatial + k] - e) // s + 1
        for k, (i, e, s) in enumerate(zip(image, extents, strides))
    ]
    if int(np.prod(grid)) != count:
        return None
    # The transposed convolution's output falls short of the image by what
    # the last stride leaves.
    reached = [
        s * (n - 1) + e - pads[k] - pads[spatial + k]
        for k, (s, n, e) in enumerate(zip(strides, grid, extents))
    ]
    kernels = np.zeros(
        (columns, 1, *block),
        helper.tensor_dtype_to_np_dtype(types[node.input[0]].tensor_type.elem_type),
    )
    for column in range(columns):
        kernels[(column, 0, *np.unravel_index(column % size, block))] = 1
    nodes = [
        constant_node("grid_shape", np.array([batch, columns, *grid], np.int64)),
        constant_node("kernels", kernels),
        helper.make_node("Reshape", ["input", "grid_shape"], ["blocks"]),
        helper.make_node(
            "ConvTranspose",
            ["blocks", "kernels"],
            ["image"],
            group=channels,
            dilations=dilations,
            pads=pads,
            strides=strides,
            output_padding=[i - r for i, r in zip(image, reached)],
        ),
    ]
    return lighthouse_function(node, ["input"], ["image"], nodes, 18)


def _deformable_convolution(site: Site) -> Optional["onnx.FunctionProto"]:
    node, types = site.node, site.types
    shapes = static_shapes(types, node.input[0], node.input[1])
    attributes = attributes_of(node)
    if shapes is None or attributes.get("group", 1) != 1:
        return None
    (batch, channels, height, width), (out_channels, _, kh, kw) = shapes
    groups = attributes.get("offset_group", 1)
    sh, sw = attributes.get("strides", [1, 1])
    dh, dw = attributes.get("dilations", [1, 1])
    top, left, bottom, right = attributes.get("pads", [0, 0, 0, 0])
    oh = (height + top + bottom - dh * (kh - 1) - 1) // sh + 1
    ow = (width + left + right - dw * (kw - 1) - 1) // sw + 1
    taps, points = kh * kw, oh * ow
    element = types[node.input[0]].tensor_type.elem_type
    dtype = helper.tensor_dtype_to_np_dtype(element)
    # The undeformed position of each tap (rows) at each output point.
    i, j = np.unravel_index(np.arange(taps), (kh, kw))
    y, x = np.unravel_index(np.arange(points), (oh, ow))
    base_y = (y[None, :] * sh - top + i[:, None] * dh).astype(dtype)
    base_x = (x[None, :] * sw - left + j[:, None] * dw).astype(dtype)
    nodes = [
        constant_node("base_y", base_y),
        constant_node("base_x", base_x),
        constant_node("offsets_shape", np.array([batch, groups, taps, 2, points], np.int64)),
        constant_node("flat_shape", np.array([batch, groups, channels // groups, -1], np.int64)),
        constant_node("tap_shape", np.array([batch, groups, 1, taps * points], np.int64)),
        constant_node(
            "gathered_shape", np.array([batch, groups, channels // groups, taps * points], np.int64)
        ),
        constant_node("zero", np.zeros((), dtype)),
        constant_node("one", np.ones((), dtype)),
        constant_node("last_row", np.array(height - 1, dtype)),
        constant_node("last_column", np.array(width - 1, dtype)),
        constant_node("width", np.array(width, np.int64)),
        constant_node("first", np.array(0, np.int64)),
        constant_node("second", np.array(1, np.int64)),
        helper.make_node("Reshape", ["X", "flat_shape"], ["flat"]),
        helper.make_node("Reshape", ["offset", "offsets_shape"], ["pairs"]),
        helper.make_node("Gather", ["pairs", "first"], ["dy"], axis=3),
        helper.make_node("Gather", ["pairs", "second"], ["dx"], axis=3),
        helper.make_node("Add", ["base_y", "dy"], ["y"]),
        helper.make_node("Add", ["base_x", "dx"], ["x"]),
        helper.make_node("Floor", ["y"], ["y0"]),
        helper.make_node("Floor", ["x"], ["x0"]),
        helper.make_node("Sub", ["y", "y0"], ["ly"]),
        helper.make_node("Sub", ["x", "x0"], ["lx"]),
        helper.make_node("Sub", ["one", "ly"], ["hy"]),
        helper.make_node("Sub", ["one", "lx"], ["hx"]),
        helper.make_node("Add", ["y0", "one"], ["y1"]),
        helper.make_node("Add", ["x0", "one"], ["x1"]),
    ]
    corners = []
    for row, row_weight in (("y0", "hy"), ("y1", "ly")):
        for column, column_weight in (("x0", "hx"), ("x1", "lx")):
            c = f"{row}{column}"
            nodes += [
                helper.make_node("Mul", [row_weight, column_weight], [f"{c}_weight"]),
                # Inside: 0 <= row <= last_row and 0 <= column <= last_column.
                helper.make_node("GreaterOrEqual", [row, "zero"], [f"{c}_row_low"]),
                helper.make_node("LessOrEqual", [row, "last_row"], [f"{c}_row_high"]),
                helper.make_node("GreaterOrEqual", [column, "zero"], [f"{c}_column_low"]),
                helper.make_node("LessOrEqual", [column, "last_column"], [f"{c}_column_high"]),
                helper.make_node("And", [f"{c}_row_low", f"{c}_row_high"], [f"{c}_row_in"]),
                helper.make_node(
                    "And", [f"{c}_column_low", f"{c}_column_high"], [f"{c}_column_in"]
                ),
                helper.make_node("And", [f"{c}_row_in", f"{c}_column_in"], [f"{c}_inside"]),
                helper.make_node("Cast", [f"{c}_inside"], [f"{c}_kept"], to=element),
                helper.make_node("Mul", [f"{c}_weight", f"{c}_kept"], [f"{c}_factor"]),
                helper.make_node("Clip", [row, "zero", "last_row"], [f"{c}_row"]),
                helper.make_node("Clip", [column, "zero", "last_column"], [f"{c}_column"]),
                helper.make_node(
                    "Cast", [f"{c}_row"], [f"{c}_row_index"], to=onnx.TensorProto.INT64
                ),
                helper.make_node(
                    "Cast", [f"{c}_column"], [f"{c}_column_index"], to=onnx.TensorProto.INT64
                ),
                helper.make_node("Mul", [f"{c}_row_index", "width"], [f"{c}_row_start"]),
                helper.make_node("Add", [f"{c}_row_start", f"{c}_column_index"], [f"{c}_index"]),
                helper.make_node("Reshape", [f"{c}_index", "tap_shape"], [f"{c}_index_row"]),
                helper.make_node(
                    "Expand", [f"{c}_index_row", "gathered_shape"], [f"{c}_every_channel"]
                ),
                helper.make_node(
                    "GatherElements", ["flat", f"{c}_every_channel"], [f"{c}_value"], axis=3
                ),
                helper.make_node("Reshape", [f"{c}_factor", "tap_shape"], [f"{c}_factor_row"]),
                helper.make_node("Mul", [f"{c}_value", f"{c}_factor_row"], [f"{c}_sample"]),
            ]
            corners.append(f"{c}_sample")
    nodes.append(helper.make_node("Sum", corners, ["sampled"]))
    inputs = ["X", "W", "offset", "B", "mask"][: len(node.input)]
    sampled = "sampled"
    if "mask" in inputs and node.input[4]:
        nodes += [
            helper.make_node("Reshape", ["mask", "tap_shape"], ["mask_row"]),
            helper.make_node("Mul", ["sampled", "mask_row"], ["masked"]),
        ]
        sampled = "masked"
    nodes += [
        constant_node("columns_shape", np.array([batch, channels * taps, points], np.int64)),
        constant_node("kernel_shape", np.array([out_channels, channels * taps], np.int64)),
        constant_node("out_shape", np.array([batch, out_channels, oh, ow], np.int64)),
        helper.make_node("Reshape", [sampled, "columns_shape"], ["columns"]),
        helper.make_node("Reshape", ["W", "kernel_shape"], ["kernel"]),
        helper.make_node("MatMul", ["kernel", "columns"], ["product"]),
    ]
    product = "product"
    if "B" in inputs and node.input[3]:
        nodes += [
            constant_node("bias_shape", np.array([1, out_channels, 1], np.int64)),
            helper.make_node("Reshape", ["B", "bias_shape"], ["bias"]),
            helper.make_node("Add", ["product", "bias"], ["biased"]),
        ]
        product = "biased"
    nodes.append(helper.make_node("Reshape", [product, "out_shape"], ["Y"]))
    return lighthouse_function(node, inputs, ["Y"], nodes, 18)


RULES = [
    Rule(
        "transposed-convolution-per-group",
        "ConvTranspose",
        _transposed_convolution,
        ON_LOWERING_ERROR,
    ),
    Rule(
        "columns-to-image-as-transposed-convolution", "Col2Im", _columns_to_image, ON_LOWERING_ERROR
    ),
    Rule(
        "grouped-3d-convolution-as-2d",
        "Conv",
        _grouped_3d_convolution,
        ON_LOWERING_ERROR,
        check=_grouped_3d_declines,
    ),
    Rule(
        "deformable-convolution-as-samples",
        "DeformConv",
        _deformable_convolution,
        ON_LOWERING_ERROR,
    ),
]
