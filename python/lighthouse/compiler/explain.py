"""What lighthouse says when MLIR fails without saying why: the text of a
parse (made first in a child process, which alone meets the parser's
crashes) that failed on bytes that are not UTF-8 or ran out of memory, the
largest type of a module that ran out of memory, and the diagnostics of a JIT
that failed. Used by the compiler (`jit`, `entry_points`) and the tools."""

import math
import re
import signal
from typing import Union

from .. import ir
from .._mlir_libs._lighthouse import parse_module_contained


#: How a parse says that MLIR's parser crashed in the child that parsed first.
PARSER_CRASHED = "MLIR's parser crashed"


def parse_text(
    text: Union[str, bytes], name: str = "the IR text", filename: str = "-"
) -> ir.Module:
    """Parses MLIR text (str, or bytes of UTF-8) in the current context, once
    a child process has parsed it (lighthouse-c/Parsing.h): MLIR's parser has
    inputs on which it crashes or writes to freed memory, and those end in
    the child, not in this process. Locations name `filename`.

    Raises:
      ValueError: bytes that are not UTF-8, at their line and column
        (`name` says whose, e.g. a file's path).
      ir.MLIRError: the parser's diagnostics (bytes that a string literal's
        escapes (`"\\FF"`) make and that are not UTF-8 shown as U+FFFD), or
        the parser crashing on the text (one of its known faults on
        malformed input: docs/compile.md, Known limits).
      MemoryError: what the text declares that is largest, and where.
    """
    if isinstance(text, (bytes, bytearray)):
        data = bytes(text)
        _decoded(data, name)
    else:
        try:
            data = text.encode()
        except UnicodeEncodeError as error:  # A str with lone surrogates.
            line, column = _line_and_column(text, error.start)
            raise ValueError(
                f"{name} is not valid Unicode: {text[error.start]!r} at line {line}, column "
                f"{column} cannot be UTF-8"
            ) from None
    module, outcome, signal, diagnostics = parse_module_contained(
        ir.Context.current, data, filename
    )
    if outcome == "parsed":
        return module
    if outcome == "out of memory":
        raise MemoryError(
            f"parsing {name} ({len(data)} bytes) ran out of memory; "
            f"{_largest_in_text(data.decode(errors='replace'))}"
        )
    if outcome == "crashed":
        cause = f"signal {_signal_name(signal)}" if signal else "LLVM's fatal error"
        raise ir.MLIRError(
            f"{PARSER_CRASHED} ({cause}) on {name}, in a child process that parsed it "
            "first; the text is malformed in a way the parser does not check (docs/compile.md, "
            "Known limits, lists the known cases)",
            [],
        )
    errors, replaced = [], False
    for is_note, file, line, column, message in diagnostics:
        shown = message.decode(errors="replace")
        replaced |= shown != message.decode(errors="ignore")
        found = _Diagnostic(ir.Location.file(file, line, column), shown, [])
        if is_note and errors:
            errors[-1].notes.append(found)
        else:
            errors.append(found)
    error = ir.MLIRError("Unable to parse module assembly", errors)
    if replaced:
        error.message += (
            " (a string literal's escapes make bytes that are not UTF-8; shown as U+FFFD)"
        )
    raise error


class _Diagnostic:
    """A diagnostic of a parse made in another process, as MLIRError shows
    diagnostics: its location, message and notes."""

    def __init__(self, location: ir.Location, message: str, notes: list):
        self.location, self.message, self.notes = location, message, notes
        self.severity = ir.DiagnosticSeverity.ERROR


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


def _decoded(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line, column = _line_and_column(data, error.start)
        raise ValueError(
            f"{name} is not UTF-8: byte 0x{data[error.start]:02x} at line {line}, "
            f"column {column} ({error.reason})"
        ) from None


def _line_and_column(text, offset: int):
    """1-based line and column (in bytes, as MLIR's locations count them for
    bytes, in characters for str) of `offset`."""
    newline = "\n" if isinstance(text, str) else b"\n"
    line = text.count(newline, 0, offset) + 1
    return line, offset - (text.rfind(newline, 0, offset) + 1) + 1


# A shaped type as the IR spells it, up to its element type: its sizes.
_SHAPED_TYPE = re.compile(r"\b(?:tensor|memref|vector)<((?:(?:\d+|\?)x)+)[\w.!]*")
# The sizes of an LLVM array type and of the arrays it nests.
_ARRAY_TYPE = re.compile(r"(?:!llvm\.)?array<(\d+) x ")

#: Elements below which a declared type does not explain running out of memory.
_LARGE_ELEMENTS = 1 << 26


def _elements(type_text: str) -> int:
    """Elements of the shaped or LLVM array type `type_text`, by its static
    sizes; 0 for other types."""
    shaped = _SHAPED_TYPE.match(type_text)
    if shaped:
        sizes = shaped.group(1).split("x")[:-1]
        return math.prod(int(size) for size in sizes if size != "?")
    count, position = 0, 0
    while True:
        array = _ARRAY_TYPE.match(type_text, position)
        if not array:
            return count
        count, position = max(count, 1) * int(array.group(1)), array.end()


def _largest(found: list, where: str) -> str:
    """Says which of `found`, (elements, type, place) triples, is largest."""
    if not found:
        return f"{where} holds no tensor, memref, vector or array type"
    elements, text, place = max(found, key=lambda f: f[0])
    largest = f"{text} ({elements:,} elements) {place}"
    if elements >= _LARGE_ELEMENTS:
        return f"the largest type {where} holds is {largest}"
    return (
        f"no type {where} holds is large (the largest is {largest}), so MLIR asked for the "
        "memory itself, as on malformed IR that an upstream parser does not check (e.g. an "
        "integer among linalg.generic's iterator_types; docs/compile.md, Known limits)"
    )


def _largest_in_text(text: str) -> str:
    found = []
    for pattern in (_SHAPED_TYPE, _ARRAY_TYPE):
        for match in pattern.finditer(text):
            spelled = _spelled_type(text, match.start())
            line, column = _line_and_column(text, match.start())
            found.append((_elements(spelled), spelled, f"at line {line}, column {column}"))
    return _largest(found, "the text")


def _spelled_type(text: str, start: int) -> str:
    """The type spelled at `start` of `text`, to its closing `>` (on its line)."""
    depth = 0
    for end in range(start, min(len(text), start + 200)):
        if text[end] == "<":
            depth += 1
        elif text[end] == ">" and text[end - 1] != "-":  # Not the arrow `->`.
            depth -= 1
            if depth == 0:
                return text[start : end + 1]
        elif text[end] == "\n":
            break
    return text[start:end] + "..."


def out_of_memory(stage: str, error: MemoryError, module: ir.Module) -> MemoryError:
    """A MemoryError of `stage` on `module`, naming the largest type in it."""
    found = []

    def visit(op):
        types = [result.type for result in op.results]
        for region in op.regions:
            for block in region.blocks:
                types.extend(argument.type for argument in block.arguments)
        for _, attribute in op.attributes.items():
            if isinstance(attribute, ir.TypeAttr):
                types.append(attribute.value)
            elif isinstance(getattr(attribute, "type", None), ir.Type):
                types.append(attribute.type)
        for t in types:
            text = str(t)
            elements = _elements(text)
            if elements:
                found.append((elements, text, f"of '{op.name}' at {op.location}"))
        return ir.WalkResult.ADVANCE

    try:
        module.operation.walk(visit)
    except Exception:  # noqa: BLE001 - the description is a best effort
        pass
    return MemoryError(f"{stage} ran out of memory ({error}); {_largest(found, 'the module')}")


def diagnostic_collector(diagnostics: list):
    """A diagnostic handler that keeps each diagnostic, as MLIRError prints
    it; it takes errors over, and leaves the others to be printed as before."""

    def text(diagnostic) -> str:
        try:
            location = str(diagnostic.location)
            location = location[4:-1] if location.startswith("loc(") else location
        except Exception:  # noqa: BLE001 - a location that is not UTF-8
            location = "(a location that is not UTF-8)"
        try:
            message = diagnostic.message
        except Exception:  # noqa: BLE001 - a message that is not UTF-8
            message = "(a message that is not UTF-8)"
        return f"{location}: {message}"

    def handle(diagnostic) -> bool:
        severity = str(diagnostic.severity).rsplit(".", 1)[-1].lower()
        lines = [f"{severity}: {text(diagnostic)}"]
        lines.extend(f" note: {text(note)}" for note in diagnostic.notes)
        diagnostics.append("\n".join(lines))
        return severity == "error"

    return handle


def jit_reason(message: str, diagnostics: list, stage: str, function_name: str) -> str:
    """Why the JIT failed: LLVM's message and MLIR's diagnostics, or, when
    neither says anything, which step failed."""
    reason = message.strip()
    if diagnostics:
        reason = reason.replace(" (see the diagnostics)", ":") + "\n" + "\n".join(diagnostics)
    else:
        reason = reason.replace("(see the diagnostics)", "(MLIR gave no diagnostic)")
    bare = reason.removeprefix("cannot JIT-compile the module:").strip()
    if bare:
        return reason
    if stage == "jit":
        return (
            "translating the module to LLVM IR and compiling it failed, and neither MLIR "
            "nor LLVM gave a reason"
        )
    return (
        f"linking the code and looking up _mlir__mlir_ciface_{function_name} failed, and "
        "LLVM gave no reason"
    )
