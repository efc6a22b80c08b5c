"""ONNX models into lighthouse: torch-onnx IR and linalg on tensors.

    from lighthouse.ingress import onnx as onnx_ingress
    raw = onnx_ingress.import_model("model.onnx")       # torch.operator "onnx.*" ops
    linalg = onnx_ingress.to_linalg("model.onnx")        # upstream dialects

Before import, the model goes through the graph passes of `prepare`:
values it computes from constants alone (reduction axes, shapes, sizes;
`fold`) folded into constants, ops torch-mlir converts wrong or not at all
rewritten by the `rules` that apply always. Import runs torch-mlir's ONNX
importer (`lighthouse.extras.onnx_importer`) in a lighthouse context.
Lowering runs torch-mlir's passes on torch-mlir's own MLIR and brings the
result back (`lighthouse.ingress.torch_mlir`); an op it cannot lower is
expanded by the rules that apply on a lowering error, or into the function
ONNX defines it by. Needs `lighthouse[onnx]`.

The package: `prepare` (the passes, in order), `rules` (the rewrites of
ONNX ops, a file per op family), `fold` (constants and ONNX's functions),
`loops` (Scan and Loop), `sequences` (those of known elements), `bitcast`,
`specialize` (inputs compiled for by value), `places` (where in the model
an error is), `validate` (the checks of a model before anything else;
`tensor_data`, `input_shapes`), `values` (graph helpers).
"""

import os
import shutil
import tempfile
from typing import Callable, Iterable, Optional, Set, Tuple, Union

from ... import ir
from .bitcast import bitcasts_as_builtin, bitcasts_elementwise
from .values import DEFAULT_DOMAINS, constant_values, default_opset, types_of
from .fold import expand_functions
from .prepare import prepared
from .rules import ON_LOWERING_ERROR, Site, declined, has_rules
from .places import ModelPlaces, all_nodes, all_tensors, locate_the_unlocated, subgraphs
from .tensor_data import data_bytes, refuse_data_unlike_dims
from .validate import refuse_what_inference_lets_through, validated
from ...errors import ExchangeError, ImporterError, IngressError, LoweringCrash, LoweringError
from ..torch_mlir import import_context, importer_failure, require
from ..torch_mlir.unsigned import STAGE as UNSIGNED_CHECK
from ..torch_mlir.unsigned import run_checked_pipelines

__all__ = [
    "ExchangeError",
    "ImporterError",
    "IngressError",
    "LoweringCrash",
    "LoweringError",
    "load",
    "import_and_lower",
    "import_loaded",
    "import_model",
    "lower_to_linalg",
    "to_linalg",
]

onnx = require("onnx", "onnx")
onnx_importer = require("lighthouse.extras.onnx_importer", "onnx")

#: torch-mlir's pipelines from torch-onnx IR to linalg on tensors.
ONNX_TO_LINALG_STAGES = [
    (
        "torch-mlir's conversion of ONNX ops to the torch backend contract",
        "builtin.module(torch-onnx-to-torch-backend-pipeline)",
    ),
    (
        "torch-mlir's lowering from the torch backend contract to linalg on tensors",
        "builtin.module(torch-backend-to-linalg-on-tensors-backend-pipeline)",
    ),
]

ModelLike = Union[str, os.PathLike, "onnx.ModelProto"]


def load(
    model: ModelLike,
    *,
    data_dir: Optional[Union[str, os.PathLike]] = None,
    opset_version: Optional[int] = None,
    infer_shapes: bool = True,
    data_prop: bool = True,
    temp_dir: Optional[Union[str, os.PathLike]] = None,
    keep_temps: bool = False,
) -> "onnx.ModelProto":
    """Loads and checks an ONNX model, ready for import.

    Args:
      model: a path to a `.onnx` file, or a `ModelProto`.
      data_dir: where tensors stored as external data live; by default the
        model file's folder.
      opset_version: converts the model to this opset of the default domain.
      infer_shapes: gives the model the shapes and types ONNX's inference
        finds (which it runs to check the model anyway), the static shapes
        the importer needs for intermediate values.
      data_prop: lets shape inference propagate constant values (the
        shapes computed by Shape, Slice, Concat, ...).
      temp_dir: where to write the files that check and infer shapes of a
        model over protobuf's 2 GB (ONNX does so only from files): a new
        folder in it; by default in the system's temporary folder.
      keep_temps: keeps those files.

    The model is checked as strictly as onnxruntime refuses models: its
    tensors' data against their dims and types (`tensor_data`), ONNX's
    checker, its shape and type inference in strict mode, and the shapes of
    the inputs it does not check and the axes of nodes against the shapes
    inferred (`validate`).

    Raises:
      FileNotFoundError: no such file.
      ValueError: the file is not a valid ONNX model, or fails ONNX's checks;
        the message names the node, for a node's failure.
    """
    if isinstance(model, onnx.ModelProto):
        proto = model
        source = "the model"
        # Without a folder, ONNX's checker finds external data from the
        # current one, as lighthouse's check of its size does.
        folder = os.fspath(data_dir) if data_dir is not None else None
    elif isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        source = path
        if not os.path.isfile(path):
            raise FileNotFoundError(f"no ONNX model at {path}")
        try:
            proto = onnx.load(path, load_external_data=False)
        except Exception as error:  # protobuf's DecodeError and friends
            raise ValueError(f"{path} is not a valid ONNX model: {error}") from None
        folder = os.fspath(data_dir) if data_dir else os.path.dirname(os.path.abspath(path))
    else:
        raise TypeError(f"expected a path or an onnx.ModelProto, got {type(model).__name__}")

    graph = proto.graph
    if not graph.node and not graph.output and not graph.initializer:
        raise ValueError(f"{source} is not a valid ONNX model: it has no graph")
    not_utf8 = _string_not_utf8(proto)
    if not_utf8:
        raise ValueError(f"{source} is not a valid ONNX model: {not_utf8}")
    # Named first, so that the messages of the checks name the node too; a
    # copy, if it is one, made before the external data is read into it.
    proto = _name_nodes(proto, owned=proto is not model)
    refuse_data_unlike_dims(proto, source, folder or "")
    if folder is not None:
        _load_external_data(proto, folder, source)
    try:
        # ONNX checks and infers a model over protobuf's 2 GB only from files.
        large = _over_protobuf_limit(proto)
        if not large:
            onnx.checker.check_model(proto)
        if opset_version is not None:
            proto = onnx.version_converter.convert_version(proto, opset_version)
        # The nodes a conversion adds named too.
        named = _name_nodes(proto, owned=proto is not model)
        if large:
            inferred = _checked_in_files(named, data_prop, temp_dir, keep_temps)
            refuse_what_inference_lets_through(inferred, source)
        else:
            inferred = validated(named, source, data_prop)
    except onnx.checker.ValidationError as error:
        raise ValueError(f"{source} fails ONNX's checker: {error}") from None
    except UnicodeDecodeError as error:
        # onnx's C++ quotes a string of the model that is not UTF-8 in its
        # message, which pybind11 then cannot decode.
        raise ValueError(
            f"{source} is not a valid ONNX model: ONNX's checks failed on a string of it "
            f"that is not UTF-8 ({error})"
        ) from None
    return inferred if infer_shapes else named


def _over_protobuf_limit(proto: "onnx.ModelProto") -> bool:
    """Whether `proto` serializes to more than protobuf's 2 GiB; protobuf's
    upb backend refuses to size such a message at all (EncodeError)."""
    from google.protobuf.message import EncodeError

    try:
        return proto.ByteSize() > onnx.checker.MAXIMUM_PROTOBUF
    except EncodeError:
        return True


def _load_external_data(proto: "onnx.ModelProto", folder: str, source: str) -> None:
    """Reads the tensors `proto` stores as external data, from `folder`: one
    given no length for the bytes its dims take, as onnxruntime reads it
    (ONNX's loader reads its file to the end).

    Raises:
      FileNotFoundError: a tensor's file is missing; ONNX refuses a location
        that is not a file in `folder` with the same error as a missing one.
    """
    for _, tensor, _ in all_tensors(proto):
        if (
            tensor.data_location == onnx.TensorProto.EXTERNAL
            and tensor.data_type != onnx.TensorProto.STRING
            and all(entry.key != "length" for entry in tensor.external_data)
        ):
            tensor.external_data.add(key="length", value=str(data_bytes(tensor)))
    try:
        onnx.load_external_data_for_model(proto, folder)
    except (OSError, onnx.checker.ValidationError) as error:
        raise FileNotFoundError(
            f"external data of {source} not found in {folder}: {error}"
        ) from None


def _checked_in_files(
    proto: "onnx.ModelProto", data_prop: bool, temp_dir, keep_temps: bool
) -> "onnx.ModelProto":
    """`proto`, over protobuf's size limit, checked and its shapes inferred
    strictly (as `validate` does) through files, as ONNX does for such
    models: saved with its tensors as external data in a new folder in
    `temp_dir`, which is removed unless `keep_temps`."""
    folder = tempfile.mkdtemp(prefix="lighthouse-onnx-", dir=temp_dir)
    try:
        path = os.path.join(folder, "model.onnx")
        saved = onnx.ModelProto()
        saved.CopyFrom(proto)
        onnx.save(
            saved, path, save_as_external_data=True, location="model.data", convert_attribute=True
        )
        onnx.checker.check_model(path)
        inferred_path = os.path.join(folder, "inferred.onnx")
        onnx.shape_inference.infer_shapes_path(
            path, inferred_path, check_type=True, strict_mode=True, data_prop=data_prop
        )
        inferred = onnx.load(inferred_path, load_external_data=False)
        onnx.load_external_data_for_model(inferred, folder)
        return inferred
    finally:
        if not keep_temps:
            shutil.rmtree(folder, ignore_errors=True)


def _string_not_utf8(message, path: str = "model") -> Optional[str]:
    """Says which string field of the protobuf `message` holds bytes that are
    not UTF-8 (protobuf's Python gives them as bytes instead of str), if one
    does: the importer and onnx's checker fail on them without naming it."""
    for field, value in message.ListFields():
        if field.type not in (field.TYPE_MESSAGE, field.TYPE_STRING):
            continue  # Numbers and bytes (tensors' data) hold no text.
        repeated = getattr(field, "is_repeated", None)
        if repeated is None:  # protobuf before 5.28
            repeated = field.label == field.LABEL_REPEATED
        values = enumerate(value) if repeated else [(None, value)]
        for index, item in values:
            where = f"{path}.{field.name}" + (f"[{index}]" if repeated else "")
            if field.type == field.TYPE_MESSAGE:
                found = _string_not_utf8(item, where)
                if found:
                    return found
            elif field.type == field.TYPE_STRING and isinstance(item, bytes):
                return f"{where} is not UTF-8: {item!r}"
    return None


def _name_nodes(proto: "onnx.ModelProto", owned: bool) -> "onnx.ModelProto":
    """`proto` with every node named, an unnamed one after its op type and
    position (`Conv_3`), in a subgraph after the node that holds it too
    (`If_2/then_branch/Add_0`): the importer gives each op its node's name as
    location, which lowering errors and failed runtime checks then name. A
    model that is not `owned` is copied first."""
    if all(node.name for node in all_nodes(proto.graph)):
        return proto
    if not owned:
        copy = onnx.ModelProto()
        copy.CopyFrom(proto)
        proto = copy
    taken = {node.name for node in all_nodes(proto.graph)}

    def name(graph, prefix: str) -> None:
        for index, node in enumerate(graph.node):
            if not node.name:
                node.name = f"{prefix}{node.op_type}_{index}"
                while node.name in taken:
                    node.name += "_"
                taken.add(node.name)
            for attribute, subgraph in subgraphs(node):
                name(subgraph, f"{node.name}/{attribute}/")

    name(proto.graph, "")
    return proto


def import_model(
    model: ModelLike,
    *,
    context: Optional[ir.Context] = None,
    expand: Iterable[str] = (),
    **load_options,
) -> ir.Module:
    """Imports an ONNX model as torch-onnx IR into a lighthouse context.

    `load_options` are those of `load`. The IR holds one `func.func` named
    after the graph, with `torch.operator "onnx.<Op>"` ops and the model's
    opset versions as `torch.onnx_meta.*` attributes. The ops named in
    `expand` (of ONNX's default domain) are replaced by the functions of
    other ops ONNX defines them by, where it does. Values computed from
    constants alone are imported as constants (`fold_constants`).
    """
    expanded = prepared(expand_functions(load(model, **load_options), expand))
    return import_loaded(_name_nodes(expanded, owned=False), context)


def import_loaded(
    proto: "onnx.ModelProto",
    context: Optional[ir.Context] = None,
    *,
    config: Optional["onnx_importer.Config"] = None,
    verify: bool = True,
) -> ir.Module:
    """Imports `proto`, as `load` gives it, with torch-mlir's importer, as it
    is: no op expanded, nothing folded (`import_model` prepares the model).

    Args:
      context: the context to import into (the current one, else a new one).
      config: the importer's `onnx_importer.Config`.
      verify: verifies the imported module.

    Raises:
      ImporterError: the importer failed; the message names the node.
    """
    context = import_context(context)
    proto = _typed_bools_as_bytes(proto)
    try:
        model_info = onnx_importer.ModelInfo(proto, config=config or onnx_importer.Config())
        module = model_info.create_module(context=context)
        importer = onnx_importer.NodeImporter.define_function(
            model_info.main_graph, module.operation
        )
        importer.import_all()
    except Exception as error:  # noqa: BLE001 - any importer failure is named as such
        raise importer_failure(
            error, "ONNX", onnx.NodeProto, lambda node: f"ONNX node {node.name!r} ({node.op_type})"
        ) from error
    locate_the_unlocated(module, proto)
    if verify:
        module.operation.verify()
    return module


def _typed_bools_as_bytes(proto: "onnx.ModelProto") -> "onnx.ModelProto":
    """`proto` with each BOOL tensor it stores as typed values (`int32_data`, as
    `helper.make_tensor(..., vals=[...])` stores them) stored as bytes, one a
    value, as ONNX stores them otherwise: a copy when there is one.

    torch-mlir's importer builds an i1 `DenseElementsAttr` of typed BOOL
    values with `DenseElementsAttr.get(bools, type=i1)`, which MLIR 22's
    bindings refuse (ValueError: given the type, they copy one byte a value
    where MLIR packs eight); of bytes, it builds a resource."""

    def typed_bools(model):
        return [
            tensor
            for _, tensor, _ in all_tensors(model)
            if tensor.data_type == onnx.TensorProto.BOOL
            and not tensor.HasField("raw_data")
            and tensor.data_location != onnx.TensorProto.EXTERNAL
        ]

    if not typed_bools(proto):
        return proto
    copy = onnx.ModelProto()
    copy.CopyFrom(proto)
    for tensor in typed_bools(copy):
        tensor.raw_data = bytes(1 if value else 0 for value in tensor.int32_data)
        tensor.ClearField("int32_data")
    return copy


def _defined_as_functions(ops: Iterable[str], proto: "onnx.ModelProto") -> Set[str]:
    """Of ONNX ops (`onnx.Attention`), those of the default domain that ONNX
    defines as functions at the model's opset, or that a rule rewrites on a
    lowering error (`rules`)."""
    opset = default_opset(proto)
    found = set()
    for op in ops:
        name = op[len("onnx.") :] if op.startswith("onnx.") else None
        if name and has_rules(name, ON_LOWERING_ERROR):
            found.add(name)
        if not name or opset is None:
            continue
        try:
            schema = onnx.defs.get_schema(name, max_inclusive_version=opset, domain="")
        except onnx.defs.SchemaError:
            continue
        versions = [
            *schema.function_opset_versions,
            *schema.context_dependent_function_opset_versions,
        ]
        if any(version <= opset for version in versions):
            found.add(name)
    return found


def import_and_lower(
    model: ModelLike,
    *,
    context: Optional[ir.Context] = None,
    run_stage: Optional[Callable[[str, Callable], object]] = None,
    time_limit: Optional[float] = None,
    **load_options,
) -> Tuple[ir.Module, ir.Module]:
    """Imports an ONNX model and lowers it to linalg on tensors; returns the
    torch-onnx IR and the linalg IR.

    Values computed from constants alone are folded into constants first.
    An op that torch-mlir cannot lower, or converts into a torch op it
    cannot lower (SoftmaxCrossEntropyLoss into nll_loss_forward), and that
    ONNX defines as a function of other ops (Attention, RMSNormalization,
    ...) is replaced by that
    function, whose values computed from constants (RMSNormalization's axes)
    are folded in turn, and the lowering tried again; ops of such a function
    that cannot be lowered are expanded in turn. Ops that lower are kept
    whole, as torch-mlir lowers them better than their expansions. When
    nothing is left to expand, a model of an opset before `CONVERTED_OPSET`
    is converted to it and tried again.
    `run_stage(name, function)` runs each stage, "import" and
    "lower-to-linalg", once per attempt (to time them, say). `time_limit`
    is that of `lower_to_linalg`, for each attempt.

    Raises:
      LoweringError: an op could not be lowered, nor expanded; `.ops` names it.
      ExchangeError: IR did not cross between torch-mlir's MLIR and lighthouse's.
      LoweringCrash: torch-mlir crashed, or went past the time limit.
    """
    run_stage = run_stage or (lambda name, function: function())
    proto = run_stage("import", lambda: prepared(load(model, **load_options)))
    earlier = []  # The models before expansion: where expanded nodes come from.
    expanded: Set[str] = set()
    converted = False
    while True:
        raw = run_stage("import", lambda: import_loaded(proto, context))
        try:
            return raw, run_stage(
                "lower-to-linalg", lambda: lower_to_linalg(raw, time_limit=time_limit)
            )
        except LoweringError as error:
            try:
                error = ModelPlaces(proto, raw, earlier).place(error)
            except Exception:  # noqa: BLE001 - the error stands without its places
                pass
            # The ONNX ops to expand: those torch-mlir left as they were, and
            # those of the nodes whose conversion made an op it cannot lower
            # (SoftmaxCrossEntropyLoss's torch.aten.nll_loss_forward).
            at_nodes = {
                f"onnx.{node.op_type}"
                for node in all_nodes(proto.graph)
                if node.name in error.nodes and node.domain in DEFAULT_DOMAINS
            }
            more = _defined_as_functions({*error.ops, *at_nodes}, proto) - expanded
            if more:
                expanded |= more
                earlier.append(proto)
                proto = run_stage(
                    "import",
                    lambda: _name_nodes(prepared(expand_functions(proto, more)), owned=False),
                )
                continue
            newer = None
            if not converted and error.stage != UNSIGNED_CHECK:
                newer = run_stage("import", lambda: _converted(proto))
            if newer is not None:
                converted = True
                earlier.append(proto)
                proto = newer
                continue
            done = [
                *(
                    [f"expanding the ONNX functions of {', '.join(sorted(expanded))}"]
                    if expanded
                    else []
                ),
                *([f"converting the model to opset {CONVERTED_OPSET}"] if converted else []),
            ]
            after = f" (after {' and '.join(done)})" if done else ""
            tried = _rules_declined(proto, {*error.ops, *at_nodes}, error.nodes)
            if after or tried:
                raise LoweringError(
                    f"{error}{after}{tried}",
                    error.diagnostics,
                    error.ops,
                    error.stage,
                    error.placed,
                    error.nodes,
                ) from None
            raise error from None


def _rules_declined(proto: "onnx.ModelProto", ops: Set[str], nodes: Iterable[str]) -> str:
    """What the rules for the main graph's nodes of `ops` (`onnx.Resize`) at
    `nodes` (all of them when none is named) said when they did not rewrite
    them, as lines for a lowering error; "" when no rule is for them."""
    named = set(nodes)
    at = [
        node
        for node in proto.graph.node
        if f"onnx.{node.op_type}" in ops
        and node.domain in DEFAULT_DOMAINS
        and (not named or node.name in named)
    ]
    lines = []
    if at:
        types, constants = types_of(proto.graph), constant_values(proto.graph)
        opset = default_opset(proto, 0)
        for node in at[:_NODES_EXPLAINED]:
            reasons = declined(Site(node, types, constants, opset))
            if reasons:
                lines.append(f"ONNX rules for node {node.name!r} ({node.op_type}), declined:")
                lines.extend(f"  {reason}" for reason in reasons)
    return "".join(f"\n{line}" for line in lines)


#: Nodes whose declined rules a lowering error lists: the first few say why.
_NODES_EXPLAINED = 3


#: The opset a model that fails to lower is converted to, once nothing of it
#: is left to expand: torch-mlir's conversions of some ops take only their
#: later forms (Dropout of opset 6 and before, ReduceMin without axes before
#: opset 18, which DynamicQuantizeLinear's function of opset 11 has).
CONVERTED_OPSET = 21


def _converted(proto: "onnx.ModelProto") -> Optional["onnx.ModelProto"]:
    """`proto` converted to `CONVERTED_OPSET` by ONNX's version converter,
    then prepared again; None if it is of that opset or later, or ONNX
    cannot convert it."""
    opset = default_opset(proto)
    if opset is None or opset >= CONVERTED_OPSET:
        return None
    try:
        newer = onnx.version_converter.convert_version(proto, CONVERTED_OPSET)
    except Exception:  # noqa: BLE001 - onnx's C++ converter fails in its own ways
        return None
    return _name_nodes(prepared(newer), owned=False)


def lower_to_linalg(module: ir.Module, *, time_limit: Optional[float] = None) -> ir.Module:
    """Lowers torch-onnx IR from `import_model` to linalg on tensors.

    torch-mlir's passes run in a process of their own, stopped after
    `time_limit` seconds (by default `LIGHTHOUSE_LOWERING_TIME_LIMIT`, else 300).

    A model with unsigned tensors is checked on the torch backend contract
    for the ops torch-mlir would compute as on signed integers (`torch_mlir.unsigned`).

    Raises:
      LoweringError: an op could not be lowered, or on unsigned integers would
        be lowered wrongly; `.ops` names it.
      ExchangeError: IR did not cross between torch-mlir's MLIR and lighthouse's.
      LoweringCrash: torch-mlir crashed, or went past the time limit.

    BitCasts between floats and integers are rewritten in `module` first
    (`bitcast`).
    """
    bitcasts_as_builtin(module)
    lowered = run_checked_pipelines(module, ONNX_TO_LINALG_STAGES, time_limit)
    bitcasts_elementwise(lowered)
    return lowered


def to_linalg(model: ModelLike, **import_options) -> ir.Module:
    """The linalg IR of `import_and_lower`."""
    return import_and_lower(model, **import_options)[1]
