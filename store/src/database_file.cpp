// Whether the database file can be written and whether it is sound (database_file.hpp).
#include "database_file.hpp"

#include <unistd.h>

#include "fomcast/error.hpp"
#include "sqlite_statement.hpp"

namespace fomcast::detail {
namespace {

std::string directory_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

std::string write_problem(const std::string& path, bool exists) {
  const std::string dir = directory_of(path);
  if (access(dir.c_str(), F_OK) != 0) return "cannot create the database: directory '" + dir + "' does not exist";
  if (access(dir.c_str(), W_OK) != 0) return "cannot write " + dir + " (read-only)";
  if (exists && access(path.c_str(), W_OK) != 0) return "cannot write " + path + " (read-only)";
  return "";
}

std::vector<std::string> quick_check(sqlite3* db, const std::string& path) {
  std::vector<std::string> lines;
  try {
    Statement s(db, "PRAGMA quick_check(10)", path);
    while (s.step()) lines.push_back(s.text_at(0));
  } catch (const InputError& e) {
    lines.push_back(e.message);  // so damaged that the check itself cannot run
  }
  return lines;
}

std::vector<std::string> missing_tables(sqlite3* db, const std::string& path) {
  std::vector<std::string> missing;
  for (const char* table : {"meta", "platforms", "kernel_entries", "workloads", "ops", "calibrations", "fom_records"}) {
    Statement s(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1", path);
    s.bind(1, std::string(table));
    if (!s.step() || s.int_at(0) == 0) missing.emplace_back(table);
  }
  return missing;
}

std::string missing_tables_problem(const std::vector<std::string>& missing) {
  if (missing.empty()) return "";
  std::string names;
  for (const auto& t : missing) names += (names.empty() ? "'" : ", '") + t + "'";
  return "damaged fomcast database: " + std::string(missing.size() == 1 ? "table " : "tables ") + names +
         (missing.size() == 1 ? " is" : " are") +
         " missing. Restore a copy, or move it aside and fomcast creates a new one";
}

// file:PATH?immutable=1, with the characters a URI gives meaning to escaped.
std::string immutable_uri(const std::string& path) {
  std::string uri = "file:";
  for (const char ch : path) {
    if (ch == '%' || ch == '?' || ch == '#') {
      static constexpr char kHex[] = "0123456789ABCDEF";
      const auto b = static_cast<unsigned char>(ch);
      uri += '%';
      uri += kHex[b >> 4];
      uri += kHex[b & 15];
    } else {
      uri += ch;
    }
  }
  return uri + "?immutable=1";
}

}  // namespace fomcast::detail
