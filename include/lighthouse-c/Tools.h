//===- Tools.h - lighthouse's command-line tools as C entry points -*- C
//-*-===//
//
// The tools are thin `main`s over these entry points, so that they link only
// lighthouse's shared library and see the same registrations as Python.
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_C_TOOLS_H
#define LIGHTHOUSE_C_TOOLS_H

#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Runs lh-opt (MLIR's opt driver with lighthouse's dialects, passes and
/// pipelines, and `--load-dialect-plugin` / `--load-pass-plugin`) on the
/// command line `argv`; returns the process exit code. The run happens in a
/// child process, so that a fault of MLIR on the input (a crash of its
/// parser) is an error with exit status 1 naming the signal;
/// LIGHTHOUSE_OPT_IN_PROCESS=1 runs it in the caller's process.
MLIR_CAPI_EXPORTED int lighthouseOptMain(int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif // LIGHTHOUSE_C_TOOLS_H
