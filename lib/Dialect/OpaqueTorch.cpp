//===- OpaqueTorch.cpp - Placeholder for torch-mlir's torch dialect -------===//

#include "lighthouse/Dialect/OpaqueTorch.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

MLIR_DEFINE_EXPLICIT_TYPE_ID(lighthouse::OpaqueTorchDialect)

using namespace mlir;

namespace lighthouse {

OpaqueTorchDialect::OpaqueTorchDialect(MLIRContext *context)
    : Dialect(getDialectNamespace(), context,
              TypeID::get<OpaqueTorchDialect>()) {
  // Types are parsed into OpaqueType by the base class once this is allowed.
  allowUnknownOperations();
  allowUnknownTypes();
}

Attribute OpaqueTorchDialect::parseAttribute(DialectAsmParser &parser,
                                             Type type) const {
  return OpaqueAttr::get(StringAttr::get(getContext(), getNamespace()),
                         parser.getFullSymbolSpec(),
                         type ? type : NoneType::get(getContext()));
}

} // namespace lighthouse
