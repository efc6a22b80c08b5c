"""Programs of the differential fuzzer: linalg-on-tensors functions, one op
family each, over the sizes and element types that code generators get
wrong, each a function of (seed, index) alone.

Every program is compiled on the default pipeline and on `loops` (the
reference: linalg's loops, nothing tiled or vectorized) and called on the
same inputs; the two results must agree (`worker.compare`).

Sizes are drawn from zero, one, primes, multiples and non-multiples of the
register tiles (8, 16, 32) and sizes of real models (197, 1000), a few
dynamic; element types from f32, f64, f16, bf16, i8, i32 and i64, some ops
mixing them (f16 or bf16 products summed in f32, i8 in i32, an f64 filter
of an f32 convolution).
"""

import dataclasses
import random
from typing import Callable, Dict, List, Optional, Sequence, Tuple

# ===----------------------------------------------------------------------=== #
# Programs
# ===----------------------------------------------------------------------=== #


@dataclasses.dataclass
class Program:
    """A generated function `@main` and the sizes it is called with."""

    index: int
    family: str
    description: str
    text: str
    #: The arguments' sizes at the call (dynamic ones made concrete).
    shapes: List[List[int]]
    #: The most products summed into one result: the tolerance grows with it.
    terms: int = 1

    kind = "linalg"

    # What the campaign records of every case.
    @property
    def seed_program(self) -> str:
        return self.family

    @property
    def mutations(self) -> List[str]:
        return [self.description]

    @property
    def payload(self) -> str:
        return self.text

    def request(self, timeout: float) -> dict:
        return {
            "kind": self.kind,
            "inputs_seed": self.index,
            "timeout": timeout,
            "text": self.text,
            "shapes": self.shapes,
            "terms": self.terms,
        }

    def reproducer(self) -> dict:
        return {"text": self.text, "shapes": self.shapes}


FLOATS = ("f32", "f64", "f16", "bf16")
INTEGERS = ("i8", "i32", "i64")
#: Sizes, the small and the awkward ones more often.
SIZES = (0, 1, 1, 2, 3, 3, 5, 7, 8, 8, 13, 16, 17, 31, 32, 33, 64, 100, 127, 128, 197, 256)
LARGE_SIZES = (511, 512, 1000, 1024, 2047)
#: Elements of any one tensor, and multiply-adds of a program, at most:
#: the loops reference runs them too.
MAX_ELEMENTS = 1 << 21
MAX_WORK = 1 << 26
#: Of a program's leading size, how often it is dynamic.
DYNAMIC = 0.15


def _is_float(element: str) -> bool:
    return element in FLOATS


def _zero(element: str) -> str:
    return "0.000000e+00" if _is_float(element) else "0"


def _lowest(element: str) -> str:
    """The identity of a maximum: the lowest finite value."""
    return {
        "f32": "-3.40282347E+38",
        "f64": "-1.7976931348623157E+308",
        "f16": "-6.550400e+04",
        "bf16": "-3.38953139E+38",
        "i8": "-128",
        "i32": "-2147483648",
        "i64": "-9223372036854775808",
    }[element]


def _highest(element: str) -> str:
    return _lowest(element).lstrip("-")


class _Function:
    """The text of `@main` as it is written: arguments of static sizes or a
    dynamic leading one, and an init of any result's sizes."""

    def __init__(self, rng: random.Random, dynamic: bool):
        self.rng = rng
        self.dynamic = dynamic  # The leading size of the arguments that have it.
        self.arguments: List[Tuple[str, List[int], bool]] = []
        self.lines: List[str] = []
        self.counter = 0

    def value(self) -> str:
        self.counter += 1
        return f"%v{self.counter}"

    @staticmethod
    def type(shape: Sequence[int], element: str, dynamic: bool = False) -> str:
        dims = ["?" if dynamic and i == 0 else str(d) for i, d in enumerate(shape)]
        return f"tensor<{'x'.join(dims + [element])}>"

    def argument(self, shape: Sequence[int], element: str, leading: bool = True) -> str:
        """A new argument; `leading`: its first size is the program's leading
        one, dynamic when the program's is."""
        dynamic = self.dynamic and leading and len(shape) > 0
        self.arguments.append((element, list(shape), dynamic))
        return f"%arg{len(self.arguments) - 1}"

    def argument_type(self, name: str) -> str:
        element, shape, dynamic = self.arguments[int(name[4:])]
        return self.type(shape, element, dynamic)

    def leading_size(self) -> str:
        """The value of the leading size, read off the first argument."""
        c0 = self.value()
        size = self.value()
        self.lines += [
            f"{c0} = arith.constant 0 : index",
            f"{size} = tensor.dim %arg0, {c0} : {self.argument_type('%arg0')}",
        ]
        return size

    def empty(self, shape: Sequence[int], element: str, leading: bool = True) -> Tuple[str, str]:
        """A tensor.empty of `shape` and its type, its first size the program's
        leading one when `leading`."""
        dynamic = self.dynamic and leading and len(shape) > 0
        sizes = self.leading_size() if dynamic else ""
        name = self.value()
        tensor = self.type(shape, element, dynamic)
        self.lines.append(f"{name} = tensor.empty({sizes}) : {tensor}")
        return name, tensor

    def filled(self, shape: Sequence[int], element: str, value: str, leading=True):
        """An init of `shape` filled with `value`, and its type."""
        empty, tensor = self.empty(shape, element, leading)
        constant, name = self.value(), self.value()
        self.lines += [
            f"{constant} = arith.constant {value} : {element}",
            f"{name} = linalg.fill ins({constant} : {element}) outs({empty} : {tensor}) "
            f"-> {tensor}",
        ]
        return name, tensor

    def render(self, results: Sequence[Tuple[str, str]]) -> str:
        arguments = ", ".join(
            f"%arg{i}: {self.type(shape, element, dynamic)}"
            for i, (element, shape, dynamic) in enumerate(self.arguments)
        )
        values = ", ".join(name for name, _ in results)
        types = ", ".join(tensor for _, tensor in results)
        body = "".join(f"  {line}\n" for line in self.lines)
        return (
            f"func.func @main({arguments}) -> ({types}) {{\n{body}  return {values} : {types}\n}}\n"
        )

    def shapes(self) -> List[List[int]]:
        return [shape for _, shape, _ in self.arguments]


def _size(rng: random.Random, large: float = 0.05) -> int:
    return rng.choice(LARGE_SIZES) if rng.random() < large else rng.choice(SIZES)


def _elements(shape: Sequence[int]) -> int:
    count = 1
    for size in shape:
        count *= size
    return count


def _fits(work: int, *shapes: Sequence[int]) -> bool:
    return work <= MAX_WORK and all(_elements(s) <= MAX_ELEMENTS for s in shapes)


# ===----------------------------------------------------------------------=== #
# Families
# ===----------------------------------------------------------------------=== #


def _types(rng: random.Random) -> Tuple[str, str, str]:
    """Two input element types and the result's: mostly one type, else a
    widening product (f16/bf16 -> f32, i8 -> i32) or inputs of two types."""
    roll = rng.random()
    if roll < 0.6:
        element = rng.choice(FLOATS + FLOATS + INTEGERS)
        return element, element, element
    if roll < 0.85:
        return rng.choice((("f16", "f16", "f32"), ("bf16", "bf16", "f32"), ("i8", "i8", "i32")))
    return rng.choice((("f32", "f64", "f32"), ("f64", "f32", "f32"), ("f16", "f32", "f32")))


def _contraction(rng: random.Random, f: _Function) -> Optional[Tuple[str, List, int]]:
    a_type, b_type, c_type = _types(rng)
    m, n, k = _size(rng), _size(rng), _size(rng)
    op = rng.choice(("matmul", "matmul", "batch_matmul", "matvec", "vecmat", "matmul_transpose_b"))
    batch = rng.choice((1, 2, 3, 5)) if op == "batch_matmul" else 1
    shapes = {
        "matmul": ([m, k], [k, n], [m, n]),
        "matmul_transpose_b": ([m, k], [n, k], [m, n]),
        "batch_matmul": ([batch, m, k], [batch, k, n], [batch, m, n]),
        "matvec": ([m, k], [k], [m]),
        "vecmat": ([k], [k, n], [n]),
    }[op]
    if not _fits(batch * m * n * k, *shapes):
        return None
    a = f.argument(shapes[0], a_type, leading=op != "vecmat")
    b = f.argument(shapes[1], b_type, leading=op == "batch_matmul")
    c, c_tensor = f.filled(shapes[2], c_type, _zero(c_type), leading=op != "vecmat")
    ins = f"ins({a}, {b} : {f.argument_type(a)}, {f.argument_type(b)}) outs({c} : {c_tensor})"
    result = f.value()
    if op == "matmul_transpose_b":
        maps = (
            "indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, "
            "affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]"
        )
        f.lines.append(f"{result} = linalg.matmul {maps} {ins} -> {c_tensor}")
    else:
        f.lines.append(f"{result} = linalg.{op} {ins} -> {c_tensor}")
    description = f"{op} {'x'.join(map(str, shapes[0]))} * {'x'.join(map(str, shapes[1]))} {a_type}*{b_type}->{c_type}"
    # A consumer of the product, computed within its blocks: a bias and a
    # maximum (a linear layer's ReLU).
    if op in ("matmul", "matmul_transpose_b") and rng.random() < 0.4:
        bias = f.argument([n], c_type, leading=False)
        init, _ = f.empty([m, n], c_type)
        out = f.value()
        zero = f.value()
        add, top = (
            ("arith.addf", "arith.maximumf") if _is_float(c_type) else ("arith.addi", "arith.maxsi")
        )
        f.lines += [
            f"{out} = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
            "affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], "
            'iterator_types = ["parallel", "parallel"]} '
            f"ins({result}, {bias} : {c_tensor}, {f.argument_type(bias)}) outs({init} : {c_tensor}) {{",
            f"^bb0(%x: {c_type}, %y: {c_type}, %o: {c_type}):",
            f"  %s = {add} %x, %y : {c_type}",
            f"  {zero} = arith.constant {_zero(c_type)} : {c_type}",
            f"  %r = {top} %s, {zero} : {c_type}",
            f"  linalg.yield %r : {c_type}",
            f"}} -> {c_tensor}",
        ]
        result = out
        description += " + bias, relu"
    return description, [(result, c_tensor)], k


def _output_size(size: int, window: int, stride: int, dilation: int) -> int:
    """The output's size; negative when the window spans more than the image,
    which linalg's verifier refuses."""
    span = size - dilation * (window - 1) - 1
    if span < 0:
        return -1
    out = span // stride + 1
    # A window of no columns: its last index (-1) scaled by the dilation
    # must still land in the image.
    return out if window or (out - 1) * stride >= dilation else -1


def _window_op(f: _Function, op: str, image, window, init, spatial: int, stride, dilation) -> str:
    """A convolution or pooling `op` over `spatial` dimensions, of (value,
    type) operands; its result."""
    vector = f"vector<{spatial}xi64>"
    result = f.value()
    f.lines.append(
        f"{result} = linalg.{op} {{dilations = dense<{dilation}> : {vector}, "
        f"strides = dense<{stride}> : {vector}}} "
        f"ins({image[0]}, {window[0]} : {image[1]}, {window[1]}) "
        f"outs({init[0]} : {init[1]}) -> {init[1]}"
    )
    return result


def _convolution(rng: random.Random, f: _Function) -> Optional[Tuple[str, List, int]]:
    op = rng.choice(
        (
            "conv_2d_nchw_fchw",
            "conv_2d_nchw_fchw",
            "conv_1d_ncw_fcw",
            "conv_3d_ncdhw_fcdhw",
            "conv_2d_nhwc_hwcf",
            "conv_2d_ngchw_gfchw",
            "depthwise_conv_2d_nchw_chw",
        )
    )
    spatial = {"conv_1d_ncw_fcw": 1, "conv_3d_ncdhw_fcdhw": 3}.get(op, 2)
    x_type, w_type, y_type = _types(rng)
    batch = rng.choice((1, 1, 2, 3))
    channels = rng.choice((1, 2, 3, 4, 8, 16, 17, 32, 64))
    filters = rng.choice((1, 2, 4, 8, 16, 24, 32, 64))
    groups = rng.choice((2, 3, 4)) if op == "conv_2d_ngchw_gfchw" else 1
    image = [rng.choice((1, 2, 3, 5, 7, 8, 14, 16, 17, 28, 31, 56)) for _ in range(spatial)]
    window = [rng.choice((1, 1, 2, 3, 3, 5, 7)) for _ in range(spatial)]
    stride = rng.choice((1, 1, 2, 3))
    dilation = rng.choice((1, 1, 1, 2, 3))
    out = [_output_size(s, w, stride, dilation) for s, w in zip(image, window)]
    if min(out) < 0:
        return None
    if op == "depthwise_conv_2d_nchw_chw":
        filters = channels
    x_shape, w_shape, y_shape = {
        "conv_2d_nhwc_hwcf": (
            [batch, *image, channels],
            [*window, channels, filters],
            [batch, *out, filters],
        ),
        "conv_2d_ngchw_gfchw": (
            [batch, groups, channels, *image],
            [groups, filters, channels, *window],
            [batch, groups, filters, *out],
        ),
        "depthwise_conv_2d_nchw_chw": (
            [batch, channels, *image],
            [channels, *window],
            [batch, channels, *out],
        ),
    }.get(op, ([batch, channels, *image], [filters, channels, *window], [batch, filters, *out]))
    terms = _elements(window) * (1 if op.startswith("depthwise") else channels)
    if not _fits(_elements(y_shape) * terms, x_shape, w_shape, y_shape):
        return None
    x = f.argument(x_shape, x_type)
    w = f.argument(w_shape, w_type, leading=False)
    y, y_tensor = f.filled(y_shape, y_type, _zero(y_type))
    result = _window_op(
        f,
        op,
        (x, f.argument_type(x)),
        (w, f.argument_type(w)),
        (y, y_tensor),
        spatial,
        stride,
        dilation,
    )
    description = (
        f"{op} {'x'.join(map(str, x_shape))} * {'x'.join(map(str, w_shape))} "
        f"stride {stride} dilation {dilation} {x_type}*{w_type}->{y_type}"
    )
    return description, [(result, y_tensor)], terms


def _pooling(rng: random.Random, f: _Function) -> Optional[Tuple[str, List, int]]:
    op = rng.choice(
        ("nchw_max", "nchw_max", "nchw_sum", "nhwc_max", "nhwc_sum", "nhwc_min", "ncw_max")
    )
    kind = op.split("_")[1]
    element = rng.choice(FLOATS + FLOATS + INTEGERS)
    spatial = 1 if op.startswith("ncw") else 2
    batch, channels = rng.choice((1, 1, 2)), rng.choice((1, 3, 8, 16, 17, 32, 64))
    image = [rng.choice((1, 2, 3, 7, 8, 14, 16, 17, 28, 56, 112)) for _ in range(spatial)]
    window = [rng.choice((0, 1, 2, 2, 3, 3, 5, 7, 13)) for _ in range(spatial)]
    stride, dilation = rng.choice((1, 2, 2, 3)), rng.choice((1, 1, 2))
    out = [_output_size(s, w, stride, dilation) for s, w in zip(image, window)]
    if min(out) < 0:
        return None
    if op.startswith("nhwc"):
        x_shape, y_shape = [batch, *image, channels], [batch, *out, channels]
    else:
        x_shape, y_shape = [batch, channels, *image], [batch, channels, *out]
    if not _fits(_elements(y_shape) * _elements(window), x_shape, y_shape):
        return None
    x = f.argument(x_shape, element)
    start = {"max": _lowest(element), "min": _highest(element), "sum": _zero(element)}[kind]
    y, y_tensor = f.filled(y_shape, element, start)
    shape, shape_tensor = f.empty(window, element, leading=False)
    result = _window_op(
        f,
        f"pooling_{op}",
        (x, f.argument_type(x)),
        (shape, shape_tensor),
        (y, y_tensor),
        spatial,
        stride,
        dilation,
    )
    description = (
        f"pooling_{op} {'x'.join(map(str, x_shape))} window {'x'.join(map(str, window))} "
        f"stride {stride} dilation {dilation} {element}"
    )
    return description, [(result, y_tensor)], _elements(window)


_COMBINERS = {
    "float": (("arith.addf", _zero), ("arith.maximumf", _lowest), ("arith.minimumf", _highest)),
    "integer": (
        ("arith.addi", _zero),
        ("arith.maxsi", _lowest),
        ("arith.minsi", _highest),
        ("arith.xori", _zero),
    ),
}


def _shape(rng: random.Random, rank: int) -> List[int]:
    shape = [_size(rng) for _ in range(rank)]
    while _elements(shape) > MAX_ELEMENTS:
        shape[shape.index(max(shape))] //= 4
    return shape


def _reduce(f: _Function, source, init, dims, combiner: str, element: str) -> str:
    """A linalg.reduce of (value, type) `source` over `dims` into `init` by
    `combiner`; its result."""
    result = f.value()
    f.lines += [
        f"{result} = linalg.reduce ins({source[0]} : {source[1]}) outs({init[0]} : {init[1]}) "
        f"dimensions = [{', '.join(map(str, dims))}]",
        f"  (%x: {element}, %acc: {element}) {{",
        f"    %r = {combiner} %x, %acc : {element}",
        f"    linalg.yield %r : {element}",
        "  }",
    ]
    return result


def _reduction(rng: random.Random, f: _Function) -> Optional[Tuple[str, List, int]]:
    element = rng.choice(FLOATS + FLOATS + INTEGERS)
    rank = rng.choice((1, 2, 2, 3, 3, 4))
    shape = _shape(rng, rank)
    dims = sorted(rng.sample(range(rank), rng.choice([1] * 3 + [min(2, rank)])))
    if rng.random() < 0.5:
        dims = [rank - 1]  # Rows, the common case.
    combiner, identity = rng.choice(_COMBINERS["float" if _is_float(element) else "integer"])
    out_shape = [s for i, s in enumerate(shape) if i not in dims]
    x = f.argument(shape, element, leading=0 not in dims)
    init, init_tensor = f.filled(out_shape, element, identity(element), leading=0 not in dims)
    result = _reduce(f, (x, f.argument_type(x)), (init, init_tensor), dims, combiner, element)
    terms = _elements([shape[d] for d in dims])
    description = f"reduce {combiner} over {dims} of {'x'.join(map(str, shape))} {element}"
    return description, [(result, init_tensor)], terms


def _generic(f: _Function, maps, iterators, inputs, init, element: str, body) -> str:
    """A linalg.generic of (value, type) `inputs` and `init`, all of
    `element`, whose body is the lines `body` over block arguments %in0...
    and %out, the last line's value yielded; its result."""
    result = f.value()
    names = ", ".join(name for name, _ in inputs)
    types = ", ".join(tensor for _, tensor in inputs)
    block = ", ".join(f"%in{i}: {element}" for i in range(len(inputs)))
    kinds = ", ".join(f'"{kind}"' for kind in iterators)
    f.lines += [
        f"{result} = linalg.generic {{indexing_maps = [{', '.join(maps)}], "
        f"iterator_types = [{kinds}]}} "
        f"ins({names} : {types}) outs({init[0]} : {init[1]}) {{",
        f"^bb0({block}, %out: {element}):",
        *(f"  {line}" for line in body),
        f"  linalg.yield {body[-1].split(' = ')[0]} : {element}",
        f"}} -> {init[1]}",
    ]
    return result


def _softmax(rng: random.Random, f: _Function) -> Optional[Tuple[str, List, int]]:
    """A softmax over rows, as exported models write it: the row's maximum,
    exp(x - max), its sum, the division."""
    element = rng.choice(("f32", "f32", "f64", "f16"))
    shape = _shape(rng, rng.choice((1, 2, 3)))
    rank, leading = len(shape), len(shape) > 1
    argument = f.argument(shape, element, leading=leading)
    x = (argument, f.argument_type(argument))
    loops = ", ".join(f"d{i}" for i in range(rank))
    rows = ", ".join(f"d{i}" for i in range(rank - 1))
    identity = f"affine_map<({loops}) -> ({loops})>"
    row = f"affine_map<({loops}) -> ({rows})>"
    reduce = ["parallel"] * (rank - 1) + ["reduction"]
    parallel = ["parallel"] * rank
    lowest = f.filled(shape[:-1], element, _lowest(element), leading=leading)
    row_max = (
        _generic(
            f,
            [identity, row],
            reduce,
            [x],
            lowest,
            element,
            [f"%r = arith.maximumf %in0, %out : {element}"],
        ),
        lowest[1],
    )
    exps = (
        _generic(
            f,
            [identity, row, identity],
            parallel,
            [x, row_max],
            f.empty(shape, element, leading=leading),
            element,
            [f"%d = arith.subf %in0, %in1 : {element}", f"%r = math.exp %d : {element}"],
        ),
        x[1],
    )
    zero = f.filled(shape[:-1], element, _zero(element), leading=leading)
    total = (
        _generic(
            f,
            [identity, row],
            reduce,
            [exps],
            zero,
            element,
            [f"%r = arith.addf %in0, %out : {element}"],
        ),
        zero[1],
    )
    result = _generic(
        f,
        [identity, row, identity],
        parallel,
        [exps, total],
        f.empty(shape, element, leading=leading),
        element,
        [f"%r = arith.divf %in0, %in1 : {element}"],
    )
    return (
        f"softmax over rows of {'x'.join(map(str, shape))} {element}",
        [(result, x[1])],
        shape[-1],
    )


_UNARY = {
    "float": ("arith.negf", "math.exp", "math.tanh", "math.absf", "math.floor"),
    "integer": (),
}
_BINARY = {
    "float": ("arith.addf", "arith.subf", "arith.mulf", "arith.maximumf", "arith.minimumf"),
    "integer": (
        "arith.addi",
        "arith.subi",
        "arith.muli",
        "arith.maxsi",
        "arith.minsi",
        "arith.xori",
    ),
}


def _elementwise(rng: random.Random, f: _Function) -> Optional[Tuple[str, List, int]]:
    """A generic of one to three inputs, some broadcast along a loop, whose
    body is a random chain of arithmetic, math and comparisons."""
    element = rng.choice(FLOATS + FLOATS + INTEGERS)
    kind = "float" if _is_float(element) else "integer"
    rank = rng.choice((1, 2, 3, 4))
    shape = _shape(rng, rank)
    loops = ", ".join(f"d{i}" for i in range(rank))
    maps, inputs = [], []
    for _ in range(rng.choice((1, 2, 2, 3))):
        kept = [i for i in range(rank) if rng.random() < 0.8 or i == 0]
        maps.append(f"affine_map<({loops}) -> ({', '.join(f'd{i}' for i in kept)})>")
        inputs.append(f.argument([shape[i] for i in kept], element, leading=0 in kept))
    init = f.empty(shape, element)
    maps.append(f"affine_map<({loops}) -> ({loops})>")
    body, values, ops = [], [f"%in{i}" for i in range(len(inputs))], []
    for step in range(rng.choice((1, 2, 3, 4))):
        name = f"%t{step}"
        if _UNARY[kind] and rng.random() < 0.35:
            op = rng.choice(_UNARY[kind])
            body.append(f"{name} = {op} {rng.choice(values)} : {element}")
        elif rng.random() < 0.15:
            op = "select"
            a, b = rng.choice(values), rng.choice(values)
            predicate = "arith.cmpf olt" if kind == "float" else "arith.cmpi slt"
            body += [
                f"%c{step} = {predicate}, {a}, {b} : {element}",
                f"{name} = arith.select %c{step}, {a}, {b} : {element}",
            ]
        else:
            op = rng.choice(_BINARY[kind])
            body.append(f"{name} = {op} {rng.choice(values)}, {rng.choice(values)} : {element}")
        values.append(name)
        ops.append(op.split(".")[-1])
    operands = [(i, f.argument_type(i)) for i in inputs]
    result = _generic(f, maps, ["parallel"] * rank, operands, init, element, body)
    tensor = init[1]
    description = f"elementwise {'/'.join(ops)} over {'x'.join(map(str, shape))} {element}, {len(inputs)} inputs"
    return description, [(result, tensor)], 1


def _transpose(rng: random.Random, f: _Function) -> Optional[Tuple[str, List, int]]:
    element = rng.choice(FLOATS + INTEGERS)
    rank = rng.choice((2, 2, 3, 4, 5))
    shape = _shape(rng, rank)
    permutation = list(range(rank))
    while permutation == sorted(permutation):
        rng.shuffle(permutation)
    out_shape = [shape[p] for p in permutation]
    x = f.argument(shape, element, leading=permutation[0] == 0)
    init, tensor = f.empty(out_shape, element, leading=permutation[0] == 0)
    result = f.value()
    f.lines.append(
        f"{result} = linalg.transpose ins({x} : {f.argument_type(x)}) outs({init} : {tensor}) "
        f"permutation = [{', '.join(map(str, permutation))}]"
    )
    return (
        f"transpose {permutation} of {'x'.join(map(str, shape))} {element}",
        [(result, tensor)],
        1,
    )


def _pad(rng: random.Random, f: _Function) -> Optional[Tuple[str, List, int]]:
    """A padded image, then a pooling or a sum over it, as a convolution
    network pads before a window."""
    element = rng.choice(FLOATS + INTEGERS)
    rank = rng.choice((2, 3, 4))
    shape = _shape(rng, rank)
    low = [rng.choice((0, 0, 1, 2, 3)) if i >= rank - 2 else 0 for i in range(rank)]
    high = [rng.choice((0, 0, 1, 2, 7)) if i >= rank - 2 else 0 for i in range(rank)]
    out_shape = [s + lo + hi for s, lo, hi in zip(shape, low, high)]
    if _elements(out_shape) > MAX_ELEMENTS:
        return None
    x = f.argument(shape, element, leading=False)
    tensor = f.type(out_shape, element)
    padded, value = f.value(), f.value()
    constant = "1.500000e+00" if _is_float(element) else "7"
    f.lines += [
        f"{value} = arith.constant {constant} : {element}",
        f"{padded} = tensor.pad {x} low[{', '.join(map(str, low))}] high[{', '.join(map(str, high))}] {{",
        f"^bb0({', '.join(f'%i{i}: index' for i in range(rank))}):",
        f"  tensor.yield {value} : {element}",
        f"}} : {f.argument_type(x)} to {tensor}",
    ]
    add = "arith.addf" if _is_float(element) else "arith.addi"
    init, init_tensor = f.filled(out_shape[:-1], element, _zero(element), leading=False)
    result = _reduce(f, (padded, tensor), (init, init_tensor), [rank - 1], add, element)
    description = f"pad {'x'.join(map(str, shape))} low {low} high {high} {element}, row sums"
    return description, [(padded, tensor), (result, init_tensor)], out_shape[-1]


#: The families, each a maker of a program's body: its description, its
#: results and the most products summed into one, or None for a draw that
#: does not fit (too large, a window larger than its image).
FAMILIES: Dict[str, Callable] = {
    "contraction": _contraction,
    "convolution": _convolution,
    "pooling": _pooling,
    "reduction": _reduction,
    "softmax": _softmax,
    "elementwise": _elementwise,
    "transpose": _transpose,
    "pad": _pad,
}


def make_program(seed: int, index: int, families: Sequence[str] = tuple(FAMILIES)) -> Program:
    """Program `index` of `seed`: a function of the two alone (and of the
    families drawn from)."""
    rng = random.Random(f"lighthouse-differential:{seed}:{index}")
    family = families[index % len(families)]
    while True:
        f = _Function(rng, dynamic=rng.random() < DYNAMIC)
        made = FAMILIES[family](rng, f)
        if made is not None:
            break
    description, results, terms = made
    if f.dynamic:
        description += " (leading size dynamic)"
    return Program(index, family, description, f.render(results), f.shapes(), max(terms, 1))


def programs(seed: int, count: int, start: int = 0, families: Sequence[str] = tuple(FAMILIES)):
    """Programs `start` to `start + count` of `seed`, the families in turn."""
    for index in range(start, start + count):
        yield make_program(seed, index, families)
