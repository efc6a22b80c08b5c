"""Convolutions torch-mlir does not lower, as ones it does.

torch-mlir lowers a grouped convolution with two spatial dimensions but not
with three: MViT's pooled attention (a depthwise 3-D convolution of its
queries, keys and values) failed with `aten.convolution` illegal. A 3-D
convolution is a sum over its filter's depth of 2-D convolutions, each of
the input's depth slices that filter depth reads, folded into the batch:
the grouping is then the 2-D convolution's own.
"""

from ..torch_mlir import require

torch = require("torch", "torch")
F = require("torch.nn.functional", "torch")
aten = torch.ops.aten


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """`aten.convolution`, for the grouped 3-D ones torch-mlir refuses; any
    other is left to torch-mlir (`NotImplemented`)."""
    if transposed or groups == 1 or input.dim() != 5:
        return NotImplemented
    batch, channels, depth, height, width = input.shape
    filters, _, filter_depth = weight.shape[:3]
    # A list of one applies to every dimension, as aten.convolution takes it.
    (stride_d, *stride_hw), (pad_d, *pad_hw), (dilation_d, *dilation_hw) = (
        list(values) * 3 if len(values) == 1 else list(values)
        for values in (stride, padding, dilation)
    )
    padded = F.pad(input, (0, 0, 0, 0, pad_d, pad_d)) if pad_d else input
    out_depth = (depth + 2 * pad_d - dilation_d * (filter_depth - 1) - 1) // stride_d + 1
    result = None
    for k in range(filter_depth):
        start = k * dilation_d
        # The depth slices filter depth k reads, one per output slice.
        slices = padded[:, :, start : start + stride_d * (out_depth - 1) + 1 : stride_d]
        planes = slices.permute(0, 2, 1, 3, 4).reshape(batch * out_depth, channels, height, width)
        part = aten.convolution(
            planes, weight[:, :, k], None, stride_hw, pad_hw, dilation_hw, False, [0, 0], groups
        )
        result = part if result is None else result + part
    out_height, out_width = result.shape[-2:]
    result = result.reshape(batch, out_depth, filters, out_height, out_width).permute(0, 2, 1, 3, 4)
    if bias is not None:
        result = result + bias.view(1, filters, 1, 1, 1)
    return result.contiguous()


DECOMPOSITIONS = {aten.convolution.default: convolution}
