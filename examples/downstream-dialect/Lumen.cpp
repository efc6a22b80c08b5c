//===- Lumen.cpp - The lumen dialect, its pass and its entry points -------===//

#include "mlir-c/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/TypeSwitch.h"

#include "lumenDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "lumenTypes.h.inc"

#define GET_OP_CLASSES
#include "lumenOps.h.inc"

using namespace mlir;

//===----------------------------------------------------------------------===//
// Dialect, types and ops
//===----------------------------------------------------------------------===//

#include "lumenDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "lumenTypes.cpp.inc"

#define GET_OP_CLASSES
#include "lumenOps.cpp.inc"

void lumen::LumenDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "lumenTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "lumenOps.cpp.inc"
      >();
}

Operation *lumen::LumenDialect::materializeConstant(OpBuilder &builder,
                                                    Attribute value, Type type,
                                                    Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}

LogicalResult
lumen::BeamType::verify(function_ref<InFlightDiagnostic()> emitError,
                        int64_t width) {
  if (width <= 0)
    return emitError() << "a beam has at least one lane, got " << width;
  return success();
}

LogicalResult lumen::ScaleOp::verify() {
  if (getFactor().convertToFloat() == 0.0f)
    return emitOpError("factor must not be zero");
  return success();
}

OpFoldResult lumen::ScaleOp::fold(FoldAdaptor adaptor) {
  // Scaling by one is the identity; a constant input folds to a constant.
  float factor = getFactor().convertToFloat();
  if (factor == 1.0f)
    return getInput();
  if (auto input = dyn_cast_if_present<FloatAttr>(adaptor.getInput()))
    return FloatAttr::get(getType(), input.getValueAsDouble() * factor);
  return {};
}

//===----------------------------------------------------------------------===//
// Passes
//===----------------------------------------------------------------------===//

namespace lumen {
#define GEN_PASS_DECL
#define GEN_PASS_DEF_LUMENEXPANDSCALE
#include "lumenPasses.h.inc"
} // namespace lumen

namespace {
struct ExpandScale : OpRewritePattern<lumen::ScaleOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(lumen::ScaleOp op,
                                PatternRewriter &rewriter) const override {
    Value factor =
        arith::ConstantOp::create(rewriter, op.getLoc(), op.getFactorAttr());
    rewriter.replaceOpWithNewOp<arith::MulFOp>(op, op.getInput(), factor);
    return success();
  }
};

struct LumenExpandScale : lumen::impl::LumenExpandScaleBase<LumenExpandScale> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandScale>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// Entry points: the C API (Python), and MLIR dialect and pass plugins (lh-opt)
//===----------------------------------------------------------------------===//

extern "C" {
MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(lumen, lumen, lumen::LumenDialect)

void lumenRegisterPasses(void) {
  static bool registered = false;
  if (!registered)
    PassRegistration<LumenExpandScale>();
  registered = true;
}

LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "lumen", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) {
            registry->insert<lumen::LumenDialect>();
          }};
}

LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "lumen", LLVM_VERSION_STRING,
          [] { lumenRegisterPasses(); }};
}
}
