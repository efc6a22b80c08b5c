"""lighthouse itself, one variant per pipeline: `lighthouse:default`,
`lighthouse:loops`, and every pipeline an installed plugin declares."""

from pathlib import Path
from typing import List, Optional

from ..case import Case, Crashed, to_torch
from ..plugins import Compiler


class Lighthouse(Compiler):
    """`lighthouse.compile` for torch modules, `compile_onnx` for ONNX models,
    `compile_module` for linalg IR."""

    takes = ("torch", "onnx", "mlir")

    def __init__(self, variant: Optional[str] = None):
        super().__init__(variant or "default")

    @classmethod
    def variants(cls) -> List[str]:
        from lighthouse import plugins
        from lighthouse.compiler import PIPELINES

        return sorted(set(PIPELINES) | set(plugins.pipeline_names()))

    def compile(self, case: Case, form: str):
        from lighthouse.ingress import LoweringCrash

        try:
            return self._compile(case, form)
        except LoweringCrash as crash:
            # torch-mlir's process died: a crash of this compiler, recorded as
            # when the worker dies. A time limit stays a compile error.
            if crash.time_limit is not None:
                raise
            raise Crashed(str(crash), crash.signal) from None

    def _compile(self, case: Case, form: str):
        import lighthouse
        from lighthouse.compiler import compile_module

        if form == "torch":
            from lighthouse.ingress.torch import export

            # torch.export's failures apart from lighthouse's: PyTorch's
            # exporter is a stage every compiler taking exported programs
            # shares. They arrive as lighthouse's ExportError.
            self.stage = "export"
            program = export(
                case.form("torch"),
                tuple(to_torch(case.inputs)),
                dynamic_shapes=case.torch_dynamic_shapes(),
                decompositions={},
            )
            self.stage = "compile"
            compiled = lighthouse.compile(program, pipeline=self.variant)
        elif form == "onnx":
            import onnx

            model = case.form("onnx")
            compiled = lighthouse.compile_onnx(
                str(model) if isinstance(model, Path) else onnx.load_from_string(model),
                pipeline=self.variant,
            )
        else:
            compiled = compile_module(case.form("mlir"), pipeline=self.variant)
        return lambda inputs: compiled(*inputs)

    def failed_ops(self, error: BaseException) -> List[str]:
        return list(getattr(error, "ops", []) or [])


class LighthouseOnnx(Lighthouse):
    """`lighthouse.compile_onnx` of a case's ONNX form (a torch case's through
    `torch.onnx.export`): the path of a model a user exported to ONNX."""

    takes = ("onnx",)


class LighthouseDynamo(Lighthouse):
    """`torch.compile(model, backend=...)` with lighthouse's backend, compiled
    (on the first call) within `compile`. A graph lighthouse compiles only in
    parts is recorded with the ops run eagerly (`eager_ops`)."""

    takes = ("torch",)

    def _compile(self, case: Case, form: str):
        import torch

        from lighthouse.torch_backend import Backend

        from .torch import compiled_by_dynamo

        backend = Backend(pipeline=self.variant)
        function = compiled_by_dynamo(case, backend=backend)

        def run(inputs):
            with torch.no_grad():
                return function(*to_torch(inputs))

        eager = sorted({op for graph in backend.graphs for op in graph.eager_ops})
        if eager:
            self.notes["eager_ops"] = eager
        return run
