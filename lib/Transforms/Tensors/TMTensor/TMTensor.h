//===- TMTensor.h - torch-mlir's tm_tensor ops read and rebuilt -*- C++ -*-===//
//
// torch-mlir lowers what linalg cannot express (scatters, sorts, cumulative
// scans, top-k) to its own tm_tensor dialect, which lighthouse holds as
// unknown operations (Dialect/OpaqueDialects.h). lighthouse-lower-tm-tensor
// (LowerTMTensor.cpp) makes each scf loops of tensor.extract and
// tensor.insert with the op's region inlined as the combiner, before
// bufferization, which makes the inserts in place; one file per op. Nothing
// is known about these ops beyond what these files check: operand segments,
// ranks, element types and region signatures are verified before anything
// is built, and a malformed op is an error, not a crash.
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_LIB_TRANSFORMS_TENSORS_TMTENSOR_TMTENSOR_H
#define LIGHTHOUSE_LIB_TRANSFORMS_TENSORS_TMTENSOR_TMTENSOR_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace lighthouse::tm_tensor {

/// A tm_tensor op's operands split into its `ins` and `outs`, all ranked
/// tensors, with one result per `outs` operand of the same type.
struct TMTensorOp {
  mlir::Operation *op;
  llvm::SmallVector<mlir::Value> ins, outs;

  mlir::RankedTensorType type(mlir::Value value) const {
    return llvm::cast<mlir::RankedTensorType>(value.getType());
  }
  mlir::InFlightDiagnostic error() const {
    return op->emitOpError("cannot be lowered by lighthouse: ");
  }
};

/// `op`'s operands as ins and outs; an error on `op` when they are not
/// ranked tensors in two segments with one result per outs operand.
mlir::FailureOr<TMTensorOp> readOperands(mlir::Operation *op);

/// Checks that `op` has one region of one block whose arguments have
/// `arguments` types and that ends in `tm_tensor.yield` of one `yielded`.
mlir::LogicalResult checkBody(const TMTensorOp &tm, mlir::TypeRange arguments,
                              mlir::Type yielded);

/// Clones the region of `op` at `b`'s insertion point with its arguments bound
/// to `arguments`; returns the value it yields.
mlir::Value inlineBody(mlir::OpBuilder &b, mlir::Operation *op,
                       mlir::ValueRange arguments);

/// An integer attribute of `op` in [0, bound).
mlir::FailureOr<int64_t> readDimension(const TMTensorOp &tm, int64_t bound);

mlir::Value constantIndex(mlir::OpBuilder &b, mlir::Location loc,
                          int64_t value);
llvm::SmallVector<mlir::Value> sizesOf(mlir::OpBuilder &b, mlir::Location loc,
                                       mlir::Value tensor);

/// A loop nest over `sizes` carrying `tensors`; `body` returns their next
/// values. Returns the final ones.
llvm::SmallVector<mlir::Value> loopNest(
    mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange sizes,
    mlir::ValueRange tensors,
    llvm::function_ref<llvm::SmallVector<mlir::Value>(
        mlir::OpBuilder &, mlir::Location, mlir::ValueRange, mlir::ValueRange)>
        body);

mlir::Value extract(mlir::OpBuilder &b, mlir::Location loc, mlir::Value tensor,
                    mlir::ValueRange at);
mlir::Value insert(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value,
                   mlir::Value tensor, mlir::ValueRange at);
/// `indices` with `value` at `position`.
llvm::SmallVector<mlir::Value> withIndex(mlir::ValueRange indices,
                                         int64_t position, mlir::Value value);

// The lowerings, one file each: an error on the op when it is malformed.
mlir::LogicalResult lowerScan(const TMTensorOp &tm, mlir::OpBuilder &b);
mlir::LogicalResult lowerScatter(const TMTensorOp &tm, mlir::OpBuilder &b);
mlir::LogicalResult lowerSort(const TMTensorOp &tm, mlir::OpBuilder &b);
mlir::LogicalResult lowerTopk(const TMTensorOp &tm, mlir::OpBuilder &b);

} // namespace lighthouse::tm_tensor

#endif // LIGHTHOUSE_LIB_TRANSFORMS_TENSORS_TMTENSOR_TMTENSOR_H
