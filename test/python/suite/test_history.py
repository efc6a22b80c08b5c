"""The results history (lh-suite record, lh-suite history): runs stored in a
real SQLite database, the dashboard, and the check against each case's
recent history."""

import json
import xml.etree.ElementTree as ElementTree

import pytest
from toy_suite_plugin import lh_suite, run_toy

from lighthouse.suite.history import SCHEMA_VERSION, check, load, record
from lighthouse.suite.records import read_results

pytest.importorskip("sqlalchemy", reason="needs lighthouse[history] (SQLAlchemy)")


@pytest.fixture(scope="module")
def toy_results(plugin_path, tmp_path_factory):
    """A timed run of the toy corpus: `good` passes on both compilers,
    `wrong` on the sound one only."""
    output = tmp_path_factory.mktemp("history") / "toy.jsonl"
    run_toy(plugin_path, output, "--only", "^(good|wrong)$", "--rounds", "3", "--budget", "0.2")
    return output


def write_run(source, path, index, scale=None, status=None, corpus="toy"):
    """The toy run again as the `index`-th run, of a commit whose short form
    is the index in 8 digits: its times multiplied per (case, compiler) by
    `scale`, its statuses replaced by `status`'s, as a run of `corpus`."""
    runs, records = read_results(str(source))
    run = {**runs[0], "commit": f"{index:08d}" + "a" * 32, "started": f"2026-01-01T{index:08d}"}
    run["corpora"] = [corpus]
    lines = [run]
    for case in records:
        key = (case["case"], case["compiler"])
        case = dict(case, corpus=corpus)
        if case.get("call_seconds"):
            case["call_seconds"] *= (scale or {}).get(key, 1.0)
        if key in (status or {}):
            case["status"] = status[key]
            case["message"] = "output 0: 6 of 6 elements differ"
        lines.append(case)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return str(path)


# Five runs whose times wander by up to 2%: the noise of the history.
WANDER = (1.0, 1.02, 0.99, 1.01, 0.98)


@pytest.fixture
def history_db(toy_results, tmp_path):
    db = str(tmp_path / "history.sqlite")
    paths = [
        write_run(
            toy_results,
            tmp_path / f"run{index}.jsonl",
            index + 1,
            scale={("good", "toy"): factor, ("good", "toy:sound"): factor},
        )
        for index, factor in enumerate(WANDER)
    ]
    stored = record(db, paths)
    assert [run_id for _, run_id in stored] == [1, 2, 3, 4, 5]
    assert record(db, paths[:1]) == [(paths[0], None)]  # Stored once.
    return db


def test_check_passes_within_noise_and_flags_what_leaves_it(
    plugin_path, history_db, toy_results, tmp_path
):
    assert check(load(history_db)) == []
    assert lh_suite(plugin_path, "history", "--db", history_db, "--check").returncode == 0
    # Within the band (5%) of the history's median: not flagged.
    within = write_run(toy_results, tmp_path / "within.jsonl", 6, scale={("good", "toy"): 1.04})
    record(history_db, [within])
    assert check(load(history_db)) == []
    # 30% slower, and a case that passed in every run before now failing.
    regressed = write_run(
        toy_results,
        tmp_path / "regressed.jsonl",
        7,
        scale={("good", "toy"): 1.3},
        status={("wrong", "toy:sound"): "mismatch"},
    )
    record(history_db, [regressed])
    found = {(r.key[1], r.key[2]): r for r in check(load(history_db))}
    assert sorted((key, r.kind) for key, r in found.items()) == [
        (("good", "toy"), "slower"),
        (("wrong", "toy:sound"), "fails"),
    ]
    slower = found[("good", "toy")]
    assert len(slower.earlier) == 6 and slower.latest["call_seconds"] > slower.limit
    result = lh_suite(plugin_path, "history", "--db", history_db, "--check", check=False)
    assert result.returncode == 1
    assert "2 regression(s)" in result.stdout and "good (toy) on toy" in result.stdout
    assert "mismatch in 00000007" in result.stdout


def test_check_takes_every_kind_of_run_of_the_latest_commit(history_db, toy_results, tmp_path):
    # A CI job records a run of each corpus: a failure in the first is found.
    failing = write_run(
        toy_results, tmp_path / "a.jsonl", 6, status={("wrong", "toy:sound"): "mismatch"}
    )
    other = write_run(toy_results, tmp_path / "b.jsonl", 6, corpus="other")
    record(history_db, [failing, other])
    found = check(load(history_db))
    assert [(r.key, r.kind, r.run.id) for r in found] == [
        (("toy", "wrong", "toy:sound"), "fails", 6)
    ]


def test_noisy_history_widens_the_band(toy_results, tmp_path):
    # Times that wandered by 20% make the 30% slowdown flagged above noise.
    db = str(tmp_path / "noisy.sqlite")
    for index, factor in enumerate((1.2, 0.8, 1.25, 0.85, 1.1, 0.9, 1.3)):
        path = write_run(
            toy_results,
            tmp_path / f"noisy{index}.jsonl",
            index + 1,
            scale={("good", "toy"): factor},
        )
        record(db, [path])
    assert check(load(db)) == []


def test_dashboard(plugin_path, history_db, toy_results, tmp_path):
    record(
        history_db,
        [write_run(toy_results, tmp_path / "failing.jsonl", 6, status={("good", "toy"): "crash"})],
    )
    page = tmp_path / "history.html"
    lh_suite(
        plugin_path, "history", "--db", history_db, "--html", str(page), "--baseline", "toy:sound"
    )
    text = page.read_text()
    root = ElementTree.fromstring(text.split("\n", 1)[1])  # Well-formed, past the doctype.
    assert "<script" not in text and "http://" not in text.replace("http://www.w3.org", "")
    for anchor in ("pass-rates", "speed", "slower", "failing", "runs"):
        assert f'id="{anchor}"' in text
    # A pass-rate line per compiler, a speed line per family, over 6 runs.
    polylines = root.findall(".//{http://www.w3.org/2000/svg}polyline")
    assert len(polylines) == 3
    assert all(len(p.get("points").split()) >= 5 for p in polylines)
    # The newly failing case, linked to the run it fails in and to the one it passed in.
    assert 'href="#run-6">crash' in text and 'href="#run-5">00000005' in text
    for run_id in range(1, 7):
        assert f'id="run-{run_id}"' in text
    listed = lh_suite(plugin_path, "history", "--db", history_db).stdout
    assert "6 run(s)" in listed and "00000006" in listed


def test_bad_databases_are_clear_errors(plugin_path, history_db, tmp_path):
    import sqlite3

    with sqlite3.connect(history_db) as connection:
        connection.execute(
            "UPDATE meta SET value = ? WHERE key = 'schema'", (str(SCHEMA_VERSION + 1),)
        )
    with pytest.raises(ValueError, match=f"schema {SCHEMA_VERSION + 1}, written by a later"):
        load(history_db)
    result = lh_suite(plugin_path, "history", "--db", "nonesuch://x", check=False)
    assert result.returncode == 2 and "not a database URL" in result.stderr
    empty = str(tmp_path / "empty.sqlite")
    result = lh_suite(
        plugin_path, "history", "--db", empty, "--html", str(tmp_path / "x.html"), check=False
    )
    assert result.returncode == 2 and "no runs recorded" in result.stderr
    not_results = tmp_path / "notes.jsonl"
    not_results.write_text("")
    with pytest.raises(ValueError, match="no run record"):
        record(empty, [str(not_results)])
