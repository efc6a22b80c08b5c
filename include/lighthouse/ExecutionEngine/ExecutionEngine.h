//===- ExecutionEngine.h - lighthouse's JIT ---------------------*- C++ -*-===//
//
// lighthouse's JIT. Unlike MLIR's ExecutionEngine, it compiles on several
// threads: the LLVM module is split into parts by function, each optimized
// and compiled to an object file on a thread of its own. It tunes LLVM's
// pipeline to lighthouse's code (no loop unrolling unless asked: the larger
// part of the JIT's time, for code that lighthouse's pipelines leave in an
// order LLVM vectorizes without it), compiles large constants (weights) into
// an object file of their own outside LLVM's pipeline, keeps the object files
// for saving, and says why it failed. The C API
// (lighthouse-c/ExecutionEngine.h) wraps it.
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_EXECUTIONENGINE_EXECUTIONENGINE_H
#define LIGHTHOUSE_EXECUTIONENGINE_EXECUTIONENGINE_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace llvm::orc {
class JITTargetMachineBuilder;
class LLJIT;
} // namespace llvm::orc

namespace lighthouse {

/// How the JIT compiles a module.
struct JITOptions {
  /// LLVM's standard pipeline and code generation level, 0 to 3.
  int optLevel = 3;
  /// Whether LLVM's pipeline unrolls loops.
  bool loopUnrolling = false;
  /// Parts the module is compiled in at once (at most one per function);
  /// 0: one per hardware thread that gets 1000 instructions or more.
  int threads = 0;
  /// Shared libraries whose symbols the code may refer to, besides this
  /// process's.
  llvm::SmallVector<std::string> sharedLibPaths;
};

/// Seconds each step of compiling a module took: its translation to LLVM IR
/// (with the weights taken out), its split into parts, LLVM's optimization
/// and code generation (summed over the parts, which run on threads), the
/// weights' object, and loading the objects into the JIT (linking happens at
/// the first lookup).
struct JITPhases {
  double translate = 0, split = 0, optimize = 0, codegen = 0, weights = 0,
         load = 0;
};

/// Code compiled from an LLVM-dialect module for the host CPU, as
/// position-independent object files linked into this process.
class ExecutionEngine {
public:
  /// JIT-compiles `module` (LLVM dialect, OpenMP allowed). Each function the
  /// module defines and exports gets a packed entry point,
  /// `_mlir_<name>(void **arguments)`. A module with global constructors is
  /// refused.
  static llvm::Expected<std::unique_ptr<ExecutionEngine>>
  create(mlir::ModuleOp module, const JITOptions &options);

  ~ExecutionEngine();
  ExecutionEngine(const ExecutionEngine &) = delete;
  ExecutionEngine &operator=(const ExecutionEngine &) = delete;

  /// The address of `symbol` of the compiled code, linking it first if
  /// needed. The error of a failed lookup carries what the JIT reported while
  /// linking (a symbol nothing defines, say), at every lookup.
  llvm::Expected<void *> lookup(llvm::StringRef symbol);

  /// The relocatable object files the code was compiled into, the weights'
  /// last (compiled on the first call: the JIT's code reads the weights
  /// where the engine holds them); linked together (with lighthouse's
  /// runtime libraries), they make a shared library of the module.
  llvm::Expected<llvm::ArrayRef<llvm::SmallVector<char, 0>>> objects();

  /// The seconds of each step of the compilation.
  const JITPhases &phases() const { return phaseSeconds; }

private:
  ExecutionEngine() = default;

  /// A weight's bytes, aligned as its global was, at the address the JIT
  /// resolves its symbol to.
  struct HeldWeight {
    std::string name;
    char *bytes;
    size_t size;
    size_t alignment;
  };

  // The JIT is declared last, so destroyed first: it refers to the object
  // files and the weights, and reports into `errors` until then.
  std::vector<HeldWeight> weights;
  /// The target the weights' object is compiled for.
  std::unique_ptr<llvm::orc::JITTargetMachineBuilder> machine;
  std::vector<llvm::SmallVector<char, 0>> objectFiles;
  /// Whether objectFiles ends with the weights' object.
  bool weightsCompiled = false;
  std::mutex objectsMutex;
  JITPhases phaseSeconds;
  std::mutex errorsMutex;
  std::string errors;
  std::unique_ptr<llvm::orc::LLJIT> jit;
};

} // namespace lighthouse

#endif // LIGHTHOUSE_EXECUTIONENGINE_EXECUTIONENGINE_H
