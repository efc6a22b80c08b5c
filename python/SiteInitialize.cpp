//===- SiteInitialize.cpp - lighthouse's Python site initializer ----------===//
//
// The bindings import `_mlir_libs._site_initialize_<i>` modules when the
// package loads and apply them to every Context. This one makes a plain
// `lighthouse.ir.Context()` hold all of lighthouse's dialects and makes its
// passes nameable in pipeline strings, from the same registration list as the
// C API and the tools.
//
//===----------------------------------------------------------------------===//

#include "lighthouse-c/Registration.h"
#include "mlir/Bindings/Python/Nanobind.h"
#include "mlir/Bindings/Python/NanobindAdaptors.h"

NB_MODULE(_site_initialize_0, m) {
  m.doc() = "Registers lighthouse's dialects and passes for every Context.";

  lighthouseRegisterAllPasses();

  m.def(
      "register_dialects",
      [](MlirDialectRegistry registry) {
        lighthouseRegisterAllDialects(registry);
      },
      nanobind::arg("registry"),
      "Appends lighthouse's dialects and their extensions to `registry`.");
}
