"""Latency of the test MLP and CNN, batch 1 to 64: lighthouse's compiled code
vs eager PyTorch vs onnxruntime, on the same inputs, in one run.

    .venv/bin/python bench/model_latency.py [--pipeline default] [--rounds 15] [--calls 20]
"""

import argparse
import io

import _common
import models
import numpy as np
import torch

import lighthouse

BATCHES = (1, 2, 4, 8, 16, 32, 64)


def onnxruntime_session(module, example):
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = torch.get_num_threads()
    data = models.exported_onnx(module, (example,), dynamic_batch=True)
    return onnxruntime.InferenceSession(data, options, providers=["CPUExecutionProvider"])


@torch.no_grad()  # eager inference, as the compiled code does
def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pipeline", default="default")
    parser.add_argument("--rounds", type=int, default=15,
                        help="turns each runtime takes; the median is printed")
    parser.add_argument("--calls", type=int, default=20, help="calls per turn")
    args = parser.parse_args()
    print(_common.describe_machine())
    print(f"torch {torch.__version__} ({torch.get_num_threads()} threads); lighthouse "
          f"{lighthouse.__version__}, pipeline {args.pipeline!r}")
    specs = {
        "mlp": (models.seeded(models.MLP()), (16,)),
        "cnn": (models.seeded(models.SmallCNN()), (3, 16, 16)),
    }
    for name, (module, feature_shape) in specs.items():
        example = torch.randn(2, *feature_shape)
        batch = torch.export.Dim("batch", min=1, max=1024)
        compiled = lighthouse.compile(module, (example,), dynamic_shapes={"x": {0: batch}},
                                      pipeline=args.pipeline)
        session = onnxruntime_session(module, example)
        print(f"\n{name}: median latency in microseconds")
        print(f"  {'batch':>5} {'lighthouse':>11} {'torch':>9} {'onnxrt':>9} "
              f"{'torch/lh':>9} {'ort/lh':>7}")
        for size in BATCHES:
            x = torch.randn(size, *feature_shape, generator=torch.Generator().manual_seed(size))
            x_numpy = x.numpy()
            expected = module(x)
            np.testing.assert_allclose(compiled(x_numpy), expected.numpy(), rtol=1e-4,
                                       atol=1e-4)
            seconds = _common.interleaved_seconds(
                {"lighthouse": lambda: compiled(x_numpy),
                 "torch": lambda: module(x),
                 "onnxrt": lambda: session.run(None, {"input0": x_numpy})},
                rounds=args.rounds, calls=args.calls)
            lighthouse_s, torch_s, ort_s = seconds.values()
            print(f"  {size:5d} {lighthouse_s * 1e6:11.1f} {torch_s * 1e6:9.1f} "
                  f"{ort_s * 1e6:9.1f} {torch_s / lighthouse_s:9.2f} {ort_s / lighthouse_s:7.2f}")


if __name__ == "__main__":
    main()
