#include "triage/sqlite.h"

namespace dlfuzz {

Statement::Statement(sqlite3* db, const std::string& sql) : db_(db) {
  if (int rc = sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr); rc != SQLITE_OK)
    throw StoreError(std::string(sqlite3_errmsg(db)) + " (in: " + sql.substr(0, 60) + ")", rc);
}
Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::bind(int i, const std::string& v) {
  sqlite3_bind_text(stmt_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  return *this;
}
Statement& Statement::bind(int i, int64_t v) {
  sqlite3_bind_int64(stmt_, i, v);
  return *this;
}
Statement& Statement::bind(int i, double v) {
  sqlite3_bind_double(stmt_, i, v);
  return *this;
}
Statement& Statement::bind_null(int i) {
  sqlite3_bind_null(stmt_, i);
  return *this;
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  throw StoreError(sqlite3_errmsg(db_), rc);
}
void Statement::run() {
  while (step()) {
  }
}
int64_t Statement::column_int(int i) { return sqlite3_column_int64(stmt_, i); }
double Statement::column_double(int i) { return sqlite3_column_double(stmt_, i); }
std::string Statement::column_text(int i) {
  const unsigned char* t = sqlite3_column_text(stmt_, i);
  return t ? reinterpret_cast<const char*>(t) : "";
}
bool Statement::column_is_null(int i) { return sqlite3_column_type(stmt_, i) == SQLITE_NULL; }

Database::Database(const std::string& path, bool create) : path_(path) {
  int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw StoreError(path + ": " + msg);
  }
  // Two campaigns, a retest and a merge may share one store: a writer waits
  // for the other's transaction instead of failing with "database is locked".
  sqlite3_busy_timeout(db_, kBusyTimeoutMs);
  // SQLite falls back to read-only silently; the first write would then fail
  // with a message that does not say why.
  if (create && sqlite3_db_readonly(db_, "main") == 1) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw StoreReadOnly(path + ": the store is read-only (no write permission on it or its directory)");
  }
}
Database::~Database() { sqlite3_close(db_); }

int Database::try_exec(const std::string& sql, std::string* error) {
  char* err = nullptr;
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK && error) *error = path_ + ": " + (err ? err : sqlite3_errstr(rc));
  sqlite3_free(err);
  return rc;
}

void Database::exec(const std::string& sql) {
  std::string error;
  if (int rc = try_exec(sql, &error); rc != SQLITE_OK) throw StoreError(error, rc);
}

Transaction::Transaction(Database& db) : db_(db) {
  // The busy timeout has waited already; a writer that holds the store
  // longer (a big merge) is waited for again before the caller gives up.
  std::string error;
  for (int attempt = 1; attempt <= kBeginAttempts; ++attempt) {
    int rc = db_.try_exec("BEGIN IMMEDIATE", &error);
    if (rc == SQLITE_OK) return;
    if (rc != SQLITE_BUSY && rc != SQLITE_LOCKED) break;
  }
  throw StoreError(error, SQLITE_BUSY);
}
Transaction::~Transaction() {
  if (!done_) {
    try {
      db_.exec("ROLLBACK");
    } catch (...) {
    }
  }
}
void Transaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace dlfuzz
