/*===- Tally.h - C API of the tally dialect -----------------------*- C -*-===*\
|* What the Python extension (python/TallyExtension.cpp) and other languages *|
|* use: the bindings see MLIR only through its C API.                        *|
\*===----------------------------------------------------------------------===*/

#ifndef TALLY_C_TALLY_H
#define TALLY_C_TALLY_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(tally, tally);

/// Registers the dialect's passes under their names (once per process).
MLIR_CAPI_EXPORTED void tallyRegisterPasses(void);

/// Whether `type` is a !tally.counter<N>.
MLIR_CAPI_EXPORTED bool tallyTypeIsACounter(MlirType type);

/// The TypeID of !tally.counter, by which the bindings give such types their
/// Python class.
MLIR_CAPI_EXPORTED MlirTypeID tallyCounterTypeGetTypeID(void);

/// !tally.counter<modulus>, or a null type after emitting the verifier's
/// error to the context's diagnostic handlers.
MLIR_CAPI_EXPORTED MlirType tallyCounterTypeGet(MlirContext context,
                                                int64_t modulus);

/// N of a !tally.counter<N>.
MLIR_CAPI_EXPORTED int64_t tallyCounterTypeGetModulus(MlirType type);

#ifdef __cplusplus
}
#endif

#endif /* TALLY_C_TALLY_H */
