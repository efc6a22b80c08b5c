"""The shapes ONNX's ops take of some of their inputs where ONNX's strict
inference does not check them and onnxruntime refuses others (`INPUT_SHAPES`,
by op and input): the ranks of inputs of shapes, sizes and axes, which
inference reads the values of whatever their rank (a Reshape of a shape of
[3, 1], which lighthouse compiled), and the inputs that broadcast one way
to the output (a LayerNormalization's bias of [4, 1] for an input of
[2, 3, 4]), whose shapes inference does not compare. Each entry is one
onnxruntime 1.32 refuses, while ONNX's strict inference takes it: ONNX's
own checks (Tile's repeats, Pad's pads, TopK's K, Range's scalars, the
multidirectional broadcasting of Add, Less, Where...) are not repeated.
`validate` checks them."""

from typing import Callable, Dict, List, NamedTuple, Optional

__all__ = ["INPUT_SHAPES", "Takes"]

Dims = List[Optional[int]]


class Takes(NamedTuple):
    """What an op takes of an input's shape: `says`, in words (`{output}`
    the output's shape), and `refuses(dims, output)`, whether an input of
    `dims` is surely not one (None where unknown, a whole rank or a
    dimension), for the node's first output of `output` as ONNX infers the
    node alone where `of_output`, else None."""

    says: str
    refuses: Callable[[Dims, Optional[Dims]], bool]
    of_output: bool = False


def _not_one_value(dims: Dims) -> bool:
    return any(size is not None and size != 1 for size in dims)


def _not_broadcast(dims: Dims, output: Optional[Dims]) -> bool:
    """Whether `dims` surely do not broadcast to `output` one way (ONNX's
    unidirectional broadcasting: numpy's, to the output's shape)."""
    if output is None:
        return False
    if len(dims) > len(output):
        return True
    return any(
        size is not None and to is not None and size not in (1, to)
        for size, to in zip(reversed(dims), reversed(output))
    )


VECTOR = Takes("a 1-D tensor", lambda dims, output: len(dims) != 1)
SCALAR_OR_VECTOR = Takes("a scalar or a 1-D tensor", lambda dims, output: len(dims) > 1)
#: onnxruntime's scalar: a tensor of no dimension, or of one value in one.
SCALAR = Takes(
    "a scalar (or a 1-D tensor of one value)",
    lambda dims, output: len(dims) > 1 or _not_one_value(dims),
)
ONE_VALUE = Takes("a tensor of one value", lambda dims, output: _not_one_value(dims))
NOT_SCALAR = Takes("a tensor of one dimension or more", lambda dims, output: not dims)
TO_OUTPUT = Takes(
    "a tensor that broadcasts to its output's shape {output}", _not_broadcast, of_output=True
)

#: What the ops take of the shapes of some inputs, by op and the input's
#: name in the op's schema.
INPUT_SHAPES: Dict[str, Dict[str, Takes]] = {
    "CenterCropPad": {"shape": VECTOR},
    "Clip": {"min": SCALAR, "max": SCALAR},
    "ConstantOfShape": {"input": NOT_SCALAR},
    "Conv": {"B": VECTOR},
    "ConvTranspose": {"B": VECTOR},
    "CumProd": {"axis": SCALAR},
    "CumSum": {"axis": SCALAR},
    "Gemm": {"C": TO_OUTPUT},
    "InstanceNormalization": {"scale": VECTOR, "B": VECTOR},
    "LayerNormalization": {"Scale": TO_OUTPUT, "B": TO_OUTPUT},
    "PRelu": {"slope": TO_OUTPUT},
    "Pad": {"axes": VECTOR, "constant_value": ONE_VALUE},
    "RMSNormalization": {"scale": TO_OUTPUT},
    **{
        f"Reduce{kind}": {"axes": VECTOR}
        for kind in (
            *("L1", "L2", "LogSum", "LogSumExp", "Max", "Mean", "Min", "Prod", "Sum"),
            "SumSquare",
        )
    },
    "Reshape": {"shape": VECTOR},
    "Slice": {"starts": VECTOR, "ends": VECTOR, "axes": VECTOR, "steps": VECTOR},
    "SoftmaxCrossEntropyLoss": {"weights": VECTOR},
    "Squeeze": {"axes": VECTOR},
    "Trilu": {"k": SCALAR},
    "Unsqueeze": {"axes": SCALAR_OR_VECTOR},
}
