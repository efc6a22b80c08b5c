//===- LumenPasses.td - Passes of the lumen dialect -----------*- tablegen -*-===//

#ifndef LUMEN_PASSES_TD
#define LUMEN_PASSES_TD

include "mlir/Pass/PassBase.td"

def LumenExpandScale : Pass<"lumen-expand-scale"> {
  let summary = "Rewrites lumen.scale as an arith.mulf by an arith.constant";
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

#endif // LUMEN_PASSES_TD
