//===- TallyTypes.h - Types of the tally dialect ----------------*- C++ -*-===//

#ifndef TALLY_TALLYTYPES_H
#define TALLY_TALLYTYPES_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"

#define GET_TYPEDEF_CLASSES
#include "tallyTypes.h.inc"

#endif // TALLY_TALLYTYPES_H
