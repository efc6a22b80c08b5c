//===- OpaqueDialects.cpp - Stand-ins for torch-mlir's dialects -----------===//

#include "lighthouse/Dialect/OpaqueDialects.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

MLIR_DEFINE_EXPLICIT_TYPE_ID(lighthouse::OpaqueTorchDialect)
MLIR_DEFINE_EXPLICIT_TYPE_ID(lighthouse::OpaqueTorchConversionDialect)
MLIR_DEFINE_EXPLICIT_TYPE_ID(lighthouse::OpaqueTMTensorDialect)

using namespace mlir;

namespace lighthouse {

OpaqueDialect::OpaqueDialect(StringRef name, MLIRContext *context,
                             TypeID typeID)
    : Dialect(name, context, typeID) {
  // Types are parsed into OpaqueType by the base class once this is allowed.
  allowUnknownOperations();
  allowUnknownTypes();
}

Attribute OpaqueDialect::parseAttribute(DialectAsmParser &parser,
                                        Type type) const {
  return OpaqueAttr::get(StringAttr::get(getContext(), getNamespace()),
                         parser.getFullSymbolSpec(),
                         type ? type : NoneType::get(getContext()));
}

OpaqueTorchDialect::OpaqueTorchDialect(MLIRContext *context)
    : OpaqueDialect(getDialectNamespace(), context,
                    TypeID::get<OpaqueTorchDialect>()) {}

OpaqueTorchConversionDialect::OpaqueTorchConversionDialect(MLIRContext *context)
    : OpaqueDialect(getDialectNamespace(), context,
                    TypeID::get<OpaqueTorchConversionDialect>()) {}

OpaqueTMTensorDialect::OpaqueTMTensorDialect(MLIRContext *context)
    : OpaqueDialect(getDialectNamespace(), context,
                    TypeID::get<OpaqueTMTensorDialect>()) {}

} // namespace lighthouse
