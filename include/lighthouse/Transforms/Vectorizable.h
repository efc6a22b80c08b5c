//===- Vectorizable.h - Ops the fast pipeline leaves to loops ---*- C++ -*-===//

#ifndef LIGHTHOUSE_TRANSFORMS_VECTORIZABLE_H
#define LIGHTHOUSE_TRANSFORMS_VECTORIZABLE_H

namespace mlir {
class Operation;
} // namespace mlir

namespace lighthouse {

/// Whether `op` must be left to loops rather than vectorized:
/// - on i1: vectors of i1 are bit-packed in memory, buffers of i1 hold a byte
///   each;
/// - with math.fpowi in its body: on vectors it lowers to llvm.intr.powi with
///   a vector exponent, which LLVM's powi does not take.
bool staysScalar(mlir::Operation *op);

} // namespace lighthouse

#endif // LIGHTHOUSE_TRANSFORMS_VECTORIZABLE_H
