//===- ExecutionEngine.cpp - lighthouse's JIT -----------------------------===//

#include "lighthouse-c/ExecutionEngine.h"

#include "mlir/CAPI/ExecutionEngine.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"

using namespace mlir;

/// LLVM's standard pipeline at `level`, with loop unrolling as asked.
static std::function<llvm::Error(llvm::Module *)>
makeOptimizer(llvm::OptimizationLevel level, bool loopUnrolling,
              llvm::TargetMachine *targetMachine) {
  return [=](llvm::Module *module) {
    llvm::PipelineTuningOptions tuning;
    tuning.LoopUnrolling = loopUnrolling;
    tuning.LoopInterleaving = true;
    tuning.LoopVectorization = true;
    tuning.SLPVectorization = true;
    llvm::PassBuilder builder(targetMachine, tuning);
    llvm::LoopAnalysisManager loops;
    llvm::FunctionAnalysisManager functions;
    llvm::CGSCCAnalysisManager sccs;
    llvm::ModuleAnalysisManager modules;
    builder.registerModuleAnalyses(modules);
    builder.registerCGSCCAnalyses(sccs);
    builder.registerFunctionAnalyses(functions);
    builder.registerLoopAnalyses(loops);
    builder.crossRegisterProxies(loops, functions, sccs, modules);
    llvm::ModulePassManager passes =
        level == llvm::OptimizationLevel::O0
            ? builder.buildO0DefaultPipeline(level)
            : builder.buildPerModuleDefaultPipeline(level);
    passes.run(*module, modules);
    return llvm::Error::success();
  };
}

static MlirExecutionEngine reportFailure(llvm::Error error,
                                         MlirStringCallback onError,
                                         void *userData) {
  std::string message = llvm::toString(std::move(error));
  onError(mlirStringRefCreate(message.data(), message.size()), userData);
  return MlirExecutionEngine{nullptr};
}

MlirExecutionEngine lighthouseExecutionEngineCreate(
    MlirModule module, int optLevel, bool llvmLoopUnrolling, int numSharedLibs,
    const MlirStringRef *sharedLibPaths, MlirStringCallback onError,
    void *userData) {
  static const llvm::OptimizationLevel levels[] = {
      llvm::OptimizationLevel::O0, llvm::OptimizationLevel::O1,
      llvm::OptimizationLevel::O2, llvm::OptimizationLevel::O3};
  if (optLevel < 0 || optLevel > 3)
    return reportFailure(
        llvm::createStringError("optimization level " +
                                std::to_string(optLevel) +
                                " is not one of 0, 1, 2, 3"),
        onError, userData);
  static bool nativeTargetReady = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmParser();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)nativeTargetReady;

  MLIRContext &context = *unwrap(module)->getContext();
  registerBuiltinDialectTranslation(context);
  registerLLVMDialectTranslation(context);
  registerOpenMPDialectTranslation(context);

  auto machineBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!machineBuilder)
    return reportFailure(machineBuilder.takeError(), onError, userData);
  // Position-independent: a dumped object file links into a shared library.
  machineBuilder->setRelocationModel(llvm::Reloc::PIC_);
  machineBuilder->setCodeGenOptLevel(
      static_cast<llvm::CodeGenOptLevel>(optLevel));
  auto targetMachine = machineBuilder->createTargetMachine();
  if (!targetMachine)
    return reportFailure(targetMachine.takeError(), onError, userData);

  SmallVector<StringRef> libraries;
  for (int i = 0; i < numSharedLibs; ++i)
    libraries.push_back(unwrap(sharedLibPaths[i]));
  // The engine runs the optimizer while it is created.
  auto optimize = makeOptimizer(levels[optLevel], llvmLoopUnrolling,
                                targetMachine->get());
  ExecutionEngineOptions options;
  options.transformer = optimize;
  options.jitCodeGenOptLevel = static_cast<llvm::CodeGenOptLevel>(optLevel);
  options.sharedLibPaths = libraries;
  options.enableObjectDump = true;
  auto engine = ExecutionEngine::create(unwrap(module), options,
                                        std::move(*targetMachine));
  if (!engine)
    return reportFailure(engine.takeError(), onError, userData);
  return wrap(engine->release());
}
