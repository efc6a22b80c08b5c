"""Latency of the test MLP and CNN, batch 1 to 64, and of the larger test
models (a small ResNet, a transformer encoder layer) at their example inputs:
lighthouse's compiled code vs eager PyTorch vs onnxruntime, on the same
inputs, in one run.

    .venv/bin/python bench/model_latency.py [--pipeline default] [--rounds 15] [--calls 20]
"""

import argparse
import contextlib
import ctypes
import os
import sys

import _common
import models
import numpy as np
import torch

import lighthouse

BATCHES = (1, 2, 4, 8, 16, 32, 64)


def onnxruntime_session(data):
    """An onnxruntime session of the ONNX model `data`, on as many threads as torch."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = torch.get_num_threads()
    return onnxruntime.InferenceSession(data, options, providers=["CPUExecutionProvider"])


def print_header(label: str) -> None:
    print(
        f"  {label:>14} {'lighthouse':>11} {'torch':>9} {'onnxrt':>9} {'torch/lh':>9} {'ort/lh':>7}"
    )


def measure_row(label, runners, args, note: str = "") -> None:
    """Times `runners` (lighthouse, torch and, when there is one, onnxrt) in
    alternating turns and prints their medians and ratios."""
    seconds = _common.interleaved_seconds(runners, rounds=args.rounds, calls=args.calls)
    lighthouse_s, torch_s = seconds["lighthouse"], seconds["torch"]
    ort_s = seconds.get("onnxrt")
    ort = (
        (f"{ort_s * 1e6:9.1f}", f"{ort_s / lighthouse_s:7.2f}")
        if ort_s
        else (f"{'-':>9}", f"{'-':>7}")
    )
    print(
        f"  {label:>14} {lighthouse_s * 1e6:11.1f} {torch_s * 1e6:9.1f} {ort[0]} "
        f"{torch_s / lighthouse_s:9.2f} {ort[1]}{note}"
    )


@torch.no_grad()  # eager inference, as the compiled code does
def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pipeline", default="default")
    parser.add_argument(
        "--rounds", type=int, default=15, help="turns each runtime takes; the median is printed"
    )
    parser.add_argument("--calls", type=int, default=20, help="calls per turn")
    args = parser.parse_args()
    print(_common.describe_machine())
    print(
        f"torch {torch.__version__} ({torch.get_num_threads()} threads); lighthouse "
        f"{lighthouse.__version__}, pipeline {args.pipeline!r}"
    )
    specs = {
        "mlp": (models.seeded(models.MLP()), (16,)),
        "cnn": (models.seeded(models.SmallCNN()), (3, 16, 16)),
    }
    for name, (module, feature_shape) in specs.items():
        example = torch.randn(2, *feature_shape)
        batch = torch.export.Dim("batch", min=1, max=1024)
        compiled = lighthouse.compile(
            module, (example,), dynamic_shapes={"x": {0: batch}}, pipeline=args.pipeline
        )
        session = onnxruntime_session(models.exported_onnx(module, (example,), dynamic_batch=True))
        print(f"\n{name}: median latency in microseconds")
        print_header("batch")
        for size in BATCHES:
            x = torch.randn(size, *feature_shape, generator=torch.Generator().manual_seed(size))
            x_numpy = x.numpy()
            expected = module(x)
            np.testing.assert_allclose(compiled(x_numpy), expected.numpy(), rtol=1e-4, atol=1e-4)
            measure_row(
                size,
                {
                    "lighthouse": lambda: compiled(x_numpy),
                    "torch": lambda: module(x),
                    "onnxrt": lambda: session.run(None, {"input0": x_numpy}),
                },
                args,
            )
    larger_models(args)


@contextlib.contextmanager
def output_silenced():
    """Standard output, the file descriptor, to /dev/null (C++ prints too)."""
    libc = ctypes.CDLL(None)
    sys.stdout.flush()
    saved = os.dup(1)
    with open(os.devnull, "w") as devnull:
        os.dup2(devnull.fileno(), 1)
    try:
        yield
    finally:
        sys.stdout.flush()
        libc.fflush(None)  # What C and C++ buffered goes to /dev/null too.
        os.dup2(saved, 1)
        os.close(saved)


def larger_models(args):
    print("\nlarger models, at their example inputs: median latency in microseconds")
    print_header("model")
    for name, module, inputs, _ in models.larger_torch_models():
        compiled = lighthouse.compile(module, inputs, pipeline=args.pipeline)
        arrays = [i.numpy() for i in inputs]
        np.testing.assert_allclose(compiled(*arrays), module(*inputs).numpy(), rtol=1e-4, atol=1e-4)
        runners = {"lighthouse": lambda: compiled(*arrays), "torch": lambda: module(*inputs)}
        note = ""
        try:
            with output_silenced():  # The exporter prints its graph when it fails.
                data = models.exported_onnx(module, inputs)
            session = onnxruntime_session(data)
            runners["onnxrt"] = lambda: session.run(None, {"input0": arrays[0]})
        except torch.onnx.errors.UnsupportedOperatorError as error:
            note = f"  ({str(error).splitlines()[0]})"
        measure_row(name, runners, args, note)


if __name__ == "__main__":
    main()
