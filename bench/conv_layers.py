"""A torchvision model's convolutions one by one: each distinct Conv2d, with
the input it gets in the model, compiled alone by lighthouse and run next to
onnxruntime's session of the same layer, interleaved, in one run; the layers
sorted by what they cost lighthouse over onnxruntime in the whole model.

    OMP_NUM_THREADS=T .venv/bin/python bench/conv_layers.py resnet18 [--top 12]

Each layer is timed as a model of its own, a call's overhead included on
both sides (a few microseconds each): the sums are an upper bound of what the
convolutions cost in the model. Needs torchvision and onnxruntime
(`lighthouse[zoo]`, `lighthouse[suite]`).
"""

import argparse
import collections
import io
import os

import _common
import torch

import lighthouse
from lighthouse.suite.corpora.torchvision import import_torchvision


def distinct_convolutions(model, image):
    """Each distinct (input shape, Conv2d configuration) of `model` run on
    `image`, with how many times the model runs it."""
    seen = collections.Counter()
    hooks = []

    def record(module, inputs, output):
        seen[
            (
                tuple(inputs[0].shape),
                module.in_channels,
                module.out_channels,
                module.kernel_size,
                module.stride,
                module.padding,
                module.dilation,
                module.groups,
            )
        ] += 1

    for module in model.modules():
        if isinstance(module, torch.nn.Conv2d):
            hooks.append(module.register_forward_hook(record))
    with torch.no_grad():
        model(image)
    for hook in hooks:
        hook.remove()
    return seen


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", help="a torchvision classification model, e.g. resnet18")
    parser.add_argument("--size", type=int, default=224, help="image height and width")
    parser.add_argument("--top", type=int, default=12, help="layers listed by cost")
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    import onnxruntime

    threads = int(os.environ.get("OMP_NUM_THREADS", os.cpu_count() or 1))
    torch.set_num_threads(threads)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    torchvision = import_torchvision()
    torch.manual_seed(0)
    model = getattr(torchvision.models, args.model)(weights=None).eval()
    layers = distinct_convolutions(model, torch.randn(1, 3, args.size, args.size))
    print(_common.describe_machine())
    print(f"{args.model}: {len(layers)} distinct convolutions, {threads} thread(s)")
    rows = []
    for (shape, cin, cout, kernel, stride, padding, dilation, groups), count in layers.items():
        conv = torch.nn.Conv2d(cin, cout, kernel, stride, padding, dilation, groups).eval()
        x = torch.randn(shape)
        compiled = lighthouse.compile(conv, (x,))
        exported = io.BytesIO()
        torch.onnx.export(conv, (x,), exported, dynamo=False)
        session = onnxruntime.InferenceSession(
            exported.getvalue(), options, providers=["CPUExecutionProvider"]
        )
        feed = {session.get_inputs()[0].name: x.numpy()}
        with torch.no_grad():
            expected = conv(x)
        torch.testing.assert_close(compiled(x), expected, rtol=1e-4, atol=1e-4)
        seconds = _common.interleaved_seconds(
            {"lighthouse": lambda: compiled(x), "onnxruntime": lambda: session.run(None, feed)},
            rounds=args.rounds,
            budget=6,
        )
        flops = 2 * expected.numel() * (cin // groups) * kernel[0] * kernel[1]
        name = (
            f"{cin}->{cout} {kernel[0]}x{kernel[1]} s{stride[0]} d{dilation[0]} g{groups} "
            f"on {shape[2]}x{shape[3]}"
        )
        rows.append((name, count, seconds["lighthouse"], seconds["onnxruntime"], flops))
        print(
            f"  {name:40s} x{count}: lighthouse {seconds['lighthouse'] * 1e6:8.1f} us "
            f"({flops / seconds['lighthouse'] / 1e9:5.1f} GFLOPS), onnxruntime "
            f"{seconds['onnxruntime'] * 1e6:8.1f} us, ratio "
            f"{seconds['onnxruntime'] / seconds['lighthouse']:.2f}",
            flush=True,
        )
    lighthouse_ms = sum(count * lh for _, count, lh, _, _ in rows) * 1e3
    onnxruntime_ms = sum(count * ort for _, count, _, ort, _ in rows) * 1e3
    print(
        f"all convolutions: lighthouse {lighthouse_ms:.2f} ms, onnxruntime "
        f"{onnxruntime_ms:.2f} ms, onnxruntime / lighthouse {onnxruntime_ms / lighthouse_ms:.2f}"
    )
    print("where lighthouse loses most (ms over onnxruntime in the model):")
    by_loss = sorted(rows, key=lambda row: row[1] * (row[3] - row[2]))
    for name, count, lh, ort, _ in by_loss[: args.top]:
        print(f"  {count * (lh - ort) * 1e3:7.2f}  {name} x{count}")


if __name__ == "__main__":
    main()
