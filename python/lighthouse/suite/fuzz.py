"""Fuzzing lighthouse's front doors: mutants of linalg-on-tensors IR (text) and
of ONNX models, each parsed, compiled and called with random inputs in a
worker process that is replaced when it dies, so that a crash or a hang is a
recorded outcome and never the end of the run.

    lh-suite fuzz --mlir 10000 --onnx 2000 --seed 1 -o fuzz.jsonl

A mutant is a seed program (`_fuzz_seeds`) with one to three mutations, and
is a function of (kind, seed, index) alone: `lh-suite fuzz --replay mlir:17
--seed 1` makes and runs mutant 17 again. Outcomes:

  ok        compiled and called (`called: false` when its inputs would be too
            large to make)
  rejected  MLIR's parser or verifier refused the text
  error     a Python exception while compiling or calling (`error_class`):
            ONNX's checker, the importer, a lowering, a runtime check...;
            `unexpected: true` when of a class lighthouse does not raise on
            bad input (a KeyError, a TypeError...)
  crash     the worker died (`signal`, the line of its output that says why),
            or torch-mlir's lowering process did (stage `lowering`)
  hang      no answer within the time limit of a stage (`stage`); a call past
            the limit is the mutant's own loop more often than not
            (`scf.for` to 2^62), and is not counted as a finding

A crash is classified by a signature: the stage, where it happened (the
parser of which op, which pass and pattern: the MLIR mutant is run again
through `lh-opt`, or under gdb when lh-opt survives it, whose backtraces
name them) and why (LLVM's fatal error, glibc's heap check, or the signal).
A crash that does not recur in a new worker is put down to an earlier
mutant of the same worker that corrupted the heap (`culprit`).
`KNOWN_UPSTREAM` lists the crashes that are MLIR's own, each with a
reproducer that Debian's `mlir-opt` crashes on too; `KNOWN_LIGHTHOUSE` the
open bugs of lighthouse's; crashes and hangs of torch-mlir's process are
contained (compile_onnx raises LoweringCrash). Every other crash or hang is
a new finding.
"""

import base64
import collections
import dataclasses
import json
import os
import random
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from ._fuzz_seeds import MLIR_SEEDS, ONNX_SEEDS
from .progress import Progress
from .runner import end_process_group, start_worker

__all__ = [
    "KNOWN_LIGHTHOUSE",
    "KNOWN_UPSTREAM",
    "TORCH_MLIR_LOWERING",
    "KnownCrash",
    "Mutant",
    "classify",
    "diagnose_mlir",
    "make_mutant",
    "mutants",
    "new_findings",
    "owner",
    "render_summary",
    "run",
    "signature",
    "summarize",
]

KINDS = ("mlir", "onnx")

#: Seconds a stage (parse, compile, call) may take before the worker counts
#: as hung. Compiling a seed takes 0.05 s (MLIR) to 0.3 s (ONNX, most of it
#: torch-mlir's process) on a shared 2-core machine; 20 s leaves room for the
#: slowest mutant seen while keeping a hang cheap.
DEFAULT_TIMEOUT = 20.0

#: A worker's address space, in bytes: a mutant that asks for a 2^40-element
#: buffer gets a failed allocation (MemoryError, or LLVM's out-of-memory
#: error) instead of taking the machine's memory from everything else.
MEMORY_LIMIT = 6 << 30

#: Cases a worker runs before it is replaced, so that the code of the
#: thousands of modules it compiled does not pile up in one process.
CASES_PER_WORKER = 400

#: An input with more elements than this is not made: the mutant is
#: compiled but not called.
MAX_INPUT_ELEMENTS = 1 << 22

#: The exceptions lighthouse raises on bad input, by stage; any other class
#: is marked unexpected. MemoryError: a buffer, or a parsed constant, that
#: cannot be allocated under MEMORY_LIMIT; OnnxImportError: torch-mlir's ONNX
#: importer refusing a model; ValueError at the call: a failed runtime check.
EXPECTED_ERRORS = {
    "parse": ("MLIRError", "MemoryError"),
    "compile": (
        "CompileError",
        "ValueError",
        "NotImplementedError",
        "MLIRError",
        "LoweringError",
        "ExchangeError",
        "IngressError",
        "InferenceError",
        "ValidationError",
        "OnnxImportError",
        "MemoryError",
    ),
    "call": ("ValueError", "MemoryError"),
}

#: Of a dead worker's output, the end kept in its record.
OUTPUT_TAIL_CHARS = 3000

#: Characters of an exception's message kept in a record.
MESSAGE_CHARS = 500


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


def make_mutant(kind: str, seed: int, index: int) -> Mutant:
    """Mutant `index` of `kind` ("mlir" or "onnx") for `seed`: the same on
    every machine and every run."""
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


# ===----------------------------------------------------------------------=== #
# Known upstream crashes
# ===----------------------------------------------------------------------=== #


@dataclasses.dataclass(frozen=True)
class KnownCrash:
    """A crash of MLIR's own code, which lighthouse inherits.

    Attributes:
      name: a short name.
      reason: what goes wrong, and where.
      pattern: a regular expression searched in a crash's signature.
      reproducer: a small program that crashes lighthouse, at `stage`.
      stage: "parse" (Module.parse) or "compile" (compile_module).
      upstream_options: the options with which Debian's mlir-opt 22 crashes
        on `reproducer` too, which shows the crash is MLIR's.
    """

    name: str
    reason: str
    pattern: str
    reproducer: str
    stage: str
    upstream_options: Tuple[str, ...] = ()


KNOWN_UPSTREAM: Tuple[KnownCrash, ...] = (
    KnownCrash(
        "linalg-list-parser",
        "linalg.transpose, linalg.broadcast and linalg.reduce parse their `permutation` "
        "or `dimensions` list with a callback that, when the list does not parse (an "
        "element missing, an integer past int64), still stores the attribute it did not "
        "make: NamedAttrList::set dereferences a null attribute (SIGSEGV)",
        r"parser of 'linalg\.(transpose|broadcast|reduce)'|"
        r"in mlir::linalg::(Transpose|Broadcast|Reduce)Op::parse",
        """func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %r = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%b : tensor<3x2xf32>) permutation = [, 1]
  return %r : tensor<3x2xf32>
}
""",
        "parse",
    ),
    KnownCrash(
        "linalg-broadcast-verifier",
        "linalg.broadcast's verifier indexes the input's sizes by the count of sizes not "
        "in `dimensions` before checking that count against the input's rank: a rank-0 "
        "input with repeated dimensions reads past its (empty) shape (SIGSEGV)",
        r"in mlir::linalg::BroadcastOp::verify",
        """func.func @main(%a: tensor<f32>, %b: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %r = linalg.broadcast ins(%a : tensor<f32>) outs(%b : tensor<3x2xf32>) dimensions = [1, 1]
  return %r : tensor<3x2xf32>
}
""",
        "parse",
    ),
    KnownCrash(
        "linalg-generic-iterator-types",
        "linalg.generic's parser reads each entry of `iterator_types` as a string to name "
        "it in its error, without checking that it is one: an integer entry makes the "
        "diagnostic copy from a bad pointer (SIGSEGV; in a process whose memory happens "
        "to be readable there, not every time)",
        r"in mlir::linalg::GenericOp::parse",
        """#map = affine_map<(d0) -> (d0)>
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", -1]}
      ins(%a : tensor<4xf32>) outs(%b : tensor<4xf32>) {
    ^bb0(%x: f32, %y: f32):
      linalg.yield %x : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
""",
        "parse",
    ),
    KnownCrash(
        "tensor-from-elements-huge-type",
        "tensor.from_elements's parser makes a vector of as many operand types as the "
        "result type has elements, before checking the count: a type of 2^63 elements "
        "asks SmallVector for more than it can hold, one of 2^31 for 16 GB (LLVM ERROR)",
        r"parser of 'tensor\.from_elements'.*(SmallVector unable to grow|out of memory)",
        """func.func @main() -> tensor<9223372036854775807xf32> {
  %c = arith.constant 1.0 : f32
  %r = tensor.from_elements %c : tensor<9223372036854775807xf32>
  return %r : tensor<9223372036854775807xf32>
}
""",
        "parse",
    ),
    KnownCrash(
        "tensor-expand-shape-verifier",
        "tensor.expand_shape's verifier reads the first entry of each reassociation group "
        "without checking that the group has one: an empty group `[]` reads past it "
        "(SIGSEGV)",
        r"in mlir::tensor::(Expand|Collapse)ShapeOp::verify",
        """func.func @main(%a: tensor<2x6xf32>) -> tensor<2x2x3xf32> {
  %e = tensor.expand_shape %a [[], [1, 2]] output_shape [2, 2, 3] : tensor<2x6xf32> into tensor<2x2x3xf32>
  return %e : tensor<2x2x3xf32>
}
""",
        "parse",
    ),
    KnownCrash(
        "tensor-concat-verifier",
        "tensor.concat's verifier indexes the operands' sizes by `dim` before checking "
        "it against their rank: a negative or huge `dim` reads out of bounds (SIGSEGV)",
        r"in mlir::tensor::ConcatOp::verify",
        """func.func @main(%a: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %c = tensor.concat dim(-2147483648) %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %c : tensor<4x3xf32>
}
""",
        "parse",
    ),
)

#: Crashes the fuzzer found in lighthouse's own code, or in MLIR's code that
#: only lighthouse's pipeline leads to: open bugs, each listed until fixed (a
#: test checks that its reproducer still crashes, so that a fixed one is
#: removed). A crash while calling compiled code has no entry: nothing names
#: the op at fault, and one entry would hide every other crash of its kind.
KNOWN_LIGHTHOUSE: Tuple[KnownCrash, ...] = ()

#: Crashes and hangs of torch-mlir's passes, which lighthouse contains: they
#: run in a process of their own (docs/ingress.md), whose death or time limit
#: compile_onnx raises as LoweringCrash while the caller goes on. Their
#: reproducers (ONNX models) are torch-mlir's to fix.
TORCH_MLIR_LOWERING = KnownCrash(
    "torch-mlir-lowering",
    "torch-mlir's process died or went past its time limit while lowering; "
    "compile_onnx raised LoweringCrash and the caller went on",
    r"^onnx lowering: ",
    "",
    "lowering",
)


def owner(known: KnownCrash) -> str:
    """Whose code is at fault: "mlir", "torch-mlir" or "lighthouse"."""
    if known is TORCH_MLIR_LOWERING:
        return "torch-mlir"
    return "lighthouse" if known in KNOWN_LIGHTHOUSE else "mlir"


def classify(signature: str) -> Optional[KnownCrash]:
    """The known crash whose pattern `signature` matches, if any."""
    for known in KNOWN_UPSTREAM + KNOWN_LIGHTHOUSE + (TORCH_MLIR_LOWERING,):
        if re.search(known.pattern, signature, re.DOTALL):
            return known
    return None


# ===----------------------------------------------------------------------=== #
# Where a crash happened
# ===----------------------------------------------------------------------=== #

# The line of a dying process's output that says why: LLVM's fatal errors,
# failed assertions, glibc's heap checks, C++ and Python's last words.
_FATAL = re.compile(
    r"^.*(LLVM ERROR|Assertion .* failed|UNREACHABLE|terminate called|"
    r"corrupted|double free|free\(\)|malloc\(\)|realloc\(\)|munmap_chunk|"
    r"Fatal Python error).*$",
    re.MULTILINE,
)
_PARSER_ENTRY = re.compile(r"^\d+\.\s+MLIR Parser: custom op parser '([^']+)'", re.MULTILINE)
_FRAME = re.compile(r"^\s*#\d+ 0x[0-9a-f]+ (.*?)(?: \([^()]*\+0x[0-9a-f]+\))?$", re.MULTILINE)
# gdb's `bt`: "#0  0x00007f... in ns::Pattern::matchAndRewrite(...) const () from lib.so".
_GDB_FRAME = re.compile(r"^#\d+\s+0x[0-9a-f]+ in (.*?)(?: \(\) from .*| at .*)?$", re.MULTILINE)
_PASS_FRAME = re.compile(r"([A-Za-z_]\w*)::runOnOperation\(\)")
_PATTERN_FRAME = re.compile(r"([A-Za-z_]\w*)(?:<.*>)?::matchAndRewrite\(")
# Frames of the machinery between a fault and the code at fault.
_MACHINERY = re.compile(
    r"llvm::sys::|SignalHandler|__restore_rt|raise|abort|__pthread_kill|pthread_kill|"
    r"llvm::report_|report_bad_alloc|llvm_unreachable|__assert|SmallVectorBase|"
    r"grow_pod|reportFatal|^\?\?|^0x"
)
_OP_METHOD = re.compile(r"mlir::\w+::\w+Op::\w+$")
_GENERIC_PATTERNS = ("PatternApplicator", "RewritePattern", "OpRewritePattern")


def _function_name(frame: str) -> str:
    """`mlir::tensor::PadOp::fold(...) const` -> `mlir::tensor::PadOp::fold`."""
    name = frame.replace("(anonymous namespace)", "{anon}")
    name = name.split("(", 1)[0]
    while "<" in name:  # Template arguments, innermost first.
        shorter = re.sub(r"<[^<>]*>", "", name)
        if shorter == name:
            break
        name = shorter
    return name.replace("{anon}", "(anonymous namespace)").strip()


def stack_summary(output: str) -> dict:
    """What an LLVM stack dump says: the op whose parser ran, the pass, the
    rewrite pattern, and the first frame of code past the fault machinery."""
    found = {}
    parsers = _PARSER_ENTRY.findall(output)
    if parsers:
        found["parser"] = parsers[-1]
    frames = [m.group(1) for m in _FRAME.finditer(output)]
    frames += [m.group(1) for m in _GDB_FRAME.finditer(output)]
    for frame in frames:
        if "pass" not in found and _PASS_FRAME.search(frame):
            found["pass"] = _PASS_FRAME.search(frame).group(1)
        pattern = _PATTERN_FRAME.search(frame)
        if pattern and "pattern" not in found and pattern.group(1) not in _GENERIC_PATTERNS:
            found["pattern"] = pattern.group(1)
    names = [_function_name(f) for f in frames if f.strip() and not _MACHINERY.search(f)]
    names = [name for name in names if name]
    if names:
        found["site"] = names[0]
    # The method of an op at work (a parser, a verifier, a folder): what tells
    # one cause from another when the frames above it are generic helpers.
    method = next((n for n in names if _OP_METHOD.match(n)), None)
    if method:
        found["op_method"] = method
    return found


def _limit_memory() -> None:
    """Gives a process the workers' address space, so that running a mutant
    again fails as it did in the worker instead of taking the machine's memory."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _lh_opt() -> Optional[str]:
    import lighthouse

    path = os.path.join(os.path.dirname(lighthouse.__file__), "_mlir_libs", "lh-opt")
    return path if os.path.exists(path) else None


def diagnose_mlir(text: str, stage: str, timeout: float = 60.0) -> dict:
    """Runs an MLIR mutant that crashed lighthouse again through lh-opt (the
    parser, or lighthouse's default pipeline), whose stack dump names the
    op, pass and function at fault; {} when lh-opt does not crash on it (a
    crash in the JIT, say)."""
    binary = _lh_opt()
    if binary is None or stage not in ("parse", "compile"):
        return {}
    options = [] if stage == "parse" else ["--pass-pipeline=builtin.module(lighthouse-cpu)"]
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(text)
    try:
        done = subprocess.run(
            [binary, f.name, "-o", os.devnull, *options],
            capture_output=True,
            timeout=timeout,
            env=dict(os.environ, OMP_NUM_THREADS="1"),
            preexec_fn=_limit_memory,
        )
    except subprocess.TimeoutExpired:
        return {}
    finally:
        os.unlink(f.name)
    if done.returncode >= 0 and done.returncode not in (134, 139):
        # Some faults depend on what the process holds where an op reads out
        # of bounds: lh-opt survives what lighthouse's Python process does not.
        return _diagnose_in_python(text, stage, timeout) if stage == "compile" else {}
    output = done.stderr.decode(errors="replace")
    found = stack_summary(output)
    fatal = _FATAL.search(output)
    if fatal:
        found["fatal"] = fatal.group(0).strip()
    return found


_COMPILE_ONLY = """
import sys
from lighthouse.compiler import compile_module
compile_module(open(sys.argv[1]).read())
"""


def _diagnose_in_python(text: str, stage: str, timeout: float) -> dict:
    """Compiles an MLIR mutant in a Python process under gdb, if there is one,
    for the backtrace of a crash that lh-opt does not reproduce; {} else."""
    gdb = shutil.which("gdb")
    if gdb is None:
        return {}
    with tempfile.TemporaryDirectory(prefix="lh-fuzz-") as folder:
        source = os.path.join(folder, "mutant.mlir")
        with open(source, "w") as f:
            f.write(text)
        try:
            done = subprocess.run(
                [gdb, "-q", "-batch", "-ex", "run", "-ex", "bt", "--args"]
                + [sys.executable, "-c", _COMPILE_ONLY, source],
                capture_output=True,
                timeout=timeout,
                env=dict(os.environ, OMP_NUM_THREADS="1"),
                preexec_fn=_limit_memory,
            )
        except subprocess.TimeoutExpired:
            return {}
    output = done.stdout.decode(errors="replace")
    if "received signal" not in output:
        return {}
    found = stack_summary(output)
    return {**found, "diagnosed_with": "gdb"} if found else {}


def _normalized(line: str) -> str:
    """A fatal error's line with its numbers masked, so that one cause is one
    signature whatever sizes the mutant had."""
    return re.sub(r"\d+", "N", line)[:200]


def signature(record: dict) -> str:
    """`<kind> <stage>: <where>: <why>` of a crash or a hang."""
    where = []
    if record.get("parser"):
        where.append(f"parser of '{record['parser']}'")
    if record.get("pass"):
        where.append(f"pass {record['pass']}")
    if record.get("pattern"):
        where.append(f"pattern {record['pattern']}")
    if record.get("op_method"):
        where.append(f"in {record['op_method']}")
    elif record.get("site") and not where:
        where.append(f"in {record['site']}")
    if record["stage"] == "call":  # Nothing names the op at fault: the program does, roughly.
        where.append(f"a call of a {record['program']} mutant")
    if record.get("culprit"):
        # The pair crashes and the mutant alone does not: the earlier one left
        # the heap corrupted, or the two together make the fault show.
        where.append(f"only after a {record['culprit']['program']} mutant")
    elif record.get("reproduced") is False:
        where.append("not reproduced alone")
    if record.get("lowering_stage"):
        where.append(record["lowering_stage"])
    fatal = record.get("fatal") or ""
    if record["status"] == "hang":
        why = "no answer within the time limit"
    elif fatal and not (fatal.startswith("Fatal Python error") and record.get("signal")):
        why = _normalized(fatal)
    else:  # Python's words say no more than the signal.
        why = record.get("signal") or f"exit status {record.get('exit_code')}"
    return f"{record['kind']} {record['stage']}: {', '.join(where) or '-'}: {why}"


# ===----------------------------------------------------------------------=== #
# The worker process
# ===----------------------------------------------------------------------=== #


def _inputs(arguments, rng) -> Optional[list]:
    """Random arrays for a compiled function's arguments, dynamic sizes of 1
    to 3; None when one would be too large to make."""
    import numpy as np

    inputs = []
    for dtype, shape in arguments:
        shape = [int(rng.integers(1, 4)) if d is None else d for d in shape]
        if max(shape, default=0) > MAX_INPUT_ELEMENTS or (
            np.prod(shape, dtype=float) > MAX_INPUT_ELEMENTS
        ):
            return None
        if dtype.kind == "f":
            inputs.append(rng.standard_normal(shape).astype(dtype))
        elif dtype.kind == "b":
            inputs.append(rng.integers(0, 2, shape).astype(dtype))
        else:  # Sizes and indices: a few out of range, which runtime checks must catch.
            inputs.append(rng.integers(-2, 7, shape).astype(dtype))
    return inputs


def _error(stage: str, error: BaseException) -> dict:
    name = type(error).__name__
    record = {
        "status": "rejected" if stage in ("parse", "load") else "error",
        "stage": stage,
        "error_class": name,
        "message": (str(error).strip() or repr(error))[:MESSAGE_CHARS],
    }
    expected = EXPECTED_ERRORS.get("compile" if stage == "load" else stage, ())
    if name not in expected:
        record["unexpected"] = True
        record["traceback"] = traceback.format_exc()[-MESSAGE_CHARS * 2 :]
    return record


def _call(compiled, inputs_seed: int, announce) -> dict:
    import numpy as np

    announce("call")
    inputs = _inputs(compiled.arguments, np.random.default_rng(inputs_seed))
    if inputs is None:
        return {"status": "ok", "called": False}
    try:
        outputs = compiled(*inputs)
        # Reading every element of every result: a result whose sizes claim
        # more than its buffer holds faults here, not in a later user's code.
        for output in outputs if isinstance(outputs, tuple) else (outputs,):
            np.asarray(output).sum()
    except Exception as error:
        return _error("call", error)
    return {"status": "ok", "called": True}


def _run_mlir(text: str, inputs_seed: int, timeout: float, announce) -> dict:
    from lighthouse import ir
    from lighthouse.compiler import compile_module

    announce("parse")
    context = ir.Context()
    try:
        module = ir.Module.parse(text, context)
    except Exception as error:
        return _error("parse", error)
    announce("compile")
    try:
        compiled = compile_module(module)
    except Exception as error:
        return _error("compile", error)
    return _call(compiled, inputs_seed, announce)


def _run_onnx(model: bytes, inputs_seed: int, timeout: float, announce) -> dict:
    import onnx

    import lighthouse
    from lighthouse.ingress import LoweringCrash

    announce("load")
    try:
        proto = onnx.ModelProto.FromString(model)
    except Exception as error:
        return _error("load", error)
    announce("compile")
    try:
        # Below the worker's own limit, so that a hang in torch-mlir's
        # process is told apart from one in lighthouse's.
        compiled = lighthouse.compile_onnx(proto, lowering_time_limit=max(1.0, timeout - 5))
    except LoweringCrash as error:
        record = {
            "stage": "lowering",
            "lowering_stage": error.stage,
            "message": str(error)[:MESSAGE_CHARS],
        }
        if error.time_limit is not None:
            return {**record, "status": "hang"}
        return {**record, "status": "crash", "signal": error.signal, "fatal": error.fatal}
    except Exception as error:
        return _error("compile", error)
    return _call(compiled, inputs_seed, announce)


def worker_main(fd: int) -> None:
    """Runs the requests on standard input (JSON lines), announcing each
    stage on file descriptor `fd` before taking it, then the outcome."""
    import faulthandler

    # A Python traceback on a fault says which lighthouse call was at work.
    faulthandler.enable()
    _limit_memory()
    channel = os.fdopen(fd, "w")

    def send(message: dict) -> None:
        channel.write(json.dumps(message) + "\n")
        channel.flush()

    def announce(stage: str) -> None:
        send({"stage": stage})

    for line in sys.stdin:
        request = json.loads(line)
        try:
            if request["kind"] == "mlir":
                outcome = _run_mlir(
                    request["text"], request["inputs_seed"], request["timeout"], announce
                )
            else:
                outcome = _run_onnx(
                    base64.b64decode(request["model"]),
                    request["inputs_seed"],
                    request["timeout"],
                    announce,
                )
        except Exception:  # A bug of the fuzzer's own.
            outcome = {
                "status": "error",
                "stage": "fuzzer",
                "error_class": "FuzzerError",
                "unexpected": True,
                "message": traceback.format_exc()[-MESSAGE_CHARS:],
            }
        send({"outcome": outcome})


# ===----------------------------------------------------------------------=== #
# Running mutants
# ===----------------------------------------------------------------------=== #


class _Worker:
    """A worker process, its announcement pipe, and its output in a file."""

    def __init__(self):
        self.log = tempfile.TemporaryFile(prefix="lh-fuzz-worker-")
        environment = dict(os.environ)
        # One thread each for the compiled code and LLVM's JIT: a fuzz run
        # shares the machine, and threads add nothing to what it finds.
        environment["OMP_NUM_THREADS"] = "1"
        self.process, self.events = start_worker(
            ["lighthouse.suite.fuzz"], "--worker-fd", self.log, environment
        )
        self.buffer = b""
        self.cases = 0

    def output_tail(self, offset: int) -> str:
        self.log.flush()
        self.log.seek(offset)
        return self.log.read().decode(errors="replace")[-OUTPUT_TAIL_CHARS:]

    def run(self, request: dict, timeout: float) -> dict:
        """The outcome of `request`; a crash or a hang ends the worker."""
        offset = self.log.seek(0, os.SEEK_END)
        self.cases += 1
        self.process.stdin.write((json.dumps(request) + "\n").encode())
        self.process.stdin.flush()
        stage = "start"
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.events], [], [], max(0.0, left))
            if not ready:
                self.stop(kill=True)
                return {"status": "hang", "stage": stage}
            data = os.read(self.events, 1 << 16)
            if not data:
                status = self.stop(kill=True)
                tail = self.output_tail(offset)
                record = {"status": "crash", "stage": stage, "output_tail": tail}
                if status is not None and status < 0:
                    record["signal"] = signal.Signals(-status).name
                else:
                    record["exit_code"] = status
                fatal = _FATAL.search(tail)
                if fatal:
                    record["fatal"] = fatal.group(0).strip()
                return record
            self.buffer += data
            *lines, self.buffer = self.buffer.split(b"\n")
            for line in lines:
                message = json.loads(line)
                if "stage" in message:
                    stage = message["stage"]
                    deadline = time.monotonic() + timeout
                else:
                    return message["outcome"]

    def stop(self, kill: bool) -> Optional[int]:
        status = end_process_group(self.process, kill)
        os.close(self.events)
        return status

    def close(self) -> None:
        self.stop(kill=False)
        self.log.close()


#: Of the mutants a worker ran before one crashed it, this many (the most
#: recent) are tried as the cause when the crash does not recur alone.
CULPRITS_TRIED = 20


def _run_fresh(cases: Sequence[Mutant], timeout: float) -> List[dict]:
    """Outcomes of `cases` run in order in a new worker, up to a crash or a hang."""
    worker = _Worker()
    outcomes = []
    try:
        for mutant in cases:
            outcomes.append(worker.run(_request(mutant, timeout), timeout))
            if (
                outcomes[-1]["status"] in ("crash", "hang")
                and outcomes[-1].get("stage") != "lowering"
            ):
                worker.log.close()
                return outcomes
    except BaseException:
        worker.stop(kill=True)
        raise
    worker.close()
    return outcomes


def _confirm(mutant: Mutant, before: Sequence[Mutant], timeout: float) -> dict:
    """Whether `mutant`'s crash recurs in a new worker; when it does not, the
    crash is the late effect of an earlier mutant that corrupted the heap
    without dying: the `culprit`, found by running each of the last ones,
    most recent first, followed by `mutant`."""
    if _run_fresh([mutant], timeout)[-1]["status"] == "crash":
        return {"reproduced": True}
    for previous in reversed(before[-CULPRITS_TRIED:]):
        outcomes = _run_fresh([previous, mutant], timeout)
        if outcomes[-1]["status"] == "crash":
            return {"reproduced": False, "culprit": previous}
    return {"reproduced": False}


def _request(mutant: Mutant, timeout: float) -> dict:
    request = {"kind": mutant.kind, "inputs_seed": mutant.index, "timeout": timeout}
    if mutant.kind == "mlir":
        request["text"] = mutant.payload
    else:
        request["model"] = base64.b64encode(mutant.payload).decode()
    return request


def _finding(record: dict) -> bool:
    return record["status"] in ("crash", "hang") or bool(record.get("unexpected"))


def run(
    cases: Iterable[Mutant],
    seed: int = 0,
    timeout: float = DEFAULT_TIMEOUT,
    on_record: Optional[Callable[[dict], None]] = None,
    diagnose: bool = True,
) -> List[dict]:
    """Runs mutants one after another in worker processes; returns a record
    of each (see the module's docstring), calling `on_record` as each comes.

    A crash or a hang ends its worker and the next mutant gets a new one.
    Crashes of MLIR mutants while parsing or compiling are run again through
    lh-opt, or gdb (`diagnose`), to name the op, pass and pattern at fault;
    other crashes are run again alone, then after each of the worker's last
    mutants (`reproduced`, `culprit`). Every crash and hang gets a
    `signature`; `known` names the entry of `KNOWN_UPSTREAM`,
    `KNOWN_LIGHTHOUSE` or `TORCH_MLIR_LOWERING` it matches, `owner` whose
    code it is. Records of findings (crashes, hangs, unexpected exceptions)
    carry their reproducer.
    """
    records = []
    worker = None
    history: List[Mutant] = []  # What the worker at work has run.
    try:
        for mutant in cases:
            if worker is not None and worker.cases >= CASES_PER_WORKER:
                worker.close()
                worker = None
                history = []
            if worker is None:
                worker = _Worker()
            started = time.monotonic()
            outcome = worker.run(_request(mutant, timeout), timeout)
            history.append(mutant)
            if outcome["status"] in ("crash", "hang") and outcome["stage"] != "lowering":
                worker.log.close()
                worker = None
                if outcome["status"] == "crash":
                    # lh-opt names the op and pass at fault, and, crashing on
                    # the mutant alone, shows that it is the mutant's own.
                    found = {}
                    if diagnose and mutant.kind == "mlir":
                        found = diagnose_mlir(mutant.payload, outcome["stage"])
                    if found:
                        outcome.update(found, reproduced=True)
                    else:
                        outcome.update(_confirm(mutant, history[:-1], timeout))
                history = []
            record = {
                "kind": mutant.kind,
                "index": mutant.index,
                "seed": seed,
                "program": mutant.seed_program,
                "mutations": mutant.mutations,
                **outcome,
                "seconds": round(time.monotonic() - started, 3),
            }
            if record.get("culprit"):
                culprit = record["culprit"]
                record["culprit"] = {
                    "mutant": f"{culprit.kind}:{culprit.index}",
                    "program": culprit.seed_program,
                    "mutations": culprit.mutations,
                    "reproducer": culprit.reproducer(),
                }
            if record["status"] in ("crash", "hang"):
                record["signature"] = signature(record)
                known = classify(record["signature"])
                record["known"] = known.name if known else None
                if known:
                    record["owner"] = owner(known)
            if _finding(record):
                record["reproducer"] = mutant.reproducer()
            records.append(record)
            if on_record:
                on_record(record)
    finally:
        if worker is not None:
            worker.close()
    return records


def new_findings(records: Iterable[dict]) -> List[dict]:
    """The crashes and hangs not known upstream; a call past the time limit
    is left out (the mutant's own loop, most often)."""
    return [
        r
        for r in records
        if r["status"] in ("crash", "hang")
        and not r.get("known")
        and not (r["status"] == "hang" and r["stage"] == "call")
    ]


def summarize(records: Sequence[dict]) -> dict:
    """Counts by kind and outcome, crashes by signature, hangs, unexpected
    exceptions."""
    outcomes = collections.defaultdict(collections.Counter)
    crashes: Dict[str, dict] = {}
    unexpected = collections.Counter()
    for record in records:
        outcomes[record["kind"]][record["status"]] += 1
        if record["status"] in ("crash", "hang"):
            entry = crashes.setdefault(
                record["signature"],
                {
                    "count": 0,
                    "known": record.get("known"),
                    "owner": record.get("owner"),
                    "first": f"{record['kind']}:{record['index']}",
                },
            )
            entry["count"] += 1
        if record.get("unexpected"):
            unexpected[f"{record['kind']} {record['stage']}: {record['error_class']}"] += 1
    return {
        "mutants": {kind: sum(counts.values()) for kind, counts in outcomes.items()},
        "outcomes": {kind: dict(counts) for kind, counts in outcomes.items()},
        "signatures": crashes,
        "unexpected": dict(unexpected),
        "new": len(new_findings(records)),
        "open": sum(r.get("owner") == "lighthouse" for r in records),
    }


def render_summary(summary: dict) -> str:
    lines = []
    for kind, counts in summary["outcomes"].items():
        listed = ", ".join(f"{status} {n}" for status, n in sorted(counts.items()))
        lines.append(f"{kind}: {summary['mutants'][kind]} mutants: {listed}")
    if summary["signatures"]:
        lines.append("crashes and hangs by signature:")
        for text, entry in sorted(summary["signatures"].items(), key=lambda i: -i[1]["count"]):
            if entry["owner"] == "torch-mlir":
                label = "torch-mlir's, contained"
            elif entry["owner"] == "lighthouse":
                label = f"open lighthouse bug: {entry['known']}"
            elif entry["known"]:
                label = f"known upstream: {entry['known']}"
            elif text.split(":")[0].endswith(" call") and text.endswith("the time limit"):
                label = "a call past the time limit"
            else:
                label = "NEW"
            lines.append(f"  {entry['count']:5}  [{label}] {text}  (first: {entry['first']})")
    if summary["unexpected"]:
        lines.append("unexpected exceptions:")
        for text, count in sorted(summary["unexpected"].items(), key=lambda i: -i[1]):
            lines.append(f"  {count:5}  {text}")
    lines.append(
        f"new crashes and hangs: {summary['new']}; of open lighthouse bugs: {summary['open']}"
    )
    return "\n".join(lines)


# ===----------------------------------------------------------------------=== #
# The command line: `lh-suite fuzz`
# ===----------------------------------------------------------------------=== #


def add_parser(commands) -> None:
    """Adds `fuzz` to lh-suite's subcommands."""
    parser = commands.add_parser(
        "fuzz",
        help="fuzz lighthouse's parser, compiler and call boundary",
        description="Mutants of MLIR programs and ONNX models, each parsed, compiled and "
        "called in a worker process; crashes and hangs classified by signature against "
        "the known upstream MLIR crashes. Exit status 1 on a new crash or hang, or one "
        "of an open lighthouse bug (KNOWN_LIGHTHOUSE).",
    )
    parser.add_argument(
        "--mlir", type=int, default=1000, help="MLIR mutants (default: %(default)s)"
    )
    parser.add_argument("--onnx", type=int, default=200, help="ONNX mutants (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="of the mutants (default: 0)")
    parser.add_argument("--start", type=int, default=0, help="the first mutant's index")
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help="for one stage of one mutant (default: %(default)g)",
    )
    parser.add_argument("-o", "--output", help="a JSON-lines file of every mutant's outcome")
    parser.add_argument(
        "--replay",
        action="append",
        metavar="KIND:INDEX",
        help="run these mutants only, printing each and its outcome (repeatable)",
    )
    parser.set_defaults(handler=command)


def command(args) -> int:
    if args.replay:
        for item in args.replay:
            kind, _, index = item.partition(":")
            mutant = make_mutant(kind, args.seed, int(index))
            print(f"== {kind}:{index} from {mutant.seed_program}: {'; '.join(mutant.mutations)}")
            if kind == "mlir":
                print(mutant.payload)
            record = run([mutant], seed=args.seed, timeout=args.timeout)[0]
            shown = {k: v for k, v in record.items() if k not in ("reproducer", "mutations")}
            print(json.dumps(shown, indent=2))
        return 0
    total = args.mlir + args.onnx
    print(
        f"lh-suite fuzz: {args.mlir} MLIR and {args.onnx} ONNX mutants, seed {args.seed}"
        + (f" -> {args.output}" if args.output else ""),
        file=sys.stderr,
    )
    output = open(args.output, "w") if args.output else None
    progress = Progress(total)
    started = time.monotonic()

    def on_record(record: dict) -> None:
        if output:
            output.write(json.dumps(record) + "\n")
            output.flush()
        progress.advance([record])

    try:
        records = run(
            mutants(args.seed, args.mlir, args.onnx, args.start),
            seed=args.seed,
            timeout=args.timeout,
            on_record=on_record,
        )
    finally:
        if output:
            output.close()
    summary = summarize(records)
    print(render_summary(summary))
    print(f"{len(records)} mutants in {time.monotonic() - started:.0f} s")
    return 1 if summary["new"] or summary["open"] else 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker-fd"]:
        worker_main(int(sys.argv[2]))
    else:
        raise SystemExit("run the fuzzer as `lh-suite fuzz`")
