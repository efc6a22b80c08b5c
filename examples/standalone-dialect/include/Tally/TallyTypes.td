//===- TallyTypes.td - Types of the tally dialect ----------*- tablegen -*-===//

#ifndef TALLY_TYPES_TD
#define TALLY_TYPES_TD

include "mlir/IR/AttrTypeBase.td"
include "Tally/TallyDialect.td"

class Tally_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tally_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Tally_CounterType : Tally_Type<"Counter", "counter"> {
  let summary = "A count in [0, modulus) that wraps around at its modulus";
  let description = [{
    `!tally.counter<12>` counts like the hours of a clock: advancing 11 by 3
    gives 2. The modulus is positive.
  }];
  let parameters = (ins "int64_t":$modulus);
  let assemblyFormat = "`<` $modulus `>`";
  let genVerifyDecl = 1;
}

#endif // TALLY_TYPES_TD
