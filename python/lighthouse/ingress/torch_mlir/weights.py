"""A model's weights kept out of the IR exchanged with torch-mlir's process.

torch-mlir's passes run in a process of their own (`torch_mlir.worker`), and
the IR crosses as text both ways, where a weight is a string of hex digits:
printed, piped, parsed, printed and parsed again. For an MLP of 67 MB of
weights that was 2.4 s of the 2.6 s of lowering. The passes need the weights'
types only: `weights_aside` makes each large floating-point literal of a
public function (a `torch.vtensor.literal`, or an ONNX model's initializer
or Constant) an argument of the function for the time of the exchange, and
`restore_weights` puts the same attributes back as constants into the IR
that comes back, as `torch.vtensor.literal` where the argument is still a
torch tensor and `arith.constant` where torch-mlir lowered it to a builtin
one. The attributes never leave lighthouse's context, so they are not
copied either.
"""

import contextlib
import math
from typing import Dict, Iterator, List, Optional

from ... import ir

__all__ = ["restore_weights", "weights_aside"]

#: Literals of fewer bytes stay in the IR: torch-mlir reads the values of
#: some (shapes, per-channel quantization scales, indices), and those of 64
#: KiB or more are weights (a 128x128 float32 matrix).
MIN_WEIGHT_BYTES = 64 * 1024

#: Per public function, the weights taken out of it, in argument order.
Weights = Dict[str, List[ir.Attribute]]


def _public_functions(module: ir.Module) -> Iterator[ir.OpView]:
    for op in module.body.operations:
        if op.operation.name == "func.func" and "sym_visibility" not in op.attributes:
            yield op


def _is_elements(value: ir.Attribute) -> bool:
    """Whether `value` is a dense or dense_resource elements attribute (the
    bindings do not give the latter its own class when they read it)."""
    for kind in (ir.DenseElementsAttr, ir.DenseResourceElementsAttr):
        try:
            kind(value)
            return True
        except ValueError:
            pass
    return False


#: The ops holding a literal tensor, and its attribute: torch's literal, and
#: the ONNX importer's initializers and Constants (an `onnx.Constant`
#: operator, which torch-mlir converts into the literal).
_LITERALS = {"torch.vtensor.literal": "value", "torch.operator": "torch.onnx.value"}


def _weight(op: ir.Operation) -> Optional[ir.Attribute]:
    """The literal `op` holds if it is a weight, else None."""
    attribute = _LITERALS.get(op.name)
    if attribute is None or attribute not in op.attributes:
        return None
    if op.name == "torch.operator" and ir.StringAttr(op.attributes["name"]).value != (
        "onnx.Constant"
    ):
        return None
    value = op.attributes[attribute]
    if not _is_elements(value):
        return None
    shaped = ir.ShapedType(value.type)
    if not (isinstance(shaped.element_type, ir.FloatType) and shaped.has_static_shape):
        return None
    if math.prod(shaped.shape) * shaped.element_type.width // 8 < MIN_WEIGHT_BYTES:
        return None
    return value


def _set_inputs(function: ir.OpView, inputs: list) -> None:
    """Gives `function`'s type `inputs` as its arguments' types, and its
    argument attributes, if it has some, an empty entry per added argument."""
    function_type = ir.FunctionType(ir.TypeAttr(function.attributes["function_type"]).value)
    function.attributes["function_type"] = ir.TypeAttr.get(
        ir.FunctionType.get(inputs, function_type.results)
    )
    if "arg_attrs" in function.attributes:
        attributes = list(ir.ArrayAttr(function.attributes["arg_attrs"]))
        attributes = (attributes + [ir.DictAttr.get({})] * len(inputs))[: len(inputs)]
        function.attributes["arg_attrs"] = ir.ArrayAttr.get(attributes)


def _take_weights(module: ir.Module) -> Weights:
    weights: Weights = {}
    with module.context, ir.Location.unknown():
        for function in _public_functions(module):
            entry = function.regions[0].blocks[0]
            taken = []
            for op in [op.operation for op in entry.operations]:
                value = _weight(op)
                if value is None:
                    continue
                argument = entry.add_argument(op.results[0].type, op.location)
                op.results[0].replace_all_uses_with(argument)
                taken.append(value)
                op.erase()
            if taken:
                _set_inputs(function, [argument.type for argument in entry.arguments])
                weights[ir.StringAttr(function.attributes["sym_name"]).value] = taken
    return weights


def restore_weights(module: ir.Module, weights: Weights) -> None:
    """Replaces the arguments `weights_aside` added to `module`'s functions
    (the last ones of each) by constants of the weights."""
    with module.context, ir.Location.unknown():
        functions = {
            ir.StringAttr(f.attributes["sym_name"]).value: f for f in _public_functions(module)
        }
        for name, taken in weights.items():
            function = functions[name]
            entry = function.regions[0].blocks[0]
            first = len(entry.arguments) - len(taken)
            with ir.InsertionPoint.at_block_begin(entry):
                for index, value in enumerate(taken, first):
                    argument = entry.arguments[index]
                    lowered = isinstance(argument.type, ir.RankedTensorType)
                    constant = ir.Operation.create(
                        "arith.constant" if lowered else "torch.vtensor.literal",
                        results=[argument.type],
                        attributes={"value": value},
                    )
                    argument.replace_all_uses_with(constant.results[0])
            for index in reversed(range(first, len(entry.arguments))):
                entry.erase_argument(index)
            _set_inputs(function, [argument.type for argument in entry.arguments])


@contextlib.contextmanager
def weights_aside(module: ir.Module) -> Iterator[Weights]:
    """Within the `with`, `module`'s large floating-point literals are
    arguments of their functions (the last ones); the weights are yielded for
    `restore_weights`, and put back into `module` on leaving."""
    weights = _take_weights(module)
    try:
        yield weights
    finally:
        restore_weights(module, weights)
