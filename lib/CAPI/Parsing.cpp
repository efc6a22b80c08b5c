//===- Parsing.cpp - Parsing text from outside, contained -----------------===//

#include "lighthouse-c/Parsing.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/ErrorHandling.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <new>
#include <poll.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

using namespace mlir;

namespace {

/// The child's exit status: parsed, refused with diagnostics, out of
/// memory. Anything else (a signal, LLVM's fatal error) is a crash.
constexpr int kParsed = 0, kFailed = 65, kOutOfMemory = 66;

/// Seconds the parent waits for the child before parsing the text itself:
/// a child that inherited a lock another thread of the parent held when it
/// forked never answers. Parsing runs at tens of MB/s; the wait is generous.
constexpr int kBaseSeconds = 60;
constexpr int kBytesPerSecond = 1 << 20;

// The diagnostics of a failed parse, from the child to the parent: per
// diagnostic, its kind (error or note), line, column, and the lengths then
// the bytes of its file name and message.
struct RecordHeader {
  uint32_t isNote, line, column, fileLength, messageLength;
};

/// A diagnostic as lighthouseParseModuleContained reports it.
struct Reported {
  bool isNote;
  llvm::StringRef file;
  unsigned line = 0, column = 0;
  llvm::StringRef message;
};

/// Parses `source` in `context`, calling `report` with each error and its
/// notes.
OwningOpRef<ModuleOp>
parseReporting(MLIRContext *context, llvm::StringRef source,
               llvm::StringRef name,
               llvm::function_ref<void(const Reported &)> report) {
  auto reportOne = [&](bool isNote, Diagnostic &diagnostic) {
    std::string message = diagnostic.str();
    Reported reported{isNote, "", 0, 0, message};
    if (auto fileLine = dyn_cast<FileLineColLoc>(diagnostic.getLocation())) {
      reported.file = fileLine.getFilename();
      reported.line = fileLine.getLine();
      reported.column = fileLine.getColumn();
    }
    report(reported);
  };
  ScopedDiagnosticHandler handler(context, [&](Diagnostic &diagnostic) {
    if (diagnostic.getSeverity() == DiagnosticSeverity::Error) {
      reportOne(false, diagnostic);
      for (Diagnostic &note : diagnostic.getNotes())
        reportOne(true, note);
    }
    return success();
  });
  return parseSourceString<ModuleOp>(source, ParserConfig(context), name);
}

void appendRecord(std::string &records, const Reported &reported) {
  RecordHeader header{reported.isNote, reported.line, reported.column,
                      uint32_t(reported.file.size()),
                      uint32_t(reported.message.size())};
  records.append(reinterpret_cast<const char *>(&header), sizeof(header));
  records.append(reported.file.data(), reported.file.size());
  records.append(reported.message.data(), reported.message.size());
}

bool writeAll(int fd, llvm::StringRef bytes) {
  while (!bytes.empty()) {
    ssize_t written = ::write(fd, bytes.data(), bytes.size());
    if (written < 0 && errno == EINTR)
      continue;
    if (written <= 0)
      return false;
    bytes = bytes.drop_front(written);
  }
  return true;
}

[[noreturn]] void exitOutOfMemory() { _exit(kOutOfMemory); }
[[noreturn]] void exitOutOfMemory(void *, const char *, bool) {
  exitOutOfMemory();
}

/// The child: parses `source` in a context of `parent`'s dialects on its
/// one thread (the parent's other threads do not exist here), sends the
/// diagnostics of a failure on `fd`, and exits.
[[noreturn]] void parseInChild(MLIRContext *parent, llvm::StringRef source,
                               llvm::StringRef name, int fd) {
  // A crash's stack dump is the parent's to summarize.
  int devNull = ::open("/dev/null", O_WRONLY);
  if (devNull >= 0)
    ::dup2(devNull, STDERR_FILENO);
  // Both ways out of memory: operator new's, and LLVM's own allocators'.
  std::set_new_handler(exitOutOfMemory);
  llvm::install_bad_alloc_error_handler(exitOutOfMemory);
  MLIRContext context(parent->getDialectRegistry(),
                      MLIRContext::Threading::DISABLED);
  context.allowUnregisteredDialects(parent->allowsUnregisteredDialects());
  std::string records;
  OwningOpRef<ModuleOp> module =
      parseReporting(&context, source, name, [&](const Reported &reported) {
        appendRecord(records, reported);
      });
  if (module)
    _exit(kParsed);
  writeAll(fd, records);
  _exit(kFailed);
}

/// Reads what the child sends on `fd` until it closes it; false when it
/// does not within `seconds`.
bool readFromChild(int fd, int seconds, std::string &received) {
  char buffer[1 << 16];
  int left = seconds * 1000;
  while (true) {
    pollfd event{fd, POLLIN, 0};
    int ready = ::poll(&event, 1, std::min(left, 1000));
    if (ready < 0 && errno != EINTR)
      return false;
    if (ready <= 0) {
      left -= 1000;
      if (left <= 0)
        return false;
      continue;
    }
    ssize_t count = ::read(fd, buffer, sizeof(buffer));
    if (count < 0 && errno == EINTR)
      continue;
    if (count <= 0)
      return true;
    received.append(buffer, count);
  }
}

void reportRecords(llvm::StringRef records,
                   LighthouseDiagnosticCallback onDiagnostic, void *userData) {
  while (records.size() >= sizeof(RecordHeader)) {
    RecordHeader header;
    std::memcpy(&header, records.data(), sizeof(header));
    records = records.drop_front(sizeof(header));
    if (records.size() < size_t(header.fileLength) + header.messageLength)
      return;
    llvm::StringRef file = records.take_front(header.fileLength);
    records = records.drop_front(header.fileLength);
    llvm::StringRef message = records.take_front(header.messageLength);
    records = records.drop_front(header.messageLength);
    onDiagnostic(header.isNote, wrap(file), header.line, header.column,
                 wrap(message), userData);
  }
}

} // namespace

MlirModule lighthouseParseModuleContained(
    MlirContext context, MlirStringRef source, MlirStringRef sourceName,
    LighthouseDiagnosticCallback onDiagnostic, void *userData,
    LighthouseParseOutcome *outcome, int *signal) {
  MLIRContext *parent = unwrap(context);
  llvm::StringRef text = unwrap(source), name = unwrap(sourceName);
  *signal = 0;
  auto parseHere = [&] {
    OwningOpRef<ModuleOp> module =
        parseReporting(parent, text, name, [&](const Reported &reported) {
          onDiagnostic(reported.isNote, wrap(reported.file), reported.line,
                       reported.column, wrap(reported.message), userData);
        });
    *outcome = module ? LighthouseParseParsed : LighthouseParseFailed;
    return MlirModule{module.release().getOperation()};
  };
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    return parseHere();
  pid_t child = ::fork();
  if (child == 0) {
    ::close(fds[0]);
    parseInChild(parent, text, name, fds[1]);
  }
  ::close(fds[1]);
  if (child < 0) {
    ::close(fds[0]);
    return parseHere();
  }
  std::string records;
  bool answered = readFromChild(
      fds[0], kBaseSeconds + int(text.size() / kBytesPerSecond), records);
  ::close(fds[0]);
  if (!answered)
    ::kill(child, SIGKILL);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!answered)
    return parseHere();
  if (WIFEXITED(status) && WEXITSTATUS(status) == kParsed)
    return parseHere();
  if (WIFEXITED(status) && WEXITSTATUS(status) == kFailed) {
    reportRecords(records, onDiagnostic, userData);
    *outcome = LighthouseParseFailed;
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == kOutOfMemory) {
    *outcome = LighthouseParseOutOfMemory;
  } else {
    *outcome = LighthouseParseCrashed;
    *signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  }
  return MlirModule{nullptr};
}
