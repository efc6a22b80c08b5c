"""Times each step of bringing the test transformer block (and the other test
models) into lighthouse, side by side with torch.export itself, in one run.

    .venv/bin/python bench/ingress_steps.py [--runs N]

Steps: torch.export; torch-mlir's decompositions as lighthouse applies them,
and through torch's public ExportedProgram.run_decompositions for comparison;
FX import into a lighthouse
context (torch-mlir's importer on lighthouse's bindings); lowering (IR to text,
torch-mlir's pipelines on its own MLIR, text back into lighthouse); ONNX
export + import + lowering for comparison.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "test"))

import models  # noqa: E402
import torch  # noqa: E402

from lighthouse import ir  # noqa: E402
from lighthouse.ingress.torch import fx_decomp_util  # noqa: E402
from lighthouse.ingress import onnx as onnx_ingress  # noqa: E402
from lighthouse.ingress import torch as torch_ingress  # noqa: E402
from lighthouse.ingress.torch_mlir import name_torch_operators  # noqa: E402


def timed(function):
    start = time.perf_counter()
    result = function()
    return result, time.perf_counter() - start


def measure(module, inputs, dynamic_shapes):
    """Seconds of each step, once."""
    steps = {}
    exported, steps["torch.export"] = timed(
        lambda: torch.export.export(module, inputs, dynamic_shapes=dynamic_shapes)
    )
    program, steps["decompositions (lighthouse)"] = timed(lambda: torch_ingress.export(exported))
    _, steps["decompositions (run_decompositions)"] = timed(
        lambda: exported.run_decompositions(fx_decomp_util.get_decomposition_table())
    )
    with ir.Context() as context:
        from lighthouse.extras.fx_importer import FxImporter

        def fx_import():
            importer = FxImporter(context=context)
            importer.import_frozen_program(program)
            return name_torch_operators(importer.module)

        raw, steps["FX import (lighthouse context)"] = timed(fx_import)
        _, steps["lower to linalg (torch-mlir)"] = timed(lambda: torch_ingress.lower_to_linalg(raw))
        onnx_bytes, steps["ONNX export (torch.onnx)"] = timed(
            lambda: models.exported_onnx(module, inputs)
        )
        import onnx

        onnx_raw, steps["ONNX import (lighthouse context)"] = timed(
            lambda: onnx_ingress.import_model(onnx.load_from_string(onnx_bytes))
        )
        try:
            _, steps["ONNX lower to linalg (torch-mlir)"] = timed(
                lambda: onnx_ingress.lower_to_linalg(onnx_raw)
            )
        except onnx_ingress.LoweringError as error:
            steps["ONNX lower to linalg (torch-mlir)"] = f"fails: cannot lower {error.ops}"
    return steps


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    torch.set_num_threads(1)
    for name, module, inputs, dynamic_shapes in models.torch_models():
        measure(module, inputs, dynamic_shapes)  # warm caches and lazy imports
        runs = [measure(module, inputs, dynamic_shapes) for _ in range(args.runs)]
        export_time = statistics.median(r["torch.export"] for r in runs)
        print(f"\n{name} (median of {args.runs} runs)")
        print(f"  {'step':40} {'ms':>9} {'/ torch.export':>15}")
        for step, first in runs[0].items():
            if isinstance(first, str):
                print(f"  {step:40} {first}")
                continue
            seconds = statistics.median(r[step] for r in runs)
            print(f"  {step:40} {seconds * 1e3:9.1f} {seconds / export_time:15.2f}")


if __name__ == "__main__":
    main()
