//===- NativeFunction.h - Calling compiled code with arrays -----*- C++ -*-===//

#ifndef LIGHTHOUSE_PYTHON_NATIVEFUNCTION_H
#define LIGHTHOUSE_PYTHON_NATIVEFUNCTION_H

#include <nanobind/nanobind.h>

namespace lighthouse::python {

/// Defines `NativeFunction` in `module`.
void bindNativeFunction(nanobind::module_ &module);

} // namespace lighthouse::python

#endif // LIGHTHOUSE_PYTHON_NATIVEFUNCTION_H
