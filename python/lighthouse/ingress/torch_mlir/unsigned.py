"""Unsigned integers through torch-mlir's lowering: the ops lighthouse trusts
with them, and the check that refuses the others.

MLIR's integers are signless: torch-mlir's lowering from the torch backend
contract to linalg turns a model's unsigned tensors (`ui8` ... `ui64`, ONNX's
`ui4`, and `!torch.quint8`) into `i8` ... `i64` and `i4`, and has to pick unsigned operations
(`arith.divui`, `cmpi ult`, `uitofp`, `extui`, `maxui` ...) from the torch
types. It does for some ops and not for others, which it computes as on
signed integers: results silently wrong for values of 2^(bits-1) and above
(200 in a uint8). Measured with torch-mlir 20261001 against ONNX's reference
evaluator and eager PyTorch (test/python/test_compile.py), it computes
wrongly: integer division and remainder (ONNX Div, Mod; `//`, `%`, fmod),
clamping to tensors (ONNX Clip), abs (ONNX Abs, ReduceL1), sort and topk,
max pooling, negation, pow with an unsigned exponent, arithmetic that
promotes an unsigned operand to another type (`u8 * 2.5`, `u8 / u8`,
`u8.sum()` to int64, uint8 times int32, MatMulInteger without zero points),
comparisons with a number of 2^(bits-1) or more, padding with a float,
scatter_reduce, per-channel quantization and batched quantized matmuls; its
conversions of floats to unsigned integers (ONNX Cast, the zero point of
DynamicQuantizeLinear) are `arith.fptosi`, undefined from 2^(bits-1) on
(the default pipeline's vectors give 127 for 200.0): lighthouse makes those of
at most 32 bits go through a wider signed type
(`convert_floats_through_signed`), and computes division, remainder, abs,
clamping, max pooling and sorting of uint8 and uint32 on their values
widened to a signed type (`compute_through_wider_signed`).

So lighthouse checks the backend contract before that lowering: each op
that takes or gives an unsigned tensor must be one of `TRUSTED`, under its
conditions; any other raises a `LoweringError` naming the op and where it is
in the model (`lighthouse.ingress.onnx.import_and_lower` then expands an
ONNX node that ONNX defines as a function, as Clip into Less and Where,
whose ops may be trusted; `torch.compile`'s backend runs the op eagerly).
The check runs only for models with unsigned tensors: their lowering is
split in two exchanges with torch-mlir's process, the check between them.
"""

import re
from typing import Dict, FrozenSet, List, NamedTuple, Optional, Tuple

from ... import ir
from .worker import placed_by_users
from ...errors import LoweringError
from . import run_pipelines

#: The stage a refusal names (a `LoweringError`'s `stage`).
STAGE = "lighthouse's check of the ops on unsigned integers before torch-mlir lowers them to linalg"

# A tensor type of the torch dialect and its element type; also inside a list
# type (`!torch.list<vtensor<[4],ui8>>`).
_TENSOR = re.compile(r"vtensor<[^<>]*,([^<>,]+)>")
#: Unsigned element types, by bits.
UNSIGNED = {"ui4": 4, "ui8": 8, "ui16": 16, "ui32": 32, "ui64": 64, "!torch.quint8": 8}
_FLOATS = {"f16", "bf16", "f32", "f64"}


class Rule(NamedTuple):
    """When an op on unsigned tensors is trusted.

    mixed: its tensors may be of any element types (it moves elements, or
      converts them from their torch types, or was checked so); otherwise all
      its tensors are of one unsigned type, but for `others`, and it takes no
      float.
    others: element types it may take or give beside the unsigned one
      (`i1` of a comparison, `si64` indices).
    quantized: element types it may take or give beside `!torch.quint8`.
    below_half: operands that must be constant integers from 0 to
      2^(bits-1) - 1 (torch-mlir sign-extends the unsigned operand to
      compare with them).
    in_range: operands that must be integers from 0 to 2^bits - 1: constants,
      or numbers of an unsigned tensor (`aten.item`, zero-extended).
    indices: operands that must not be unsigned (indices, which torch-mlir
      takes as signed).
    prefixes: operand index and the prefixes of the constant string it must be.
    to_unsigned_from_float: whether it may convert float operands to
      unsigned results (torch-mlir's aten.to.dtype does with arith.fptosi,
      undefined from 2^(bits-1) on: 127 for 200.0 in the default pipeline's
      vectors).
    """

    mixed: bool = False
    others: FrozenSet[str] = frozenset()
    quantized: FrozenSet[str] = frozenset()
    below_half: Tuple[int, ...] = ()
    in_range: Tuple[int, ...] = ()
    indices: Tuple[int, ...] = ()
    prefixes: Tuple[Tuple[int, str], ...] = ()
    to_unsigned_from_float: bool = True


def _names(names: str) -> List[str]:
    """Full op names: `view` is `torch.aten.view`; `torch.prim.If` and
    `func.return` are as they are."""
    return [
        name if name.startswith(("torch.", "func.")) else f"torch.aten.{name}"
        for name in names.split()
    ]


_MOVES = Rule(mixed=True)
_SAME = Rule()
_COMPARE = Rule(others=frozenset({"i1"}))


def _trust(names: str, rule: Rule) -> Dict[str, Rule]:
    return dict.fromkeys(_names(names), rule)


#: The ops trusted with unsigned tensors, and when: each computed right with
#: values across the unsigned range on both pipelines (test_compile.py; the
#: only signed ops of their linalg IR are on indices, or extend an unsigned
#: operand to compare it with a constant below 2^(bits-1)), or moving
#: elements only.
TRUSTED: Dict[str, Rule] = {
    # Structure, and ops that move or copy elements without computing.
    **_trust(
        "func.return func.call torch.vtensor.literal torch.prim.ListConstruct "
        "torch.prim.ListUnpack torch.prim.TupleConstruct torch.prim.TupleUnpack "
        "torch.prim.TupleIndex torch.prim.If torch.prim.If.yield torch.prim.Loop "
        "torch.prim.Loop.condition torch.derefine torch.tensor_static_info_cast "
        "torch.copy.to_tensor torch.copy.to_vtensor torch.overwrite.tensor.contents "
        "torch.prims.collapse torch.prims.squeeze "
        "view reshape _reshape_alias _unsafe_view permute transpose.int t numpy_T "
        "slice.Tensor select.int squeeze squeeze.dim unsqueeze flatten.using_ints "
        "unflatten.int expand broadcast_to repeat cat stack split.Tensor "
        "split_with_sizes chunk unbind.int narrow flip roll clone contiguous copy "
        "detach alias lift_fresh_copy triu tril replication_pad1d replication_pad2d "
        "replication_pad3d reflection_pad1d reflection_pad2d reflection_pad3d "
        "size.int numel dim zeros_like ones_like empty_like upsample_nearest1d "
        "upsample_nearest2d upsample_nearest3d",
        _MOVES,
    ),
    **_trust("index_select gather scatter.src", Rule(mixed=True, indices=(2,))),
    **_trust(
        "index.Tensor index.Tensor_hacked_twin index_put index_put.hacked_twin embedding",
        Rule(mixed=True, indices=(1,)),
    ),
    # ONNX Pad's value, an integer (torch's F.pad gives a float, which
    # torch-mlir converts to the unsigned type as if signed).
    **_trust("constant_pad_nd", Rule(mixed=True, in_range=(2,))),
    **_trust(
        "__interpolate.size_list_scale_list",
        Rule(mixed=True, prefixes=((3, "nearest"),)),
    ),
    # Conversions from unsigned types, which torch-mlir makes from the torch
    # types (uitofp, extui), and to them from integers (trunci); a 0-d
    # tensor's number (ONNX zero points), zero-extended.
    **_trust(
        "to.dtype to.dtype_layout _to_copy torch.prims.convert_element_type",
        Rule(mixed=True, to_unsigned_from_float=False),
    ),
    **_trust("item Int.Tensor", _MOVES),
    # Arithmetic that wraps as unsigned arithmetic does, on one type; add and
    # sub also convert an unsigned operand of another type right.
    **_trust("add.Tensor sub.Tensor", _MOVES),
    **_trust(
        "add.Scalar mul.Tensor bitwise_not bitwise_and.Tensor bitwise_and.Scalar "
        "bitwise_or.Tensor bitwise_xor.Tensor bitwise_left_shift.Tensor bitwise_right_shift.Tensor "
        "maximum minimum relu sign cumsum",
        _SAME,
    ),
    **_trust("__lshift__.Scalar __rshift__.Scalar", Rule(below_half=(1,))),
    **_trust("clamp", Rule(in_range=(1, 2))),
    # Reductions to the same type, and their indices.
    **_trust("sum sum.dim_IntList prod prod.dim_int amax amin", _SAME),
    **_trust("max.dim min.dim argmax argmin", Rule(others=frozenset({"si64"}))),
    # Comparisons of unsigned tensors, or with a small constant.
    **_trust("gt.Tensor ge.Tensor lt.Tensor le.Tensor eq.Tensor ne.Tensor where.self", _COMPARE),
    **_trust(
        "gt.Scalar ge.Scalar lt.Scalar le.Scalar eq.Scalar ne.Scalar",
        Rule(others=frozenset({"i1"}), below_half=(1,)),
    ),
    **_trust("masked_fill.Scalar", Rule(others=frozenset({"i1"}), in_range=(2,))),
    **_trust("logical_not logical_and logical_or logical_xor", _COMPARE),
    # Float math of an unsigned operand, converted from its torch type.
    **_trust("sqrt rsqrt exp log sigmoid tanh sin floor ceil round", _MOVES),
    # Quantized uint8 (quint8) per tensor and its products, but batched ones.
    **_trust(
        "_make_per_tensor_quantized_tensor dequantize.self quantize_per_tensor int_repr",
        _MOVES,
    ),
    **_trust("mm convolution", Rule(quantized=frozenset({"si32", "!torch.qint32"}))),
}

#: What torch-mlir does wrong with the ops seen to compute wrongly on
#: unsigned integers (the others not trusted are refused as not checked).
WRONG: Dict[str, str] = {
    **dict.fromkeys(
        _names("div.Tensor div.Tensor_mode div.Scalar div.Scalar_mode floor_divide"),
        "divides them as signed integers (arith.divsi)",
    ),
    **dict.fromkeys(
        _names("remainder.Tensor remainder.Scalar fmod.Tensor fmod.Scalar"),
        "takes their remainder as of signed integers (arith.remsi)",
    ),
    "torch.aten.clamp.Tensor": "clamps them as signed integers (arith.maxsi, arith.minsi)",
    "torch.aten.abs": "takes their absolute value as of signed integers (math.absi)",
    **dict.fromkeys(_names("sort topk"), "sorts them as signed integers (arith.cmpi sge)"),
    **dict.fromkeys(
        _names("pow.Tensor_Tensor pow.Tensor_Scalar"),
        "converts them to floats as signed integers (arith.sitofp)",
    ),
    "torch.aten.scatter_reduce.two": "reduces them as signed integers",
    **dict.fromkeys(
        _names("max_pool1d max_pool2d max_pool3d max_pool2d_with_indices"),
        "pools them as signed integers (linalg.pooling_*_max)",
    ),
    "torch.aten.neg": "negates them through floats converted back as signed (arith.fptosi)",
    "torch.aten._make_per_channel_quantized_tensor": "takes the zero points as signed",
    "torch.aten.bmm": "multiplies quint8 operands as signed ones",
}


def _location(op) -> Optional[str]:
    """The op's location as MLIR's diagnostics print it (`"Div_0"`), None if unknown."""
    text = str(op.location)
    if text == "loc(unknown)":
        return None
    return text[len("loc(") : -1] if text.startswith("loc(") else text


def _producer(value) -> Optional[ir.Operation]:
    owner = value.owner
    if hasattr(owner, "operation"):
        owner = owner.operation
    return owner if isinstance(owner, ir.Operation) else None


def _constant(value) -> Optional[object]:
    """The integer or string a torch constant op gives `value`, if it is one."""
    producer = _producer(value)
    if producer is None:
        return None
    if producer.name == "torch.constant.int":
        return ir.IntegerAttr(producer.attributes["value"]).value
    if producer.name == "torch.constant.str":
        return ir.StringAttr(producer.attributes["value"]).value
    return None


def _elements(types: List[str]) -> List[str]:
    return [element for t in types for element in _TENSOR.findall(t)]


def _unsigned(types: List[str]) -> List[str]:
    return sorted({e for e in _elements(types) if e in UNSIGNED}, key=lambda e: (UNSIGNED[e], e))


def _shown(elements: List[str]) -> str:
    return ", ".join(e.removeprefix("!torch.") for e in elements)


def refusal(op) -> Optional[str]:
    """Why lighthouse does not trust torch-mlir's lowering of `op` (an op of
    the torch backend contract) with the unsigned tensors it takes or gives;
    None if it does, or if `op` has none."""
    if op.name == "torch.operator":
        # An op no conversion took (onnx.BitCast): torch-mlir's lowering
        # fails on it, naming it.
        return None
    operands = [str(value.type) for value in op.operands]
    elements = _elements(operands + [str(value.type) for value in op.results])
    unsigned = _unsigned(operands + [str(value.type) for value in op.results])
    if not unsigned:
        return None
    rule = TRUSTED.get(op.name)
    if rule is None:
        if op.name in WRONG:
            half = 1 << (UNSIGNED[unsigned[0]] - 1)
            return f"torch-mlir {WRONG[op.name]}, wrong for values of {half} and above"
        return "lighthouse has not checked torch-mlir's lowering of it on unsigned integers"
    bits = UNSIGNED[unsigned[0]]
    if not rule.to_unsigned_from_float and _unsigned([str(r.type) for r in op.results]):
        floats = sorted({e for e in _elements(operands) if e in _FLOATS})
        if floats:
            return (
                f"from {_shown(floats)}: torch-mlir converts floats to unsigned integers as to "
                f"signed ones (arith.fptosi), undefined for values of {1 << (bits - 1)} and above"
            )
    if not rule.mixed:
        allowed = rule.quantized if unsigned == ["!torch.quint8"] else rule.others
        others = sorted(set(elements) - set(unsigned) - allowed)
        if len(unsigned) > 1 or others:
            return (
                f"with tensors of {_shown(unsigned + others)}: torch-mlir converts the "
                "unsigned ones to the other types as if they were signed"
            )
        if "!torch.float" in operands:
            return "with a float operand: torch-mlir converts the unsigned integers as if signed"
    for index in rule.indices:
        if index < len(operands) and _unsigned([operands[index]]):
            return f"with unsigned indices (operand {index}), which torch-mlir takes as signed"
    for indices, limit in ((rule.below_half, 1 << (bits - 1)), (rule.in_range, 1 << bits)):
        limit = min(limit, 1 << 63)  # A !torch.int is an int64.
        for index in indices:
            if index >= len(operands) or operands[index] == "!torch.none":
                continue
            value = _constant(op.operands[index])
            if type(value) is int and 0 <= value < limit:
                continue
            producer = _producer(op.operands[index])
            if (
                value is None
                and indices is rule.in_range
                and producer is not None
                and producer.name == "torch.aten.item"
                and _unsigned([str(producer.operands[0].type)]) == unsigned
            ):
                continue  # The number of an unsigned tensor of the type, zero-extended.
            if operands[index] == "!torch.float":
                what = "a float"
            elif value is None:
                what = "a number computed when it runs"
            else:
                what = str(value)
            return (
                f"with {what} as operand {index}: torch-mlir handles integer constants "
                f"from 0 to {limit - 1} there"
            )
    for index, prefix in rule.prefixes:
        value = _constant(op.operands[index]) if index < len(operands) else None
        if not isinstance(value, str) or not value.startswith(prefix):
            return f"with operand {index} {value!r}, not {prefix}...: not checked"
    return None


def check(module: ir.Module) -> None:
    """Raises a `LoweringError` naming each op of `module` (the torch backend
    contract) that takes or gives unsigned tensors and that lighthouse does
    not trust torch-mlir to lower right (`refusal`)."""
    lines, ops = [], []

    def visit(op):
        op = op.operation
        reason = refusal(op)
        if reason is not None:
            unsigned = _unsigned([str(v.type) for v in (*op.operands, *op.results)])
            location = _location(op)
            message = f"'{op.name}' on unsigned integers ({_shown(unsigned)}), refused: {reason}"
            if location is None:
                generic = op.get_asm(
                    print_generic_op_form=True, large_elements_limit=16, use_local_scope=True
                )
                lines.append(
                    f"error: unknown: {message}\n note: unknown: see current operation: {generic}"
                )
            else:
                lines.append(f"error: {location}: {message}")
            if op.name not in ops:
                ops.append(op.name)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    if lines:
        diagnostics = "\n".join(lines)
        placed = placed_by_users(module, diagnostics) if "error: unknown: " in diagnostics else {}
        raise LoweringError(
            f"{STAGE} failed (cannot lower: {', '.join(ops)}):\n{diagnostics}",
            diagnostics,
            ops,
            STAGE,
            placed,
        )


#: The signed type a float goes through to an unsigned type of these bits,
#: and its torch dtype code: `arith.fptosi` to it is exact over the whole
#: unsigned range, and the truncation to the unsigned type after it too.
_THROUGH_SIGNED = {8: ("si32", 3), 16: ("si32", 3), 32: ("si64", 4)}

#: torch-mlir's conversions of a tensor's elements, with the dtype as operand 1.
_CONVERSIONS = ("torch.aten.to.dtype", "torch.aten._to_copy")


def convert_floats_through_signed(module: ir.Module) -> None:
    """Rewrites in place each conversion of a float tensor to unsigned
    integers of at most 32 bits into one to a wider signed type, then one
    from it: torch-mlir converts a float to an unsigned integer with
    `arith.fptosi` to its width, undefined from 2^(bits-1) on (200.0 to
    uint8 gave 127 on the default pipeline); through int32, 200.0 is 200 and
    its low 8 bits are 200 as uint8. Floats outside the unsigned range, for
    which ONNX and torch define no result, stay undefined."""
    conversions = []

    def visit(op):
        op = op.operation
        if op.name in _CONVERSIONS and len(op.operands) > 1 and len(op.results) == 1:
            source = _elements([str(op.operands[0].type)])
            result = str(op.results[0].type)
            target = _elements([result])
            if (
                source
                and source[0] in _FLOATS
                and target
                and UNSIGNED.get(target[0]) in _THROUGH_SIGNED
                and _constant(op.operands[1]) is not None
            ):
                conversions.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    for op in conversions:
        result = str(op.results[0].type)
        unsigned = _elements([result])[0]
        signed, code = _THROUGH_SIGNED[UNSIGNED[unsigned]]
        with op.context, op.location, ir.InsertionPoint(op):
            dtype = ir.Operation.create(
                "torch.constant.int",
                results=[ir.Type.parse("!torch.int")],
                attributes={"value": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), code)},
            )
            wider = ir.Operation.create(
                op.name,
                results=[ir.Type.parse(result[: result.rindex(",") + 1] + signed + ">")],
                operands=[op.operands[0], dtype.result, *list(op.operands)[2:]],
            )
        op.operands[0] = wider.result


#: Ops torch-mlir computes on unsigned integers as on signed ones whose
#: results, computed on the values zero-extended to a signed type twice as
#: wide, are those of the unsigned op: integer division and remainder of
#: values from 0 up, max pooling and ordering of them, clamping to tensors,
#: absolute values.
#: ONNX's Div, Mod, MaxPool, TopK and Clip of uint8 and uint32 then compute
#: right (`compute_through_wider_signed`).
WIDENED = frozenset(
    _names(
        "div.Tensor div.Tensor_mode floor_divide remainder.Tensor fmod.Tensor "
        "max_pool1d max_pool2d max_pool3d clamp.Tensor sort topk abs"
    )
)

#: Unsigned types the ops above are widened for: to a signed type (torch's
#: dtype code) and back (torch's code of the unsigned type). Not uint16:
#: torch-mlir aborts on its dtype (27), "unhandled type for
#: getTypeForScalarType"; uint64 has no wider type.
_WIDER_SIGNED = {"ui8": ("si16", 2, 0), "ui32": ("si64", 4, 28)}


def compute_through_wider_signed(module: ir.Module) -> None:
    """Rewrites in place each op of `WIDENED` whose tensors are all of one
    unsigned type of `_WIDER_SIGNED` (indices of int64 apart) into the op on
    its operands converted to the wider signed type, and its results
    converted back."""
    widened = []

    def visit(op):
        op = op.operation
        if op.name in WIDENED:
            types = [str(v.type) for v in (*op.operands, *op.results)]
            unsigned = _unsigned(types)
            others = set(_elements(types)) - set(unsigned) - {"si64"}
            if len(unsigned) == 1 and unsigned[0] in _WIDER_SIGNED and not others:
                widened.append((op, unsigned[0]))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    for op, unsigned in widened:
        signed, to_signed, to_unsigned = _WIDER_SIGNED[unsigned]
        with op.context, op.location, ir.InsertionPoint(op):
            operands = [
                _converted(value, unsigned, signed, to_signed)
                if _unsigned([str(value.type)])
                else value
                for value in op.operands
            ]
            wide = ir.Operation.create(
                op.name,
                results=[
                    ir.Type.parse(str(r.type).replace(f",{unsigned}>", f",{signed}>"))
                    for r in op.results
                ],
                operands=operands,
            )
        with op.context, op.location, ir.InsertionPoint.after(wide):
            for result, value in zip(op.results, wide.results):
                if _unsigned([str(result.type)]):
                    value = _converted(value, signed, unsigned, to_unsigned)
                result.replace_all_uses_with(value)
        op.erase()


def _converted(value, source: str, target: str, code: int):
    """`value` (a tensor of `source` elements) converted to `target` ones
    (torch's dtype `code`) by torch.aten.to.dtype, made at the insertion point."""

    def constant(name, result, attributes=None):
        return ir.Operation.create(
            name, results=[ir.Type.parse(result)], attributes=attributes or {}
        ).result

    dtype = constant(
        "torch.constant.int",
        "!torch.int",
        {"value": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), code)},
    )
    false = constant("torch.constant.bool", "!torch.bool", {"value": ir.BoolAttr.get(False)})
    none = constant("torch.constant.none", "!torch.none")
    text = str(value.type)
    return ir.Operation.create(
        "torch.aten.to.dtype",
        results=[ir.Type.parse(text.replace(f",{source}>", f",{target}>"))],
        operands=[value, dtype, false, false, none],
    ).result


def has_unsigned(module: ir.Module) -> bool:
    """Whether any function of `module` (torch IR) takes, or any op gives, an
    unsigned tensor: the values every other one comes from."""
    found = False

    def visit(op):
        nonlocal found
        op = op.operation
        types = [str(r.type) for r in op.results]
        if op.name == "func.func":
            types.append(str(ir.TypeAttr(op.attributes["function_type"]).value))
        if any(e in UNSIGNED for e in _elements(types)):
            found = True
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


def run_checked_pipelines(
    module: ir.Module, stages: list, time_limit: Optional[float] = None
) -> ir.Module:
    """`run_pipelines(module, stages, time_limit)` for stages that lead to the
    torch backend contract (the first) and lower it to linalg (the second):
    for a module with unsigned tensors, the contract is checked in between
    (`check`), each part given `time_limit`."""
    if not has_unsigned(module):
        return run_pipelines(module, stages, time_limit)
    contract = run_pipelines(module, stages[:1], time_limit)
    convert_floats_through_signed(contract)
    compute_through_wider_signed(contract)
    check(contract)
    return run_pipelines(contract, stages[1:], time_limit)
