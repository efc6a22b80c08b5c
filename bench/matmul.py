"""f32 matmul throughput: lighthouse's compiled code vs torch eager, next to
the machine's peak, in one run.

    .venv/bin/python bench/matmul.py [--pipeline default] [--sizes 256 512 1024 2048]
"""

import argparse
import time

import _common
import models
import numpy as np
import torch

from lighthouse.compiler import compile_module



def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pipeline", default="default")
    parser.add_argument("--sizes", type=int, nargs="+", default=[256, 512, 1024, 2048])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    peak, _ = _common.peak_gflops()
    print(_common.describe_machine())
    print(f"torch {torch.__version__} ({torch.get_num_threads()} threads); "
          f"lighthouse pipeline {args.pipeline!r}")
    # Each library runs its own thread pool; measured in separate phases (all of
    # torch's sizes, then all of lighthouse's) so that neither measures while
    # the other's threads still wait for work.
    operands, torch_gflops, lighthouse_gflops = {}, {}, {}
    for n in args.sizes:
        rng = np.random.default_rng(n)
        operands[n] = (rng.standard_normal((n, n), dtype=np.float32),
                       rng.standard_normal((n, n), dtype=np.float32))
        ta, tb = (torch.from_numpy(x) for x in operands[n])
        seconds = _common.median_seconds(lambda: torch.mm(ta, tb), args.runs, warmup=1)
        torch_gflops[n] = 2 * n ** 3 / seconds / 1e9
    time.sleep(1)
    for n in args.sizes:
        a, b = operands[n]
        compiled = compile_module(models.matmul_mlir(n, n, n), pipeline=args.pipeline)
        np.testing.assert_allclose(compiled(a, b), a @ b, rtol=1e-3, atol=1e-2)
        seconds = _common.median_seconds(lambda: compiled(a, b), args.runs, warmup=1,
                                         budget=30)
        lighthouse_gflops[n] = 2 * n ** 3 / seconds / 1e9
    print(f"  {'n':>5} {'lighthouse':>11} {'torch':>9} {'lh/torch':>9} {'lh/peak':>8} "
          f"{'torch/peak':>11}   (GFLOPS)")
    for n in args.sizes:
        lh, th = lighthouse_gflops[n], torch_gflops[n]
        print(f"  {n:5d} {lh:11.2f} {th:9.2f} {lh / th:9.3f} {lh / peak:8.3f} {th / peak:11.3f}")


if __name__ == "__main__":
    main()
