//===- Passes.h - lighthouse's passes on linalg on tensors ------*- C++ -*-===//
//
// Declared in Passes.td: their create functions and
// `registerLighthouseTensorTransformsPasses`.
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_TRANSFORMS_TENSORS_PASSES_H
#define LIGHTHOUSE_TRANSFORMS_TENSORS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace lighthouse {

#define GEN_PASS_DECL
#include "lighthouse/Transforms/Tensors/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "lighthouse/Transforms/Tensors/Passes.h.inc"

} // namespace lighthouse

#endif // LIGHTHOUSE_TRANSFORMS_TENSORS_PASSES_H
