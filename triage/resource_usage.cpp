#include "triage/resource_usage.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>
#include <vector>

namespace dlfuzz {

namespace {
int64_t rss_kb(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::atoll(line.c_str() + 6);
  return 0;  // exited, or a zombie
}

int64_t parent_of(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
  auto close = text.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream rest(text.substr(close + 1));
  std::string state;
  int64_t ppid = -1;
  rest >> state >> ppid;
  return ppid;
}

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') names.emplace_back(e->d_name);
    closedir(d);
  }
  return names;
}

int64_t file_size(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : 0;
}
}  // namespace

ResourceUsage sample_resources(const std::string& db_path) {
  ResourceUsage u;
  const std::string self = std::to_string(getpid());
  u.campaign_rss_kb = rss_kb(self);
  u.open_fds = static_cast<int64_t>(entries("/proc/self/fd").size()) - 1;  // less the directory being read
  u.store_bytes = file_size(db_path) + file_size(db_path + "-wal");
  // Descendants: a parent map over /proc, then a walk down from this process.
  std::multimap<int64_t, std::string> children;
  for (const auto& name : entries("/proc"))
    if (name.find_first_not_of("0123456789") == std::string::npos) children.emplace(parent_of(name), name);
  std::vector<int64_t> todo{getpid()};
  while (!todo.empty()) {
    int64_t pid = todo.back();
    todo.pop_back();
    auto [lo, hi] = children.equal_range(pid);
    for (auto it = lo; it != hi; ++it) {
      ++u.workers;
      u.workers_rss_kb += rss_kb(it->second);
      todo.push_back(std::atoll(it->second.c_str()));
    }
  }
  return u;
}

}  // namespace dlfuzz
