//===- TallyOps.h - Operations of the tally dialect -------------*- C++ -*-===//

#ifndef TALLY_TALLYOPS_H
#define TALLY_TALLYOPS_H

#include "Tally/TallyDialect.h"
#include "Tally/TallyTypes.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "tallyOps.h.inc"

#endif // TALLY_TALLYOPS_H
