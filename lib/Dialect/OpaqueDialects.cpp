//===- OpaqueDialects.cpp - Stand-ins for torch-mlir's dialects -----------===//

#include "lighthouse/Dialect/OpaqueDialects.h"

#include "TorchForms.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "llvm/ADT/StringExtras.h"

MLIR_DEFINE_EXPLICIT_TYPE_ID(lighthouse::OpaqueTorchDialect)
MLIR_DEFINE_EXPLICIT_TYPE_ID(lighthouse::OpaqueTorchConversionDialect)
MLIR_DEFINE_EXPLICIT_TYPE_ID(lighthouse::OpaqueTMTensorDialect)

using namespace mlir;

namespace lighthouse {

OpaqueDialect::OpaqueDialect(StringRef name, MLIRContext *context,
                             TypeID typeID)
    : Dialect(name, context, typeID) {
  // Opaque types of the namespace verify only once unknown types are
  // allowed.
  allowUnknownOperations();
  allowUnknownTypes();
}

namespace {

/// Splits `text` at its commas outside brackets and string literals.
SmallVector<StringRef> splitTopLevel(StringRef text) {
  SmallVector<StringRef> parts;
  int depth = 0;
  bool inString = false;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '<' || c == '[' || c == '(' || c == '{') {
      ++depth;
    } else if (c == '>' || c == ']' || c == ')' || c == '}') {
      --depth;
    } else if (c == ',' && depth == 0) {
      parts.push_back(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push_back(text.drop_front(start).trim());
  return parts;
}

/// `text` without the spaces outside its string literals.
std::string withoutSpaces(StringRef text) {
  std::string spelled;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString && c == '\\' && i + 1 < text.size()) {
      spelled += c;
      spelled += text[++i];
      continue;
    }
    if (c == '"')
      inString = !inString;
    if (inString || !llvm::isSpace(c))
      spelled += c;
  }
  return spelled;
}

/// The spelling torch-mlir's printer gives a type of its namespace, which is
/// what its parser makes of any spacing: `vtensor<[32, 16],f32>` and
/// `vtensor<[32,16],f32>` are one type, spelled the second way. No spaces
/// but after the commas between the elements of tuple, union and dict
/// types, and in string literals.
std::string canonicalSpelling(StringRef spec) {
  spec = spec.trim();
  size_t open = spec.find('<');
  if (open == StringRef::npos || !spec.ends_with(">"))
    return withoutSpaces(spec);
  StringRef keyword = spec.take_front(open).trim();
  StringRef separator =
      llvm::is_contained({"tuple", "union", "dict"}, keyword) ? ", " : ",";
  std::string spelled = (keyword + "<").str();
  llvm::ListSeparator between(separator);
  for (StringRef part : splitTopLevel(spec.slice(open + 1, spec.size() - 1)))
    spelled += (StringRef(between) + canonicalSpelling(part)).str();
  return spelled + ">";
}

} // namespace

Type OpaqueDialect::parseType(DialectAsmParser &parser) const {
  return OpaqueType::get(StringAttr::get(getContext(), getNamespace()),
                         canonicalSpelling(parser.getFullSymbolSpec()));
}

Attribute OpaqueDialect::parseAttribute(DialectAsmParser &parser,
                                        Type type) const {
  return OpaqueAttr::get(StringAttr::get(getContext(), getNamespace()),
                         parser.getFullSymbolSpec(),
                         type ? type : NoneType::get(getContext()));
}

OpaqueTorchDialect::OpaqueTorchDialect(MLIRContext *context)
    : OpaqueDialect(getDialectNamespace(), context,
                    TypeID::get<OpaqueTorchDialect>()) {
  addOperations<torch::ConstantNoneOp, torch::ConstantIntOp,
                torch::ConstantFloatOp, torch::ConstantBoolOp,
                torch::ConstantStrOp>();
}

std::optional<Dialect::ParseOpHook>
OpaqueTorchDialect::getParseOperationHook(StringRef opName) const {
  return torch::customParser(opName);
}

llvm::unique_function<void(Operation *, OpAsmPrinter &)>
OpaqueTorchDialect::getOperationPrinter(Operation *op) const {
  return torch::customPrinter(op);
}

OpaqueTorchConversionDialect::OpaqueTorchConversionDialect(MLIRContext *context)
    : OpaqueDialect(getDialectNamespace(), context,
                    TypeID::get<OpaqueTorchConversionDialect>()) {}

OpaqueTMTensorDialect::OpaqueTMTensorDialect(MLIRContext *context)
    : OpaqueDialect(getDialectNamespace(), context,
                    TypeID::get<OpaqueTMTensorDialect>()) {}

} // namespace lighthouse
