"""The test bench's `operators` corpus: its cases cover every operator family,
each builds a deterministic float32 case whose eager reference has the shapes
the problem declares, and cases run end to end through lh-suite."""

import collections
import os
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="needs lighthouse[torch] (build_tools/setup.sh installs it)"
)

from lighthouse.suite.corpora.operators import (  # noqa: E402
    CONTRACTION,
    ELEMENTWISE,
    FAMILIES,
    PROBABILITIES,
    REDUCTION,
    Operators,
    output_shapes,
)
from lighthouse.suite.records import read_results  # noqa: E402

CASES = Operators().cases()


def test_lists_at_least_70_cases_over_every_family():
    names = [info.name for info in CASES]
    assert len(names) >= 70 and len(set(names)) == len(names)
    families = collections.Counter(info.tags["family"] for info in CASES)
    assert sorted(families) == sorted(FAMILIES)
    assert min(families.values()) >= 5, families
    assert all(set(info.tags) == {"family", "op"} for info in CASES)
    # Listing is deterministic: the runner lists, workers build by name.
    assert [info.name for info in Operators().cases()] == names


@pytest.mark.parametrize("family", FAMILIES)
def test_cases_build_and_their_references_have_the_declared_shapes(family):
    """Every case of the family: float32 inputs, a float32 module in eval mode,
    the listed tags, one of the corpus's tolerances, and a finite reference
    of the shapes the problem declares."""
    corpus = Operators()
    for info in CASES:
        if info.tags["family"] != family:
            continue
        case = corpus.load(info.name)
        assert case.tags == info.tags, info.name
        assert case.inputs and all(x.dtype == np.float32 for x in case.inputs), info.name
        module = case.form("torch")
        assert not module.training, info.name
        assert all(p.dtype == torch.float32 for p in module.parameters()), info.name
        assert (case.rtol, case.atol) in (CONTRACTION, REDUCTION, PROBABILITIES, ELEMENTWISE)
        outputs = case.expected()
        assert [x.shape for x in outputs] == output_shapes(info.name), info.name
        for output in outputs:
            assert output.dtype in (np.float32, np.int64), info.name
            if output.dtype == np.float32:
                assert np.all(np.isfinite(output)), info.name


def test_cases_are_deterministic():
    """The same inputs, weights and reference in any process: built twice here."""
    first, second = (Operators().load("linear_gelu.bert-128x768x3072") for _ in range(2))
    np.testing.assert_array_equal(first.inputs[0], second.inputs[0])
    np.testing.assert_array_equal(first.expected()[0], second.expected()[0])
    # Weights of variance 1/fan-in keep outputs of order 1.
    assert 0.1 < first.expected()[0].std() < 10


def test_unknown_case_is_an_error():
    with pytest.raises(ValueError, match="no case 'conv9d'"):
        Operators().load("conv9d")


def test_cases_run_through_lighthouse_and_eager(tmp_path):
    """Two cases through lh-suite, untimed: a matmul and a fused convolution
    chain, through lighthouse's default pipeline and eager PyTorch."""
    output = tmp_path / "operators.jsonl"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "lighthouse.suite.cli",
            "run",
            "--corpus",
            "operators",
            "--compiler",
            "lighthouse:default,eager",
            "--only",
            r"^(matmul\.512x512x512|conv_bn_relu\.resnet-3x3-64x56x56)$",
            "--threads",
            "1",
            "--no-timing",
            "-o",
            str(output),
        ],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    records = read_results(str(output))[1]
    assert len(records) == 4
    for record in records:
        assert record["status"] == "pass", record
    by_case = {r["case"]: r for r in records if r["compiler"] == "lighthouse:default"}
    assert by_case["matmul.512x512x512"]["tags"] == {"family": "matmul", "op": "matmul"}
    assert by_case["conv_bn_relu.resnet-3x3-64x56x56"]["max_abs_error"] < CONTRACTION[1]
