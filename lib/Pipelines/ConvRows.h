//===- ConvRows.h - NCHW convolutions as rows of outer products -*- C++ -*-===//
//
// Part of lighthouse-cpu-schedule: the register kernel of NCHW
// convolutions. The schedule tiles such a convolution into blocks of F
// output channels by W pixels of one output row; each block is then
// computed by vectorizeConvRow as F vectors of W accumulators that stay in
// registers while the loops over input channels and the window's rows run,
// each step one unaligned load of an input row (and a shuffle when strided)
// and F broadcast-FMAs.
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_LIB_PIPELINES_CONVROWS_H
#define LIGHTHOUSE_LIB_PIPELINES_CONVROWS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>

namespace lighthouse {

/// Output channels and pixels of one block of the register kernel.
struct ConvRowTile {
  int64_t channels;
  int64_t pixels;
};

/// The block of `conv` for the register kernel, or none when the kernel does
/// not apply. It takes f32 on tensors, static shapes but for the batch, a
/// stride of 1 or 2 along the rows, windows up to 11 columns wide, and
/// output rows of 4 to 16 pixels or wider ones that divide into blocks of 8
/// to 16; a block holds as many channels as divide the output's and fit 8
/// AVX-512 registers of sums.
std::optional<ConvRowTile> convRowTile(mlir::linalg::Conv2DNchwFchwOp conv);

/// Rewrites `conv`, one block (output 1 x F x 1 x W), into vector code:
/// loops over input channels and window rows, the window's columns
/// unrolled. Fails, leaving `conv` as it is, on other shapes.
llvm::LogicalResult vectorizeConvRow(mlir::RewriterBase &rewriter,
                                     mlir::linalg::Conv2DNchwFchwOp conv);

} // namespace lighthouse

#endif // LIGHTHOUSE_LIB_PIPELINES_CONVROWS_H
