//===- TallyPasses.td - Passes of the tally dialect --------*- tablegen -*-===//

#ifndef TALLY_PASSES_TD
#define TALLY_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTallyToArith : Pass<"convert-tally-to-arith"> {
  let summary = "Lowers tally's counters to i64 and its ops to arith";
  let description = [{
    A counter becomes the i64 of its count. A counter that is a block or
    function argument, or is returned, is not converted: the pass fails.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

#endif // TALLY_PASSES_TD
