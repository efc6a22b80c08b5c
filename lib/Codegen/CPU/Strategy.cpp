//===- Strategy.cpp - How one op is compiled for CPUs ---------------------===//

#include "lighthouse/Codegen/CPU/Strategy.h"

#include "mlir/IR/Builders.h"

using namespace mlir;

namespace lighthouse::cpu {

static constexpr std::pair<StrategyKind, llvm::StringLiteral> kKinds[] = {
    {StrategyKind::ContractionBlocked, "contraction.blocked"},
    {StrategyKind::ConvolutionRows, "convolution.rows"},
    {StrategyKind::ConvolutionWindows, "convolution.windows"},
    {StrategyKind::ReductionRows, "reduction.rows"},
    {StrategyKind::ElementwiseRows, "elementwise.rows"},
    {StrategyKind::TransposeTiles, "transpose.tiles"},
    {StrategyKind::Fused, "fused"},
};

llvm::StringRef stringifyStrategyKind(StrategyKind kind) {
  for (auto [known, name] : kKinds)
    if (known == kind)
      return name;
  llvm_unreachable("a strategy kind without a name");
}

namespace {
/// The tile-size levels, by name, in the attribute.
struct Level {
  llvm::StringLiteral name;
  SmallVector<int64_t> Strategy::*sizes;
};
/// The flags, by name, in the attribute (unit attributes).
struct Flag {
  llvm::StringLiteral name;
  bool Strategy::*value;
};
} // namespace

static constexpr Level kLevels[] = {
    {"threads", &Strategy::threads}, {"thread_counts", &Strategy::threadCounts},
    {"cache", &Strategy::cache},     {"registers", &Strategy::registers},
    {"vector", &Strategy::vector},
};
static constexpr Flag kFlags[] = {
    {"fill_c", &Strategy::fillC},
    {"pack_b", &Strategy::packB},
    {"peel_rows", &Strategy::peelRows},
};

DictionaryAttr Strategy::toAttr(MLIRContext *context) const {
  Builder builder(context);
  SmallVector<NamedAttribute> entries = {builder.getNamedAttr(
      "kind", builder.getStringAttr(stringifyStrategyKind(kind)))};
  for (const Level &level : kLevels)
    if (!(this->*level.sizes).empty())
      entries.push_back(builder.getNamedAttr(
          level.name, builder.getDenseI64ArrayAttr(this->*level.sizes)));
  for (const Flag &flag : kFlags)
    if (this->*flag.value)
      entries.push_back(builder.getNamedAttr(flag.name, builder.getUnitAttr()));
  if (consumers)
    entries.push_back(builder.getNamedAttr(
        "consumers", builder.getI64IntegerAttr(consumers)));
  return builder.getDictionaryAttr(entries);
}

FailureOr<Strategy> Strategy::fromAttr(Operation *op, Attribute attr) {
  auto fail = [&](const Twine &what) {
    return op->emitError() << kStrategyAttrName << ": " << what;
  };
  auto dict = dyn_cast<DictionaryAttr>(attr);
  if (!dict)
    return fail("expected a dictionary");
  auto kindName = dict.getAs<StringAttr>("kind");
  if (!kindName)
    return fail("expected a string `kind`");
  const auto *kind = llvm::find_if(
      kKinds, [&](const auto &known) { return known.second == kindName; });
  if (kind == std::end(kKinds))
    return fail("unknown kind '" + kindName.getValue() + "'");
  Strategy strategy(kind->first);
  for (NamedAttribute entry : dict) {
    llvm::StringRef name = entry.getName();
    if (name == "kind")
      continue;
    if (const auto *level = llvm::find_if(
            kLevels, [&](const Level &level) { return level.name == name; });
        level != std::end(kLevels)) {
      auto sizes = dyn_cast<DenseI64ArrayAttr>(entry.getValue());
      if (!sizes || llvm::any_of(sizes.asArrayRef(),
                                 [](int64_t size) { return size < 0; }))
        return fail("`" + name + "` must be an array<i64> of sizes >= 0");
      strategy.*level->sizes = llvm::to_vector(sizes.asArrayRef());
      continue;
    }
    if (const auto *flag = llvm::find_if(
            kFlags, [&](const Flag &flag) { return flag.name == name; });
        flag != std::end(kFlags)) {
      if (!isa<UnitAttr>(entry.getValue()))
        return fail("`" + name + "` is a flag (a unit attribute)");
      strategy.*flag->value = true;
      continue;
    }
    if (name == "consumers") {
      auto count = dyn_cast<IntegerAttr>(entry.getValue());
      if (!count || count.getInt() < 0)
        return fail("`consumers` must be an integer >= 0");
      strategy.consumers = count.getInt();
      continue;
    }
    return fail("unknown entry `" + name + "`");
  }
  if (!strategy.threads.empty() && !strategy.threadCounts.empty())
    return fail("`threads` and `thread_counts` exclude each other");
  return strategy;
}

FailureOr<std::optional<Strategy>> getStrategy(Operation *op) {
  Attribute attr = op->getAttr(kStrategyAttrName);
  if (!attr)
    return std::optional<Strategy>();
  FailureOr<Strategy> strategy = Strategy::fromAttr(op, attr);
  if (failed(strategy))
    return failure();
  return std::optional<Strategy>(*strategy);
}

void setStrategy(Operation *op, const Strategy &strategy) {
  op->setAttr(kStrategyAttrName, strategy.toAttr(op->getContext()));
}

} // namespace lighthouse::cpu
