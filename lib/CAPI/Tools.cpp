//===- Tools.cpp - lighthouse's command-line tools as C entry points ------===//

#include "lighthouse-c/Tools.h"

#include "lighthouse/InitAll.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/wait.h>
#include <unistd.h>

static int runOpt(int argc, char **argv) {
  mlir::DialectRegistry registry;
  lighthouse::registerAllDialects(registry);
  lighthouse::registerAllPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "lighthouse's MLIR optimizer driver\n", registry));
}

/// Set to run in this process, under a debugger say.
static constexpr const char *kInProcessVariable = "LIGHTHOUSE_OPT_IN_PROCESS";

int lighthouseOptMain(int argc, char **argv) {
  // The run happens in a child process: a fault of MLIR on the input (its
  // parser crashes on some malformed text, see docs/testing-compilers.md)
  // ends in an error naming it, exit status 1, rather than in this
  // process's death. The child's stack dump, printed first, says where.
  const char *inProcess = std::getenv(kInProcessVariable);
  if (inProcess && std::strcmp(inProcess, "1") == 0)
    return runOpt(argc, argv);
  std::fflush(nullptr);
  pid_t child = fork();
  if (child < 0)
    return runOpt(argc, argv);
  if (child == 0)
    std::_Exit(runOpt(argc, argv));
  int status = 0;
  while (waitpid(child, &status, 0) < 0)
    if (errno != EINTR) {
      std::perror("lh-opt: error: waiting for the run");
      return 1;
    }
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  int signal = WTERMSIG(status);
  std::fprintf(stderr,
               "lh-opt: error: the run died of signal %d (%s), a fault of "
               "MLIR on this input: the stack dump above names where "
               "('MLIR Parser' for its parser); %s=1 runs it in this process\n",
               signal, strsignal(signal), kInProcessVariable);
  return 1;
}
