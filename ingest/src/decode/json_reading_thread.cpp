// The reading thread stream_json_array gives big files: one thread reads, decompresses
// and scans (scan_json_array), the caller's thread handles the elements, with a small
// queue of element batches between them.
#include "decode/json_reading_thread.hpp"

#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace fomcast::ingest {
namespace {

// The reading thread reads, decompresses and scans, copying each element into 1 MiB
// batches; the caller's thread parses them. The queue holds a few batches, so memory stays
// bounded; errors travel in order with the elements.
class Pipeline {
 public:
  Pipeline(const InputFile& file, const JsonStreamSpec& spec) : file_(file), spec_(spec) {}
  ~Pipeline() {
    cancel();
    if (reader_.joinable()) reader_.join();
  }

  JsonStreamInfo run(const std::function<void(const JsonElement&)>& on_element, const ProgressFn& progress) {
    reader_ = std::thread([this] { produce(); });
    for (;;) {
      std::unique_ptr<Batch> b = pop();
      if (!b) break;
      for (const auto& item : b->items) {
        JsonElement e;
        e.text = std::string_view(b->bytes.data() + item.at, item.size);
        e.readable = b->bytes.size() - item.at;
        e.offset = item.offset;
        e.index = item.index;
        on_element(e);
      }
      if (progress) progress(b->done, b->total, "reading " + file_.path());
      recycle(std::move(b));
    }
    reader_.join();
    if (error_) std::rethrow_exception(error_);
    return info_;
  }

 private:
  struct Item {
    std::size_t at = 0, size = 0;
    int64_t offset = 0, index = 0;
  };
  struct Batch {
    std::vector<char> bytes;
    std::vector<Item> items;
    double done = 0, total = 0;
  };
  struct Cancelled {};
  static constexpr std::size_t kBatchBytes = 1 << 20;
  static constexpr std::size_t kQueued = 4;

  const InputFile& file_;
  const JsonStreamSpec& spec_;
  std::thread reader_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::unique_ptr<Batch>> full_;
  std::vector<std::unique_ptr<Batch>> spare_;
  bool finished_ = false, cancelled_ = false;
  std::exception_ptr error_;
  JsonStreamInfo info_;

  void produce() {
    std::unique_ptr<Batch> batch = take_spare();
    double done = 0, total = 0;
    const ProgressFn note = [&](double d, double t, std::string_view) {
      done = d;
      total = t;
    };
    auto flush = [&] {
      batch->bytes.insert(batch->bytes.end(), kJsonPadding, ' ');
      batch->done = done;
      batch->total = total;
      push(std::move(batch));
      batch = take_spare();
    };
    try {
      JsonStreamInfo info = scan_json_array(
          file_, spec_,
          [&](const JsonElement& e) {
            batch->items.push_back({batch->bytes.size(), e.text.size(), e.offset, e.index});
            batch->bytes.insert(batch->bytes.end(), e.text.begin(), e.text.end());
            if (batch->bytes.size() >= kBatchBytes) flush();
          },
          note);
      flush();
      std::lock_guard<std::mutex> lock(mutex_);
      info_ = std::move(info);
    } catch (const Cancelled&) {
      return;
    } catch (...) {
      try {
        flush();  // the elements before the fault are handed over first
      } catch (const Cancelled&) {
        return;
      }
      std::lock_guard<std::mutex> lock(mutex_);
      error_ = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(mutex_);
    finished_ = true;
    changed_.notify_all();
  }

  std::unique_ptr<Batch> take_spare() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (spare_.empty()) return std::make_unique<Batch>();
    auto b = std::move(spare_.back());
    spare_.pop_back();
    return b;
  }
  void push(std::unique_ptr<Batch> b) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return cancelled_ || full_.size() < kQueued; });
    if (cancelled_) throw Cancelled{};
    full_.push_back(std::move(b));
    changed_.notify_all();
  }
  std::unique_ptr<Batch> pop() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return !full_.empty() || finished_; });
    if (full_.empty()) return nullptr;
    auto b = std::move(full_.front());
    full_.pop_front();
    changed_.notify_all();
    return b;
  }
  void recycle(std::unique_ptr<Batch> b) {
    b->bytes.clear();
    b->items.clear();
    std::lock_guard<std::mutex> lock(mutex_);
    spare_.push_back(std::move(b));
  }
  void cancel() {
    std::lock_guard<std::mutex> lock(mutex_);
    cancelled_ = true;
    changed_.notify_all();
  }
};

}  // namespace

JsonStreamInfo scan_json_array_on_reading_thread(const InputFile& file, const JsonStreamSpec& spec,
                                                 const std::function<void(const JsonElement&)>& on_element,
                                                 const ProgressFn& progress) {
  Pipeline p(file, spec);
  return p.run(on_element, progress);
}

}  // namespace fomcast::ingest
