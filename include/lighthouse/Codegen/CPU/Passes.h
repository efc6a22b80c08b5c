//===- Passes.h - lighthouse's passes ---------------------------*- C++ -*-===//
//
// lighthouse's CPU code generator, declared in Passes.td: the create
// function of its schedule and `registerLighthouseCodegenCPUPasses`.
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_CODEGEN_CPU_PASSES_H
#define LIGHTHOUSE_CODEGEN_CPU_PASSES_H

#include "mlir/Pass/Pass.h"

namespace lighthouse {

#define GEN_PASS_DECL
#include "lighthouse/Codegen/CPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "lighthouse/Codegen/CPU/Passes.h.inc"

} // namespace lighthouse

#endif // LIGHTHOUSE_CODEGEN_CPU_PASSES_H
