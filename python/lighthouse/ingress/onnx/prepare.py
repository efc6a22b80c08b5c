"""The graph passes a model goes through before torch-mlir imports it, in
order (`PASSES`): values computed from constants folded; the sequences
whose elements are known read as those elements (`sequences`); the sizes a
Slice does not slice given to its output (`shapes`); the rules that
apply always (`rules`: ops torch-mlir converts wrong or not at all), the
expansions into functions first, then the nodes rewritten in place; Scans and Loops with
scan outputs made Loops of loop-carried values; the output sizes it
declares but does not compute left unknown. Each pass gives the model
itself when it changes nothing."""

from typing import Callable, Dict, List, Sequence

from ..torch_mlir import require
from .fold import expand_functions, fold_constants
from .loops import loops_of_carried_values
from .rules import ALWAYS, Site, rules_for
from .rules.rule import Rewritten
from .sequences import sequences_as_elements
from .shapes import slices_keep_their_other_dims
from .values import (
    inferred_shapes,
    constant_values,
    default_opset,
    replace_nodes,
    types_of,
    without_initializers,
)

onnx = require("onnx", "onnx")
helper = require("onnx.helper", "onnx")

__all__ = ["PASSES", "outputs_as_inferred", "prepared", "rewritten_always"]

Pass = Callable[["onnx.ModelProto"], "onnx.ModelProto"]


def prepared(proto: "onnx.ModelProto", passes: Sequence[Pass] = None) -> "onnx.ModelProto":
    """`proto` through each of `passes` (`PASSES`), in order."""
    for graph_pass in PASSES if passes is None else passes:
        proto = graph_pass(proto)
    return proto


def _always_rewrites(proto: "onnx.ModelProto") -> Dict[int, Rewritten]:
    """What the first rule applying always gives each main-graph node it
    rewrites (nodes or a function), by the node's position."""
    positions = [i for i, node in enumerate(proto.graph.node) if rules_for(node, ALWAYS)]
    if not positions:
        return {}
    types = types_of(proto.graph)
    constants = constant_values(proto.graph)
    opset = default_opset(proto, 0)
    rewrites = {}
    for index in positions:
        site = Site(proto.graph.node[index], types, constants, opset)
        for rule in rules_for(site.node, ALWAYS):
            rewritten = rule.apply(site)
            if rewritten is not None:
                rewrites[index] = rewritten
                break
    return rewrites


def rewritten_always(proto: "onnx.ModelProto") -> "onnx.ModelProto":
    """`proto` with the rules that apply always applied: the nodes a rule
    expands into a function expanded first (and the values the functions
    compute from constants folded), then the nodes a rule rewrites into
    other nodes replaced by them."""
    rewrites = _always_rewrites(proto)
    ops = {
        proto.graph.node[index].op_type
        for index, rewritten in rewrites.items()
        if isinstance(rewritten, onnx.FunctionProto)
    }
    if ops:
        expanded = expand_functions(proto, ops)
        if expanded is not proto:
            # The other rules see the expanded model, its constants folded.
            proto = fold_constants(expanded)
            rewrites = _always_rewrites(proto)
    # Replacements by position, before the model is copied: most models (of
    # MatMuls and Slices) have none, and a copy of their weights costs.
    replacements = {i: nodes for i, nodes in rewrites.items() if isinstance(nodes, list)}
    if not replacements:
        return proto
    rewritten = onnx.ModelProto()
    rewritten.CopyFrom(proto)
    positions = iter(range(len(rewritten.graph.node)))
    replace_nodes(rewritten.graph, lambda node: replacements.get(next(positions)))
    if not default_opset(proto, 0):
        # A model of ONNX-ML ops alone imports no opset of the default
        # domain, which the ops replacing them are of (and torch-mlir's
        # importer needs).
        rewritten.opset_import.append(helper.make_opsetid("", _ML_REPLACEMENTS_OPSET))
    return inferred_shapes(rewritten)


#: The opset of the default domain's ops that replace ONNX-ML ones.
_ML_REPLACEMENTS_OPSET = 13


def outputs_as_inferred(proto: "onnx.ModelProto") -> "onnx.ModelProto":
    """`proto` with the sizes its graph outputs declare but its computation
    leaves to the data left unknown (`proto` itself when there are none):
    the number of elements Compress or NonZero select depends on the data,
    and torch-mlir cannot cast what it computes to the size a model
    declares (from the data it was exported with). A size ONNX's inference
    ties to a named dimension of an input stays declared, and the compiled
    code checks it; one it cannot tell (data-dependent, or computed from
    several sizes) is left to the computation."""
    if not any(
        dim.HasField("dim_value")
        for value in proto.graph.output
        for dim in value.type.tensor_type.shape.dim
    ):
        return proto
    # The model without its large initializers, as inputs of their types:
    # inference reads the values of small ones only (shapes, axes), and a
    # copy of the weights cost 0.9 s of a 134 MB model's rewrites.
    probe = without_initializers(proto)
    for value in probe.graph.output:
        value.type.tensor_type.ClearField("shape")
    try:
        inferred = onnx.shape_inference.infer_shapes(probe, data_prop=True).graph.output
    except Exception:  # noqa: BLE001 - onnx's C++ inference fails in its own ways
        return proto
    named = {
        dim.dim_param
        for value in proto.graph.input
        for dim in value.type.tensor_type.shape.dim
        if dim.HasField("dim_param")
    }
    relaxed = None
    for index, (declared, computed) in enumerate(zip(proto.graph.output, inferred)):
        declared_dims = declared.type.tensor_type.shape.dim
        computed_type = computed.type.tensor_type
        if not computed_type.HasField("shape") or len(computed_type.shape.dim) != len(
            declared_dims
        ):
            continue
        for axis, (dim, found) in enumerate(zip(declared_dims, computed_type.shape.dim)):
            of_data = not found.HasField("dim_value") and found.dim_param not in named
            if dim.HasField("dim_value") and of_data:
                if relaxed is None:
                    relaxed = onnx.ModelProto()
                    relaxed.CopyFrom(proto)
                target = relaxed.graph.output[index].type.tensor_type.shape.dim[axis]
                target.dim_param = f"{declared.name}_dim{axis}"
    return proto if relaxed is None else relaxed


#: The graph passes before import, in order: each rule and rewrite needs the
#: constants folded before it.
PASSES: List[Pass] = [
    fold_constants,
    sequences_as_elements,
    slices_keep_their_other_dims,
    rewritten_always,
    loops_of_carried_values,
    outputs_as_inferred,
]
