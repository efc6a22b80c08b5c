"""Where lighthouse.compile spends its time and memory, stage by stage.

    .venv/bin/python bench/compile_breakdown.py [--pipeline default]
        [--models torchvision:resnet50,transformers:bert,mlp]

Each model compiles in a fresh process (its first compile there: the
one-time imports of torch.export's and torch-mlir's machinery count in the
first stages). For each, the seconds of each stage of `compiled.timings`:
torch.export and its decompositions, the import into MLIR, torch-mlir's
lowering to linalg, lighthouse's pipeline, then the JIT's own steps
(translation to LLVM IR, LLVM's optimization and code generation summed
over the parts it compiles on threads, the weights' object file, loading)
and the first lookup (linking); then the process's peak resident memory at
the end of each stage (`compiled.peak_rss`) against the model's weights.
The models are the test models (test/models.py) or real models as
`corpus:case` of the test bench's `torchvision` and `transformers` corpora.
"""

import argparse
import json
import subprocess
import sys

import _common
import compile_latency

import lighthouse

DEFAULT_MODELS = (
    "torchvision:resnet18,torchvision:resnet50,torchvision:vit_b_16,"
    "torchvision:mobilenet_v3_small,torchvision:efficientnet_b0,transformers:bert,mlp"
)
STAGES = ("export", "import", "lower-to-linalg", "pipeline", "jit", "jit-lookup")
#: The stages' names in the tables' headings.
HEADINGS = ("export", "import", "lower", "pipeline", "jit", "lookup")
JIT_STEPS = ("translate", "split", "optimize", "codegen", "weights", "load")


def breakdown(name: str, pipeline: str) -> dict:
    """Compiles `name` in this process: its timings, peak RSS and weights."""
    _, module, inputs, dynamic_shapes = compile_latency.model(name)
    weights = sum(t.numel() * t.element_size() for t in module.state_dict().values())
    compiled = lighthouse.compile(module, inputs, dynamic_shapes=dynamic_shapes, pipeline=pipeline)
    return {"timings": compiled.timings, "peak_rss": compiled.peak_rss, "weights": weights}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pipeline", default="default")
    parser.add_argument("--models", default=DEFAULT_MODELS, help="comma-separated models")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(breakdown(args.one, args.pipeline)))
        return
    print(_common.describe_machine())
    print(f"lighthouse.compile, pipeline {args.pipeline!r}, seconds by stage")
    print(
        f"  {'model':32}"
        + "".join(f"{s:>10}" for s in (*HEADINGS, "total"))
        + "   jit: "
        + "".join(f"{s:>10}" for s in JIT_STEPS)
    )
    memory = []
    for name in args.models.split(","):
        command = [sys.executable, __file__, "--one", name, "--pipeline", args.pipeline]
        output = subprocess.run(command, capture_output=True, text=True)
        if output.returncode:
            print(f"  {name:32} failed: {output.stderr.strip().splitlines()[-1]}", flush=True)
            continue
        result = json.loads(output.stdout.splitlines()[-1])
        timings = result["timings"]
        print(
            f"  {name:32}"
            + "".join(f"{timings.get(s, 0.0):10.2f}" for s in STAGES)
            + f"{sum(timings.get(s, 0.0) for s in STAGES):10.2f}"
            + "        "
            + "".join(f"{timings.get('jit.' + s, 0.0):10.2f}" for s in JIT_STEPS),
            flush=True,
        )
        memory.append((name, result))
    print("peak resident memory (GB) at the end of each stage, and the weights")
    print(f"  {'model':32}" + "".join(f"{s:>10}" for s in (*HEADINGS, "weights")))
    for name, result in memory:
        peak = result["peak_rss"]
        print(
            f"  {name:32}"
            + "".join(f"{peak.get(s, 0) / 1e9:10.2f}" for s in STAGES)
            + f"{result['weights'] / 1e9:10.2f}"
        )


if __name__ == "__main__":
    main()
