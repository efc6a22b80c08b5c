//===- Parsing.h - Parsing text from outside, contained ----------*- C -*-===//
//
// MLIR's parser has inputs on which it crashes (a linalg op's `permutation`
// out of range, `array<index: ...>`) or writes to freed memory while
// reporting an error (an operand defined later in a region), which a later,
// unrelated compile in the same process then aborts on. Text from outside
// (a file, a string a user passes) is parsed first in a child process of
// its own, which alone meets those faults; the caller's process parses only
// text the child parsed without error.
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_C_PARSING_H
#define LIGHTHOUSE_C_PARSING_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/// How lighthouseParseModuleContained ended.
typedef enum LighthouseParseOutcome {
  /// The module is returned.
  LighthouseParseParsed = 0,
  /// The text is not a valid module: its diagnostics were reported.
  LighthouseParseFailed = 1,
  /// The child process died while parsing (`signal` says by which signal):
  /// the text meets a fault of MLIR's parser.
  LighthouseParseCrashed = 2,
  /// The child ran out of memory: the text declares more than fits.
  LighthouseParseOutOfMemory = 3,
} LighthouseParseOutcome;

/// Receives one diagnostic of a failed parse: an error, or a note attached
/// to the error before it (`isNote`), at `file`:`line`:`column` (line 0 when
/// it has no such location).
typedef void (*LighthouseDiagnosticCallback)(bool isNote, MlirStringRef file,
                                             unsigned line, unsigned column,
                                             MlirStringRef message,
                                             void *userData);

/// Parses `source` (named `sourceName` in locations) as a module in
/// `context`, after a child process has parsed it in a context of the same
/// dialects. Returns the module when the child parsed it (`*outcome`
/// LighthouseParseParsed); else a null module, the child's diagnostics
/// reported to `onDiagnostic` (LighthouseParseFailed), or the signal that
/// ended it in `*signal` (LighthouseParseCrashed; 0 for LLVM's fatal
/// error). Where no child can be started (fork fails), or the child does
/// not answer within a minute and more for long texts, the text is parsed in
/// the caller's process, as MLIR's own parse would. The caller owns the
/// module.
MLIR_CAPI_EXPORTED MlirModule lighthouseParseModuleContained(
    MlirContext context, MlirStringRef source, MlirStringRef sourceName,
    LighthouseDiagnosticCallback onDiagnostic, void *userData,
    LighthouseParseOutcome *outcome, int *signal);

#ifdef __cplusplus
}
#endif

#endif // LIGHTHOUSE_C_PARSING_H
