"""LLVM loop unrolling: what it costs at compile time and buys at run time.

    .venv/bin/python bench/llvm_unrolling.py [--pipeline default] [--rounds 15] [--calls 20]

For each test model, compiled with unroll_loops=True and False in one
process (after a warm-up model): the JIT's seconds (LLVM's optimization and
code generation), and the median latency of a call, both measured in
alternating turns.
"""

import argparse

import _common
import models
import torch

import lighthouse


def jit_seconds(compiled) -> float:
    return compiled.timings["jit"] + compiled.timings["jit-lookup"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pipeline", default="default")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--calls", type=int, default=20)
    args = parser.parse_args()
    print(_common.describe_machine())
    print(f"pipeline {args.pipeline!r}; JIT in seconds, calls in microseconds (median)")
    torch.set_grad_enabled(False)
    warm_up = torch.nn.Sequential(torch.nn.Linear(5, 3), torch.nn.Tanh())
    lighthouse.compile(warm_up, (torch.randn(7, 5),))
    print(
        f"  {'model':18} {'jit unrolled':>13} {'not':>6} {'ratio':>6} "
        f"{'call unrolled':>14} {'not':>8} {'ratio':>6}"
    )
    for name, module, inputs, dynamic in models.torch_models():
        compiled = {
            unroll: lighthouse.compile(
                module, inputs, dynamic_shapes=dynamic, pipeline=args.pipeline, unroll_loops=unroll
            )
            for unroll in (True, False)
        }
        expected = module(*inputs)
        for function in compiled.values():
            torch.testing.assert_close(function(*inputs), expected, rtol=1e-4, atol=1e-4)
        arrays = [i.numpy() for i in inputs]
        calls = _common.interleaved_seconds(
            {unroll: (lambda f=f: f(*arrays)) for unroll, f in compiled.items()},
            rounds=args.rounds,
            calls=args.calls,
        )
        jit = {unroll: jit_seconds(f) for unroll, f in compiled.items()}
        print(
            f"  {name:18} {jit[True]:13.2f} {jit[False]:6.2f} {jit[False] / jit[True]:6.2f} "
            f"{calls[True] * 1e6:14.1f} {calls[False] * 1e6:8.1f} "
            f"{calls[False] / calls[True]:6.2f}"
        )


if __name__ == "__main__":
    main()
