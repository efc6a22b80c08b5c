//===- Target.h - The CPU the code generator targets ------------*- C++ -*-===//
//
// What the CPU code generator knows of the machine it generates code for:
// vector width, vector registers, L2 size and threads. Strategies are
// selected from a CPUTarget, never from the host the compiler runs on: the
// driver fills the target from the host once (`lighthouse-cpu-set-target`,
// at the start of `lighthouse-cpu`), and tests pin one, so that the
// same IR compiles the same way everywhere.
//
// The target travels with the module as the `lighthouse.target` attribute:
//
//   module attributes {lighthouse.target = {l2_bytes = 2097152 : i64,
//       threads = 2 : i64, vector_bits = 512 : i64,
//       vector_registers = 32 : i64}}
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_CODEGEN_CPU_TARGET_H
#define LIGHTHOUSE_CODEGEN_CPU_TARGET_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <optional>

namespace lighthouse::cpu {

/// The name of the module attribute holding the target.
constexpr llvm::StringLiteral kTargetAttrName = "lighthouse.target";

struct CPUTarget {
  /// Bits in a vector register.
  int64_t vectorBits = 512;
  /// Vector registers the ISA names.
  int64_t vectorRegisters = 32;
  /// L2 cache bytes a core.
  int64_t l2Bytes = int64_t(2) << 20;
  /// Threads that compiled code splits work across (1: no scf.forall).
  int64_t threads = 1;

  /// Elements of `elementType` in a vector register (at least 1).
  int64_t elementsPerRegister(mlir::Type elementType) const;

  /// The target named `name`: "avx512" (Xeon, 512-bit vectors, 32
  /// registers, 2 MB L2) or "avx2" (256-bit vectors, 16 registers, 1 MB
  /// L2), on one thread; none for other names.
  static std::optional<CPUTarget> preset(llvm::StringRef name);
  /// The machine this process runs on: the preset of the widest vector ISA
  /// it has, and a thread per hardware thread. Only drivers call this.
  static CPUTarget host();

  /// The target recorded on `module`, none when it has none; an error when
  /// the attribute is malformed.
  static mlir::FailureOr<std::optional<CPUTarget>>
  fromModule(mlir::ModuleOp module);
  mlir::DictionaryAttr toAttr(mlir::MLIRContext *context) const;
};

/// The target of a pass with a `target` option (a preset name, "host", or
/// empty for the module's, else avx512) and a `threads` option (0: the
/// target's): errors are emitted on `module`.
mlir::FailureOr<CPUTarget> resolveTarget(mlir::ModuleOp module,
                                         llvm::StringRef name, int64_t threads);

} // namespace lighthouse::cpu

#endif // LIGHTHOUSE_CODEGEN_CPU_TARGET_H
