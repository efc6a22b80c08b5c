"""ONNX rewrite rules: each ONNX op lighthouse rewrites before torch-mlir
converts it, and how.

A `Rule` is for one op of one domain over a range of opsets. It applies
`ALWAYS` (before import, to every node it fits: forms torch-mlir converts
wrong or not at all) or `ON_LOWERING_ERROR` (only once torch-mlir failed to
lower the op: forms it may convert, which lighthouse's rewrite expands).
Its `check` says why it does not fit a node (None when it does), and its
`rewrite` gives the replacing nodes, or a function the node is expanded
into (inlined as ONNX's own functions are, `fold.expand_functions`), or
None when it does not apply after all.

One file per op family, each ending in its `RULES`; `RULES` here is all of
them, in one registry, found by listing the package. Adding a rewrite is a
rule in its family's file, or a new file, and a test of it
(test/python/ingress/onnx/rules/, a file per family); docs/design.md
walks through one.
"""

import importlib
import pkgutil
from typing import Dict, List, Optional, Sequence

from .rule import ALWAYS, ON_LOWERING_ERROR, Rule, Site, When

__all__ = [
    "ALWAYS",
    "ON_LOWERING_ERROR",
    "RULES",
    "Rule",
    "Site",
    "When",
    "declined",
    "function_of",
    "has_rules",
    "rules_for",
]


def _registry() -> List[Rule]:
    """The rules of every module of this package but `rule`, in name order:
    a new family's file is found without being listed."""
    rules = []
    for module in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if module.name != "rule":
            rules.extend(importlib.import_module(f".{module.name}", __name__).RULES)
    return rules


#: Every rule, by family.
RULES: Sequence[Rule] = tuple(_registry())

_BY_OP: Dict[str, List[Rule]] = {}
for _rule in RULES:
    _BY_OP.setdefault(_rule.op, []).append(_rule)


def rules_for(node, when: Optional[When] = None) -> List[Rule]:
    """The rules for `node`'s op (those that apply `when`, if given)."""
    return [
        rule
        for rule in _BY_OP.get(node.op_type, ())
        if rule.fits(node) and (when is None or rule.when == when)
    ]


def has_rules(op: str, when: When) -> bool:
    """Whether a rule for ONNX's default domain's `op` applies `when`."""
    return any(rule.domain == "" and rule.when == when for rule in _BY_OP.get(op, ()))


def function_of(site: Site) -> Optional["onnx.FunctionProto"]:  # noqa: F821
    """The function the first rule for `site`'s node that gives one expands
    it into, None if none does."""
    for rule in rules_for(site.node):
        rewritten = rule.apply(site)
        if rewritten is not None and not isinstance(rewritten, list):
            return rewritten
    return None


def declined(site: Site) -> List[str]:
    """Each rule for `site`'s node and why it did not rewrite it: for a
    lowering error's message."""
    reasons = []
    for rule in rules_for(site.node):
        why = rule.declines(site)
        if why is None and rule.rewrite(site) is None:
            why = "its rewrite does not apply to this node"
        if why is not None:
            reasons.append(f"{rule.name} ({rule.when.value}): {why}")
    return reasons
