//===- Runtime.c - What lighthouse's compiled code calls ------------------===//

#include "lighthouse-c/Runtime.h"

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
// kMaxKeptBytes in kSlots slots, and handed out again for the same size.
// Each buffer starts with a header holding its size, so that free knows it.
enum { kSlots = 64 };
static const size_t kMinKeptSize = 64 * 1024;
static const size_t kMaxKeptBytes = 256u << 20;

typedef struct {
  size_t size;
  size_t padding; // Keeps the buffer after the header aligned as malloc's.
} Header;

static struct {
  Header *buffer;
  size_t size;
} kept[kSlots];
static size_t keptBytes;
static pthread_mutex_t keptLock = PTHREAD_MUTEX_INITIALIZER;

static Header *takeKept(size_t size) {
  Header *found = NULL;
  pthread_mutex_lock(&keptLock);
  for (int i = 0; i < kSlots; ++i) {
    if (kept[i].buffer && kept[i].size == size) {
      found = kept[i].buffer;
      kept[i].buffer = NULL;
      keptBytes -= size;
      break;
    }
  }
  pthread_mutex_unlock(&keptLock);
  return found;
}

static int keep(Header *header) {
  int kept_ = 0;
  pthread_mutex_lock(&keptLock);
  if (keptBytes + header->size <= kMaxKeptBytes) {
    for (int i = 0; i < kSlots; ++i) {
      if (!kept[i].buffer) {
        kept[i].buffer = header;
        kept[i].size = header->size;
        keptBytes += header->size;
        kept_ = 1;
        break;
      }
    }
  }
  pthread_mutex_unlock(&keptLock);
  return kept_;
}

void *lighthouseRuntimeAlloc(size_t size) {
  Header *header = size >= kMinKeptSize ? takeKept(size) : NULL;
  if (!header) {
    if (size > (size_t)-1 - sizeof(Header))
      return NULL;
    header = malloc(sizeof(Header) + size);
    if (!header)
      return NULL;
    header->size = size;
  }
  return header + 1;
}

void lighthouseRuntimeFree(void *buffer) {
  if (!buffer)
    return;
  Header *header = (Header *)buffer - 1;
  if (header->size < kMinKeptSize || !keep(header))
    free(header);
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
