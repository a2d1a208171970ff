// Looks up the files of report/assets/ in the table cmake/EmbedData.cmake generated.
#include "assets.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>

#include "fomcast/embedded.hpp"

namespace fomcast {

namespace report_assets {
extern const detail::EmbeddedFile kEmbeddedFiles[];
extern const std::size_t kEmbeddedFileCount;
}  // namespace report_assets

std::string_view report_asset(std::string_view path) {
  for (std::size_t i = 0; i < report_assets::kEmbeddedFileCount; ++i) {
    const detail::EmbeddedFile& f = report_assets::kEmbeddedFiles[i];
    if (path == f.path) return {f.begin, static_cast<std::size_t>(f.end - f.begin)};
  }
  throw std::logic_error("report asset '" + std::string(path) + "' is not embedded in this build");
}

}  // namespace fomcast
