//===- Runtime.c - What lighthouse's compiled code calls ------------------===//

#include "lighthouse-c/Runtime.h"

#include <malloc.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

// The lighthouseRuntimeCall in progress on this thread, if any.
static _Thread_local jmp_buf *currentCall;
static _Thread_local char failureMessage[1024];

int lighthouseRuntimeCall(void (*entry)(void **), void **arguments,
                          const char **failure) {
  jmp_buf call;
  jmp_buf *outer = currentCall;
  currentCall = &call;
  if (setjmp(call)) {
    currentCall = outer;
    *failure = failureMessage;
    return 1;
  }
  entry(arguments);
  currentCall = outer;
  return 0;
}

void lighthouseRuntimeCheckFailed(const char *message) {
  if (!currentCall) {
    fprintf(stderr, "lighthouse: runtime check failed: %s\n", message);
    abort();
  }
  snprintf(failureMessage, sizeof(failureMessage), "%s", message);
  longjmp(*currentCall, 1);
}

// Buffers of at least kMinKeptSize bytes are kept when freed, up to
// kMaxKeptBytes in kSlots slots, and handed out again for a request they
// hold without wasting more than a quarter. They are plain malloc blocks
// whose capacity malloc_usable_size tells: code compiled to call malloc and
// free directly (another pipeline, an older saved module) mixes with this.
enum { kSlots = 64 };
static const size_t kMinKeptSize = 64 * 1024;
static const size_t kMaxKeptBytes = 256u << 20;

static struct {
  void *buffer;
  size_t capacity;
} kept[kSlots];
static size_t keptBytes;
static pthread_mutex_t keptLock = PTHREAD_MUTEX_INITIALIZER;

static void *takeKept(size_t size) {
  void *found = NULL;
  pthread_mutex_lock(&keptLock);
  for (int i = 0; i < kSlots; ++i) {
    if (kept[i].buffer && kept[i].capacity >= size &&
        kept[i].capacity - size <= size / 4) {
      found = kept[i].buffer;
      kept[i].buffer = NULL;
      keptBytes -= kept[i].capacity;
      break;
    }
  }
  pthread_mutex_unlock(&keptLock);
  return found;
}

static int keep(void *buffer, size_t capacity) {
  int done = 0;
  pthread_mutex_lock(&keptLock);
  if (keptBytes + capacity <= kMaxKeptBytes) {
    for (int i = 0; i < kSlots; ++i) {
      if (!kept[i].buffer) {
        kept[i].buffer = buffer;
        kept[i].capacity = capacity;
        keptBytes += capacity;
        done = 1;
        break;
      }
    }
  }
  pthread_mutex_unlock(&keptLock);
  return done;
}

void *lighthouseRuntimeAlloc(size_t size) {
  void *buffer = size >= kMinKeptSize ? takeKept(size) : NULL;
  return buffer ? buffer : malloc(size);
}

void lighthouseRuntimeFree(void *buffer) {
  if (!buffer)
    return;
  size_t capacity = malloc_usable_size(buffer);
  if (capacity < kMinKeptSize || !keep(buffer, capacity))
    free(buffer);
}

void lighthouseRuntimeReleaseBuffers(void) {
  pthread_mutex_lock(&keptLock);
  for (int i = 0; i < kSlots; ++i) {
    free(kept[i].buffer);
    kept[i].buffer = NULL;
  }
  keptBytes = 0;
  pthread_mutex_unlock(&keptLock);
}

void *_mlir_memref_to_llvm_alloc(size_t size) {
  return lighthouseRuntimeAlloc(size);
}

void _mlir_memref_to_llvm_free(void *buffer) { lighthouseRuntimeFree(buffer); }
