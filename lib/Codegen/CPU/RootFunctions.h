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
/// A root that reads or computes a tensor of dynamic sizes stays where it is:
/// in a function, sizes read off its arguments would lose what the caller
/// knows of them (rows = 16 x batch, which decides whether a last register
/// tile of rows is partial). Returns the root in the function, or `root`
/// when it stays; the function's name is appended to
/// `functions` (transform.alternatives replaces a function it transforms by
/// a copy: the name, not the op, identifies it).
mlir::Operation *
outlineRoot(mlir::ModuleOp module, mlir::Operation *root,
            mlir::SymbolTable &symbols,
            llvm::SmallVectorImpl<mlir::StringAttr> &functions);

/// Inlines each function `functions` names, which outlineRoot made, at its
/// one call, and erases it; then the ops the functions repeat (constants,
/// sizes) are merged with their callers' (CSE).
void inlineRoots(mlir::ModuleOp module,
                 llvm::ArrayRef<mlir::StringAttr> functions);

} // namespace lighthouse::cpu

#endif // LIGHTHOUSE_LIB_CODEGEN_CPU_ROOTFUNCTIONS_H
