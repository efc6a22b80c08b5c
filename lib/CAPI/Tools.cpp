//===- Tools.cpp - lighthouse's command-line tools as C entry points ------===//

#include "lighthouse-c/Tools.h"

#include "lighthouse/InitAll.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int lighthouseOptMain(int argc, char **argv) {
  mlir::DialectRegistry registry;
  lighthouse::registerAllDialects(registry);
  lighthouse::registerAllPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "lighthouse's MLIR optimizer driver\n", registry));
}
