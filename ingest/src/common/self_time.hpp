// The self-time builder: per thread, CPU events are put in start order and walked with a
// stack, so every event knows its enclosing events. That gives exclusive (self) time
// (duration minus the nested children, so nested ops never count twice), the innermost
// op around each kernel launch, and the scope (autograd backward, optimizer step) an op
// runs in.
//
// Traces are not written in start order: Kineto writes all CPU ops before the GPU section
// (where the launch calls sit), and older versions write parents after their children.
// Events are therefore buffered per thread and sorted before the walk. The buffer is
// bounded: past `max_buffered` events the oldest half (by start time, over all threads)
// is walked early; an event that arrives later than that, start-wise, is counted without
// nesting (a "straggler", reported). Open frames (ops not yet ended) stay on the stack
// across such partial walks.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace fomcast::ingest {

enum class CpuEventType : uint8_t { op, annotation, launch };

// 32 bytes: the trace events are reduced to this while streaming.
struct CpuEvent {
  double start = 0, end = 0;  // microseconds
  uint32_t proto = 0;         // the reader's prototype id (name and recorded inputs)
  CpuEventType type = CpuEventType::op;
  int64_t correlation = -1;  // launches: the runtime call's correlation id
};

struct Frame {
  double start = 0, end = 0;
  uint32_t proto = 0;
  uint32_t slot = 0;    // the reader's accumulation slot (set by on_push)
  uint32_t thread = 0;  // the thread index given to add()
  uint8_t scope = 0;    // the reader's scope code (phase), inherited by children
  bool is_op = false;
  bool launched = false;       // a kernel / copy launch happened inside, not in a nested op
  bool compute_below = false;  // a GEMM/conv op ran nested inside
  bool work_below = false;     // an op that moves data (not a view or an allocation) ran nested inside
  double child_us = 0;         // summed durations of the nearest nested ops
};

struct SelfTimeCallbacks {
  // A frame is opened: set frame.slot and frame.scope. parent_op: the innermost enclosing
  // op (or null); parent: the innermost enclosing frame of any type (or null).
  std::function<void(Frame& frame, const Frame* parent_op, const Frame* parent)> on_push;
  // An op frame is closed: exclusive time is end - start - child_us.
  std::function<void(const Frame& frame)> on_pop;
  // A launch: op is the innermost enclosing op (may be null), top the innermost frame.
  std::function<void(const CpuEvent& launch, Frame* op, const Frame* top)> on_launch;
  // Whether an op's proto is a GEMM/conv family op (for compute_below).
  std::function<bool(uint32_t proto)> is_compute;
  // Whether an op's proto does work of its own, as views and allocations do not (for
  // work_below); unset: every op does.
  std::function<bool(uint32_t proto)> is_work;
};

class SelfTimeBuilder {
 public:
  SelfTimeBuilder(SelfTimeCallbacks callbacks, std::size_t max_buffered);

  void add(uint32_t thread, const CpuEvent& e);
  // Walks everything still buffered and closes all frames.
  void finish();
  // Walks the older half of what is buffered (by start time, over all threads).
  void walk_oldest_half();

  int64_t stragglers() const { return stragglers_; }
  int64_t partial_walks() const { return partial_walks_; }
  std::size_t buffered() const { return buffered_; }

 private:
  struct Thread {
    std::vector<CpuEvent> pending;
    std::vector<Frame> stack;
    double walked_to = -1e300;  // events starting before this were already walked
  };
  void walk(Thread& t, double before);
  void walk_one(Thread& t, const CpuEvent& e);
  void pop(Thread& t) const;

  SelfTimeCallbacks cb_;
  std::size_t max_buffered_;
  std::size_t buffered_ = 0;
  std::vector<Thread> threads_;
  int64_t stragglers_ = 0;
  int64_t partial_walks_ = 0;
};

}  // namespace fomcast::ingest
