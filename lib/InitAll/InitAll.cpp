//===- InitAll.cpp - Lighthouse dialect and pass registration -------------===//
//
// Registers the subset of upstream MLIR that lighthouse uses for its CPU
// flow. The upstream `registerAll*` helpers are deliberately not used: they
// link every dialect and conversion (GPU, SPIR-V, NVVM, ...) into the binary.
//
//===----------------------------------------------------------------------===//

#include "lighthouse/InitAll.h"

#include "lighthouse/Codegen/CPU/Passes.h"
#include "lighthouse/Dialect/OpaqueDialects.h"
#include "lighthouse/Pipelines/Pipelines.h"
#include "lighthouse/Transforms/Boundary/Passes.h"
#include "lighthouse/Transforms/Buffers/Passes.h"
#include "lighthouse/Transforms/Tensors/Passes.h"

#include <mutex>

// Dialects.
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/PDL/IR/PDL.h"
#include "mlir/Dialect/PDLInterp/IR/PDLInterp.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"

// External interface models.
#include "mlir/Dialect/Affine/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/BufferViewFlowOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/ControlFlow/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/ControlFlow/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/LLVMIR/Transforms/InlinerInterfaceImpl.h"
#include "mlir/Dialect/Linalg/Transforms/AllInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/RuntimeOpVerification.h"
#include "mlir/Dialect/MLProgram/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/IR/MemRefMemorySlot.h"
#include "mlir/Dialect/MemRef/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/Transforms/AllocationOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/Transforms/BufferViewFlowOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/Transforms/RuntimeOpVerification.h"
#include "mlir/Dialect/SCF/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/TensorInferTypeOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/TensorTilingInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/RuntimeOpVerification.h"
#include "mlir/Dialect/Tensor/Transforms/SubsetInsertionOpInterfaceImpl.h"
#include "mlir/Dialect/Vector/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Vector/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Vector/Transforms/SubsetOpInterfaceImpl.h"
#include "mlir/Interfaces/CastInterfaces.h"

// Transform dialect extensions.
#include "mlir/Dialect/Affine/TransformOps/AffineTransformOps.h"
#include "mlir/Dialect/Bufferization/TransformOps/BufferizationTransformOps.h"
#include "mlir/Dialect/Func/TransformOps/FuncTransformOps.h"
#include "mlir/Dialect/Linalg/TransformOps/DialectExtension.h"
#include "mlir/Dialect/MemRef/TransformOps/MemRefTransformOps.h"
#include "mlir/Dialect/SCF/TransformOps/SCFTransformOps.h"
#include "mlir/Dialect/Tensor/TransformOps/TensorTransformOps.h"
#include "mlir/Dialect/Transform/DebugExtension/DebugExtension.h"
#include "mlir/Dialect/Transform/LoopExtension/LoopExtension.h"
#include "mlir/Dialect/Transform/PDLExtension/PDLExtension.h"
#include "mlir/Dialect/Transform/TuneExtension/TuneExtension.h"
#include "mlir/Dialect/Vector/TransformOps/VectorTransformOps.h"

// ConvertToLLVMPatternInterface models.
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ComplexToLLVM/ComplexToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/OpenMPToLLVM/ConvertOpenMPToLLVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"

// LLVM IR translations.
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"

// Passes. The conversion header only provides the generated, inline
// registration functions; only the ones actually called get linked.
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Affine/Transforms/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MLProgram/Transforms/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/Tensor/Transforms/Passes.h"
#include "mlir/Dialect/Transform/Transforms/Passes.h"
#include "mlir/Dialect/Vector/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

//===----------------------------------------------------------------------===//
// Dialects
//===----------------------------------------------------------------------===//

static void registerDialects(DialectRegistry &registry) {
  // clang-format off
  registry.insert<affine::AffineDialect,
                  arith::ArithDialect,
                  bufferization::BufferizationDialect,
                  cf::ControlFlowDialect,
                  complex::ComplexDialect,
                  func::FuncDialect,
                  index::IndexDialect,
                  linalg::LinalgDialect,
                  LLVM::LLVMDialect,
                  math::MathDialect,
                  memref::MemRefDialect,
                  ml_program::MLProgramDialect,
                  omp::OpenMPDialect,
                  pdl::PDLDialect,
                  // Target of the PDL-to-interpreter lowering used when
                  // transform scripts carry PDL patterns.
                  pdl_interp::PDLInterpDialect,
                  scf::SCFDialect,
                  tensor::TensorDialect,
                  transform::TransformDialect,
                  ub::UBDialect,
                  vector::VectorDialect>();
  // clang-format on
  // What torch-mlir's lowering leaves in its own dialect; the pipelines
  // lower it (lighthouse-lower-tm-tensor).
  registry.insert<lighthouse::OpaqueTMTensorDialect>();
}

//===----------------------------------------------------------------------===//
// External interface models
//===----------------------------------------------------------------------===//

/// Models required by one-shot bufferization and the buffer deallocation
/// pipeline.
static void registerBufferizationModels(DialectRegistry &registry) {
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  arith::registerBufferDeallocationOpInterfaceExternalModels(registry);
  arith::registerBufferViewFlowOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  cf::registerBufferizableOpInterfaceExternalModels(registry);
  cf::registerBufferDeallocationOpInterfaceExternalModels(registry);
  memref::registerAllocationOpInterfaceExternalModels(registry);
  memref::registerBufferViewFlowOpInterfaceExternalModels(registry);
  ml_program::registerBufferizableOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  scf::registerBufferDeallocationOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  vector::registerBufferizableOpInterfaceExternalModels(registry);
}

/// Models used by tiling, fusion and the analyses behind them.
static void registerAnalysisAndTilingModels(DialectRegistry &registry) {
  // Covers linalg's bufferization, tiling, value-bounds, subset and
  // sharding models in one go.
  linalg::registerAllDialectInterfaceImplementations(registry);

  affine::registerValueBoundsOpInterfaceExternalModels(registry);
  arith::registerValueBoundsOpInterfaceExternalModels(registry);
  memref::registerValueBoundsOpInterfaceExternalModels(registry);
  scf::registerValueBoundsOpInterfaceExternalModels(registry);
  tensor::registerValueBoundsOpInterfaceExternalModels(registry);
  vector::registerValueBoundsOpInterfaceExternalModels(registry);

  tensor::registerTilingInterfaceExternalModels(registry);
  tensor::registerInferTypeOpInterfaceExternalModels(registry);
  tensor::registerSubsetOpInterfaceExternalModels(registry);
  vector::registerSubsetOpInterfaceExternalModels(registry);
  // Lets transform ops track tensor.expand/collapse_shape replacements.
  tensor::registerFindPayloadReplacementOpInterfaceExternalModels(registry);
}

/// Models used by generic transformations (inlining, mem2reg/sroa,
/// `generate-runtime-verification`, cast folding).
static void registerGenericTransformModels(DialectRegistry &registry) {
  builtin::registerCastOpInterfaceExternalModels(registry);
  func::registerInlinerExtension(registry);
  LLVM::registerInlinerInterface(registry);
  memref::registerMemorySlotExternalModels(registry);

  linalg::registerRuntimeVerifiableOpInterfaceExternalModels(registry);
  memref::registerRuntimeVerifiableOpInterfaceExternalModels(registry);
  tensor::registerRuntimeVerifiableOpInterfaceExternalModels(registry);
}

//===----------------------------------------------------------------------===//
// Transform dialect extensions
//===----------------------------------------------------------------------===//

static void registerTransformExtensions(DialectRegistry &registry) {
  affine::registerTransformDialectExtension(registry);
  bufferization::registerTransformDialectExtension(registry);
  func::registerTransformDialectExtension(registry);
  linalg::registerTransformDialectExtension(registry);
  memref::registerTransformDialectExtension(registry);
  scf::registerTransformDialectExtension(registry);
  tensor::registerTransformDialectExtension(registry);
  vector::registerTransformDialectExtension(registry);

  transform::registerDebugExtension(registry);
  transform::registerTuneExtension(registry);
  transform::registerLoopExtension(registry);
  transform::registerPDLExtension(registry);
}

//===----------------------------------------------------------------------===//
// Lowering to LLVM
//===----------------------------------------------------------------------===//

/// Makes the dialects discoverable by the generic `convert-to-llvm` pass.
static void registerConvertToLLVMModels(DialectRegistry &registry) {
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertComplexToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  registerConvertOpenMPToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  vector::registerConvertVectorToLLVMInterface(registry);
}

/// Lets the ExecutionEngine translate LLVM-dialect modules to LLVM IR.
static void registerLLVMIRTranslations(DialectRegistry &registry) {
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerOpenMPDialectTranslation(registry);
}

void lighthouse::registerAllDialects(DialectRegistry &registry) {
  registerDialects(registry);
  registerBufferizationModels(registry);
  registerAnalysisAndTilingModels(registry);
  registerGenericTransformModels(registry);
  registerTransformExtensions(registry);
  registerConvertToLLVMModels(registry);
  registerLLVMIRTranslations(registry);
}

//===----------------------------------------------------------------------===//
// Passes
//===----------------------------------------------------------------------===//

static void registerDialectPasses() {
  // canonicalize, cse, inline, loop-invariant-code-motion, ...
  registerTransformsPasses();

  affine::registerAffinePasses();
  arith::registerArithPasses();
  bufferization::registerBufferizationPasses();
  bufferization::registerBufferizationPipelines();
  func::registerFuncPasses();
  registerLinalgPasses();
  math::registerMathPasses();
  memref::registerMemRefPasses();
  ml_program::registerMLProgramPasses();
  registerSCFPasses();
  tensor::registerTensorPasses();
  transform::registerTransformPasses();
  vector::registerVectorPasses();

  // LLVM dialect passes, picked individually because `registerLLVMPasses()`
  // also registers an NVVM-specific pass.
  LLVM::registerDIScopeForLLVMFuncOpPass();
  LLVM::registerLLVMAddComdats();
  LLVM::registerLLVMLegalizeForExportPass();
  LLVM::registerLLVMRequestCWrappersPass();
  LLVM::registerLLVMUseDefaultVisibilityPass();
}

/// Conversions on the path from linalg on tensors to executable LLVM dialect.
static void registerCPUConversionPasses() {
  // Towards loops and the standard dialects.
  registerConvertBufferizationToMemRefPass();
  registerConvertComplexToLibm();
  registerConvertComplexToStandardPass();
  registerConvertLinalgToStandardPass();
  registerConvertMathToFuncs();
  registerConvertMathToLibmPass();
  registerConvertTensorToLinalgPass();
  registerConvertVectorToSCF();
  registerLowerAffinePass();
  registerSCFToControlFlowPass();

  // Into the LLVM dialect.
  registerArithToLLVMConversionPass();
  registerConvertComplexToLLVMPass();
  registerConvertControlFlowToLLVMPass();
  registerConvertFuncToLLVMPass();
  registerConvertIndexToLLVMPass();
  registerConvertMathToLLVMPass();
  registerConvertToLLVMPass();
  registerConvertVectorToLLVMPass();
  registerFinalizeMemRefToLLVMConversionPass();
  registerReconcileUnrealizedCastsPass();
  registerSetLLVMModuleDataLayoutPass();
  registerUBToLLVMConversionPass();

  // Multithreading through OpenMP.
  registerConvertSCFToOpenMPPass();
  registerConvertOpenMPToLLVMPass();
}

void lighthouse::registerAllPasses() {
  // Registering a pipeline name twice is a fatal error; callers (the C API,
  // the Python site initializer, tools) need not coordinate.
  static std::once_flag registered;
  std::call_once(registered, [] {
    registerDialectPasses();
    registerCPUConversionPasses();
    // lighthouse's own passes, then the pipelines that name them.
    registerLighthouseTensorTransformsPasses();
    registerLighthouseBufferTransformsPasses();
    registerLighthouseBoundaryTransformsPasses();
    registerLighthouseCodegenCPUPasses();
    registerPipelines();
  });
}
