"""The rule type of ONNX rewrites (`Rule`) and what a rule sees (`Site`)."""

import dataclasses
import enum
from typing import Callable, List, Mapping, Optional, Union

from ..values import DEFAULT_DOMAINS

__all__ = ["ALWAYS", "ON_LOWERING_ERROR", "Rewritten", "Rule", "Site", "When"]


class When(enum.Enum):
    """When a rule applies."""

    #: Before import, to every node it fits.
    ALWAYS = "always"
    #: After torch-mlir failed to lower a node of the op.
    ON_LOWERING_ERROR = "on a lowering error"


ALWAYS = When.ALWAYS
ON_LOWERING_ERROR = When.ON_LOWERING_ERROR


@dataclasses.dataclass(frozen=True)
class Site:
    """What a rule sees of a node: the node, the types of the graph's values
    (`values.types_of`), its constants (`values.constant_values`) and the
    model's opset of ONNX's default domain (0 when it imports none)."""

    node: "onnx.NodeProto"  # noqa: F821 - onnx is an optional dependency
    types: Mapping[str, "onnx.TypeProto"]  # noqa: F821
    constants: Mapping[str, object]
    opset: int


#: What a rewrite gives: the nodes replacing the node, a function to expand
#: it into, or None when the rule does not apply after all.
Rewritten = Union[List["onnx.NodeProto"], "onnx.FunctionProto", None]  # noqa: F821


@dataclasses.dataclass(frozen=True)
class Rule:
    """A rewrite of the nodes of `op` (of `domain`, "" for ONNX's default)
    at opsets `since` to `until` (inclusive; None: every later one)."""

    name: str
    op: str
    rewrite: Callable[[Site], Rewritten]
    when: When = ALWAYS
    #: Why the rule does not fit a node, None when it does.
    check: Callable[[Site], Optional[str]] = lambda site: None
    domain: str = ""
    since: int = 1
    until: Optional[int] = None

    def fits(self, node) -> bool:
        """Whether the rule is for `node`'s op and domain."""
        if node.op_type != self.op:
            return False
        if self.domain == "":
            return node.domain in DEFAULT_DOMAINS
        return node.domain == self.domain

    def declines(self, site: Site) -> Optional[str]:
        """Why the rule does not apply at `site` (its opset, or its check),
        None when it does."""
        if self.domain == "" and site.opset:
            if site.opset < self.since:
                return f"it is for opset {self.since} and later, the model's is {site.opset}"
            if self.until is not None and site.opset > self.until:
                return f"it is for opsets up to {self.until}, the model's is {site.opset}"
        return self.check(site)

    def apply(self, site: Site) -> Rewritten:
        """The rewrite of `site`'s node, None where the rule declines."""
        if self.declines(site) is not None:
            return None
        return self.rewrite(site)
