// A thin RAII wrapper over SQLite's C API: a connection and prepared
// statements. Errors throw StoreError with SQLite's message.
#pragma once
#include <sqlite3.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace dlfuzz {

struct StoreError : std::runtime_error {
  explicit StoreError(const std::string& message, int sqlite_code = 0)
      : std::runtime_error(message), sqlite_code(sqlite_code) {}
  int sqlite_code;  // SQLite's result code, 0 when the error is dlfuzz's own
  bool busy() const { return (sqlite_code & 0xff) == SQLITE_BUSY; }
  // The disk is full or the file cannot be written: not the input's fault.
  bool cannot_write() const {
    int c = sqlite_code & 0xff;
    return c == SQLITE_FULL || c == SQLITE_READONLY || c == SQLITE_IOERR || c == SQLITE_CANTOPEN;
  }
};
// The file could only be opened for reading (no write permission on it or its
// directory): dlfuzz's stores are always written (WAL, migrations).
struct StoreReadOnly : StoreError {
  using StoreError::StoreError;
};

class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, const std::string& v);
  Statement& bind(int i, int64_t v);
  Statement& bind(int i, double v);
  Statement& bind_null(int i);
  bool step();  // true while a row is available
  void run();   // step to completion
  int64_t column_int(int i);
  double column_double(int i);
  std::string column_text(int i);
  bool column_is_null(int i);

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// How long a statement waits for another connection's write lock, and how
// many such waits a transaction's BEGIN IMMEDIATE makes before it fails.
constexpr int kBusyTimeoutMs = 30000;
constexpr int kBeginAttempts = 4;

class Database {
 public:
  // Opens (creating if allowed) the file; throws StoreError naming it, and
  // StoreReadOnly when `create` was asked for but only reading is allowed.
  Database(const std::string& path, bool create);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  void exec(const std::string& sql);
  // SQLite's result code, with the message in *error when it is not SQLITE_OK.
  int try_exec(const std::string& sql, std::string* error);
  Statement prepare(const std::string& sql) { return Statement(db_, sql); }
  int64_t last_insert_id() const { return sqlite3_last_insert_rowid(db_); }
  const std::string& path() const { return path_; }

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

// Runs a transaction: commits when the scope ends normally, rolls back on throw.
class Transaction {
 public:
  explicit Transaction(Database& db);
  ~Transaction();
  void commit();

 private:
  Database& db_;
  bool done_ = false;
};

}  // namespace dlfuzz
