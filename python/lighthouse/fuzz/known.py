"""The crashes known: MLIR's own (each with a reproducer Debian's mlir-opt
crashes on too), lighthouse's open bugs, and torch-mlir's lowering, which
lighthouse contains."""

import dataclasses
import re
from typing import Optional, Tuple

# ===----------------------------------------------------------------------=== #
# Known upstream crashes
# ===----------------------------------------------------------------------=== #


@dataclasses.dataclass(frozen=True)
class KnownCrash:
    """A crash of MLIR's own code, which lighthouse inherits.

    Attributes:
      name: a short name.
      reason: what goes wrong, and where.
      pattern: a regular expression searched in a crash's signature.
      reproducer: a small program that crashes lighthouse, at `stage`.
      stage: "parse" (Module.parse) or "compile" (compile_module).
      upstream_options: the options with which Debian's mlir-opt 22 crashes
        on `reproducer` too, which shows the crash is MLIR's.
    """

    name: str
    reason: str
    pattern: str
    reproducer: str
    stage: str
    upstream_options: Tuple[str, ...] = ()


KNOWN_UPSTREAM: Tuple[KnownCrash, ...] = (
    KnownCrash(
        "linalg-list-parser",
        "linalg.transpose, linalg.broadcast and linalg.reduce parse their `permutation` "
        "or `dimensions` list with a callback that, when the list does not parse (an "
        "element missing, an integer past int64), still stores the attribute it did not "
        "make: NamedAttrList::set dereferences a null attribute (SIGSEGV)",
        r"parser of 'linalg\.(transpose|broadcast|reduce)'|"
        r"in mlir::linalg::(Transpose|Broadcast|Reduce)Op::parse",
        """func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %r = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%b : tensor<3x2xf32>) permutation = [, 1]
  return %r : tensor<3x2xf32>
}
""",
        "parse",
    ),
    KnownCrash(
        "linalg-broadcast-verifier",
        "linalg.broadcast's verifier indexes the input's sizes by the count of sizes not "
        "in `dimensions` before checking that count against the input's rank: a rank-0 "
        "input with repeated dimensions reads past its (empty) shape (SIGSEGV)",
        r"in mlir::linalg::BroadcastOp::verify",
        """func.func @main(%a: tensor<f32>, %b: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %r = linalg.broadcast ins(%a : tensor<f32>) outs(%b : tensor<3x2xf32>) dimensions = [1, 1]
  return %r : tensor<3x2xf32>
}
""",
        "parse",
    ),
    KnownCrash(
        "linalg-generic-iterator-types",
        "linalg.generic's parser reads each entry of `iterator_types` as a string to name "
        "it in its error, without checking that it is one: an integer entry makes the "
        "diagnostic copy from a bad pointer (SIGSEGV; in a process whose memory happens "
        "to be readable there, not every time)",
        r"in mlir::linalg::GenericOp::parse",
        """#map = affine_map<(d0) -> (d0)>
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", -1]}
      ins(%a : tensor<4xf32>) outs(%b : tensor<4xf32>) {
    ^bb0(%x: f32, %y: f32):
      linalg.yield %x : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
""",
        "parse",
    ),
    KnownCrash(
        "tensor-from-elements-huge-type",
        "tensor.from_elements's parser makes a vector of as many operand types as the "
        "result type has elements, before checking the count: a type of 2^63 elements "
        "asks SmallVector for more than it can hold, one of 2^31 for 16 GB (LLVM ERROR)",
        r"parser of 'tensor\.from_elements'.*(SmallVector unable to grow|out of memory)",
        """func.func @main() -> tensor<9223372036854775807xf32> {
  %c = arith.constant 1.0 : f32
  %r = tensor.from_elements %c : tensor<9223372036854775807xf32>
  return %r : tensor<9223372036854775807xf32>
}
""",
        "parse",
    ),
    KnownCrash(
        "tensor-expand-shape-verifier",
        "tensor.expand_shape's verifier reads the first entry of each reassociation group "
        "without checking that the group has one: an empty group `[]` reads past it "
        "(SIGSEGV)",
        r"in mlir::tensor::(Expand|Collapse)ShapeOp::verify",
        """func.func @main(%a: tensor<2x6xf32>) -> tensor<2x2x3xf32> {
  %e = tensor.expand_shape %a [[], [1, 2]] output_shape [2, 2, 3] : tensor<2x6xf32> into tensor<2x2x3xf32>
  return %e : tensor<2x2x3xf32>
}
""",
        "parse",
    ),
    KnownCrash(
        "tensor-concat-verifier",
        "tensor.concat's verifier indexes the operands' sizes by `dim` before checking "
        "it against their rank: a negative or huge `dim` reads out of bounds (SIGSEGV)",
        r"in mlir::tensor::ConcatOp::verify",
        """func.func @main(%a: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %c = tensor.concat dim(-2147483648) %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %c : tensor<4x3xf32>
}
""",
        "parse",
    ),
)

#: Crashes the fuzzer found in lighthouse's own code, or in MLIR's code that
#: only lighthouse's pipeline leads to: open bugs, each listed until fixed (a
#: test checks that its reproducer still crashes, so that a fixed one is
#: removed). A crash while calling compiled code has no entry: nothing names
#: the op at fault, and one entry would hide every other crash of its kind.
KNOWN_LIGHTHOUSE: Tuple[KnownCrash, ...] = ()

#: Crashes and hangs of torch-mlir's passes, which lighthouse contains: they
#: run in a process of their own (docs/ingress.md), whose death or time limit
#: compile_onnx raises as LoweringCrash while the caller goes on. Their
#: reproducers (ONNX models) are torch-mlir's to fix.
TORCH_MLIR_LOWERING = KnownCrash(
    "torch-mlir-lowering",
    "torch-mlir's process died or went past its time limit while lowering; "
    "compile_onnx raised LoweringCrash and the caller went on",
    r"^onnx lowering: ",
    "",
    "lowering",
)


def owner(known: KnownCrash) -> str:
    """Whose code is at fault: "mlir", "torch-mlir" or "lighthouse"."""
    if known is TORCH_MLIR_LOWERING:
        return "torch-mlir"
    return "lighthouse" if known in KNOWN_LIGHTHOUSE else "mlir"


def classify(signature: str) -> Optional[KnownCrash]:
    """The known crash whose pattern `signature` matches, if any."""
    for known in KNOWN_UPSTREAM + KNOWN_LIGHTHOUSE + (TORCH_MLIR_LOWERING,):
        if re.search(known.pattern, signature, re.DOTALL):
            return known
    return None
