//===- Pipelines.h - lighthouse's named pass pipelines ---------*- C++ -*-===//
//
// Pipelines from linalg on tensors to the LLVM dialect, ready for the
// execution engine or for translation to LLVM IR. They are registered under
// their names by lighthouse::registerAllPasses, so pipeline strings
// (`builtin.module(lighthouse-cpu)`), lh-opt and the C API can name them.
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_PIPELINES_PIPELINES_H
#define LIGHTHOUSE_PIPELINES_PIPELINES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace lighthouse {

/// Appends the reference CPU pipeline (`lighthouse-cpu-loops`,
/// lighthouse.compile's
/// `loops`: every op as loops, on one thread) to a module-level pass
/// manager: one-shot
/// bufferization of the whole module (function boundaries included, with
/// identity-layout memrefs there; public functions do not write to their
/// arguments), ownership-based buffer deallocation, loops
/// from linalg, and the conversions to the LLVM dialect, with C wrappers for
/// public functions. Returned buffers are owned by the caller. Failed
/// `cf.assert`s call lighthouse's runtime (lighthouse-c/Runtime.h), which
/// returns to the caller instead of aborting.
void buildCPULoopsPipeline(mlir::OpPassManager &pm);

/// Appends the CPU code generator: the rewrites into the forms the policies
/// take and strategy selection, both with `selectionOptions` (`threads=1
/// cache-tiles=64,256,64`, as lighthouse-cpu-prepare-forms and
/// lighthouse-cpu-select-strategy take them), then application; fails, with
/// the reason in `errors`, when the options do not parse.
llvm::LogicalResult buildCPUSchedulePipeline(mlir::OpPassManager &pm,
                                             llvm::StringRef selectionOptions,
                                             llvm::raw_ostream &errors);

/// Appends the CPU pipeline (`lighthouse-cpu`, lighthouse.compile's
/// `default`): the host as the target (unless the module names one), the
/// CPU code generator (matmuls split across threads, tiled for the cache and
/// the registers, vectorized; convolutions, poolings, reductions and
/// elementwise ops likewise), then the reference pipeline's lowering with
/// the threads on the OpenMP runtime (code compiled by it needs libomp,
/// which the package ships).
void buildCPUDefaultPipeline(mlir::OpPassManager &pm);

/// The same with `selectionOptions` for strategy selection.
llvm::LogicalResult buildCPUDefaultPipeline(mlir::OpPassManager &pm,
                                            llvm::StringRef selectionOptions,
                                            llvm::raw_ostream &errors);

/// Registers lighthouse's pipelines, `lighthouse-cpu` (the default; also
/// under its former name `lighthouse-cpu-fast`, for a release),
/// `lighthouse-cpu-loops` and `lighthouse-cpu-schedule`. The passes they name
/// are registered apart (lighthouse::registerAllPasses registers both).
void registerPipelines();

} // namespace lighthouse

#endif // LIGHTHOUSE_PIPELINES_PIPELINES_H
