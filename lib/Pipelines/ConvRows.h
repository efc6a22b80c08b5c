//===- ConvRows.h - NCHW convolutions as rows of outer products -*- C++ -*-===//
//
// Part of lighthouse-cpu-schedule: the register kernel of NCHW
// convolutions. The schedule tiles such a convolution into blocks of F
// output channels by R rows (1 or 2) of W pixels; each block is then
// computed by vectorizeConvRow as F x R vectors of W accumulators that stay
// in registers while the loops over input channels and the window's rows
// run, each step R unaligned loads of image rows (and shuffles when
// strided) and F broadcasts of weights, each used by R FMAs.
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_LIB_PIPELINES_CONVROWS_H
#define LIGHTHOUSE_LIB_PIPELINES_CONVROWS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>

namespace lighthouse {

/// Whether `type` is a 4-D tensor (NCHW) static but for its batch, as the
/// schedule of convolutions and poolings wants its images and outputs.
bool isStaticButBatch(mlir::Type type);

/// Output channels, rows and pixels of one block of the register kernel.
struct ConvRowTile {
  int64_t channels;
  int64_t rows;
  int64_t pixels;
};

/// The block of `conv` for the register kernel, or none when the kernel does
/// not apply. It takes f32 on tensors, static shapes but for the batch, a
/// stride of 1 or 2 along the rows, windows up to 11 columns wide, and
/// output rows of 4 to 16 pixels or wider ones that divide into blocks of 8
/// to 16; a block holds as many channels as divide the output's and fit 8
/// AVX-512 registers of sums per row, and 2 rows when they divide the
/// output's.
std::optional<ConvRowTile> convRowTile(mlir::linalg::Conv2DNchwFchwOp conv);

/// Rewrites `conv`, one block (output 1 x F x R x W, R of 1 or 2), into
/// vector code: loops over input channels and window rows, the window's
/// columns unrolled. Fails, leaving `conv` as it is, on other shapes.
llvm::LogicalResult vectorizeConvRow(mlir::RewriterBase &rewriter,
                                     mlir::linalg::Conv2DNchwFchwOp conv);

} // namespace lighthouse

#endif // LIGHTHOUSE_LIB_PIPELINES_CONVROWS_H
