//===- Constants.h - Constant tensors rewritten at compile time -*- C++ -*-===//
//
// The bytes of dense and dense_resource constants (imported weights), for
// rewrites that change a constant's layout once, at compile time, rather than
// on every call: transposes folded into weights, weights reshaped or padded
// to whole register tiles.
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_TRANSFORMS_UTILS_CONSTANTS_H
#define LIGHTHOUSE_TRANSFORMS_UTILS_CONSTANTS_H

#include "mlir/IR/BuiltinAttributeInterfaces.h"

#include <optional>

namespace lighthouse {

/// The row-major bytes of the elements of a dense or dense_resource
/// constant that is not a splat, with whole bytes per element.
std::optional<llvm::ArrayRef<char>> elementBytes(mlir::ElementsAttr constant);

/// `constant` (static shape, whole bytes per element, or a splat) with its
/// dimensions permuted, result dimension i its dimension `permutation[i]`,
/// or none for other constants.
std::optional<mlir::ElementsAttr>
transposeConstant(mlir::ElementsAttr constant,
                  llvm::ArrayRef<int64_t> permutation);

/// `constant` (static shape, whole bytes per element, or a splat) with its
/// elements in the same order in `shape`, or none for other constants.
std::optional<mlir::ElementsAttr>
reshapeConstant(mlir::ElementsAttr constant, llvm::ArrayRef<int64_t> shape);

/// `constant` (static shape, whole bytes per element) with `high[i]` zeros
/// appended along each dimension i, or none for other constants.
std::optional<mlir::ElementsAttr>
padConstantWithZeros(mlir::ElementsAttr constant, llvm::ArrayRef<int64_t> high);

} // namespace lighthouse

#endif // LIGHTHOUSE_TRANSFORMS_UTILS_CONSTANTS_H
