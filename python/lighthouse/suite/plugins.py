"""Corpora and compilers: the two kinds of plugin the test bench runs, and
how they are found.

A package adds a corpus or a compiler without touching lighthouse by
declaring an entry point (see docs/testing-compilers.md):

    [project.entry-points."lighthouse.corpora"]
    my-models = "my_package.suite:MyModels"          # a Corpus subclass

    [project.entry-points."lighthouse.compilers"]
    my-compiler = "my_package.suite:MyCompiler"      # a Compiler subclass

A compiler class may have variants (`lighthouse:default`,
`lighthouse:loops`): `variants()` lists them and the constructor takes one.
"""

import importlib.metadata
import warnings
from typing import Callable, Dict, List, Optional, Sequence

import numpy as np

from .case import Case, CaseInfo

__all__ = [
    "COMPILERS_GROUP",
    "CORPORA_GROUP",
    "Compiler",
    "Corpus",
    "Option",
    "compiler_names",
    "corpus_classes",
    "create_compiler",
    "create_corpus",
]

CORPORA_GROUP = "lighthouse.corpora"
COMPILERS_GROUP = "lighthouse.compilers"


class Option:
    """An option of a corpus, given on the command line as
    `--<corpus>-<name> VALUE` (`--kernelbench-path ~/KernelBench`)."""

    def __init__(self, default, help: str, type: Callable = str):
        self.default = default
        self.help = help
        self.type = type


class Corpus:
    """A set of cases. Subclasses set `name`, `description` and `options`,
    and implement `cases` and `load`.

    The runner lists the cases in its own process and builds each one in a
    worker process (`load`), so listing must be cheap and deterministic, and
    `load` must build the same case in any process.
    """

    name = ""
    description = ""
    #: Options by name, as `Option`s; their values arrive in `self.options`.
    options: Dict[str, Option] = {}

    def __init__(self, **options):
        unknown = set(options) - set(self.options)
        if unknown:
            raise ValueError(
                f"corpus {self.name!r} has no option "
                f"{', '.join(sorted(unknown))}; it has "
                f"{', '.join(sorted(self.options)) or 'none'}"
            )
        self.options = {
            key: options.get(key, option.default) for key, option in type(self).options.items()
        }

    def prepare(self, log: Callable[[str], None]) -> None:
        """Makes the corpus ready to list and load (generates a cache, say);
        `log` prints progress. Runs once per run, in the runner's process."""

    def cases(self) -> List[CaseInfo]:
        """The corpus's cases, in a stable order."""
        raise NotImplementedError

    def load(self, name: str) -> Case:
        """Builds the case `name` (in a worker process)."""
        raise NotImplementedError


class Compiler:
    """A way of compiling and running a case. Subclasses set `takes`, the forms
    (see `lighthouse.suite.case.FORMS`) they accept in order of preference,
    and implement `compile`.
    """

    #: Forms this compiler accepts, preferred first.
    takes: Sequence[str] = ()

    def __init__(self, variant: Optional[str] = None):
        self.variant = variant
        self.name = ""  # Set by create_compiler: "<entry point>[:<variant>]".
        #: The stage `compile` is in ("export", "import", ...), when it says:
        #: a compile error is recorded with it.
        self.stage: Optional[str] = None
        #: What `compile` says of the case besides its outcome (the ops a
        #: partitioned graph runs eagerly, say), added to the case's record.
        self.notes: Dict[str, object] = {}

    @classmethod
    def variants(cls) -> List[Optional[str]]:
        """The variants `lh-suite list` shows; [None] for a compiler without."""
        return [None]

    def setup(self, threads: int) -> None:
        """Called once in each worker before any case: raise `Unsupported` when a
        package it needs is missing; use `threads` threads from then on."""

    def compile(
        self, case: Case, form: str
    ) -> Callable[[Sequence[np.ndarray]], Sequence[np.ndarray]]:
        """Compiles `case.form(form)`; returns a function from the case's inputs
        (numpy arrays) to its outputs (numpy arrays, or what `to_numpy` takes).

        Exceptions raised here are compile errors; those raised by the
        returned function are run errors. Raise `Unsupported` when the case
        is out of this compiler's scope (rather than failing it).
        """
        raise NotImplementedError

    def compile_case(self, case: Case, form: str):
        """`compile`, its `stage` and `notes` reset first: what the worker calls."""
        self.stage = None
        self.notes = {}
        return self.compile(case, form)

    def failed_ops(self, error: BaseException) -> List[str]:
        """The names of the operations a compile error is about, when known."""
        return []


def _entry_points(group: str) -> Dict[str, importlib.metadata.EntryPoint]:
    return {ep.name: ep for ep in importlib.metadata.entry_points(group=group)}


def _load(entry_point: importlib.metadata.EntryPoint, what: str):
    """The class an entry point names.

    Raises:
      ValueError: it cannot be imported, naming the plugin and the cause.
    """
    try:
        return entry_point.load()
    except Exception as error:
        raise ValueError(
            f"the {what} plugin {entry_point.name!r} ({entry_point.value}) "
            f"failed to load: {type(error).__name__}: {error}"
        ) from None


def _loadable(group: str, what: str) -> Dict[str, type]:
    """The classes of a group's entry points; one that fails to load is left
    out with a warning, so that one broken package does not stop the others."""
    classes = {}
    for name, entry_point in sorted(_entry_points(group).items()):
        try:
            classes[name] = _load(entry_point, what)
        except ValueError as error:
            warnings.warn(str(error), stacklevel=2)
    return classes


def corpus_classes() -> Dict[str, type]:
    """Every installed corpus class that loads, by name."""
    return _loadable(CORPORA_GROUP, "corpus")


def create_corpus(name: str, **options) -> Corpus:
    """The corpus `name`, with `options`.

    Raises:
      ValueError: no installed package declares a corpus of that name.
    """
    entry_points = _entry_points(CORPORA_GROUP)
    if name not in entry_points:
        raise ValueError(
            f"unknown corpus {name!r}; installed: {', '.join(sorted(entry_points)) or 'none'}"
        )
    corpus = _load(entry_points[name], "corpus")(**options)
    corpus.name = name
    return corpus


def compiler_names() -> List[str]:
    """Every installed compiler and variant, as `lh-suite run --compiler` takes them."""
    names = []
    for name, compiler_class in _loadable(COMPILERS_GROUP, "compiler").items():
        for variant in compiler_class.variants():
            names.append(name if variant is None else f"{name}:{variant}")
    return names


def create_compiler(spec: str) -> Compiler:
    """The compiler `name` or `name:variant`.

    Raises:
      ValueError: no installed package declares a compiler of that name, or
        it has no such variant.
    """
    name, _, variant = spec.partition(":")
    entry_points = _entry_points(COMPILERS_GROUP)
    if name not in entry_points:
        raise ValueError(
            f"unknown compiler {name!r}; installed: {', '.join(compiler_names()) or 'none'}"
        )
    compiler_class = _load(entry_points[name], "compiler")
    known = compiler_class.variants()
    if (variant or None) not in known:
        listed = ", ".join(f"{name}:{v}" if v else name for v in known)
        raise ValueError(f"compiler {name!r} has no variant {variant!r}; it has {listed}")
    compiler = compiler_class(variant or None)
    compiler.name = spec
    return compiler
