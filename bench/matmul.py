"""f32 matmul throughput: lighthouse's compiled code vs torch eager, next to
the machine's peak, in one run.

    .venv/bin/python bench/matmul.py [--pipeline default] [--sizes 256 512 1024 2048]
                                     [--bias-relu]

With --bias-relu, the layer relu(A @ B + bias) (torch: relu(addmm)), whose
bias and ReLU the default pipeline computes inside the matmul's loops.
"""

import argparse

import _common
import models
import numpy as np
import torch

from lighthouse.compiler import compile_module


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pipeline", default="default")
    parser.add_argument("--sizes", type=int, nargs="+", default=[256, 512, 1024, 2048])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument(
        "--bias-relu", action="store_true", help="time relu(A @ B + bias) instead of A @ B"
    )
    args = parser.parse_args()
    peak, _ = _common.peak_gflops()
    print(_common.describe_machine())
    print(
        f"torch {torch.__version__} ({torch.get_num_threads()} threads); "
        f"lighthouse pipeline {args.pipeline!r}"
    )
    lighthouse_gflops, torch_gflops = {}, {}
    for n in args.sizes:
        rng = np.random.default_rng(n)
        a, b = (rng.standard_normal((n, n), dtype=np.float32) for _ in range(2))
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        if args.bias_relu:
            bias = rng.standard_normal(n, dtype=np.float32)
            tbias = torch.from_numpy(bias)
            compiled = compile_module(models.matmul_bias_relu_mlir(n, n, n), pipeline=args.pipeline)
            np.testing.assert_allclose(
                compiled(a, b, bias), np.maximum(a @ b + bias, 0), rtol=1e-3, atol=1e-2
            )
            functions = {
                "lighthouse": lambda: compiled(a, b, bias),
                "torch": lambda: torch.relu(torch.addmm(tbias, ta, tb)),
            }
        else:
            compiled = compile_module(models.matmul_mlir(n, n, n), pipeline=args.pipeline)
            np.testing.assert_allclose(compiled(a, b), a @ b, rtol=1e-3, atol=1e-2)
            functions = {"lighthouse": lambda: compiled(a, b), "torch": lambda: torch.mm(ta, tb)}
        seconds = _common.interleaved_seconds(functions, rounds=args.runs, budget=60)
        lighthouse_gflops[n] = 2 * n**3 / seconds["lighthouse"] / 1e9
        torch_gflops[n] = 2 * n**3 / seconds["torch"] / 1e9
    print(
        f"  {'n':>5} {'lighthouse':>11} {'torch':>9} {'lh/torch':>9} {'lh/peak':>8} "
        f"{'torch/peak':>11}   (GFLOPS)"
    )
    for n in args.sizes:
        lh, th = lighthouse_gflops[n], torch_gflops[n]
        print(f"  {n:5d} {lh:11.2f} {th:9.2f} {lh / th:9.3f} {lh / peak:8.3f} {th / peak:11.3f}")


if __name__ == "__main__":
    main()
