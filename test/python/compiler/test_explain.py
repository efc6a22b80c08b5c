"""lighthouse.compiler.explain's parse: text from outside is parsed first in
a child process, so that MLIR's parser crashing on it ends there and the
caller gets an MLIRError and goes on."""

import subprocess
import sys

import numpy as np
import pytest

from lighthouse import fuzz, ir
from lighthouse.compiler import compile_module
from lighthouse.compiler.explain import PARSER_CRASHED, parse_text

GOOD = "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> { return %a : tensor<4xf32> }"

# MLIR 22's parser dies on an index array (an `array<index: ...>` attribute
# is not refused: its element type has no width).
INDEX_ARRAY = "func.func @main() attributes {a = array<index: 1, 2>} { return }"


def test_a_parser_crash_is_an_mlir_error_and_the_process_goes_on():
    with ir.Context():
        with pytest.raises(ir.MLIRError, match=f"^{PARSER_CRASHED} \\(signal SIG"):
            parse_text(INDEX_ARRAY)
    # The same process compiles and runs what comes next.
    x = np.arange(4, dtype=np.float32)
    assert compile_module(GOOD)(x).tolist() == x.tolist()


def test_the_crash_is_the_parsers_own():
    # Parsed in this process without lighthouse's child, the text kills it.
    script = (
        f"from lighthouse import ir\nwith ir.Context():\n    ir.Module.parse({INDEX_ARRAY!r})\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=120)
    assert done.returncode < 0


@pytest.mark.parametrize(
    "known", [k for k in fuzz.KNOWN_UPSTREAM if k.stage == "parse"], ids=lambda k: k.name
)
def test_known_parser_crashes_are_contained(known):
    # Each known crash of MLIR's parsers and verifiers reaches compile_module
    # as an MLIRError, or a MemoryError when the fault is an allocation of
    # what the parser misread (linalg-generic-iterator-types reads a bad
    # pointer, whose target differs from run to run).
    with pytest.raises((ir.MLIRError, MemoryError)):
        compile_module(known.reproducer)
    assert compile_module(GOOD) is not None


def test_a_failed_parse_keeps_its_diagnostics():
    with ir.Context():
        with pytest.raises(ir.MLIRError) as info:
            parse_text(
                'func.func @main() {\n  "foo.bar"() : () -> ()\n  return\n}', filename="in.mlir"
            )
    (diagnostic,) = info.value.error_diagnostics
    assert str(diagnostic.location) == 'loc("in.mlir":2:12)'
    assert "unregistered dialect" in diagnostic.message
    assert '"in.mlir":2:12: operation being parsed with an unregistered dialect' in str(info.value)


def test_a_parsed_module_is_the_callers():
    with ir.Context() as context:
        module = parse_text(GOOD)
        assert module.context is context
        assert "func.func @main" in str(module)
