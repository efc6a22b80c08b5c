//===- TorchForms.h - The torch stand-in's custom op forms ------*- C++ -*-===//
//
// The `torch` stand-in (OpaqueDialects.h) prints and parses the torch ops
// that torch-mlir's importers build in the custom forms torch-mlir's
// dialect gives them, so that imported IR reads as it does with torch-mlir
// (`torch.aten.mm %a, %b : !torch.vtensor<...>, ... -> ...`,
// `torch.operator "onnx.Relu"(%x) : (...) -> ...`), and text in those forms
// parses. The constants are registered ops, for the result names torch-mlir
// gives them (`%none`, `%int5`, `%true`): a name comes from an op
// interface, which an unknown op has none of. Ops of other forms (regions
// of control flow, module-level ops) stay in the generic form.
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_LIB_DIALECT_TORCHFORMS_H
#define LIGHTHOUSE_LIB_DIALECT_TORCHFORMS_H

#include "mlir/Bytecode/BytecodeImplementation.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/OperationSupport.h"

namespace lighthouse::torch {

/// A constant's value, a property as in torch-mlir's dialect (the generic
/// form reads `<{value = 5 : i64}>`, as torch-mlir prints and parses it).
struct ConstantProperties {
  mlir::Attribute value;
  bool operator==(const ConstantProperties &other) const {
    return value == other.value;
  }
};

/// A constant of the torch dialect with a value: no operands, one result of
/// a torch type, its value the `value` property. `Derived` gives its name,
/// its result's type `!torch.<kType>` and its value's kind `Value`; its
/// result name and spelling follow from them.
template <typename Derived>
class ConstantOp
    : public mlir::Op<
          Derived, mlir::OpTrait::ZeroRegions, mlir::OpTrait::OneResult,
          mlir::OpTrait::OneTypedResult<mlir::Type>::Impl,
          mlir::OpTrait::ZeroSuccessors, mlir::OpTrait::ZeroOperands,
          mlir::OpAsmOpInterface::Trait> {
public:
  using mlir::Op<Derived, mlir::OpTrait::ZeroRegions, mlir::OpTrait::OneResult,
                 mlir::OpTrait::OneTypedResult<mlir::Type>::Impl,
                 mlir::OpTrait::ZeroSuccessors, mlir::OpTrait::ZeroOperands,
                 mlir::OpAsmOpInterface::Trait>::Op;
  using Properties = ConstantProperties;
  static llvm::ArrayRef<llvm::StringRef> getAttributeNames() {
    static llvm::StringRef names[] = {"value"};
    return names;
  }
  // The properties' hooks, as an op of ODS generates them.
  static llvm::LogicalResult setPropertiesFromAttr(
      Properties &properties, mlir::Attribute attribute,
      llvm::function_ref<mlir::InFlightDiagnostic()> emitError);
  static mlir::Attribute getPropertiesAsAttr(mlir::MLIRContext *context,
                                             const Properties &properties);
  static llvm::hash_code computePropertiesHash(const Properties &properties);
  static std::optional<mlir::Attribute>
  getInherentAttr(mlir::MLIRContext *context, const Properties &properties,
                  llvm::StringRef name);
  static void setInherentAttr(Properties &properties, llvm::StringRef name,
                              mlir::Attribute value);
  static void populateInherentAttrs(mlir::MLIRContext *context,
                                    const Properties &properties,
                                    mlir::NamedAttrList &attributes);
  static llvm::LogicalResult
  verifyInherentAttrs(mlir::OperationName name, mlir::NamedAttrList &attributes,
                      llvm::function_ref<mlir::InFlightDiagnostic()> emitError);
  static llvm::LogicalResult readProperties(mlir::DialectBytecodeReader &reader,
                                            mlir::OperationState &state);
  void writeProperties(mlir::DialectBytecodeWriter &writer);

  static mlir::ParseResult parse(mlir::OpAsmParser &parser,
                                 mlir::OperationState &result);
  void print(mlir::OpAsmPrinter &printer);
  mlir::LogicalResult verify();
  void getAsmResultNames(mlir::OpAsmSetValueNameFn setName);
};

/// `%none = torch.constant.none`: no value, no properties.
class ConstantNoneOp
    : public mlir::Op<
          ConstantNoneOp, mlir::OpTrait::ZeroRegions, mlir::OpTrait::OneResult,
          mlir::OpTrait::OneTypedResult<mlir::Type>::Impl,
          mlir::OpTrait::ZeroSuccessors, mlir::OpTrait::ZeroOperands,
          mlir::OpAsmOpInterface::Trait> {
public:
  using Op::Op;
  static constexpr llvm::StringLiteral getOperationName() {
    return "torch.constant.none";
  }
  static llvm::ArrayRef<llvm::StringRef> getAttributeNames() { return {}; }
  static mlir::ParseResult parse(mlir::OpAsmParser &parser,
                                 mlir::OperationState &result);
  void print(mlir::OpAsmPrinter &printer);
  mlir::LogicalResult verify();
  void getAsmResultNames(mlir::OpAsmSetValueNameFn setName);
};
/// `%int5 = torch.constant.int 5`
struct ConstantIntOp : ConstantOp<ConstantIntOp> {
  using ConstantOp::ConstantOp;
  static constexpr llvm::StringLiteral getOperationName() {
    return "torch.constant.int";
  }
  static constexpr llvm::StringLiteral kType = "int";
  using Value = mlir::IntegerAttr;
};
/// `%float5.000000e-01 = torch.constant.float 5.000000e-01`
struct ConstantFloatOp : ConstantOp<ConstantFloatOp> {
  using ConstantOp::ConstantOp;
  static constexpr llvm::StringLiteral getOperationName() {
    return "torch.constant.float";
  }
  static constexpr llvm::StringLiteral kType = "float";
  using Value = mlir::FloatAttr;
};
/// `%true = torch.constant.bool true`
struct ConstantBoolOp : ConstantOp<ConstantBoolOp> {
  using ConstantOp::ConstantOp;
  static constexpr llvm::StringLiteral getOperationName() {
    return "torch.constant.bool";
  }
  static constexpr llvm::StringLiteral kType = "bool";
  using Value = mlir::BoolAttr;
};
/// `%str = torch.constant.str "text"`
struct ConstantStrOp : ConstantOp<ConstantStrOp> {
  using ConstantOp::ConstantOp;
  static constexpr llvm::StringLiteral getOperationName() {
    return "torch.constant.str";
  }
  static constexpr llvm::StringLiteral kType = "str";
  using Value = mlir::StringAttr;
};

/// The printer of `op`, an unknown op of the torch namespace, in its custom
/// form; empty for ops printed in the generic form.
llvm::unique_function<void(mlir::Operation *, mlir::OpAsmPrinter &)>
customPrinter(mlir::Operation *op);

/// The parser of the custom form of the torch op `name`, or none.
std::optional<mlir::Dialect::ParseOpHook> customParser(llvm::StringRef name);

} // namespace lighthouse::torch

#endif // LIGHTHOUSE_LIB_DIALECT_TORCHFORMS_H
