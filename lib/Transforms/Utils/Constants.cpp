//===- Constants.cpp - Constant tensors rewritten at compile time ---------===//

#include "lighthouse/Transforms/Utils/Constants.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <algorithm>
#include <cstring>
#include <vector>

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

/// Constants of this many bytes or more are made dense_resource blobs, not
/// dense attributes, which MLIR uniques by hashing and copying their bytes
/// into the context: ViT-B/16's 86M weights laid out in blocks of columns
/// took 2.6 s more to compile as dense attributes. Smaller ones stay dense
/// (and readable in printed IR).
constexpr size_t kMinResourceBytes = size_t(1) << 16;

/// A constant of `type` whose `size` bytes `fill` writes.
static ElementsAttr
constantOfBytes(RankedTensorType type, size_t size,
                llvm::function_ref<void(MutableArrayRef<char>)> fill) {
  if (size < kMinResourceBytes) {
    std::vector<char> bytes(size);
    fill(bytes);
    return cast<ElementsAttr>(DenseElementsAttr::getFromRawBuffer(type, bytes));
  }
  AsmResourceBlob blob = HeapAsmResourceBlob::allocate(size, alignof(double));
  fill(blob.getMutableData());
  return cast<ElementsAttr>(DenseResourceElementsAttr::get(
      type, "lighthouse_constant", std::move(blob)));
}

/// The `rows` x `columns` matrix of `Size`-byte elements transposed from
/// `input`, `columns` x `rows`, into `output`, a tile at a time: element by
/// element, every read of a column missed the cache, and transposing
/// BERT-base's weights took 0.34 s.
template <int64_t Size>
static void transposeMatrix(const char *input, int64_t rows, int64_t columns,
                            char *output) {
  constexpr int64_t kTile = 32;
  for (int64_t row0 = 0; row0 < rows; row0 += kTile)
    for (int64_t column0 = 0; column0 < columns; column0 += kTile)
      for (int64_t row = row0, rowEnd = std::min(rows, row0 + kTile);
           row < rowEnd; ++row)
        for (int64_t column = column0,
                     columnEnd = std::min(columns, column0 + kTile);
             column < columnEnd; ++column)
          std::memcpy(output + (row * columns + column) * Size,
                      input + (column * rows + row) * Size, Size);
}

using MatrixTranspose = void (*)(const char *, int64_t, int64_t, char *);

/// transposeMatrix for elements of `elementSize` bytes, if it has one.
static MatrixTranspose matrixTransposeOf(int64_t elementSize) {
  switch (elementSize) {
  case 1:
    return transposeMatrix<1>;
  case 2:
    return transposeMatrix<2>;
  case 4:
    return transposeMatrix<4>;
  case 8:
    return transposeMatrix<8>;
  default:
    return nullptr;
  }
}

/// `input` (row-major, `elementSize` bytes an element, of `shape`) with its
/// dimensions permuted into `output`: result dimension i is input dimension
/// permutation[i].
static void transposeBytes(ArrayRef<char> input, ArrayRef<int64_t> shape,
                           ArrayRef<int64_t> permutation, int64_t elementSize,
                           MutableArrayRef<char> output) {
  // Innermost dimensions the permutation keeps in place move as one
  // element: blocks of a matmul's B are rows of hundreds of floats.
  int64_t rank = shape.size();
  while (rank > 1 && permutation[rank - 1] == rank - 1) {
    elementSize *= shape[rank - 1];
    --rank;
  }
  shape = shape.take_front(rank);
  permutation = permutation.take_front(rank);
  SmallVector<int64_t> inputStrides(rank, elementSize);
  for (int64_t i = rank - 2; i >= 0; --i)
    inputStrides[i] = inputStrides[i + 1] * shape[i + 1];
  SmallVector<int64_t> sizes, strides;
  for (int64_t dim : permutation) {
    sizes.push_back(shape[dim]);
    strides.push_back(inputStrides[dim]);
  }
  if (rank == 2)
    if (auto matrix = matrixTransposeOf(elementSize))
      return matrix(input.data(), sizes[0], sizes[1], output.data());
  // Walk the result in order, keeping the input offset of the current
  // element: an odometer over the result's indices.
  SmallVector<int64_t> index(rank, 0);
  int64_t offset = 0;
  for (char *out = output.data(), *end = out + output.size(); out != end;
       out += elementSize) {
    std::memcpy(out, input.data() + offset, elementSize);
    for (int64_t dim = rank - 1; dim >= 0; --dim) {
      offset += strides[dim];
      if (++index[dim] < sizes[dim])
        break;
      offset -= strides[dim] * sizes[dim];
      index[dim] = 0;
    }
  }
}

std::optional<ElementsAttr> transposeConstant(ElementsAttr constant,
                                              ArrayRef<int64_t> permutation) {
  auto type = dyn_cast<RankedTensorType>(constant.getType());
  if (!type || !type.hasStaticShape() ||
      static_cast<size_t>(type.getRank()) != permutation.size())
    return std::nullopt;
  SmallVector<int64_t> shape;
  for (int64_t dim : permutation)
    shape.push_back(type.getDimSize(dim));
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  if (auto splat = dyn_cast<SplatElementsAttr>(constant))
    return cast<ElementsAttr>(splat.resizeSplat(resultType));
  std::optional<ArrayRef<char>> bytes = elementBytes(constant);
  if (!bytes)
    return std::nullopt;
  return constantOfBytes(
      resultType, bytes->size(), [&](MutableArrayRef<char> output) {
        transposeBytes(*bytes, type.getShape(), permutation,
                       type.getElementType().getIntOrFloatBitWidth() / 8,
                       output);
      });
}

std::optional<ElementsAttr> reshapeConstant(ElementsAttr constant,
                                            ArrayRef<int64_t> shape) {
  auto type = dyn_cast<RankedTensorType>(constant.getType());
  auto resultType = RankedTensorType::get(shape, constant.getElementType());
  if (!type || !type.hasStaticShape() || !resultType.hasStaticShape() ||
      resultType.getNumElements() != type.getNumElements())
    return std::nullopt;
  if (auto splat = dyn_cast<SplatElementsAttr>(constant))
    return cast<ElementsAttr>(splat.resizeSplat(resultType));
  std::optional<ArrayRef<char>> bytes = elementBytes(constant);
  if (!bytes)
    return std::nullopt;
  // A blob is shared, not copied.
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(constant))
    return cast<ElementsAttr>(
        DenseResourceElementsAttr::get(resultType, resource.getRawHandle()));
  return cast<ElementsAttr>(
      DenseElementsAttr::getFromRawBuffer(resultType, *bytes));
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
  auto fill = [&](MutableArrayRef<char> output) {
    // Zero bytes are zero in every integer and IEEE float type.
    std::memset(output.data(), 0, output.size());
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
  };
  return constantOfBytes(paddedType, paddedType.getNumElements() * elementSize,
                         fill);
}

} // namespace lighthouse
