//===- Weights.h - A model's weights out of its code ------------*- C++ -*-===//
//
// How the JIT keeps large constants (a model's weights) out of the code it
// optimizes and compiles. Translated to LLVM IR, a constant becomes one array
// per innermost row: a 1x1 convolution's 1024x1024x1x1 weight is a million
// arrays of one float, which take 2.85 s to compile where the same bytes as a
// 1024x1024 matrix take 0.08 s; and each part of a split module carries the
// constants its functions read through the bitcode round trip and LLVM's
// pipeline. Instead, the code refers to each weight as an external symbol,
// read through the global offset table: the JIT resolves it to the bytes the
// engine holds, wherever they are, and a saved module links an object file
// of the weights' own, one array of bytes each, which LLVM emits as it is.
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_LIB_EXECUTIONENGINE_WEIGHTS_H
#define LIGHTHOUSE_LIB_EXECUTIONENGINE_WEIGHTS_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace lighthouse {

/// The least alignment of a weight's bytes: a cache line's.
constexpr uint64_t kWeightAlignment = 64;

/// A constant global taken out of a module's code.
struct Weight {
  std::string name;
  /// The global's bytes, owned by the MLIR context.
  llvm::ArrayRef<char> bytes;
  /// The global's alignment in bytes; 0 if it states none.
  uint64_t alignment;
};

/// Makes each constant global of `module` (LLVM dialect) whose value holds
/// kMinWeightBytes or more, in whole bytes per element, an external
/// declaration, and returns those globals' names and bytes.
std::vector<Weight> takeWeights(mlir::ModuleOp module);

/// A module defining each of `weights` as a hidden constant array of bytes,
/// aligned as its global was and at least to kWeightAlignment.
std::unique_ptr<llvm::Module> weightsModule(llvm::ArrayRef<Weight> weights,
                                            llvm::LLVMContext &context);

} // namespace lighthouse

#endif // LIGHTHOUSE_LIB_EXECUTIONENGINE_WEIGHTS_H
