"""Linear layers of a few rows (matrix-vector products at batch 1, a few rows
at batch 2-8): lighthouse's bandwidth in reading the weight next to eager
PyTorch's, onnxruntime's and the machine's, measured in one run, interleaved.

    OMP_NUM_THREADS=T .venv/bin/python bench/matvec.py [--batches 1 4] [--shapes 2048x2048 4096x1024]

Such a layer reads its weight once and does 2 flops per weight per row: its
speed is the rate at which it reads the weight, in GB/s. Two STREAM-like
copies are timed in the same rounds, their bytes read plus written: one of
the weight's size (from the cache level the weight is read from: a few MB
stay in L3) and one of 256 MB (memory). Threads: OMP_NUM_THREADS for
lighthouse, torch and onnxruntime alike.
"""

import argparse
import io
import os

import _common
import numpy as np
import torch

import lighthouse


def onnxruntime_session(layer, x, threads):
    """The layer exported to ONNX in an onnxruntime session of `threads`
    threads, or None when onnxruntime is not installed."""
    try:
        import onnxruntime
    except ImportError:
        return None
    exported = io.BytesIO()
    torch.onnx.export(layer, (x,), exported, dynamo=False)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(
        exported.getvalue(), options, providers=["CPUExecutionProvider"]
    )
    name = session.get_inputs()[0].name
    feed = {name: x.numpy()}
    return lambda: session.run(None, feed)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 4])
    parser.add_argument(
        "--shapes",
        nargs="+",
        default=["2048x2048", "1024x4096", "4096x1024", "768x3072"],
        help="in x out features of each Linear layer",
    )
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    threads = int(os.environ.get("OMP_NUM_THREADS", os.cpu_count() or 1))
    torch.set_num_threads(threads)
    print(_common.describe_machine())
    print(f"{threads} thread(s); GB/s of the weight read, medians of {args.rounds} rounds")
    memory = np.ones(64 << 20, dtype=np.float32)
    memory_copy = np.empty_like(memory)
    header = (
        f"  {'batch':>5} {'in x out':>10} {'lighthouse':>11} {'eager':>7} {'onnxrt':>7} "
        f"{'copy':>7} {'copy 256MB':>11}  lighthouse/copy"
    )
    print(header)
    for batch in args.batches:
        for shape in args.shapes:
            inputs, outputs = (int(size) for size in shape.split("x"))
            torch.manual_seed(0)
            layer = torch.nn.Linear(inputs, outputs).eval()
            x = torch.randn(batch, inputs)
            compiled = lighthouse.compile(layer, (x,))
            with torch.no_grad():
                torch.testing.assert_close(compiled(x), layer(x), rtol=1e-4, atol=1e-4)
            weight = np.ones(inputs * outputs, dtype=np.float32)
            weight_copy = np.empty_like(weight)
            functions = {
                "lighthouse": lambda: compiled(x),
                "eager": lambda: layer(x),
                "copy": lambda: np.copyto(weight_copy, weight),
                "memory": lambda: np.copyto(memory_copy, memory),
            }
            session = onnxruntime_session(layer, x, threads)
            if session:
                functions["onnxruntime"] = session
            with torch.no_grad():
                seconds = _common.interleaved_seconds(functions, rounds=args.rounds, budget=20)
            rate = {name: weight.nbytes / value / 1e9 for name, value in seconds.items()}
            rate["copy"] *= 2
            rate["memory"] = 2 * memory.nbytes / seconds["memory"] / 1e9
            print(
                f"  {batch:5d} {shape:>10} {rate['lighthouse']:11.1f} {rate['eager']:7.1f} "
                f"{rate.get('onnxruntime', float('nan')):7.1f} {rate['copy']:7.1f} "
                f"{rate['memory']:11.1f}  {rate['lighthouse'] / rate['copy']:15.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
