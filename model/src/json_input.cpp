#include "fomcast/json_input.hpp"

#include <algorithm>
#include <set>
#include <vector>

#include "fomcast/error.hpp"

namespace fomcast {
namespace {

using nlohmann::json;

// One open object or array while parsing: enough to name the path of a duplicate key.
struct Frame {
  bool array = false;
  std::size_t index = 0;  // elements completed so far (arrays)
  std::string key;        // the key being read (objects)
  std::set<std::string> keys;
};

std::string path_of(const std::vector<Frame>& frames) {
  std::string path;
  for (const Frame& f : frames) {
    if (f.array) {
      path += "[" + std::to_string(f.index) + "]";
    } else {
      if (!path.empty()) path += ".";
      path += f.key;
    }
  }
  return path;
}

// Thrown from the parser's callback, caught below: nlohmann passes it through untouched.
struct DuplicateKey {
  std::string path;
};
struct TooDeep {
  std::string path;
};

// As deep as the trace readers accept (decode/json_scan.hpp): no spec, study or table nests
// past a few levels, and a value nested 100,000 deep (a platform's `environment`) crashed
// the recursive serialiser that stores it.
constexpr std::size_t kMaxDepth = 256;

}  // namespace

json parse_json_input(std::string_view text, const std::string& file) {
  std::vector<Frame> frames;
  auto element_done = [&frames] {
    if (!frames.empty() && frames.back().array) ++frames.back().index;
  };
  const json::parser_callback_t watch = [&](int, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (frames.size() >= kMaxDepth) {
          frames.resize(4);
          throw TooDeep{path_of(frames)};
        }
        frames.emplace_back();
        frames.back().array = event == json::parse_event_t::array_start;
        break;
      case json::parse_event_t::key: {
        Frame& f = frames.back();
        f.key = parsed.get<std::string>();
        if (!f.keys.insert(f.key).second) throw DuplicateKey{path_of(frames)};
        break;
      }
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        frames.pop_back();
        element_done();
        break;
      case json::parse_event_t::value: element_done(); break;
    }
    return true;
  };
  try {
    return json::parse(text, watch);
  } catch (const DuplicateKey& d) {
    throw InputError(file, "given twice in one object: JSON keeps only the last, so one of them would be ignored", 0,
                     -1, d.path);
  } catch (const TooDeep& d) {
    throw InputError(file,
                     "nested more than " + std::to_string(kMaxDepth) + " levels deep: no fomcast input nests so far", 0,
                     -1, d.path + (d.path.empty() ? "" : "..."));
  } catch (const json::parse_error& e) {
    // e.byte counts from 1 and points at the character that failed.
    const std::size_t at = std::min<std::size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n');
    throw InputError(file, std::string("not valid JSON: ") + e.what(), line, static_cast<int64_t>(at));
  } catch (const json::exception& e) {
    // Numbers out of range (1e400, 30-digit integers) fail without a position; the message
    // quotes the number ("number overflow parsing '1e400'"): its first place in the text.
    const std::string what = e.what();
    const std::size_t open = what.find('\''), close = open == std::string::npos ? open : what.find('\'', open + 1);
    if (close != std::string::npos && close > open + 1) {
      const std::string number = what.substr(open + 1, close - open - 1);
      if (const std::size_t at = text.find(number); at != std::string_view::npos) {
        const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n');
        throw InputError(file, "the number " + number + " is beyond what a double holds", line,
                         static_cast<int64_t>(at));
      }
    }
    throw InputError(file, std::string("not usable JSON: ") + what);
  }
}

}  // namespace fomcast
