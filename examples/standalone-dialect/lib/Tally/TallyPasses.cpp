//===- TallyPasses.cpp - Lowering the tally dialect to arith --------------===//

#include "Tally/TallyPasses.h"
#include "Tally/TallyDialect.h"
#include "Tally/TallyOps.h"
#include "Tally/TallyTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace tally {
#define GEN_PASS_DEF_CONVERTTALLYTOARITH
#include "tallyPasses.h.inc"
} // namespace tally

namespace {
Value modulusConstant(OpBuilder &builder, Location loc,
                      tally::CounterType counter) {
  return arith::ConstantIntOp::create(builder, loc, builder.getI64Type(),
                                      counter.getModulus());
}

// count = value mod N, in [0, N): remsi keeps the sign of `value`, so a
// negative remainder is shifted up by N.
struct LowerWrap : OpConversionPattern<tally::WrapOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tally::WrapOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value modulus = modulusConstant(rewriter, loc, op.getType());
    Value zero =
        arith::ConstantIntOp::create(rewriter, loc, rewriter.getI64Type(), 0);
    Value remainder =
        arith::RemSIOp::create(rewriter, loc, adaptor.getValue(), modulus);
    Value isNegative = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::slt, remainder, zero);
    Value shifted = arith::AddIOp::create(rewriter, loc, remainder, modulus);
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, isNegative, shifted,
                                                 remainder);
    return success();
  }
};

// count' = (count + steps mod N) mod N. Both terms are in [0, N), so their
// sum fits in 64 unsigned bits whatever N: remui is exact.
struct LowerAdvance : OpConversionPattern<tally::AdvanceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tally::AdvanceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    tally::CounterType counter = op.getType();
    Value modulus = modulusConstant(rewriter, loc, counter);
    Value steps = arith::ConstantIntOp::create(
        rewriter, loc, rewriter.getI64Type(),
        op.getStepsAttr().getInt() % counter.getModulus());
    Value sum =
        arith::AddIOp::create(rewriter, loc, adaptor.getCounter(), steps);
    rewriter.replaceOpWithNewOp<arith::RemUIOp>(op, sum, modulus);
    return success();
  }
};

// The i64 a counter became is its count.
struct LowerRead : OpConversionPattern<tally::ReadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tally::ReadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getCounter());
    return success();
  }
};

struct ConvertTallyToArith
    : tally::impl::ConvertTallyToArithBase<ConvertTallyToArith> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    TypeConverter counterToI64;
    counterToI64.addConversion([](Type type) { return type; });
    counterToI64.addConversion([](tally::CounterType counter) -> Type {
      return IntegerType::get(counter.getContext(), 64);
    });

    ConversionTarget target(*context);
    target.addIllegalDialect<tally::TallyDialect>();
    target.addLegalDialect<arith::ArithDialect>();

    RewritePatternSet patterns(context);
    patterns.add<LowerWrap, LowerAdvance, LowerRead>(counterToI64, context);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
