//===- ExecutionEngine.cpp - lighthouse's JIT -----------------------------===//

#include "lighthouse-c/ExecutionEngine.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <mutex>

using namespace mlir;

namespace {

/// The JIT and what it refers to until it is destroyed, declared before
/// it: the object files it links (kept for saving) and what it reported
/// while linking (a symbol nothing defines, say), which a failed lookup
/// adds to its own error (the JIT reports each failure once).
struct Engine {
  std::vector<llvm::SmallVector<char, 0>> objects;
  std::mutex errorsMutex;
  std::string errors;
  std::unique_ptr<llvm::orc::LLJIT> jit;
};

/// How each part of the module is compiled.
struct CodeGen {
  llvm::orc::JITTargetMachineBuilder machine;
  llvm::OptimizationLevel level;
  bool loopUnrolling;
};

} // namespace

static Engine *unwrap(LighthouseExecutionEngine engine) {
  return static_cast<Engine *>(engine.ptr);
}

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
      arguments.push_back(builder.CreateLoad(argument.getType(),
                                             address(argument.getArgNo())));
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

/// Optimizes `module` and compiles it into `object`, with a target machine
/// of its own: parts compile on separate threads.
static llvm::Error compile(llvm::Module &module, const CodeGen &codeGen,
                           llvm::SmallVector<char, 0> &object) {
  llvm::orc::JITTargetMachineBuilder machine = codeGen.machine;
  auto targetMachine = machine.createTargetMachine();
  if (!targetMachine)
    return targetMachine.takeError();
  optimize(module, codeGen, **targetMachine);
  llvm::raw_svector_ostream stream(object);
  llvm::legacy::PassManager passes;
  if ((*targetMachine)
          ->addPassesToEmitFile(passes, stream, nullptr,
                                llvm::CodeGenFileType::ObjectFile))
    return llvm::createStringError("LLVM cannot emit object files for " +
                                   module.getTargetTriple().str());
  passes.run(module);
  return llvm::Error::success();
}

/// Calls `visit` with the part of each function or global whose code or
/// initializer refers to `value`, directly or through constant expressions.
static void forEachReferencingPart(
    const llvm::Value &value,
    const llvm::DenseMap<const llvm::GlobalValue *, unsigned> &partOf,
    llvm::function_ref<void(unsigned)> visit) {
  SmallVector<const llvm::Value *> worklist = {&value};
  llvm::SmallPtrSet<const llvm::Value *, 8> seen;
  while (!worklist.empty())
    for (const llvm::User *user : worklist.pop_back_val()->users()) {
      if (auto *instruction = dyn_cast<llvm::Instruction>(user))
        visit(partOf.lookup(instruction->getFunction()));
      else if (auto *global = dyn_cast<llvm::GlobalValue>(user))
        visit(partOf.lookup(global));
      else if (seen.insert(user).second)
        worklist.push_back(user);
    }
}

/// Splits `module` into `numParts` modules that define its functions in
/// about equal numbers of instructions (largest first, each to the part
/// with the fewest so far), each global variable with a function that uses
/// it; the symbols a part refers to in another become hidden externals.
static std::vector<std::unique_ptr<llvm::Module>>
splitModule(llvm::Module &module, unsigned numParts) {
  SmallVector<std::pair<unsigned, llvm::Function *>> functions;
  for (llvm::Function &function : module)
    if (!function.isDeclaration())
      functions.emplace_back(function.getInstructionCount(), &function);
  llvm::sort(functions, [](const auto &a, const auto &b) {
    return a.first > b.first;
  });
  llvm::DenseMap<const llvm::GlobalValue *, unsigned> partOf;
  SmallVector<unsigned> sizes(numParts, 0);
  for (auto [instructions, function] : functions) {
    unsigned lightest = llvm::min_element(sizes) - sizes.begin();
    partOf[function] = lightest;
    sizes[lightest] += instructions;
  }
  for (llvm::GlobalVariable &global : module.globals()) {
    unsigned part = 0;
    for (const llvm::User *user : global.users())
      if (auto *instruction = dyn_cast<llvm::Instruction>(user)) {
        part = partOf.lookup(instruction->getFunction());
        break;
      }
    partOf[&global] = part;
  }
  for (llvm::GlobalValue &global : module.global_values()) {
    if (!global.hasLocalLinkage())
      continue;
    bool elsewhere = false;
    forEachReferencingPart(global, partOf, [&](unsigned part) {
      elsewhere |= part != partOf.lookup(&global);
    });
    if (!elsewhere)
      continue;
    global.setLinkage(llvm::GlobalValue::ExternalLinkage);
    global.setVisibility(llvm::GlobalValue::HiddenVisibility);
    if (!global.hasName())
      global.setName("lighthouse.part.symbol");
  }
  std::vector<std::unique_ptr<llvm::Module>> parts;
  for (unsigned part = 0; part < numParts; ++part) {
    llvm::ValueToValueMapTy mapping;
    parts.push_back(llvm::CloneModule(
        module, mapping, [&](const llvm::GlobalValue *global) {
          return partOf.lookup(global) == part;
        }));
  }
  return parts;
}

/// Compiles `module` into one object file per part, the parts on threads
/// of their own. A part is a module of its own in a context of its own (an
/// LLVM context is not shared across threads), which it is read into from
/// bitcode.
static llvm::Error
compileInParts(llvm::Module &module, unsigned numParts, const CodeGen &codeGen,
               std::vector<llvm::SmallVector<char, 0>> &objects) {
  if (numParts <= 1) {
    objects.resize(1);
    return compile(module, codeGen, objects[0]);
  }
  std::vector<llvm::SmallVector<char, 0>> bitcode;
  for (const std::unique_ptr<llvm::Module> &part :
       splitModule(module, numParts)) {
    llvm::raw_svector_ostream stream(bitcode.emplace_back());
    llvm::WriteBitcodeToFile(*part, stream);
  }
  objects.resize(bitcode.size());
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
        return compile(**part, codeGen, objects[index]);
      }();
      if (error)
        errors[index] = llvm::toString(std::move(error));
    });
  threads.wait();
  for (const std::string &error : errors)
    if (!error.empty())
      return llvm::createStringError(error);
  return llvm::Error::success();
}

/// How many parts `module` is compiled in: `numThreads` when given (at most
/// one per function), else one per hardware thread that gets at least
/// kMinInstructionsPerPart instructions: below that, a thread's start and
/// the bitcode round trip cost more than they save. A module whose symbols
/// do not simply split (aliases, appending globals) is one part.
static unsigned countParts(const llvm::Module &module, int numThreads) {
  constexpr unsigned kMinInstructionsPerPart = 1000;
  if (!module.alias_empty() || !module.ifunc_empty() ||
      llvm::any_of(module.globals(), [](const llvm::GlobalVariable &global) {
        return global.hasAppendingLinkage();
      }))
    return 1;
  unsigned functions = 0, instructions = 0;
  for (const llvm::Function &function : module)
    if (!function.isDeclaration()) {
      ++functions;
      instructions += function.getInstructionCount();
    }
  unsigned parts =
      numThreads > 0
          ? numThreads
          : std::min(llvm::hardware_concurrency().compute_thread_count(),
                     instructions / kMinInstructionsPerPart);
  return std::max(1u, std::min(parts, functions));
}

/// The JIT, linking `objects` against this process and `sharedLibPaths`.
static llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>>
createJit(llvm::orc::JITTargetMachineBuilder machine,
          llvm::ArrayRef<StringRef> sharedLibPaths, Engine &engine) {
  auto jit = llvm::orc::LLJITBuilder()
                 .setJITTargetMachineBuilder(std::move(machine))
                 .create();
  if (!jit)
    return jit.takeError();
  (*jit)->getExecutionSession().setErrorReporter([&engine](llvm::Error error) {
    std::lock_guard<std::mutex> lock(engine.errorsMutex);
    engine.errors += "\n" + llvm::toString(std::move(error));
  });
  llvm::orc::JITDylib &library = (*jit)->getMainJITDylib();
  char prefix = (*jit)->getDataLayout().getGlobalPrefix();
  auto process =
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix);
  if (!process)
    return process.takeError();
  library.addGenerator(std::move(*process));
  for (StringRef path : sharedLibPaths) {
    auto shared =
        llvm::orc::DynamicLibrarySearchGenerator::Load(path.str().c_str(),
                                                       prefix);
    if (!shared)
      return shared.takeError();
    library.addGenerator(std::move(*shared));
  }
  for (const llvm::SmallVector<char, 0> &object : engine.objects)
    if (llvm::Error error = (*jit)->addObjectFile(
            llvm::MemoryBuffer::getMemBuffer(
                llvm::StringRef(object.data(), object.size()), "lighthouse",
                /*RequiresNullTerminator=*/false)))
      return std::move(error);
  return std::move(*jit);
}

static llvm::Expected<std::unique_ptr<Engine>>
createEngine(ModuleOp module, int optLevel, bool llvmLoopUnrolling,
             int numThreads, llvm::ArrayRef<StringRef> sharedLibPaths) {
  static const llvm::OptimizationLevel levels[] = {
      llvm::OptimizationLevel::O0, llvm::OptimizationLevel::O1,
      llvm::OptimizationLevel::O2, llvm::OptimizationLevel::O3};
  if (optLevel < 0 || optLevel > 3)
    return llvm::createStringError("optimization level " +
                                   std::to_string(optLevel) +
                                   " is not one of 0, 1, 2, 3");
  if (numThreads < 0)
    return llvm::createStringError(
        "threads must be 0 (one per hardware thread) or more, got " +
        std::to_string(numThreads));
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
  CodeGen codeGen{*machine, levels[optLevel], llvmLoopUnrolling};
  auto targetMachine = machine->createTargetMachine();
  if (!targetMachine)
    return targetMachine.takeError();

  MLIRContext &context = *module.getContext();
  registerBuiltinDialectTranslation(context);
  registerLLVMDialectTranslation(context);
  registerOpenMPDialectTranslation(context);
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext);
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

  auto engine = std::make_unique<Engine>();
  if (llvm::Error error =
          compileInParts(*llvmModule, countParts(*llvmModule, numThreads),
                         codeGen, engine->objects))
    return std::move(error);
  auto jit = createJit(*machine, sharedLibPaths, *engine);
  if (!jit)
    return jit.takeError();
  engine->jit = std::move(*jit);
  return engine;
}

LighthouseExecutionEngine lighthouseExecutionEngineCreate(
    MlirModule module, int optLevel, bool llvmLoopUnrolling, int numThreads,
    int numSharedLibs, const MlirStringRef *sharedLibPaths,
    MlirStringCallback onError, void *userData) {
  SmallVector<StringRef> libraries;
  for (int i = 0; i < numSharedLibs; ++i)
    libraries.push_back(unwrap(sharedLibPaths[i]));
  auto engine = createEngine(unwrap(module), optLevel, llvmLoopUnrolling,
                             numThreads, libraries);
  if (!engine) {
    std::string message = llvm::toString(engine.takeError());
    onError(mlirStringRefCreate(message.data(), message.size()), userData);
    return LighthouseExecutionEngine{nullptr};
  }
  return LighthouseExecutionEngine{engine->release()};
}

void lighthouseExecutionEngineDestroy(LighthouseExecutionEngine engine) {
  delete unwrap(engine);
}

void *lighthouseExecutionEngineLookup(LighthouseExecutionEngine engine,
                                      MlirStringRef name,
                                      MlirStringCallback onError,
                                      void *userData) {
  Engine &self = *unwrap(engine);
  auto address = self.jit->lookup(unwrap(name));
  if (!address) {
    std::string message = llvm::toString(address.takeError());
    {
      std::lock_guard<std::mutex> lock(self.errorsMutex);
      message += self.errors;
    }
    onError(mlirStringRefCreate(message.data(), message.size()), userData);
    return nullptr;
  }
  return address->toPtr<void *>();
}

intptr_t
lighthouseExecutionEngineGetNumObjects(LighthouseExecutionEngine engine) {
  return unwrap(engine)->objects.size();
}

MlirStringRef
lighthouseExecutionEngineGetObject(LighthouseExecutionEngine engine,
                                   intptr_t index) {
  const llvm::SmallVector<char, 0> &object = unwrap(engine)->objects[index];
  return mlirStringRefCreate(object.data(), object.size());
}
