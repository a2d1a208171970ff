// The self-time builder: exclusive times, launch attribution and scopes from nesting, the
// same whether events come in start order, children first (PyTorch 1.9) or in bounded
// windows; and late events counted without nesting.
#include <doctest/doctest.h>

#include <map>
#include <random>

#include "common/self_time.hpp"

using namespace fomcast::ingest;

namespace {

// Records what the builder reports: exclusive time per proto, launches per proto.
struct Recorder {
  std::map<uint32_t, double> exclusive;
  std::map<uint32_t, int> launches;  // enclosing op's proto -> launches
  std::map<uint32_t, int> depth;     // proto -> number of enclosing frames when pushed
  int unattributed = 0;
  SelfTimeCallbacks callbacks() {
    SelfTimeCallbacks cb;
    cb.on_push = [this](Frame& f, const Frame* parent_op, const Frame* parent) {
      f.slot = f.proto;
      f.scope = parent ? static_cast<uint8_t>(parent->scope + 1) : 0;
      depth[f.proto] = f.scope;
      (void)parent_op;
    };
    cb.on_pop = [this](const Frame& f) { exclusive[f.proto] += (f.end - f.start) - f.child_us; };
    cb.on_launch = [this](const CpuEvent&, Frame* op, const Frame*) {
      if (op)
        ++launches[op->proto];
      else
        ++unattributed;
    };
    cb.is_compute = [](uint32_t) { return false; };
    return cb;
  }
};

CpuEvent op(double s, double e, uint32_t proto) { return CpuEvent{s, e, proto, CpuEventType::op, -1}; }
CpuEvent launch(double at, int64_t corr) { return CpuEvent{at, at + 1, 0, CpuEventType::launch, corr}; }

}  // namespace

TEST_CASE("self time: nested ops never count twice, in any arrival order") {
  // Op 1 [0, 100) holds op 2 [10, 30) and op 3 [40, 60); a launch at 45 is op 3's;
  // annotation 9 [35, 70) sits between 1 and 3 and is transparent to self time.
  const std::vector<CpuEvent> events = {op(0, 100, 1), op(10, 30, 2), {35, 70, 9, CpuEventType::annotation, -1},
                                        op(40, 60, 3), launch(45, 7), op(200, 210, 4)};
  std::vector<std::vector<CpuEvent>> orders = {events,
                                               {events[1], events[4], events[3], events[2], events[0], events[5]}};
  std::mt19937 rng(7);
  for (int i = 0; i < 5; ++i) {
    auto shuffled = events;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    orders.push_back(shuffled);
  }
  for (const auto& order : orders) {
    Recorder r;
    SelfTimeBuilder b(r.callbacks(), 1000);
    for (const auto& e : order) b.add(0, e);
    b.finish();
    CHECK(r.exclusive[1] == doctest::Approx(100 - 20 - 20));
    CHECK(r.exclusive[2] == doctest::Approx(20));
    CHECK(r.exclusive[3] == doctest::Approx(20));
    CHECK(r.exclusive[4] == doctest::Approx(10));
    CHECK(r.launches[3] == 1);
    CHECK(r.depth[3] == 2);  // inside op 1 and the annotation
    CHECK(b.stragglers() == 0);
  }
}

TEST_CASE("self time: bounded windows give the same answer; late events are counted flat") {
  // 2000 top-level ops, each with one child and one launch, on two threads.
  std::vector<std::pair<uint32_t, CpuEvent>> events;
  for (int i = 0; i < 2000; ++i) {
    const double t = i * 100.0;
    for (uint32_t th = 0; th < 2; ++th) {
      events.push_back({th, op(t, t + 50, 1)});
      events.push_back({th, op(t + 10, t + 20, 2)});
      events.push_back({th, launch(t + 12, i)});
    }
  }
  Recorder whole, windowed;
  SelfTimeBuilder a(whole.callbacks(), 1'000'000), b(windowed.callbacks(), 64);
  for (const auto& [th, e] : events) {
    a.add(th, e);
    b.add(th, e);
  }
  a.finish();
  b.finish();
  CHECK(b.partial_walks() > 10);
  CHECK(b.stragglers() == 0);
  CHECK(windowed.exclusive == whole.exclusive);
  CHECK(windowed.launches == whole.launches);
  CHECK(whole.exclusive[1] == doctest::Approx(2 * 2000 * 40.0));
  CHECK(whole.launches[2] == 4000);
  // An op arriving after its time was walked: counted, without nesting.
  b.add(0, op(5, 15, 5));
  CHECK(b.stragglers() == 1);
  CHECK(windowed.exclusive[5] == doctest::Approx(10));
}
