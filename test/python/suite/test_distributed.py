"""Cases run on a Ray cluster (lh-suite run --executor ray): a real cluster
of this machine (a head node and a worker node) runs the toy corpus, its
crash and hang included, with the statuses the local executor gives."""

import os

import pytest
from toy_suite_plugin import by_case, run_toy

from lighthouse.suite.records import machine, read_results

pytest.importorskip("ray", reason="needs lighthouse[ray] (Ray)")

CASES = "^(good|wrong|crash|hang|compile_error)$"


@pytest.fixture(scope="module")
def ray_cluster(plugin_path):
    """The address of a Ray cluster of two nodes of one CPU each, whose
    workers find the toy plugin; stopped after the tests, whatever happens."""
    from ray.cluster_utils import Cluster

    # The nodes' workers inherit this process's environment.
    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(plugin_path), saved]))
    cluster = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 1, "include_dashboard": False},
    )
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        yield cluster.address
    finally:
        cluster.shutdown()
        if saved is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = saved


def test_ray_gives_the_local_statuses(plugin_path, ray_cluster, tmp_path):
    common = ("--only", CASES, "--no-timing", "--timeout", "5")
    local, distributed = tmp_path / "local.jsonl", tmp_path / "ray.jsonl"
    run_toy(plugin_path, local, *common)
    result = run_toy(
        plugin_path, distributed, *common, "--executor", "ray", "--address", ray_cluster
    )
    assert "[5/5]" in result.stderr
    for compiler in ("toy", "toy:sound"):
        statuses = {case: r["status"] for case, r in by_case(distributed, compiler).items()}
        assert statuses == {case: r["status"] for case, r in by_case(local, compiler).items()}
    records = by_case(distributed, "toy")
    assert records["crash"]["signal"] == "SIGSEGV"
    assert "toy: about to crash" in records["crash"]["stderr_tail"]
    assert records["hang"]["status"] == "timeout" and "5 s" in records["hang"]["message"]
    # The other compiler went on after each, on the node the case ran on.
    assert by_case(distributed, "toy:sound")["hang"]["status"] == "pass"
    assert all(r["machine"] == machine() for r in read_results(str(distributed))[1])
    assert {r["threads"] for r in read_results(str(distributed))[1]} == {os.cpu_count()}
    (run,), _ = read_results(str(distributed))
    assert run["settings"]["executor"] == "ray"


def test_ray_arguments_are_clear_errors(plugin_path, tmp_path):
    result = run_toy(plugin_path, tmp_path / "x.jsonl", "--address", "127.0.0.1:1", check=False)
    assert result.returncode == 2 and "give it with --executor ray" in result.stderr
