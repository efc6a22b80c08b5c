//===- ModuleSplitting.cpp - An LLVM module in parts ----------------------===//

#include "ModuleSplitting.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Threading.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <algorithm>

using namespace llvm;

/// Calls `visit` with the part of each function or global whose code or
/// initializer refers to `value`, directly or through constant expressions.
static void forEachReferencingPart(
    const llvm::Value &value,
    const llvm::DenseMap<const llvm::GlobalValue *, unsigned> &partOf,
    llvm::function_ref<void(unsigned)> visit) {
  SmallVector<const llvm::Value *> worklist = {&value};
  llvm::SmallPtrSet<const llvm::Value *, 8> seen;
  while (!worklist.empty())
    for (const llvm::User *user : worklist.pop_back_val()->users()) {
      if (auto *instruction = dyn_cast<llvm::Instruction>(user))
        visit(partOf.lookup(instruction->getFunction()));
      else if (auto *global = dyn_cast<llvm::GlobalValue>(user))
        visit(partOf.lookup(global));
      else if (seen.insert(user).second)
        worklist.push_back(user);
    }
}

std::vector<std::unique_ptr<llvm::Module>>
lighthouse::splitModule(llvm::Module &module, unsigned numParts) {
  SmallVector<std::pair<unsigned, llvm::Function *>> functions;
  for (llvm::Function &function : module)
    if (!function.isDeclaration())
      functions.emplace_back(function.getInstructionCount(), &function);
  llvm::sort(functions,
             [](const auto &a, const auto &b) { return a.first > b.first; });
  llvm::DenseMap<const llvm::GlobalValue *, unsigned> partOf;
  SmallVector<unsigned> sizes(numParts, 0);
  for (auto [instructions, function] : functions) {
    unsigned lightest = llvm::min_element(sizes) - sizes.begin();
    partOf[function] = lightest;
    sizes[lightest] += instructions;
  }
  for (llvm::GlobalVariable &global : module.globals()) {
    unsigned part = 0;
    for (const llvm::User *user : global.users())
      if (auto *instruction = dyn_cast<llvm::Instruction>(user)) {
        part = partOf.lookup(instruction->getFunction());
        break;
      }
    partOf[&global] = part;
  }
  for (llvm::GlobalValue &global : module.global_values()) {
    if (!global.hasLocalLinkage())
      continue;
    bool elsewhere = false;
    forEachReferencingPart(global, partOf, [&](unsigned part) {
      elsewhere |= part != partOf.lookup(&global);
    });
    if (!elsewhere)
      continue;
    global.setLinkage(llvm::GlobalValue::ExternalLinkage);
    global.setVisibility(llvm::GlobalValue::HiddenVisibility);
    if (!global.hasName())
      global.setName("lighthouse.part.symbol");
  }
  std::vector<std::unique_ptr<llvm::Module>> parts;
  for (unsigned part = 0; part < numParts; ++part) {
    llvm::ValueToValueMapTy mapping;
    parts.push_back(llvm::CloneModule(module, mapping,
                                      [&](const llvm::GlobalValue *global) {
                                        return partOf.lookup(global) == part;
                                      }));
  }
  return parts;
}

unsigned lighthouse::countParts(const llvm::Module &module, int numThreads) {
  constexpr unsigned kMinInstructionsPerPart = 1000;
  if (!module.alias_empty() || !module.ifunc_empty() ||
      llvm::any_of(module.globals(), [](const llvm::GlobalVariable &global) {
        return global.hasAppendingLinkage();
      }))
    return 1;
  unsigned functions = 0, instructions = 0;
  for (const llvm::Function &function : module)
    if (!function.isDeclaration()) {
      ++functions;
      instructions += function.getInstructionCount();
    }
  unsigned parts =
      numThreads > 0
          ? numThreads
          : std::min(llvm::hardware_concurrency().compute_thread_count(),
                     instructions / kMinInstructionsPerPart);
  return std::max(1u, std::min(parts, functions));
}
