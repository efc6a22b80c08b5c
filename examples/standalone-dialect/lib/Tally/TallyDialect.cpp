//===- TallyDialect.cpp - The tally dialect -------------------------------===//

#include "Tally/TallyDialect.h"
#include "Tally/TallyOps.h"
#include "Tally/TallyTypes.h"

#include "tallyDialect.cpp.inc"

void tally::TallyDialect::initialize() {
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "tallyOps.cpp.inc"
      >();
}
