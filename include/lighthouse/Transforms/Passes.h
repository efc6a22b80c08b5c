//===- Passes.h - lighthouse's passes ---------------------------*- C++ -*-===//
//
// lighthouse's rewrites of linalg, loops and the LLVM dialect, declared in
// Passes.td: their create functions and `registerLighthouseTransformsPasses`.
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_TRANSFORMS_PASSES_H
#define LIGHTHOUSE_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace lighthouse {

#define GEN_PASS_DECL
#include "lighthouse/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "lighthouse/Transforms/Passes.h.inc"

} // namespace lighthouse

#endif // LIGHTHOUSE_TRANSFORMS_PASSES_H
