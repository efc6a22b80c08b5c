"""How compile time grows with the model: stacks of 1 to 16 transformer
blocks, with lighthouse's pipeline as it is and with its loop nests kept in
one function (lighthouse-outline-loop-nests off), in one run.

    .venv/bin/python bench/compile_scaling.py [--pipeline default] [--blocks 1,2,4,8,16]

Seconds of the pipeline and of the JIT (LLVM's optimization and code
generation), which are what the outlining changes (torch.export and the
import do not depend on it), the median of --repeat compilations, the two
variants taking turns; then the median latency of a call of each.
"""

import argparse
import re
import statistics

import _common
import models
import torch

import lighthouse
from lighthouse import ir
from lighthouse.passmanager import PassManager

PIPELINES = {"default": "lighthouse-cpu", "loops": "lighthouse-cpu-loops"}


def one_function_variant(pipeline: str) -> str:
    """`pipeline` spelled out, with every function kept whole."""
    with ir.Context():
        text = str(PassManager.parse(f"builtin.module({PIPELINES[pipeline]})"))
    variant, count = re.subn(r"nests-per-function=\d+", f"nests-per-function={2**62}", text)
    assert count == 1, f"no lighthouse-outline-loop-nests in {text}"
    return variant


def compile_seconds(compiled) -> float:
    return sum(compiled.timings[stage] for stage in ("pipeline", "jit", "jit-lookup"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pipeline", default="default", choices=sorted(PIPELINES))
    parser.add_argument("--blocks", default="1,2,4,8,16")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--calls", type=int, default=10)
    args = parser.parse_args()
    print(_common.describe_machine())
    torch.set_grad_enabled(False)
    variants = {"outlined": args.pipeline, "one function": one_function_variant(args.pipeline)}
    print(f"pipeline {args.pipeline!r}: pipeline + JIT in seconds, calls in microseconds")
    print(
        f"  {'blocks':>6} {'outlined':>9} {'one function':>13} "
        f"{'ratio':>6} {'call outlined':>14} {'one function':>13} {'ratio':>6}"
    )
    block = models.TransformerBlock
    inputs = (torch.randn(2, 8, 32, generator=torch.Generator().manual_seed(0)),)
    for count in (int(b) for b in args.blocks.split(",")):
        module = models.seeded(torch.nn.Sequential(*[block() for _ in range(count)]))
        program = torch.export.export(module, inputs)
        expected = module(*inputs)
        seconds = {name: [] for name in variants}
        compiled = {}
        for turn in range(args.repeat):
            order = list(variants.items())
            for name, pipeline in order if turn % 2 else reversed(order):
                compiled[name] = lighthouse.compile(program, inputs, pipeline=pipeline)
                seconds[name].append(compile_seconds(compiled[name]))
                torch.testing.assert_close(compiled[name](*inputs), expected, rtol=1e-4, atol=1e-4)
        arrays = [x.numpy() for x in inputs]
        calls = _common.interleaved_seconds(
            {name: (lambda f=f: f(*arrays)) for name, f in compiled.items()},
            rounds=args.rounds,
            calls=args.calls,
        )
        median = {name: statistics.median(s) for name, s in seconds.items()}
        print(
            f"  {count:6} {median['outlined']:9.2f} {median['one function']:13.2f} "
            f"{median['one function'] / median['outlined']:6.2f} "
            f"{calls['outlined'] * 1e6:14.1f} {calls['one function'] * 1e6:13.1f} "
            f"{calls['one function'] / calls['outlined']:6.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
