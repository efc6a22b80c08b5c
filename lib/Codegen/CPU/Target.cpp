//===- Target.cpp - The CPU the code generator targets --------------------===//

#include "lighthouse/Codegen/CPU/Target.h"
#include "lighthouse/Codegen/CPU/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/TargetParser/Host.h"

#include <thread>

using namespace mlir;

namespace lighthouse {

#define GEN_PASS_DEF_CPUSETTARGET
#include "lighthouse/Codegen/CPU/Passes.h.inc"

namespace cpu {

int64_t CPUTarget::elementsPerRegister(Type elementType) const {
  unsigned bits =
      elementType.isIntOrFloat() ? elementType.getIntOrFloatBitWidth() : 32;
  return std::max<int64_t>(vectorBits / std::max(bits, 8u), 1);
}

std::optional<CPUTarget> CPUTarget::preset(llvm::StringRef name) {
  // avx512: the Xeons measured (32 zmm registers, 2 MB of L2 a core); every
  // tile size of the code generator was tuned there.
  if (name == "avx512")
    return CPUTarget{512, 32, int64_t(2) << 20, 1};
  // avx2: 16 ymm registers; 1 MB of L2 a core, between client cores' 256
  // KB-2 MB. Not measured yet: the policies only scale with it.
  if (name == "avx2")
    return CPUTarget{256, 16, int64_t(1) << 20, 1};
  return std::nullopt;
}

CPUTarget CPUTarget::host() {
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  CPUTarget target = *preset(features.lookup("avx512f") ? "avx512" : "avx2");
  target.threads =
      std::max<int64_t>(std::thread::hardware_concurrency(), int64_t(1));
  return target;
}

/// The target's fields, by name, in the attribute.
static constexpr std::pair<llvm::StringLiteral, int64_t CPUTarget::*>
    kFields[] = {{"vector_bits", &CPUTarget::vectorBits},
                 {"vector_registers", &CPUTarget::vectorRegisters},
                 {"l2_bytes", &CPUTarget::l2Bytes},
                 {"threads", &CPUTarget::threads}};

FailureOr<std::optional<CPUTarget>> CPUTarget::fromModule(ModuleOp module) {
  Attribute attr = module->getAttr(kTargetAttrName);
  if (!attr)
    return std::optional<CPUTarget>();
  auto dict = dyn_cast<DictionaryAttr>(attr);
  CPUTarget target;
  for (auto [name, field] : kFields) {
    auto value = dict ? dict.getAs<IntegerAttr>(name) : IntegerAttr();
    if (!value || value.getInt() < 1)
      return module.emitError()
             << kTargetAttrName << " must be a dictionary of positive integers "
             << "vector_bits, vector_registers, l2_bytes and threads; got "
             << attr;
    target.*field = value.getInt();
  }
  return std::optional<CPUTarget>(target);
}

DictionaryAttr CPUTarget::toAttr(MLIRContext *context) const {
  Builder builder(context);
  SmallVector<NamedAttribute> entries;
  for (auto [name, field] : kFields)
    entries.push_back(
        builder.getNamedAttr(name, builder.getI64IntegerAttr(this->*field)));
  return builder.getDictionaryAttr(entries);
}

FailureOr<CPUTarget> resolveTarget(ModuleOp module, llvm::StringRef name,
                                   int64_t threads) {
  if (threads < 0)
    return module.emitError()
           << "threads must be 0 (the target's) or more, got " << threads;
  CPUTarget target;
  if (name == "host") {
    target = CPUTarget::host();
  } else if (!name.empty()) {
    std::optional<CPUTarget> preset = CPUTarget::preset(name);
    if (!preset)
      return module.emitError() << "unknown CPU target '" << name
                                << "'; known: host, avx512, avx2";
    target = *preset;
  } else {
    FailureOr<std::optional<CPUTarget>> recorded =
        CPUTarget::fromModule(module);
    if (failed(recorded))
      return failure();
    target = recorded->value_or(*CPUTarget::preset("avx512"));
  }
  if (threads > 0)
    target.threads = threads;
  return target;
}

} // namespace cpu

namespace {

class CPUSetTargetPass : public impl::CPUSetTargetBase<CPUSetTargetPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (module->hasAttr(cpu::kTargetAttrName))
      return;
    FailureOr<cpu::CPUTarget> resolved = cpu::resolveTarget(
        module,
        target.empty() ? llvm::StringRef("host") : llvm::StringRef(target),
        threads);
    if (failed(resolved))
      return signalPassFailure();
    module->setAttr(cpu::kTargetAttrName, resolved->toAttr(&getContext()));
  }
};

} // namespace

} // namespace lighthouse
