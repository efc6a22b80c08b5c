//===- TallyOps.td - Operations of the tally dialect -------*- tablegen -*-===//

#ifndef TALLY_OPS_TD
#define TALLY_OPS_TD

include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "Tally/TallyDialect.td"
include "Tally/TallyTypes.td"

def Tally_WrapOp : Tally_Op<"wrap", [Pure]> {
  let summary = "Starts a counter at an integer, wrapped into [0, modulus)";
  let description = [{
    The count is the integer modulo the counter's modulus, never negative:
    wrapping -1 onto `!tally.counter<12>` gives 11.
  }];
  let arguments = (ins I64:$value);
  let results = (outs Tally_CounterType:$counter);
  let assemblyFormat = "$value attr-dict `:` type($counter)";
}

def Tally_AdvanceOp : Tally_Op<"advance", [Pure, SameOperandsAndResultType]> {
  let summary = "Advances a counter by a constant number of steps";
  let description = [{
    Counts forward only: `steps` is not negative. Advancing by a multiple of
    the modulus folds away, and two advances in a row fold into one.
  }];
  let arguments = (ins Tally_CounterType:$counter, I64Attr:$steps);
  let results = (outs Tally_CounterType:$result);
  let assemblyFormat = "$counter `by` $steps attr-dict `:` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

// ODS infers the i64 result (a type it can build), so that neither C++ nor
// Python builders take a result type.
def Tally_ReadOp : Tally_Op<"read",
    [Pure, DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "The count of a counter, as an i64 in [0, modulus)";
  let arguments = (ins Tally_CounterType:$counter);
  let results = (outs I64:$value);
  let assemblyFormat = "$counter attr-dict `:` type($counter)";
}

#endif // TALLY_OPS_TD
