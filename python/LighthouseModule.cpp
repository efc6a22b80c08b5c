//===- LighthouseModule.cpp - lighthouse's own Python entry points --------===//
//
// `lighthouse._mlir_libs._lighthouse`: what lighthouse adds to the upstream
// bindings from C++.
//
//===----------------------------------------------------------------------===//

#include "NativeFunction.h"

#include "lighthouse-c/Plugins.h"
#include "lighthouse-c/Registration.h"
#include "mlir/Bindings/Python/Nanobind.h"
#include "mlir/Bindings/Python/NanobindAdaptors.h"

namespace nb = nanobind;

/// Calls `load` (a lighthouseLoad*Plugin) with an error callback; raises
/// ValueError with the reason when it fails.
template <typename Load>
static void loadPlugin(const char *kind, const std::string &path, Load load) {
  std::string error;
  auto append = [](MlirStringRef part, void *userData) {
    static_cast<std::string *>(userData)->append(part.data, part.length);
  };
  MlirStringRef pathRef = mlirStringRefCreate(path.data(), path.size());
  if (mlirLogicalResultIsFailure(load(pathRef, append, &error)))
    throw nb::value_error(
        ("cannot load the " + std::string(kind) + " plugin " + path + ": " +
         error)
            .c_str());
}

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
        loadPlugin("pass", path, lighthouseLoadPassPlugin);
      },
      nb::arg("path"),
      "Loads the MLIR pass plugin at `path` and registers its passes, so "
      "that pipeline strings can name them. Raises ValueError when it is "
      "not a pass plugin of this MLIR.");
  m.def(
      "load_dialect_plugin",
      [](const std::string &path, MlirDialectRegistry registry) {
        loadPlugin("dialect", path,
                   [&](MlirStringRef pathRef, MlirStringCallback onError,
                       void *userData) {
                     return lighthouseLoadDialectPlugin(registry, pathRef,
                                                        onError, userData);
                   });
      },
      nb::arg("path"), nb::arg("registry"),
      "Loads the MLIR dialect plugin at `path` and appends its dialects to "
      "`registry`. Raises ValueError when it is not a dialect plugin of this "
      "MLIR.");

  lighthouse::python::bindNativeFunction(m);
}
