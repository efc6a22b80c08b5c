//===- Passes.h - lighthouse's passes ---------------------------*- C++ -*-===//
//
// The passes of lighthouse's pipelines, declared in Passes.td: their
// create functions and `registerLighthousePipelinesPasses`.
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_PIPELINES_PASSES_H
#define LIGHTHOUSE_PIPELINES_PASSES_H

#include "mlir/Pass/Pass.h"

namespace lighthouse {

#define GEN_PASS_DECL
#include "lighthouse/Pipelines/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "lighthouse/Pipelines/Passes.h.inc"

} // namespace lighthouse

#endif // LIGHTHOUSE_PIPELINES_PASSES_H
