//===- Runtime.h - What lighthouse's compiled code calls --------*- C -*-===//
//
// liblighthouse_runtime.so, shipped next to the other runtime libraries:
// failed runtime checks of compiled code (`cf.assert` outside parallel
// loops, which the lighthouse-lower-runtime-checks pass turns into calls of
// lighthouseRuntimeCheckFailed) return to the caller with their message
// instead of aborting the process.
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_C_RUNTIME_H
#define LIGHTHOUSE_C_RUNTIME_H

#include <stddef.h>

#define LIGHTHOUSE_RUNTIME_EXPORTED __attribute__((visibility("default")))

#ifdef __cplusplus
extern "C" {
#endif

/// How lighthouseRuntimeCall returns.
enum {
  LIGHTHOUSE_RUNTIME_CALL_RETURNED = 0,
  LIGHTHOUSE_RUNTIME_CHECK_FAILED = 1,
  LIGHTHOUSE_RUNTIME_OUT_OF_MEMORY = 2,
};

/// Calls `entry(arguments)`, a compiled function's packed entry point, and
/// returns LIGHTHOUSE_RUNTIME_CALL_RETURNED. When a runtime check of that
/// code fails on this thread, or a buffer it asks for cannot be allocated,
/// returns LIGHTHOUSE_RUNTIME_CHECK_FAILED or
/// LIGHTHOUSE_RUNTIME_OUT_OF_MEMORY instead, with a message in `*failure`
/// (valid until this thread's next failure), after freeing the buffers the
/// code allocated on this thread and had not freed.
LIGHTHOUSE_RUNTIME_EXPORTED int lighthouseRuntimeCall(void (*entry)(void **),
                                                      void **arguments,
                                                      const char **failure);

/// Reports a failed runtime check: returns from the lighthouseRuntimeCall in
/// progress on this thread, or, without one (code called another way, or on
/// another thread), prints `message` to stderr and aborts as cf.assert does.
LIGHTHOUSE_RUNTIME_EXPORTED void
lighthouseRuntimeCheckFailed(const char *message);

/// Allocates `size` bytes with malloc's alignment for a buffer of compiled
/// code. When they cannot be, returns from the lighthouseRuntimeCall in
/// progress on this thread (LIGHTHOUSE_RUNTIME_OUT_OF_MEMORY), or without
/// one prints why and aborts, rather than let the code write through NULL.
/// A large buffer comes from those freed earlier when
/// one of about that size is kept: the system would otherwise map new pages
/// for it and fault each in on first touch, on every call. The buffer is a
/// malloc block: free() may release it, and lighthouseRuntimeFree takes
/// malloc blocks.
LIGHTHOUSE_RUNTIME_EXPORTED void *lighthouseRuntimeAlloc(size_t size);

/// Frees a buffer of lighthouseRuntimeAlloc or malloc (NULL is ignored).
/// Large ones are kept for reuse, up to 256 MiB in 256 buffers.
LIGHTHOUSE_RUNTIME_EXPORTED void lighthouseRuntimeFree(void *buffer);

/// Gives the buffers kept for reuse back to the system.
LIGHTHOUSE_RUNTIME_EXPORTED void lighthouseRuntimeReleaseBuffers(void);

/// The names under which finalize-memref-to-llvm{use-generic-functions}
/// makes compiled code allocate and free: lighthouseRuntimeAlloc and
/// lighthouseRuntimeFree.
LIGHTHOUSE_RUNTIME_EXPORTED void *_mlir_memref_to_llvm_alloc(size_t size);
LIGHTHOUSE_RUNTIME_EXPORTED void _mlir_memref_to_llvm_free(void *buffer);

#ifdef __cplusplus
}
#endif

#endif // LIGHTHOUSE_C_RUNTIME_H
