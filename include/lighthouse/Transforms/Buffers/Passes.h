//===- Passes.h - lighthouse's passes after bufferization -------*- C++ -*-===//
//
// Declared in Passes.td: their create functions and
// `registerLighthouseBufferTransformsPasses`.
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_TRANSFORMS_BUFFERS_PASSES_H
#define LIGHTHOUSE_TRANSFORMS_BUFFERS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace lighthouse {

#define GEN_PASS_DECL
#include "lighthouse/Transforms/Buffers/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "lighthouse/Transforms/Buffers/Passes.h.inc"

} // namespace lighthouse

#endif // LIGHTHOUSE_TRANSFORMS_BUFFERS_PASSES_H
