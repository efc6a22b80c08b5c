//===- Passes.h - lighthouse's call boundary and checks ---------*- C++ -*-===//
//
// Declared in Passes.td: their create functions and
// `registerLighthouseBoundaryTransformsPasses`.
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_TRANSFORMS_BOUNDARY_PASSES_H
#define LIGHTHOUSE_TRANSFORMS_BOUNDARY_PASSES_H

#include "mlir/Pass/Pass.h"

namespace lighthouse {

#define GEN_PASS_DECL
#include "lighthouse/Transforms/Boundary/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "lighthouse/Transforms/Boundary/Passes.h.inc"

} // namespace lighthouse

#endif // LIGHTHOUSE_TRANSFORMS_BOUNDARY_PASSES_H
