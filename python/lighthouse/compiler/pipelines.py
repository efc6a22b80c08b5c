"""The pass pipelines from linalg on tensors to the LLVM dialect: lighthouse's
by name (`PIPELINES`), plugins' (`lighthouse.plugins`), or a pipeline string;
and the check that a pipeline left only what native code can hold."""

from typing import Dict, Optional

from .. import ir
from ..errors import CompileError
from ..passmanager import PassManager

__all__ = ["PIPELINES", "resolve_pipeline", "run_pipeline"]

#: Pipelines by name, from linalg on tensors to the LLVM dialect: `default`,
#: lighthouse's code generator (strategies by op family, vectors, threads;
#: ops it has no strategy for as loops LLVM vectorizes), and `loops`, every op
#: as loops on one thread (what `default` falls back to for each op), kept
#: as a reference for the code generator's results.
PIPELINES: Dict[str, str] = {
    "default": "builtin.module(lighthouse-cpu)",
    "loops": "builtin.module(lighthouse-cpu-loops)",
}


def resolve_pipeline(pipeline: str) -> str:
    """The pipeline string `pipeline` names. A plugin's is found after loading
    the MLIR plugins it lists: resolve before creating the context, which takes
    the dialects registered when it is created."""
    if pipeline in PIPELINES:
        return PIPELINES[pipeline]
    # Imported here: reading the installed packages' entry points takes 25
    # ms, which a compile with lighthouse's own pipelines does without.
    from .. import plugins

    found = plugins.find_pipeline(pipeline)
    if found is not None:
        return found
    if pipeline.startswith("builtin.module("):
        return pipeline
    known = ", ".join(sorted(set(PIPELINES) | set(plugins.pipeline_names())))
    raise ValueError(
        f"unknown pipeline {pipeline!r}: use one of {known}, or a pass "
        "pipeline string 'builtin.module(...)'"
    )


def run_pipeline(module: ir.Module, name: str, pipeline: str):
    try:
        PassManager.parse(pipeline).run(module.operation)
    except ir.MLIRError as error:
        raise CompileError(f"pipeline {name!r} ({pipeline}) failed:\n{error}") from None
    leftovers, packed = [], []

    def check(op):
        # The OpenMP dialect (threads) translates to LLVM IR as the LLVM one does.
        if op.name.split(".")[0] not in ("llvm", "builtin", "omp"):
            leftovers.append(op)
            return ir.WalkResult.SKIP
        if op.name in _VECTOR_MEMORY_OPS:
            kind, index = _VECTOR_MEMORY_OPS[op.name]
            values = op.results if kind == "result" else op.operands
            element = _sub_byte_vector_element(values[index].type)
            if element is not None:
                packed.append((op, element))
        return ir.WalkResult.ADVANCE

    module.operation.walk(check)
    if leftovers:
        listed = "\n".join(f"  '{op.name}' at {op.location}" for op in leftovers[:10])
        f8 = sorted(
            {
                str(element)
                for op in leftovers
                for value in (*op.operands, *op.results)
                for element in [_element_type(value.type)]
                if str(element).startswith("f8")
            }
        )
        note = (
            f"\n(MLIR lowers no arithmetic or conversion of {', '.join(f8)} to CPU code: "
            "lighthouse passes such tensors, but cannot yet compute on them)"
            if f8
            else ""
        )
        raise CompileError(
            f"pipeline {name!r} ({pipeline}) left {len(leftovers)} operation(s) it could not "
            f"lower to the LLVM dialect:\n{listed}{note}"
        )
    if packed:
        op, element = packed[0]
        bits = element.width
        raise CompileError(
            f"pipeline {name!r} ({pipeline}) made vector loads or stores of {element} "
            f"('{op.name}' at {op.location}, {len(packed)} in all): LLVM packs the elements "
            f"of such vectors, {bits} bits each, where buffers hold one {element} a byte, so "
            "the code would read and write the wrong elements; lighthouse's strategies "
            "leave ops on such types scalar (a strategy given in the module, or a pipeline "
            "of one's own, vectorized them)"
        )


# The LLVM ops that load or store a vector from or to memory, and which of
# their results or operands is the vector.
_VECTOR_MEMORY_OPS = {
    "llvm.load": ("result", 0),
    "llvm.store": ("operand", 0),
    "llvm.intr.masked.load": ("result", 0),
    "llvm.intr.masked.store": ("operand", 0),
    "llvm.intr.masked.gather": ("result", 0),
    "llvm.intr.masked.scatter": ("operand", 0),
    "llvm.intr.masked.expandload": ("result", 0),
    "llvm.intr.masked.compressstore": ("operand", 0),
}


def _element_type(t: ir.Type) -> ir.Type:
    return t.element_type if isinstance(t, ir.ShapedType) else t


def _sub_byte_vector_element(t: ir.Type) -> Optional[ir.Type]:
    """The element type of `t` if it is a vector of integers of a width that is
    not a whole number of bytes (i4, i1), else None: LLVM lays out a scalar
    i4 in a byte of its own, as lighthouse's buffers hold them, but packs a
    vector<16xi4> into 8 bytes."""
    if not isinstance(t, ir.VectorType):
        return None
    element = t.element_type
    if isinstance(element, ir.IntegerType) and element.width % 8:
        return element
    return None
