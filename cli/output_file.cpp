#include "cli/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

namespace dlfuzz::cli {

namespace {
// POSIX calls rather than a stream: their errno names the cause (ENOSPC,
// EROFS, EACCES), and a failed close (NFS, quota) is seen too. 0 or errno.
int write_fd_file(const std::string& path, const std::string& text, int flags) {
  int fd = ::open(path.c_str(), flags | O_CLOEXEC, 0644);
  if (fd < 0) return errno;
  int err = 0;
  for (size_t done = 0; !err && done < text.size();) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) err = n < 0 ? errno : EIO;
    else done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0 && !err) err = errno;
  return err;
}
}  // namespace

bool write_output(const std::string& who, const std::string& path, const std::string& text) {
  int err;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    err = write_fd_file(path, text, O_WRONLY);  // a device or a pipe (/dev/stdout): as is
  } else {
    // A regular file is written beside and renamed over: a failed write
    // leaves the previous file whole and no truncated one.
    std::string tmp = path + ".tmp" + std::to_string(getpid());
    err = write_fd_file(tmp, text, O_WRONLY | O_CREAT | O_TRUNC | O_EXCL);
    if (!err && std::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
    if (err) ::unlink(tmp.c_str());
  }
  if (!err) return true;
  std::cerr << who << ": cannot write " << path << ": " << std::strerror(err) << " (disk full? not writable?)\n";
  return false;
}

}  // namespace dlfuzz::cli
