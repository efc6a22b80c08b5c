"""What lighthouse's run-time checks of sizes and indices cost: each model
compiled with them (the default) and with `runtime_checks=False`, on the same
pipeline and inputs, the two timed side by side in one run.

    .venv/bin/python bench/runtime_checks.py [--pipeline default,loops] [--rounds 15]
        [--threads N] [--models NAME,...]

Models: the `models` corpus of lh-suite (ResNet-18, BERT-wide encoder
layers, MLPs, 3-D and transposed convolutions, MobileNet blocks, LSTM, GRU,
a normalization block and lighthouse's small test models), the test models
it does not hold (the dynamic-batch MLP, torch's TransformerEncoderLayer),
two of the corpus's models with a dynamic batch, an embedding and a gather
`x[i]` on a large table: with static shapes most checks fold away, dynamic
sizes and gathered indices keep some.

Both compilations must give the eager outputs, within the corpus's
tolerance; `|on-off|` is the largest difference between the two. Times are
medians of single calls, the two variants taking turns (lh-suite's timing),
on `--threads` threads: OpenMP's (lighthouse's code) and torch's.
"checks" counts the calls of lighthouseRuntimeCheckFailed left in the
code handed to the JIT, with the checks and without: torch-mlir's own
asserts are there either way. "same code": the two compilations gave the
same LLVM dialect IR, so that their on/off shows only the noise. Each
pipeline's table ends with the geometric mean of on/off and with the checks
its models keep, by message, on and off.
"""

import argparse
import collections
import math
import os
import re
import sys
import time


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--pipeline", default="default,loops", help="pipelines to compile with, comma-separated"
    )
    parser.add_argument(
        "--rounds", type=int, default=15, help="turns each variant takes; the median is printed"
    )
    parser.add_argument(
        "--threads", type=int, default=os.cpu_count() or 1, help="threads (default: the cores)"
    )
    parser.add_argument(
        "--budget", type=float, default=60.0, help="seconds of timing per model at most"
    )
    parser.add_argument("--models", default="", help="only these models, comma-separated")
    return parser.parse_args()


ARGS = arguments()
# Before torch and lighthouse load their OpenMP runtimes, which read it once.
os.environ["OMP_NUM_THREADS"] = str(ARGS.threads)

import _common  # noqa: E402
import models  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

import lighthouse  # noqa: E402
from lighthouse.suite.corpora import models as corpus  # noqa: E402
from lighthouse.suite.timing import interleaved_seconds  # noqa: E402

CHECK_CALL = "llvm.call @lighthouseRuntimeCheckFailed("


class Embedding(torch.nn.Module):
    """Token embeddings of a 50000-word vocabulary, 256 wide."""

    def __init__(self):
        super().__init__()
        self.table = torch.nn.Embedding(50000, 256)

    def forward(self, ids):
        return self.table(ids)


class Gather(torch.nn.Module):
    """Rows of a table given as an input."""

    def forward(self, x, i):
        return x[i]


def corpus_model(name, dynamic_batch=False):
    """A case of the `models` corpus: its module, inputs, eager outputs and,
    with `dynamic_batch`, a dynamic first size and inputs to export with."""
    case = corpus.Models().load(name)
    dynamic, example = None, case.inputs
    if dynamic_batch:
        dynamic = tuple({0: torch.export.Dim("batch", min=1, max=1024)} for _ in case.inputs)
        # torch.export takes a size of 1 for a constant: the example has 2.
        example = [np.concatenate([x, x]) if x.shape[0] == 1 else x for x in case.inputs]
    return case.form("torch"), case.inputs, dynamic, case.expected(), example


def test_model(name):
    """A model of test/models.py at its example inputs."""
    found = [*models.torch_models(), *models.larger_torch_models()]
    _, module, inputs, dynamic = next(m for m in found if m[0] == name)
    return module, [x.numpy() for x in inputs], dynamic, None, None


def embedding():
    ids = torch.randint(0, 50000, (8, 128), generator=torch.Generator().manual_seed(0))
    return models.seeded(Embedding()), [ids.numpy()], None, None, None


def gather():
    generator = torch.Generator().manual_seed(0)
    table = torch.randn(50000, 256, generator=generator)
    rows = torch.randint(0, 50000, (1024,), generator=generator)
    return Gather(), [table.numpy(), rows.numpy()], None, None, None


def model_builders():
    """name: a function building (module, inputs, dynamic shapes, expected
    outputs or None, inputs to export with or None), one model at a time so
    that only one is in memory."""
    builders = {
        case.name: (lambda n=case.name: corpus_model(n)) for case in corpus.Models().cases()
    }
    for name in ("mlp_dynamic_batch", "encoder_layer"):
        builders[name] = lambda n=name: test_model(n)
    for name in ("mlp_b32", "encoder_layers_256"):
        builders[f"{name}_dynamic"] = lambda n=name: corpus_model(n, dynamic_batch=True)
    builders["embedding"] = embedding
    builders["gather"] = gather
    return builders


def check_messages(llvm_ir: str) -> collections.Counter:
    """The checks left in `llvm_ir`, counted by message with its source
    location left out (message globals are found through the addressof of
    each call's argument, function by function)."""
    texts = dict(re.findall(r'llvm\.mlir\.global private constant @(\S+)\("(.*?)\\00"\)', llvm_ir))
    counts = collections.Counter()
    for function in re.split(r"\bllvm\.func\b", llvm_ir)[1:]:
        addresses = dict(re.findall(r"(%\w+) = llvm\.mlir\.addressof @(\S+) :", function))
        for argument in re.findall(re.escape(CHECK_CALL) + r"(%\w+)\)", function):
            message = texts.get(addresses.get(argument), "?")
            # Without the source location, and one line for all operands.
            message = re.sub(r" at \S+:\d+(:\d+)?", "", message)
            counts[re.sub(r"#\d+", "#n", message)] += 1
    return counts


def code_of(llvm_ir: str) -> collections.Counter:
    """The lines of `llvm_ir` with values and blocks unnamed, without the
    module attribute that turned the checks off: equal for the same code
    whose ops were created in another order."""
    text = re.sub(r"(, )?lighthouse\.runtime_checks = false", "", llvm_ir, count=1)
    text = text.replace("attributes {, ", "attributes {", 1).replace(
        "module attributes {} {", "module {", 1
    )
    return collections.Counter(re.sub(r"[%^][\w.]+", "%", line) for line in text.splitlines())


def compiled_pair(module, example, dynamic, pipeline, name):
    """The model compiled with and without checks, the checks each keeps and
    whether the two are the same code (their on/off is then noise)."""
    compiled, checks, code = {}, {}, {}
    arguments = tuple(torch.from_numpy(x) for x in example)
    for variant in ("on", "off"):
        # Whole lines: the lowering process writes to the same stream.
        print(f"  {name} ({pipeline}): compiling, checks {variant}", file=sys.stderr, flush=True)
        start = time.perf_counter()
        compiled[variant] = lighthouse.compile(
            module,
            arguments,
            dynamic_shapes=dynamic,
            pipeline=pipeline,
            runtime_checks=variant == "on",
            dump_ir=True,
        )
        seconds = time.perf_counter() - start
        print(f"  {name} ({pipeline}): compiled in {seconds:.1f} s", file=sys.stderr, flush=True)
        checks[variant] = check_messages(compiled[variant].ir["llvm"])
        code[variant] = code_of(compiled[variant].ir["llvm"])
        compiled[variant].ir.clear()  # The IR holds the weights as text.
    return compiled, checks, code["on"] == code["off"]


def outputs(compiled, inputs):
    result = compiled(*inputs)
    return [np.asarray(x) for x in (result if isinstance(result, tuple) else (result,))]


def measure(name, build, pipeline, notes):
    """Compiles, checks and times one model; returns its row's figures."""
    module, inputs, dynamic, expected, example = build()
    if expected is None:
        expected = outputs(module, tuple(torch.from_numpy(x) for x in inputs))
    compiled, checks, same = compiled_pair(module, example or inputs, dynamic, pipeline, name)
    results = {variant: outputs(compiled[variant], inputs) for variant in compiled}
    for variant, result in results.items():
        for got, want in zip(result, expected):
            np.testing.assert_allclose(
                got, want, rtol=corpus.RTOL, atol=corpus.ATOL, err_msg=f"{name}, checks {variant}"
            )
    difference = max(
        float(np.max(np.abs(a.astype(np.float64) - b), initial=0.0))
        for a, b in zip(results["on"], results["off"])
    )
    print(f"  {name} ({pipeline}): timing", file=sys.stderr, flush=True)
    timed = interleaved_seconds(
        {variant: lambda c=compiled[variant]: c(*inputs) for variant in compiled},
        ARGS.rounds,
        ARGS.budget,
    )
    if sum(checks["on"].values()):
        notes[name] = checks
    spread = max(timed[v]["spread"] or 0.0 for v in timed)
    return timed["on"]["median"], timed["off"]["median"], spread, checks, same, difference


def print_header():
    print(
        f"  {'model':28} {'pipeline':>8} {'on (ms)':>10} {'off (ms)':>10} {'on/off':>7} "
        f"{'spread':>7} {'checks on':>9} {'off':>4} {'same code':>9} {'|on-off|':>9}"
    )


def run_pipeline(pipeline, builders):
    print(f"\npipeline {pipeline!r}: median latency, checks on and off")
    print_header()
    ratios, notes = [], {}
    for name, build in builders.items():
        try:
            on, off, spread, checks, same, difference = measure(name, build, pipeline, notes)
        except Exception as error:  # One model's failure must not end the run.
            message = " ".join(str(error).split())
            print(f"  {name:28} {pipeline:>8} failed: {type(error).__name__}: {message}"[:240])
            continue
        ratios.append(on / off)
        print(
            f"  {name:28} {pipeline:>8} {on * 1e3:10.3f} {off * 1e3:10.3f} {on / off:7.3f} "
            f"{spread:7.1%} {sum(checks['on'].values()):9} {sum(checks['off'].values()):4} "
            f"{'yes' if same else 'no':>9} {difference:9.1e}",
            flush=True,
        )
    if ratios:
        geomean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"  geometric mean of on/off over {len(ratios)} models: {geomean:.3f}")
    if notes:
        print("  checks kept, by message: with checks on / off")
        for name, checks in notes.items():
            print(f"    {name}:")
            for message, count in checks["on"].most_common():
                print(f"      {count:4} / {checks['off'][message]:<4} {message}")


@torch.no_grad()  # eager references, as the compiled code computes
def main():
    torch.set_num_threads(ARGS.threads)
    print(_common.describe_machine())
    print(
        f"torch {torch.__version__}, lighthouse {lighthouse.__version__}; "
        f"{ARGS.threads} thread(s): OMP_NUM_THREADS={os.environ['OMP_NUM_THREADS']}, "
        f"torch.get_num_threads()={torch.get_num_threads()}; rounds {ARGS.rounds}"
    )
    print(
        "spread: interquartile range of the calls over their median, the larger "
        "of on's and off's; checks: lighthouseRuntimeCheckFailed calls in the code; "
        "same code: the LLVM dialect IR of on and off is the same"
    )
    builders = model_builders()
    if ARGS.models:
        wanted = ARGS.models.split(",")
        unknown = sorted(set(wanted) - set(builders))
        if unknown:
            sys.exit(f"unknown model(s) {', '.join(unknown)}; the models are {', '.join(builders)}")
        builders = {name: builders[name] for name in wanted}
    for pipeline in ARGS.pipeline.split(","):
        run_pipeline(pipeline, builders)


if __name__ == "__main__":
    main()
