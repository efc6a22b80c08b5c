//===- TallyPasses.h - Passes of the tally dialect --------------*- C++ -*-===//

#ifndef TALLY_TALLYPASSES_H
#define TALLY_TALLYPASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Pass/Pass.h"

namespace tally {
// createConvertTallyToArith() and registerPasses(), which registers every
// pass of the dialect under its name.
#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "tallyPasses.h.inc"
} // namespace tally

#endif // TALLY_TALLYPASSES_H
