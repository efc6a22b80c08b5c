"""Functions lighthouse defines ONNX ops by, for ops that ONNX defines by
none and torch-mlir does not convert, or converts wrong.

They are expanded as ONNX's own functions are (`_onnx_fold.expand_functions`,
after a lowering error at the op, or before import for the forms
`_onnx_canonical.converted_wrong` lists), from the node, the types of the
model's values and its constants: each is specialized to them, and takes
the node's first inputs only, the others read as constants.

- CumProd: a Scan along the axis whose state is the running product, from
  ones; reversed and exclusive as the node says. The axis must be a
  constant (folded, or compiled for by value) and the input's shape static.
- Resize: interpolation along each resized axis by a constant matrix or
  Gather (`_onnx_interpolation`).
- QLinearMatMul: as ONNX specifies it, the integer product of the inputs
  less their zero points (MatMulInteger), scaled by the product of their
  scales and quantized to the output's scale and zero point.
- TensorScatter: the update written into the cache (ScatterElements) at
  each batch's write index plus the update's positions along the axis,
  wrapped around the cache in circular mode.
- LpPool: (sum of |x|^p over each window)^(1/p), the sum a grouped
  convolution of ones with the pooling's kernel, strides, pads (auto_pad
  included) and dilations. Not with `ceil_mode`.
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
- LpNormalization: X over its p-norm along the axis, a norm of zero taken
  as one (ONNX gives 0 for a vector of zeros, torch-mlir's conversion NaN).
- SpaceToDepth of CRD mode (which torch-mlir's conversion ignores):
  Reshape, Transpose, Reshape.
- Pad of wrap mode (whose conversion by torch-mlir does not end): a Gather
  of the positions modulo the size along each padded axis.
- BitCast between integer types of one width (and from bool to 8 bits): a
  Cast, which ONNX defines as two's complement wrapping, the same bits.
  Between floats and integers it has none: `_onnx_bitcast` lowers those.
- MaxUnpool: the values scattered (ScatterElements) into zeros of the
  output's size at the positions the indices give, which ONNX counts in
  the whole tensor flattened, of the pooling's input shape
  `(in - 1) * stride - pads + kernel` (an `output_shape` of another size
  has none).
- DeformConv of one group: each tap of each output position samples the
  input at its offset position bilinearly (a corner outside reads zero;
  GatherElements of the flattened input per corner), weighted by the mask,
  and the columns of samples are multiplied by the kernel (MatMul), as
  im2col does for a plain convolution.
- Compress: a Gather of the positions NonZero finds in the condition (which
  drops the slices past the condition's length, as ONNX does), along the
  axis or of the flattened input.
"""

from typing import Callable, Dict, Optional

from ._onnx_values import attributes_of, constant_node, static_shape
from ._onnx_interpolation import resize_function
from ._torch_mlir import require

onnx = require("onnx", "onnx")
np = require("numpy", "onnx")  # onnx's dependency
helper = require("onnx.helper", "onnx")
numpy_helper = require("onnx.numpy_helper", "onnx")

__all__ = ["DEFINED", "function_of"]


def _cumulative_product(node, types, constants) -> Optional["onnx.FunctionProto"]:
    x, axis = node.input[0], node.input[1]
    shape = static_shape(types[x]) if x in types else None
    if not shape or axis not in constants or constants[axis].size != 1:
        return None
    rank = len(shape)
    axis = int(constants[axis].reshape(())) % rank
    attributes = attributes_of(node)
    exclusive, reverse = attributes.get("exclusive", 0), attributes.get("reverse", 0)
    element = types[x].tensor_type.elem_type
    row_shape = shape[:axis] + shape[axis + 1 :]

    def value(name):
        return helper.make_tensor_value_info(name, element, row_shape)

    body = helper.make_graph(
        [
            helper.make_node("Mul", ["product_in", "row"], ["product_out"]),
            helper.make_node(
                "Identity", ["product_in" if exclusive else "product_out"], ["product_row"]
            ),
        ],
        "running_product",
        [value("product_in"), value("row")],
        [value("product_out"), value("product_row")],
    )
    one = numpy_helper.from_array(np.ones(1, helper.tensor_dtype_to_np_dtype(element)), "value")
    nodes = [
        constant_node("row_shape", np.array(row_shape, np.int64)),
        helper.make_node("ConstantOfShape", ["row_shape"], ["ones"], value=one),
        helper.make_node(
            "Scan",
            ["ones", "X"],
            ["product", "Y"],
            body=body,
            num_scan_inputs=1,
            scan_input_axes=[axis],
            scan_input_directions=[reverse],
            scan_output_axes=[axis],
            scan_output_directions=[reverse],
        ),
    ]
    return helper.make_function(
        "lighthouse", node.op_type, ["X"], ["Y"], nodes, [helper.make_opsetid("", 18)]
    )


def _static_shapes(types, *names) -> Optional[list]:
    """The static shapes of the values `names`, None unless all have one."""
    shapes = [static_shape(types[name]) if name in types else None for name in names]
    return None if None in shapes else shapes


def _function(node, inputs, outputs, nodes, opset: int) -> "onnx.FunctionProto":
    return helper.make_function(
        "lighthouse", node.op_type, inputs, outputs, nodes, [helper.make_opsetid("", opset)]
    )


def _quantized_matmul(node, types, constants) -> Optional["onnx.FunctionProto"]:
    if len(node.input) != 8 or node.input[1] not in types or node.input[6] not in types:
        return None
    scale_type = types[node.input[1]].tensor_type.elem_type
    output_scale_type = types[node.input[6]].tensor_type.elem_type
    inputs = ["a", "a_scale", "a_zero", "b", "b_scale", "b_zero", "y_scale", "y_zero"]
    nodes = [
        helper.make_node("MatMulInteger", ["a", "b", "a_zero", "b_zero"], ["product"]),
        helper.make_node("Cast", ["product"], ["real_product"], to=scale_type),
        helper.make_node("Mul", ["a_scale", "b_scale"], ["scale"]),
        helper.make_node("Mul", ["real_product", "scale"], ["scaled"]),
        helper.make_node("Cast", ["scaled"], ["unquantized"], to=output_scale_type),
        helper.make_node("QuantizeLinear", ["unquantized", "y_scale", "y_zero"], ["y"]),
    ]
    return _function(node, inputs, ["y"], nodes, 21)


def _tensor_scatter(node, types, constants) -> Optional["onnx.FunctionProto"]:
    shapes = _static_shapes(types, node.input[0], node.input[1])
    if shapes is None:
        return None
    cache_shape, update_shape = shapes
    attributes = attributes_of(node)
    rank = len(cache_shape)
    axis = attributes.get("axis", -2) % rank
    circular = attributes.get("mode", b"linear") in (b"circular", "circular")
    # Positions along the axis, and the batch's write indices along the batch.
    along_axis = [-1 if a == axis else 1 for a in range(rank)]
    along_batch = [-1] + [1] * (rank - 1)
    steps = np.arange(update_shape[axis], dtype=np.int64).reshape(along_axis)
    nodes = [constant_node("steps", steps)]
    if len(node.input) > 2 and node.input[2]:
        nodes += [
            constant_node("batch_shape", np.array(along_batch, np.int64)),
            helper.make_node("Reshape", ["write_indices", "batch_shape"], ["starts"]),
            helper.make_node("Add", ["starts", "steps"], ["positions"]),
        ]
    else:
        nodes.append(helper.make_node("Identity", ["steps"], ["positions"]))
    if circular:
        nodes += [
            constant_node("length", np.array(cache_shape[axis], np.int64)),
            helper.make_node("Mod", ["positions", "length"], ["wrapped"]),
        ]
    nodes += [
        constant_node("update_shape", np.array(update_shape, np.int64)),
        helper.make_node(
            "Expand", ["wrapped" if circular else "positions", "update_shape"], ["indices"]
        ),
        helper.make_node(
            "ScatterElements", ["past_cache", "indices", "update"], ["present_cache"], axis=axis
        ),
    ]
    inputs = ["past_cache", "update", "write_indices"][: len(node.input)]
    return _function(node, inputs, ["present_cache"], nodes, 18)


def _lp_pool(node, types, constants) -> Optional["onnx.FunctionProto"]:
    x = node.input[0]
    shape = static_shape(types[x]) if x in types else None
    attributes = attributes_of(node)
    if shape is None or attributes.get("ceil_mode", 0) or "kernel_shape" not in attributes:
        return None
    dtype = helper.tensor_dtype_to_np_dtype(types[x].tensor_type.elem_type)
    p = attributes.get("p", 2)
    ones = np.ones([shape[1], 1, *attributes["kernel_shape"]], dtype)
    convolution = {
        name: value
        for name, value in attributes.items()
        if name in ("auto_pad", "pads", "strides", "dilations", "kernel_shape")
    }
    nodes = [
        constant_node("ones", ones),
        constant_node("p", np.array(p, dtype)),
        constant_node("root", np.array(1.0 / p, dtype)),
        helper.make_node("Abs", ["X"], ["magnitude"]),
        helper.make_node("Pow", ["magnitude", "p"], ["powered"]),
        helper.make_node("Conv", ["powered", "ones"], ["summed"], group=shape[1], **convolution),
        helper.make_node("Pow", ["summed", "root"], ["Y"]),
    ]
    return _function(node, ["X"], ["Y"], nodes, 18)


def _transposed_convolution(node, types, constants) -> Optional["onnx.FunctionProto"]:
    shapes = _static_shapes(types, node.input[0], node.input[1])
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
    return _function(node, inputs, ["Y"], nodes, 18)


def _columns_to_image(node, types, constants) -> Optional["onnx.FunctionProto"]:
    shapes = _static_shapes(types, node.input[0])
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
    return _function(node, ["input"], ["image"], nodes, 18)


def _lp_normalization(node, types, constants) -> Optional["onnx.FunctionProto"]:
    attributes = attributes_of(node)
    p, axis = attributes.get("p", 2), attributes.get("axis", -1)
    if p not in (1, 2):
        return None
    nodes = [
        constant_node("axes", np.array([axis], np.int64)),
        helper.make_node(
            "ReduceL2" if p == 2 else "ReduceL1", ["input", "axes"], ["norm"], keepdims=1
        ),
        constant_node("zero", np.zeros((), np.float32)),
        constant_node("one", np.ones((), np.float32)),
        helper.make_node("CastLike", ["zero", "norm"], ["typed_zero"]),
        helper.make_node("CastLike", ["one", "norm"], ["typed_one"]),
        helper.make_node("Equal", ["norm", "typed_zero"], ["zero_norm"]),
        helper.make_node("Where", ["zero_norm", "typed_one", "norm"], ["divisor"]),
        helper.make_node("Div", ["input", "divisor"], ["output"]),
    ]
    return _function(node, ["input"], ["output"], nodes, 18)


def _space_to_depth(node, types, constants) -> Optional["onnx.FunctionProto"]:
    shapes = _static_shapes(types, node.input[0])
    attributes = attributes_of(node)
    b = attributes.get("blocksize")
    if shapes is None or len(shapes[0]) != 4 or not b:
        return None
    n, c, h, w = shapes[0]
    # CRD: each channel's b x b block elements, channel first.
    nodes = [
        constant_node("blocks", np.array([n, c, h // b, b, w // b, b], np.int64)),
        constant_node("depth", np.array([n, c * b * b, h // b, w // b], np.int64)),
        helper.make_node("Reshape", ["input", "blocks"], ["blocked"]),
        helper.make_node("Transpose", ["blocked"], ["moved"], perm=[0, 1, 3, 5, 2, 4]),
        helper.make_node("Reshape", ["moved", "depth"], ["output"]),
    ]
    return _function(node, ["input"], ["output"], nodes, 18)


def _wrapped_pad(node, types, constants) -> Optional["onnx.FunctionProto"]:
    shapes = _static_shapes(types, node.input[0])
    pads = constants.get(node.input[1]) if len(node.input) > 1 else None
    if shapes is None or pads is None:
        return None
    shape = shapes[0]
    rank = len(shape)
    axes = list(range(rank))
    if len(node.input) > 3 and node.input[3]:
        given = constants.get(node.input[3])
        if given is None:
            return None
        axes = [int(a) % rank for a in given]
    pads = [int(p) for p in pads]
    nodes = []
    value = "data"
    for index, axis in enumerate(axes):
        before, after = pads[index], pads[len(axes) + index]
        if before == after == 0:
            continue
        positions = np.arange(-before, shape[axis] + after, dtype=np.int64) % shape[axis]
        nodes.append(constant_node(f"positions{axis}", positions))
        nodes.append(
            helper.make_node("Gather", [value, f"positions{axis}"], [f"padded{axis}"], axis=axis)
        )
        value = f"padded{axis}"
    nodes.append(helper.make_node("Identity", [value], ["output"]))
    return _function(node, ["data"], ["output"], nodes, 18)


def _integer_bit_cast(node, types, constants) -> Optional["onnx.FunctionProto"]:
    x = node.input[0]
    target = attributes_of(node).get("to")
    if x not in types or target is None:
        return None
    source = helper.tensor_dtype_to_np_dtype(types[x].tensor_type.elem_type)
    result = helper.tensor_dtype_to_np_dtype(target)
    if result.kind not in "iu" or source.kind not in "iub" or source.itemsize != result.itemsize:
        return None
    nodes = [helper.make_node("Cast", ["input"], ["output"], to=target)]
    return _function(node, ["input"], ["output"], nodes, 13)


def _max_unpool(node, types, constants) -> Optional["onnx.FunctionProto"]:
    shapes = _static_shapes(types, node.input[0])
    attributes = attributes_of(node)
    if shapes is None or "kernel_shape" not in attributes:
        return None
    shape = shapes[0]
    spatial = len(shape) - 2
    strides = attributes.get("strides", [1] * spatial)
    pads = attributes.get("pads", [0] * 2 * spatial)
    out_shape = shape[:2] + [
        (size - 1) * stride - pads[k] - pads[spatial + k] + kernel
        for k, (size, stride, kernel) in enumerate(
            zip(shape[2:], strides, attributes["kernel_shape"])
        )
    ]
    if len(node.input) > 2 and node.input[2]:
        # Indices of a larger output count in a space ONNX's reference maps
        # differently: only the pooling's own input shape is taken.
        given = constants.get(node.input[2])
        if given is None or [int(d) for d in given] != out_shape:
            return None
    dtype = helper.tensor_dtype_to_np_dtype(types[node.input[0]].tensor_type.elem_type)
    nodes = [
        constant_node("flat", np.array([-1], np.int64)),
        constant_node("zeros", np.zeros(int(np.prod(out_shape)), dtype)),
        constant_node("out_shape", np.array(out_shape, np.int64)),
        helper.make_node("Reshape", ["X", "flat"], ["values"]),
        helper.make_node("Reshape", ["I", "flat"], ["positions"]),
        helper.make_node("ScatterElements", ["zeros", "positions", "values"], ["scattered"]),
        helper.make_node("Reshape", ["scattered", "out_shape"], ["output"]),
    ]
    return _function(node, ["X", "I"], ["output"], nodes, 18)


def _deformable_convolution(node, types, constants) -> Optional["onnx.FunctionProto"]:
    shapes = _static_shapes(types, node.input[0], node.input[1])
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
    return _function(node, inputs, ["Y"], nodes, 18)


def _compress(node, types, constants) -> Optional["onnx.FunctionProto"]:
    axis = attributes_of(node).get("axis")
    nodes = [
        helper.make_node("NonZero", ["condition"], ["found"]),
        constant_node("flat", np.array([-1], np.int64)),
        helper.make_node("Reshape", ["found", "flat"], ["positions"]),
    ]
    if axis is None:
        nodes.append(helper.make_node("Reshape", ["input", "flat"], ["selected_from"]))
    else:
        nodes.append(helper.make_node("Identity", ["input"], ["selected_from"]))
    nodes.append(
        helper.make_node("Gather", ["selected_from", "positions"], ["output"], axis=axis or 0)
    )
    return _function(node, ["input", "condition"], ["output"], nodes, 18)


#: The ops lighthouse defines, and how (from the node, the types of the
#: model's values and its constants).
DEFINED: Dict[str, Callable] = {
    "CumProd": _cumulative_product,
    "Resize": resize_function,
    "QLinearMatMul": _quantized_matmul,
    "TensorScatter": _tensor_scatter,
    "LpPool": _lp_pool,
    "ConvTranspose": _transposed_convolution,
    "Col2Im": _columns_to_image,
    "LpNormalization": _lp_normalization,
    "SpaceToDepth": _space_to_depth,
    "Pad": _wrapped_pad,
    "Compress": _compress,
    "MaxUnpool": _max_unpool,
    "DeformConv": _deformable_convolution,
    "BitCast": _integer_bit_cast,
}


def function_of(node, types, constants) -> Optional["onnx.FunctionProto"]:
    """lighthouse's function for `node`, None if it defines none for it."""
    define = DEFINED.get(node.op_type)
    return define(node, types, constants) if define is not None else None
