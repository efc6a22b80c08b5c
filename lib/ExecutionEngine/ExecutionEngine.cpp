//===- ExecutionEngine.cpp - lighthouse's JIT -----------------------------===//

#include "lighthouse/ExecutionEngine/ExecutionEngine.h"

#include "ModuleSplitting.h"
#include "Weights.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/FunctionExtras.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/MemAlloc.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Target/TargetMachine.h"

#include <algorithm>
#include <chrono>
#include <cstring>

using namespace mlir;
using namespace lighthouse;

namespace {

/// How each part of the module is compiled.
struct CodeGen {
  llvm::orc::JITTargetMachineBuilder machine;
  llvm::OptimizationLevel level;
  bool loopUnrolling;
};

/// The seconds of one part's optimization and code generation.
struct PartSeconds {
  double optimize = 0, codegen = 0;
};

using Clock = std::chrono::steady_clock;

/// Seconds since `start`.
double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

} // namespace

/// Gives each function that `module` defines and exports an entry point
/// taking its arguments packed: `_mlir_<name>(void **arguments)`, where
/// `arguments[i]` points to argument `i` and, for a function with a result,
/// `arguments[n]` to where the result is stored. lighthouse's callers call
/// these (the `_mlir_ciface_` functions' packed entries), as the callers of
/// MLIR's ExecutionEngine do.
static llvm::Error addPackedEntries(llvm::Module &module) {
  llvm::LLVMContext &context = module.getContext();
  llvm::PointerType *pointer = llvm::PointerType::getUnqual(context);
  auto *entryType = llvm::FunctionType::get(llvm::Type::getVoidTy(context),
                                            {pointer}, /*isVarArg=*/false);
  SmallVector<llvm::Function *> exported;
  for (llvm::Function &function : module)
    if (!function.isDeclaration() && !function.hasLocalLinkage())
      exported.push_back(&function);
  for (llvm::Function *function : exported) {
    std::string name = ("_mlir_" + function->getName()).str();
    if (module.getNamedValue(name))
      return llvm::createStringError(
          "the module defines " + name + ", the name of " +
          function->getName().str() + "'s packed entry point");
    auto *entry = llvm::Function::Create(
        entryType, llvm::GlobalValue::ExternalLinkage, name, module);
    llvm::IRBuilder<> builder(llvm::BasicBlock::Create(context, "", entry));
    llvm::Value *packed = entry->getArg(0);
    auto address = [&](unsigned index) {
      return builder.CreateLoad(
          pointer, builder.CreateConstGEP1_64(pointer, packed, index));
    };
    SmallVector<llvm::Value *> arguments;
    for (llvm::Argument &argument : function->args())
      arguments.push_back(
          builder.CreateLoad(argument.getType(), address(argument.getArgNo())));
    llvm::CallInst *result = builder.CreateCall(function, arguments);
    if (!result->getType()->isVoidTy())
      builder.CreateStore(result, address(function->arg_size()));
    builder.CreateRetVoid();
  }
  return llvm::Error::success();
}

/// Runs LLVM's standard pipeline on `module`.
static void optimize(llvm::Module &module, const CodeGen &codeGen,
                     llvm::TargetMachine &targetMachine) {
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = codeGen.loopUnrolling;
  tuning.LoopInterleaving = true;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  llvm::PassBuilder builder(&targetMachine, tuning);
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
      codeGen.level == llvm::OptimizationLevel::O0
          ? builder.buildO0DefaultPipeline(codeGen.level)
          : builder.buildPerModuleDefaultPipeline(codeGen.level);
  passes.run(module, modules);
}

/// Optimizes `module` (unless `optimizeFirst` is false) and compiles it into
/// `object`, with a target machine of its own: parts compile on separate
/// threads.
static llvm::Error compile(llvm::Module &module, const CodeGen &codeGen,
                           llvm::SmallVector<char, 0> &object,
                           PartSeconds &seconds, bool optimizeFirst = true) {
  llvm::orc::JITTargetMachineBuilder machine = codeGen.machine;
  auto targetMachine = machine.createTargetMachine();
  if (!targetMachine)
    return targetMachine.takeError();
  Clock::time_point start = Clock::now();
  if (optimizeFirst)
    optimize(module, codeGen, **targetMachine);
  seconds.optimize = since(start);
  start = Clock::now();
  llvm::raw_svector_ostream stream(object);
  llvm::legacy::PassManager passes;
  if ((*targetMachine)
          ->addPassesToEmitFile(passes, stream, nullptr,
                                llvm::CodeGenFileType::ObjectFile))
    return llvm::createStringError("LLVM cannot emit object files for " +
                                   module.getTargetTriple().str());
  passes.run(module);
  seconds.codegen = since(start);
  return llvm::Error::success();
}

/// Compiles `module` into one object file per part, the parts on threads
/// of their own. A part is a module of its own in a context of its own (an
/// LLVM context is not shared across threads), which it is read into from
/// bitcode. Adds the seconds of each step to `phases`, the parts' summed.
static llvm::Error
compileInParts(llvm::Module &module, unsigned numParts, const CodeGen &codeGen,
               std::vector<llvm::SmallVector<char, 0>> &objects,
               JITPhases &phases) {
  std::vector<PartSeconds> seconds(std::max(numParts, 1u));
  auto addSeconds = [&] {
    for (const PartSeconds &part : seconds) {
      phases.optimize += part.optimize;
      phases.codegen += part.codegen;
    }
  };
  if (numParts <= 1) {
    objects.resize(1);
    llvm::Error error = compile(module, codeGen, objects[0], seconds[0]);
    addSeconds();
    return error;
  }
  Clock::time_point start = Clock::now();
  std::vector<llvm::SmallVector<char, 0>> bitcode;
  for (const std::unique_ptr<llvm::Module> &part :
       splitModule(module, numParts)) {
    llvm::raw_svector_ostream stream(bitcode.emplace_back());
    llvm::WriteBitcodeToFile(*part, stream);
  }
  objects.resize(bitcode.size());
  seconds.resize(bitcode.size());
  phases.split += since(start);
  std::vector<std::string> errors(bitcode.size());
  // At most one thread per hardware thread, however many parts were asked.
  llvm::DefaultThreadPool threads(llvm::optimal_concurrency(bitcode.size()));
  for (size_t index = 0; index < bitcode.size(); ++index)
    threads.async([&, index] {
      llvm::LLVMContext context;
      llvm::Error error = [&]() -> llvm::Error {
        auto part = llvm::parseBitcodeFile(
            llvm::MemoryBufferRef(
                llvm::StringRef(bitcode[index].data(), bitcode[index].size()),
                "part"),
            context);
        if (!part)
          return part.takeError();
        return compile(**part, codeGen, objects[index], seconds[index]);
      }();
      if (error)
        errors[index] = llvm::toString(std::move(error));
    });
  threads.wait();
  addSeconds();
  for (const std::string &error : errors)
    if (!error.empty())
      return llvm::createStringError(error);
  return llvm::Error::success();
}

/// The JIT, linking `objects` against this process, `sharedLibPaths` and
/// `symbols` (names and addresses), with `reportError` called with what it
/// reports while linking.
static llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>>
createJit(llvm::orc::JITTargetMachineBuilder machine,
          llvm::ArrayRef<std::string> sharedLibPaths,
          llvm::ArrayRef<llvm::SmallVector<char, 0>> objects,
          llvm::ArrayRef<std::pair<std::string, const void *>> symbols,
          llvm::unique_function<void(llvm::Error)> reportError) {
  auto jit = llvm::orc::LLJITBuilder()
                 .setJITTargetMachineBuilder(std::move(machine))
                 .create();
  if (!jit)
    return jit.takeError();
  (*jit)->getExecutionSession().setErrorReporter(std::move(reportError));
  llvm::orc::JITDylib &library = (*jit)->getMainJITDylib();
  char prefix = (*jit)->getDataLayout().getGlobalPrefix();
  auto process =
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix);
  if (!process)
    return process.takeError();
  library.addGenerator(std::move(*process));
  for (const std::string &path : sharedLibPaths) {
    auto shared =
        llvm::orc::DynamicLibrarySearchGenerator::Load(path.c_str(), prefix);
    if (!shared)
      return shared.takeError();
    library.addGenerator(std::move(*shared));
  }
  llvm::orc::SymbolMap addresses;
  for (const auto &[name, address] : symbols)
    addresses[(*jit)->mangleAndIntern(name)] = {
        llvm::orc::ExecutorAddr::fromPtr(address),
        llvm::JITSymbolFlags::Exported};
  if (llvm::Error error =
          library.define(llvm::orc::absoluteSymbols(std::move(addresses))))
    return std::move(error);
  for (const llvm::SmallVector<char, 0> &object : objects)
    if (llvm::Error error =
            (*jit)->addObjectFile(llvm::MemoryBuffer::getMemBuffer(
                llvm::StringRef(object.data(), object.size()), "lighthouse",
                /*RequiresNullTerminator=*/false)))
      return std::move(error);
  return std::move(*jit);
}

llvm::Expected<std::unique_ptr<ExecutionEngine>>
ExecutionEngine::create(ModuleOp module, const JITOptions &options) {
  int optLevel = options.optLevel;
  static const llvm::OptimizationLevel levels[] = {
      llvm::OptimizationLevel::O0, llvm::OptimizationLevel::O1,
      llvm::OptimizationLevel::O2, llvm::OptimizationLevel::O3};
  if (optLevel < 0 || optLevel > 3)
    return llvm::createStringError("optimization level " +
                                   std::to_string(optLevel) +
                                   " is not one of 0, 1, 2, 3");
  if (options.threads < 0)
    return llvm::createStringError(
        "threads must be 0 (one per hardware thread) or more, got " +
        std::to_string(options.threads));
  static bool nativeTargetReady = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmParser();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)nativeTargetReady;

  auto machine = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!machine)
    return machine.takeError();
  // Position-independent: the object files link into a shared library.
  machine->setRelocationModel(llvm::Reloc::PIC_);
  machine->setCodeGenOptLevel(static_cast<llvm::CodeGenOptLevel>(optLevel));
  CodeGen codeGen{*machine, levels[optLevel], options.loopUnrolling};
  auto targetMachine = machine->createTargetMachine();
  if (!targetMachine)
    return targetMachine.takeError();

  MLIRContext &context = *module.getContext();
  registerBuiltinDialectTranslation(context);
  registerLLVMDialectTranslation(context);
  registerOpenMPDialectTranslation(context);
  std::unique_ptr<ExecutionEngine> engine(new ExecutionEngine());
  JITPhases &phases = engine->phaseSeconds;
  Clock::time_point start = Clock::now();
  // The code is compiled from a copy that refers to the weights, which the
  // engine holds; the caller's module stays whole.
  OwningOpRef<ModuleOp> code(module.clone());
  std::vector<Weight> weights = takeWeights(*code);
  engine->machine =
      std::make_unique<llvm::orc::JITTargetMachineBuilder>(*machine);
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(*code, llvmContext);
  if (!llvmModule)
    return llvm::createStringError(
        "the module does not translate to LLVM IR (see the diagnostics)");
  llvmModule->setDataLayout((*targetMachine)->createDataLayout());
  llvmModule->setTargetTriple((*targetMachine)->getTargetTriple());
  // Objects linked by the JIT have no step that runs them.
  for (StringRef name : {"llvm.global_ctors", "llvm.global_dtors"})
    if (llvmModule->getNamedGlobal(name))
      return llvm::createStringError(
          llvm::Twine("the module has global constructors or destructors (") +
          name + "), which lighthouse's JIT does not run");
  if (llvm::Error error = addPackedEntries(*llvmModule))
    return error;
  phases.translate = since(start);

  if (llvm::Error error =
          compileInParts(*llvmModule, countParts(*llvmModule, options.threads),
                         codeGen, engine->objectFiles, phases))
    return std::move(error);
  // The JIT's code reads each weight from a copy of its bytes the engine
  // holds: compiled into an object and linked, the bytes were copied three
  // times (an LLVM constant, the object, the JIT's memory), 1.2 GB of
  // ViT-B/16's 2.5 GB peak for 0.35 GB of weights. The object is compiled
  // only to save the module.
  start = Clock::now();
  std::vector<std::pair<std::string, const void *>> symbols;
  for (const Weight &weight : weights) {
    size_t alignment = std::max<uint64_t>(weight.alignment, kWeightAlignment);
    size_t size = std::max<size_t>(weight.bytes.size(), 1);
    auto *bytes = static_cast<char *>(llvm::allocate_buffer(size, alignment));
    std::memcpy(bytes, weight.bytes.data(), weight.bytes.size());
    engine->weights.push_back({weight.name, bytes, size, alignment});
    symbols.emplace_back(weight.name, bytes);
  }
  phases.weights = since(start);
  // Room for the weights' object, so that adding it does not move the
  // objects the JIT reads (it links them at the first lookup).
  engine->objectFiles.reserve(engine->objectFiles.size() + 1);
  start = Clock::now();
  ExecutionEngine *self = engine.get();
  auto jit = createJit(*machine, options.sharedLibPaths, engine->objectFiles,
                       symbols, [self](llvm::Error error) {
                         std::lock_guard<std::mutex> lock(self->errorsMutex);
                         self->errors +=
                             "\n" + llvm::toString(std::move(error));
                       });
  if (!jit)
    return jit.takeError();
  engine->jit = std::move(*jit);
  phases.load = since(start);
  return engine;
}

ExecutionEngine::~ExecutionEngine() {
  // The code reads the weights until the JIT is gone.
  jit.reset();
  for (const HeldWeight &weight : weights)
    llvm::deallocate_buffer(weight.bytes, weight.size, weight.alignment);
}

llvm::Expected<llvm::ArrayRef<llvm::SmallVector<char, 0>>>
ExecutionEngine::objects() {
  std::lock_guard<std::mutex> lock(objectsMutex);
  if (!weights.empty() && !weightsCompiled) {
    std::vector<Weight> view;
    for (const HeldWeight &weight : weights)
      view.push_back({weight.name, llvm::ArrayRef(weight.bytes, weight.size),
                      weight.alignment});
    auto targetMachine = machine->createTargetMachine();
    if (!targetMachine)
      return targetMachine.takeError();
    llvm::LLVMContext context;
    std::unique_ptr<llvm::Module> data = weightsModule(view, context);
    data->setDataLayout((*targetMachine)->createDataLayout());
    data->setTargetTriple((*targetMachine)->getTargetTriple());
    llvm::SmallVector<char, 0> object;
    PartSeconds seconds;
    if (llvm::Error error = compile(
            *data, CodeGen{*machine, llvm::OptimizationLevel::O0, false},
            object, seconds, /*optimizeFirst=*/false))
      return std::move(error);
    objectFiles.push_back(std::move(object));
    weightsCompiled = true;
  }
  return llvm::ArrayRef(objectFiles);
}

llvm::Expected<void *> ExecutionEngine::lookup(llvm::StringRef symbol) {
  auto address = jit->lookup(symbol);
  if (!address) {
    std::string message = llvm::toString(address.takeError());
    {
      std::lock_guard<std::mutex> lock(errorsMutex);
      message += errors;
    }
    return llvm::createStringError(message);
  }
  return address->toPtr<void *>();
}
