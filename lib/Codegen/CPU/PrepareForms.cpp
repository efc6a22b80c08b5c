//===- PrepareForms.cpp - Rewrite ops into the forms the policies take ----===//
//
// `lighthouse-cpu-prepare-forms` replaces the ops of no iterations by their
// inits, then runs the forms of the family table
// (OpFamilies.h), stage by stage, each stage's in table order, for the
// context that selection is then given the same options for.
//
//===----------------------------------------------------------------------===//

#include "OpFamilies.h"

#include "lighthouse/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace lighthouse {

#define GEN_PASS_DEF_CPUPREPAREFORMS
#include "lighthouse/Codegen/CPU/Passes.h.inc"

namespace {

using namespace cpu;

class CPUPrepareFormsPass
    : public impl::CPUPrepareFormsBase<CPUPrepareFormsPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<SelectionContext> context = resolveSelectionContext(
        module, getArgument(), target, threads, cacheTiles, registerTiles,
        packB, fuseConsumers);
    if (failed(context) || failed(checkSkipped(module)))
      return signalPassFailure();
    // Ops of no iterations leave their inits as they are: nothing for a form
    // or a strategy to do, and their loops' ranges of 0 are no tile size.
    replaceOpsOfNoIterations(module);
    for (FormStage stage : {FormStage::Ops, FormStage::Rows, FormStage::Sizes})
      for (const OpFamily &family : opFamilies())
        for (const Form &form : family.forms)
          if (form.stage == stage && !llvm::is_contained(skip, form.name))
            form.run(module, *context);
  }

private:
  /// Fails, naming the forms there are, when `skip` names another.
  LogicalResult checkSkipped(ModuleOp module) {
    llvm::StringSet<> names;
    for (const OpFamily &family : opFamilies())
      for (const Form &form : family.forms)
        names.insert(form.name);
    for (const std::string &name : skip) {
      if (names.contains(name))
        continue;
      InFlightDiagnostic error = module.emitError(getArgument())
                                 << ": no form named " << name << "; forms:";
      for (const OpFamily &family : opFamilies())
        for (const Form &form : family.forms)
          error << " " << form.name;
      return error;
    }
    return success();
  }
};

} // namespace

} // namespace lighthouse
