// A process-wide setting held by scopes that may overlap on several threads
// (the rank threads of one distributed run, which all run the same runner):
// the first scope applies the value, the last restores what was there before,
// so no rank changes it under another. Overlapping scopes must want the same
// value.
#pragma once
#include <mutex>

namespace dlfuzz {

template <class T>
class SharedSetting {
 public:
  SharedSetting(T (*read)(), void (*write)(const T&)) : read_(read), write_(write) {}

  void enter(const T& value) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (active_++ > 0) return;
    saved_ = read_();
    write_(value);
  }
  void leave() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (--active_ == 0) write_(saved_);
  }

 private:
  T (*read_)();
  void (*write_)(const T&);
  std::mutex mutex_;
  int active_ = 0;
  T saved_{};
};

}  // namespace dlfuzz
