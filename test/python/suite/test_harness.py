"""lighthouse's compiler test bench (lighthouse.suite, lh-suite): the harness
with a corpus and a compiler of its own, installed as plugins (a crash, a
hang, a wrong result, errors), and lighthouse's own corpora and compilers on
a few real cases."""

import pytest
from example_packages import install_example
from toy_suite_plugin import by_case, lh_suite, run_toy

from lighthouse.suite.case import CaseInfo
from lighthouse.suite.expectations import read_expectations
from lighthouse.suite.records import read_results
from lighthouse.suite.runner import select_cases


@pytest.fixture(scope="module")
def toy_run(plugin_path, tmp_path_factory):
    output = tmp_path_factory.mktemp("run") / "toy.jsonl"
    result = run_toy(
        plugin_path,
        output,
        *("--timeout", "10", "--rounds", "3", "--budget", "0.5", "--toy-scale", "2"),
    )
    return output, result


def test_each_outcome_is_a_recorded_status(toy_run):
    output, _ = toy_run
    records = by_case(output, "toy")
    assert {case: r["status"] for case, r in records.items()} == {
        "good": "pass",
        "crash": "crash",
        "hang": "timeout",
        "wrong": "mismatch",
        "compile_error": "compile-error",
        "run_error": "run-error",
        "unsupported": "unsupported",
        "tool_crash": "crash",
        "crash_when_timed": "crash",
    }
    assert "while timed" in records["crash_when_timed"]["message"]
    assert records["tool_crash"]["signal"] == "SIGBUS"
    crash = records["crash"]
    assert crash["signal"] == "SIGSEGV"
    assert "toy: about to crash" in crash["stderr_tail"]
    assert "10 s" in records["hang"]["message"]
    assert records["compile_error"]["ops"] == ["toy.op"]
    assert records["compile_error"]["error_class"] == "ValueError"
    assert records["run_error"]["message"] == "toy ran out of toys"
    assert "elements outside rtol" in records["wrong"]["message"]
    assert records["wrong"]["max_abs_error"] == pytest.approx(10.0)  # 5 * 2 more than 20


def test_other_compilers_go_on_after_a_crash_or_hang(toy_run):
    output, _ = toy_run
    sound = by_case(output, "toy:sound")
    assert all(r["status"] == "pass" for r in sound.values()), sound
    # Timed on each case, its turns interleaved with the toy's where it passed,
    # but where the toy crashed while timed: its check stands, untimed.
    untimed = sound.pop("crash_when_timed")
    assert "call_seconds" not in untimed
    assert all(r["call_seconds"] > 0 and r["calls"] >= 3 for r in sound.values())
    assert "call_seconds" in by_case(output, "toy")["good"]


def test_run_record_and_progress(toy_run):
    output, result = toy_run
    runs, _ = read_results(str(output))
    assert runs[0]["compilers"] == ["toy", "toy:sound"] and runs[0]["timed"]
    assert runs[0]["threads"] >= 1
    assert "[9/9]" in result.stderr and "passed: toy 1/8 toy:sound 9/9" in result.stderr


def test_corpus_options_reach_the_worker(plugin_path, tmp_path):
    output = tmp_path / "scaled.jsonl"
    lh_suite(
        plugin_path,
        "run",
        "--corpus",
        "toy",
        "--compiler",
        "toy:sound",
        "--only",
        "^good$",
        "--no-timing",
        "--toy-scale",
        "0.5",
        "-o",
        str(output),
    )
    record = by_case(output, "toy:sound")["good"]
    assert record["status"] == "pass" and "call_seconds" not in record


def test_a_worker_over_the_memory_limit_is_killed_and_its_case_a_crash(plugin_path, tmp_path):
    # The toy grows to 2 GiB while it compiles, by 1.3 GiB a second; the
    # limit is 0.5 GiB: the runner, which reads it every second, kills the
    # worker before it holds much more, where the case would otherwise end in
    # the toy's error 10 s later. The next case runs on.
    output = tmp_path / "hoard.jsonl"
    common = ["--corpus", "toy", "--compiler", "toy", "--only", "^(good|wrong)$", "--no-timing"]
    lh_suite(plugin_path, "run", *common, "--toy-hoard", "2", "--memory", "0.5", "-o", str(output))
    records = by_case(output, "toy")
    for record in records.values():
        assert record["status"] == "crash"
        assert "over the limit of 0.5 GiB" in record["message"]
        assert 0.5 * 2**30 < record["resident_bytes"] < 2.5 * 2**30


def test_a_negative_memory_limit_is_refused(plugin_path, tmp_path):
    output = tmp_path / "refused.jsonl"
    result = run_toy(plugin_path, output, "--memory", "-1", compilers="toy", check=False)
    assert result.returncode != 0 and "--memory: -1 is negative" in result.stderr


def test_resume_skips_the_cases_done(plugin_path, tmp_path):
    output = tmp_path / "resumed.jsonl"
    common = ["run", "--corpus", "toy", "--compiler", "toy:sound", "--no-timing", "-o", str(output)]
    lh_suite(plugin_path, *common, "--only", "good|wrong")
    result = lh_suite(plugin_path, *common, "--resume")
    assert "7 cases" in result.stderr
    assert len(by_case(output, "toy:sound")) == 9


def test_expectations_gate(plugin_path, toy_run, tmp_path):
    output, _ = toy_run
    folder = tmp_path / "expected"
    lh_suite(plugin_path, "expect", str(output), "--into", str(folder))
    path = folder / "toy.toy.txt"
    expected = read_expectations(str(path))
    assert expected["good"] == ("pass", "", "")
    assert expected["crash"] == ("fail", "crash: SIGSEGV", "")
    assert expected["unsupported"].kind == "skip"
    assert expected["compile_error"] == ("fail", "compile-error: ValueError (toy.op)", "")
    # A person's note stays when the file is written again, the cause is anew.
    path.write_text(path.read_text().replace("crash: SIGSEGV", "crash: old  # a toy's bug"))
    lh_suite(plugin_path, "expect", str(output), "--into", str(folder))
    assert read_expectations(str(path))["crash"] == ("fail", "crash: SIGSEGV", "a toy's bug")
    # What passed is expected to pass: a run that fails it fails the gate.
    text = (folder / "toy.toy-sound.txt").read_text()
    (folder / "toy.toy.txt").write_text(text)
    result = lh_suite(
        plugin_path,
        "run",
        "--corpus",
        "toy",
        "--compiler",
        "toy",
        "--only",
        "wrong|good",
        "--no-timing",
        "--expect",
        str(folder),
        "-o",
        str(tmp_path / "gate.jsonl"),
        check=False,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "UNEXPECTED MISMATCH: toy wrong on toy" in result.stdout
    assert "1 unexpected failure(s)" in result.stdout


def test_list_shows_plugins(plugin_path):
    listed = lh_suite(plugin_path, "list").stdout
    assert "toy" in listed and "toy:sound" in listed and "lighthouse:loops" in listed
    cases = lh_suite(plugin_path, "list", "cases", "--corpus", "toy").stdout
    assert "hang  op=hang" in cases


def test_bad_arguments_are_clear_errors(plugin_path, tmp_path):
    result = lh_suite(
        plugin_path, "run", "--corpus", "nonesuch", "-o", str(tmp_path / "x.jsonl"), check=False
    )
    assert result.returncode == 2
    assert "unknown corpus 'nonesuch'" in result.stderr and "toy" in result.stderr
    result = lh_suite(
        plugin_path,
        "run",
        "--corpus",
        "toy",
        "--compiler",
        "toy,nonesuch",
        "-o",
        str(tmp_path / "y.jsonl"),
        check=False,
    )
    assert result.returncode == 2
    assert "unknown compiler 'nonesuch'" in result.stderr and "toy:sound" in result.stderr


def test_stratified_sample_covers_groups():
    cases = [CaseInfo(f"{op}_{i}", op=op) for op in "abcdefgh" for i in range(10)]
    picked = select_cases(cases, sample=8, seed=1)
    assert sorted({c.tags["op"] for c in picked}) == list("abcdefgh")
    assert picked == select_cases(cases, sample=8, seed=1)  # Deterministic.
    assert [c.name for c in select_cases(cases, only="^c_")] == [f"c_{i}" for i in range(10)]


def test_bfloat16_outputs_are_compared_within_two_ulps():
    # As ONNX's backend test runner compares them: rtol 1e-3 would take one
    # bfloat16 ULP (2^-8 relative) for a difference.
    import numpy as np

    from lighthouse.suite.check import compare_outputs

    bfloat16 = pytest.importorskip("ml_dtypes").bfloat16
    want = np.array([1.0, -0.443359375, 3.0], bfloat16)
    two_ulps = np.array([1.0078125, -0.4453125, 3.0], bfloat16)
    assert compare_outputs([two_ulps], [want], rtol=1e-3, atol=1e-7).ok
    four_ulps = np.array([1.03125, -0.443359375, 3.0], bfloat16)
    comparison = compare_outputs([four_ulps], [want], rtol=1e-3, atol=1e-7)
    assert comparison.message == (
        "output 0: 1 of 3 elements outside rtol 0.015625, atol 1e-07 (max abs error 0.0312)"
    )
    as_float32 = [a.astype(np.float32) for a in (two_ulps, want)]
    assert not compare_outputs(as_float32[:1], as_float32[1:], rtol=1e-3, atol=1e-7).ok


onnx = pytest.importorskip("onnx")


def test_onnx_node_corpus_through_lighthouse(plugin_path, tmp_path):
    """Real ONNX node tests, generated from the onnx package, through both of
    lighthouse's pipelines."""
    output = tmp_path / "node.jsonl"
    lh_suite(
        plugin_path,
        "run",
        "--corpus",
        "onnx-node",
        "--compiler",
        "lighthouse:loops,lighthouse:default",
        "--only",
        "^test_(relu|gemm_default_matrix_bias|bitwise_not_2d)$",
        "--no-timing",
        "-o",
        str(output),
    )
    records = by_case(output, "lighthouse:default")
    assert records["test_relu"]["status"] == "pass"
    assert records["test_relu"]["tags"] == {"op": "Relu", "dtypes": "standard"}
    assert records["test_gemm_default_matrix_bias"]["max_abs_error"] < 1e-5
    assert set(by_case(output, "lighthouse:loops")) == set(records)


torch = pytest.importorskip("torch")


def test_example_plugin_package(tmp_path):
    """examples/suite-plugin installed like any package: its compiler and corpus
    run beside lighthouse's own, on real torch models."""
    site = install_example("suite-plugin", tmp_path)
    listed = lh_suite(site, "list").stdout
    assert "attention" in listed and "tuned:unrolled" in listed and "tuned:o1" in listed
    output = tmp_path / "attention.jsonl"
    lh_suite(
        site,
        "run",
        "--corpus",
        "attention",
        "--compiler",
        "tuned:o1,eager",
        "--only",
        "vit_tiny",
        "--rounds",
        "3",
        "--budget",
        "1",
        "-o",
        str(output),
    )
    for compiler in ("tuned:o1", "eager"):
        record = by_case(output, compiler)["vit_tiny"]
        assert record["status"] == "pass", record
        assert record["call_seconds"] > 0


def test_torch_ops_corpus_through_lighthouse(tmp_path):
    """Real OpInfo samples through lighthouse and eager PyTorch."""
    pytest.importorskip("expecttest")
    output = tmp_path / "ops.jsonl"
    lh_suite(
        tmp_path,
        "run",
        "--corpus",
        "torch-ops",
        "--compiler",
        "lighthouse:default,eager",
        "--only",
        r"^(nn\.functional\.relu|matmul|angle)\.float32\.0$",
        "--no-timing",
        "-o",
        str(output),
    )
    records = by_case(output, "lighthouse:default")
    assert records["matmul.float32.0"]["status"] == "pass"
    assert records["nn.functional.relu.float32.0"]["tags"] == {
        "op": "nn.functional.relu",
        "dtype": "float32",
        "family": "nn.functional",
    }
    # An op torch-mlir cannot lower is named, with the stage it failed in.
    angle = records["angle.float32.0"]
    assert angle["status"] == "compile-error" and angle["stage"] == "compile"
    assert angle["ops"] == ["torch.aten.angle"]
    assert all(r["status"] == "pass" for r in by_case(output, "eager").values())


def test_zero_dimensional_inputs_stay_so():
    import numpy as np

    from lighthouse.suite.case import to_torch

    scalar, strided = to_torch([np.array(2.0, np.float32), np.zeros((3, 4), np.float32).T])
    assert scalar.shape == () and strided.shape == (4, 3) and strided.is_contiguous()


def test_reference_leaves_the_inputs_alone():
    """An op that changes its input in place gives the reference its result,
    and the compilers the inputs as the case made them."""
    import numpy as np

    from lighthouse.suite import Case

    class AddInPlace(torch.nn.Module):
        def forward(self, x):
            return x.add_(1)

    x = np.zeros((2, 2), np.float32)
    case = Case("in_place", [x], torch=AddInPlace())
    np.testing.assert_array_equal(case.expected()[0], np.ones((2, 2)))
    np.testing.assert_array_equal(case.inputs[0], np.zeros((2, 2)))


def test_timing_waits_for_spinning_threads_and_times_warm_calls():
    """A turn starts once the process's other threads stop using the CPU (a
    thread pool spinning after its work), and its first call is not timed."""
    import threading
    import time

    from lighthouse.suite.timing import interleaved_seconds, quiesce

    assert quiesce() < 0.05  # nothing spins: the 5 ms pause, and a little more
    stop = time.perf_counter() + 0.06

    def spin():
        while time.perf_counter() < stop:
            pass

    spinner = threading.Thread(target=spin)
    spinner.start()
    waited = quiesce()
    spinner.join()
    assert waited >= 0.04

    last = [0.0]

    def slow_after_a_pause():
        # Like a thread pool woken from sleep: slow after 4 ms without a call.
        if time.perf_counter() - last[0] > 0.004:
            time.sleep(0.02)
        last[0] = time.perf_counter()

    timings = interleaved_seconds({"f": slow_after_a_pause}, rounds=3, budget=1, calls=3)
    assert timings["f"]["calls"] == 9 and timings["f"]["median"] < 0.01
