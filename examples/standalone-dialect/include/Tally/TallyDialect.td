//===- TallyDialect.td - The tally dialect -----------------*- tablegen -*-===//

#ifndef TALLY_DIALECT_TD
#define TALLY_DIALECT_TD

include "mlir/IR/OpBase.td"

def Tally_Dialect : Dialect {
  let name = "tally";
  let summary = "Counters that wrap around, like the hours of a clock";
  let description = [{
    A `!tally.counter<N>` holds a count in [0, N). Its ops start a counter from
    an integer, advance it and read it back; `convert-tally-to-arith` lowers
    them to integer arithmetic.
  }];
  let cppNamespace = "::tally";
  let useDefaultTypePrinterParser = 1;
  // Defined next to the types (lib/Tally/TallyTypes.cpp), which it adds.
  let extraClassDeclaration = [{
    void registerTypes();
  }];
}

class Tally_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tally_Dialect, mnemonic, traits>;

#endif // TALLY_DIALECT_TD
