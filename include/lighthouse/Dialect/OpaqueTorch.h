//===- OpaqueTorch.h - Placeholder for torch-mlir's torch dialect -*- C++
//-*-===//
//
// lighthouse does not build torch-mlir's `torch` dialect, yet torch-mlir's
// importers build their IR in a lighthouse context. This dialect claims the
// `torch` namespace and accepts any operation, type and attribute in it, so
// that such IR can be built, printed, parsed and handed to torch-mlir for
// lowering. Nothing is known about these operations: they have no verifiers,
// folders, interfaces or side-effect information, and lighthouse's own passes
// treat them as unknown.
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_DIALECT_OPAQUETORCH_H
#define LIGHTHOUSE_DIALECT_OPAQUETORCH_H

#include "mlir/IR/Dialect.h"
#include "mlir/Support/TypeID.h"

namespace lighthouse {

/// Holds torch-mlir's `torch` dialect IR as unknown operations and opaque
/// types and attributes.
class OpaqueTorchDialect : public mlir::Dialect {
public:
  explicit OpaqueTorchDialect(mlir::MLIRContext *context);

  static llvm::StringRef getDialectNamespace() { return "torch"; }

  /// Parses any `#torch...` attribute as an opaque attribute (the printer
  /// prints those without the dialect's help).
  mlir::Attribute parseAttribute(mlir::DialectAsmParser &parser,
                                 mlir::Type type) const override;
};

} // namespace lighthouse

MLIR_DECLARE_EXPLICIT_TYPE_ID(lighthouse::OpaqueTorchDialect)

#endif // LIGHTHOUSE_DIALECT_OPAQUETORCH_H
