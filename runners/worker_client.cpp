#include "runners/worker_client.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "runners/wire.h"

namespace dlfuzz {

namespace {
// Waits up to grace_ms for pid to exit; kills it if it has not. False when it
// had to be killed.
bool reap_within(pid_t pid, int* status, int grace_ms) {
  for (int waited = 0; waited < grace_ms; waited += 10) {
    if (waitpid(pid, status, WNOHANG) == pid) return true;
    usleep(10000);
  }
  kill(pid, SIGKILL);
  waitpid(pid, status, 0);
  return false;
}
}  // namespace

WorkerProcess::WorkerProcess(std::vector<std::string> argv, size_t memory_limit_mb)
    : argv_(std::move(argv)), memory_limit_mb_(memory_limit_mb) {}

WorkerProcess::~WorkerProcess() { stop(); }

bool WorkerProcess::start() {
  int req[2], res[2];
  if (pipe2(req, O_CLOEXEC) != 0 || pipe2(res, O_CLOEXEC) != 0) {
    start_error_ = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  std::vector<char*> args;
  for (auto& a : argv_) args.push_back(a.data());
  args.push_back(nullptr);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    start_error_ = std::string("fork: ") + std::strerror(errno);
    return false;
  }
  if (pid == 0) {
    // Child: die with the parent, so no run leaves a process behind.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    // Move both ends above 4 first: a pipe end may already be fd 3 or 4, and
    // dup2 onto itself would keep FD_CLOEXEC.
    int in = fcntl(req[0], F_DUPFD, 10), out = fcntl(res[1], F_DUPFD, 10);
    dup2(in, 3);
    dup2(out, 4);
    close(in);   // F_DUPFD copies are not close-on-exec: the worker would hold
    close(out);  // a second end, and closing fd 4 would not be seen as EOF
    // Stray prints must not corrupt the frames or the progress line: workers'
    // stdout and stderr go to $DLFUZZ_WORKER_LOG, or nowhere.
    const char* log = getenv("DLFUZZ_WORKER_LOG");
    int sink = open(log ? log : "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (sink >= 0) {
      dup2(sink, 1);
      dup2(sink, 2);
    }
    // Data, not address space: CUDA's driver reserves address space the size
    // of host and GPU memory together (PROT_NONE, not data), and under
    // RLIMIT_AS cuInit fails, so a CUDA LibTorch saw no device (H200 run,
    // 2026-12-04). RLIMIT_DATA counts the heap and private writable mappings:
    // what a program's tensors take.
    if (memory_limit_mb_ > 0) {
      rlimit lim{memory_limit_mb_ << 20, memory_limit_mb_ << 20};
      setrlimit(RLIMIT_DATA, &lim);
    }
    execv(args[0], args.data());
    _exit(127);
  }
  close(req[0]);
  close(res[1]);
  pid_ = pid;
  to_child_ = req[1];
  from_child_ = res[0];
  signal(SIGPIPE, SIG_IGN);
  return true;
}

void WorkerProcess::stop() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (to_child_ >= 0) close(to_child_);
  if (from_child_ >= 0) close(from_child_);
  pid_ = -1;
  to_child_ = from_child_ = -1;
}

namespace {
std::string request_json(const WorkerRequest& req, size_t first) {
  nlohmann::json j = {
      {"program", req.program}, {"python_program", req.python_program}, {"warmup", req.warmup},
      {"backend", req.backend}, {"rank_processes", req.rank_processes}, {"rank", req.rank},
      {"world", req.world},     {"store_port", req.store_port},         {"timed_calls", req.timed_calls},
      {"pairs", req.pairs},     {"profile_dir", req.profile_dir}};
  j["runners"] = std::vector<std::string>(req.runners.begin() + first, req.runners.end());
  if (!req.python_batch.is_null()) j["python_batch"] = req.python_batch;
  if (req.warm) j["warm"] = true;
  return j.dump();
}
}  // namespace

std::vector<RunResult> WorkerProcess::run_frames(const WorkerRequest& req, size_t expected, int timeout_ms) {
  std::vector<RunResult> results;
  if (pid_ < 0 && !start()) return results;
  if (!write_frame(to_child_, request_json(req, 0))) {
    stop();
    ++restarts_;
    return results;
  }
  while (results.size() < expected) {
    std::string payload;
    if (read_frame(from_child_, payload, timeout_ms) == ReadStatus::ok) {
      try {
        results.push_back(decode_result(payload));
        continue;
      } catch (const std::exception&) {
      }
    }
    stop();  // hung, died or spoke nonsense: a fresh worker for what follows
    ++restarts_;
    break;
  }
  return results;
}

std::vector<RunResult> WorkerProcess::run(const WorkerRequest& req, int timeout_ms) {
  std::vector<RunResult> results;
  size_t next = 0;
  while (next < req.runners.size()) {
    if (pid_ < 0 && !start()) break;
    if (!write_frame(to_child_, request_json(req, next))) {
      stop();
      ++restarts_;
      if (restarts_ > 1000) break;
      continue;
    }
    for (; next < req.runners.size(); ++next) {
      std::string payload;
      std::string unreadable;  // why a result frame could not be decoded
      ReadStatus s = read_frame(from_child_, payload, timeout_ms);
      if (s == ReadStatus::ok) {
        try {
          results.push_back(decode_result(payload));
          continue;
        } catch (const std::exception& e) {
          s = ReadStatus::error;
          unreadable = e.what();
        }
      }
      // The worker hung, died or spoke nonsense while running req.runners[next].
      RunResult r;
      r.runner = req.runners[next];
      r.stage = Stage::run;
      r.status = RunStatus::crash;
      if (s == ReadStatus::timeout) {
        r.status = RunStatus::timeout;
        r.error = "no result within " + std::to_string(timeout_ms) + " ms";
        kill(pid_, SIGKILL);
      } else if (!unreadable.empty()) {
        r.error = "the worker sent a result that could not be read: " + unreadable.substr(0, 200);
        kill(pid_, SIGKILL);
      }
      // A worker that closed its end is exiting: its status says how. One that
      // lives on (it may be waiting for rank processes) is killed after a grace
      // period, never waited for without end.
      int status = 0;
      bool killed = !reap_within(pid_, &status, 2000);
      if (r.error.empty()) {
        if (killed) r.error = "the worker closed its result pipe but did not exit";
        else if (WIFSIGNALED(status))
          r.error =
              std::string("signal ") + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
        else r.error = "worker exited with status " + std::to_string(WEXITSTATUS(status));
      }
      pid_ = -1;
      stop();
      ++restarts_;
      results.push_back(r);
      ++next;
      break;  // restart the worker for the remaining runners
    }
  }
  if (results.size() < req.runners.size()) {
    for (size_t i = results.size(); i < req.runners.size(); ++i) {
      RunResult r;
      r.runner = req.runners[i];
      r.status = RunStatus::crash;
      r.stage = Stage::setup;
      r.error = "worker could not start: " + start_error_;
      results.push_back(r);
    }
  }
  return results;
}

}  // namespace dlfuzz
