//===- Lumen.td - An example dialect built against lighthouse -*- tablegen -*-===//

#ifndef LUMEN_TD
#define LUMEN_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Lumen_Dialect : Dialect {
  let name = "lumen";
  let summary = "An example dialect that extends an installed lighthouse";
  let cppNamespace = "::lumen";
  let useDefaultTypePrinterParser = 1;
  let hasConstantMaterializer = 1;
}

class Lumen_Op<string mnemonic, list<Trait> traits = []>
    : Op<Lumen_Dialect, mnemonic, traits>;

def Lumen_BeamType : TypeDef<Lumen_Dialect, "Beam"> {
  let mnemonic = "beam";
  let summary = "A beam of `width` lanes";
  let parameters = (ins "int64_t":$width);
  let assemblyFormat = "`<` $width `>`";
  let genVerifyDecl = 1;
}

def Lumen_ScaleOp : Lumen_Op<"scale", [Pure, SameOperandsAndResultType]> {
  let summary = "Multiplies a float by a constant, non-zero factor";
  let arguments = (ins F32:$input, F32Attr:$factor);
  let results = (outs F32:$result);
  let assemblyFormat = "$input `by` $factor attr-dict `:` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Lumen_BeamOp : Lumen_Op<"beam", [Pure]> {
  let summary = "Spreads a float over the lanes of a beam";
  let arguments = (ins F32:$input);
  let results = (outs Lumen_BeamType:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

#endif // LUMEN_TD
