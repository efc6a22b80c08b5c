"""IREE from PyPI (`pip install 'lighthouse[iree]'`) on the host's CPU: torch
modules through torch-mlir's FX importer, ONNX models through
iree-import-onnx, compiled by iree-compile for llvm-cpu and run by IREE's
local-task driver."""

import os
import re
import signal
import subprocess
import tempfile
from pathlib import Path
from typing import List, Optional, Sequence, Union

import numpy as np

from ..case import Case, Crashed, Unsupported, to_torch
from ..plugins import Compiler

_INSTALL = (
    "pip install 'lighthouse[iree]' (or: pip install 'iree-base-compiler==3.13.*' "
    "'iree-base-runtime==3.13.*')"
)

_FLAGS = [
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-llvmcpu-target-cpu=host",
    # By default f64 is computed as f32, and the module's f64 arguments
    # and results then have half the bytes they should (a run error);
    # the CPU computes f64 as it is.
    "--iree-input-demote-f64-to-f32=false",
    # Diagnostics without the op printed again (a constant can be large).
    "--mlir-print-op-on-diagnostic=false",
]

#: The variants' flags besides `_FLAGS`: IREE at its best settings for the
#: CPU, its highest optimization level and data-tiled matmuls.
_VARIANT_FLAGS = {None: [], "O3": ["--iree-opt-level=O3", "--iree-opt-data-tiling"]}

#: iree-compile's diagnostics are cut to this many characters: a model may
#: fail on each of its ops, and the first errors say what the others do.
DIAGNOSTIC_CHARS = 4000

# "failed to legalize operation 'torch.aten.histc'"; for a 'torch.operator'
# (an ONNX node or an ATen op IREE's torch dialect does not define), the op
# it stands for: `"torch.operator"(%0) <{name = "onnx.Frobnicate"}>`.
_FAILED_OP = re.compile(
    r"failed to legalize operation '([\w.]+)'"
    r"(?:[^\n]*?\{name = \"([\w.]+)\"\})?"
)


class IreeCompileError(Exception):
    """iree-compile failed: the message is its diagnostics; `ops` names the
    operations it could not legalize."""

    def __init__(self, diagnostics: str):
        super().__init__(diagnostics[:DIAGNOSTIC_CHARS])
        self.ops = list(
            dict.fromkeys(operator or op for op, operator in _FAILED_OP.findall(diagnostics))
        )


class Iree(Compiler):
    """Compiled by the iree-compile binary, in a process of its own: its
    diagnostics come on its stderr (IREE's in-process API only prints them),
    for ~50 ms more per compilation."""

    takes = ("torch", "onnx")

    @classmethod
    def variants(cls) -> List[Optional[str]]:
        """`iree` with iree-compile's defaults; `iree:O3` at its best settings."""
        return list(_VARIANT_FLAGS)

    def setup(self, threads: int) -> None:
        try:
            import iree.compiler  # noqa: F401  (`compile` needs both packages)
            import iree.runtime
        except ImportError:
            raise Unsupported(f"IREE is not installed: {_INSTALL}") from None
        # The local-task driver starts as many workers as these process-wide
        # flags say when it is created, here (`Config`), once per process.
        # A set count: by default it takes one per physical core, fewer
        # threads than the other compilers on a machine with SMT.
        iree.runtime.flags.parse_flags(f"--task_topology_group_count={threads}")
        self._config = iree.runtime.Config("local-task")

    def compile(self, case: Case, form: str):
        from iree import runtime

        with tempfile.TemporaryDirectory(prefix="lh-suite-iree-") as folder:
            source = os.path.join(folder, "input.mlir")
            if form == "torch":
                import torch

                # As for lighthouse: torch.export's failures are a stage of
                # their own, shared by the compilers taking exported programs.
                self.stage = "export"
                program = torch.export.export(case.form("torch"), tuple(to_torch(case.inputs)))
                self.stage = "import"
                dtypes = _import_torch(program, source)
            else:
                self.stage = "import"
                dtypes = _import_onnx(case.form("onnx"), folder, source)
            self.stage = "compile"
            vmfb = _iree_compile(folder, "input.mlir", form, _VARIANT_FLAGS[self.variant])
        module = runtime.VmModule.copy_buffer(self._config.vm_instance, vmfb)
        context = runtime.SystemContext(vm_modules=[module], config=self._config)
        # The module's one entry point, beside its initializer (`__init`) and,
        # from torch IR, its asynchronous form (`main$async`, taking fences).
        entry = next(
            name
            for name in module.function_names
            if not name.startswith("__") and not name.endswith("$async")
        )
        function = context.modules[module.name][entry]

        def run(inputs):
            results = function(*inputs)
            if results is None:
                return []
            results = results if isinstance(results, tuple) else (results,)
            return [
                _as_declared(result.to_host(), dtypes[index] if index < len(dtypes) else None)
                if isinstance(result, runtime.DeviceArray)
                else result
                for index, result in enumerate(results)
            ]

        return run

    def failed_ops(self, error: BaseException) -> List[str]:
        return list(getattr(error, "ops", []) or [])


def _as_declared(result: np.ndarray, dtype: Optional[np.dtype]) -> np.ndarray:
    """`result` in the type the model declares: IREE's integers are signless,
    and it returns a uint8 result as int8 (the same bytes)."""
    if (
        dtype is not None
        and dtype.kind == "u"
        and result.dtype.kind == "i"
        and dtype.itemsize == result.dtype.itemsize
    ):
        return result.view(dtype)
    return result


def _import_torch(program, path: str) -> Sequence[Optional[np.dtype]]:
    """Writes the torch-dialect IR of an exported program to `path`, as MLIR
    bytecode; returns the dtypes of its results (None where unknown).

    The program takes the decompositions lighthouse applies (torch-mlir's),
    its state is frozen as lighthouse freezes it (buffers of every kind,
    tensors in lists), and IREE's copy of torch-mlir's FX importer imports
    it: the IR is built by the MLIR and the torch dialect that iree-compile
    has (lighthouse's import, printed and parsed, gives iree-compile the
    same results)."""
    import torch
    from iree.compiler import ir
    from iree.compiler.extras.fx_importer import FxImporter

    from lighthouse.ingress.torch.program import frozen
    from lighthouse.ingress.torch import export

    program = export(program)
    importer = FxImporter(context=ir.Context())
    importer.import_graph_module(frozen(program), func_name="main")
    with open(path, "wb") as f:
        importer.module.operation.write_bytecode(f)
    # The function's results are the graph's outputs, in order.
    dtypes = []
    for node in program.graph.output_node().args[0]:
        value = getattr(node, "meta", {}).get("val")
        try:
            dtypes.append(torch.empty(0, dtype=value.dtype).numpy().dtype)
        except (AttributeError, TypeError):  # Not a tensor, or not a numpy dtype.
            dtypes.append(None)
    return dtypes


def _import_onnx(model: Union[bytes, Path], folder: str, path: str) -> Sequence[Optional[np.dtype]]:
    """Writes the torch-dialect IR of an ONNX model (its bytes, or the path of
    one with its weights beside it) to `path` as `iree-import-onnx model.onnx
    -o path` does (ONNX's checker and shape inference, then the import), in
    this process; returns the dtypes of the graph's outputs (None for those
    that are not tensors)."""
    import onnx
    from iree.compiler.tools.import_onnx.__main__ import main, parse_arguments

    if isinstance(model, Path):
        model_path = str(model)
        graph = onnx.load(model_path, load_external_data=False).graph
    else:
        model_path = os.path.join(folder, "model.onnx")
        with open(model_path, "wb") as f:
            f.write(model)
        graph = onnx.load_from_string(model).graph
    main(parse_arguments([model_path, "-o", path]))
    dtypes = []
    for output in graph.output:
        try:
            dtypes.append(onnx.helper.tensor_dtype_to_np_dtype(output.type.tensor_type.elem_type))
        except KeyError:  # Not a tensor, or of no known type.
            dtypes.append(None)
    return dtypes


def _iree_compile(folder: str, source: str, form: str, flags: Sequence[str] = ()) -> bytes:
    """The VM module iree-compile makes of `folder/source`, with `flags` besides
    `_FLAGS`."""
    from iree.compiler.tools.binaries import find_tool

    # Run in the folder, so that diagnostics locate ops in `input.mlir:4:10`
    # rather than in a temporary folder whose name changes with every run.
    process = subprocess.run(
        [
            find_tool("iree-compile"),
            source,
            f"--iree-input-type={form}",
            *_FLAGS,
            *flags,
            "-o",
            "module.vmfb",
        ],
        cwd=folder,
        capture_output=True,
        text=True,
        errors="replace",
    )
    if process.returncode < 0:  # A crash: its stack dump follows.
        try:
            cause = signal.Signals(-process.returncode).name
        except ValueError:
            cause = f"signal {-process.returncode}"
        raise Crashed(
            f"iree-compile died of {cause}\n{process.stderr.strip()}"[:DIAGNOSTIC_CHARS], cause
        )
    if process.returncode != 0:
        raise IreeCompileError(
            process.stderr.strip() or f"iree-compile exited with {process.returncode}"
        )
    with open(os.path.join(folder, "module.vmfb"), "rb") as f:
        return f.read()
