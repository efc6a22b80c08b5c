"""Mutants: seed programs with one to three mutations, each a function of
(kind, seed, index) alone."""

import base64
import dataclasses
import random
import re
from typing import Callable, Iterable, List, Optional, Sequence, Tuple

from .programs import make_program
from .seeds import MLIR_SEEDS, ONNX_SEEDS
from .settings import KINDS

# ===----------------------------------------------------------------------=== #
# Mutants
# ===----------------------------------------------------------------------=== #


@dataclasses.dataclass
class Mutant:
    """A seed program with mutations: MLIR text, or a serialized ONNX model."""

    kind: str
    index: int
    seed_program: str
    mutations: List[str]
    payload: object  # str for "mlir", bytes for "onnx"

    def request(self, timeout: float) -> dict:
        """What the worker is sent."""
        request = {"kind": self.kind, "inputs_seed": self.index, "timeout": timeout}
        if self.kind == "mlir":
            request["text"] = self.payload
        else:
            request["model"] = base64.b64encode(self.payload).decode()
        return request

    def reproducer(self) -> dict:
        if self.kind == "mlir":
            return {"text": self.payload}
        return {"model_base64": base64.b64encode(self.payload).decode()}


# Integers at and past the limits of the types sizes and indices are held in.
BOUNDARY_INTEGERS = (
    0,
    1,
    -1,
    2,
    3,
    7,
    2**31 - 1,
    2**31,
    -(2**31),
    2**32,
    2**62,
    2**63 - 1,
    -(2**63),
    2**63,
    2**64,
)
# Small sizes, a dynamic one, and sizes no buffer can have.
DIMENSIONS = ("0", "1", "2", "3", "5", "16", "?", "?", str(2**31), str(2**40), str(2**63 - 1))
SPECIAL_FLOATS = ("0x7FC00000", "0x7F800000", "0xFF800000", "-0.0", "1.0e+39", "1.0e-45")
ELEMENT_TYPES = ("f16", "bf16", "f32", "f64", "i1", "i8", "i32", "i64", "index")
# Ops that take the same operands, so that one can stand for another. Integer
# division and remainder are left out: a zero divisor is undefined behaviour
# that traps (SIGFPE), a fault of the program and not of the compiler.
OP_FAMILIES = (
    ("linalg.add", "linalg.sub", "linalg.mul", "linalg.div", "linalg.max", "linalg.min"),
    ("linalg.exp", "linalg.log", "linalg.abs", "linalg.negf", "linalg.sqrt", "linalg.tanh"),
    ("linalg.matmul", "linalg.batch_matmul", "linalg.matmul_transpose_a", "linalg.matvec"),
    (
        "linalg.conv_2d_nhwc_hwcf",
        "linalg.conv_2d_nchw_fchw",
        "linalg.pooling_nhwc_max",
        "linalg.pooling_nhwc_sum",
        "linalg.pooling_nchw_max",
        "linalg.depthwise_conv_2d_nhwc_hwc",
    ),
    ("linalg.transpose", "linalg.broadcast"),
    ("arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.maximumf", "arith.remf"),
    ("arith.addi", "arith.subi", "arith.muli", "arith.shli", "arith.shrsi", "arith.maxsi"),
    ("math.exp", "math.log", "math.tanh", "math.sqrt", "math.absf", "math.log1p", "math.erf"),
    ("arith.fptosi", "arith.fptoui", "arith.sitofp", "arith.uitofp", "arith.index_cast"),
    ("tensor.expand_shape", "tensor.collapse_shape"),
    ("olt", "ogt", "oeq", "une", "uno"),
    ("slt", "sgt", "eq", "ne", "ult"),
    ('"parallel"', '"reduction"'),
)
_OP_NAMES = {name: family for family in OP_FAMILIES for name in family}
_OP_PATTERN = re.compile(
    "|".join(
        (r"(?<![\w.])" + re.escape(name) + r"(?![\w.])")
        for name in sorted(_OP_NAMES, key=len, reverse=True)
    )
)

# An integer literal that stands alone (not in `%c0`, `4x8xf32` or `0.5`).
_INTEGER = re.compile(r"(?<![\w%#@^.$-])-?\d+(?![\w.])")
_FLOAT = re.compile(r"(?<![\w.])-?\d+\.\d+(?:[eE][+-]?\d+)?|\b0x[0-9A-Fa-f]{8}\b")
_TENSOR_TYPE = re.compile(r"tensor<([^<>]*)>")
_ELEMENT = re.compile(r"\b(?:f16|bf16|f32|f64|i1|i8|i16|i32|i64|index)\b")
_LIST = re.compile(r"\[([^\[\]]*)\]")
_TOKEN = re.compile(
    r"%[\w$.#]+|@[\w$.]+|\^\w+|#\w+|0x[0-9A-Fa-f]+|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?"
    r"|[A-Za-z_][\w.$]*|->|\S"
)


def _line(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


def _pick(rng: random.Random, pattern: re.Pattern, text: str) -> Optional[re.Match]:
    found = list(pattern.finditer(text))
    return rng.choice(found) if found else None


def _replace(text: str, match: re.Match, new: str) -> str:
    return text[: match.start()] + new + text[match.end() :]


def _mutate_integer(text, rng, donors):
    match = _pick(rng, _INTEGER, text)
    if not match:
        return None
    new = str(rng.choice(BOUNDARY_INTEGERS))
    return _replace(text, match, new), (
        f"integer {match.group()} -> {new} (line {_line(text, match.start())})"
    )


def _mutate_float(text, rng, donors):
    match = _pick(rng, _FLOAT, text)
    if not match:
        return None
    new = rng.choice(SPECIAL_FLOATS)
    return _replace(text, match, new), (
        f"float {match.group()} -> {new} (line {_line(text, match.start())})"
    )


def _rewrite_type(text, rng, match, new_type, what):
    """Replaces the tensor type at `match` by `new_type`: everywhere it is
    written (the program stays consistent, and reaches the compiler more
    often) or only there."""
    old = match.group()
    if rng.random() < 0.8:
        return text.replace(old, new_type), f"{what}: {old} -> {new_type} everywhere"
    line = _line(text, match.start())
    return _replace(text, match, new_type), f"{what}: {old} -> {new_type} (line {line})"


def _mutate_dimension(text, rng, donors):
    match = _pick(rng, _TENSOR_TYPE, text)
    if not match:
        return None
    parts = match.group(1).split("x")
    if len(parts) < 2:
        return None
    position = rng.randrange(len(parts) - 1)
    parts[position] = rng.choice(DIMENSIONS)
    return _rewrite_type(text, rng, match, f"tensor<{'x'.join(parts)}>", "size")


def _mutate_rank(text, rng, donors):
    match = _pick(rng, _TENSOR_TYPE, text)
    if not match:
        return None
    parts = match.group(1).split("x")
    dims = parts[:-1]
    if dims and rng.random() < 0.5:
        del dims[rng.randrange(len(dims))]
    else:
        dims.insert(rng.randrange(len(dims) + 1), rng.choice(DIMENSIONS[:7]))
    return _rewrite_type(text, rng, match, f"tensor<{'x'.join(dims + parts[-1:])}>", "rank")


def _mutate_element_type(text, rng, donors):
    match = _pick(rng, _ELEMENT, text)
    if not match:
        return None
    new = rng.choice([t for t in ELEMENT_TYPES if t != match.group()])
    if rng.random() < 0.7:
        pattern = re.compile(r"\b" + re.escape(match.group()) + r"\b")
        return pattern.sub(new, text), f"type {match.group()} -> {new} everywhere"
    line = _line(text, match.start())
    return _replace(text, match, new), f"type {match.group()} -> {new} (line {line})"


def _mutate_op(text, rng, donors):
    match = _pick(rng, _OP_PATTERN, text)
    if not match:
        return None
    new = rng.choice([n for n in _OP_NAMES[match.group()] if n != match.group()])
    line = _line(text, match.start())
    return _replace(text, match, new), f"op {match.group()} -> {new} (line {line})"


def _mutate_list(text, rng, donors):
    """Permutations, dimensions, reassociations, offsets, sizes: the lists
    that verifiers check against ranks."""
    match = _pick(rng, _LIST, text)
    if not match:
        return None
    items = [item.strip() for item in match.group(1).split(",") if item.strip()]
    how = rng.choice(("shuffle", "drop", "duplicate", "insert", "reverse", "replace"))
    if how == "shuffle":
        rng.shuffle(items)
    elif how == "drop" and items:
        del items[rng.randrange(len(items))]
    elif how == "duplicate" and items:
        items.insert(rng.randrange(len(items) + 1), rng.choice(items))
    elif how == "insert":
        items.insert(rng.randrange(len(items) + 1), str(rng.choice(BOUNDARY_INTEGERS)))
    elif how == "reverse":
        items.reverse()
    elif items:
        items[rng.randrange(len(items))] = str(rng.choice(BOUNDARY_INTEGERS))
    new = "[" + ", ".join(items) + "]"
    line = _line(text, match.start())
    return _replace(text, match, new), f"list {match.group()} -> {new} ({how}, line {line})"


def _token_class(token: str) -> str:
    if token[0] in "%@^#":
        return token[0]
    if token[0].isdigit() or token[0] == "-" and len(token) > 1:
        return "number"
    if token[0].isalpha() or token[0] == "_":
        return "word"
    return "punctuation"


def _mutate_token(text, rng, donors):
    tokens = list(_TOKEN.finditer(text))
    if len(tokens) < 2:
        return None
    position = rng.randrange(len(tokens) - 1)
    token, after = tokens[position], tokens[position + 1]
    line = _line(text, token.start())
    how = rng.choice(("delete", "duplicate", "swap", "replace", "replace"))
    if how == "delete":
        return _replace(text, token, ""), f"token {token.group()!r} deleted (line {line})"
    if how == "duplicate":
        new = token.group() + " " + token.group()
        return _replace(text, token, new), f"token {token.group()!r} doubled (line {line})"
    if how == "swap":
        swapped = (
            text[: token.start()]
            + after.group()
            + text[token.end() : after.start()]
            + token.group()
            + text[after.end() :]
        )
        return swapped, f"tokens {token.group()!r} and {after.group()!r} swapped (line {line})"
    # Another token of the same class: an SSA value for another (rewiring),
    # a word for another, a number for another.
    same = [t.group() for t in tokens if _token_class(t.group()) == _token_class(token.group())]
    new = rng.choice(same)
    return _replace(text, token, new), f"token {token.group()!r} -> {new!r} (line {line})"


def _mutate_line(text, rng, donors):
    lines = text.split("\n")
    body = [i for i, line in enumerate(lines) if line.strip()]
    if len(body) < 2:
        return None
    i = rng.choice(body)
    how = rng.choice(("delete", "duplicate", "swap", "move", "splice"))
    if how == "delete":
        removed = lines.pop(i)
        return "\n".join(lines), f"line {i + 1} deleted: {removed.strip()}"
    if how == "duplicate":
        lines.insert(i, lines[i])
        return "\n".join(lines), f"line {i + 1} doubled"
    if how == "swap":
        j = rng.choice(body)
        lines[i], lines[j] = lines[j], lines[i]
        return "\n".join(lines), f"lines {i + 1} and {j + 1} swapped"
    if how == "move":
        moved = lines.pop(i)
        j = rng.randrange(len(lines) + 1)
        lines.insert(j, moved)
        return "\n".join(lines), f"line {i + 1} moved to {j + 1}"
    donor = rng.choice(donors).split("\n")
    new = rng.choice([line for line in donor if line.strip()])
    lines.insert(i, new)
    return "\n".join(lines), f"line from another program inserted at {i + 1}: {new.strip()}"


def _mutate_truncate(text, rng, donors):
    cut = rng.randrange(1, len(text))
    return text[:cut], f"truncated at line {_line(text, cut)}"


MLIR_MUTATIONS: Sequence[Tuple[Callable, float]] = (
    (_mutate_integer, 3),
    (_mutate_dimension, 3),
    (_mutate_list, 2),
    (_mutate_element_type, 2),
    (_mutate_op, 2),
    (_mutate_token, 1.5),
    (_mutate_line, 1.5),
    (_mutate_rank, 1),
    (_mutate_float, 1),
    (_mutate_truncate, 0.3),
)


def _apply(rng, subject, mutations, donors, count) -> List[str]:
    """Applies `count` mutations drawn by weight; returns their descriptions
    and the mutated subject."""
    functions = [f for f, _ in mutations]
    weights = [w for _, w in mutations]
    done = []
    for _ in range(count):
        for _attempt in range(8):
            result = rng.choices(functions, weights)[0](subject, rng, donors)
            if result is not None and result[0] != subject:
                subject, description = result
                done.append(description)
                break
    return subject, done


def _mlir_mutant(seed: int, index: int) -> Mutant:
    rng = random.Random(f"lighthouse-fuzz/mlir/{seed}/{index}")
    name = rng.choice(sorted(MLIR_SEEDS))
    donors = [MLIR_SEEDS[n] for n in sorted(MLIR_SEEDS) if n != name]
    text, done = _apply(
        rng, MLIR_SEEDS[name], MLIR_MUTATIONS, donors, rng.choice((1, 1, 1, 2, 2, 3))
    )
    return Mutant("mlir", index, name, done, text)


# ONNX mutations act on the ModelProto: what a converter or a hand-written
# model can get wrong (attributes, shapes, types, initializers, op types,
# wiring, opsets), each a field the checker, shape inference, the importer
# and torch-mlir's lowering must refuse or take.

ONNX_ELEMENT_TYPES = (1, 2, 3, 5, 6, 7, 9, 10, 11, 12, 13, 16)  # TensorProto enum values
ONNX_OP_FAMILIES = (
    ("Relu", "Sigmoid", "Tanh", "Abs", "Neg", "Exp", "Log", "Sqrt", "Erf", "Softsign"),
    ("Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "MatMul", "PRelu"),
    ("MaxPool", "AveragePool", "LpPool", "GlobalMaxPool"),
    ("ReduceSum", "ReduceMax", "ReduceMean", "ReduceProd", "ReduceL2", "ReduceLogSumExp"),
    ("Softmax", "LogSoftmax", "Hardmax", "Flatten"),
    ("ArgMax", "ArgMin"),
    ("Less", "Greater", "Equal", "LessOrEqual"),
    ("Transpose", "Identity", "Relu"),
    ("Concat", "Sum", "Mean"),
    ("Reshape", "Expand", "Tile"),
    ("Unsqueeze", "Squeeze"),
    ("Gather", "GatherElements"),
    ("Conv", "ConvTranspose"),
    ("Slice",),
    ("Gemm",),
    ("Pad",),
    ("Cast",),
    ("Where",),
    ("LayerNormalization",),
)
_ONNX_FAMILY = {name: family for family in ONNX_OP_FAMILIES for name in family}
ONNX_OPSETS = (9, 11, 13, 15, 17, 18, 21)


def _onnx_int_attribute(model, rng):
    from onnx import AttributeProto

    found = [
        (node, a)
        for node in model.graph.node
        for a in node.attribute
        if a.type in (AttributeProto.INT, AttributeProto.INTS)
    ]
    if not found:
        return None
    node, attribute = rng.choice(found)
    if attribute.type == AttributeProto.INT:
        old, attribute.i = attribute.i, rng.choice(BOUNDARY_INTEGERS[:-2] + (-2, 4))
        return f"{node.op_type}.{attribute.name} {old} -> {attribute.i}"
    values = list(attribute.ints)
    old = list(values)
    how = rng.choice(("replace", "drop", "duplicate", "shuffle", "append"))
    if how == "replace" and values:
        values[rng.randrange(len(values))] = rng.choice(BOUNDARY_INTEGERS[:-2] + (-2,))
    elif how == "drop" and values:
        del values[rng.randrange(len(values))]
    elif how == "duplicate" and values:
        values.append(rng.choice(values))
    elif how == "shuffle":
        rng.shuffle(values)
    else:
        values.append(rng.choice((0, 1, 2, -1)))
    del attribute.ints[:]
    attribute.ints.extend(values)
    return f"{node.op_type}.{attribute.name} {old} -> {values}"


def _onnx_float_attribute(model, rng):
    from onnx import AttributeProto

    found = [
        (node, a)
        for node in model.graph.node
        for a in node.attribute
        if a.type == AttributeProto.FLOAT
    ]
    if not found:
        return None
    node, attribute = rng.choice(found)
    old, attribute.f = attribute.f, rng.choice((float("nan"), float("inf"), 0.0, -1.0, 1e30))
    return f"{node.op_type}.{attribute.name} {old} -> {attribute.f}"


def _onnx_values(model):
    graph = model.graph
    return list(graph.input) + list(graph.output) + list(graph.value_info)


def _onnx_shape(model, rng):
    values = [v for v in _onnx_values(model) if v.type.tensor_type.HasField("shape")]
    if not values:
        return None
    value = rng.choice(values)
    dims = value.type.tensor_type.shape.dim
    how = rng.choice(("size", "size", "dynamic", "add", "drop", "unranked"))
    if how == "unranked":
        value.type.tensor_type.ClearField("shape")
        return f"{value.name}: shape removed"
    if how == "add" or not dims:
        dims.add().dim_value = rng.choice((1, 2, 3))
        return f"{value.name}: a dimension added"
    position = rng.randrange(len(dims))
    if how == "drop":
        del dims[position]
        return f"{value.name}: dimension {position} removed"
    if how == "dynamic":
        dims[position].dim_param = rng.choice(("N", "M"))
        return f"{value.name}: dimension {position} -> {dims[position].dim_param}"
    dims[position].dim_value = rng.choice((0, 1, 2, 3, 7, 2**31, 2**40, 2**63 - 1))
    return f"{value.name}: dimension {position} -> {dims[position].dim_value}"


def _onnx_element_type(model, rng):
    values = _onnx_values(model) + list(model.graph.initializer)
    value = rng.choice(values)
    new = rng.choice(ONNX_ELEMENT_TYPES)
    if hasattr(value, "data_type"):  # An initializer: its data is left as it was.
        old, value.data_type = value.data_type, new
    else:
        old, value.type.tensor_type.elem_type = value.type.tensor_type.elem_type, new
    return f"{value.name}: element type {old} -> {new}"


def _onnx_initializer(model, rng):
    import numpy as np
    from onnx import numpy_helper

    if not model.graph.initializer:
        return None
    position = rng.randrange(len(model.graph.initializer))
    tensor = model.graph.initializer[position]
    if rng.random() < 0.3:  # Dims that disagree with the data.
        old = list(tensor.dims)
        if tensor.dims and rng.random() < 0.5:
            tensor.dims[rng.randrange(len(tensor.dims))] = rng.choice((0, 1, 5, 2**31))
        else:
            tensor.dims.append(rng.choice((1, 2)))
        return f"initializer {tensor.name}: dims {old} -> {list(tensor.dims)}"
    array = numpy_helper.to_array(tensor).copy()
    if array.size == 0:
        return None
    flat = array.reshape(-1)
    where = rng.randrange(flat.size)
    if array.dtype.kind == "f":
        flat[where] = rng.choice((np.nan, np.inf, -np.inf, 0.0, 1e30))
    else:
        info = np.iinfo(array.dtype)
        flat[where] = rng.choice((0, -1, 2, -2, 7, 100, info.max, info.min))
    if rng.random() < 0.2 and flat.size > 1:  # Another length.
        array = flat[: rng.randrange(flat.size)] if rng.random() < 0.5 else np.tile(flat, 2)
    model.graph.initializer[position].CopyFrom(numpy_helper.from_array(array, tensor.name))
    return f"initializer {tensor.name} -> {array.tolist()}"


def _onnx_op_type(model, rng):
    found = [n for n in model.graph.node if n.op_type in _ONNX_FAMILY]
    if not found:
        return None
    node = rng.choice(found)
    family = _ONNX_FAMILY[node.op_type]
    if len(family) < 2:
        return None
    old, node.op_type = node.op_type, rng.choice([o for o in family if o != node.op_type])
    return f"op {old} -> {node.op_type}"


def _onnx_wiring(model, rng):
    graph = model.graph
    names = [v.name for v in graph.input] + [t.name for t in graph.initializer]
    names += [o for n in graph.node for o in n.output]
    node = rng.choice(graph.node)
    how = rng.choice(("rewire", "rewire", "drop", "add", "empty"))
    if how == "drop" and node.input:
        removed = node.input.pop()
        return f"{node.op_type}: last input {removed} removed"
    if how == "add":
        node.input.append(rng.choice(names))
        return f"{node.op_type}: input {node.input[-1]} added"
    if not node.input:
        return None
    position = rng.randrange(len(node.input))
    old = node.input[position]
    node.input[position] = "" if how == "empty" else rng.choice(names)
    return f"{node.op_type}: input {position} {old} -> {node.input[position]!r}"


def _onnx_node(model, rng):
    nodes = model.graph.node
    how = rng.choice(("delete", "duplicate", "swap", "drop-attribute"))
    position = rng.randrange(len(nodes))
    node = nodes[position]
    if how == "delete" and len(nodes) > 1:
        del nodes[position]
        return f"node {node.op_type} deleted"
    if how == "duplicate":
        nodes.add().CopyFrom(node)
        return f"node {node.op_type} doubled"
    if how == "swap" and len(nodes) > 1:
        other = rng.randrange(len(nodes))
        first, second = type(node)(), type(node)()
        first.CopyFrom(nodes[position])
        second.CopyFrom(nodes[other])
        nodes[position].CopyFrom(second)
        nodes[other].CopyFrom(first)
        return f"nodes {position} and {other} swapped"
    if node.attribute:
        removed = node.attribute.pop(rng.randrange(len(node.attribute)))
        return f"{node.op_type}: attribute {removed.name} removed"
    return None


def _onnx_opset(model, rng):
    opset = model.opset_import[0]
    old, opset.version = opset.version, rng.choice(ONNX_OPSETS)
    return f"opset {old} -> {opset.version}"


ONNX_MUTATIONS: Sequence[Tuple[Callable, float]] = (
    (_onnx_int_attribute, 3),
    (_onnx_shape, 3),
    (_onnx_initializer, 3),
    (_onnx_element_type, 1.5),
    (_onnx_op_type, 2),
    (_onnx_wiring, 1.5),
    (_onnx_node, 1),
    (_onnx_float_attribute, 1),
    (_onnx_opset, 0.5),
)


def _onnx_mutant(seed: int, index: int) -> Mutant:
    rng = random.Random(f"lighthouse-fuzz/onnx/{seed}/{index}")
    name = rng.choice(sorted(ONNX_SEEDS))
    model = ONNX_SEEDS[name]()
    done = []
    functions = [f for f, _ in ONNX_MUTATIONS]
    weights = [w for _, w in ONNX_MUTATIONS]
    for _ in range(rng.choice((1, 1, 2, 2, 3))):
        for _attempt in range(8):
            try:
                description = rng.choices(functions, weights)[0](model, rng)
            except Exception:
                # A field an earlier mutation made unreadable (an initializer
                # whose dims disagree with its data): another mutation instead.
                continue
            if description is not None:
                done.append(description)
                break
    return Mutant("onnx", index, name, done, model.SerializeToString())


def make_mutant(kind: str, seed: int, index: int):
    """Mutant `index` of `kind` ("mlir" or "onnx"), or differential program
    `index` ("linalg"), for `seed`: the same on every machine and every run."""
    if kind == "linalg":
        return make_program(seed, index)
    if kind == "mlir":
        return _mlir_mutant(seed, index)
    if kind == "onnx":
        return _onnx_mutant(seed, index)
    raise ValueError(f"unknown kind of mutant {kind!r}: use one of {', '.join(KINDS)}")


def mutants(seed: int, mlir: int, onnx: int, start: int = 0) -> Iterable[Mutant]:
    """`mlir` MLIR mutants then `onnx` ONNX ones, from index `start` on."""
    for index in range(start, start + mlir):
        yield make_mutant("mlir", seed, index)
    for index in range(start, start + onnx):
        yield make_mutant("onnx", seed, index)
