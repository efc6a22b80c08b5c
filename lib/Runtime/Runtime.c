//===- Runtime.c - What lighthouse's compiled code calls ------------------===//

#include "lighthouse-c/Runtime.h"

#include <malloc.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

// The lighthouseRuntimeCall in progress on this thread, if any, and how its
// last failure ended it.
static _Thread_local jmp_buf *currentCall;
static _Thread_local char failureMessage[1024];
static _Thread_local int failureKind;

// The buffers the calls in progress on this thread allocated and have not
// freed, oldest first; each call owns those from the count at its start.
// A call that fails frees its own: the code that would have is skipped.
static _Thread_local struct {
  void **items;
  size_t count, capacity;
} callBuffers;

static void track(void *buffer) {
  if (callBuffers.count == callBuffers.capacity) {
    size_t capacity = callBuffers.capacity ? 2 * callBuffers.capacity : 64;
    void **items = realloc(callBuffers.items, capacity * sizeof(void *));
    if (!items)
      return; // Untracked: only a failure of this call would leak it.
    callBuffers.items = items;
    callBuffers.capacity = capacity;
  }
  callBuffers.items[callBuffers.count++] = buffer;
}

static void untrack(void *buffer) {
  // Buffers are mostly freed in the reverse order of their allocation.
  for (size_t i = callBuffers.count; i-- > 0;) {
    if (callBuffers.items[i] == buffer) {
      callBuffers.items[i] = callBuffers.items[--callBuffers.count];
      return;
    }
  }
}

void lighthouseRuntimeFree(void *buffer);

int lighthouseRuntimeCall(void (*entry)(void **), void **arguments,
                          const char **failure) {
  jmp_buf call;
  jmp_buf *outer = currentCall;
  size_t first = callBuffers.count;
  currentCall = &call;
  if (setjmp(call)) {
    // Freed with no call in progress, so that they are not looked up.
    currentCall = NULL;
    while (callBuffers.count > first)
      lighthouseRuntimeFree(callBuffers.items[--callBuffers.count]);
    currentCall = outer;
    *failure = failureMessage;
    return failureKind;
  }
  entry(arguments);
  // What is left is the results', which the caller owns.
  callBuffers.count = first;
  currentCall = outer;
  return 0;
}

// Returns from the call in progress with `message`, or without one aborts
// as cf.assert does.
static void fail(int kind, const char *message) {
  if (!currentCall) {
    fprintf(stderr, "lighthouse: %s\n", message);
    abort();
  }
  snprintf(failureMessage, sizeof(failureMessage), "%s", message);
  failureKind = kind;
  longjmp(*currentCall, 1);
}

void lighthouseRuntimeCheckFailed(const char *message) {
  if (!currentCall)
    fprintf(stderr, "lighthouse: runtime check failed:\n");
  fail(LIGHTHOUSE_RUNTIME_CHECK_FAILED, message);
}

// Buffers of at least kMinKeptSize bytes are kept when freed, up to
// kMaxKeptBytes in kSlots slots, and handed out again for a request they
// hold without wasting more than a quarter. They are plain malloc blocks
// whose capacity malloc_usable_size tells: code compiled to call malloc and
// free directly (another pipeline, an older saved module) mixes with this.
// MobileNet-V2 allocates 117 buffers a call, more than 64 slots held.
enum { kSlots = 256 };
static const size_t kMinKeptSize = 64 * 1024;
static const size_t kMaxKeptBytes = 256u << 20;

static struct {
  void *buffer;
  size_t capacity;
} kept[kSlots];
static size_t keptBytes;
static pthread_mutex_t keptLock = PTHREAD_MUTEX_INITIALIZER;

static void *takeKept(size_t size) {
  // The smallest that holds it: the first that did left the next, larger
  // request none, which then mapped and faulted in new pages.
  int best = -1;
  pthread_mutex_lock(&keptLock);
  for (int i = 0; i < kSlots; ++i) {
    if (kept[i].buffer && kept[i].capacity >= size &&
        kept[i].capacity - size <= size / 4 &&
        (best < 0 || kept[i].capacity < kept[best].capacity))
      best = i;
  }
  void *found = NULL;
  if (best >= 0) {
    found = kept[best].buffer;
    kept[best].buffer = NULL;
    keptBytes -= kept[best].capacity;
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
  if (!buffer)
    buffer = malloc(size);
  if (!buffer && size) {
    char message[128];
    snprintf(message, sizeof(message),
             "out of memory: %zu bytes could not be allocated", size);
    fail(LIGHTHOUSE_RUNTIME_OUT_OF_MEMORY, message);
  }
  if (currentCall)
    track(buffer);
  return buffer;
}

void lighthouseRuntimeFree(void *buffer) {
  if (!buffer)
    return;
  if (currentCall)
    untrack(buffer);
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
