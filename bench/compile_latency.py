"""Compile latency: lighthouse.compile vs torch.compile (inductor) on the same
models and inputs, measured in one run (each compilation from a fresh start,
inductor's on-disk caches pointed at an empty folder and its graph cache off).

    .venv/bin/python bench/compile_latency.py [--pipeline default]
"""

import argparse
import os
import tempfile
import time

# Before torch is imported: inductor must not reuse kernels from earlier runs.
os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="inductor-")
os.environ["TORCHINDUCTOR_FX_GRAPH_CACHE"] = "0"

import _common  # noqa: E402
import models  # noqa: E402
import torch  # noqa: E402

import lighthouse  # noqa: E402


def first_call_seconds(compile_and_call):
    start = time.perf_counter()
    compile_and_call()
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pipeline", default="default")
    args = parser.parse_args()
    print(_common.describe_machine())
    print("seconds from the model to its first result (compilation included)")
    print(f"  {'model':18} {'lighthouse':>11} {'inductor':>9} {'lh/inductor':>12}")
    for name, module, inputs, dynamic_shapes in models.torch_models():
        lighthouse_s = first_call_seconds(lambda: lighthouse.compile(
            module, inputs, dynamic_shapes=dynamic_shapes, pipeline=args.pipeline)(*inputs))
        torch._dynamo.reset()
        with torch.no_grad():
            inductor_s = first_call_seconds(
                lambda: torch.compile(module, backend="inductor",
                                      dynamic=dynamic_shapes is not None)(*inputs))
        print(f"  {name:18} {lighthouse_s:11.2f} {inductor_s:9.2f} "
              f"{lighthouse_s / inductor_s:12.2f}")


if __name__ == "__main__":
    main()
