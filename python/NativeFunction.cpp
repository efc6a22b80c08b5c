//===- NativeFunction.cpp - Calling compiled code with arrays -------------===//
//
// A compiled function's packed entry point, `void _mlir_<name>(void **)`,
// called with numpy arrays or torch tensors. Arguments are passed in place as
// memref descriptors; results are the buffers the compiled code allocated,
// handed to numpy with their ownership; a failed runtime check raises
// ValueError. This runs on every call of a compiled model, where a Python
// version cost ~15 us.
//
//===----------------------------------------------------------------------===//

#include "NativeFunction.h"

#include "lighthouse-c/Runtime.h"

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace nb = nanobind;

namespace lighthouse::python {
namespace {

/// memref.get_global marks buffers the compiled code does not own with this
/// allocated pointer.
constexpr uintptr_t kNotOwned = 0xDEADBEEF;

/// A tensor parameter: its element type and shape, -1 for a dynamic size.
struct TensorSpec {
  nb::dlpack::dtype dtype;
  std::vector<int64_t> shape;

  size_t rank() const { return shape.size(); }
  size_t itemSize() const { return dtype.bits / 8; }
  /// 64-bit words of its ranked memref descriptor in MLIR's C interface:
  /// allocated and aligned pointers, offset, sizes, strides.
  size_t descriptorWords() const { return 3 + 2 * rank(); }
};

/// (numpy dtype kind, item size in bytes, shape) as Python describes a
/// parameter.
using PythonSpec = std::tuple<std::string, int64_t, std::vector<int64_t>>;

TensorSpec toSpec(const PythonSpec &python) {
  const auto &[kind, itemSize, shape] = python;
  nb::dlpack::dtype dtype;
  if (kind == "f")
    dtype.code = static_cast<uint8_t>(nb::dlpack::dtype_code::Float);
  else if (kind == "i")
    dtype.code = static_cast<uint8_t>(nb::dlpack::dtype_code::Int);
  else if (kind == "u")
    dtype.code = static_cast<uint8_t>(nb::dlpack::dtype_code::UInt);
  else if (kind == "b")
    dtype.code = static_cast<uint8_t>(nb::dlpack::dtype_code::Bool);
  else
    throw std::invalid_argument("NativeFunction: unsupported dtype kind '" +
                                kind + "'");
  dtype.bits = static_cast<uint8_t>(itemSize * 8);
  dtype.lanes = 1;
  return {dtype, shape};
}

class NativeFunction {
public:
  NativeFunction(uintptr_t address, const std::vector<PythonSpec> &arguments,
                 const std::vector<PythonSpec> &results)
      : entry(reinterpret_cast<void (*)(void **)>(address)) {
    if (!address)
      throw std::invalid_argument("NativeFunction: null entry point");
    for (const PythonSpec &spec : arguments)
      this->arguments.push_back(toSpec(spec));
    for (const PythonSpec &spec : results) {
      this->results.push_back(toSpec(spec));
      resultWords += this->results.back().descriptorWords();
    }
  }

  /// The results as numpy arrays; None when an argument is not a
  /// C-contiguous CPU array of the parameter's dtype and shape, so that the
  /// caller checks it, and converts or reports it.
  nb::object call(nb::args args) const {
    if (args.size() != arguments.size())
      return nb::none();
    size_t words = resultWords;
    for (const TensorSpec &spec : arguments)
      words += spec.descriptorWords();
    std::vector<int64_t> descriptors(words, 0);
    // Per parameter (results first), a pointer to its descriptor.
    std::vector<void *> pointers;
    // Read-only: the compiled code does not write to its arguments
    // (lighthouse-read-only-arguments), and numpy exports read-only arrays
    // only as such.
    std::vector<nb::ndarray<nb::ro>> arrays(args.size());
    std::vector<std::pair<uintptr_t, uintptr_t>> inputRanges;
    if (!results.empty())
      pointers.push_back(descriptors.data());
    size_t at = resultWords;
    for (size_t i = 0; i < args.size(); ++i) {
      const TensorSpec &spec = arguments[i];
      nb::ndarray<nb::ro> &array = arrays[i];
      if (!nb::try_cast(args[i], array, /*convert=*/false) ||
          array.device_type() != nb::device::cpu::value ||
          array.dtype() != spec.dtype || array.ndim() != spec.rank())
        return nb::none();
      int64_t *descriptor = &descriptors[at];
      at += spec.descriptorWords();
      int64_t *sizes = descriptor + 3, *strides = sizes + spec.rank();
      // Without elements, the strides do not matter (numpy makes them 0).
      bool empty = array.size() == 0;
      int64_t elements = 1;
      for (size_t d = spec.rank(); d-- > 0;) {
        int64_t size = array.shape(d);
        if ((spec.shape[d] >= 0 && size != spec.shape[d]) ||
            (!empty && size > 1 && array.stride(d) != elements))
          return nb::none();
        sizes[d] = size;
        strides[d] = elements;
        elements *= size;
      }
      auto address = reinterpret_cast<uintptr_t>(array.data());
      descriptor[0] = descriptor[1] = static_cast<int64_t>(address);
      inputRanges.emplace_back(address, address + elements * spec.itemSize());
      pointers.push_back(descriptor);
    }
    std::vector<void *> packed;
    for (void *&pointer : pointers)
      packed.push_back(&pointer);
    const char *failure = nullptr;
    int failed;
    {
      nb::gil_scoped_release released;
      failed = lighthouseRuntimeCall(entry, packed.data(), &failure);
    }
    if (failed == LIGHTHOUSE_RUNTIME_OUT_OF_MEMORY) {
      PyErr_Format(PyExc_MemoryError, "the compiled code ran %s", failure);
      throw nb::python_error();
    }
    if (failed)
      throw nb::value_error(("a runtime check of the compiled code failed: " +
                             std::string(failure))
                                .c_str());
    return takeResults(descriptors.data(), inputRanges);
  }

private:
  /// numpy arrays over the result descriptors at `descriptors`: those over
  /// buffers the compiled code allocated own them; the others (views of an
  /// input or of a constant, or a second view of one buffer) are copies.
  nb::object takeResults(
      const int64_t *descriptors,
      const std::vector<std::pair<uintptr_t, uintptr_t>> &inputRanges) const {
    std::vector<uintptr_t> taken;
    nb::list outputs;
    for (const TensorSpec &spec : results) {
      auto allocated = static_cast<uintptr_t>(descriptors[0]);
      auto *aligned = reinterpret_cast<char *>(descriptors[1]);
      int64_t offset = descriptors[2];
      const int64_t *sizes = descriptors + 3, *strides = sizes + spec.rank();
      descriptors += spec.descriptorWords();
      // An input without elements has an empty range, and may still be
      // returned as is.
      bool owned =
          allocated && allocated != kNotOwned &&
          std::none_of(inputRanges.begin(), inputRanges.end(),
                       [&](const auto &range) {
                         return allocated == range.first ||
                                (range.first < allocated &&
                                 allocated < range.second);
                       }) &&
          std::find(taken.begin(), taken.end(), allocated) == taken.end();
      if (owned)
        taken.push_back(allocated);
      std::vector<size_t> shape(sizes, sizes + spec.rank());
      int64_t elements = 1;
      for (size_t size : shape)
        elements *= size;
      // The array owns the allocation even without elements: another result
      // may view it.
      nb::object owner;
      if (owned)
        owner = nb::capsule(
            reinterpret_cast<void *>(allocated),
            [](void *buffer) noexcept { lighthouseRuntimeFree(buffer); });
      // numpy wants a non-null pointer even for no elements.
      static char empty;
      void *data = elements ? aligned + offset * spec.itemSize() : &empty;
      nb::ndarray<nb::numpy> array(data, shape.size(), shape.data(), owner,
                                   strides, spec.dtype);
      outputs.append(array.cast(owner.is_valid() ? nb::rv_policy::reference
                                                 : nb::rv_policy::copy));
    }
    return std::move(outputs);
  }

  void (*entry)(void **);
  std::vector<TensorSpec> arguments, results;
  size_t resultWords = 0;
};

} // namespace

void bindNativeFunction(nb::module_ &module) {
  nb::class_<NativeFunction>(
      module, "NativeFunction",
      "A compiled function's packed entry point `_mlir_<name>`, called with "
      "arrays as memref descriptors.")
      .def(nb::init<uintptr_t, const std::vector<PythonSpec> &,
                    const std::vector<PythonSpec> &>(),
           nb::arg("address"), nb::arg("arguments"), nb::arg("results"),
           "`arguments` and `results` describe each tensor parameter as "
           "(numpy dtype kind, item size, shape with -1 for dynamic sizes).")
      .def("__call__", &NativeFunction::call,
           "Calls the function; returns the list of results as numpy arrays "
           "that own the buffers the code allocated, or None when an "
           "argument is not a C-contiguous CPU array of the expected dtype "
           "and shape. Raises ValueError when a runtime check of the code "
           "fails.");
}

} // namespace lighthouse::python
