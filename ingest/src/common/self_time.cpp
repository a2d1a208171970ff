// Sorting and the stack walk behind SelfTimeBuilder.
#include "common/self_time.hpp"

#include <algorithm>
#include <limits>

namespace fomcast::ingest {

namespace {

// Start order; at equal starts the longer event first (it encloses the shorter), and a
// launch after the ops that start with it.
bool before(const CpuEvent& a, const CpuEvent& b) {
  if (a.start != b.start) return a.start < b.start;
  const bool la = a.type == CpuEventType::launch, lb = b.type == CpuEventType::launch;
  if (la != lb) return lb;
  return a.end > b.end;
}

Frame frame_of(const CpuEvent& e, uint32_t thread) {
  Frame f;
  f.thread = thread;
  f.start = e.start;
  f.end = e.end;
  f.proto = e.proto;
  f.is_op = e.type == CpuEventType::op;
  return f;
}

Frame* innermost_op(std::vector<Frame>& stack) {
  for (auto it = stack.rbegin(); it != stack.rend(); ++it)
    if (it->is_op) return &*it;
  return nullptr;
}

}  // namespace

SelfTimeBuilder::SelfTimeBuilder(SelfTimeCallbacks callbacks, std::size_t max_buffered)
    : cb_(std::move(callbacks)), max_buffered_(std::max<std::size_t>(max_buffered, 16)) {}

void SelfTimeBuilder::add(uint32_t thread, const CpuEvent& e) {
  if (thread >= threads_.size()) threads_.resize(thread + 1);
  Thread& t = threads_[thread];
  if (e.start < t.walked_to) {
    // Arrived after its neighbourhood was walked: counted, without nesting.
    ++stragglers_;
    if (e.type == CpuEventType::launch) {
      cb_.on_launch(e, nullptr, nullptr);
      return;
    }
    Frame f = frame_of(e, thread);
    cb_.on_push(f, nullptr, nullptr);
    if (f.is_op) cb_.on_pop(f);
    return;
  }
  t.pending.push_back(e);
  if (++buffered_ > max_buffered_) walk_oldest_half();
}

void SelfTimeBuilder::walk_oldest_half() {
  std::vector<double> starts;
  starts.reserve(buffered_);
  for (const auto& t : threads_)
    for (const auto& e : t.pending) starts.push_back(e.start);
  if (starts.empty()) return;
  auto mid = starts.begin() + static_cast<std::ptrdiff_t>(starts.size() / 2);
  std::nth_element(starts.begin(), mid, starts.end());
  const double watermark = *mid;
  ++partial_walks_;
  for (auto& t : threads_) walk(t, watermark);
}

void SelfTimeBuilder::finish() {
  for (auto& t : threads_) {
    walk(t, std::numeric_limits<double>::infinity());
    while (!t.stack.empty()) pop(t);
  }
}

void SelfTimeBuilder::walk(Thread& t, double upto) {
  std::stable_sort(t.pending.begin(), t.pending.end(), before);
  std::size_t n = 0;
  while (n < t.pending.size() && t.pending[n].start < upto) walk_one(t, t.pending[n++]);
  t.pending.erase(t.pending.begin(), t.pending.begin() + static_cast<std::ptrdiff_t>(n));
  buffered_ -= n;
  t.walked_to = std::max(t.walked_to, upto);
  if (t.pending.empty()) t.pending.shrink_to_fit();
}

void SelfTimeBuilder::walk_one(Thread& t, const CpuEvent& e) {
  while (!t.stack.empty() && e.start >= t.stack.back().end) pop(t);
  if (e.type == CpuEventType::launch) {
    cb_.on_launch(e, innermost_op(t.stack), t.stack.empty() ? nullptr : &t.stack.back());
    return;
  }
  Frame f = frame_of(e, static_cast<uint32_t>(&t - threads_.data()));
  const Frame* parent_op = innermost_op(t.stack);
  cb_.on_push(f, parent_op, t.stack.empty() ? nullptr : &t.stack.back());
  t.stack.push_back(f);
}

void SelfTimeBuilder::pop(Thread& t) const {
  const Frame f = t.stack.back();
  t.stack.pop_back();
  if (!f.is_op) return;
  cb_.on_pop(f);
  if (Frame* parent = innermost_op(t.stack)) {
    // A child that outlives its parent (rounded timestamps) counts only inside it.
    parent->child_us += std::max(0.0, std::min(f.end, parent->end) - f.start);
    if (f.compute_below || cb_.is_compute(f.proto)) parent->compute_below = true;
    if (f.work_below || !cb_.is_work || cb_.is_work(f.proto)) parent->work_below = true;
  }
}

}  // namespace fomcast::ingest
