#include "sieve/batch_scheduler.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace sieve {
namespace {

using namespace std::chrono_literals;
using Scheduler = BatchScheduler<int, int>;
using Clock = Scheduler::Clock;

// Inputs are their own token counts; outputs are the inputs times ten.
std::vector<int> times_ten(std::span<const int* const> inputs) {
  std::vector<int> out;
  for (const int* x : inputs) out.push_back(*x * 10);
  return out;
}
std::size_t length_of(const int& x) {
  return static_cast<std::size_t>(x);
}

// A gate runs may be held at, to fill the queue behind a run.
struct Gate {
  std::mutex mutex;
  std::condition_variable cv;
  bool open = false;
  std::atomic<int> entered{0};
  void wait() {
    ++entered;
    std::unique_lock lock(mutex);
    cv.wait(lock, [&] { return open; });
  }
  void release() {
    {
      const std::lock_guard lock(mutex);
      open = true;
    }
    cv.notify_all();
  }
};

ErrorCode code_of(std::future<std::vector<int>>& result) {
  try {
    result.get();
  } catch (const Error& e) {
    return e.code();
  }
  ADD_FAILURE() << "no error";
  return ErrorCode::kRuntime;
}

TEST(BatchScheduler, ManyConcurrentRequestsGetTheirOwnOutputsInOrder) {
  std::mutex reports_mutex;
  std::vector<BatchReport> reports;
  SchedulerOptions options;
  options.max_batch_tokens = 64;
  options.max_wait = 1ms;
  Scheduler scheduler(options, times_ten, length_of, [&](const BatchReport& r) {
    const std::lock_guard lock(reports_mutex);
    reports.push_back(r);
  });
  std::vector<std::thread> clients;
  std::atomic<int> wrong{0};
  for (int c = 0; c < 16; ++c) {
    clients.emplace_back([&, c] {
      for (int round = 0; round < 20; ++round) {
        std::vector<int> inputs;
        for (int k = 0; k < 1 + (c + round) % 5; ++k) inputs.push_back(1 + (c * 7 + k * 3 + round) % 12);
        const std::vector<int> expected = [&] {
          std::vector<int> e;
          for (int x : inputs) e.push_back(x * 10);
          return e;
        }();
        auto ticket = scheduler.submit(inputs, Clock::now() + 10s);
        if (ticket.result.get() != expected) ++wrong;
      }
    });
  }
  for (auto& t : clients) t.join();
  EXPECT_EQ(wrong, 0);
  const std::lock_guard lock(reports_mutex);
  std::size_t inputs = 0;
  for (const auto& r : reports) {
    EXPECT_LE(r.padded_tokens, options.max_batch_tokens);
    EXPECT_LE(r.inputs, options.max_batch_size);
    EXPECT_GE(r.padded_tokens, r.tokens);
    inputs += r.inputs;
  }
  EXPECT_LT(reports.size(), inputs) << "no run held more than one input";
}

TEST(BatchScheduler, CoalescesRequestsQueuedTogetherIntoOneRun) {
  std::atomic<int> runs{0};
  SchedulerOptions options;
  options.max_wait = 200ms;  // long enough for all requests to queue
  Scheduler scheduler(
      options,
      [&](std::span<const int* const> inputs) {
        ++runs;
        return times_ten(inputs);
      },
      length_of);
  std::vector<Scheduler::Ticket> tickets;
  for (int i = 0; i < 8; ++i) tickets.push_back(scheduler.submit({4}, Clock::now() + 10s));
  for (auto& t : tickets) EXPECT_EQ(t.result.get(), std::vector<int>{40});
  EXPECT_EQ(runs, 1);
}

TEST(BatchScheduler, KeepsRunsOfSimilarLengthAndWithinTheTokenBudget) {
  std::mutex mutex;
  std::vector<std::vector<int>> runs;
  Gate gate;
  SchedulerOptions options;
  options.max_batch_tokens = 100;
  options.max_wait = 0ms;
  Scheduler scheduler(
      options,
      [&](std::span<const int* const> inputs) {
        std::vector<int> run;
        for (const int* x : inputs) run.push_back(*x);
        if (run == std::vector<int>{1}) gate.wait();  // hold the first run while the rest queue
        const std::lock_guard lock(mutex);
        runs.push_back(run);
        return times_ten(inputs);
      },
      length_of);
  auto first = scheduler.submit({1}, Clock::now() + 10s);
  while (gate.entered == 0) std::this_thread::sleep_for(1ms);
  // Queued behind the held run: short and long inputs, interleaved.
  std::vector<Scheduler::Ticket> tickets;
  for (int i = 0; i < 6; ++i) tickets.push_back(scheduler.submit({i % 2 == 0 ? 5 : 40}, Clock::now() + 10s));
  gate.release();
  for (auto& t : tickets) (void)t.result.get();
  (void)first.result.get();
  const std::lock_guard lock(mutex);
  for (const auto& run : runs) {
    const int longest = *std::max_element(run.begin(), run.end());
    EXPECT_LE(static_cast<std::size_t>(longest) * run.size(), options.max_batch_tokens);
    // 5s and 40s never share a run: the padding would exceed max_padding of the real tokens.
    EXPECT_TRUE(std::all_of(run.begin(), run.end(), [&](int x) { return x == run.front(); }));
  }
}

TEST(BatchScheduler, RefusesWorkBeyondTheQueueLimit) {
  Gate gate;
  SchedulerOptions options;
  options.max_queued = 4;
  options.max_wait = 0ms;
  Scheduler scheduler(
      options,
      [&](std::span<const int* const> inputs) {
        gate.wait();
        return times_ten(inputs);
      },
      length_of);
  auto running = scheduler.submit({1}, Clock::now() + 10s);
  while (gate.entered == 0) std::this_thread::sleep_for(1ms);
  auto queued = scheduler.submit({1, 2, 3}, Clock::now() + 10s);
  try {
    (void)scheduler.submit({1, 2}, Clock::now() + 10s);
    ADD_FAILURE() << "a full queue took more";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kOverloaded);
  }
  EXPECT_THROW((void)scheduler.submit({1, 1, 1, 1, 1}, Clock::now() + 10s), Error);  // can never fit
  gate.release();
  EXPECT_EQ(queued.result.get(), (std::vector<int>{10, 20, 30}));
  EXPECT_EQ(running.result.get(), std::vector<int>{10});
}

TEST(BatchScheduler, DropsExpiredAndCancelledRequestsWithoutRunningThem) {
  Gate gate;
  std::atomic<int> ran{0};
  SchedulerOptions options;
  options.max_wait = 0ms;
  Scheduler scheduler(
      options,
      [&](std::span<const int* const> inputs) {
        if (*inputs[0] == 1) gate.wait();
        ran += static_cast<int>(inputs.size());
        return times_ten(inputs);
      },
      length_of);
  auto running = scheduler.submit({1}, Clock::now() + 10s);
  while (gate.entered == 0) std::this_thread::sleep_for(1ms);
  auto expired = scheduler.submit({7}, Clock::now() + 1ms);
  auto cancelled = scheduler.submit({8}, Clock::now() + 10s);
  cancelled.cancel();
  std::this_thread::sleep_for(5ms);
  gate.release();
  (void)running.result.get();
  EXPECT_EQ(code_of(expired.result), ErrorCode::kTimeout);
  scheduler.stop();
  EXPECT_EQ(ran, 1) << "an expired or cancelled input ran";
}

TEST(BatchScheduler, AFailedRunFailsItsRequestsOnly) {
  SchedulerOptions options;
  options.max_wait = 0ms;
  Scheduler scheduler(
      options,
      [](std::span<const int* const> inputs) -> std::vector<int> {
        for (const int* x : inputs) {
          if (*x == 13) throw Error(ErrorCode::kRuntime, "unlucky");
        }
        return times_ten(inputs);
      },
      length_of);
  auto bad = scheduler.submit({13}, Clock::now() + 10s);
  EXPECT_EQ(code_of(bad.result), ErrorCode::kRuntime);
  auto good = scheduler.submit({2}, Clock::now() + 10s);
  EXPECT_EQ(good.result.get(), std::vector<int>{20});
}

TEST(BatchScheduler, StopRunsWhatIsQueuedThenRefusesNewWork) {
  SchedulerOptions options;
  options.max_wait = 50ms;
  Scheduler scheduler(options, times_ten, length_of);
  auto queued = scheduler.submit({3, 4}, Clock::now() + 10s);
  scheduler.stop();
  EXPECT_EQ(queued.result.get(), (std::vector<int>{30, 40}));
  try {
    (void)scheduler.submit({1}, Clock::now() + 10s);
    ADD_FAILURE() << "a stopped scheduler took work";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kOverloaded);
  }
}

TEST(BatchScheduler, TheOldestInputIsNeverLeftBehindByShorterOnes) {
  // A long input first, then a stream of short ones: the long one is in
  // the first run even though the short ones sort before it.
  Gate gate;
  std::mutex mutex;
  std::vector<std::vector<int>> runs;
  SchedulerOptions options;
  options.max_wait = 0ms;
  options.max_batch_tokens = 50;
  Scheduler scheduler(
      options,
      [&](std::span<const int* const> inputs) {
        if (*inputs[0] == 1 && inputs.size() == 1) gate.wait();
        std::vector<int> run;
        for (const int* x : inputs) run.push_back(*x);
        const std::lock_guard lock(mutex);
        runs.push_back(run);
        return times_ten(inputs);
      },
      length_of);
  auto holder = scheduler.submit({1}, Clock::now() + 10s);
  while (gate.entered == 0) std::this_thread::sleep_for(1ms);
  auto long_one = scheduler.submit({30}, Clock::now() + 10s);
  std::vector<Scheduler::Ticket> shorts;
  for (int i = 0; i < 20; ++i) shorts.push_back(scheduler.submit({2}, Clock::now() + 10s));
  gate.release();
  (void)long_one.result.get();
  for (auto& t : shorts) (void)t.result.get();
  (void)holder.result.get();
  const std::lock_guard lock(mutex);
  ASSERT_GE(runs.size(), 2U);
  EXPECT_EQ(runs[1], std::vector<int>{30}) << "the first run after the held one is not the oldest input's";
}

}  // namespace
}  // namespace sieve
