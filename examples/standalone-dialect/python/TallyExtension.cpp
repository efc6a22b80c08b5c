//===- TallyExtension.cpp - Python classes of the tally dialect -----------===//
//
// Part of the dialect's Python extension, tally_example.dialects._tally:
// lighthouse_add_dialect's generated module calls tallyPopulatePython. It
// uses MLIR only through the C API (include/Tally-c/Tally.h), as MLIR's own
// bindings do.
//
//===----------------------------------------------------------------------===//

#include "Tally-c/Tally.h"

#include "mlir-c/Diagnostics.h"
#include "mlir/Bindings/Python/Nanobind.h"
#include "mlir/Bindings/Python/NanobindAdaptors.h"

#include <string>

namespace nb = nanobind;
using mlir::python::nanobind_adaptors::mlir_type_subclass;

namespace {
// Collects the errors a context emits while it lives, so that a verifier's
// message becomes the Python exception rather than text on stderr.
class ErrorCollector {
public:
  explicit ErrorCollector(MlirContext context)
      : context(context), handler(mlirContextAttachDiagnosticHandler(
                              context, collect, this,
                              /*deleteUserData=*/nullptr)) {}
  ~ErrorCollector() { mlirContextDetachDiagnosticHandler(context, handler); }
  ErrorCollector(const ErrorCollector &) = delete;
  ErrorCollector &operator=(const ErrorCollector &) = delete;

  std::string messages;

private:
  static MlirLogicalResult collect(MlirDiagnostic diagnostic, void *self) {
    if (mlirDiagnosticGetSeverity(diagnostic) != MlirDiagnosticError)
      return mlirLogicalResultFailure(); // Not ours: other handlers see it.
    std::string &messages = static_cast<ErrorCollector *>(self)->messages;
    if (!messages.empty())
      messages += "\n";
    mlirDiagnosticPrint(
        diagnostic,
        [](MlirStringRef text, void *messages) {
          static_cast<std::string *>(messages)->append(text.data, text.length);
        },
        &messages);
    return mlirLogicalResultSuccess();
  }

  MlirContext context;
  MlirDiagnosticHandlerID handler;
};
} // namespace

void tallyPopulatePython(nb::module_ &m) {
  // With the TypeID, types found in IR (a value's .type, Type.parse) come
  // back as CounterType too.
  mlir_type_subclass(m, "CounterType", tallyTypeIsACounter,
                     tallyCounterTypeGetTypeID)
      .def_classmethod(
          "get",
          [](const nb::object &cls, int64_t modulus, MlirContext context) {
            ErrorCollector errors(context);
            MlirType type = tallyCounterTypeGet(context, modulus);
            if (mlirTypeIsNull(type))
              throw nb::value_error(errors.messages.c_str());
            return cls(type);
          },
          nb::arg("cls"), nb::arg("modulus"),
          nb::arg("context").none() = nb::none(),
          "!tally.counter<modulus>, in the given or current context.\n\n"
          "Raises:\n"
          "  ValueError: the modulus is not positive.")
      .def_property_readonly(
          "modulus",
          [](MlirType self) { return tallyCounterTypeGetModulus(self); },
          "The count wraps around at it: N of !tally.counter<N>.");
}
