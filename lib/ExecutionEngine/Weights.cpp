//===- Weights.cpp - A model's weights out of its code --------------------===//

#include "Weights.h"

#include "lighthouse/Transforms/Utils/Constants.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"

#include <algorithm>

using namespace mlir;

namespace lighthouse {

/// Constants below this size stay in the code, where LLVM may fold their
/// elements into instructions (a bias of a few channels, a shuffle's
/// indices); above it, a constant is a weight read from memory anyway.
constexpr size_t kMinWeightBytes = 4096;

/// The bytes a value of `type` takes, for arrays of whole-byte integers and
/// floats; none for other types.
static std::optional<uint64_t> arrayBytes(Type type) {
  uint64_t count = 1;
  while (auto array = dyn_cast<LLVM::LLVMArrayType>(type)) {
    count *= array.getNumElements();
    type = array.getElementType();
  }
  if (!type.isIntOrFloat() || type.getIntOrFloatBitWidth() % 8)
    return std::nullopt;
  return count * (type.getIntOrFloatBitWidth() / 8);
}

std::vector<Weight> takeWeights(ModuleOp module) {
  std::vector<Weight> weights;
  for (auto global : module.getOps<LLVM::GlobalOp>()) {
    auto value = dyn_cast_or_null<ElementsAttr>(global.getValueOrNull());
    if (!global.getConstant() || !value || global.getAddrSpace() != 0 ||
        global.getSection() || global.getThreadLocal_())
      continue;
    std::optional<ArrayRef<char>> bytes = elementBytes(value);
    if (!bytes || bytes->size() < kMinWeightBytes ||
        arrayBytes(global.getGlobalType()) != bytes->size())
      continue;
    weights.push_back(
        {global.getSymName().str(), *bytes, global.getAlignment().value_or(0)});
    global.removeValueAttr();
    global.setLinkage(LLVM::Linkage::External);
    // Default visibility: not assumed within reach of a PC-relative address
    // (the JIT's weights are wherever the engine allocated them).
    global.setVisibility_(LLVM::Visibility::Default);
    global.setDsoLocal(false);
    global.setUnnamedAddr(std::nullopt);
  }
  return weights;
}

std::unique_ptr<llvm::Module> weightsModule(ArrayRef<Weight> weights,
                                            llvm::LLVMContext &context) {
  auto module = std::make_unique<llvm::Module>("lighthouse.weights", context);
  llvm::Type *byte = llvm::Type::getInt8Ty(context);
  for (const Weight &weight : weights) {
    // An array of bytes is emitted as its bytes, without a per-element step.
    llvm::Constant *bytes = llvm::ConstantDataArray::getRaw(
        llvm::StringRef(weight.bytes.data(), weight.bytes.size()),
        weight.bytes.size(), byte);
    auto *global = new llvm::GlobalVariable(
        *module, bytes->getType(), /*isConstant=*/true,
        llvm::GlobalValue::ExternalLinkage, bytes, weight.name);
    global->setVisibility(llvm::GlobalValue::HiddenVisibility);
    // At least the alignment of the elements the code reads (the array of
    // bytes has none of its own), and a cache line's.
    global->setAlignment(
        llvm::Align(std::max<uint64_t>(weight.alignment, kWeightAlignment)));
  }
  return module;
}

} // namespace lighthouse
