"""Compile latency: lighthouse.compile vs torch.compile (inductor) on the same
models and inputs, measured in one run.

    .venv/bin/python bench/compile_latency.py [--pipeline default]

"lighthouse" compiles as lighthouse.compile does by default; "unrolled"
with unroll_loops=True (LLVM unrolls loops: slower to compile).

Seconds from the model to its first result, compilation included, two ways:
  cold: each compilation in a fresh process, as a script that compiles once
        sees it (each tool pays its one-time set-up; imports are not counted);
  warm: in one process, after each tool compiled another model first.
Inductor's on-disk caches point at an empty folder and its graph cache is
off, so that it compiles rather than loads.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

# Before torch is imported: inductor must not reuse kernels from earlier runs.
os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="inductor-")
os.environ["TORCHINDUCTOR_FX_GRAPH_CACHE"] = "0"

import _common  # noqa: E402
import models  # noqa: E402
import torch  # noqa: E402

import lighthouse  # noqa: E402

TOOLS = ("lighthouse", "unrolled", "inductor")


def warm_up_model():
    """A model unlike the measured ones, so that no tool reuses its work."""
    module = torch.nn.Sequential(torch.nn.Linear(5, 3), torch.nn.Tanh())
    return "warm-up", module, (torch.randn(7, 5),), None


def first_result_seconds(tool: str, name: str, pipeline: str) -> float:
    """Compiles the test model `name` with `tool` and calls it once."""
    _, module, inputs, dynamic_shapes = next(
        m for m in [*models.torch_models(), warm_up_model()] if m[0] == name)
    start = time.perf_counter()
    if tool in ("lighthouse", "unrolled"):
        lighthouse.compile(module, inputs, dynamic_shapes=dynamic_shapes, pipeline=pipeline,
                           unroll_loops=tool == "unrolled")(*inputs)
    else:
        torch._dynamo.reset()
        with torch.no_grad():
            torch.compile(module, backend="inductor",
                          dynamic=dynamic_shapes is not None)(*inputs)
    return time.perf_counter() - start


def cold_seconds(tool: str, name: str, pipeline: str) -> float:
    """first_result_seconds in a fresh process."""
    output = subprocess.run(
        [sys.executable, __file__, "--one", tool, name, "--pipeline", pipeline],
        check=True, capture_output=True, text=True,
        env={**os.environ, "TORCHINDUCTOR_CACHE_DIR": tempfile.mkdtemp(prefix="inductor-")})
    return json.loads(output.stdout.splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pipeline", default="default")
    parser.add_argument("--one", nargs=2, metavar=("TOOL", "MODEL"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(first_result_seconds(*args.one, args.pipeline)))
        return
    print(_common.describe_machine())
    print(f"seconds from the model to its first result; lighthouse pipeline {args.pipeline!r}")
    names = [m[0] for m in models.torch_models()]
    # Warm: each tool's one-time set-up done on another model first.
    for tool in TOOLS:
        first_result_seconds(tool, "warm-up", args.pipeline)
    warm = {(tool, name): first_result_seconds(tool, name, args.pipeline)
            for name in names for tool in TOOLS}
    cold = {(tool, name): cold_seconds(tool, name, args.pipeline)
            for name in names for tool in TOOLS}
    print(f"  {'model':18} {'':>4} {'lighthouse':>11} {'unrolled':>10} {'inductor':>9} "
          f"{'lh/inductor':>12} {'unrolled/inductor':>18}")
    for name in names:
        for label, seconds in (("cold", cold), ("warm", warm)):
            lh, unrolled, inductor = (seconds[tool, name] for tool in TOOLS)
            print(f"  {name:18} {label:>4} {lh:11.2f} {unrolled:10.2f} {inductor:9.2f} "
                  f"{lh / inductor:12.2f} {unrolled / inductor:18.2f}")


if __name__ == "__main__":
    main()
