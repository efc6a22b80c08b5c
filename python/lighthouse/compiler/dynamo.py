"""lighthouse as a TorchDynamo backend: `torch.compile(model, backend="lighthouse")`.

Registered through the `torch_dynamo_backends` entry point group, so no import
is needed before `torch.compile`; `torch.compile(model, backend="lighthouse",
options={"runtime_checks": False})` passes `CompileOptions` fields. A `Backend`
does the same and records what it compiled:

    backend = lighthouse.torch_backend.Backend(runtime_checks=False)
    model = torch.compile(model, backend=backend)
    model(x)
    backend.graphs[0].parts        # the CompiledModules of the first graph

Each graph Dynamo captures is traced to ATen by AOTAutograd with the
decompositions `lighthouse.compile` applies, and lighthouse's own of PyTorch's
fused fast-path ops (`lighthouse.ingress.torch.fastpath`), then compiled by `lighthouse.compile`.
When lighthouse cannot compile a graph whole, the graph is partitioned: the
ops lighthouse cannot lower run eagerly (one `EagerFallbackWarning` per graph
names them) and lighthouse compiles the connected parts around them. Training
graphs go the same way, forward and backward apart.
"""

import copy
import dataclasses
import functools
import operator
import warnings
from typing import Dict, List, NamedTuple, Optional

import torch
from functorch.compile import make_boxed_func
from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
from torch.fx.passes.operator_support import OperatorSupportBase
from torch.fx.passes.tools_common import stable_topological_sort
from torch.fx.passes.utils.fuser_utils import erase_nodes, fuse_as_graphmodule, insert_subgm

from ..ingress import torch as torch_ingress
from ..ingress.torch import fastpath
from ..execution import CompiledModule
from .entry_points import compile as _compile
from .options import CompileOptions

__all__ = ["Backend", "EagerFallbackWarning", "GraphReport", "backend"]

#: Rounds of compiling a graph's parts, the first of the graph whole: each
#: round leaves to eager PyTorch what the one before could not compile (a
#: lowering error names all the ops one torch-mlir pass rejects). The tests'
#: graphs need three at most (an FFT, then a part on complex numbers).
MAX_ROUNDS = 4


class EagerFallbackWarning(UserWarning):
    """Some ops of a graph torch.compile captured run eagerly, not compiled by lighthouse."""


@dataclasses.dataclass
class GraphReport:
    """What lighthouse did with one graph (an AOTAutograd forward, backward or
    inference graph)."""

    #: The code lighthouse compiled: the whole graph, or each part of it (a
    #: part with symbolic sizes once more for each other set of sizes it is
    #: called with).
    parts: List[CompiledModule] = dataclasses.field(default_factory=list)
    #: The ATen ops run eagerly because lighthouse could not compile them
    #: (e.g. "aten.digamma.default"), each with the reason.
    eager_ops: Dict[str, str] = dataclasses.field(default_factory=dict)


@functools.lru_cache(maxsize=None)
def _decompositions() -> dict:
    """torch-mlir's decompositions as `lighthouse.compile` applies them, and
    those of the fast-path ops. Left out: ops with a CompositeImplicitAutograd
    kernel, which `lighthouse.compile` decomposes by that kernel (as tracing
    does), and views, whose decompositions give prims views (`prims.squeeze`)
    that `torch.export` cannot trace again when `lighthouse.compile` exports
    the graph (it decomposes them itself then)."""
    table = {
        op: decomposition
        for op, decomposition in torch_ingress.default_decompositions().items()
        if not op.is_view
        and not torch._C._dispatch_has_kernel_for_dispatch_key(
            op.name(), "CompositeImplicitAutograd"
        )
    }
    table.update(fastpath.DECOMPOSITIONS)
    return table


class Backend:
    """A TorchDynamo backend compiling with `options` (a `CompileOptions`)
    and its fields given as keyword arguments; `graphs` records each graph it
    compiled, in order."""

    def __init__(self, options: Optional[CompileOptions] = None, **overrides):
        # Checked here: a misspelt option is the caller's error, not a graph
        # for lighthouse to give up on.
        self.options = (options or CompileOptions()).merged(overrides)
        self.graphs: List[GraphReport] = []

    def __call__(self, graph_module, example_inputs, options=None, mode=None):
        """Compiles a graph Dynamo captured; returns a callable of its calling
        convention. `options` (from `torch.compile(..., options=)`): a
        `CompileOptions`, or a dict of its fields over this backend's;
        torch.compile's `mode` has no meaning for lighthouse."""
        from torch._dynamo.backends.common import aot_autograd

        if options is None:
            options = self.options
        elif not isinstance(options, CompileOptions):
            options = self.options.merged(options)

        def compile_graph(aten_graph, fake_inputs):
            # Each part's example inputs are made from its graph's values.
            report = GraphReport()
            self.graphs.append(report)
            return _compile_graph(aten_graph, options, report)

        # One AOTAutograd per graph: it keeps per-call state in its arguments.
        return aot_autograd(fw_compiler=compile_graph, decompositions=_decompositions())(
            graph_module, example_inputs
        )


def backend(graph_module, example_inputs, options=None, mode=None):
    """The backend `torch.compile(model, backend="lighthouse")` names."""
    return Backend()(graph_module, example_inputs, options=options, mode=mode)


def _is_symbolic(value) -> bool:
    if isinstance(value, torch.SymInt):
        return True
    return isinstance(value, torch.Tensor) and any(
        isinstance(s, torch.SymInt) for s in (*value.shape, *value.stride())
    )


def _concrete(value):
    """A real value standing for a traced one (a fake tensor, a symbolic
    size), its symbolic sizes at the values Dynamo traced with."""
    from torch.fx.experimental.symbolic_shapes import optimization_hint

    if isinstance(value, torch.SymInt):
        return optimization_hint(value)
    if isinstance(value, torch.Tensor):
        shape = [optimization_hint(s) for s in value.shape]
        return torch.zeros(shape, dtype=value.dtype, device=value.device)
    return value


def _signature(args) -> tuple:
    return tuple(
        (tuple(a.shape), a.dtype) if isinstance(a, torch.Tensor) else (type(a), a) for a in args
    )


class _Part:
    """A graph (or part of one) compiled by lighthouse. A graph with symbolic
    sizes is compiled again for each set of sizes it is called with: lighthouse
    traces with sizes fixed (a set it cannot compile runs eagerly). Not a
    module: calls skip nn.Module's hooks."""

    def __init__(self, graph_module, compiled, example_args, options, dynamic, report):
        self.graph_module = graph_module
        self.compiled = compiled
        self._options = options
        self._report = report
        self._by_signature = {_signature(example_args): compiled} if dynamic else None

    def __call__(self, *args):
        compiled = self.compiled
        if self._by_signature is not None:
            key = _signature(args)
            if key not in self._by_signature:
                try:
                    self._by_signature[key] = _compile(
                        self.graph_module, args, options=self._options
                    )
                    self._report.parts.append(self._by_signature[key])
                except Exception:  # Any failure: those sizes run eagerly.
                    self._by_signature[key] = None
            compiled = self._by_signature[key]
            if compiled is None:
                return tuple(self.graph_module(*args))
        outputs = compiled(*args)
        return outputs if isinstance(outputs, tuple) else (outputs,)


def _failure(error: Exception) -> str:
    """Why a compilation failed, in a line: the ops the error names, else its
    first diagnostic."""
    ops = getattr(error, "ops", None)
    if ops:
        return f"{type(error).__name__}: {', '.join(ops)}"
    lines = [line.strip() for line in str(error).strip().splitlines()]
    errors = [line for line in lines if line.startswith("error:")]
    return f"{type(error).__name__}: {(errors or lines or [''])[0]}"[:300]


def _named_ops(error: Exception, nodes) -> Dict[str, str]:
    """The ATen ops among `nodes` that `error` names as not compiled, by name
    ("aten.digamma.default"). Lowering errors name ops as torch-mlir does
    ("torch.aten.digamma", "torch.aten.sum.dim_IntList"); ops of other
    dialects ("tm_tensor.sort") are matched by the ATen op of that name."""
    names = set(getattr(error, "ops", None) or ())
    found = {}
    for node in nodes:
        target = node.target
        if not isinstance(target, torch._ops.OpOverload):
            continue
        packet = target.overloadpacket.__name__
        candidates = {
            f"torch.{target.namespace}.{packet}",
            f"torch.{target.namespace}.{packet}.{target._overloadname}",
        }
        if candidates & names or any(
            not n.startswith("torch.") and n.rsplit(".", 1)[-1] == packet for n in names
        ):
            found[str(target)] = _failure(error)
    return found


def _op_name(node) -> Optional[str]:
    return str(node.target) if isinstance(node.target, torch._ops.OpOverload) else None


class _Compilable(OperatorSupportBase):
    """The nodes lighthouse may compile: ATen ops on tensors, but for the ops
    and nodes known to fail."""

    def __init__(self, eager_ops, eager_nodes):
        self.eager_ops = eager_ops
        self.eager_nodes = eager_nodes

    def is_node_supported(self, submodules, node) -> bool:
        if node.op != "call_function" or node.name in self.eager_nodes:
            return False
        if node.target is operator.getitem:
            # Only with the op it takes apart: a part cannot take a tuple.
            return self.is_node_supported(submodules, node.args[0])
        if _op_name(node) is None or _op_name(node) in self.eager_ops:
            return False
        # Tensors in and out: sizes computed apart (SymInts) stay eager.
        value = node.meta.get("val")
        values = value if isinstance(value, (tuple, list)) else (value,)
        return all(isinstance(v, torch.Tensor) for v in values)


def _worth_compiling(partition) -> bool:
    # A part of views and tuple accesses only would copy what eager aliases.
    return any(
        isinstance(n.target, torch._ops.OpOverload) and not n.target.is_view
        for n in partition.nodes
    )


def _example(node, graph_module):
    if node.op == "get_attr":
        value = graph_module
        for attribute in node.target.split("."):
            value = getattr(value, attribute)
        return value
    return _concrete(node.meta["val"])


class _Split(NamedTuple):
    name: str  # The submodule's, in the split graph.
    graph_module: torch.fx.GraphModule
    examples: tuple
    nodes: frozenset  # The names of its nodes in the graph split.


def _split(graph_module, eager_ops, eager_nodes):
    """A copy of `graph_module` whose compilable parts are submodules
    (`lighthouse_part_<i>`), and those parts."""
    split = torch.fx.GraphModule(graph_module, copy.deepcopy(graph_module.graph))
    partitioner = CapabilityBasedPartitioner(
        split, _Compilable(eager_ops, eager_nodes), allows_single_node_partition=True
    )
    order = {node: index for index, node in enumerate(split.graph.nodes)}
    partitions = [p for p in partitioner.propose_partitions() if _worth_compiling(p)]
    partitions.sort(key=lambda p: min(order[n] for n in p.nodes))
    parts = []
    for index, partition in enumerate(partitions):
        nodes = sorted(partition.nodes, key=order.__getitem__)
        name = f"lighthouse_part_{index}"
        sub, inputs, outputs = fuse_as_graphmodule(split, nodes, name, always_return_tuple=True)
        try:
            examples = tuple(_example(n, split) for n in inputs)
        except KeyError:  # An input of unknown type: not a part lighthouse can trace.
            examples = None
        insert_subgm(split, sub, inputs, outputs, nodes[-1])
        erase_nodes(split, nodes)
        parts.append(_Split(name, sub, examples, frozenset(n.name for n in nodes)))
    # A part's call goes where its last node was; a node left eager between
    # its nodes that reads one of its results (a size of a decode step's
    # grown cache, `sym_size`) moves after it.
    stable_topological_sort(split)
    split.graph.lint()
    split.recompile()
    return split, parts


def _compile_graph(graph_module, options, report: GraphReport):
    """`graph_module` (an ATen graph from AOTAutograd), its parts compiled by
    lighthouse and the rest run eagerly, as a boxed function. The first round
    compiles the whole graph as one part but for what lighthouse never takes
    (sizes computed apart, `None` results); each round after it runs eagerly
    the ops the one before could not compile. Warns once if any did not."""
    eager_ops: Dict[str, str] = {}
    eager_nodes: Dict[str, str] = {}  # Those of parts that failed without naming an op.
    results: Dict[frozenset, object] = {}  # Per part, kept across rounds.
    # Outside Dynamo's tracing: torch.export would take up its fake tensors
    # and its guards on symbolic sizes.
    with torch.utils._python_dispatch._disable_current_modes(), torch._guards.tracing(None):
        for _ in range(MAX_ROUNDS):
            split, parts = _split(graph_module, eager_ops, eager_nodes)
            learned = False
            for part in (p for p in parts if p.nodes not in results):
                try:
                    if part.examples is None:
                        raise TypeError("an input lighthouse cannot trace")
                    results[part.nodes] = _compile(
                        part.graph_module, part.examples, options=options
                    )
                except Exception as error:  # Its ops run eagerly; the next round splits it.
                    results[part.nodes] = error
                    named = _named_ops(error, part.graph_module.graph.nodes)
                    if not named:
                        eager_nodes.update(dict.fromkeys(part.nodes, _failure(error)))
                    eager_ops.update(named)
                    learned = True
            if not learned:
                break
    # Parts that failed in the last round keep their eager submodule.
    for part in parts:
        result = results[part.nodes]
        if isinstance(result, CompiledModule):
            dynamic = any(
                _is_symbolic(n.meta.get("val"))
                for n in part.graph_module.graph.nodes
                if n.op == "placeholder"
            )
            # In place of the part's submodule, which the split graph calls.
            delattr(split, part.name)
            part_call = _Part(part.graph_module, result, part.examples, options, dynamic, report)
            setattr(split, part.name, part_call)
            report.parts.append(result)
    by_name = {n.name: n for n in graph_module.graph.nodes}
    for name, why in eager_nodes.items():
        if _op_name(by_name[name]) is not None:
            eager_ops.setdefault(_op_name(by_name[name]), why)
    report.eager_ops = eager_ops
    if eager_ops:
        by_reason: Dict[str, List[str]] = {}
        for op, why in sorted(eager_ops.items()):
            by_reason.setdefault(why, []).append(op)
        listed = "; ".join(f"{', '.join(ops)} ({why})" for why, ops in by_reason.items())
        warnings.warn(
            f"lighthouse compiled {len(report.parts)} part(s) of a graph torch.compile "
            f"captured; these ops run eagerly: {listed}",
            EagerFallbackWarning,
            stacklevel=2,
        )
    # The generated code itself: calls skip nn.Module's hooks.
    return make_boxed_func(split.forward if report.parts else graph_module.forward)
