//===- RuntimeChecks.cpp - Failed checks return to the caller -------------===//
//
// `cf.assert` lowers to an abort of the whole process. lighthouse's compiled
// code runs inside a Python program, where a check on the inputs (dynamic
// sizes that must agree, say) should raise instead: each assert becomes a
// call of lighthouse's runtime (lighthouse-c/Runtime.h) when its condition
// does not hold, which returns to the caller with the message. Asserts in
// parallel loops keep aborting.
//
//===----------------------------------------------------------------------===//

#include "lighthouse/Transforms/Boundary/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace lighthouse {

#define GEN_PASS_DEF_LOWERRUNTIMECHECKS
#include "lighthouse/Transforms/Boundary/Passes.h.inc"

namespace {

constexpr llvm::StringLiteral kCheckFailed = "lighthouseRuntimeCheckFailed";

class LowerRuntimeChecksPass
    : public impl::LowerRuntimeChecksBase<LowerRuntimeChecksPass> {
public:
  void runOnOperation() override {
    getOperation().walk([&](ModuleOp module) { lowerChecks(module); });
  }

private:
  /// Lowers the asserts of `module` itself (not of modules nested in it).
  void lowerChecks(ModuleOp module) {
    SmallVector<cf::AssertOp> asserts;
    module.walk([&](cf::AssertOp op) {
      // Inside a parallel loop, a check may fail on another thread, or take
      // the calling one out of the parallel region and leave the others
      // waiting: those keep aborting.
      if (op->getParentOfType<ModuleOp>() == module &&
          !op->getParentOfType<scf::ForallOp>() &&
          !op->getParentOfType<scf::ParallelOp>())
        asserts.push_back(op);
    });
    if (asserts.empty())
      return;

    SymbolTable symbols(module);
    OpBuilder builder(module.getBodyRegion());
    Location loc = module.getLoc();
    auto pointer = LLVM::LLVMPointerType::get(&getContext());
    if (!symbols.lookup(kCheckFailed)) {
      auto declaration = func::FuncOp::create(
          builder, loc, kCheckFailed, builder.getFunctionType({pointer}, {}));
      declaration.setPrivate();
      symbols.insert(declaration);
    }

    // One global per distinct message, named apart from the module's symbols.
    llvm::StringMap<LLVM::GlobalOp> messages;
    auto messageGlobal = [&](StringRef message) {
      LLVM::GlobalOp &global = messages[message];
      if (!global) {
        std::string text = (message + llvm::Twine('\0')).str();
        auto type = LLVM::LLVMArrayType::get(builder.getI8Type(), text.size());
        OpBuilder::InsertionGuard guard(builder);
        builder.setInsertionPointToStart(module.getBody());
        global = LLVM::GlobalOp::create(
            builder, loc, type, /*isConstant=*/true, LLVM::Linkage::Private,
            "lighthouse_check", builder.getStringAttr(text));
        symbols.insert(global);
      }
      return global;
    };

    for (cf::AssertOp op : asserts) {
      LLVM::GlobalOp global = messageGlobal(op.getMsg());
      builder.setInsertionPoint(op);
      Location at = op.getLoc();
      Value failed = arith::XOrIOp::create(
          builder, at, op.getArg(),
          arith::ConstantIntOp::create(builder, at, 1, 1));
      auto ifFailed = scf::IfOp::create(builder, at, failed);
      builder.setInsertionPointToStart(ifFailed.thenBlock());
      Value message = LLVM::AddressOfOp::create(builder, at, global);
      func::CallOp::create(builder, at, kCheckFailed, TypeRange{},
                           ValueRange{message});
      op.erase();
    }
  }
};

} // namespace

} // namespace lighthouse
