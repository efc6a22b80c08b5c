//===- LighthouseModule.cpp - lighthouse's own Python entry points --------===//
//
// `lighthouse._mlir_libs._lighthouse`: what lighthouse adds to the upstream
// bindings from C++.
//
//===----------------------------------------------------------------------===//

#include "NativeFunction.h"

#include "lighthouse-c/ExecutionEngine.h"
#include "lighthouse-c/Parsing.h"
#include "lighthouse-c/Plugins.h"
#include "lighthouse-c/Registration.h"
#include "lighthouse-c/Runtime.h"
#include "mlir/Bindings/Python/Nanobind.h"
#include "mlir/Bindings/Python/NanobindAdaptors.h"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <optional>
#include <tuple>

namespace nb = nanobind;

/// Collects what a lighthouseLoad*Plugin reports into a std::string.
static void appendTo(MlirStringRef part, void *error) {
  static_cast<std::string *>(error)->append(part.data, part.length);
}

/// Raises ValueError with the reason when loading the plugin at `path`
/// failed.
static void checkLoaded(MlirLogicalResult loaded, const char *kind,
                        const std::string &path, const std::string &error) {
  if (mlirLogicalResultIsFailure(loaded))
    throw nb::value_error(("cannot load the " + std::string(kind) + " plugin " +
                           path + ": " + error)
                              .c_str());
}

static MlirStringRef toStringRef(const std::string &text) {
  return mlirStringRefCreate(text.data(), text.size());
}

namespace {

/// A diagnostic of a failed parse as Python receives it: whether it is a
/// note, file, line, column, and the message's bytes (a message may hold
/// bytes that are not UTF-8, from a string literal's escapes).
using ParseDiagnostic =
    std::tuple<bool, std::string, unsigned, unsigned, nb::bytes>;

void collectDiagnostic(bool isNote, MlirStringRef file, unsigned line,
                       unsigned column, MlirStringRef message, void *found) {
  static_cast<std::vector<ParseDiagnostic> *>(found)->emplace_back(
      isNote, std::string(file.data, file.length), line, column,
      nb::bytes(message.data, message.length));
}

/// Owns a LighthouseExecutionEngine for Python.
struct ExecutionEngine {
  explicit ExecutionEngine(LighthouseExecutionEngine engine) : engine(engine) {}
  ExecutionEngine(const ExecutionEngine &) = delete;
  ExecutionEngine &operator=(const ExecutionEngine &) = delete;
  ~ExecutionEngine() { lighthouseExecutionEngineDestroy(engine); }

  LighthouseExecutionEngine engine;
};

} // namespace

NB_MODULE(_lighthouse, m) {
  m.doc() = "lighthouse's own C++ entry points.";

  m.def(
      "register_opaque_torch_dialect",
      [](MlirDialectRegistry registry) {
        lighthouseRegisterOpaqueTorchDialect(registry);
      },
      nb::arg("registry"),
      "Appends a stand-in for torch-mlir's `torch` dialect to `registry`: it "
      "accepts any operation, type and attribute of that namespace without "
      "verifying or folding them.");

  m.def(
      "load_pass_plugin",
      [](const std::string &path) {
        std::string error;
        checkLoaded(
            lighthouseLoadPassPlugin(toStringRef(path), appendTo, &error),
            "pass", path, error);
      },
      nb::arg("path"),
      "Loads the MLIR pass plugin at `path` and registers its passes, so "
      "that pipeline strings can name them. Raises ValueError when it is "
      "not a pass plugin of this MLIR.");
  m.def(
      "load_dialect_plugin",
      [](const std::string &path, MlirDialectRegistry registry) {
        std::string error;
        checkLoaded(lighthouseLoadDialectPlugin(registry, toStringRef(path),
                                                appendTo, &error),
                    "dialect", path, error);
      },
      nb::arg("path"), nb::arg("registry"),
      "Loads the MLIR dialect plugin at `path` and appends its dialects to "
      "`registry`. Raises ValueError when it is not a dialect plugin of this "
      "MLIR.");

  m.def(
      "parse_module_contained",
      [](MlirContext context, const nb::bytes &source,
         const std::string &name) {
        std::vector<ParseDiagnostic> diagnostics;
        LighthouseParseOutcome outcome;
        int signal = 0;
        MlirModule module = lighthouseParseModuleContained(
            context, mlirStringRefCreate(source.c_str(), source.size()),
            toStringRef(name), collectDiagnostic, &diagnostics, &outcome,
            &signal);
        std::optional<MlirModule> parsed;
        if (!mlirModuleIsNull(module))
          parsed = module;
        static const char *const kOutcomes[] = {"parsed", "failed", "crashed",
                                                "out of memory"};
        return std::make_tuple(parsed, std::string(kOutcomes[outcome]), signal,
                               diagnostics);
      },
      nb::arg("context"), nb::arg("source"), nb::arg("name"),
      "Parses `source` (UTF-8 bytes) as a module in `context` after a child "
      "process has parsed it (lighthouse-c/Parsing.h): (the module or None, "
      "the outcome: "
      "'parsed', 'failed', 'crashed' or 'out of memory', the signal that "
      "ended the child, the diagnostics of a failed parse as (is_note, file, "
      "line, column, message bytes)).");

  nb::class_<ExecutionEngine>(
      m, "ExecutionEngine",
      "Code JIT-compiled by `create_execution_engine`, alive as long as this "
      "object.")
      .def(
          "lookup",
          [](ExecutionEngine &self, const std::string &name) {
            std::string error;
            void *address = lighthouseExecutionEngineLookup(
                self.engine, toStringRef(name), appendTo, &error);
            if (!address)
              throw std::runtime_error(error);
            return reinterpret_cast<uintptr_t>(address);
          },
          nb::arg("name"),
          "The address of the symbol `name`, linking the code first if "
          "needed. Raises RuntimeError with the JIT's reason when it cannot "
          "(a symbol the code calls is missing, say).")
      .def(
          "objects",
          [](ExecutionEngine &self) {
            std::vector<nb::bytes> objects;
            std::string error;
            intptr_t count = lighthouseExecutionEngineGetNumObjects(
                self.engine, appendTo, &error);
            if (count < 0)
              throw std::runtime_error(
                  "cannot compile the weights' object file: " + error);
            for (intptr_t index = 0; index < count; ++index) {
              MlirStringRef object =
                  lighthouseExecutionEngineGetObject(self.engine, index);
              objects.emplace_back(object.data, object.length);
            }
            return objects;
          },
          "The relocatable object files of the code (position-independent): "
          "linked together with lighthouse's runtime libraries, a shared "
          "library of the module.")
      .def(
          "phases",
          [](ExecutionEngine &self) {
            LighthouseJITPhases phases =
                lighthouseExecutionEngineGetPhases(self.engine);
            return std::vector<std::pair<std::string, double>>{
                {"translate", phases.translate}, {"split", phases.split},
                {"optimize", phases.optimize},   {"codegen", phases.codegen},
                {"weights", phases.weights},     {"load", phases.load}};
          },
          "(step, seconds) of the compilation, in order: translate (to LLVM "
          "IR), split (into parts), optimize and codegen (LLVM's, summed over "
          "the parts, which run on threads), weights (their object file), "
          "load (into the JIT).");

  m.def(
      "create_execution_engine",
      [](MlirModule module, int optLevel, bool llvmLoopUnrolling, int threads,
         const std::vector<std::string> &sharedLibs) {
        std::vector<MlirStringRef> paths;
        for (const std::string &path : sharedLibs)
          paths.push_back(toStringRef(path));
        std::string error;
        LighthouseExecutionEngine engine = lighthouseExecutionEngineCreate(
            module, optLevel, llvmLoopUnrolling, threads, paths.size(),
            paths.data(), appendTo, &error);
        if (lighthouseExecutionEngineIsNull(engine))
          throw std::runtime_error("cannot JIT-compile the module: " + error);
        return new ExecutionEngine(engine);
      },
      nb::arg("module"), nb::arg("opt_level"), nb::arg("llvm_loop_unrolling"),
      nb::arg("threads"), nb::arg("shared_libs"), nb::rv_policy::take_ownership,
      "JIT-compiles `module` (LLVM dialect) for this CPU into an "
      "`ExecutionEngine`, as position-independent code. LLVM optimizes at "
      "`opt_level` and unrolls loops only with `llvm_loop_unrolling`; a "
      "module of several functions is compiled in `threads` parts on as "
      "many threads (0: one per hardware thread that gets 1000 "
      "instructions or more); `shared_libs` resolve the "
      "symbols the code does not define. Raises RuntimeError with LLVM's "
      "reason on failure.");

  m.def(
      "release_buffers", [] { lighthouseRuntimeReleaseBuffers(); },
      "Gives the buffers that lighthouse's runtime keeps for reuse by "
      "compiled code back to the system.");

  lighthouse::python::bindNativeFunction(m);
}
