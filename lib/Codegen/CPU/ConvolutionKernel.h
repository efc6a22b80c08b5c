//===- ConvolutionKernel.h - The convolution register kernel ----*- C++ -*-===//
//
// The register kernel of the `convolution.rows` strategy of NCHW
// convolutions and poolings (Convolution.cpp). The strategy tiles such an op
// into blocks of F output
// channels by R rows (1 or 2) of W pixels; each block is then computed by
// vectorizeWindowRows as F x R vectors of W accumulators that stay in
// registers while the loops over input channels (convolutions) and the
// window's rows run. Each step of a convolution is R unaligned loads of
// image rows (and shuffles when strided) and F broadcasts of weights, each
// used by R FMAs; each step of a pooling, a load per accumulator and a max
// or an add.
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_LIB_CODEGEN_CPU_CONVOLUTIONKERNEL_H
#define LIGHTHOUSE_LIB_CODEGEN_CPU_CONVOLUTIONKERNEL_H

#include "lighthouse/Codegen/CPU/Target.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>

namespace lighthouse::cpu {

/// Whether `type` is a 4-D tensor (NCHW) static but for its batch, as the
/// strategies of convolutions and poolings want its images and outputs.
bool isStaticButBatch(mlir::Type type);

/// What a window op does with each element of its window.
enum class WindowReduction { MultiplyAdd, Max, Add };

/// A 2-D convolution or pooling in NCHW layout (FCHW filters, CHW depthwise
/// filters, KHxKW pooling windows), classified through linalg's
/// ConvolutionOpInterface, named or generic: loops (n, f, oh, ow, c, kh, kw)
/// of a convolution, (n, c, oh, ow, kh, kw) of a depthwise convolution or a
/// pooling.
struct NchwWindow {
  mlir::Value image, window, output;
  /// Whether each output channel reads its own image channel alone (a
  /// depthwise convolution, a pooling) rather than all of them.
  bool channelwise = false;
  /// For floats: what the body does (none for other bodies and types).
  std::optional<WindowReduction> reduction;
  mlir::SmallVector<int64_t, 2> strides, dilations;
  /// Known when the window has a static shape (asKernelWindow): the input
  /// channels each output channel sums over (1 for a pooling), and the
  /// window's size.
  int64_t inputChannels = 0, windowRows = 0, windowColumns = 0;
};

/// `op` as an NCHW window op, or none.
std::optional<NchwWindow> asNchwWindow(mlir::linalg::LinalgOp op);

/// Output channels, rows and pixels of one block of the register kernel.
struct WindowRowTile {
  int64_t channels;
  int64_t rows;
  int64_t pixels;
};

/// The block of `op` (an NCHW window op of float multiply-adds, maxima or
/// sums) for the register kernel, or none when the
/// kernel does not apply. It takes f32 on tensors, static shapes but for
/// the batch, a stride of 1 or 2 along the rows, windows up to 11 columns
/// wide, and output rows of 4 to 16 pixels or wider ones that divide into
/// blocks of 8 to 16 (of a register's lanes for depthwise convolutions); a
/// block holds as many channels as divide the output's and fit a quarter of
/// the target's registers of accumulators per row, and 2 rows when they
/// divide the output's.
/// With `width`, as if the output rows were that wide.
std::optional<WindowRowTile>
windowRowTile(mlir::linalg::LinalgOp op, const CPUTarget &target,
              std::optional<int64_t> width = std::nullopt);

/// Rewrites `op`, one block (output 1 x F x R x W, R of 1 or 2), into
/// vector code: loops over input channels (convolutions) and window rows,
/// the window's columns unrolled. Fails, leaving `op` as it is, on other
/// ops and shapes.
llvm::LogicalResult vectorizeWindowRows(mlir::RewriterBase &rewriter,
                                        mlir::linalg::LinalgOp op,
                                        const CPUTarget &target);

} // namespace lighthouse::cpu

#endif // LIGHTHOUSE_LIB_CODEGEN_CPU_CONVOLUTIONKERNEL_H
