"""The compiler test bench's reports (lighthouse.suite.report) and comparisons
of results files (lighthouse.suite.compare), on synthetic case records."""

import html.parser
import json
import math
import xml.etree.ElementTree as ElementTree

import pytest

from lighthouse.suite import compare, records, report


RUN = {
    "record": "run",
    "started": "2025-06-01T10:00:00+0000",
    "lighthouse": "0.1.0+mlir22",
    "corpora": ["onnx-node", "models"],
    "compilers": ["lighthouse:default", "eager"],
    "threads": 2,
    "timed": True,
    "machine": "Test CPU, 2 cores",
    "python": "3.11.2",
    "argv": ["lh-suite", "run"],
}


def case(corpus, name, compiler, status="pass", seconds=None, spread=None, **fields):
    """A case record as the runner writes it."""
    record = {
        "record": "case",
        "corpus": corpus,
        "case": name,
        "compiler": compiler,
        "tags": fields.pop("tags", {"op": name.split("_")[0], "family": "f"}),
        "status": status,
        **fields,
    }
    if seconds is not None:
        record.update(call_seconds=seconds, call_spread=spread, calls=40)
    return record


def timed(corpus, compiler, times, spread=0.01, family="f"):
    """Passing records of cases c0, c1, ... with the given call times."""
    return [
        case(
            corpus,
            f"c{i}",
            compiler,
            seconds=t,
            spread=spread,
            tags={"op": "Add", "family": family},
        )
        for i, t in enumerate(times)
    ]


def check_html(page):
    """The page parses as XML (balanced, escaped), and as HTML with every
    opened element closed in order."""
    assert page.startswith("<!DOCTYPE html>")
    ElementTree.fromstring(page.split("\n", 1)[1])
    void = {"meta", "br", "img", "input", "link", "hr"}

    class Balance(html.parser.HTMLParser):
        def __init__(self):
            super().__init__()
            self.stack = []

        def handle_starttag(self, tag, attrs):
            if tag not in void:
                self.stack.append(tag)

        def handle_startendtag(self, tag, attrs):
            pass

        def handle_endtag(self, tag):
            assert self.stack and self.stack[-1] == tag, (tag, self.stack[-5:])
            self.stack.pop()

    parser = Balance()
    parser.feed(page)
    parser.close()
    assert parser.stack == []
    for resource in ("<script", "http://", "https://", "@import", "url("):
        # The SVG namespace is the one URL a page may name.
        assert resource not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")


def check_text(text):
    for line in text.splitlines():
        assert len(line) <= 100, line
        assert line.isascii(), line


# ---------------------------------------------------------------------------
# Pass rates


def test_pass_rates_leave_out_invalid_and_unsupported_cases():
    cases = [case("onnx-node", f"p{i}", "lighthouse:default") for i in range(3)] + [
        case("onnx-node", "m", "lighthouse:default", "mismatch", message="output 0: differ"),
        case(
            "onnx-node", "c", "lighthouse:default", "compile-error", error_class="E", message="no"
        ),
        case("onnx-node", "u", "lighthouse:default", "unsupported", message="takes onnx"),
        case("onnx-node", "i", "lighthouse:default", "invalid", message="no reference"),
    ]
    summary = report.summarize([RUN], cases)
    outcome = summary.outcomes[("onnx-node", "lighthouse:default")]
    assert outcome.total == 7 and outcome.failed == 2
    assert outcome.pass_rate == pytest.approx(3 / 5)
    assert outcome.coverage == pytest.approx(3 / 6)
    text = report.render_text(summary)
    assert "60.0%" in text and "50.0%" in text
    check_text(text)


def test_pass_rate_of_a_compiler_taking_no_case_is_none():
    summary = report.summarize(
        [],
        [
            case("torch-ops", "a", "onnxruntime", "unsupported"),
            case("torch-ops", "b", "onnxruntime", "invalid"),
        ],
    )
    outcome = summary.outcomes[("torch-ops", "onnxruntime")]
    assert outcome.pass_rate is None and outcome.coverage == 0.0
    check_html(report.render_html(summary))
    check_text(report.render_text(summary))


# ---------------------------------------------------------------------------
# Speed


def test_speedups_are_geometric_means_of_baseline_over_compiler_times():
    cases = (
        timed("models", "eager", [1.0, 2.0, 3.0])
        + timed("models", "lighthouse:default", [0.5, 4.0])
        + [case("models", "c2", "lighthouse:default", "mismatch", message="off")]
        + timed("models", "inductor", [0.25, 1.0, 1.0])
    )
    summary = report.summarize([RUN], cases)
    default = summary.speedups[("models", "lighthouse:default")]
    assert default.ratios == [2.0, 0.5] and default.cases == ["c0", "c1"]
    assert default.geomean == pytest.approx(1.0)
    assert default.faster == 1
    inductor = summary.speedups[("models", "inductor")]
    assert inductor.geomean == pytest.approx((4 * 2 * 3) ** (1 / 3))
    assert ("models", "eager") not in summary.speedups
    assert summary.family_speedups[("models", "inductor", "f")].geomean == pytest.approx(
        inductor.geomean
    )


def test_speedups_per_family():
    cases = (
        timed("onnx-node", "eager", [1.0, 1.0], family="conv")
        + [case("onnx-node", "c2", "eager", seconds=1.0, tags={"family": "matmul"})]
        + timed("onnx-node", "lighthouse:default", [0.5, 0.125], family="conv")
        + [case("onnx-node", "c2", "lighthouse:default", seconds=2.0, tags={"family": "matmul"})]
    )
    summary = report.summarize([RUN], cases)
    assert summary.family_speedups[
        ("onnx-node", "lighthouse:default", "conv")
    ].geomean == pytest.approx(4.0)
    assert summary.family_speedups[
        ("onnx-node", "lighthouse:default", "matmul")
    ].geomean == pytest.approx(0.5)
    assert "matmul" in report.render_markdown(summary)


def test_corpus_without_the_baseline_gets_no_speedups():
    cases = (
        timed("models", "eager", [1.0])
        + timed("models", "lighthouse:default", [0.5])
        + timed("kernelbench", "lighthouse:default", [0.1, 0.2])
        + timed("kernelbench", "inductor", [0.2, 0.2])
    )
    summary = report.summarize([RUN], cases)
    assert summary.unbaselined == ["kernelbench"]
    assert set(summary.speedups) == {("models", "lighthouse:default")}
    kernelbench = next(t for t in summary.latency if t.corpus == "kernelbench")
    assert kernelbench.baseline is None
    assert all(cell.speedup is None for _, cells in kernelbench.rows for cell in cells.values())
    assert kernelbench.geomean_seconds("inductor") == pytest.approx(0.2)
    text = report.render_text(summary)
    assert "kernelbench: eager was not timed, so no speedups." in text
    check_text(text)
    check_html(report.render_html(summary))


def test_another_baseline():
    cases = timed("models", "eager", [1.0]) + timed("models", "inductor", [0.5])
    summary = report.summarize([RUN], cases, baseline="inductor")
    assert summary.speedups[("models", "eager")].geomean == pytest.approx(0.5)
    assert summary.colors["inductor"] == report.BASELINE_COLOR
    assert "Speed relative to inductor" in report.render_text(summary)


# ---------------------------------------------------------------------------
# Latency


def test_latency_table_cells_and_geometric_means():
    cases = (
        timed("models", "eager", [0.010, 0.040])
        + timed("models", "lighthouse:default", [0.005])
        + [
            case(
                "models",
                "c1",
                "lighthouse:default",
                "compile-error",
                error_class="E",
                message="unsupported",
            )
        ]
    )
    summary = report.summarize([RUN], cases)
    [table] = summary.latency
    assert table.compilers == ["lighthouse:default", "eager"] and table.baseline == "eager"
    rows = dict(table.rows)
    assert rows["c0"]["lighthouse:default"].speedup == pytest.approx(2.0)
    assert rows["c0"]["eager"].speedup is None
    assert rows["c1"]["lighthouse:default"].status == "compile-error"
    assert rows["c1"]["lighthouse:default"].seconds is None
    assert table.geomean_seconds("eager") == pytest.approx(0.020)
    # Not timed on every case: no mean time that would compare with eager's.
    assert table.geomean_seconds("lighthouse:default") is None
    assert table.geomean_speedup("lighthouse:default") == (pytest.approx(2.0), 1)
    text = report.render_text(summary)
    assert "geomean speedup" in text and "2.00x n=1" in text
    assert "compile-error" in text and "20.0" in text
    check_text(text)


def test_long_latency_tables_are_left_to_the_html_page():
    count = report.LATENCY_ROWS + 1
    cases = timed("onnx-node", "eager", [1e-5] * count) + timed(
        "onnx-node", "lighthouse:default", [5e-6] * count
    )
    summary = report.summarize([RUN], cases)
    text = report.render_text(summary)
    assert "c0 " not in text and "2.00x" in text
    assert "Every case is in the HTML report" in text
    page = report.render_html(summary)
    assert f"All {count} timed cases" in page and f">c{count - 1}<" in page


# ---------------------------------------------------------------------------
# Failures


@pytest.mark.parametrize(
    "first, second",
    [
        (
            "failed to legalize operation 'torch.aten.foo' that was explicitly marked illegal",
            "failed to legalize operation 'onnx.Bar' that was explicitly marked illegal",
        ),
        (
            "output 0: 5 of 24 elements outside rtol 0.001, atol 1e-05 (max abs error 0.3)",
            "output 1: 17 of 2048 elements outside rtol 0.01, atol 1e-07 (max abs error 12.5)",
        ),
        ("expected shape (2, 3, 4) but got [4, 5]", "expected shape (7,) but got [1, ?, 3]"),
        (
            "'tensor.expand_shape' op result type tensor<2x3xf32> is not tensor<6xf32>",
            "'tensor.collapse_shape' op result type tensor<?x4xf32> is not tensor<4x?xf32>",
        ),
        ("cannot open /tmp/tmpab12/model.onnx at 0x7f3a2b", "cannot open /var/x/y.mlir at 0x1"),
        ("no answer within 300 s while compiling", "no answer within 60 s while compiling"),
        ("dimension -1 out of range\nTraceback: line 12", "dimension 3 out of range\nother"),
    ],
)
def test_similar_messages_normalize_alike(first, second):
    assert report.normalize_message(first) == report.normalize_message(second)


@pytest.mark.parametrize(
    "first, second",
    [
        ("dtype float32 is not supported", "dtype float16 is not supported"),
        (
            "the worker died of SIGSEGV while compiling",
            "the worker died of SIGABRT while compiling",
        ),
        ("can't lower 'x' here", "can't lower 'x' there"),
    ],
)
def test_different_messages_stay_apart(first, second):
    assert report.normalize_message(first) != report.normalize_message(second)


def test_normalize_message_of_nothing():
    assert report.normalize_message(None) == report.normalize_message("\n \n") == "(no message)"


def test_failures_grouped_by_cause_and_by_operation():
    cases = [
        case(
            "onnx-node",
            "test_a",
            "lighthouse:default",
            "compile-error",
            error_class="RuntimeError",
            ops=["onnx.Foo"],
            message="failed to legalize operation 'onnx.Foo'",
        ),
        case(
            "onnx-node",
            "test_b",
            "lighthouse:default",
            "compile-error",
            error_class="RuntimeError",
            ops=["onnx.Bar"],
            message="failed to legalize operation 'onnx.Bar'",
        ),
        case(
            "onnx-node",
            "test_c",
            "lighthouse:fast",
            "compile-error",
            error_class="RuntimeError",
            ops=[],
            tags={"op": "Baz"},
            message="failed to legalize operation 'onnx.Baz'",
        ),
        case(
            "onnx-node",
            "test_d",
            "lighthouse:fast",
            "run-error",
            error_class="RuntimeError",
            tags={"op": "Baz"},
            message="failed to legalize operation 'onnx.Baz'",
        ),
        case(
            "onnx-node",
            "test_e",
            "lighthouse:fast",
            "crash",
            tags={},
            message="the worker died of SIGSEGV",
            signal="SIGSEGV",
            stderr_tail="#0 <frame>",
        ),
        case("onnx-node", "test_f", "lighthouse:fast", "unsupported", message="not taken"),
    ]
    summary = report.summarize([RUN], cases)
    assert len(summary.failures) == 5
    legalize = summary.causes[0]
    assert legalize.status == "compile-error" and legalize.total == 3
    assert legalize.label == "RuntimeError: failed to legalize operation '*'"
    assert legalize.cases == {
        "lighthouse:default": ["test_a", "test_b"],
        "lighthouse:fast": ["test_c"],
    }
    # The same message with another status is another cause.
    assert [(g.status, g.total) for g in summary.causes[1:]] == [("crash", 1), ("run-error", 1)]
    ops = {g.label: g.cases for g in summary.ops}
    assert ops == {
        "Baz": {"lighthouse:fast": ["test_c", "test_d"]},
        "onnx.Foo": {"lighthouse:default": ["test_a"]},
        "onnx.Bar": {"lighthouse:default": ["test_b"]},
        "(no operation named)": {"lighthouse:fast": ["test_e"]},
    }
    assert summary.ops[0].label == "Baz"
    page = report.render_html(summary)
    check_html(page)
    assert "#0 &lt;frame&gt;" in page and "All 3 failures with their messages" in page
    markdown = report.render_markdown(summary)
    assert "| 2 | compile-error | RuntimeError: failed to legalize operation '\\*' |" in markdown


def test_many_causes_are_listed_in_part():
    cases = [
        case(
            "onnx-node",
            f"t{i}",
            "lighthouse:default",
            "compile-error",
            error_class=f"Error{i:02}",
            message="x",
        )
        for i in range(report.TOP_GROUPS + 3)
    ]
    summary = report.summarize([RUN], cases)
    text = report.render_text(summary)
    assert "(3 more in the HTML report.)" in text
    last = f"Error{report.TOP_GROUPS + 2:02}"
    assert "Error00" in text and last not in text
    page = report.render_html(summary)
    assert last in page
    check_html(page)


# ---------------------------------------------------------------------------
# Rendering


def realistic_cases():
    compilers = ["lighthouse:default", "lighthouse:fast", "eager", "inductor", "onnxruntime"]
    cases = []
    for index in range(40):
        corpus = ("onnx-node", "torch-ops", "models")[index % 3]
        name = f"test_reduce_log_sum_exp_do_not_keepdims_random_expanded_{index}"
        for number, compiler in enumerate(compilers):
            tags = {
                "op": "ReduceLogSumExp",
                "family": ("reduction", "matmul")[index % 2],
                "dtype": "float32",
            }
            if (index + number) % 7 == 0:
                cases.append(
                    case(
                        corpus,
                        name,
                        compiler,
                        "compile-error",
                        tags=tags,
                        error_class="RuntimeError",
                        ops=["onnx.ReduceLogSumExp"],
                        message=f"failed to legalize 'onnx.ReduceLogSumExp' "
                        f"<script>alert({index})</script> – ünïcode & so",
                    )
                )
            elif corpus == "torch-ops":
                cases.append(case(corpus, name, compiler, tags=tags))
            else:
                cases.append(
                    case(
                        corpus,
                        name,
                        compiler,
                        tags=tags,
                        seconds=1e-3 * (1 + index) / (1 + number % 3),
                        spread=0.05,
                    )
                )
    return cases


def test_html_page_is_well_formed_and_self_contained():
    summary = report.summarize(
        [RUN, dict(RUN, started="2025-06-02T09:00:00+0000")], realistic_cases()
    )
    page = report.render_html(summary)
    check_html(page)
    assert page.count("<svg") == 4  # Pass rates, two corpora's speedups, causes.
    assert "<script>" not in page and "&lt;script&gt;alert(3)&lt;/script&gt;" in page
    # What the runs share once, when each started in a row of its own.
    assert page.count("Test CPU, 2 cores") == 1 and "2025-06-02T09:00:00+0000" in page
    assert "ünïcode &amp; so" in page
    # Every compiler has one color in every plot and table.
    for compiler, color in summary.colors.items():
        assert color in page
    assert len(set(summary.colors.values())) == len(summary.colors)


def test_text_report_is_ascii_within_100_columns():
    summary = report.summarize([RUN], realistic_cases())
    text = report.render_text(summary)
    check_text(text)
    for heading in (
        "Pass rates",
        "Speed relative to eager",
        "Latency of timed cases",
        "Failures",
        "Test CPU, 2 cores",
    ):
        assert heading in text


def test_text_tables_too_wide_are_split():
    compilers = [f"compiler-with-a-long-name-{i}" for i in range(6)]
    cases = [r for c in compilers + ["eager"] for r in timed("models", c, [0.01, 0.02])]
    text = report.render_text(report.summarize([RUN], cases))
    check_text(text)
    assert all(c in text for c in compilers)


def test_markdown_tables_have_a_cell_per_column():
    markdown = report.render_markdown(report.summarize([RUN], realistic_cases()))
    assert "# Compiler test bench report" in markdown
    header = None  # The first row of the table at hand.
    for line in markdown.splitlines():
        if not line.startswith("|"):
            header = None
            continue
        header = header or line
        assert line.replace("\\|", "").count("|") == header.replace("\\|", "").count("|")


@pytest.mark.parametrize(
    "runs, cases",
    [
        ([], []),
        ([RUN], []),
        ([RUN], [case("onnx-node", "a", "eager", "invalid", message="no reference")]),
        ([RUN], [case("models", "a", "eager"), case("models", "a", "lighthouse:default")]),
        ([RUN], [case("models", "a", "eager", seconds=1e-3)]),
    ],
)
def test_renderers_take_little_or_nothing(runs, cases):
    summary = report.summarize(runs, cases)
    check_text(report.render_text(summary))
    assert report.render_markdown(summary).startswith("# Compiler test bench report")
    check_html(report.render_html(summary))


def test_summary_of_a_results_file(tmp_path):
    path = tmp_path / "results.jsonl"
    cases = timed("models", "eager", [1.0]) + timed("models", "lighthouse:default", [0.25])
    path.write_text("".join(json.dumps(r) + "\n" for r in [RUN] + cases))
    summary = report.summarize(*records.read_results(str(path)))
    assert summary.corpora == ["onnx-node", "models"]
    assert summary.speedups[("models", "lighthouse:default")].geomean == pytest.approx(4.0)
    assert "machine" in report.render_text(summary)


def test_geomean():
    assert report.geomean([]) is None
    assert report.geomean([2.0, 8.0]) == pytest.approx(4.0)
    assert report.geomean([1e-300, 1e300]) == pytest.approx(1.0)


# ---------------------------------------------------------------------------
# Comparisons


def test_comparison_of_statuses():
    old = [
        case("onnx-node", "a", "x"),
        case("onnx-node", "b", "x", "compile-error", error_class="E", message="no\nmore"),
        case("onnx-node", "c", "x", "compile-error", message="no"),
        case("onnx-node", "d", "x"),
        case("onnx-node", "e", "x"),
        case("onnx-node", "gone", "x"),
        case("onnx-node", "f", "x", "unsupported"),
    ]
    new = [
        case("onnx-node", "a", "x", "mismatch", message="output 0: 3 of 4 elements"),
        case("onnx-node", "b", "x"),
        case("onnx-node", "c", "x", "crash", message="died"),
        case("onnx-node", "d", "x", "invalid", message="no reference"),
        case("onnx-node", "e", "x"),
        case("onnx-node", "new", "x"),
        case("onnx-node", "f", "x", "unsupported"),
    ]
    result = compare.compare_results(old, new)
    assert [(c.case, c.kind, c.old_status, c.new_status) for c in result.regressions] == [
        ("a", "broken", "pass", "mismatch")
    ]
    assert result.regressions[0].message == "output 0: 3 of 4 elements"
    assert [(c.case, c.kind, c.message) for c in result.improvements] == [("b", "fixed", "E: no")]
    # Failing otherwise, and passing no more for want of a reference.
    assert [(c.case, c.new_status) for c in result.status_changes] == [
        ("c", "crash"),
        ("d", "invalid"),
    ]
    assert [r["case"] for r in result.new_records] == ["new"]
    assert [r["case"] for r in result.removed_records] == ["gone"]
    assert result.compared == 6 and result.has_regressions
    assert result.passes == {("onnx-node", "x"): (4, 3)}
    text = compare.render_comparison_text(result)
    check_text(text)
    assert "Regressions (1)" in text and "pass -> mismatch" in text
    assert "Only in the new run (1)" in text
    assert (
        "| onnx-node | b | x | compile-error -> pass | E: no |"
        in compare.render_comparison_markdown(result)
    )


def test_no_regressions():
    records = timed("models", "x", [1.0, 2.0])
    result = compare.compare_results(records, records)
    assert not result.has_regressions and not result.improvements
    assert result.timed == 2
    assert "Regressions (0)" in compare.render_comparison_text(result)


def test_times_compare_beyond_the_band():
    old = timed("models", "x", [1.0, 1.0, 1.0, 1.0], spread=0.01)
    new = timed("models", "x", [1.04, 1.06, 0.94, 0.97], spread=0.01)
    result = compare.compare_results(old, new, band=0.05)
    assert [(c.case, c.kind) for c in result.regressions] == [("c1", "slower")]
    # Faster beyond the same band, in ratio: 1 / 0.94 > 1.05, 1 / 0.97 is not.
    assert [(c.case, c.kind) for c in result.improvements] == [("c2", "faster")]
    slower = result.regressions[0]
    assert slower.factor == pytest.approx(1.06) and slower.band == pytest.approx(0.05)
    assert slower.old_time == 1.0 and not slower.relative
    text = compare.render_comparison_text(result)
    assert "1.06x slower" in text and "1,000 ms -> 1,060 ms (band 5%)" in text
    assert "compared in seconds" in text


def test_noise_band_widens_with_the_call_spread():
    old = timed("models", "x", [1.0, 1.0], spread=0.2)
    new = timed("models", "x", [1.25, 1.35], spread=0.2)
    result = compare.compare_results(old, new, band=0.05)
    # sqrt(0.2² + 0.2²) = 0.283: 1.25 is within, 1.35 beyond.
    [slower] = result.regressions
    assert slower.case == "c1"
    assert slower.band == pytest.approx(compare.NOISE_SPREADS * math.sqrt(0.08))
    # Records without a spread (fewer than 4 calls) fall back to the band.
    old = timed("models", "x", [1.0], spread=None)
    new = timed("models", "x", [1.25], spread=None)
    assert compare.compare_results(old, new).regressions[0].band == pytest.approx(0.05)


def test_times_relative_to_a_baseline_ignore_a_slower_machine():
    old = timed("models", "eager", [1.0, 2.0]) + timed("models", "x", [0.5, 1.0])
    # The same code a day later on a machine twice as slow, but c1 regressed.
    new = timed("models", "eager", [2.0, 4.0]) + timed("models", "x", [1.0, 3.0])
    raw = compare.compare_results(old, new)
    assert len(raw.regressions) == 4 and raw.baseline is None
    relative = compare.compare_results(old, new, baseline="eager")
    assert relative.baseline == "eager"
    [regression] = relative.regressions
    assert (regression.case, regression.compiler) == ("c1", "x")
    assert regression.relative
    assert (regression.old_time, regression.new_time) == (0.5, 0.75)
    assert regression.factor == pytest.approx(1.5)
    # The ratios carry eager's spread too: four records of spread 0.01.
    assert regression.band == pytest.approx(0.05)
    assert relative.timed == 2  # eager's own times are the yardstick.
    text = compare.render_comparison_text(relative)
    assert "relative to eager" in text and "of eager's time" in text
    check_text(text)
    assert "relative to eager" in compare.render_comparison_markdown(relative)


def test_relative_times_need_the_baseline_timed_on_the_case():
    old = timed("models", "eager", [1.0]) + timed("models", "x", [1.0, 1.0])
    new = timed("models", "eager", [1.0]) + timed("models", "x", [1.0, 9.0])
    result = compare.compare_results(old, new, baseline="eager")
    assert result.timed == 1 and not result.regressions
    assert "nor those of 1 pairs whose case eager was not timed on" in result.baseline_note


def test_a_baseline_not_timed_in_both_runs_is_not_used():
    old = timed("models", "x", [1.0]) + [case("models", "c0", "eager")]
    new = timed("models", "x", [2.0]) + timed("models", "eager", [1.0])
    result = compare.compare_results(old, new, baseline="eager")
    assert result.baseline is None
    assert result.baseline_note == "eager was not timed in both runs: raw call times are compared."
    assert [c.kind for c in result.regressions] == ["slower"]
    assert "eager was not timed in both runs" in compare.render_comparison_text(result)


def test_comparisons_of_nothing():
    result = compare.compare_results([], [], baseline="eager")
    assert not result.has_regressions and result.compared == 0
    check_text(compare.render_comparison_text(result))
    assert compare.render_comparison_markdown(result).startswith("# Comparison")


def test_ops_passing_counts_ops_whose_every_valid_case_passed():
    records = [
        case("torch-ops", "a.0", "lh", tags={"op": "a"}),
        case("torch-ops", "a.1", "lh", tags={"op": "a"}),
        case("torch-ops", "b.0", "lh", tags={"op": "b"}),
        case("torch-ops", "b.1", "lh", "mismatch", tags={"op": "b"}),
        case("torch-ops", "c.0", "lh", "invalid", tags={"op": "c"}),
    ]
    summary = report.summarize([RUN], records)
    assert summary.outcomes[("torch-ops", "lh")].ops_passing == "1/2"
    assert "1/2" in report.render_text(summary)
