"""The fuzzer's limits and what it expects of lighthouse."""

KINDS = ("mlir", "onnx", "linalg")

#: Seconds a stage (parse, compile, call) may take before the worker counts
#: as hung. Compiling a seed takes 0.05 s (MLIR) to 0.3 s (ONNX, most of it
#: torch-mlir's process) on a shared 2-core machine; 20 s leaves room for the
#: slowest mutant seen while keeping a hang cheap.
DEFAULT_TIMEOUT = 20.0

#: A worker's address space, in bytes: a mutant that asks for a 2^40-element
#: buffer gets a failed allocation (MemoryError, or LLVM's out-of-memory
#: error) instead of taking the machine's memory from everything else.
MEMORY_LIMIT = 6 << 30

#: Cases a worker runs before it is replaced, so that the code of the
#: thousands of modules it compiled does not pile up in one process.
CASES_PER_WORKER = 400

#: An input with more elements than this is not made: the mutant is
#: compiled but not called.
MAX_INPUT_ELEMENTS = 1 << 22

#: The exceptions lighthouse raises on bad input, by stage; any other class
#: is marked unexpected. MemoryError: a buffer, or a parsed constant, that
#: cannot be allocated under MEMORY_LIMIT; OnnxImportError: torch-mlir's ONNX
#: importer refusing a model; ValueError at the call: a failed runtime check.
EXPECTED_ERRORS = {
    "parse": ("MLIRError", "MemoryError"),
    "compile": (
        "CompileError",
        "ValueError",
        "NotImplementedError",
        "MLIRError",
        "LoweringError",
        "ExchangeError",
        "IngressError",
        "InferenceError",
        "ValidationError",
        "OnnxImportError",
        "MemoryError",
    ),
    "call": ("ValueError", "MemoryError"),
}

#: Characters of an exception's message kept in a record.
MESSAGE_CHARS = 500
