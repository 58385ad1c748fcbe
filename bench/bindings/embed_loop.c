/* The bindings benchmark's loop through the C ABI (sieve.h), in plain C:
   what the Go and Zig bindings add their own overhead to. Same protocol as
   embed_loop.cpp (README.md). */
#define _POSIX_C_SOURCE 200809L
#include <sieve.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int compare_doubles(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* As bench_util.hpp's percentile: linear between the closest ranks. */
static double percentile(const double* sorted, size_t n, double p) {
  const double rank = p / 100.0 * (double)(n - 1);
  const size_t lo = (size_t)rank;
  const size_t hi = lo + 1 < n ? lo + 1 : n - 1;
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - (double)lo);
}

static int fail_status(sieve_status* status) {
  fprintf(stderr, "embed_loop_c: %s\n", sieve_status_message(status));
  sieve_status_destroy(status);
  return 1;
}

int main(int argc, char** argv) {
  const char* model_dir = NULL;
  const char* texts_path = NULL;
  size_t batch = 1, calls = 1000, warmup = 50;
  int threads = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--model"))
      model_dir = argv[i + 1];
    else if (!strcmp(argv[i], "--texts"))
      texts_path = argv[i + 1];
    else if (!strcmp(argv[i], "--batch"))
      batch = strtoul(argv[i + 1], NULL, 10);
    else if (!strcmp(argv[i], "--calls"))
      calls = strtoul(argv[i + 1], NULL, 10);
    else if (!strcmp(argv[i], "--warmup"))
      warmup = strtoul(argv[i + 1], NULL, 10);
    else if (!strcmp(argv[i], "--threads"))
      threads = atoi(argv[i + 1]);
    else {
      fprintf(stderr, "embed_loop_c: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  if (!model_dir || !texts_path || batch == 0 || calls == 0) {
    fprintf(stderr,
            "usage: embed_loop_c --model DIR --texts FILE [--batch N] [--calls K] [--warmup W] [--threads T]\n");
    return 2;
  }

  /* The whole file in memory, split into lines in place. */
  FILE* file = fopen(texts_path, "rb");
  if (!file) {
    perror(texts_path);
    return 1;
  }
  fseek(file, 0, SEEK_END);
  const long file_size = ftell(file);
  fseek(file, 0, SEEK_SET);
  char* content = malloc((size_t)file_size + 1);
  size_t line_count = 0;
  sieve_text* lines = malloc(((size_t)file_size + 1) * sizeof *lines);
  if (!content || !lines || fread(content, 1, (size_t)file_size, file) != (size_t)file_size) {
    fprintf(stderr, "embed_loop_c: cannot read %s\n", texts_path);
    return 1;
  }
  fclose(file);
  for (long start = 0, i = 0; i <= file_size; ++i) {
    if (i == file_size || content[i] == '\n') {
      if (i > start) lines[line_count++] = (sieve_text){content + start, (size_t)(i - start)};
      start = i + 1;
    }
  }
  if (line_count == 0) {
    fprintf(stderr, "embed_loop_c: %s has no lines\n", texts_path);
    return 1;
  }

  sieve_status* status = sieve_set_log_level("warn");
  if (status) return fail_status(status);
  sieve_model_options options;
  sieve_model_options_init(&options, sizeof options);
  options.intra_op_threads = threads;
  options.batch_size = batch;
  sieve_model* model = NULL;
  status = sieve_model_load(model_dir, &options, &model);
  if (status) return fail_status(status);
  size_t floats = 0;
  status = sieve_embed_size(model, batch, &floats);
  if (status) return fail_status(status);
  float* vectors = malloc(floats * sizeof *vectors);
  sieve_text* texts = malloc(batch * sizeof *texts);
  double* seconds = malloc(calls * sizeof *seconds);
  if (!vectors || !texts || !seconds) return 1;

  double total = 0;
  for (size_t call = 0; call < warmup + calls; ++call) {
    for (size_t j = 0; j < batch; ++j) texts[j] = lines[(call * batch + j) % line_count];
    const double start = now_seconds();
    status = sieve_embed(model, texts, batch, vectors, floats);
    const double elapsed = now_seconds() - start;
    if (status) return fail_status(status);
    if (call >= warmup) {
      seconds[call - warmup] = elapsed;
      total += elapsed;
    }
  }
  qsort(seconds, calls, sizeof *seconds, compare_doubles);
  printf(
      "{\"impl\":\"c\",\"batch\":%zu,\"calls\":%zu,\"median_ms\":%.6f,\"p99_ms\":%.6f,\"sentences_per_s\":%.3f,"
      "\"first_value\":%.9g}\n",
      batch, calls, 1e3 * percentile(seconds, calls, 50), 1e3 * percentile(seconds, calls, 99),
      (double)(batch * calls) / total, (double)vectors[0]);
  free(vectors);
  free(texts);
  free(seconds);
  free(lines);
  free(content);
  sieve_model_destroy(model);
  return 0;
}
