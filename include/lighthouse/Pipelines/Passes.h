//===- Passes.h - lighthouse's passes ---------------------------*- C++ -*-===//
//
// The CPU schedule of lighthouse's fast pipeline, declared in Passes.td: its
// create function and `registerLighthousePipelinesPasses`.
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
