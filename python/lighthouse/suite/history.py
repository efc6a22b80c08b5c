"""A history of results in a database: runs with their commit, version,
machine and settings, and their case records (SQLAlchemy: a SQLite file by
default, any database URL a team shares, e.g. PostgreSQL); and the check
that each case's latest result lies within the noise of its recent history.

The database's layout has a version (`SCHEMA_VERSION`, in its `meta` table)
apart from the results files' (each run's `schema`, kept with it).
"""

import hashlib
import json
import os
import statistics
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from ..errors import require
from .records import FAILED, read_results

__all__ = [
    "History",
    "Regression",
    "SCHEMA_VERSION",
    "check",
    "database_url",
    "load",
    "record",
]

#: The version of the database's tables.
SCHEMA_VERSION = 1

#: A case's timing is judged once it was timed in this many earlier runs.
MIN_HISTORY = 3
#: Its noise band reaches this many scaled median absolute deviations of its
#: earlier times above their median (about 3 standard deviations of normal
#: noise), and at least the slowest of them and `band` more: on a loaded
#: 2-core machine, a case's calls of 2 threads took 0.1 ms in three runs and
#: 18-24 ms in two, whose median and deviation alone flagged the next 16 ms.
NOISE_DEVIATIONS = 3.0


def database_url(db: str) -> str:
    """A SQLAlchemy URL: `db` itself when it is one, else a SQLite file's."""
    return db if "://" in db else f"sqlite:///{os.path.abspath(db)}"


class _Tables:
    def __init__(self, sqlalchemy):
        sa = sqlalchemy
        self.metadata = sa.MetaData()
        self.meta = sa.Table(
            "meta",
            self.metadata,
            sa.Column("key", sa.String(64), primary_key=True),
            sa.Column("value", sa.String(256)),
        )
        self.runs = sa.Table(
            "runs",
            self.metadata,
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("started", sa.String(40)),
            sa.Column("commit", sa.String(64)),
            sa.Column("lighthouse", sa.String(64)),
            sa.Column("machine", sa.String(256)),
            sa.Column("threads", sa.Integer),
            sa.Column("source", sa.Text),
            # The whole run record: corpora, compilers, settings, its schema.
            sa.Column("run", sa.Text),
            sa.Column("fingerprint", sa.String(64), unique=True),
        )
        self.cases = sa.Table(
            "cases",
            self.metadata,
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id"), index=True),
            sa.Column("corpus", sa.String(128)),
            sa.Column("case", sa.String(512)),
            sa.Column("compiler", sa.String(128)),
            sa.Column("status", sa.String(32)),
            sa.Column("call_seconds", sa.Float),
            # The whole case record.
            sa.Column("record", sa.Text),
        )


def _open(db: str):
    """SQLAlchemy, an engine on the database `db` and its tables, created if
    absent.

    Raises:
      ValueError: `db` is no database that opens, or its layout is of a later
        version.
    """
    sa = require("sqlalchemy", "history")
    try:
        engine = sa.create_engine(database_url(db))
        tables = _Tables(sa)
        tables.metadata.create_all(engine)
    except sa.exc.ArgumentError as error:
        raise ValueError(f"--db {db!r}: not a database URL or file ({error})") from None
    except (sa.exc.NoSuchModuleError, sa.exc.OperationalError) as error:
        raise ValueError(f"--db {db!r}: cannot open the database: {error}") from None
    with engine.begin() as connection:
        version = connection.execute(
            sa.select(tables.meta.c.value).where(tables.meta.c.key == "schema")
        ).scalar()
        if version is None:
            connection.execute(tables.meta.insert().values(key="schema", value=str(SCHEMA_VERSION)))
        elif int(version) > SCHEMA_VERSION:
            raise ValueError(
                f"{db}: a history database of schema {version}, written by a later "
                f"lighthouse; this one reads up to {SCHEMA_VERSION}"
            )
    return sa, engine, tables


def record(db: str, paths: Sequence[str], commit: Optional[str] = None) -> List[Tuple[str, int]]:
    """Stores the run of each results file in `paths` with its case records;
    `commit` for runs that recorded none (or to say which they tested).
    Returns (path, run id) of each run stored: a run stored before is not
    stored again (its id is None).

    Raises:
      ValueError: a file holds no run record (or is not a results file).
    """
    sa, engine, tables = _open(db)
    stored = []
    for path in paths:
        runs, cases = read_results(path)
        if not runs:
            raise ValueError(f"{path}: no run record: not the results of lh-suite run or merge")
        run = dict(runs[0])
        run["commit"] = commit or run.get("commit")
        text = json.dumps(run, sort_keys=True)
        fingerprint = _fingerprint(text)
        with engine.begin() as connection:
            known = connection.execute(
                sa.select(tables.runs.c.id).where(tables.runs.c.fingerprint == fingerprint)
            ).scalar()
            if known is not None:
                stored.append((path, None))
                continue
            run_id = connection.execute(
                tables.runs.insert().values(
                    started=run.get("started"),
                    commit=run.get("commit"),
                    lighthouse=run.get("lighthouse"),
                    machine=run.get("machine"),
                    threads=run.get("threads"),
                    source=os.path.abspath(path),
                    run=text,
                    fingerprint=fingerprint,
                )
            ).inserted_primary_key[0]
            if cases:
                connection.execute(
                    tables.cases.insert(),
                    [
                        {
                            "run_id": run_id,
                            "corpus": case["corpus"],
                            "case": case["case"],
                            "compiler": case["compiler"],
                            "status": case["status"],
                            "call_seconds": case.get("call_seconds"),
                            "record": json.dumps(case),
                        }
                        for case in cases
                    ],
                )
        stored.append((path, run_id))
    return stored


def _fingerprint(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass
class Run:
    """A stored run: its id, its run record, and its case records by
    (corpus, case, compiler)."""

    id: int
    run: dict
    source: str
    cases: Dict[Tuple[str, str, str], dict]

    @property
    def label(self) -> str:
        """The run's commit (short), or its id."""
        commit = self.run.get("commit")
        return commit[:8] if commit else f"run {self.id}"


@dataclass
class History:
    """The stored runs, oldest first (by when they started)."""

    db: str
    runs: List[Run]

    def latest(self) -> Tuple[Dict[Tuple[str, str, str], Tuple[Run, dict]], List[Run]]:
        """The latest result of each case, with its run, of the latest runs:
        the last one and those just before it of its commit that ran other
        corpora or compilers (a CI job records a run of each); and the runs
        before those."""
        first, kinds = len(self.runs), set()
        commit = self.runs[-1].run.get("commit") if self.runs else None
        while first > 0:
            run = self.runs[first - 1].run
            kind = (tuple(run.get("corpora", ())), tuple(run.get("compilers", ())))
            if kind in kinds or (kinds and run.get("commit") != commit):
                break
            kinds.add(kind)
            first -= 1
        results = {}
        for run in self.runs[first:]:
            for key, record in run.cases.items():
                results[key] = (run, record)
        return results, self.runs[:first]


def load(db: str, last: Optional[int] = None) -> History:
    """The runs of the database `db` (the `last` ones), oldest first."""
    sa, engine, tables = _open(db)
    with engine.connect() as connection:
        query = sa.select(tables.runs).order_by(
            tables.runs.c.started.desc(), tables.runs.c.id.desc()
        )
        if last:
            query = query.limit(last)
        rows = list(connection.execute(query))[::-1]
        runs = []
        for row in rows:
            cases = {}
            for (text,) in connection.execute(
                sa.select(tables.cases.c.record).where(tables.cases.c.run_id == row.id)
            ):
                case = json.loads(text)
                cases[(case["corpus"], case["case"], case["compiler"])] = case
            runs.append(Run(row.id, json.loads(row.run), row.source, cases))
    return History(db, runs)


@dataclass
class Regression:
    """A case whose latest result is out of its history: `kind` "fails"
    (it passed in each of its recent runs) or "slower" (its time is above
    the noise band of its recent times), with the numbers that say so."""

    key: Tuple[str, str, str]  # (corpus, case, compiler)
    kind: str
    latest: dict
    run: Run  # The run the case's latest result is of.
    earlier: List[Run]  # The runs the band was measured over.
    median: Optional[float] = None
    limit: Optional[float] = None

    def describe(self) -> str:
        corpus, case, compiler = self.key
        where = f"{case} ({corpus}) on {compiler}"
        if self.kind == "fails":
            message = (self.latest.get("message") or "").strip().splitlines()
            return (
                f"{where}: {self.latest['status']} in {self.run.label}, passed in the "
                f"{len(self.earlier)} run(s) before" + (f": {message[0][:160]}" if message else "")
            )
        return (
            f"{where}: {self.latest['call_seconds'] * 1e3:.3g} ms in {self.run.label}, above "
            f"{self.limit * 1e3:.3g} ms, the noise band of its last {len(self.earlier)} "
            f"timed runs (median {self.median * 1e3:.3g} ms)"
        )


def timing_band(values: Sequence[float], band: float) -> Tuple[float, float]:
    """The median of a case's earlier times and the most a new time may be
    within their noise: `NOISE_DEVIATIONS` scaled median absolute
    deviations above the median, at least the slowest time and `band` of it."""
    median = statistics.median(values)
    deviation = 1.4826 * statistics.median(abs(v - median) for v in values)
    return median, max(median + NOISE_DEVIATIONS * deviation, max(values) * (1 + band))


def check(history: History, window: int = 10, band: float = 0.05) -> List[Regression]:
    """The cases of the latest runs (`History.latest`) whose result is out
    of their history over the `window` runs before that ran them: one that
    fails where it passed in each of those runs; one slower than
    `timing_band` of its times in those of them of the same machine and
    threads (times of other machines are not its noise), once it has
    `MIN_HISTORY` of them."""
    results, earlier_runs = history.latest()
    found = []
    for key, (latest, result) in sorted(results.items()):
        before = [run for run in earlier_runs if key in run.cases][-window:]
        if not before:
            continue
        if result["status"] in FAILED:
            if all(run.cases[key]["status"] == "pass" for run in before):
                found.append(Regression(key, "fails", result, latest, before))
            continue
        seconds = result.get("call_seconds") if result["status"] == "pass" else None
        timed = [
            run
            for run in before
            if run.run.get("machine") == latest.run.get("machine")
            and run.run.get("threads") == latest.run.get("threads")
            and run.cases[key]["status"] == "pass"
            and run.cases[key].get("call_seconds")
        ]
        if seconds is None or len(timed) < MIN_HISTORY:
            continue
        median, limit = timing_band([run.cases[key]["call_seconds"] for run in timed], band)
        if seconds > limit:
            found.append(Regression(key, "slower", result, latest, timed, median, limit))
    return found
