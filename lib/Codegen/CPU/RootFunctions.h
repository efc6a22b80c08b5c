//===- RootFunctions.h - Each root in a function of its own -----*- C++ -*-===//
//
// The transforms of a strategy act on the function that holds its op:
// patterns are applied to that function, transform.alternatives clones it,
// and fuse_into_containing_op prints the producer and the loop into a remark
// each time it runs, which numbers and verifies the whole function. On a
// model that is one function, each root's sequence then costs the model's
// size: BERT-base's 354 roots took 3.25 s of its 8.3 s pipeline.
// lighthouse-cpu-apply-strategy therefore gives each root, with the ops its
// strategy computes in its loops, a private function of its own while the
// script runs, and inlines them back after.
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_LIB_CODEGEN_CPU_ROOTFUNCTIONS_H
#define LIGHTHOUSE_LIB_CODEGEN_CPU_ROOTFUNCTIONS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace lighthouse::cpu {

/// Moves `root` and the ops fused into its strategy's loops (the chain of
/// single users with the `fused` strategy after it) into a new private
/// function of `module`, called where the last of them was. The constants,
/// tensor.empty, tensor.dim and linalg.fill ops they read are cloned in, so
/// that the strategy sees them as it would in place (a fill of C to fuse, a
/// constant weight); other values they read are the function's arguments.
/// Returns the root in the function; the function is appended to
/// `functions`.
mlir::Operation *
outlineRoot(mlir::ModuleOp module, mlir::Operation *root,
            mlir::SymbolTable &symbols,
            llvm::SmallVectorImpl<mlir::func::FuncOp> &functions);

/// Inlines each of `functions`, which outlineRoot made, at its one call, and
/// erases it.
void inlineRoots(mlir::ModuleOp module,
                 llvm::ArrayRef<mlir::func::FuncOp> functions);

} // namespace lighthouse::cpu

#endif // LIGHTHOUSE_LIB_CODEGEN_CPU_ROOTFUNCTIONS_H
