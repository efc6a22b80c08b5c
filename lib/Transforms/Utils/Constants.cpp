//===- Constants.cpp - Constant tensors rewritten at compile time ---------===//

#include "lighthouse/Transforms/Utils/Constants.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cstring>

using namespace mlir;

namespace lighthouse {

std::optional<ArrayRef<char>> elementBytes(ElementsAttr constant) {
  Type elementType = constant.getElementType();
  if (!elementType.isIntOrFloat() || elementType.getIntOrFloatBitWidth() % 8)
    return std::nullopt;
  if (auto dense = dyn_cast<DenseElementsAttr>(constant)) {
    if (dense.isSplat())
      return std::nullopt;
    return dense.getRawData();
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(constant)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    // A blob that does not hold exactly the elements is left alone.
    if (!blob || blob->getData().size() !=
                     static_cast<size_t>(constant.getNumElements()) *
                         (elementType.getIntOrFloatBitWidth() / 8))
      return std::nullopt;
    return blob->getData();
  }
  return std::nullopt;
}

std::optional<ElementsAttr> padConstantWithZeros(ElementsAttr constant,
                                                 ArrayRef<int64_t> high) {
  auto type = dyn_cast<RankedTensorType>(constant.getType());
  Type elementType = constant.getElementType();
  if (!type || !type.hasStaticShape() ||
      static_cast<size_t>(type.getRank()) != high.size() ||
      !elementType.isIntOrFloat() || elementType.getIntOrFloatBitWidth() % 8)
    return std::nullopt;
  int64_t elementSize = elementType.getIntOrFloatBitWidth() / 8;
  ArrayRef<int64_t> shape = type.getShape();
  // A splat's one element, repeated; else the elements as they are.
  std::vector<char> splat;
  std::optional<ArrayRef<char>> bytes = elementBytes(constant);
  if (!bytes) {
    auto dense = dyn_cast<DenseElementsAttr>(constant);
    if (!dense || !dense.isSplat())
      return std::nullopt;
    ArrayRef<char> element = dense.getRawData();
    for (int64_t i = 0, e = type.getNumElements(); i < e; ++i)
      splat.insert(splat.end(), element.begin(), element.end());
    bytes = ArrayRef<char>(splat);
  }
  SmallVector<int64_t> padded;
  for (auto [size, extra] : llvm::zip(shape, high))
    padded.push_back(size + extra);
  auto paddedType = RankedTensorType::get(padded, elementType);
  // Zero bytes are zero in every integer and IEEE float type.
  std::vector<char> output(paddedType.getNumElements() * elementSize, 0);
  // Copy the input's innermost rows into place, walking the outer indices
  // with an odometer.
  int64_t rank = shape.size();
  int64_t rowBytes = (rank ? shape.back() : 1) * elementSize;
  int64_t rows =
      rank ? type.getNumElements() / std::max<int64_t>(shape.back(), 1) : 1;
  SmallVector<int64_t> index(std::max<int64_t>(rank - 1, 0), 0);
  for (int64_t row = 0; row < rows; ++row) {
    int64_t offset = 0;
    for (int64_t dim = 0; dim < rank - 1; ++dim)
      offset = offset * padded[dim] + index[dim];
    offset *= rank ? padded.back() : 1;
    std::memcpy(output.data() + offset * elementSize,
                bytes->data() + row * rowBytes, rowBytes);
    for (int64_t dim = rank - 2; dim >= 0; --dim) {
      if (++index[dim] < shape[dim])
        break;
      index[dim] = 0;
    }
  }
  return cast<ElementsAttr>(
      DenseElementsAttr::getFromRawBuffer(paddedType, output));
}

} // namespace lighthouse
