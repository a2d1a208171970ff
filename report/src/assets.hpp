// The report's assets (report/assets/: the HTML report's style sheet), compiled into the
// binary by cmake/EmbedData.cmake as the shipped data is. Private to report/.
#pragma once

#include <string_view>

namespace fomcast {

// The contents of report/assets/<path>, e.g. "report.css". Throws std::logic_error for a
// path that was not embedded (a build defect, not an input error).
std::string_view report_asset(std::string_view path);

}  // namespace fomcast
