//===- TorchForms.cpp - The torch stand-in's custom op forms --------------===//

#include "TorchForms.h"

#include "mlir/Bytecode/BytecodeImplementation.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

namespace lighthouse::torch {

/// The torch type `name` (`int`, `none`, ...), as the stand-in holds it.
static Type torchType(MLIRContext *context, StringRef name) {
  return OpaqueType::get(StringAttr::get(context, "torch"), name);
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

template <typename Derived>
LogicalResult ConstantOp<Derived>::setPropertiesFromAttr(
    Properties &properties, Attribute attribute,
    function_ref<InFlightDiagnostic()> emitError) {
  auto dictionary = dyn_cast<DictionaryAttr>(attribute);
  if (!dictionary)
    return emitError() << "expected a dictionary of properties, got "
                       << attribute;
  properties.value = dictionary.get("value");
  return success();
}

template <typename Derived>
Attribute
ConstantOp<Derived>::getPropertiesAsAttr(MLIRContext *context,
                                         const Properties &properties) {
  NamedAttrList attributes;
  populateInherentAttrs(context, properties, attributes);
  return attributes.getDictionary(context);
}

template <typename Derived>
llvm::hash_code
ConstantOp<Derived>::computePropertiesHash(const Properties &properties) {
  return hash_value(properties.value);
}

template <typename Derived>
std::optional<Attribute> ConstantOp<Derived>::getInherentAttr(
    MLIRContext *, const Properties &properties, StringRef name) {
  if (name == "value")
    return properties.value;
  return std::nullopt;
}

template <typename Derived>
void ConstantOp<Derived>::setInherentAttr(Properties &properties,
                                          StringRef name, Attribute value) {
  if (name == "value")
    properties.value = value;
}

template <typename Derived>
void ConstantOp<Derived>::populateInherentAttrs(MLIRContext *,
                                                const Properties &properties,
                                                NamedAttrList &attributes) {
  if (properties.value)
    attributes.append("value", properties.value);
}

template <typename Derived>
LogicalResult
ConstantOp<Derived>::verifyInherentAttrs(OperationName, NamedAttrList &,
                                         function_ref<InFlightDiagnostic()>) {
  // The value's kind is checked by verify(), with the op.
  return success();
}

template <typename Derived>
LogicalResult ConstantOp<Derived>::readProperties(DialectBytecodeReader &reader,
                                                  OperationState &state) {
  return reader.readOptionalAttribute(
      state.getOrAddProperties<Properties>().value);
}

template <typename Derived>
void ConstantOp<Derived>::writeProperties(DialectBytecodeWriter &writer) {
  writer.writeOptionalAttribute(this->getProperties().value);
}

template <typename Derived>
ParseResult ConstantOp<Derived>::parse(OpAsmParser &parser,
                                       OperationState &result) {
  using Value = typename Derived::Value;
  MLIRContext *context = parser.getContext();
  if constexpr (std::is_same_v<Value, IntegerAttr>) {
    int64_t value;
    if (parser.parseInteger(value))
      return failure();
    result.getOrAddProperties<Properties>().value =
        parser.getBuilder().getI64IntegerAttr(value);
  } else if constexpr (std::is_same_v<Value, FloatAttr>) {
    Attribute value;
    if (parser.parseAttribute(value, Float64Type::get(context)))
      return failure();
    result.getOrAddProperties<Properties>().value = value;
  } else {
    Value value;
    if (parser.parseAttribute(value))
      return failure();
    result.getOrAddProperties<Properties>().value = value;
  }
  if (parser.parseOptionalAttrDict(result.attributes))
    return failure();
  result.addTypes(torchType(context, Derived::kType));
  return success();
}

template <typename Derived>
void ConstantOp<Derived>::print(OpAsmPrinter &printer) {
  printer << ' ';
  printer.printAttributeWithoutType(this->getProperties().value);
  printer.printOptionalAttrDict(this->getOperation()->getAttrs(),
                                /*elidedAttrs=*/{"value"});
}

template <typename Derived> LogicalResult ConstantOp<Derived>::verify() {
  using Value = typename Derived::Value;
  Operation *op = this->getOperation();
  if (op->getResult(0).getType() != torchType(op->getContext(), Derived::kType))
    return this->emitOpError() << "returns !torch." << Derived::kType;
  auto value = dyn_cast_or_null<Value>(this->getProperties().value);
  bool wide = true;
  if constexpr (std::is_same_v<Value, IntegerAttr>)
    wide = value && value.getType().isSignlessInteger(64);
  if constexpr (std::is_same_v<Value, FloatAttr>)
    wide = value && value.getType().isF64();
  if (!value || !wide)
    return this->emitOpError() << "needs a `value` of the constant's kind";
  return success();
}

template <typename Derived>
void ConstantOp<Derived>::getAsmResultNames(OpAsmSetValueNameFn setName) {
  using Value = typename Derived::Value;
  Operation *op = this->getOperation();
  mlir::Value result = op->getResult(0);
  if constexpr (std::is_same_v<Value, IntegerAttr>) {
    setName(result,
            ("int" + Twine(cast<IntegerAttr>(this->getProperties().value)
                               .getValue()
                               .getSExtValue()))
                .str());
  } else if constexpr (std::is_same_v<Value, FloatAttr>) {
    // The value in 6 digits, less what an identifier cannot hold (the `+`
    // of an exponent): %float5.000000e-01.
    SmallString<16> digits;
    cast<FloatAttr>(this->getProperties().value)
        .getValue()
        .toString(digits, /*FormatPrecision=*/6, /*FormatMaxPadding=*/0,
                  /*TruncateZero=*/false);
    std::string name = "float";
    for (char c : digits)
      if (llvm::isAlnum(c) || StringRef("_$.-").contains(c))
        name += c;
    setName(result, name);
  } else if constexpr (std::is_same_v<Value, BoolAttr>) {
    setName(result, cast<BoolAttr>(this->getProperties().value).getValue()
                        ? "true"
                        : "false");
  } else {
    setName(result, Derived::kType);
  }
}

template class ConstantOp<ConstantIntOp>;
template class ConstantOp<ConstantFloatOp>;
template class ConstantOp<ConstantBoolOp>;
template class ConstantOp<ConstantStrOp>;

ParseResult ConstantNoneOp::parse(OpAsmParser &parser, OperationState &result) {
  if (parser.parseOptionalAttrDict(result.attributes))
    return failure();
  result.addTypes(torchType(parser.getContext(), "none"));
  return success();
}

void ConstantNoneOp::print(OpAsmPrinter &printer) {
  printer.printOptionalAttrDict((*this)->getAttrs());
}

LogicalResult ConstantNoneOp::verify() {
  if (getType() != torchType(getContext(), "none"))
    return emitOpError() << "returns !torch.none";
  return success();
}

void ConstantNoneOp::getAsmResultNames(OpAsmSetValueNameFn setName) {
  setName(getResult(), "none");
}

//===----------------------------------------------------------------------===//
// Unknown ops
//===----------------------------------------------------------------------===//

namespace {

using Printer = llvm::unique_function<void(Operation *, OpAsmPrinter &)>;

/// The form of most torch ops (every ATen op): operands, attributes, then
/// the operands' types and, after an arrow, the results':
/// `%r = torch.aten.mm %a, %b : !torch.vtensor<...>, !torch.vtensor<...> ->
/// !torch.vtensor<...>`.
/// The operands, if any, and the attributes, then the colon before types.
void printOperandsAndAttributes(Operation *op, OpAsmPrinter &p) {
  if (op->getNumOperands()) {
    p << ' ';
    p.printOperands(op->getOperands());
  }
  p.printOptionalAttrDict(op->getAttrs());
  p << " : ";
}

void printDefault(Operation *op, OpAsmPrinter &p) {
  printOperandsAndAttributes(op, p);
  llvm::interleaveComma(op->getOperandTypes(), p);
  if (op->getNumOperands() && op->getNumResults())
    p << " -> ";
  llvm::interleaveComma(op->getResultTypes(), p);
}

/// Types separated by commas, as many as there are (none at the end of the
/// op).
ParseResult parseTypes(OpAsmParser &parser, SmallVectorImpl<Type> &types) {
  Type type;
  OptionalParseResult first = parser.parseOptionalType(type);
  if (!first.has_value())
    return success();
  if (failed(*first))
    return failure();
  types.push_back(type);
  while (succeeded(parser.parseOptionalComma()))
    if (parser.parseType(types.emplace_back()))
      return failure();
  return success();
}

ParseResult parseDefault(OpAsmParser &parser, OperationState &result) {
  SMLoc location = parser.getCurrentLocation();
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  SmallVector<Type> operandTypes;
  if (parser.parseOperandList(operands) ||
      parser.parseOptionalAttrDict(result.attributes) || parser.parseColon())
    return failure();
  if (operands.empty())
    return parseTypes(parser, result.types);
  if (parser.parseTypeList(operandTypes) ||
      parser.resolveOperands(operands, operandTypes, location, result.operands))
    return failure();
  if (succeeded(parser.parseOptionalArrow()))
    return parseTypes(parser, result.types);
  return success();
}

/// Operands (within `delimiter`), attributes, then `: (operand types) ->
/// result types`.
ParseResult parseOperandsAndFunctionalType(OpAsmParser &parser,
                                           OperationState &result,
                                           OpAsmParser::Delimiter delimiter) {
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  FunctionType type;
  SMLoc location = parser.getCurrentLocation();
  if (parser.parseOperandList(operands, delimiter) ||
      parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonType(type) ||
      parser.resolveOperands(operands, type.getInputs(), location,
                             result.operands))
    return failure();
  result.addTypes(type.getResults());
  return success();
}

/// `torch.operator "onnx.Relu"(%x) {...} : (...) -> ...`, then its
/// regions: an op torch-mlir's dialect does not define, by name.
void printOperator(Operation *op, OpAsmPrinter &p) {
  p << ' ';
  p.printAttributeWithoutType(op->getAttr("name"));
  p << '(';
  p.printOperands(op->getOperands());
  p << ')';
  p.printOptionalAttrDict(op->getAttrs(), /*elidedAttrs=*/{"name"});
  p << " : ";
  p.printFunctionalType(op);
  for (Region &region : op->getRegions()) {
    p << ' ';
    p.printRegion(region);
  }
}

ParseResult parseOperator(OpAsmParser &parser, OperationState &result) {
  StringAttr name;
  if (parser.parseAttribute(name, "name", result.attributes) ||
      parseOperandsAndFunctionalType(parser, result,
                                     OpAsmParser::Delimiter::Paren))
    return failure();
  while (true) {
    auto region = std::make_unique<Region>();
    OptionalParseResult parsed = parser.parseOptionalRegion(*region);
    if (!parsed.has_value())
      break;
    if (failed(*parsed))
      return failure();
    result.addRegion(std::move(region));
  }
  return success();
}

/// `%s0 = torch.symbolic_int "s0" {min_val = 2, max_val = 10} : !torch.int`
void printSymbolicInt(Operation *op, OpAsmPrinter &p) {
  p << ' ';
  p.printAttributeWithoutType(op->getAttr("symbol_name"));
  p << " {min_val = ";
  p.printAttributeWithoutType(op->getAttr("min_val"));
  p << ", max_val = ";
  p.printAttributeWithoutType(op->getAttr("max_val"));
  p << '}';
  p.printOptionalAttrDict(op->getAttrs(),
                          {"symbol_name", "min_val", "max_val"});
  p << " : ";
  p.printType(op->getResult(0).getType());
}

ParseResult parseSymbolicInt(OpAsmParser &parser, OperationState &result) {
  Builder &builder = parser.getBuilder();
  StringAttr name;
  int64_t low, high;
  Type type;
  if (parser.parseAttribute(name, "symbol_name", result.attributes) ||
      parser.parseLBrace() || parser.parseKeyword("min_val") ||
      parser.parseEqual() || parser.parseInteger(low) || parser.parseComma() ||
      parser.parseKeyword("max_val") || parser.parseEqual() ||
      parser.parseInteger(high) || parser.parseRBrace() ||
      parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonType(type))
    return failure();
  result.addAttribute("min_val", builder.getI64IntegerAttr(low));
  result.addAttribute("max_val", builder.getI64IntegerAttr(high));
  result.addTypes(type);
  return success();
}

/// `torch.bind_symbolic_shape %x, [%s0, %s1], affine_map<()[s0, s1] -> (s0,
/// s1, 3)> : !torch.vtensor<...>`: the map inline, not an alias.
void printBindSymbolicShape(Operation *op, OpAsmPrinter &p) {
  p << ' ';
  p.printOperand(op->getOperand(0));
  p << ", [";
  p.printOperands(op->getOperands().drop_front());
  p << "], affine_map<";
  if (auto map =
          dyn_cast_or_null<AffineMapAttr>(op->getAttr("shape_expressions")))
    p << map.getValue();
  p << '>';
  p.printOptionalAttrDict(op->getAttrs(), {"shape_expressions"});
  p << " : ";
  p.printType(op->getOperand(0).getType());
}

ParseResult parseBindSymbolicShape(OpAsmParser &parser,
                                   OperationState &result) {
  OpAsmParser::UnresolvedOperand tensor;
  SmallVector<OpAsmParser::UnresolvedOperand> symbols;
  AffineMapAttr map;
  Type type;
  if (parser.parseOperand(tensor) || parser.parseComma() ||
      parser.parseOperandList(symbols, OpAsmParser::Delimiter::Square) ||
      parser.parseComma() ||
      parser.parseAttribute(map, "shape_expressions", result.attributes) ||
      parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonType(type) ||
      parser.resolveOperand(tensor, type, result.operands) ||
      parser.resolveOperands(symbols, torchType(parser.getContext(), "int"),
                             result.operands))
    return failure();
  return success();
}

/// `torch.vtensor.literal(dense<...> : tensor<2xf32>) : !torch.vtensor<...>`
void printLiteral(Operation *op, OpAsmPrinter &p) {
  p << '(';
  p.printAttribute(op->getAttr("value"));
  p << ')';
  p.printOptionalAttrDict(op->getAttrs(), {"value"});
  p << " : ";
  p.printType(op->getResult(0).getType());
}

ParseResult parseLiteral(OpAsmParser &parser, OperationState &result) {
  Attribute value;
  Type type;
  if (parser.parseLParen() ||
      parser.parseAttribute(value, "value", result.attributes) ||
      parser.parseRParen() || parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonType(type))
    return failure();
  result.addTypes(type);
  return success();
}

/// `%l = torch.prim.ListConstruct %a, %b : (!torch.int, !torch.int) ->
/// !torch.list<int>`
void printFunctional(Operation *op, OpAsmPrinter &p) {
  printOperandsAndAttributes(op, p);
  p.printFunctionalType(op);
}

ParseResult parseFunctional(OpAsmParser &parser, OperationState &result) {
  return parseOperandsAndFunctionalType(parser, result,
                                        OpAsmParser::Delimiter::None);
}

/// `%t = torch.copy.to_vtensor %x : !torch.vtensor<...>`: one operand, the
/// result's type only.
void printResultTyped(Operation *op, OpAsmPrinter &p) {
  p << ' ';
  p.printOperand(op->getOperand(0));
  p.printOptionalAttrDict(op->getAttrs());
  p << " : ";
  p.printType(op->getResult(0).getType());
}

ParseResult parseResultTyped(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::UnresolvedOperand operand;
  Type type;
  if (parser.parseOperand(operand) ||
      parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonType(type))
    return failure();
  // The operand of a copy is the other kind of tensor of the same shape:
  // `!torch.tensor<...>` for `!torch.vtensor<...>` and back.
  auto opaque = dyn_cast<OpaqueType>(type);
  if (!opaque)
    return parser.emitError(parser.getCurrentLocation(),
                            "expected a torch tensor type");
  StringRef data = opaque.getTypeData();
  std::string other = data.consume_front("vtensor")
                          ? ("tensor" + data).str()
                          : ("v" + opaque.getTypeData()).str();
  result.addTypes(type);
  return parser.resolveOperand(operand, torchType(parser.getContext(), other),
                               result.operands);
}

/// `torch.overwrite.tensor.contents %v overwrites %t : !torch.vtensor<...>,
/// !torch.tensor<...>`
void printOverwrite(Operation *op, OpAsmPrinter &p) {
  p << ' ';
  p.printOperand(op->getOperand(0));
  p << " overwrites ";
  p.printOperand(op->getOperand(1));
  p.printOptionalAttrDict(op->getAttrs());
  p << " : ";
  p.printType(op->getOperand(0).getType());
  p << ", ";
  p.printType(op->getOperand(1).getType());
}

ParseResult parseOverwrite(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::UnresolvedOperand value, overwritten;
  Type valueType, overwrittenType;
  if (parser.parseOperand(value) || parser.parseKeyword("overwrites") ||
      parser.parseOperand(overwritten) ||
      parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonType(valueType) || parser.parseComma() ||
      parser.parseType(overwrittenType) ||
      parser.resolveOperand(value, valueType, result.operands) ||
      parser.resolveOperand(overwritten, overwrittenType, result.operands))
    return failure();
  return success();
}

/// A custom form: which ops take it, how it prints and parses.
struct Form {
  bool (*takes)(Operation *op);
  void (*print)(Operation *, OpAsmPrinter &);
  ParseResult (*parse)(OpAsmParser &, OperationState &);
};

bool plain(Operation *op) {
  return op->getNumRegions() == 0 && op->getNumSuccessors() == 0;
}
template <unsigned Operands, unsigned Results> bool counts(Operation *op) {
  return plain(op) && op->getNumOperands() == Operands &&
         op->getNumResults() == Results;
}
bool named(Operation *op) {
  return op->getNumSuccessors() == 0 &&
         isa_and_nonnull<StringAttr>(op->getAttr("name"));
}
bool symbolic(Operation *op) {
  return counts<0, 1>(op) &&
         isa_and_nonnull<StringAttr>(op->getAttr("symbol_name")) &&
         isa_and_nonnull<IntegerAttr>(op->getAttr("min_val")) &&
         isa_and_nonnull<IntegerAttr>(op->getAttr("max_val"));
}
bool binding(Operation *op) {
  auto map = dyn_cast_or_null<AffineMapAttr>(op->getAttr("shape_expressions"));
  return plain(op) && op->getNumOperands() >= 1 && op->getNumResults() == 0 &&
         map && map.getValue().getNumSymbols() == op->getNumOperands() - 1;
}
bool literal(Operation *op) {
  return counts<0, 1>(op) && isa_and_nonnull<TypedAttr>(op->getAttr("value"));
}

const Form kDefault = {plain, printDefault, parseDefault};
const Form kFunctional = {plain, printFunctional, parseFunctional};
const Form kResultTyped = {counts<1, 1>, printResultTyped, parseResultTyped};

/// The forms of the ops that torch-mlir's dialect defines by hand (and its
/// importers build) other than in the default form, by name. Other
/// `torch.prim.` ops of theirs (control flow, objects) stay generic.
const Form *formOf(StringRef name) {
  static const Form kOperator = {named, printOperator, parseOperator};
  static const Form kSymbolicInt = {symbolic, printSymbolicInt,
                                    parseSymbolicInt};
  static const Form kBinding = {binding, printBindSymbolicShape,
                                parseBindSymbolicShape};
  static const Form kLiteral = {literal, printLiteral, parseLiteral};
  static const Form kOverwrite = {counts<2, 0>, printOverwrite, parseOverwrite};
  const Form *form = llvm::StringSwitch<const Form *>(name)
                         .Case("torch.operator", &kOperator)
                         .Case("torch.symbolic_int", &kSymbolicInt)
                         .Case("torch.bind_symbolic_shape", &kBinding)
                         .Case("torch.vtensor.literal", &kLiteral)
                         .Case("torch.prim.ListConstruct", &kFunctional)
                         .Case("torch.copy.to_vtensor", &kResultTyped)
                         .Case("torch.copy.to_tensor", &kResultTyped)
                         .Case("torch.overwrite.tensor.contents", &kOverwrite)
                         .Default(nullptr);
  if (form)
    return form;
  // The `torch.prim.` ops of other forms: objects, control flow, variables.
  bool otherPrim =
      llvm::is_contained({"DictConstruct", "CreateObject", "GetAttr", "SetAttr",
                          "CallMethod", "Loop", "Loop.condition", "If",
                          "If.yield", "Store", "Load", "Enter", "Exit"},
                         name.drop_front(StringRef("torch.prim.").size()));
  // The ops torch-mlir generates from PyTorch's registry of operators, all
  // in the default form, and the other prim ops and quantized_decomposed
  // ops, whose form is the same.
  if (name.starts_with("torch.aten.") || name.starts_with("torch.prims.") ||
      name.starts_with("torch.quantized.") ||
      name.starts_with("torch.quantized_decomposed.") ||
      name.starts_with("torch.torchvision.") ||
      (name.starts_with("torch.prim.") && !otherPrim))
    return &kDefault;
  return nullptr;
}

} // namespace

llvm::unique_function<void(Operation *, OpAsmPrinter &)>
customPrinter(Operation *op) {
  const Form *form = formOf(op->getName().getStringRef());
  if (!form || !form->takes(op))
    return {};
  return form->print;
}

std::optional<Dialect::ParseOpHook> customParser(StringRef name) {
  if (const Form *form = formOf(name))
    return Dialect::ParseOpHook(form->parse);
  return std::nullopt;
}

} // namespace lighthouse::torch
