"""Shards of a run (lh-suite run --shard I/N) and their merge (lh-suite merge)."""

import json

import pytest
from toy_suite_plugin import lh_suite, run_toy

from lighthouse.suite.records import SCHEMA_VERSION, read_results
from lighthouse.suite.shards import case_durations, parse_shard, shard_of

CASES = "^(good|wrong|compile_error|unsupported)$"


def statuses(path):
    return {(r["case"], r["compiler"]): r["status"] for r in read_results(str(path))[1]}


def run_cases(plugin_path, output, *args, check=True):
    return run_toy(plugin_path, output, "--only", CASES, "--no-timing", *args, check=check)


@pytest.fixture(scope="module")
def sharded(plugin_path, tmp_path_factory):
    folder = tmp_path_factory.mktemp("shards")
    run_cases(plugin_path, folder / "whole.jsonl")
    for index in (1, 2):
        run_cases(plugin_path, folder / f"shard-{index}.jsonl", "--shard", f"{index}/2")
    return folder


def test_merged_shards_are_the_whole_run(plugin_path, sharded):
    shards = [sharded / f"shard-{index}.jsonl" for index in (1, 2)]
    parts = [set(statuses(path)) for path in shards]
    assert sum(map(len, parts)) == len(set().union(*parts)) == 8  # Disjoint, all there.
    lh_suite(plugin_path, "merge", *map(str, shards), "-o", str(sharded / "merged.jsonl"))
    assert statuses(sharded / "merged.jsonl") == statuses(sharded / "whole.jsonl")
    (run,), _ = read_results(str(sharded / "merged.jsonl"))
    assert "shard" not in run and [s["shard"] for s in run["shards"]] == [[1, 2], [2, 2]]


def test_merge_refuses_what_is_not_one_run(plugin_path, sharded, tmp_path):
    shards = [str(sharded / f"shard-{index}.jsonl") for index in (1, 2)]
    output = str(tmp_path / "merged.jsonl")
    missing = lh_suite(plugin_path, "merge", shards[0], "-o", output, check=False)
    assert missing.returncode == 2 and "missing 2/2" in missing.stderr
    other = tmp_path / "other-2.jsonl"
    run_cases(plugin_path, other, "--shard", "2/2", "--timeout", "20")
    different = lh_suite(plugin_path, "merge", shards[0], str(other), "-o", output, check=False)
    assert different.returncode == 2 and "settings differ" in different.stderr
    forced = lh_suite(plugin_path, "merge", shards[0], str(other), "-o", output, "--force")
    assert forced.returncode == 0
    whole = lh_suite(plugin_path, "merge", str(sharded / "whole.jsonl"), "-o", output, check=False)
    assert whole.returncode == 2 and "not the results of a shard" in whole.stderr


def test_shards_are_balanced_by_recorded_times():
    keys = [("c", f"case{i}") for i in range(40)]
    by_hash = shard_of(keys, 4)
    assert by_hash == shard_of(list(reversed(keys)), 4)  # Whatever the order.
    assert set(by_hash.values()) == {0, 1, 2, 3}
    # One long case and many short ones: the long one gets a shard of its own.
    durations = {key: 1.0 for key in keys}
    durations[keys[7]] = 30.0
    balanced = shard_of(keys, 4, durations)
    loads = [sum(durations[k] for k in keys if balanced[k] == s) for s in range(4)]
    assert sorted(loads) == [13.0, 13.0, 13.0, 30.0]
    assert [k for k in keys if balanced[k] == balanced[keys[7]]] == [keys[7]]


def test_bad_shards_are_clear_errors(plugin_path, tmp_path):
    for text in ("0/4", "5/4", "2", "a/b"):
        with pytest.raises(ValueError, match="expected I/N"):
            parse_shard(text)
    result = run_cases(plugin_path, tmp_path / "x.jsonl", "--shard", "3/2", check=False)
    assert result.returncode == 2 and "--shard '3/2': expected I/N" in result.stderr
    result = run_cases(plugin_path, tmp_path / "x.jsonl", "--durations", "x.jsonl", check=False)
    assert result.returncode == 2 and "give it with --shard" in result.stderr


def test_records_of_an_earlier_schema_load_and_of_a_later_one_do_not(tmp_path):
    old = tmp_path / "old.jsonl"
    # Version 1: no schema, settings, commit or case times.
    old.write_text(
        json.dumps({"record": "run", "corpora": ["toy"], "compilers": ["toy"], "threads": 2})
        + "\n"
        + json.dumps(
            {
                "record": "case",
                "corpus": "toy",
                "case": "good",
                "compiler": "toy",
                "status": "pass",
                "compile_seconds": 0.5,
                "first_call_seconds": 0.25,
            }
        )
        + "\n"
    )
    runs, records = read_results(str(old))
    assert runs[0]["threads"] == 2 and records[0]["status"] == "pass"
    # Balanced by its compile and first call times, its cases' times unknown.
    assert case_durations(records) == {("toy", "good"): 0.75}
    new = tmp_path / "new.jsonl"
    new.write_text(json.dumps({"record": "run", "schema": SCHEMA_VERSION + 1}) + "\n")
    with pytest.raises(ValueError, match=f"schema {SCHEMA_VERSION + 1}, written by a later"):
        read_results(str(new))
