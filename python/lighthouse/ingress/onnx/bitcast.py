"""ONNX BitCast between floats and integers, which torch-mlir does not
convert and ONNX defines by no function of other ops.

`bitcasts_as_builtin` writes each such BitCast of the imported torch-onnx IR
as a `tensor.bitcast` between torch-mlir's casts to and from builtin tensors
(`torch_c`), which torch-mlir's pipelines keep and strip; `bitcasts_elementwise`
makes each `tensor.bitcast` of the lowered IR an elementwise `arith.bitcast`,
which lighthouse's pipelines turn into a `linalg.generic` (a `tensor.bitcast`
does not bufferize). BitCasts between integers of one width are Casts
(`rules.bitcast`).
"""

import re
from typing import Optional

from ... import ir

__all__ = ["bitcasts_as_builtin", "bitcasts_elementwise"]

# `!torch.vtensor<[3,?,4],f32>`: its sizes and element type.
_VTENSOR = re.compile(r"^!torch\.vtensor<\[([^\]]*)\],([a-z0-9]+)>$")
_ELEMENTS = {
    **{name: name for name in ("f16", "bf16", "f32", "f64")},
    **{f"si{bits}": f"i{bits}" for bits in (8, 16, 32, 64)},
}


def _builtin(vtensor: ir.Type) -> Optional[ir.Type]:
    """The builtin tensor type torch-mlir converts `vtensor` to, for floats
    and signed integers of a known rank; None for other types."""
    match = _VTENSOR.match(str(vtensor))
    if not match or match.group(2) not in _ELEMENTS:
        return None
    sizes = [size.strip() for size in match.group(1).split(",") if size.strip()]
    return ir.Type.parse(
        f"tensor<{''.join(size + 'x' for size in sizes)}{_ELEMENTS[match.group(2)]}>"
    )


def _is_float(tensor: ir.Type) -> bool:
    return isinstance(ir.RankedTensorType(tensor).element_type, ir.FloatType)


def bitcasts_as_builtin(module: ir.Module) -> None:
    """Rewrites each `onnx.BitCast` of `module` between a float and an
    integer tensor of one width (see the module's description)."""
    with module.context, ir.Location.unknown():
        bitcasts = []

        def collect(op):
            name = op.attributes["name"] if "name" in op.attributes else None
            if op.name == "torch.operator" and name and ir.StringAttr(name).value == "onnx.BitCast":
                bitcasts.append(op)
            return ir.WalkResult.ADVANCE

        module.operation.walk(collect)
        for op in bitcasts:
            if len(op.operands) != 1 or len(op.results) != 1:
                continue
            source, result = _builtin(op.operands[0].type), _builtin(op.results[0].type)
            if source is None or result is None or _is_float(source) == _is_float(result):
                continue
            widths = [ir.RankedTensorType(t).element_type.width for t in (source, result)]
            if widths[0] != widths[1]:
                continue
            with ir.InsertionPoint(op), op.location:
                builtin = ir.Operation.create(
                    "torch_c.to_builtin_tensor", results=[source], operands=[op.operands[0]]
                )
                cast = ir.Operation.create(
                    "tensor.bitcast", results=[result], operands=[builtin.results[0]]
                )
                back = ir.Operation.create(
                    "torch_c.from_builtin_tensor",
                    results=[op.results[0].type],
                    operands=[cast.results[0]],
                )
            op.results[0].replace_all_uses_with(back.results[0])
            op.erase()


def bitcasts_elementwise(module: ir.Module) -> None:
    """Replaces each `tensor.bitcast` of `module` by an `arith.bitcast` of the
    same tensors."""
    with module.context:
        bitcasts = []

        def collect(op):
            if op.name == "tensor.bitcast":
                bitcasts.append(op)
            return ir.WalkResult.ADVANCE

        module.operation.walk(collect)
        for op in bitcasts:
            with ir.InsertionPoint(op), op.location:
                elementwise = ir.Operation.create(
                    "arith.bitcast", results=[op.results[0].type], operands=[op.operands[0]]
                )
            op.results[0].replace_all_uses_with(elementwise.results[0])
            op.erase()
