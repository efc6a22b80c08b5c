"""What a dynamic batch costs the default pipeline: a Linear block over a batch of
sequences (relu(Linear(d, d)(x)) + x, x of shape [batch, rows, d]) compiled
with static shapes and with a dynamic batch, timed side by side with eager
PyTorch in one run.

    .venv/bin/python bench/dynamic_batch.py [--threads 1] [--rounds 30]

The dynamic batch makes the matmul's M a count known at run time: its rows
are tiled for the registers only, and its elementwise consumers are not
computed per block of C (`docs/compile.md`, "Contractions"). Shapes cover
a row count that is a multiple of the register tile's 8 (whole tiles) and
one that is not (a partial tile). Times are medians of single calls, the
variants taking turns, on `--threads` threads (OpenMP's and torch's).
"""

import argparse
import os

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--threads", type=int, default=1, help="threads (default: 1)")
parser.add_argument("--rounds", type=int, default=30, help="turns each variant takes")
ARGS = parser.parse_args()
# Before torch and lighthouse load their OpenMP runtimes, which read it once.
os.environ["OMP_NUM_THREADS"] = str(ARGS.threads)

import _common  # noqa: E402
import torch  # noqa: E402

import lighthouse  # noqa: E402

# (features, rows a sequence, batch): BERT-base's width over 128 tokens, a
# partial register tile (127 rows), and a narrow block of 16-row sequences.
SHAPES = [(64, 16, 64), (256, 127, 8), (768, 128, 4)]


class ResidualLinear(torch.nn.Module):
    def __init__(self, features):
        super().__init__()
        self.linear = torch.nn.Linear(features, features)

    def forward(self, x):
        return torch.relu(self.linear(x)) + x


def main():
    torch.set_num_threads(ARGS.threads)
    pipeline = f"builtin.module(lighthouse-cpu{{threads={ARGS.threads}}})"
    print(_common.describe_machine())
    print(f"{ARGS.threads} thread(s); ratio = eager's time / the variant's (above 1: faster)")
    print(f"{'features x rows x batch':>24} {'eager ms':>9} {'static':>14} {'dynamic':>14}")
    for features, rows, batch in SHAPES:
        torch.manual_seed(0)
        module = ResidualLinear(features).eval()
        x = torch.randn(batch, rows, features)
        static = lighthouse.compile(module, (x,), pipeline=pipeline)
        dynamic = lighthouse.compile(
            module, (x,), dynamic_shapes={"x": {0: torch.export.Dim("batch")}}, pipeline=pipeline
        )
        with torch.no_grad():
            expected = module(x)
            for compiled in (static, dynamic):
                torch.testing.assert_close(compiled(x), expected, rtol=1e-4, atol=1e-4)
            seconds = _common.interleaved_seconds(
                {
                    "eager": lambda: module(x),
                    "static": lambda: static(x),
                    "dynamic": lambda: dynamic(x),
                },
                ARGS.rounds,
            )
        eager = seconds["eager"]
        cells = [
            f"{seconds[k] * 1e3:6.3f} ({eager / seconds[k]:.2f}x)" for k in ("static", "dynamic")
        ]
        print(
            f"{f'{features} x {rows} x {batch}':>24} {eager * 1e3:9.3f} {cells[0]:>14} {cells[1]:>14}"
        )


if __name__ == "__main__":
    main()
