#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <numeric>
#include <span>
#include <thread>
#include <utility>
#include <vector>

#include "sieve/error.hpp"

namespace sieve {

struct SchedulerOptions {
  // Upper bound on the tokens of one model run, padding included (inputs x
  // the longest input): what bounds the run's memory and latency.
  std::size_t max_batch_tokens = 16384;
  std::size_t max_batch_size = 256;  // inputs per run
  // How long the oldest queued input may wait for others to share its run.
  std::chrono::microseconds max_wait{2000};
  // Inputs queued at most; a request that would go over is refused at once
  // (ErrorCode::kOverloaded) instead of growing memory without bound.
  std::size_t max_queued = 8192;
  std::size_t workers = 1;  // threads running batches
  // Padding a run may add, as a fraction of its real tokens. On a CPU a run
  // costs about its padded tokens, so runs of similar length beat big runs.
  double max_padding = 0.05;
};

// What one run did, for metrics.
struct BatchReport {
  std::size_t inputs = 0;
  std::size_t tokens = 0;         // real tokens
  std::size_t padded_tokens = 0;  // inputs x longest
  double wait_seconds = 0;        // of the oldest input, from submit to run
  double run_seconds = 0;
};

// Dynamic batching across requests. Requests are submitted as lists of
// inputs (already tokenized, on the caller's thread); worker threads
// coalesce the queued inputs of all requests into runs of similar length
// under a token budget and hand each run to `run`. It knows nothing of
// where requests come from (HTTP or otherwise) nor of models: `run` and
// `length` are its whole contract with the backend.
template <class Input, class Output>
class BatchScheduler {
 public:
  // One output per input, in the order given. Called on a worker thread;
  // an exception fails every request with an input in the run.
  using RunBatch = std::function<std::vector<Output>(std::span<const Input* const>)>;
  using Length = std::function<std::size_t(const Input&)>;
  using Observer = std::function<void(const BatchReport&)>;
  using Clock = std::chrono::steady_clock;

 private:
  struct Job {
    std::vector<Input> inputs;
    std::vector<Output> outputs;
    std::promise<std::vector<Output>> promise;
    Clock::time_point deadline;
    std::size_t remaining = 0;       // guarded by the scheduler's mutex
    std::atomic<bool> done = false;  // the promise is set
    std::atomic<bool> cancelled = false;

    void fail(std::exception_ptr error) {
      if (!done.exchange(true)) promise.set_exception(std::move(error));
    }
  };

 public:
  // A submitted request: its result, and a way to give it up (a client that
  // went away, a handler that stopped waiting) so its queued inputs are dropped.
  class Ticket {
   public:
    std::future<std::vector<Output>> result;
    void cancel() const {
      if (job_) job_->cancelled = true;
    }

   private:
    friend class BatchScheduler;
    std::shared_ptr<Job> job_;
  };

  BatchScheduler(SchedulerOptions options, RunBatch run, Length length, Observer observer = {})
      : options_(options), run_(std::move(run)), length_(std::move(length)), observer_(std::move(observer)) {
    if (options_.max_batch_tokens == 0 || options_.max_batch_size == 0 || options_.workers == 0 ||
        options_.max_queued == 0) {
      throw Error(ErrorCode::kInvalidArgument, "scheduler limits must be at least 1");
    }
    for (std::size_t i = 0; i < options_.workers; ++i) workers_.emplace_back([this] { work(); });
  }
  BatchScheduler(const BatchScheduler&) = delete;
  BatchScheduler& operator=(const BatchScheduler&) = delete;
  ~BatchScheduler() { stop(); }

  // Queues a request. Throws Error kOverloaded when the queue has no room
  // for its inputs or the scheduler is stopping, kInvalidArgument when it
  // has more inputs than the queue can ever hold. The future then holds the
  // outputs in input order, or the run's exception, or Error kTimeout when
  // `deadline` passed with inputs still queued.
  Ticket submit(std::vector<Input> inputs, Clock::time_point deadline) {
    auto job = std::make_shared<Job>();
    Ticket ticket;
    ticket.result = job->promise.get_future();
    ticket.job_ = job;
    const std::size_t n = inputs.size();
    if (n > options_.max_queued) {
      throw Error(ErrorCode::kInvalidArgument, std::to_string(n) + " inputs in one request, more than the " +
                                                   std::to_string(options_.max_queued) + " the queue holds");
    }
    if (n == 0) {
      job->done = true;
      job->promise.set_value({});
      return ticket;
    }
    job->inputs = std::move(inputs);
    job->outputs.resize(n);
    job->deadline = deadline;
    job->remaining = n;
    {
      const std::lock_guard lock(mutex_);
      if (stopping_) throw Error(ErrorCode::kOverloaded, "the service is shutting down");
      if (pending_.size() + n > options_.max_queued) {
        throw Error(ErrorCode::kOverloaded, "the queue is full (" + std::to_string(pending_.size()) + " of " +
                                                std::to_string(options_.max_queued) + " inputs queued)");
      }
      const auto now = Clock::now();
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t tokens = std::max<std::size_t>(length_(job->inputs[i]), 1);
        pending_.push_back({job, i, tokens, now});
        queued_tokens_ += tokens;
      }
    }
    wake_.notify_all();
    return ticket;
  }

  // Stops taking requests, runs what is queued, and joins the workers.
  void stop() {
    {
      const std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& worker : workers_) {
      if (worker.joinable()) worker.join();
    }
  }

  // Inputs queued, not yet taken into a run.
  [[nodiscard]] std::size_t queued() const {
    const std::lock_guard lock(mutex_);
    return pending_.size();
  }
  [[nodiscard]] const SchedulerOptions& options() const noexcept { return options_; }

 private:
  struct Pending {
    std::shared_ptr<Job> job;
    std::size_t index = 0;
    std::size_t tokens = 0;
    Clock::time_point enqueued;
  };

  void work() {
    std::unique_lock lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return stopping_ || !pending_.empty(); });
      if (pending_.empty()) return;  // stopping, and nothing left to run
      // Give the oldest input company unless a run is already full.
      const auto until = pending_.front().enqueued + options_.max_wait;
      while (!stopping_ && !pending_.empty() && queued_tokens_ < options_.max_batch_tokens &&
             pending_.size() < options_.max_batch_size && Clock::now() < until) {
        wake_.wait_until(lock, until);
      }
      drop_abandoned();
      if (pending_.empty()) continue;
      std::vector<Pending> batch = take_batch();
      lock.unlock();
      run_batch(batch);
      batch.clear();  // the jobs' last references may go here, outside the lock
      lock.lock();
    }
  }

  // Inputs of requests that were cancelled, failed or ran out of time never run.
  void drop_abandoned() {
    const auto now = Clock::now();
    std::size_t kept = 0;
    for (std::size_t i = 0; i < pending_.size(); ++i) {
      Pending& p = pending_[i];
      const bool expired = now >= p.job->deadline;
      if (p.job->done || p.job->cancelled || expired) {
        if (expired) {
          p.job->fail(std::make_exception_ptr(
              Error(ErrorCode::kTimeout, "the request's deadline passed while its inputs were queued")));
        }
        queued_tokens_ -= p.tokens;
        continue;
      }
      if (kept != i) pending_[kept] = std::move(p);
      ++kept;
    }
    pending_.resize(kept);
  }

  // The run: the oldest queued input (so none starves) and the inputs
  // closest to it in length, added while padding stays within max_padding
  // of the real tokens and the run within the token budget. Attention grows with the
  // square of the padded length, so a few long inputs must not drag many
  // short ones up to their size.
  std::vector<Pending> take_batch() {
    std::vector<std::size_t> by_length(pending_.size());
    std::iota(by_length.begin(), by_length.end(), std::size_t{0});
    // pending_ is in arrival order, so a stable sort keeps arrival order among equal lengths.
    std::stable_sort(by_length.begin(), by_length.end(),
                     [&](std::size_t a, std::size_t b) { return pending_[a].tokens < pending_[b].tokens; });
    const auto anchor = static_cast<std::size_t>(std::find(by_length.begin(), by_length.end(), 0) - by_length.begin());
    std::size_t lo = anchor;
    std::size_t hi = anchor + 1;  // [lo, hi) of by_length
    std::size_t real = pending_[0].tokens;
    const auto fits = [&](std::size_t count, std::size_t longest, std::size_t tokens) {
      const std::size_t padded = count * longest;
      return count <= options_.max_batch_size && padded <= options_.max_batch_tokens &&
             static_cast<double>(padded - tokens) <= options_.max_padding * static_cast<double>(tokens);
    };
    for (;;) {
      const std::size_t count = hi - lo;
      const std::size_t longest = pending_[by_length[hi - 1]].tokens;
      const bool can_left = lo > 0 && fits(count + 1, longest, real + pending_[by_length[lo - 1]].tokens);
      const bool can_right = hi < by_length.size() &&
                             fits(count + 1, pending_[by_length[hi]].tokens, real + pending_[by_length[hi]].tokens);
      if (!can_left && !can_right) break;
      // Take the side that adds less padding.
      bool take_left = can_left;
      if (can_left && can_right) {
        const std::size_t left_pad = longest - pending_[by_length[lo - 1]].tokens;
        const std::size_t right_pad = (pending_[by_length[hi]].tokens - longest) * count;
        take_left = left_pad <= right_pad;
      }
      if (take_left) {
        --lo;
        real += pending_[by_length[lo]].tokens;
      } else {
        real += pending_[by_length[hi]].tokens;
        ++hi;
      }
    }
    std::vector<bool> chosen(pending_.size(), false);
    for (std::size_t k = lo; k < hi; ++k) chosen[by_length[k]] = true;
    std::vector<Pending> batch;
    batch.reserve(hi - lo);
    // In length order: the run's rows, shortest first.
    for (std::size_t k = lo; k < hi; ++k) batch.push_back(pending_[by_length[k]]);
    std::size_t kept = 0;
    for (std::size_t i = 0; i < pending_.size(); ++i) {
      if (chosen[i]) {
        queued_tokens_ -= pending_[i].tokens;
        continue;
      }
      if (kept != i) pending_[kept] = std::move(pending_[i]);
      ++kept;
    }
    pending_.resize(kept);
    return batch;
  }

  void run_batch(std::vector<Pending>& batch) {
    BatchReport report;
    report.inputs = batch.size();
    const auto start = Clock::now();
    std::vector<const Input*> inputs;
    inputs.reserve(batch.size());
    std::size_t longest = 0;
    auto oldest = start;
    for (const Pending& p : batch) {
      inputs.push_back(&p.job->inputs[p.index]);
      report.tokens += p.tokens;
      longest = std::max(longest, p.tokens);
      oldest = std::min(oldest, p.enqueued);
    }
    report.padded_tokens = longest * batch.size();
    report.wait_seconds = std::chrono::duration<double>(start - oldest).count();
    try {
      std::vector<Output> outputs = run_(inputs);
      if (outputs.size() != batch.size()) {
        throw Error(ErrorCode::kRuntime, "a run returned " + std::to_string(outputs.size()) + " outputs for " +
                                             std::to_string(batch.size()) + " inputs");
      }
      report.run_seconds = std::chrono::duration<double>(Clock::now() - start).count();
      std::vector<Job*> finished;
      {
        const std::lock_guard lock(mutex_);
        for (std::size_t k = 0; k < batch.size(); ++k) {
          Job& job = *batch[k].job;
          job.outputs[batch[k].index] = std::move(outputs[k]);
          if (--job.remaining == 0) finished.push_back(&job);
        }
      }
      for (Job* job : finished) {
        if (!job->done.exchange(true)) job->promise.set_value(std::move(job->outputs));
      }
    } catch (...) {
      report.run_seconds = std::chrono::duration<double>(Clock::now() - start).count();
      const auto error = std::current_exception();
      for (Pending& p : batch) p.job->fail(error);
    }
    if (observer_) observer_(report);
  }

  SchedulerOptions options_;
  RunBatch run_;
  Length length_;
  Observer observer_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<Pending> pending_;  // arrival order
  std::size_t queued_tokens_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace sieve
