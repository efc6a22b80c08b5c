//===- TallyPlugin.cpp - libtally.so as an MLIR dialect and pass plugin ---===//
//
// What `lh-opt --load-dialect-plugin=libtally.so --load-pass-plugin=...`
// and lighthouse.plugins look up in the library.
//
//===----------------------------------------------------------------------===//

#include "Tally-c/Tally.h"
#include "Tally/TallyDialect.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

extern "C" mlir::DialectPluginLibraryInfo mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "tally", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            registry->insert<tally::TallyDialect>();
          }};
}

extern "C" mlir::PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "tally", LLVM_VERSION_STRING,
          [] { tallyRegisterPasses(); }};
}
