"""Shards: a deterministic part of a run's cases, so that the machines of a
CI matrix run a corpus in parallel, and the merge of their results files
into the one run they split."""

import hashlib
import heapq
import statistics
from typing import Dict, List, Optional, Sequence, Tuple

from .records import read_results

__all__ = ["case_durations", "merge_shards", "parse_shard", "shard_of"]

Key = Tuple[str, str]  # (corpus, case)

#: The run record's fields that shards of one run share: what ran, on how many
#: threads, with which options, by which lighthouse.
SHARED_FIELDS = ("schema", "lighthouse", "commit", "corpora", "compilers", "threads", "timed")


def parse_shard(text: str) -> Tuple[int, int]:
    """(index, count) of "I/N", 1 <= I <= N.

    Raises:
      ValueError: `text` is not of that form.
    """
    index, slash, count = text.partition("/")
    try:
        index, count = int(index), int(count)
    except ValueError:
        index = count = 0
    if not slash or not 1 <= index <= count:
        raise ValueError(f"--shard {text!r}: expected I/N with 1 <= I <= N, e.g. 2/4")
    return index, count


def _stable_hash(key: Key) -> int:
    """The same on every machine and Python run (`hash` of a str is not)."""
    return int.from_bytes(hashlib.sha256("\0".join(key).encode()).digest()[:8], "big")


def case_durations(records: Sequence[dict]) -> Dict[Key, float]:
    """The seconds each case of a results file took: its recorded wall time,
    or in records from before that was kept, the sum of its compilers'
    compile and first call times."""
    durations: Dict[Key, float] = {}
    for record in records:
        key = (record["corpus"], record["case"])
        if "case_seconds" in record:
            durations[key] = record["case_seconds"]
        else:
            spent = (record.get("compile_seconds") or 0) + (record.get("first_call_seconds") or 0)
            durations[key] = durations.get(key, 0.0) + spent
    return durations


def shard_of(keys: Sequence[Key], count: int, durations: Optional[Dict[Key, float]] = None):
    """The shard (0 to `count` - 1) of each case, the same wherever computed
    from the same cases: with `durations` of a previous run, the longest case
    first to the shard with the least work so far (a case not timed then
    counts the median time); without, by a stable hash of its name."""
    known = {key: durations[key] for key in keys if durations and key in durations}
    if not known:
        return {key: _stable_hash(key) % count for key in keys}
    typical = statistics.median(known.values())
    loads = [(0.0, shard) for shard in range(count)]
    assigned = {}
    for key in sorted(keys, key=lambda k: (-known.get(k, typical), _stable_hash(k), k)):
        load, shard = heapq.heappop(loads)
        assigned[key] = shard
        heapq.heappush(loads, (load + known.get(key, typical), shard))
    return assigned


def merge_shards(paths: Sequence[str], force: bool = False) -> Tuple[dict, List[dict]]:
    """The run record and case records of the run that the shards in the
    results files `paths` split.

    Raises:
      ValueError: unless `force`, the shards differ in what ran (version,
        commit, corpora, compilers, threads, settings), or are not the shards
        1 to N of one run each once; and whatever `force`, a file is no
        shard or two shards ran one case.
    """
    shards: Dict[int, Tuple[str, dict]] = {}
    records: Dict[tuple, dict] = {}
    counts = set()
    for path in paths:
        runs, file_records = read_results(path)
        if not runs or "shard" not in runs[0]:
            raise ValueError(f"{path}: not the results of a shard (lh-suite run --shard I/N)")
        run = runs[0]
        index, count = run["shard"]
        counts.add(count)
        if index in shards and not force:
            raise ValueError(f"{path} and {shards[index][0]} are both shard {index}/{count}")
        first_path, first = next(iter(shards.values()), (path, run))
        differing = [
            name for name in SHARED_FIELDS + ("settings",) if run.get(name) != first.get(name)
        ]
        if differing and not force:
            raise ValueError(
                f"{path} and {first_path} are not shards of one run: their "
                + ", ".join(
                    f"{name} differ ({first.get(name)!r}, {run.get(name)!r})" for name in differing
                )
                + " (--force merges them all the same)"
            )
        shards[index] = (path, run)
        for record in file_records:
            key = (record["corpus"], record["case"], record["compiler"])
            if key in records:
                raise ValueError(f"{path}: {key[1]} of {key[0]} is in another shard too")
            records[key] = record
    count = max(counts)
    missing = sorted(set(range(1, count + 1)) - set(shards))
    if (missing or len(counts) > 1) and not force:
        raise ValueError(
            f"the shards of {count}: missing "
            + (", ".join(f"{i}/{count}" for i in missing) or "none")
            + (f"; of different counts {sorted(counts)}" if len(counts) > 1 else "")
            + " (--force merges them all the same)"
        )
    first = shards[min(shards)][1]
    merged = {key: value for key, value in first.items() if key != "shard"}
    merged["shards"] = [
        {
            "file": path,
            "shard": run["shard"],
            "machine": run.get("machine"),
            "started": run.get("started"),
        }
        for _, (path, run) in sorted(shards.items())
    ]
    return merged, list(records.values())
