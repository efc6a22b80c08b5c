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
/// - with math.fpowi in its body: on vectors it lowers to llvm.intr.powi with
///   a vector exponent, which LLVM's powi does not take.
bool staysScalar(mlir::Operation *op);

} // namespace lighthouse

#endif // LIGHTHOUSE_TRANSFORMS_UTILS_VECTORIZABLE_H
