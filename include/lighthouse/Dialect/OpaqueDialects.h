//===- OpaqueDialects.h - Stand-ins for torch-mlir's dialects ---*- C++ -*-===//
//
// lighthouse does not build torch-mlir's dialects, yet IR in them crosses
// into lighthouse contexts: torch-mlir's importers build `torch` IR there,
// and torch-mlir's lowering leaves a few ops (scatter, sort, scan, top-k) in
// its `tm_tensor` dialect. A stand-in claims such a namespace and accepts any
// operation, type and attribute in it, so that the IR can be built, printed,
// parsed and handed on. Nothing is known about these operations: they have
// no verifiers, folders, interfaces or side-effect information (but for the
// torch stand-in's custom forms and constants, lib/Dialect/TorchForms.h);
// lighthouse's passes treat them as unknown, except the one that lowers
// `tm_tensor` (lighthouse-lower-tm-tensor), which checks what it reads.
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_DIALECT_OPAQUEDIALECTS_H
#define LIGHTHOUSE_DIALECT_OPAQUEDIALECTS_H

#include "mlir/IR/Dialect.h"
#include "mlir/Support/TypeID.h"

namespace lighthouse {

/// A dialect that holds any operation of its namespace as an unknown one,
/// and its types and attributes as opaque ones.
class OpaqueDialect : public mlir::Dialect {
public:
  /// Parses any type of the namespace as an opaque type, spelled as
  /// torch-mlir's printer spells it, so that spacings of one type are one
  /// type.
  mlir::Type parseType(mlir::DialectAsmParser &parser) const override;
  /// Parses any attribute of the namespace as an opaque attribute (the
  /// printer prints those without the dialect's help).
  mlir::Attribute parseAttribute(mlir::DialectAsmParser &parser,
                                 mlir::Type type) const override;

protected:
  OpaqueDialect(llvm::StringRef name, mlir::MLIRContext *context,
                mlir::TypeID typeID);
};

/// torch-mlir's `torch` dialect, for its importers. Registered only where
/// torch IR is imported (lighthouse.extras), not by registerAllDialects.
/// Its ops print and parse in torch-mlir's custom forms, and its constants
/// are registered ops named as torch-mlir names them (lib/Dialect/
/// TorchForms.h).
class OpaqueTorchDialect : public OpaqueDialect {
public:
  explicit OpaqueTorchDialect(mlir::MLIRContext *context);
  static llvm::StringRef getDialectNamespace() { return "torch"; }

  std::optional<ParseOpHook>
  getParseOperationHook(llvm::StringRef opName) const override;
  llvm::unique_function<void(mlir::Operation *, mlir::OpAsmPrinter &)>
  getOperationPrinter(mlir::Operation *op) const override;
};

/// torch-mlir's `torch_c` dialect, its casts between torch and builtin
/// tensors, which lighthouse writes around ops it lowers itself (an ONNX
/// BitCast as a `tensor.bitcast`) for torch-mlir to remove.
class OpaqueTorchConversionDialect : public OpaqueDialect {
public:
  explicit OpaqueTorchConversionDialect(mlir::MLIRContext *context);
  static llvm::StringRef getDialectNamespace() { return "torch_c"; }
};

/// torch-mlir's `tm_tensor` dialect, which lighthouse's pipelines lower.
class OpaqueTMTensorDialect : public OpaqueDialect {
public:
  explicit OpaqueTMTensorDialect(mlir::MLIRContext *context);
  static llvm::StringRef getDialectNamespace() { return "tm_tensor"; }
};

} // namespace lighthouse

MLIR_DECLARE_EXPLICIT_TYPE_ID(lighthouse::OpaqueTorchDialect)
MLIR_DECLARE_EXPLICIT_TYPE_ID(lighthouse::OpaqueTorchConversionDialect)
MLIR_DECLARE_EXPLICIT_TYPE_ID(lighthouse::OpaqueTMTensorDialect)

#endif // LIGHTHOUSE_DIALECT_OPAQUEDIALECTS_H
