//===- Vectorizable.h - Ops the default pipeline leaves to loops *- C++ -*-===//

#ifndef LIGHTHOUSE_TRANSFORMS_UTILS_VECTORIZABLE_H
#define LIGHTHOUSE_TRANSFORMS_UTILS_VECTORIZABLE_H

namespace mlir {
class Operation;
} // namespace mlir

namespace lighthouse {

/// Whether `op` must be left to loops rather than vectorized:
/// - on types narrower than a byte (i1, i4, f4): LLVM packs their vectors in
///   memory (8 i1 or 2 i4 a byte), buffers hold one a byte;
/// - on bf16: x86's code generator (LLVM 22) aborts on vectors of 2^k + 1
///   bf16 elements (9, 17, 33: a row of 17 pixels) on AVX512-BF16 hosts;
///   LLVM's loop vectorizer still vectorizes the loops by powers of two;
/// - with math.fpowi in its body: on vectors it lowers to llvm.intr.powi with
///   a vector exponent, which LLVM's powi does not take.
bool staysScalar(mlir::Operation *op);

} // namespace lighthouse

#endif // LIGHTHOUSE_TRANSFORMS_UTILS_VECTORIZABLE_H
