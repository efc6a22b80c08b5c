"""lighthouse's command-line tools: `lh-opt` and `lh-run`."""

import argparse
import os
import runpy
import statistics
import sys
import time

RUN_DESCRIPTION = """\
Compile a model to native code with lighthouse and run it.

  lh-run model.mlir                  linalg-on-tensors IR: runs @main on random
                                     inputs made from its signature
  lh-run model.mlir --input x.npy    ... on the arrays saved in .npy files, in
                                     the order of the function's arguments
  lh-run model.py                    a Python file that defines `model` (a
                                     torch.nn.Module) and `example_inputs` (a
                                     tuple of tensors): compiles it, runs it,
                                     and compares with eager PyTorch

Prints the results and the seconds each compilation stage took.
"""


def _run_binary(tool: str):
    package = os.path.dirname(os.path.dirname(__file__))
    binary = os.path.join(package, "_mlir_libs", tool)
    os.execv(binary, [tool, *sys.argv[1:]])


def opt():
    """lh-opt: MLIR's opt driver with lighthouse's dialects, passes and pipelines."""
    _run_binary("lh-opt")


def _random_inputs(compiled, dynamic_size: int):
    import numpy as np

    rng = np.random.default_rng(0)
    inputs = []
    for dtype, shape in compiled.arguments:
        shape = [dynamic_size if d is None else d for d in shape]
        if dtype.kind == "f":
            inputs.append(rng.standard_normal(shape).astype(dtype))
        else:
            inputs.append(rng.integers(0, 4, size=shape).astype(dtype))
    return inputs


def _compile_and_inputs(args):
    from ..compiler import compile as compile_torch
    from ..compiler import compile_module

    if args.model.endswith(".py"):
        namespace = runpy.run_path(args.model)
        missing = [name for name in ("model", "example_inputs") if name not in namespace]
        if missing:
            raise SystemExit(f"lh-run: {args.model} must define {' and '.join(missing)}")
        model, inputs = namespace["model"], tuple(namespace["example_inputs"])
        compiled = compile_torch(
            model,
            inputs,
            dynamic_shapes=namespace.get("dynamic_shapes"),
            pipeline=args.pipeline,
            dump_ir=args.dump_ir,
            unroll_loops=args.unroll_loops,
        )
        return compiled, inputs, model
    from .. import ir
    from ..compiler.explain import parse_text

    with open(args.model, "rb") as f:
        source = f.read()
    with ir.Context():
        # Parsed here, so that errors in the text name the file.
        module = parse_text(source, args.model, filename=args.model)
    compiled = compile_module(
        module,
        args.function,
        pipeline=args.pipeline,
        dump_ir=args.dump_ir,
        unroll_loops=args.unroll_loops,
    )
    if args.input:
        import numpy as np

        inputs = [np.load(path) for path in args.input]
    else:
        inputs = _random_inputs(compiled, args.dynamic_size)
    return compiled, inputs, None


def run(argv=None):
    """lh-run: compile a model with lighthouse and run it."""
    parser = argparse.ArgumentParser(
        prog="lh-run",
        description=RUN_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("model", help="a .mlir file (linalg on tensors) or a .py file")
    parser.add_argument(
        "--function", default="main", help="the function of a .mlir file to run (default: main)"
    )
    parser.add_argument(
        "--pipeline",
        default="default",
        help="'default', 'loops', a plugin's pipeline, or 'builtin.module(...)'",
    )
    parser.add_argument(
        "--input",
        action="append",
        metavar="FILE.npy",
        help="an argument's value, once per argument, in order",
    )
    parser.add_argument(
        "--dynamic-size",
        type=int,
        default=4,
        help="size of dynamic dimensions of random inputs (default: 4)",
    )
    parser.add_argument(
        "--repeat", type=int, default=10, help="runs to time after the first (default: 10)"
    )
    parser.add_argument("--dump-ir", metavar="DIR", help="write the IR of each stage to DIR")
    parser.add_argument(
        "--unroll-loops",
        action="store_true",
        help="let LLVM unroll loops: compiles slower, may run faster",
    )
    args = parser.parse_args(argv)
    if not os.path.isfile(args.model):
        parser.error(f"no such file: {args.model}")

    from ..errors import CompileError
    from ..errors import IngressError
    from ..ir import MLIRError

    try:
        compiled, inputs, model = _compile_and_inputs(args)
        results = compiled(*inputs)
    except (
        CompileError,
        IngressError,
        MLIRError,
        ValueError,
        TypeError,
        NotImplementedError,
        MemoryError,
    ) as error:
        print(f"lh-run: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    outputs = results if isinstance(results, tuple) else (results,)
    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        compiled(*inputs)
        times.append(time.perf_counter() - start)

    print(f"compiled: {compiled.signature()}")
    for index, output in enumerate(outputs):
        print(f"result {index}: {tuple(output.shape)} {output.dtype}\n{output}")
    if model is not None:
        import torch

        with torch.no_grad():
            expected = model(*inputs)
        expected = expected if isinstance(expected, tuple) else (expected,)
        difference = max(float((o - e).abs().max()) for o, e in zip(outputs, expected))
        print(f"max |lighthouse - eager PyTorch|: {difference:.3g}")
    print(
        "seconds per stage: "
        + ", ".join(f"{stage} {seconds:.3f}" for stage, seconds in compiled.timings.items())
    )
    if times:
        print(f"run: median {statistics.median(times) * 1e3:.3f} ms over {len(times)} runs")
    return 0


def run_main():
    sys.exit(run())
