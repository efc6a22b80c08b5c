//===- ModuleSplitting.h - An LLVM module in parts --------------*- C++ -*-===//
//
// How the JIT cuts an LLVM module into parts that compile on threads of
// their own and link back together.
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_LIB_EXECUTIONENGINE_MODULESPLITTING_H
#define LIGHTHOUSE_LIB_EXECUTIONENGINE_MODULESPLITTING_H

#include <memory>
#include <vector>

namespace llvm {
class Module;
} // namespace llvm

namespace lighthouse {

/// How many parts `module` is compiled in: `numThreads` when given (at most
/// one per function), else one per hardware thread that gets at least
/// kMinInstructionsPerPart instructions: below that, a thread's start and
/// the bitcode round trip cost more than they save. A module whose symbols
/// do not simply split (aliases, appending globals) is one part.
unsigned countParts(const llvm::Module &module, int numThreads);

/// Splits `module` into `numParts` modules that define its functions in
/// about equal numbers of instructions (largest first, each to the part
/// with the fewest so far), each global variable with a function that uses
/// it; the symbols a part refers to in another become hidden externals.
std::vector<std::unique_ptr<llvm::Module>> splitModule(llvm::Module &module,
                                                       unsigned numParts);

} // namespace lighthouse

#endif // LIGHTHOUSE_LIB_EXECUTIONENGINE_MODULESPLITTING_H
