//===- LighthouseModule.cpp - lighthouse's own Python entry points --------===//
//
// `lighthouse._mlir_libs._lighthouse`: what lighthouse adds to the upstream
// bindings from C++.
//
//===----------------------------------------------------------------------===//

#include "NativeFunction.h"

#include "lighthouse-c/Registration.h"
#include "mlir/Bindings/Python/Nanobind.h"
#include "mlir/Bindings/Python/NanobindAdaptors.h"

NB_MODULE(_lighthouse, m) {
  m.doc() = "lighthouse's own C++ entry points.";

  m.def(
      "register_opaque_torch_dialect",
      [](MlirDialectRegistry registry) {
        lighthouseRegisterOpaqueTorchDialect(registry);
      },
      nanobind::arg("registry"),
      "Appends a stand-in for torch-mlir's `torch` dialect to `registry`: it "
      "accepts any operation, type and attribute of that namespace without "
      "verifying or folding them.");

  lighthouse::python::bindNativeFunction(m);
}
