"""Bad input raises Python exceptions carrying MLIR's diagnostics."""

import subprocess
import sys

import pytest

from lighthouse import ir
from lighthouse.compiler import compile_module
from lighthouse.passmanager import PassManager


@pytest.mark.parametrize(
    "source, diagnostic",
    [
        pytest.param("func.func @f( {", ":1:14: expected non-function type", id="malformed"),
        pytest.param(
            'func.func @f() {\n "arith.frobnicate"() : () -> ()\n return\n}',
            ":2:2: unregistered operation 'arith.frobnicate'",
            id="unknown-op",
        ),
        # The parser verifies what it parsed.
        pytest.param(
            "func.func @f(%a: i32) -> i64 { return %a : i32 }",
            ":1:32: type of return operand 0 ('i32') doesn't match function result type",
            id="invalid",
        ),
    ],
)
def test_bad_ir_text_raises_with_diagnostic_and_location(source, diagnostic):
    with ir.Context():
        with pytest.raises(ir.MLIRError) as info:
            ir.Module.parse(source)
    message = str(info.value)
    assert message.startswith("Unable to parse module assembly")
    assert diagnostic in message


def test_verifier_failure_of_built_ir_carries_diagnostics():
    with ir.Context(), ir.Location.file("built.py", 7, 3):
        module = ir.Module.create()
        i32 = ir.IntegerType.get_signless(32)
        i64 = ir.IntegerType.get_signless(64)
        with ir.InsertionPoint(module.body):
            a = ir.Operation.create(
                "arith.constant", results=[i32], attributes={"value": ir.IntegerAttr.get(i32, 1)}
            ).result
            b = ir.Operation.create(
                "arith.constant", results=[i64], attributes={"value": ir.IntegerAttr.get(i64, 2)}
            ).result
            # Operand types that differ: arith.addi's verifier rejects this.
            ir.Operation.create("arith.addi", results=[i32], operands=[a, b])
        with pytest.raises(ir.MLIRError) as info:
            module.operation.verify()
    message = str(info.value)
    assert "Verification failed" in message
    assert "arith.addi" in message
    assert "\"built.py\":7:3: 'arith.addi' op requires the same type" in message


@pytest.mark.parametrize(
    "pipeline, diagnostic",
    [
        pytest.param(
            "builtin.module(no-such-pass)",
            "'no-such-pass' does not refer to a registered pass",
            id="unknown-pass",
        ),
        pytest.param(
            "builtin.module(canonicalize",
            "expected pass pipeline to be wrapped with the anchor operation type",
            id="unbalanced",
        ),
        pytest.param(
            "builtin.module(canonicalize{max-iterations=lots})",
            "failed to add `canonicalize` with options `max-iterations=lots`",
            id="bad-option",
        ),
    ],
)
def test_bad_pipeline_raises_with_the_cause(pipeline, diagnostic):
    with ir.Context():
        with pytest.raises(ValueError) as info:
            PassManager.parse(pipeline)
    assert diagnostic in str(info.value)


def test_failing_pass_raises_with_diagnostics():
    # Tiling an op that cannot be tiled fails the transform interpreter pass.
    source = """module attributes {transform.with_named_sequence} {
  func.func @f(%a: i32) -> i32 {
    return %a : i32
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %ret = transform.structured.match ops{["func.return"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %loop = transform.structured.tile_using_for %ret tile_sizes [4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}"""
    with ir.Context():
        module = ir.Module.parse(source)
        pm = PassManager.parse("builtin.module(transform-interpreter)")
        with pytest.raises(ir.MLIRError) as info:
            pm.run(module.operation)
    message = str(info.value)
    assert "Failure while executing pass pipeline" in message
    assert ":7:21: only ops implementing TilingInterface are supported" in message
    assert ":3:5: target op" in message


def test_diagnostic_quoting_bytes_that_are_not_utf8_keeps_its_text():
    # `\FF` in a string literal makes the byte 0xFF, not UTF-8, which the
    # parser's diagnostic quotes: MLIR's bindings cannot make it a str.
    source = 'func.func @main() {\n  "arith.\\FF"() : () -> ()\n  return\n}'
    with pytest.raises(ir.MLIRError) as info:
        compile_module(source)
    message = str(info.value)
    assert ":2:3: unregistered operation 'arith.\ufffd' found in dialect ('arith')" in message
    assert "not UTF-8; shown as U+FFFD" in message


def test_ir_bytes_that_are_not_utf8_are_located():
    source = b'func.func @main() {\n  "arith.\xff"() : () -> ()\n  return\n}'
    with pytest.raises(
        ValueError, match="the IR text is not UTF-8: byte 0xff at line 2, column 10"
    ):
        compile_module(source)
    # UTF-8 bytes are IR text as a str is.
    compiled = compile_module(b"func.func @main(%a: i32) -> i32 { return %a : i32 }")
    assert compiled(5) == 5


# A global of 2^31 i1, which LLVM builds element by element (a splat
# constant tensor no longer becomes one: lighthouse-splats-as-fills).
HUGE_GLOBAL = """
llvm.mlir.global internal constant @g(dense<true> : tensor<2147483648xi1>) : !llvm.array<2147483648 x i1>
func.func @main() -> i1 {
  %p = llvm.mlir.addressof @g : !llvm.ptr
  %v = llvm.load %p : !llvm.ptr -> i1
  return %v : i1
}"""


def test_memory_error_names_what_was_too_large():
    # The JIT's LLVM IR for a global of 2^31 i1 takes 16 GB: in a process
    # with 4 GB of address space its first allocation fails at once.
    script = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))\n"
        "from lighthouse.compiler import compile_module\n"
        "try:\n"
        "    compile_module(sys.stdin.read())\n"
        "except MemoryError as error:\n"
        "    print(f'MemoryError: {error}')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], input=HUGE_GLOBAL, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert "MemoryError: the JIT (translation to LLVM IR) ran out of memory" in result.stdout
    assert (
        "!llvm.array<2147483648 x i1> (2,147,483,648 elements) of 'llvm.mlir.global' "
        'at loc("-":2:1)' in result.stdout
    )


def test_a_huge_splat_constant_is_filled_not_stored():
    """A splat constant tensor is written by a fill as the code runs, not
    stored as a global that LLVM builds element by element (2^31 i1 ran the
    JIT out of memory after 17 GB)."""
    script = (
        "import resource, sys, time\n"
        "resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))\n"
        "from lighthouse.compiler import compile_module\n"
        "for n in (2**31, 100_000):\n"
        "    text = (f'func.func @main() -> tensor<{n}xi8> {{ %c = arith.constant dense<7> : '\n"
        "            f'tensor<{n}xi8> \\n return %c : tensor<{n}xi8> }}')\n"
        "    compiled = compile_module(text)\n"
        "print('filled:', compiled().shape, int(compiled().min()), int(compiled().max()))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "filled: (100000,) 7 7" in result.stdout
