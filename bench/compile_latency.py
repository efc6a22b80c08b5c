"""Compile latency: lighthouse.compile vs torch.compile (inductor) on the same
models and inputs, measured in one run.

    .venv/bin/python bench/compile_latency.py [--pipeline default] [--repeat 1]
        [--models torchvision:resnet50,transformers:bert@layers=12,mlp]

The models are the test models (test/models.py) by default; `--models`
names some of them, or real models as `corpus:case` of the test bench's
`torchvision` and `transformers` corpora (random weights, their inputs;
`lighthouse[zoo]`).

"lighthouse" compiles as lighthouse.compile does by default; "unrolled"
with unroll_loops=True (LLVM unrolls loops: slower to compile).

Seconds from the model to its first result, compilation included, each in a
fresh process, two ways (`import torch` and `import lighthouse` are not
counted; what each tool imports when it first compiles, lighthouse's
compiler and torch-mlir, torch._inductor, is):
  cold: the process compiles nothing else first, as a script that compiles
        once sees it (each tool pays its one-time set-up);
  warm: the same tool compiled another model first in that process;
  cached: an earlier process compiled the same model with the tool's cache
        on (lighthouse's `cache_dir`, inductor's on-disk caches and FX
        graph cache in a folder both processes share), as a script run
        again sees it.
Every measurement has a process of its own, so that no tool reuses what
another filled in torch's per-op caches; with --repeat N, each figure is the
median of N such processes, the tools taking turns. "torch.export" is the part of
lighthouse's time spent in torch.export and its decompositions (lighthouse's
way in for a torch model); "lh own" is the rest: import, lowering, pipeline,
JIT and the first call.
Cold and warm, inductor's on-disk caches point at an empty folder and its
graph cache is off, so that it compiles rather than loads.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

# Before torch is imported: inductor must not reuse kernels from earlier runs
# (a folder of each process's own, removed when it exits), but for a cached
# measurement (`--cache DIR`), whose caches are DIR's.
if "--cache" in sys.argv:
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(
        sys.argv[sys.argv.index("--cache") + 1], "inductor"
    )
    os.environ["TORCHINDUCTOR_FX_GRAPH_CACHE"] = "1"
else:
    _INDUCTOR_CACHE = tempfile.TemporaryDirectory(prefix="inductor-")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = _INDUCTOR_CACHE.name
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


def model(name: str):
    """The test model `name`, or the case `case` of the corpus `corpus` for
    `corpus:case[@option=value...]` (`transformers:bert@layers=12`), as (name,
    module, inputs, dynamic shapes)."""
    if ":" not in name:
        return next(m for m in [*models.torch_models(), warm_up_model()] if m[0] == name)
    from lighthouse.suite.plugins import create_corpus

    corpus, case_name = name.split(":", 1)
    case_name, *settings = case_name.split("@")
    declared = type(create_corpus(corpus)).options
    options = dict(setting.split("=", 1) for setting in settings)
    options = {key: declared[key].type(value) for key, value in options.items()}
    case = create_corpus(corpus, **options).load(case_name)
    inputs = tuple(torch.as_tensor(x) for x in case.inputs)
    return name, case.form("torch"), inputs, case.torch_dynamic_shapes()


def first_result(tool: str, name: str, pipeline: str, cache: str = None) -> dict:
    """Compiles the model `name` with `tool` (lighthouse's cache in `cache`
    if given) and calls it once: the seconds it took, and for lighthouse
    those spent in torch.export."""
    _, module, inputs, dynamic_shapes = model(name)
    start = time.perf_counter()
    if tool in ("lighthouse", "unrolled"):
        compiled = lighthouse.compile(
            module,
            inputs,
            dynamic_shapes=dynamic_shapes,
            pipeline=pipeline,
            unroll_loops=tool == "unrolled",
            cache_dir=cache and os.path.join(cache, "lighthouse"),
        )
        compiled(*inputs)
        export = compiled.timings.get("export", 0.0)
    else:
        torch._dynamo.reset()
        with torch.no_grad():
            torch.compile(module, backend="inductor", dynamic=dynamic_shapes is not None)(*inputs)
        export = None
    return {"seconds": time.perf_counter() - start, "export": export}


def measure(tool: str, name: str, pipeline: str, label: str) -> dict:
    """first_result in a fresh process: after the warm-up model if `label`
    is "warm"; after another process filled the caches if "cached"."""
    command = [sys.executable, __file__, "--one", tool, name, "--pipeline", pipeline]
    if label == "warm":
        command.append("--warm")
    with tempfile.TemporaryDirectory(prefix="compile-latency-") as cache:
        if label == "cached":
            command += ["--cache", cache]
            run(command)
        return run(command)


def run(command) -> dict:
    output = subprocess.run(command, capture_output=True, text=True)
    if output.returncode:
        sys.exit(f"{' '.join(command)} failed:\n{output.stderr}")
    return json.loads(output.stdout.splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pipeline", default="default")
    parser.add_argument(
        "--repeat", type=int, default=1, help="processes per figure, of which the median is shown"
    )
    parser.add_argument(
        "--models",
        help="comma-separated test models and corpus:case real models (default: the test models)",
    )
    parser.add_argument("--one", nargs=2, metavar=("TOOL", "MODEL"), help=argparse.SUPPRESS)
    parser.add_argument("--warm", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--cache", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        if args.warm:
            first_result(args.one[0], "warm-up", args.pipeline)
        print(json.dumps(first_result(*args.one, args.pipeline, args.cache)))
        return
    print(_common.describe_machine())
    print(f"seconds from the model to its first result; lighthouse pipeline {args.pipeline!r}")
    print(
        f"  {'model':18} {'':>6} {'lighthouse':>11} {'torch.export':>13} {'lh own':>7} "
        f"{'unrolled':>9} {'inductor':>9} {'lh/inductor':>12} {'own/inductor':>13} "
        f"{'unrolled/inductor':>18}"
    )
    names = args.models.split(",") if args.models else [m[0] for m in models.torch_models()]
    for name in names:
        for label in ("cold", "warm", "cached"):
            runs = {tool: [] for tool in TOOLS}
            for _ in range(args.repeat):
                for tool in TOOLS:
                    runs[tool].append(measure(tool, name, args.pipeline, label))
            median = {tool: statistics.median(r["seconds"] for r in runs[tool]) for tool in TOOLS}
            export = statistics.median(r["export"] for r in runs["lighthouse"])
            own = statistics.median(r["seconds"] - r["export"] for r in runs["lighthouse"])
            lh, unrolled, inductor = (median[tool] for tool in TOOLS)
            print(
                f"  {name:18} {label:>6} {lh:11.2f} {export:13.2f} {own:7.2f} "
                f"{unrolled:9.2f} {inductor:9.2f} {lh / inductor:12.2f} "
                f"{own / inductor:13.2f} {unrolled / inductor:18.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
