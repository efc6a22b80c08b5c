//===- Runtime.c - What lighthouse's compiled code calls ------------------===//

#include "lighthouse-c/Runtime.h"

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
