/*
 * capi_test.c: the C ABI (include/sieve.h) exercised from plain C99: every
 * function, every error path the header documents, the option structs as an
 * older caller fills them, and handles' lifetimes (registry models outliving
 * the registry, destroy(NULL)). The search checks read an index that the sieve
 * command beside this program (or $SIEVE_BIN) builds; without one they are
 * skipped with a note.
 *
 * Usage: sieve_capi_test [--source DIR] [--fixtures DIR] [--fast] [--part K/N] [--loop N | --leak-on-purpose]
 *   --source DIR    the repository root (default: $SIEVE_SOURCE_DIR, else ".")
 *   --fixtures DIR  fixture models (default: $SIEVE_FIXTURES_DIR, else
 *                   SOURCE/build/fixtures; made by tools/make_fixtures.py and
 *                   tools/make_cross_encoder.py). The sparse checks use
 *                   FIXTURES/splade-tiny (tiny-splade with --fast): skipped with a note without it,
 *                   unless SIEVE_TEST_TIER is set (scripts/test.sh, CI)
 *   --fast          tiny fixture models only (for valgrind): the embedding and
 *                   reranking checks run on tiny-bert-tokens and
 *                   cross-encoder-tiny-3labels instead of all-MiniLM-L6-v2 and
 *                   cross-encoder-minilm-l6
 *   --part K/N      only the K-th of N shares of the sections of checks (every
 *                   N-th section from the K-th): valgrind's fast tier runs one
 *                   share per commit, drawn by the commit, the full tier all
 *   --loop N        only load, use and destroy models and tokenizers (with
 *                   their encodings, sparse vectors, decoded strings and
 *                   errors) N times, for leak measurements
 *   --leak-on-purpose  only drop a status, a model and a tokenizer without
 *                   destroying them: shows that the leak checks (and their
 *                   suppressions) catch handles a caller forgets
 *
 * Expected values come from outside the library wherever one exists: the
 * vocabulary from vocab.txt, the version from CMakeLists.txt, the pooling from
 * the folder's 1_Pooling/config.json, token texts from slices of the input.
 * Elsewhere results are compared between calls that must agree (a batch and
 * its texts one by one, normalized and raw vectors). Bit-for-bit agreement
 * with the command line and Hugging Face parity are checked by
 * tests/integration/test_capi.py.
 *
 * Each CHECK reports file:line and carries on; the exit status is 1 when any
 * failed, 2 on a usage or set-up error.
 */
#define _XOPEN_SOURCE 700 /* mkdtemp, symlink, nftw, realpath */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sieve.h"

/* ---- Harness --------------------------------------------------------------- */

static long g_checks = 0;
static long g_failures = 0;

static int check_at(int ok, const char* what, const char* file, int line) {
  ++g_checks;
  if (!ok) {
    ++g_failures;
    fprintf(stderr, "%s:%d: CHECK failed: %s\n", file, line, what);
  }
  return ok;
}

/* Evaluates to the truth of cond, so a caller can skip checks that depend on it. */
#define CHECK(cond) check_at((cond) ? 1 : 0, #cond, __FILE__, __LINE__)

/* The expected names come from the enum's identifiers (lowercased in
   test_status), not from the library. */
#define SIEVE_CODES(X) \
  X(OK)                \
  X(INVALID_ARGUMENT)  \
  X(INVALID_INPUT)     \
  X(NOT_FOUND)         \
  X(PARSE)             \
  X(UNSUPPORTED)       \
  X(RUNTIME)           \
  X(WRONG_KIND)        \
  X(BUFFER_TOO_SMALL)  \
  X(OUT_OF_MEMORY)     \
  X(INTERNAL)

struct code_entry {
  sieve_status_code code;
  const char* identifier;
};
#define CODE_ENTRY(name) {SIEVE_##name, #name},
static const struct code_entry kCodes[] = {SIEVE_CODES(CODE_ENTRY)};
#define CODE_COUNT (sizeof kCodes / sizeof kCodes[0])

static const char* code_identifier(sieve_status_code code) {
  size_t i;
  for (i = 0; i < CODE_COUNT; ++i) {
    if (kCodes[i].code == code) return kCodes[i].identifier;
  }
  return "(not a sieve_status_code)";
}

/* Checks that `status` carries `want` (NULL for SIEVE_OK, as the header
   promises; an error with a message) and returns it for further checks, or
   NULL when it was NULL. The caller destroys what is returned. */
static sieve_status* expect_keep_at(sieve_status* status, sieve_status_code want, const char* call, const char* file,
                                    int line) {
  const sieve_status_code got = sieve_status_get_code(status);
  ++g_checks;
  if (got != want || (want == SIEVE_OK && status != NULL)) {
    ++g_failures;
    fprintf(stderr, "%s:%d: %s: expected SIEVE_%s, got SIEVE_%s%s%s\n", file, line, call, code_identifier(want),
            code_identifier(got), status ? ": " : "", status ? sieve_status_message(status) : "");
  } else if (status != NULL && sieve_status_message(status)[0] == '\0') {
    ++g_failures;
    fprintf(stderr, "%s:%d: %s: SIEVE_%s without a message\n", file, line, call, code_identifier(got));
  }
  return status;
}

static int expect_at(sieve_status* status, sieve_status_code want, const char* call, const char* file, int line) {
  const long failures = g_failures;
  sieve_status_destroy(expect_keep_at(status, want, call, file, line));
  return g_failures == failures;
}

/* EXPECT_CODE(call, code) and EXPECT_OK(call) evaluate to 1 when the status
   was as expected; the status is destroyed. EXPECT_KEEP returns it. */
#define EXPECT_CODE(call, code) expect_at((call), (code), #call, __FILE__, __LINE__)
#define EXPECT_OK(call) EXPECT_CODE(call, SIEVE_OK)
#define EXPECT_KEEP(call, code) expect_keep_at((call), (code), #call, __FILE__, __LINE__)

/* One of two codes where the header leaves the choice open; the code seen is
   printed so a report can say which. */
static int expect_either_at(sieve_status* status, sieve_status_code a, sieve_status_code b, const char* call,
                            const char* file, int line) {
  const sieve_status_code got = sieve_status_get_code(status);
  const int ok = status != NULL && (got == a || got == b);
  check_at(ok, call, file, line);
  if (!ok) {
    fprintf(stderr, "  expected SIEVE_%s or SIEVE_%s, got SIEVE_%s %s\n", code_identifier(a), code_identifier(b),
            code_identifier(got), sieve_status_message(status));
  }
  sieve_status_destroy(status);
  return ok;
}
#define EXPECT_EITHER(call, a, b) expect_either_at((call), (a), (b), #call, __FILE__, __LINE__)

/* ---- Helpers --------------------------------------------------------------- */

/* A text from a literal, NUL bytes included: TEXT_LIT("a\0b") has size 3. */
#define TEXT_LIT(literal) make_text((literal), sizeof(literal) - 1)

static sieve_text make_text(const char* data, size_t size) {
  sieve_text text;
  text.data = data;
  text.size = size;
  return text;
}

static sieve_text cstr(const char* s) {
  return make_text(s, strlen(s));
}

typedef struct config {
  char source[PATH_MAX];
  char fixtures[PATH_MAX];
  char tmp[PATH_MAX];       /* a fresh mkdtemp folder, removed at the end */
  char embedder[PATH_MAX];  /* the embedding model the main checks use */
  char reranker[PATH_MAX];  /* the cross-encoder the main checks use */
  char tokenizer[PATH_MAX]; /* a folder with tokenizer.json and its vocab.txt */
  int fast;
  long part, parts; /* --part K/N (0/0: every section) */
  long section;     /* sections met so far */
  long loop;
  int leak_on_purpose;
} config;

static void join(char* out, size_t size, const char* a, const char* b) {
  const int n = snprintf(out, size, "%s/%s", a, b);
  if (n < 0 || (size_t)n >= size) {
    fprintf(stderr, "path too long: %s/%s\n", a, b);
    exit(2);
  }
}

static int exists(const char* path) {
  struct stat st;
  return stat(path, &st) == 0;
}

static int same_file(const char* a, const char* b) {
  struct stat sa, sb;
  if (a == NULL || b == NULL || stat(a, &sa) != 0 || stat(b, &sb) != 0) return 0;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static long file_size(const char* path) {
  struct stat st;
  return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* The whole file, NUL-terminated, malloc'ed; NULL when unreadable. */
static char* read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  char* data = NULL;
  size_t used = 0, capacity = 0, n;
  if (f == NULL) return NULL;
  do {
    if (capacity - used < 65536) {
      char* grown = realloc(data, capacity + 65536 + 1);
      if (grown == NULL) {
        free(data);
        fclose(f);
        return NULL;
      }
      data = grown;
      capacity += 65536;
    }
    n = fread(data + used, 1, capacity - used, f);
    used += n;
  } while (n > 0);
  fclose(f);
  data[used] = '\0';
  if (size) *size = used;
  return data;
}

static int write_file(const char* path, const char* data, size_t size) {
  FILE* f = fopen(path, "wb");
  int ok;
  if (f == NULL) return 0;
  ok = fwrite(data, 1, size, f) == size;
  return fclose(f) == 0 && ok;
}

/* A folder `to` whose entries are symbolic links to those of `from`: a copy
   of a model folder without copying the weights (the registry allows links
   inside a model folder, not the folder itself being one). */
static int link_folder(const char* from, const char* to) {
  char real[PATH_MAX], src[PATH_MAX], dst[PATH_MAX];
  DIR* dir;
  struct dirent* entry;
  int ok = 1;
  if (realpath(from, real) == NULL || mkdir(to, 0755) != 0) return 0;
  dir = opendir(real);
  if (dir == NULL) return 0;
  while ((entry = readdir(dir)) != NULL) {
    if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) continue;
    join(src, sizeof src, real, entry->d_name);
    join(dst, sizeof dst, to, entry->d_name);
    if (symlink(src, dst) != 0) ok = 0;
  }
  closedir(dir);
  return ok;
}

static int remove_entry(const char* path, const struct stat* st, int type, struct FTW* ftw) {
  (void)st;
  (void)type;
  (void)ftw;
  return remove(path);
}

static float max_abs_diff(const float* a, const float* b, size_t n) {
  float worst = 0.0f;
  size_t i;
  for (i = 0; i < n; ++i) {
    const float d = fabsf(a[i] - b[i]);
    if (!(d <= worst)) worst = d; /* NaN counts as the worst */
  }
  return worst;
}

static double norm(const float* v, size_t n) {
  double sum = 0.0;
  size_t i;
  for (i = 0; i < n; ++i) sum += (double)v[i] * v[i];
  return sqrt(sum);
}

static int all_finite(const float* v, size_t n) {
  size_t i;
  for (i = 0; i < n; ++i) {
    if (!isfinite(v[i])) return 0;
  }
  return 1;
}

/* Bytes of a buffer the library must not write, to detect writes. */
#define SENTINEL_BYTE 0x5A

static int untouched(const void* buffer, size_t bytes) {
  const unsigned char* p = (const unsigned char*)buffer;
  size_t i;
  for (i = 0; i < bytes; ++i) {
    if (p[i] != SENTINEL_BYTE) return 0;
  }
  return 1;
}

static sieve_model* load_model(const char* folder, const sieve_model_options* options) {
  sieve_model* model = NULL;
  sieve_status* status = sieve_model_load(folder, options, &model);
  if (status != NULL) {
    ++g_checks;
    ++g_failures;
    fprintf(stderr, "loading %s failed: %s: %s\n", folder, code_identifier(sieve_status_get_code(status)),
            sieve_status_message(status));
    sieve_status_destroy(status);
    sieve_model_destroy(model);
    return NULL;
  }
  return model;
}

static sieve_model_info model_info(const sieve_model* model) {
  sieve_model_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  EXPECT_OK(sieve_model_get_info(model, &info));
  return info;
}

/* count rows of `dimension` floats, malloc'ed; NULL (a failed check) on error. */
static float* embed_all(const sieve_model* model, const sieve_text* texts, size_t count, size_t dimension) {
  float* out = malloc((count * dimension + 1) * sizeof(float));
  if (out == NULL || !EXPECT_OK(sieve_embed(model, texts, count, out, count * dimension))) {
    free(out);
    return NULL;
  }
  return out;
}

static float* score_all(const sieve_model* model, sieve_text query, const sieve_text* documents, size_t count) {
  float* out = malloc((count + 1) * sizeof(float));
  if (out == NULL || !EXPECT_OK(sieve_score(model, query, documents, count, out, count))) {
    free(out);
    return NULL;
  }
  return out;
}

/* Texts of varied lengths, the empty one included, for batches. */
static const char* const kSentences[] = {
    "A man is eating food.",
    "",
    "The quick brown fox jumps over the lazy dog, and then it runs away from the angry farmer.",
    "Sentence embeddings map text to vectors.",
    "Caf\303\251 cr\303\250me br\303\273l\303\251e", /* octal: a hex escape would swallow the "e" */
};
#define SENTENCE_COUNT (sizeof kSentences / sizeof kSentences[0])

static void sentence_texts(sieve_text* texts) {
  size_t i;
  for (i = 0; i < SENTENCE_COUNT; ++i) texts[i] = cstr(kSentences[i]);
}

/* ---- Versions and status --------------------------------------------------- */

/* The version CMakeLists.txt declares: project(sieve VERSION x.y.z ...). */
static int project_version(const config* cfg, char* out, size_t size) {
  char path[PATH_MAX];
  char* text;
  const char* at;
  size_t n = 0;
  join(path, sizeof path, cfg->source, "CMakeLists.txt");
  text = read_file(path, NULL);
  if (text == NULL) return 0;
  at = strstr(text, "project(sieve VERSION ");
  if (at != NULL) {
    at += strlen("project(sieve VERSION ");
    while (at[n] != '\0' && at[n] != ' ' && at[n] != ')' && n + 1 < size) {
      out[n] = at[n];
      ++n;
    }
  }
  out[n] = '\0';
  free(text);
  return n > 0;
}

/* "digits.digits.digits", optionally followed by more. */
static int looks_like_version(const char* s) {
  int parts = 0;
  if (s == NULL) return 0;
  for (;;) {
    if (*s < '0' || *s > '9') return 0;
    while (*s >= '0' && *s <= '9') ++s;
    if (++parts == 3) return 1;
    if (*s++ != '.') return 0;
  }
}

static void test_versions(const config* cfg) {
  char expected[64];
  CHECK(sieve_abi_version() == SIEVE_ABI_VERSION);
  CHECK(looks_like_version(sieve_version()));
  if (CHECK(project_version(cfg, expected, sizeof expected)) && sieve_version() != NULL) {
    if (!CHECK(strcmp(sieve_version(), expected) == 0)) {
      fprintf(stderr, "  sieve_version() \"%s\", CMakeLists.txt \"%s\"\n", sieve_version(), expected);
    }
  }
  CHECK(sieve_version() == sieve_version()); /* a static string */
  CHECK(looks_like_version(sieve_onnxruntime_version()));
  CHECK(sieve_onnxruntime_version() == sieve_onnxruntime_version());
}

static void test_status(void) {
  size_t i, j;
  sieve_model* model = NULL;
  sieve_status* status;

  /* Accessors on NULL (success). */
  CHECK(sieve_status_get_code(NULL) == SIEVE_OK);
  CHECK(sieve_status_message(NULL) != NULL && sieve_status_message(NULL)[0] == '\0');
  CHECK(sieve_status_input_index(NULL) == -1);
  sieve_status_destroy(NULL);

  /* Every code's name: the identifier lowercased, a static string. */
  for (i = 0; i < CODE_COUNT; ++i) {
    char expected[64];
    const char* name = sieve_status_code_name(kCodes[i].code);
    for (j = 0; kCodes[i].identifier[j] != '\0' && j + 1 < sizeof expected; ++j) {
      const char c = kCodes[i].identifier[j];
      expected[j] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    }
    expected[j] = '\0';
    if (!CHECK(name != NULL && strcmp(name, expected) == 0)) {
      fprintf(stderr, "  sieve_status_code_name(SIEVE_%s) = \"%s\"\n", kCodes[i].identifier, name ? name : "(null)");
    }
    CHECK(sieve_status_code_name(kCodes[i].code) == name);
  }
  /* A code this header does not know (a newer library's) still has a printable name. */
  CHECK(sieve_status_code_name((sieve_status_code)999) != NULL);

  /* A real error: not about one input of a batch. */
  status = EXPECT_KEEP(sieve_model_load(NULL, NULL, &model), SIEVE_INVALID_ARGUMENT);
  CHECK(sieve_status_input_index(status) == -1);
  CHECK(model == NULL);
  sieve_status_destroy(status);
}

static void test_null_handles(void) {
  /* Every destroy function accepts NULL. */
  sieve_status_destroy(NULL);
  sieve_model_destroy(NULL);
  sieve_tokenizer_destroy(NULL);
  sieve_encoding_destroy(NULL);
  sieve_string_free(NULL);
  sieve_registry_destroy(NULL);
  sieve_model_list_destroy(NULL);
  sieve_index_destroy(NULL);
  sieve_search_results_destroy(NULL);
  sieve_sparse_embeddings_destroy(NULL);

  /* Accessors without a status return neutral values. */
  CHECK(sieve_model_tokenizer(NULL) == NULL);
  CHECK(sieve_tokenizer_vocab_size(NULL) == 0);
  CHECK(sieve_encoding_size(NULL) == 0);
  CHECK(sieve_encoding_ids(NULL) == NULL);
  CHECK(sieve_encoding_type_ids(NULL) == NULL);
  CHECK(sieve_encoding_attention_mask(NULL) == NULL);
  CHECK(sieve_encoding_special_tokens_mask(NULL) == NULL);
  CHECK(sieve_encoding_offsets(NULL) == NULL);
  CHECK(sieve_model_list_size(NULL) == 0);
  CHECK(sieve_search_results_size(NULL) == 0);
  CHECK(sieve_sparse_embeddings_count(NULL) == 0);
}

/* ---- Logging ----------------------------------------------------------------- */

static size_t count_occurrences(const char* text, const char* needle) {
  size_t n = 0;
  for (text = strstr(text, needle); text != NULL; text = strstr(text + 1, needle)) ++n;
  return n;
}

/* Loads a model at "info" then at "off", with standard error going to a
   file: only the first load's session line may appear. Then "warn", which
   keeps the rest of the run's output to what went wrong. */
static void test_log_level(const config* cfg) {
  char path[PATH_MAX];
  static const char* const kLevels[] = {"trace", "debug", "info", "warn", "error", "off"};
  size_t i;
  int saved, file;
  char* logged;

  EXPECT_CODE(sieve_set_log_level(NULL), SIEVE_INVALID_ARGUMENT);
  EXPECT_CODE(sieve_set_log_level("loud"), SIEVE_INVALID_ARGUMENT);
  EXPECT_CODE(sieve_set_log_level(""), SIEVE_INVALID_ARGUMENT);
  for (i = 0; i < sizeof kLevels / sizeof kLevels[0]; ++i) EXPECT_OK(sieve_set_log_level(kLevels[i]));

  join(path, sizeof path, cfg->tmp, "stderr.txt");
  fflush(stderr);
  saved = dup(STDERR_FILENO);
  file = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (!CHECK(saved >= 0 && file >= 0 && dup2(file, STDERR_FILENO) >= 0)) return;
  close(file);
  if (EXPECT_OK(sieve_set_log_level("info"))) sieve_model_destroy(load_model(cfg->embedder, NULL));
  if (EXPECT_OK(sieve_set_log_level("off"))) sieve_model_destroy(load_model(cfg->embedder, NULL));
  fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  logged = read_file(path, NULL);
  if (CHECK(logged != NULL) && !CHECK(count_occurrences(logged, "session for") == 1)) {
    fprintf(stderr, "  standard error was:\n%s\n", logged);
  }
  free(logged);
  EXPECT_OK(sieve_set_log_level("warn"));
}

/* ---- Options --------------------------------------------------------------- */

static void test_options_init(void) {
  sieve_model_options m;
  sieve_registry_options r;
  /* Garbage first, so a field init forgets shows. */
  memset(&m, 0xA5, sizeof m);
  sieve_model_options_init(&m, sizeof m);
  CHECK(m.struct_size == sizeof m);
  CHECK(m.kind == SIEVE_KIND_AUTO);
  CHECK(m.intra_op_threads == 0);
  CHECK(m.inter_op_threads == 1);
  CHECK(m.providers == NULL);
  CHECK(m.provider_count == 0);
  CHECK(m.strict_providers == 0);
  CHECK(m.normalize == SIEVE_DEFAULT);
  CHECK(m.pooling == NULL);
  CHECK(m.max_length == 0);
  CHECK(m.batch_size == 32);
  CHECK(m.dimensions == 0);
  CHECK(m.prompt_name == NULL);
  CHECK(m.replace_invalid_utf8 == 0);

  memset(&r, 0xA5, sizeof r);
  sieve_registry_options_init(&r, sizeof r);
  CHECK(r.struct_size == sizeof r);
  CHECK(r.memory_budget == 0);
  CHECK(r.model_options == NULL);
  CHECK(r.shared_thread_pool == 0);

  /* An older caller's size: the fields that fit get their defaults, nothing
     past them is written. */
  memset(&m, SENTINEL_BYTE, sizeof m);
  sieve_model_options_init(&m, offsetof(sieve_model_options, strict_providers));
  CHECK(m.struct_size == offsetof(sieve_model_options, strict_providers));
  CHECK(m.kind == SIEVE_KIND_AUTO && m.inter_op_threads == 1 && m.providers == NULL && m.provider_count == 0);
  CHECK(untouched((char*)&m + offsetof(sieve_model_options, strict_providers),
                  sizeof m - offsetof(sieve_model_options, strict_providers)));
  memset(&r, SENTINEL_BYTE, sizeof r);
  sieve_registry_options_init(&r, offsetof(sieve_registry_options, model_options));
  CHECK(r.struct_size == offsetof(sieve_registry_options, model_options) && r.memory_budget == 0);
  CHECK(untouched((char*)&r + offsetof(sieve_registry_options, model_options),
                  sizeof r - offsetof(sieve_registry_options, model_options)));

  /* Sizes that cannot hold struct_size: nothing is written. NULL: nothing happens. */
  memset(&m, SENTINEL_BYTE, sizeof m);
  sieve_model_options_init(&m, 0);
  sieve_model_options_init(&m, sizeof(size_t) - 1);
  CHECK(untouched(&m, sizeof m));
  memset(&r, SENTINEL_BYTE, sizeof r);
  sieve_registry_options_init(&r, 0);
  CHECK(untouched(&r, sizeof r));
  sieve_model_options_init(NULL, sizeof m);
  sieve_registry_options_init(NULL, sizeof r);
}

/* A struct from a newer header: this header's fields, then one this library
   does not know. */
struct newer_model_options {
  sieve_model_options known;
  uint64_t future_field;
};

struct newer_registry_options {
  sieve_registry_options known;
  uint64_t future_field;
};

static void test_newer_caller(const config* cfg, const char* root) {
  struct newer_model_options m;
  struct newer_registry_options r;
  sieve_model* model = NULL;
  sieve_registry* registry = NULL;

  /* init fills the known fields and zeroes the unknown ones. */
  memset(&m, SENTINEL_BYTE, sizeof m);
  sieve_model_options_init(&m.known, sizeof m);
  CHECK(m.known.struct_size == sizeof m);
  CHECK(m.known.batch_size == 32 && m.known.normalize == SIEVE_DEFAULT && m.future_field == 0);
  memset(&r, SENTINEL_BYTE, sizeof r);
  sieve_registry_options_init(&r.known, sizeof r);
  CHECK(r.known.struct_size == sizeof r && r.known.model_options == NULL && r.future_field == 0);

  /* Unknown fields left zero (their defaults): accepted. */
  if (EXPECT_OK(sieve_model_load(cfg->embedder, &m.known, &model))) {
    /* A newer caller's info struct: the known fields are written, the rest is not. */
    struct {
      sieve_model_info known;
      uint64_t future_field;
    } info;
    memset(&info, SENTINEL_BYTE, sizeof info);
    info.known.struct_size = sizeof info;
    if (EXPECT_OK(sieve_model_get_info(model, &info.known))) {
      CHECK(info.known.normalize == 1 && info.known.dimension == model_info(model).dimension);
      CHECK(info.known.struct_size == sizeof info);
      CHECK(untouched(&info.future_field, sizeof info.future_field));
    }
  }
  sieve_model_destroy(model);
  model = NULL;
  EXPECT_OK(sieve_registry_open(root, &r.known, &registry));
  sieve_registry_destroy(registry);
  registry = NULL;

  /* An unknown field set: this library cannot honour it, so it refuses. */
  m.future_field = 1;
  EXPECT_CODE(sieve_model_load(cfg->embedder, &m.known, &model), SIEVE_INVALID_ARGUMENT);
  r.future_field = 1;
  EXPECT_CODE(sieve_registry_open(root, &r.known, &registry), SIEVE_INVALID_ARGUMENT);
  CHECK(model == NULL && registry == NULL);
}

/* ---- Loading errors -------------------------------------------------------- */

static void test_load_errors(const config* cfg) {
  char folder[PATH_MAX], path[PATH_MAX], tiny[PATH_MAX], tiny_tokenizer[PATH_MAX], tiny_onnx[PATH_MAX];
  sieve_model* model = NULL;
  sieve_model_options options;
  const char* providers[2];

  join(tiny, sizeof tiny, cfg->fixtures, "tiny-bert-tokens");
  join(tiny_tokenizer, sizeof tiny_tokenizer, tiny, "tokenizer.json");
  join(tiny_onnx, sizeof tiny_onnx, tiny, "model.onnx");

  EXPECT_CODE(sieve_model_load(NULL, NULL, &model), SIEVE_INVALID_ARGUMENT);
  EXPECT_CODE(sieve_model_load(tiny, NULL, NULL), SIEVE_INVALID_ARGUMENT);

  join(folder, sizeof folder, cfg->tmp, "no-such-folder");
  EXPECT_CODE(sieve_model_load(folder, NULL, &model), SIEVE_NOT_FOUND);
  /* A file where a folder is expected. */
  EXPECT_CODE(sieve_model_load(tiny_tokenizer, NULL, &model), SIEVE_NOT_FOUND);

  /* A folder without model.onnx. */
  join(folder, sizeof folder, cfg->tmp, "empty-folder");
  CHECK(mkdir(folder, 0755) == 0);
  EXPECT_CODE(sieve_model_load(folder, NULL, &model), SIEVE_NOT_FOUND);

  /* model.onnx that is not ONNX. */
  join(folder, sizeof folder, cfg->tmp, "garbage-onnx");
  CHECK(mkdir(folder, 0755) == 0);
  join(path, sizeof path, folder, "model.onnx");
  CHECK(write_file(path, "this is not a protobuf", 22));
  join(path, sizeof path, folder, "tokenizer.json");
  CHECK(symlink(tiny_tokenizer, path) == 0);
  EXPECT_CODE(sieve_model_load(folder, NULL, &model), SIEVE_PARSE);

  /* A good model.onnx with a malformed tokenizer.json. */
  join(folder, sizeof folder, cfg->tmp, "bad-tokenizer");
  CHECK(mkdir(folder, 0755) == 0);
  join(path, sizeof path, folder, "model.onnx");
  CHECK(symlink(tiny_onnx, path) == 0);
  join(path, sizeof path, folder, "tokenizer.json");
  CHECK(write_file(path, "{\"model\": ", 10));
  EXPECT_CODE(sieve_model_load(folder, NULL, &model), SIEVE_PARSE);

  /* A good model and tokenizer with a malformed config.json. */
  join(folder, sizeof folder, cfg->tmp, "bad-config");
  CHECK(mkdir(folder, 0755) == 0);
  join(path, sizeof path, folder, "model.onnx");
  CHECK(symlink(tiny_onnx, path) == 0);
  join(path, sizeof path, folder, "tokenizer.json");
  CHECK(symlink(tiny_tokenizer, path) == 0);
  join(path, sizeof path, folder, "config.json");
  CHECK(write_file(path, "{\"hidden_size\": [", 17));
  EXPECT_CODE(sieve_model_load(folder, NULL, &model), SIEVE_PARSE);

  /* Options the library must refuse. */
  sieve_model_options_init(&options, sizeof options);
  options.pooling = "no-such-pooling";
  EXPECT_CODE(sieve_model_load(tiny, &options, &model), SIEVE_INVALID_ARGUMENT);

  sieve_model_options_init(&options, sizeof options);
  options.normalize = 7;
  EXPECT_CODE(sieve_model_load(tiny, &options, &model), SIEVE_INVALID_ARGUMENT);

  sieve_model_options_init(&options, sizeof options);
  options.kind = (sieve_model_kind)42;
  EXPECT_CODE(sieve_model_load(tiny, &options, &model), SIEVE_INVALID_ARGUMENT);

  sieve_model_options_init(&options, sizeof options);
  options.batch_size = 0;
  EXPECT_CODE(sieve_model_load(tiny, &options, &model), SIEVE_INVALID_ARGUMENT);

  sieve_model_options_init(&options, sizeof options);
  options.intra_op_threads = -1;
  EXPECT_CODE(sieve_model_load(tiny, &options, &model), SIEVE_INVALID_ARGUMENT);

  /* More threads than 4 per hardware thread of any machine. */
  sieve_model_options_init(&options, sizeof options);
  options.intra_op_threads = 1000000;
  EXPECT_CODE(sieve_model_load(tiny, &options, &model), SIEVE_INVALID_ARGUMENT);
  sieve_model_options_init(&options, sizeof options);
  options.inter_op_threads = 1000000;
  EXPECT_CODE(sieve_model_load(tiny, &options, &model), SIEVE_INVALID_ARGUMENT);

  sieve_model_options_init(&options, sizeof options);
  options.prompt_name = "no-such-prompt"; /* the folder defines no prompts */
  EXPECT_CODE(sieve_model_load(tiny, &options, &model), SIEVE_INVALID_ARGUMENT);

  sieve_model_options_init(&options, sizeof options);
  options.dimensions = 100000; /* more than the model has */
  EXPECT_CODE(sieve_model_load(tiny, &options, &model), SIEVE_INVALID_ARGUMENT);

  /* Providers: NULL array with a count, a NULL entry, an unknown name (strict
     or not), a malformed option, and a known provider this ONNX Runtime lacks
     (CoreML exists only on Apple systems). */
  sieve_model_options_init(&options, sizeof options);
  options.provider_count = 1;
  EXPECT_CODE(sieve_model_load(tiny, &options, &model), SIEVE_INVALID_ARGUMENT);

  providers[0] = NULL;
  options.providers = providers;
  EXPECT_CODE(sieve_model_load(tiny, &options, &model), SIEVE_INVALID_ARGUMENT);

  providers[0] = "no-such-provider";
  options.strict_providers = 1;
  EXPECT_CODE(sieve_model_load(tiny, &options, &model), SIEVE_INVALID_ARGUMENT);
  options.strict_providers = 0;
  EXPECT_CODE(sieve_model_load(tiny, &options, &model), SIEVE_INVALID_ARGUMENT);

  providers[0] = "cuda:device_id";
  EXPECT_CODE(sieve_model_load(tiny, &options, &model), SIEVE_INVALID_ARGUMENT);

  providers[0] = "coreml";
  options.strict_providers = 1;
  EXPECT_CODE(sieve_model_load(tiny, &options, &model), SIEVE_UNSUPPORTED);
  options.strict_providers = 0;
  providers[1] = "cpu";
  options.provider_count = 2;
  if (EXPECT_OK(sieve_model_load(tiny, &options, &model))) {
    const sieve_model_info info = model_info(model);
    CHECK(info.providers != NULL && strcmp(info.providers, "cpu") == 0);
  }
  sieve_model_destroy(model);
  model = NULL;

  /* The kind asked for must be the folder's. */
  sieve_model_options_init(&options, sizeof options);
  options.kind = SIEVE_KIND_RERANKER;
  EXPECT_CODE(sieve_model_load(tiny, &options, &model), SIEVE_WRONG_KIND);
  join(folder, sizeof folder, cfg->fixtures, "cross-encoder-tiny-3labels");
  options.kind = SIEVE_KIND_EMBEDDING;
  EXPECT_CODE(sieve_model_load(folder, &options, &model), SIEVE_WRONG_KIND);
  options.kind = SIEVE_KIND_RERANKER;
  if (EXPECT_OK(sieve_model_load(folder, &options, &model))) CHECK(model_info(model).kind == SIEVE_KIND_RERANKER);
  sieve_model_destroy(model);
  model = NULL;
  options.kind = SIEVE_KIND_EMBEDDING;
  if (EXPECT_OK(sieve_model_load(tiny, &options, &model))) CHECK(model_info(model).kind == SIEVE_KIND_EMBEDDING);
  sieve_model_destroy(model);
}

/* ---- Model info ------------------------------------------------------------ */

/* "mean", "cls", ... as the folder's 1_Pooling/config.json enables it. */
static const char* folder_pooling(const char* folder) {
  static const struct {
    const char* key;
    const char* name;
  } modes[] = {{"\"pooling_mode_mean_tokens\": true", "mean"},
               {"\"pooling_mode_cls_token\": true", "cls"},
               {"\"pooling_mode_max_tokens\": true", "max"},
               {"\"pooling_mode_mean_sqrt_len_tokens\": true", "mean_sqrt_len"},
               {"\"pooling_mode_lasttoken\": true", "lasttoken"}};
  char path[PATH_MAX];
  const char* found = NULL;
  char* text;
  size_t i;
  join(path, sizeof path, folder, "1_Pooling/config.json");
  text = read_file(path, NULL);
  if (text == NULL) return NULL;
  for (i = 0; i < sizeof modes / sizeof modes[0]; ++i) {
    if (strstr(text, modes[i].key) != NULL) found = modes[i].name;
  }
  free(text);
  return found;
}

/* The number of labels of a cross-encoder: the entries of config.json's
   "id2label" object (string keys and values, no nesting). */
static size_t folder_label_count(const char* folder) {
  char path[PATH_MAX];
  char *text, *at;
  size_t colons = 0;
  join(path, sizeof path, folder, "config.json");
  text = read_file(path, NULL);
  if (text == NULL) return 0;
  at = strstr(text, "\"id2label\"");
  if (at != NULL) at = strchr(at, '{');
  for (; at != NULL && *at != '\0' && *at != '}'; ++at) colons += *at == ':';
  free(text);
  return colons;
}

static void test_info(const config* cfg, const sieve_model* embedder, const sieve_model* reranker) {
  char path[PATH_MAX], folder[PATH_MAX];
  sieve_model_info info, probe, before;
  size_t floats = 0;
  const char* pooling;
  sieve_model* cls;

  EXPECT_CODE(sieve_model_get_info(NULL, &info), SIEVE_INVALID_ARGUMENT);
  EXPECT_CODE(sieve_model_get_info(embedder, NULL), SIEVE_INVALID_ARGUMENT);

  info = model_info(embedder);
  CHECK(info.kind == SIEVE_KIND_EMBEDDING);
  CHECK(info.dimension > 0);
  CHECK(info.max_length > 0);
  CHECK(info.normalize == 1); /* both embedders have a 2_Normalize module */
  join(path, sizeof path, cfg->embedder, "2_Normalize");
  CHECK(exists(path));
  pooling = folder_pooling(cfg->embedder);
  CHECK(pooling != NULL && info.pooling != NULL && strcmp(info.pooling, pooling) == 0);
  CHECK(info.providers != NULL && strcmp(info.providers, "cpu") == 0);
  CHECK(same_file(info.folder, cfg->embedder));
  join(path, sizeof path, cfg->embedder, "model.onnx");
  CHECK(same_file(info.onnx_file, path));
  CHECK(EXPECT_OK(sieve_embed_size(embedder, 3, &floats)) && floats == 3 * info.dimension);

  /* The CLS fixture's pooling comes from its folder too. */
  join(folder, sizeof folder, cfg->fixtures, "tiny-bert-cls");
  cls = load_model(folder, NULL);
  if (cls != NULL) {
    pooling = folder_pooling(folder);
    CHECK(pooling != NULL && strcmp(pooling, "cls") == 0 && strcmp(model_info(cls).pooling, pooling) == 0);
  }
  sieve_model_destroy(cls);

  info = model_info(reranker);
  CHECK(info.kind == SIEVE_KIND_RERANKER);
  CHECK(info.dimension >= 1 && info.dimension == folder_label_count(cfg->reranker));
  CHECK(info.max_length > 0);
  CHECK(info.pooling != NULL && info.pooling[0] == '\0');
  CHECK(info.providers != NULL && strcmp(info.providers, "cpu") == 0);
  CHECK(same_file(info.folder, cfg->reranker));

  /* An older caller's info struct: only the fields that fit are written. */
  memset(&probe, SENTINEL_BYTE, sizeof probe);
  probe.struct_size = offsetof(sieve_model_info, max_length);
  before = probe;
  if (EXPECT_OK(sieve_model_get_info(embedder, &probe))) {
    CHECK(probe.kind == SIEVE_KIND_EMBEDDING);
    CHECK(probe.dimension == model_info(embedder).dimension);
    CHECK(memcmp((char*)&probe + offsetof(sieve_model_info, max_length),
                 (char*)&before + offsetof(sieve_model_info, max_length),
                 sizeof probe - offsetof(sieve_model_info, max_length)) == 0);
  }
}

/* ---- Embedding --------------------------------------------------------------- */

static void test_embedding_errors(const sieve_model* embedder, const sieve_model* reranker, size_t dim) {
  sieve_text texts[SENTENCE_COUNT];
  sieve_text bad[4];
  float* buffer;
  size_t floats = 0, capacity;
  sieve_status* status;

  sentence_texts(texts);
  capacity = SENTENCE_COUNT * dim;
  buffer = malloc((capacity + dim) * sizeof(float));
  if (!CHECK(buffer != NULL)) return;

  EXPECT_CODE(sieve_embed_size(NULL, 1, &floats), SIEVE_INVALID_ARGUMENT);
  EXPECT_CODE(sieve_embed_size(embedder, 1, NULL), SIEVE_INVALID_ARGUMENT);
  CHECK(EXPECT_OK(sieve_embed_size(embedder, 0, &floats)) && floats == 0);
  /* count * dimension would wrap around: an error, whichever code. */
  status = sieve_embed_size(embedder, SIZE_MAX / 2, &floats);
  if (!CHECK(status != NULL))
    fprintf(stderr, "  sieve_embed_size(SIZE_MAX / 2) gave %lu floats\n", (unsigned long)floats);
  sieve_status_destroy(status);

  EXPECT_CODE(sieve_embed(NULL, texts, 1, buffer, capacity), SIEVE_INVALID_ARGUMENT);
  EXPECT_CODE(sieve_embed(embedder, NULL, 1, buffer, capacity), SIEVE_INVALID_ARGUMENT);
  EXPECT_CODE(sieve_embed(embedder, texts, 1, NULL, capacity), SIEVE_INVALID_ARGUMENT);
  bad[0] = cstr("fine");
  bad[1] = make_text(NULL, 3); /* NULL data with a size */
  EXPECT_CODE(sieve_embed(embedder, bad, 2, buffer, capacity), SIEVE_INVALID_ARGUMENT);

  /* Too small by one float: an error, and nothing written. */
  memset(buffer, SENTINEL_BYTE, (capacity + dim) * sizeof(float));
  EXPECT_CODE(sieve_embed(embedder, texts, SENTENCE_COUNT, buffer, capacity - 1), SIEVE_BUFFER_TOO_SMALL);
  CHECK(untouched(buffer, (capacity + dim) * sizeof(float)));
  EXPECT_CODE(sieve_embed(embedder, texts, 1, buffer, 0), SIEVE_BUFFER_TOO_SMALL);
  CHECK(untouched(buffer, (capacity + dim) * sizeof(float)));

  /* count 0: nothing to do, nothing written, even without buffers. */
  EXPECT_OK(sieve_embed(embedder, NULL, 0, NULL, 0));
  EXPECT_OK(sieve_embed(embedder, texts, 0, buffer, capacity));
  CHECK(untouched(buffer, (capacity + dim) * sizeof(float)));

  /* Invalid UTF-8 in the third text: its index is reported. */
  bad[0] = cstr("valid");
  bad[1] = cstr("also valid");
  bad[2] = TEXT_LIT("broken \xff byte");
  bad[3] = cstr("valid again");
  status = EXPECT_KEEP(sieve_embed(embedder, bad, 4, buffer, capacity), SIEVE_INVALID_INPUT);
  CHECK(sieve_status_input_index(status) == 2);
  sieve_status_destroy(status);
  /* A lone continuation byte and a truncated sequence at the very end. */
  bad[0] = TEXT_LIT("\x80");
  status = EXPECT_KEEP(sieve_embed(embedder, bad, 1, buffer, capacity), SIEVE_INVALID_INPUT);
  CHECK(sieve_status_input_index(status) == 0);
  sieve_status_destroy(status);
  bad[0] = cstr("ok");
  bad[1] = TEXT_LIT("ends inside a character \xe2\x82");
  status = EXPECT_KEEP(sieve_embed(embedder, bad, 2, buffer, capacity), SIEVE_INVALID_INPUT);
  CHECK(sieve_status_input_index(status) == 1);
  sieve_status_destroy(status);

  /* Embedding calls on a reranker. */
  EXPECT_CODE(sieve_embed(reranker, texts, 1, buffer, capacity), SIEVE_WRONG_KIND);
  EXPECT_CODE(sieve_embed_size(reranker, 1, &floats), SIEVE_WRONG_KIND);
  free(buffer);
}

static void test_embedding(const sieve_model* embedder) {
  const sieve_model_info info = model_info(embedder);
  const size_t dim = info.dimension;
  sieve_text texts[SENTENCE_COUNT], one[3];
  float *batch, *single, *bigger, *pair, *other;
  size_t i;

  sentence_texts(texts);
  batch = embed_all(embedder, texts, SENTENCE_COUNT, dim);
  single = malloc(dim * sizeof(float) * 3);
  if (batch == NULL || !CHECK(single != NULL)) {
    free(batch);
    free(single);
    return;
  }
  CHECK(all_finite(batch, SENTENCE_COUNT * dim));
  for (i = 0; i < SENTENCE_COUNT; ++i) {
    /* Normalized rows, and each text alone agrees with its row of the batch
       (padding to the batch's length may move the last bits). */
    CHECK(fabs(norm(batch + i * dim, dim) - 1.0) < 1e-5);
    if (EXPECT_OK(sieve_embed(embedder, &texts[i], 1, single, dim))) {
      const float diff = max_abs_diff(single, batch + i * dim, dim);
      if (!CHECK(diff <= 1e-5f)) fprintf(stderr, "  text %lu: max abs diff %g\n", (unsigned long)i, diff);
    }
  }
  /* Different texts give different vectors. */
  CHECK(max_abs_diff(batch, batch + 2 * dim, dim) > 1e-3f);

  /* A larger buffer than needed: the rows are written, the rest is not. */
  bigger = malloc((SENTENCE_COUNT + 1) * dim * sizeof(float));
  if (CHECK(bigger != NULL)) {
    memset(bigger, SENTINEL_BYTE, (SENTENCE_COUNT + 1) * dim * sizeof(float));
    if (EXPECT_OK(sieve_embed(embedder, texts, SENTENCE_COUNT, bigger, (SENTENCE_COUNT + 1) * dim))) {
      CHECK(max_abs_diff(bigger, batch, SENTENCE_COUNT * dim) == 0.0f);
      CHECK(untouched(bigger + SENTENCE_COUNT * dim, dim * sizeof(float)));
    }
    free(bigger);
  }

  /* A NULL data pointer with size 0 is the empty text. */
  one[0] = make_text(NULL, 0);
  if (EXPECT_OK(sieve_embed(embedder, one, 1, single, dim))) {
    CHECK(max_abs_diff(single, batch + 1 * dim, dim) <= 1e-5f);
  }

  /* NUL bytes are text: the BERT normalizer drops U+0000 (as Hugging Face
     does), so "hello\0world" reads as "helloworld", not as "hello". */
  one[0] = TEXT_LIT("hello\0world");
  one[1] = cstr("helloworld");
  one[2] = cstr("hello");
  pair = malloc(3 * dim * sizeof(float));
  if (CHECK(pair != NULL)) {
    size_t k;
    for (k = 0; k < 3; ++k) CHECK(EXPECT_OK(sieve_embed(embedder, &one[k], 1, pair + k * dim, dim)));
    CHECK(max_abs_diff(pair, pair + dim, dim) == 0.0f);
    CHECK(max_abs_diff(pair, pair + 2 * dim, dim) > 1e-3f);
    free(pair);
  }

  /* Same texts, same vectors: a second call is bit for bit the first. */
  other = embed_all(embedder, texts, SENTENCE_COUNT, dim);
  if (other != NULL) CHECK(max_abs_diff(other, batch, SENTENCE_COUNT * dim) == 0.0f);
  free(other);
  free(single);
  free(batch);
}

/* The options that change vectors, each against what it must mean. */
static void test_embedding_options(const config* cfg, const sieve_model* embedder) {
  const sieve_model_info info = model_info(embedder);
  const size_t dim = info.dimension;
  sieve_model_options options;
  sieve_model *raw_model, *short_model, *half_model, *batch1_model, *replace_model, *cls_model;
  sieve_text texts[SENTENCE_COUNT];
  float *unit, *raw = NULL;
  size_t i;
  sentence_texts(texts);
  unit = embed_all(embedder, texts, SENTENCE_COUNT, dim);
  if (unit == NULL) return;

  /* normalize 0: the raw vectors, whose direction is the normalized one. */
  sieve_model_options_init(&options, sizeof options);
  options.normalize = 0;
  raw_model = load_model(cfg->embedder, &options);
  if (raw_model != NULL) {
    CHECK(model_info(raw_model).normalize == 0);
    raw = embed_all(raw_model, texts, SENTENCE_COUNT, dim);
    if (raw != NULL) {
      int some_not_unit = 0;
      for (i = 0; i < SENTENCE_COUNT; ++i) {
        float scaled[4096];
        const double n = norm(raw + i * dim, dim);
        size_t d;
        if (fabs(n - 1.0) > 1e-3) some_not_unit = 1;
        if (!CHECK(dim <= 4096 && n > 0)) continue;
        for (d = 0; d < dim; ++d) scaled[d] = (float)(raw[i * dim + d] / n);
        CHECK(max_abs_diff(scaled, unit + i * dim, dim) <= 1e-5f);
      }
      CHECK(some_not_unit);
    }
  }
  sieve_model_destroy(raw_model);

  /* dimensions: the first half of the raw vector, then normalized
     (sentence-transformers' truncate_dim). */
  sieve_model_options_init(&options, sizeof options);
  options.dimensions = dim / 2;
  half_model = load_model(cfg->embedder, &options);
  if (half_model != NULL && raw != NULL) {
    float* half;
    size_t floats = 0;
    CHECK(model_info(half_model).dimension == dim / 2);
    CHECK(EXPECT_OK(sieve_embed_size(half_model, SENTENCE_COUNT, &floats)) && floats == SENTENCE_COUNT * (dim / 2));
    half = embed_all(half_model, texts, SENTENCE_COUNT, dim / 2);
    for (i = 0; half != NULL && i < SENTENCE_COUNT; ++i) {
      float scaled[4096];
      const double n = norm(raw + i * dim, dim / 2);
      size_t d;
      for (d = 0; d < dim / 2; ++d) scaled[d] = (float)(raw[i * dim + d] / n);
      CHECK(max_abs_diff(scaled, half + i * (dim / 2), dim / 2) <= 1e-5f);
    }
    free(half);
  }
  sieve_model_destroy(half_model);
  free(raw);

  /* max_length 8: [CLS], six words of one token each, [SEP]; the vector is
     that of the first six words alone. */
  sieve_model_options_init(&options, sizeof options);
  options.max_length = 8;
  short_model = load_model(cfg->embedder, &options);
  if (short_model != NULL) {
    const sieve_text long_text = cstr("the quick brown fox jumps over the lazy dog and then runs away");
    const sieve_text prefix = cstr("the quick brown fox jumps over");
    sieve_encoding* encoding = NULL;
    float cut[4096], expected[4096];
    CHECK(model_info(short_model).max_length == 8);
    /* The premise: the prefix is six tokens. */
    if (EXPECT_OK(sieve_tokenize(sieve_model_tokenizer(embedder), prefix, NULL, 0, &encoding))) {
      const uint8_t* mask = sieve_encoding_attention_mask(encoding);
      size_t real = 0, k;
      for (k = 0; k < sieve_encoding_size(encoding); ++k) real += mask[k];
      CHECK(real == 6);
    }
    sieve_encoding_destroy(encoding);
    if (CHECK(dim <= 4096) && EXPECT_OK(sieve_embed(short_model, &long_text, 1, cut, dim)) &&
        EXPECT_OK(sieve_embed(embedder, &prefix, 1, expected, dim))) {
      CHECK(max_abs_diff(cut, expected, dim) <= 1e-5f);
    }
  }
  sieve_model_destroy(short_model);

  /* batch_size 1: every text runs alone, as one text per call does. */
  sieve_model_options_init(&options, sizeof options);
  options.batch_size = 1;
  batch1_model = load_model(cfg->embedder, &options);
  if (batch1_model != NULL) {
    float* ones = embed_all(batch1_model, texts, SENTENCE_COUNT, dim);
    float alone[4096];
    for (i = 0; ones != NULL && dim <= 4096 && i < SENTENCE_COUNT; ++i) {
      if (EXPECT_OK(sieve_embed(embedder, &texts[i], 1, alone, dim))) {
        CHECK(max_abs_diff(ones + i * dim, alone, dim) == 0.0f);
      }
    }
    free(ones);
  }
  sieve_model_destroy(batch1_model);

  /* replace_invalid_utf8: the bad byte reads as U+FFFD. */
  sieve_model_options_init(&options, sizeof options);
  options.replace_invalid_utf8 = 1;
  replace_model = load_model(cfg->embedder, &options);
  if (replace_model != NULL) {
    sieve_text bad[2];
    float got[2 * 4096];
    bad[0] = cstr("fine");
    bad[1] = TEXT_LIT("broken \xff byte");
    if (CHECK(dim <= 4096) && EXPECT_OK(sieve_embed(replace_model, bad, 2, got, 2 * dim))) {
      const sieve_text replaced = TEXT_LIT("broken \xef\xbf\xbd byte");
      float expected[4096];
      if (EXPECT_OK(sieve_embed(embedder, &replaced, 1, expected, dim))) {
        CHECK(max_abs_diff(got + dim, expected, dim) <= 1e-5f);
      }
    }
  }
  sieve_model_destroy(replace_model);

  /* pooling: the option wins over the folder. */
  sieve_model_options_init(&options, sizeof options);
  options.pooling = strcmp(info.pooling, "cls") == 0 ? "mean" : "cls";
  cls_model = load_model(cfg->embedder, &options);
  if (cls_model != NULL) {
    float* pooled;
    CHECK(strcmp(model_info(cls_model).pooling, options.pooling) == 0);
    pooled = embed_all(cls_model, texts, SENTENCE_COUNT, dim);
    if (pooled != NULL) CHECK(max_abs_diff(pooled, unit, dim) > 1e-4f);
    free(pooled);
  }
  sieve_model_destroy(cls_model);
  free(unit);
}

/* Fields past struct_size must not be read: the ones set here would fail
   the load or change the vectors if they were. */
static void test_older_caller(const config* cfg, const sieve_model* embedder) {
  const sieve_model_info defaults = model_info(embedder);
  sieve_model_options options;
  sieve_model* model;
  const sieve_text bad = TEXT_LIT("broken \xff byte");
  float out[4096];

  sieve_model_options_init(&options, sizeof options);
  options.struct_size = offsetof(sieve_model_options, strict_providers);
  options.strict_providers = 1;
  options.normalize = 0;
  options.pooling = "no-such-pooling";
  options.max_length = 3;
  options.batch_size = 0;
  options.dimensions = 100000;
  options.prompt_name = "no-such-prompt";
  options.replace_invalid_utf8 = 1;
  model = load_model(cfg->embedder, &options);
  if (model != NULL) {
    const sieve_model_info info = model_info(model);
    CHECK(info.normalize == defaults.normalize);
    CHECK(strcmp(info.pooling, defaults.pooling) == 0);
    CHECK(info.max_length == defaults.max_length);
    CHECK(info.dimension == defaults.dimension);
    if (CHECK(defaults.dimension <= 4096)) {
      EXPECT_CODE(sieve_embed(model, &bad, 1, out, defaults.dimension), SIEVE_INVALID_INPUT);
    }
  }
  sieve_model_destroy(model);

  /* The same fields within struct_size are read: the load fails. */
  options.struct_size = sizeof options;
  EXPECT_CODE(sieve_model_load(cfg->embedder, &options, &model), SIEVE_INVALID_ARGUMENT);

  /* Only struct_size: all defaults. */
  memset(&options, SENTINEL_BYTE, sizeof options);
  options.struct_size = sizeof(size_t);
  model = load_model(cfg->embedder, &options);
  if (model != NULL) {
    const sieve_model_info info = model_info(model);
    CHECK(info.kind == SIEVE_KIND_EMBEDDING && info.dimension == defaults.dimension &&
          info.normalize == defaults.normalize && info.max_length == defaults.max_length);
  }
  sieve_model_destroy(model);

  /* struct_size 0: a struct nobody initialized. */
  sieve_model_options_init(&options, sizeof options);
  options.struct_size = 0;
  EXPECT_CODE(sieve_model_load(cfg->embedder, &options, &model), SIEVE_INVALID_ARGUMENT);
  {
    sieve_model_info info;
    memset(&info, SENTINEL_BYTE, sizeof info);
    info.struct_size = 0;
    EXPECT_CODE(sieve_model_get_info(embedder, &info), SIEVE_INVALID_ARGUMENT);
    CHECK(untouched((char*)&info + sizeof info.struct_size, sizeof info - sizeof info.struct_size));
  }

  /* All but the last field: replace_invalid_utf8 stays 0. */
  sieve_model_options_init(&options, sizeof options);
  options.struct_size = offsetof(sieve_model_options, replace_invalid_utf8);
  options.replace_invalid_utf8 = 1;
  model = load_model(cfg->embedder, &options);
  if (model != NULL && CHECK(defaults.dimension <= 4096)) {
    EXPECT_CODE(sieve_embed(model, &bad, 1, out, defaults.dimension), SIEVE_INVALID_INPUT);
  }
  sieve_model_destroy(model);
}

/* ---- Reranking ------------------------------------------------------------- */

static const char* const kDocuments[] = {
    "Paris is the capital and largest city of France.",
    "The Eiffel Tower is in Paris.",
    "",
    "Bananas are rich in potassium.",
    "France's capital, Paris, lies on the Seine river in the north of the country.",
    "The Eiffel Tower is in Paris.", /* a duplicate */
};
#define DOCUMENT_COUNT (sizeof kDocuments / sizeof kDocuments[0])

static void test_reranking(const sieve_model* reranker, const sieve_model* embedder) {
  const sieve_text query = cstr("What is the capital of France?");
  sieve_text docs[DOCUMENT_COUNT], bad[3];
  sieve_rerank_result results[DOCUMENT_COUNT + 1];
  float *scores, one, buffer[DOCUMENT_COUNT + 1];
  size_t i, count = 0;
  sieve_status* status;

  for (i = 0; i < DOCUMENT_COUNT; ++i) docs[i] = cstr(kDocuments[i]);
  scores = score_all(reranker, query, docs, DOCUMENT_COUNT);
  if (scores == NULL) return;

  for (i = 0; i < DOCUMENT_COUNT; ++i) {
    /* sigmoid (one label) or a softmax entry (several): a probability. */
    CHECK(isfinite(scores[i]) && scores[i] >= 0.0f && scores[i] <= 1.0f);
    /* Each document alone agrees with the batch (padding moves the last bits). */
    if (EXPECT_OK(sieve_score(reranker, query, &docs[i], 1, &one, 1))) CHECK(fabsf(one - scores[i]) <= 1e-5f);
  }
  CHECK(scores[0] != scores[3]);

  /* rerank: all documents, best first, ties in input order, the scores of score(). */
  memset(results, SENTINEL_BYTE, sizeof results);
  if (EXPECT_OK(sieve_rerank(reranker, query, docs, DOCUMENT_COUNT, 0, results, DOCUMENT_COUNT, &count)) &&
      CHECK(count == DOCUMENT_COUNT)) {
    int seen[DOCUMENT_COUNT] = {0};
    for (i = 0; i < count; ++i) {
      if (!CHECK(results[i].index < DOCUMENT_COUNT)) continue;
      seen[results[i].index] += 1;
      CHECK(results[i].score == scores[results[i].index]);
      if (i > 0) {
        CHECK(results[i - 1].score > results[i].score ||
              (results[i - 1].score == results[i].score && results[i - 1].index < results[i].index));
      }
    }
    for (i = 0; i < DOCUMENT_COUNT; ++i) CHECK(seen[i] == 1);
  }
  /* top_k: the first k of the full ranking; more than count gives count. */
  {
    sieve_rerank_result top[2];
    if (EXPECT_OK(sieve_rerank(reranker, query, docs, DOCUMENT_COUNT, 2, top, 2, &count)) && CHECK(count == 2)) {
      CHECK(top[0].index == results[0].index && top[1].index == results[1].index);
      CHECK(top[0].score == results[0].score && top[1].score == results[1].score);
    }
  }
  if (EXPECT_OK(sieve_rerank(reranker, query, docs, 3, 10, results, DOCUMENT_COUNT, &count))) CHECK(count == 3);

  /* Capacity: too small is an error and nothing is written. */
  memset(results, SENTINEL_BYTE, sizeof results);
  EXPECT_CODE(sieve_rerank(reranker, query, docs, DOCUMENT_COUNT, 0, results, DOCUMENT_COUNT - 1, &count),
              SIEVE_BUFFER_TOO_SMALL);
  EXPECT_CODE(sieve_rerank(reranker, query, docs, DOCUMENT_COUNT, 3, results, 2, &count), SIEVE_BUFFER_TOO_SMALL);
  CHECK(untouched(results, sizeof results));
  memset(buffer, SENTINEL_BYTE, sizeof buffer);
  EXPECT_CODE(sieve_score(reranker, query, docs, DOCUMENT_COUNT, buffer, DOCUMENT_COUNT - 1), SIEVE_BUFFER_TOO_SMALL);
  CHECK(untouched(buffer, sizeof buffer));
  /* Larger than needed: the rest stays as it was. */
  if (EXPECT_OK(sieve_score(reranker, query, docs, DOCUMENT_COUNT, buffer, DOCUMENT_COUNT + 1))) {
    CHECK(memcmp(buffer, scores, DOCUMENT_COUNT * sizeof(float)) == 0);
    CHECK(untouched(buffer + DOCUMENT_COUNT, sizeof(float)));
  }

  /* NULLs. */
  EXPECT_CODE(sieve_score(NULL, query, docs, 1, buffer, 1), SIEVE_INVALID_ARGUMENT);
  EXPECT_CODE(sieve_score(reranker, query, NULL, 1, buffer, 1), SIEVE_INVALID_ARGUMENT);
  EXPECT_CODE(sieve_score(reranker, query, docs, 1, NULL, 1), SIEVE_INVALID_ARGUMENT);
  EXPECT_CODE(sieve_score(reranker, make_text(NULL, 4), docs, 1, buffer, 1), SIEVE_INVALID_ARGUMENT);
  bad[0] = cstr("fine");
  bad[1] = make_text(NULL, 2);
  EXPECT_CODE(sieve_score(reranker, query, bad, 2, buffer, 2), SIEVE_INVALID_ARGUMENT);
  EXPECT_CODE(sieve_rerank(NULL, query, docs, 1, 0, results, 1, &count), SIEVE_INVALID_ARGUMENT);
  EXPECT_CODE(sieve_rerank(reranker, query, NULL, 1, 0, results, 1, &count), SIEVE_INVALID_ARGUMENT);
  EXPECT_CODE(sieve_rerank(reranker, query, docs, 1, 0, NULL, 1, &count), SIEVE_INVALID_ARGUMENT);
  EXPECT_CODE(sieve_rerank(reranker, query, docs, 1, 0, results, 1, NULL), SIEVE_INVALID_ARGUMENT);
  EXPECT_CODE(sieve_rerank(reranker, make_text(NULL, 4), docs, 1, 0, results, 1, &count), SIEVE_INVALID_ARGUMENT);

  /* count 0. */
  EXPECT_OK(sieve_score(reranker, query, NULL, 0, NULL, 0));
  count = 99;
  if (EXPECT_OK(sieve_rerank(reranker, query, NULL, 0, 0, NULL, 0, &count))) CHECK(count == 0);
  /* An empty query (NULL data, size 0) is a text like any other. */
  EXPECT_OK(sieve_score(reranker, make_text(NULL, 0), docs, 2, buffer, 2));

  /* Invalid UTF-8 in the second document. */
  bad[0] = cstr("fine");
  bad[1] = TEXT_LIT("broken \xff byte");
  bad[2] = cstr("fine too");
  status = EXPECT_KEEP(sieve_score(reranker, query, bad, 3, buffer, 3), SIEVE_INVALID_INPUT);
  CHECK(sieve_status_input_index(status) == 1);
  sieve_status_destroy(status);
  status = EXPECT_KEEP(sieve_rerank(reranker, query, bad, 3, 0, results, 3, &count), SIEVE_INVALID_INPUT);
  CHECK(sieve_status_input_index(status) == 1);
  sieve_status_destroy(status);
  /* ... and in the query. */
  EXPECT_CODE(sieve_score(reranker, TEXT_LIT("bad \xff query"), docs, 1, buffer, 1), SIEVE_INVALID_INPUT);

  /* NUL bytes in query and document: the U+0000 is dropped, not the rest. */
  {
    const sieve_text nul_query = TEXT_LIT("What is the capital\0 of France?");
    const sieve_text plain_query = cstr("What is the capital of France?");
    float a = 0, b = 1;
    if (EXPECT_OK(sieve_score(reranker, nul_query, &docs[0], 1, &a, 1)) &&
        EXPECT_OK(sieve_score(reranker, plain_query, &docs[0], 1, &b, 1))) {
      CHECK(a == b);
    }
  }

  /* Scoring calls on an embedder. */
  EXPECT_CODE(sieve_score(embedder, query, docs, 1, buffer, 1), SIEVE_WRONG_KIND);
  EXPECT_CODE(sieve_rerank(embedder, query, docs, 1, 0, results, 1, &count), SIEVE_WRONG_KIND);
  free(scores);
}

/* The three-label fixture: dimension 3, one softmax probability per document. */
static void test_multilabel(const config* cfg) {
  char folder[PATH_MAX];
  sieve_model* model;
  sieve_model_options options;
  join(folder, sizeof folder, cfg->fixtures, "cross-encoder-tiny-3labels");
  model = load_model(folder, NULL);
  if (model != NULL) {
    const sieve_text query = cstr("A man is eating.");
    sieve_text docs[3];
    float scores[3];
    size_t i;
    CHECK(model_info(model).dimension == 3 && folder_label_count(folder) == 3);
    docs[0] = cstr("A man eats food.");
    docs[1] = cstr("Nobody is eating.");
    docs[2] = cstr("It is raining.");
    if (EXPECT_OK(sieve_score(model, query, docs, 3, scores, 3))) {
      for (i = 0; i < 3; ++i) CHECK(scores[i] > 0.0f && scores[i] < 1.0f);
    }
  }
  sieve_model_destroy(model);

  /* replace_invalid_utf8 for a reranker too. */
  sieve_model_options_init(&options, sizeof options);
  options.replace_invalid_utf8 = 1;
  model = load_model(folder, &options);
  if (model != NULL) {
    const sieve_text query = cstr("q");
    const sieve_text docs[2] = {TEXT_LIT("a \xff b"), TEXT_LIT("a \xef\xbf\xbd b")};
    float scores[2] = {0, 1};
    if (EXPECT_OK(sieve_score(model, query, docs, 2, scores, 2))) CHECK(scores[0] == scores[1]);
  }
  sieve_model_destroy(model);

  /* Ties keep input order. With one document per run, duplicates get the
     same inputs and so exactly the same score. */
  sieve_model_options_init(&options, sizeof options);
  options.batch_size = 1;
  model = load_model(folder, &options);
  if (model != NULL) {
    const sieve_text query = cstr("A man is eating.");
    sieve_text docs[5];
    sieve_rerank_result results[5];
    size_t count = 0, i;
    docs[0] = cstr("It is raining.");
    docs[1] = cstr("A man eats food.");
    docs[2] = cstr("It is raining.");
    docs[3] = cstr("A man eats food.");
    docs[4] = cstr("It is raining.");
    if (EXPECT_OK(sieve_rerank(model, query, docs, 5, 0, results, 5, &count)) && CHECK(count == 5)) {
      for (i = 1; i < 5; ++i) {
        const int same_text = strcmp(docs[results[i - 1].index].data, docs[results[i].index].data) == 0;
        CHECK(results[i - 1].score >= results[i].score);
        /* Equal texts are adjacent, with equal scores, in input order. */
        if (same_text) CHECK(results[i - 1].score == results[i].score && results[i - 1].index < results[i].index);
      }
      /* The two groups: 3 + 2 documents, so exactly 3 adjacent equal pairs. */
      {
        size_t equal_pairs = 0;
        for (i = 1; i < 5; ++i) equal_pairs += results[i - 1].score == results[i].score;
        CHECK(equal_pairs == 3);
      }
    }
  }
  sieve_model_destroy(model);
}

/* ---- Tokenization ---------------------------------------------------------- */

/* vocab.txt: one token per line, line i being id i. */
static char** read_vocab(const char* folder, size_t* count, char** storage) {
  char path[PATH_MAX];
  char *text, *line, **lines;
  size_t n = 0, size = 0, i;
  join(path, sizeof path, folder, "vocab.txt");
  text = read_file(path, &size);
  if (text == NULL) return NULL;
  for (i = 0; i < size; ++i) n += text[i] == '\n';
  if (size > 0 && text[size - 1] != '\n') ++n;
  lines = malloc((n + 1) * sizeof *lines);
  if (lines == NULL) {
    free(text);
    return NULL;
  }
  line = text;
  for (i = 0; i < n; ++i) {
    char* end = strchr(line, '\n');
    lines[i] = line;
    if (end == NULL) break;
    *end = '\0';
    if (end > line && end[-1] == '\r') end[-1] = '\0';
    line = end + 1;
  }
  *count = n;
  *storage = text;
  return lines;
}

static int token_is(const sieve_tokenizer* tokenizer, uint32_t id, const char* expected) {
  sieve_text token = {NULL, 0};
  if (!EXPECT_OK(sieve_tokenizer_id_to_token(tokenizer, id, &token))) return 0;
  return token.data != NULL && token.size == strlen(expected) && memcmp(token.data, expected, token.size) == 0;
}

/* For lowercase ASCII text: every token that is not special is the slice of
   its text its offsets name (less WordPiece's "##"); special tokens have
   empty offsets. Returns the number of tokens with attention. */
static size_t check_encoding(const sieve_tokenizer* tokenizer, const sieve_encoding* encoding, const char* text,
                             const char* pair) {
  const size_t n = sieve_encoding_size(encoding);
  const uint32_t* ids = sieve_encoding_ids(encoding);
  const uint32_t* types = sieve_encoding_type_ids(encoding);
  const uint8_t* attention = sieve_encoding_attention_mask(encoding);
  const uint8_t* special = sieve_encoding_special_tokens_mask(encoding);
  const uint32_t* offsets = sieve_encoding_offsets(encoding);
  size_t i, real = 0;
  if (!CHECK(n > 0 && ids && types && attention && special && offsets)) return 0;
  for (i = 0; i < n; ++i) {
    sieve_text token = {NULL, 0};
    CHECK(attention[i] <= 1 && special[i] <= 1);
    real += attention[i];
    if (!EXPECT_OK(sieve_tokenizer_id_to_token(tokenizer, ids[i], &token))) continue;
    if (special[i]) {
      CHECK(offsets[2 * i] == 0 && offsets[2 * i + 1] == 0);
      CHECK(token.size > 2 && token.data[0] == '[' && token.data[token.size - 1] == ']');
    } else {
      /* The segment: type 0 is the first text, type 1 the pair. */
      const char* source = types[i] == 0 ? text : pair;
      size_t begin = offsets[2 * i], end = offsets[2 * i + 1];
      const char* piece = token.data;
      size_t piece_size = token.size;
      if (piece_size > 2 && piece[0] == '#' && piece[1] == '#') {
        piece += 2;
        piece_size -= 2;
      }
      if (!CHECK(source != NULL && attention[i] == 1 && begin < end && end <= strlen(source))) continue;
      if (!CHECK(end - begin == piece_size && memcmp(source + begin, piece, piece_size) == 0)) {
        fprintf(stderr, "  token %lu \"%.*s\" at [%lu, %lu) of \"%s\"\n", (unsigned long)i, (int)token.size, token.data,
                (unsigned long)begin, (unsigned long)end, source);
      }
    }
  }
  return real;
}

static void test_tokenizer(const config* cfg, const sieve_model* embedder) {
  char path[PATH_MAX], bad_path[PATH_MAX];
  sieve_tokenizer* tokenizer = NULL;
  sieve_encoding *encoding = NULL, *plain = NULL;
  char **vocab, *vocab_storage = NULL;
  size_t vocab_count = 0, i;
  const char* text = "the quick brown fox jumped over embeddings";
  const char* pair = "hello world";

  /* Loading errors. */
  join(path, sizeof path, cfg->tokenizer, "tokenizer.json");
  EXPECT_CODE(sieve_tokenizer_load(NULL, &tokenizer), SIEVE_INVALID_ARGUMENT);
  EXPECT_CODE(sieve_tokenizer_load(path, NULL), SIEVE_INVALID_ARGUMENT);
  join(bad_path, sizeof bad_path, cfg->tmp, "no-such-tokenizer.json");
  EXPECT_CODE(sieve_tokenizer_load(bad_path, &tokenizer), SIEVE_NOT_FOUND);
  join(bad_path, sizeof bad_path, cfg->tmp, "truncated.json");
  CHECK(write_file(bad_path, "{\"version\": \"1.0\", \"model\": {", 30));
  EXPECT_CODE(sieve_tokenizer_load(bad_path, &tokenizer), SIEVE_PARSE);
  join(bad_path, sizeof bad_path, cfg->tmp, "empty.json");
  CHECK(write_file(bad_path, "", 0));
  EXPECT_CODE(sieve_tokenizer_load(bad_path, &tokenizer), SIEVE_PARSE);
  join(bad_path, sizeof bad_path, cfg->tmp, "array.json");
  CHECK(write_file(bad_path, "[1, 2]", 6));
  EXPECT_CODE(sieve_tokenizer_load(bad_path, &tokenizer), SIEVE_PARSE);
  join(bad_path, sizeof bad_path, cfg->tmp, "no-model.json");
  CHECK(write_file(bad_path, "{\"normalizer\": null}", 20));
  EXPECT_CODE(sieve_tokenizer_load(bad_path, &tokenizer), SIEVE_PARSE);
  join(bad_path, sizeof bad_path, cfg->tmp, "unknown-model.json");
  CHECK(write_file(bad_path, "{\"model\": {\"type\": \"NoSuchModel\", \"vocab\": {}}}", 47));
  EXPECT_CODE(sieve_tokenizer_load(bad_path, &tokenizer), SIEVE_UNSUPPORTED);
  CHECK(tokenizer == NULL);

  if (!EXPECT_OK(sieve_tokenizer_load(path, &tokenizer))) return;

  /* The vocabulary, entry by entry, against vocab.txt. */
  vocab = read_vocab(cfg->tokenizer, &vocab_count, &vocab_storage);
  if (CHECK(vocab != NULL && vocab_count > 1000)) {
    size_t mismatches = 0;
    CHECK(sieve_tokenizer_vocab_size(tokenizer) == vocab_count);
    for (i = 0; i < vocab_count; ++i) {
      sieve_text token = {NULL, 0};
      if (sieve_status_get_code(sieve_tokenizer_id_to_token(tokenizer, (uint32_t)i, &token)) != SIEVE_OK ||
          token.size != strlen(vocab[i]) || memcmp(token.data, vocab[i], token.size) != 0) {
        if (mismatches++ < 5) fprintf(stderr, "  id %lu is not \"%s\"\n", (unsigned long)i, vocab[i]);
      }
    }
    CHECK(mismatches == 0);
  }
  free(vocab);
  free(vocab_storage);
  {
    sieve_text token = {NULL, 0};
    const uint32_t past = (uint32_t)sieve_tokenizer_vocab_size(tokenizer);
    EXPECT_EITHER(sieve_tokenizer_id_to_token(tokenizer, past, &token), SIEVE_INVALID_ARGUMENT, SIEVE_NOT_FOUND);
    EXPECT_EITHER(sieve_tokenizer_id_to_token(tokenizer, UINT32_MAX, &token), SIEVE_INVALID_ARGUMENT, SIEVE_NOT_FOUND);
    EXPECT_CODE(sieve_tokenizer_id_to_token(NULL, 0, &token), SIEVE_INVALID_ARGUMENT);
    EXPECT_CODE(sieve_tokenizer_id_to_token(tokenizer, 0, NULL), SIEVE_INVALID_ARGUMENT);
  }

  /* One text, with and without special tokens. */
  EXPECT_CODE(sieve_tokenize(NULL, cstr(text), NULL, 1, &encoding), SIEVE_INVALID_ARGUMENT);
  EXPECT_CODE(sieve_tokenize(tokenizer, cstr(text), NULL, 1, NULL), SIEVE_INVALID_ARGUMENT);
  EXPECT_CODE(sieve_tokenize(tokenizer, make_text(NULL, 1), NULL, 1, &encoding), SIEVE_INVALID_ARGUMENT);
  {
    const sieve_text bad_pair = make_text(NULL, 1);
    EXPECT_CODE(sieve_tokenize(tokenizer, cstr(text), &bad_pair, 1, &encoding), SIEVE_INVALID_ARGUMENT);
  }
  EXPECT_CODE(sieve_tokenize(tokenizer, TEXT_LIT("bad \xff text"), NULL, 1, &encoding), SIEVE_INVALID_INPUT);
  {
    const sieve_text bad_pair = TEXT_LIT("bad \xc3");
    EXPECT_CODE(sieve_tokenize(tokenizer, cstr(text), &bad_pair, 1, &encoding), SIEVE_INVALID_INPUT);
  }
  CHECK(encoding == NULL);

  if (EXPECT_OK(sieve_tokenize(tokenizer, cstr(text), NULL, 1, &encoding)) &&
      EXPECT_OK(sieve_tokenize(tokenizer, cstr(text), NULL, 0, &plain))) {
    const size_t real = check_encoding(tokenizer, encoding, text, NULL);
    const size_t plain_real = check_encoding(tokenizer, plain, text, NULL);
    const uint32_t* ids = sieve_encoding_ids(encoding);
    const uint32_t* plain_ids = sieve_encoding_ids(plain);
    const uint8_t* special = sieve_encoding_special_tokens_mask(encoding);
    const uint32_t* types = sieve_encoding_type_ids(encoding);
    const uint32_t* offsets = sieve_encoding_offsets(encoding);
    CHECK(real == plain_real + 2);
    if (CHECK(ids && plain_ids && real >= 3)) {
      /* [CLS] first, [SEP] last, the same tokens between. */
      CHECK(token_is(tokenizer, ids[0], "[CLS]") && special[0] == 1);
      CHECK(token_is(tokenizer, ids[real - 1], "[SEP]") && special[real - 1] == 1);
      CHECK(memcmp(ids + 1, plain_ids, plain_real * sizeof *ids) == 0);
      for (i = 0; i < real; ++i) CHECK(types[i] == 0);
      /* The last word ends at the end of the text. */
      CHECK(offsets[2 * (real - 2) + 1] == strlen(text));
    }
    /* Decoding gives the text back (WordPiece joins "##" pieces). */
    {
      char* decoded = NULL;
      size_t size = 0;
      if (EXPECT_OK(sieve_tokenizer_decode(tokenizer, ids, sieve_encoding_size(encoding), 1, &decoded, &size))) {
        CHECK(decoded != NULL && strcmp(decoded, text) == 0 && size == strlen(text));
      }
      sieve_string_free(decoded);
      decoded = NULL;
      if (EXPECT_OK(sieve_tokenizer_decode(tokenizer, ids, real, 0, &decoded, NULL))) {
        CHECK(decoded != NULL && strncmp(decoded, "[CLS] ", 6) == 0 && strstr(decoded, "[SEP]") != NULL);
      }
      sieve_string_free(decoded);
      decoded = NULL;
      if (EXPECT_OK(sieve_tokenizer_decode(tokenizer, NULL, 0, 1, &decoded, &size))) {
        CHECK(decoded != NULL && decoded[0] == '\0' && size == 0);
      }
      sieve_string_free(decoded);
      EXPECT_CODE(sieve_tokenizer_decode(NULL, ids, 1, 1, &decoded, &size), SIEVE_INVALID_ARGUMENT);
      EXPECT_CODE(sieve_tokenizer_decode(tokenizer, NULL, 1, 1, &decoded, &size), SIEVE_INVALID_ARGUMENT);
      EXPECT_CODE(sieve_tokenizer_decode(tokenizer, ids, 1, 1, NULL, &size), SIEVE_INVALID_ARGUMENT);
    }
  }
  sieve_encoding_destroy(encoding);
  sieve_encoding_destroy(plain);
  encoding = plain = NULL;

  /* A pair: type 0 for [CLS] text [SEP], type 1 for pair [SEP]. */
  {
    const sieve_text second = cstr(pair);
    sieve_encoding* a = NULL;
    sieve_encoding* b = NULL;
    if (EXPECT_OK(sieve_tokenize(tokenizer, cstr(text), &second, 1, &encoding)) &&
        EXPECT_OK(sieve_tokenize(tokenizer, cstr(text), NULL, 0, &a)) &&
        EXPECT_OK(sieve_tokenize(tokenizer, second, NULL, 0, &b))) {
      const size_t na = check_encoding(tokenizer, a, text, NULL);
      const size_t nb = check_encoding(tokenizer, b, pair, NULL);
      const size_t real = check_encoding(tokenizer, encoding, text, pair);
      const uint32_t* types = sieve_encoding_type_ids(encoding);
      const uint32_t* ids = sieve_encoding_ids(encoding);
      CHECK(real == na + nb + 3);
      if (CHECK(real == na + nb + 3 && types && ids)) {
        for (i = 0; i < real; ++i) CHECK(types[i] == (i < na + 2 ? 0u : 1u));
        CHECK(token_is(tokenizer, ids[na + 1], "[SEP]") && token_is(tokenizer, ids[real - 1], "[SEP]"));
        CHECK(memcmp(ids + 1, sieve_encoding_ids(a), na * sizeof *ids) == 0);
        CHECK(memcmp(ids + na + 2, sieve_encoding_ids(b), nb * sizeof *ids) == 0);
      }
    }
    sieve_encoding_destroy(a);
    sieve_encoding_destroy(b);
    sieve_encoding_destroy(encoding);
    encoding = NULL;
  }

  /* Byte offsets: "héllo wörld" is 13 bytes, 11 characters. */
  if (EXPECT_OK(sieve_tokenize(tokenizer, cstr("h\xc3\xa9llo w\xc3\xb6rld"), NULL, 0, &encoding))) {
    const uint32_t* offsets = sieve_encoding_offsets(encoding);
    const uint8_t* attention = sieve_encoding_attention_mask(encoding);
    if (CHECK(sieve_encoding_size(encoding) >= 2 && attention[0] == 1 && attention[1] == 1)) {
      CHECK(offsets[0] == 0 && offsets[1] == 6 && offsets[2] == 7 && offsets[3] == 13);
      CHECK(token_is(tokenizer, sieve_encoding_ids(encoding)[0], "hello"));
    }
  }
  sieve_encoding_destroy(encoding);
  encoding = NULL;

  /* NUL bytes: the text goes on after them. */
  if (EXPECT_OK(sieve_tokenize(tokenizer, TEXT_LIT("hello\0world"), NULL, 0, &encoding))) {
    const uint32_t* offsets = sieve_encoding_offsets(encoding);
    const uint8_t* attention = sieve_encoding_attention_mask(encoding);
    size_t real = 0;
    for (i = 0; i < sieve_encoding_size(encoding); ++i) real += attention[i];
    if (CHECK(real >= 2)) CHECK(offsets[2 * (real - 1) + 1] == 11);
  }
  sieve_encoding_destroy(encoding);
  encoding = NULL;

  /* The empty text (NULL data): only special tokens (and padding) remain. */
  if (EXPECT_OK(sieve_tokenize(tokenizer, make_text(NULL, 0), NULL, 1, &encoding))) {
    const uint8_t* attention = sieve_encoding_attention_mask(encoding);
    const size_t n = sieve_encoding_size(encoding);
    size_t real = 0;
    for (i = 0; i < n; ++i) real += attention[i];
    CHECK(real == 2);
    /* Arrays are NULL exactly when there are no tokens. */
    CHECK((n == 0) == (sieve_encoding_ids(encoding) == NULL));
    CHECK((n == 0) == (sieve_encoding_offsets(encoding) == NULL));
  }
  sieve_encoding_destroy(encoding);
  encoding = NULL;

  /* The model's own tokenizer: borrowed, with the model's truncation. */
  {
    const sieve_tokenizer* own = sieve_model_tokenizer(embedder);
    const size_t max_length = model_info(embedder).max_length;
    char long_text[8192];
    size_t used = 0;
    while (used + 6 < sizeof long_text && used < 5 * max_length * 6) {
      memcpy(long_text + used, "words ", 6);
      used += 6;
    }
    if (CHECK(own != NULL)) {
      CHECK(sieve_tokenizer_vocab_size(own) == sieve_tokenizer_vocab_size(tokenizer));
      CHECK(sieve_model_tokenizer(embedder) == own);
      if (EXPECT_OK(sieve_tokenize(own, make_text(long_text, used), NULL, 1, &encoding))) {
        const uint8_t* attention = sieve_encoding_attention_mask(encoding);
        size_t real = 0;
        for (i = 0; i < sieve_encoding_size(encoding); ++i) real += attention[i];
        CHECK(real == max_length);
      }
      sieve_encoding_destroy(encoding);
    }
  }
  sieve_tokenizer_destroy(tokenizer);
}

/* A model loaded with replace_invalid_utf8 tokenizes invalid UTF-8 too. */
static void test_model_tokenizer_replace(const config* cfg) {
  sieve_model_options options;
  sieve_model* model;
  sieve_model_options_init(&options, sizeof options);
  options.replace_invalid_utf8 = 1;
  model = load_model(cfg->embedder, &options);
  if (model != NULL) {
    sieve_encoding *got = NULL, *expected = NULL;
    if (EXPECT_OK(sieve_tokenize(sieve_model_tokenizer(model), TEXT_LIT("ab \xff cd"), NULL, 1, &got)) &&
        EXPECT_OK(sieve_tokenize(sieve_model_tokenizer(model), TEXT_LIT("ab \xef\xbf\xbd cd"), NULL, 1, &expected))) {
      CHECK(sieve_encoding_size(got) == sieve_encoding_size(expected));
      CHECK(sieve_encoding_size(got) == sieve_encoding_size(expected) &&
            memcmp(sieve_encoding_ids(got), sieve_encoding_ids(expected),
                   sieve_encoding_size(got) * sizeof(uint32_t)) == 0);
    }
    sieve_encoding_destroy(got);
    sieve_encoding_destroy(expected);
  }
  sieve_model_destroy(model);
}

/* ---- Registry -------------------------------------------------------------- */

/* root/{broken, emb-a, emb-b, not-a-model, org/rerank}: copies (by links) of
   the tiny fixtures, a folder whose model.onnx is not ONNX, and a folder
   without a model. */
static int make_registry_root(const config* cfg, char* root, size_t size) {
  char from[PATH_MAX], to[PATH_MAX], path[PATH_MAX];
  int ok = 1;
  join(root, size, cfg->tmp, "models");
  ok &= mkdir(root, 0755) == 0;
  join(from, sizeof from, cfg->fixtures, "tiny-bert-tokens");
  join(to, sizeof to, root, "emb-a");
  ok &= link_folder(from, to);
  join(to, sizeof to, root, "emb-b");
  ok &= link_folder(from, to);
  join(to, sizeof to, root, "org");
  ok &= mkdir(to, 0755) == 0;
  join(from, sizeof from, cfg->fixtures, "cross-encoder-tiny-3labels");
  join(to, sizeof to, root, "org/rerank");
  ok &= link_folder(from, to);
  join(to, sizeof to, root, "broken");
  ok &= mkdir(to, 0755) == 0;
  join(path, sizeof path, to, "model.onnx");
  ok &= write_file(path, "not onnx", 8);
  join(from, sizeof from, cfg->fixtures, "tiny-bert-tokens/tokenizer.json");
  join(path, sizeof path, to, "tokenizer.json");
  ok &= symlink(from, path) == 0;
  join(to, sizeof to, root, "not-a-model");
  ok &= mkdir(to, 0755) == 0;
  return ok;
}

static sieve_registry_entry list_entry(const sieve_model_list* list, size_t index) {
  sieve_registry_entry entry;
  memset(&entry, 0, sizeof entry);
  entry.struct_size = sizeof entry;
  EXPECT_OK(sieve_model_list_get(list, index, &entry));
  return entry;
}

static int entry_loaded(const sieve_registry* registry, const char* name) {
  sieve_model_list* list = NULL;
  int loaded = -1;
  size_t i;
  if (!EXPECT_OK(sieve_registry_list(registry, &list))) return -1;
  for (i = 0; i < sieve_model_list_size(list); ++i) {
    const sieve_registry_entry entry = list_entry(list, i);
    if (entry.name != NULL && strcmp(entry.name, name) == 0) loaded = entry.loaded;
  }
  sieve_model_list_destroy(list);
  return loaded;
}

/* Run first, while no model is loaded: ONNX Runtime has one environment per
   process, and the shared pool must be chosen before it exists. */
static void test_shared_thread_pool(const char* root) {
  sieve_registry_options options;
  sieve_registry* registry = NULL;
  sieve_model *embedder = NULL, *reranker = NULL;
  sieve_registry_options_init(&options, sizeof options);
  options.shared_thread_pool = 1;
  if (!EXPECT_OK(sieve_registry_open(root, &options, &registry))) return;
  if (EXPECT_OK(sieve_registry_get(registry, "emb-a", &embedder)) &&
      EXPECT_OK(sieve_registry_get(registry, "org/rerank", &reranker))) {
    sieve_text texts[SENTENCE_COUNT];
    float* vectors;
    float scores[2];
    sentence_texts(texts);
    vectors = embed_all(embedder, texts, SENTENCE_COUNT, model_info(embedder).dimension);
    if (vectors != NULL) CHECK(all_finite(vectors, SENTENCE_COUNT * model_info(embedder).dimension));
    free(vectors);
    if (EXPECT_OK(sieve_score(reranker, texts[0], texts + 2, 2, scores, 2))) CHECK(all_finite(scores, 2));
  }
  sieve_model_destroy(embedder);
  sieve_model_destroy(reranker);
  sieve_registry_destroy(registry);
}

static void test_registry(const config* cfg, const char* root) {
  char path[PATH_MAX], tiny[PATH_MAX];
  sieve_registry* registry = NULL;
  sieve_model_list* list = NULL;
  sieve_model *model = NULL, *rerank = NULL, *direct, *direct_rerank;
  sieve_registry_entry entry;
  sieve_text texts[SENTENCE_COUNT];
  size_t dim, i;
  static const char* const kNames[] = {"broken", "emb-a", "emb-b", "org/rerank"};

  sentence_texts(texts);
  join(tiny, sizeof tiny, cfg->fixtures, "tiny-bert-tokens");
  direct = load_model(tiny, NULL);
  join(path, sizeof path, cfg->fixtures, "cross-encoder-tiny-3labels");
  direct_rerank = load_model(path, NULL);
  if (direct == NULL || direct_rerank == NULL) {
    sieve_model_destroy(direct);
    sieve_model_destroy(direct_rerank);
    return;
  }
  dim = model_info(direct).dimension;

  EXPECT_CODE(sieve_registry_open(NULL, NULL, &registry), SIEVE_INVALID_ARGUMENT);
  EXPECT_CODE(sieve_registry_open(root, NULL, NULL), SIEVE_INVALID_ARGUMENT);
  join(path, sizeof path, cfg->tmp, "no-such-root");
  EXPECT_CODE(sieve_registry_open(path, NULL, &registry), SIEVE_NOT_FOUND);
  join(path, sizeof path, tiny, "model.onnx"); /* a file */
  EXPECT_CODE(sieve_registry_open(path, NULL, &registry), SIEVE_NOT_FOUND);
  if (!EXPECT_OK(sieve_registry_open(root, NULL, &registry))) {
    sieve_model_destroy(direct);
    sieve_model_destroy(direct_rerank);
    return;
  }

  /* The list: every model folder, sorted by name, nothing loaded. */
  EXPECT_CODE(sieve_registry_list(NULL, &list), SIEVE_INVALID_ARGUMENT);
  EXPECT_CODE(sieve_registry_list(registry, NULL), SIEVE_INVALID_ARGUMENT);
  if (EXPECT_OK(sieve_registry_list(registry, &list)) && CHECK(sieve_model_list_size(list) == 4)) {
    for (i = 0; i < 4; ++i) {
      entry = list_entry(list, i);
      if (!CHECK(entry.name != NULL && strcmp(entry.name, kNames[i]) == 0)) {
        fprintf(stderr, "  entry %lu is \"%s\", expected \"%s\"\n", (unsigned long)i, entry.name ? entry.name : "",
                kNames[i]);
        continue;
      }
      CHECK(entry.loaded == 0);
      CHECK(entry.error != NULL && entry.providers != NULL);
      if (i == 0) {
        CHECK(entry.error[0] != '\0');
      } else {
        /* As the model loaded from the folder describes itself. */
        const sieve_model_info info = model_info(i == 3 ? direct_rerank : direct);
        CHECK(entry.error[0] == '\0');
        CHECK(strcmp(entry.providers, "cpu") == 0);
        CHECK(entry.kind == info.kind);
        CHECK(entry.dimension == info.dimension);
        CHECK(entry.max_length == info.max_length);
      }
    }
    EXPECT_CODE(sieve_model_list_get(list, 4, &entry), SIEVE_INVALID_ARGUMENT);
    EXPECT_CODE(sieve_model_list_get(list, SIZE_MAX, &entry), SIEVE_INVALID_ARGUMENT);
    EXPECT_CODE(sieve_model_list_get(NULL, 0, &entry), SIEVE_INVALID_ARGUMENT);
    EXPECT_CODE(sieve_model_list_get(list, 0, NULL), SIEVE_INVALID_ARGUMENT);
    entry.struct_size = 0;
    EXPECT_CODE(sieve_model_list_get(list, 0, &entry), SIEVE_INVALID_ARGUMENT);
    /* An older caller's entry: only the fields that fit are written. */
    {
      sieve_registry_entry probe, before;
      memset(&probe, SENTINEL_BYTE, sizeof probe);
      probe.struct_size = offsetof(sieve_registry_entry, kind);
      before = probe;
      if (EXPECT_OK(sieve_model_list_get(list, 1, &probe))) {
        CHECK(probe.name != NULL && strcmp(probe.name, "emb-a") == 0);
        CHECK(memcmp((char*)&probe + offsetof(sieve_registry_entry, kind),
                     (char*)&before + offsetof(sieve_registry_entry, kind),
                     sizeof probe - offsetof(sieve_registry_entry, kind)) == 0);
      }
    }
  }

  /* Getting models. */
  EXPECT_CODE(sieve_registry_get(NULL, "emb-a", &model), SIEVE_INVALID_ARGUMENT);
  EXPECT_CODE(sieve_registry_get(registry, NULL, &model), SIEVE_INVALID_ARGUMENT);
  EXPECT_CODE(sieve_registry_get(registry, "emb-a", NULL), SIEVE_INVALID_ARGUMENT);
  EXPECT_CODE(sieve_registry_get(registry, "no-such-model", &model), SIEVE_NOT_FOUND);
  EXPECT_CODE(sieve_registry_get(registry, "not-a-model", &model), SIEVE_NOT_FOUND);
  EXPECT_CODE(sieve_registry_get(registry, "../models/emb-a", &model), SIEVE_NOT_FOUND);
  EXPECT_CODE(sieve_registry_get(registry, "org/../emb-a", &model), SIEVE_NOT_FOUND);
  EXPECT_CODE(sieve_registry_get(registry, tiny, &model), SIEVE_NOT_FOUND); /* absolute */
  EXPECT_EITHER(sieve_registry_get(registry, "", &model), SIEVE_INVALID_ARGUMENT, SIEVE_NOT_FOUND);
  EXPECT_CODE(sieve_registry_get(registry, "broken", &model), SIEVE_PARSE);
  CHECK(model == NULL);

  if (EXPECT_OK(sieve_registry_get(registry, "emb-a", &model)) &&
      EXPECT_OK(sieve_registry_get(registry, "org/rerank", &rerank))) {
    float *from_registry, *expected;
    CHECK(model_info(model).kind == SIEVE_KIND_EMBEDDING && model_info(rerank).kind == SIEVE_KIND_RERANKER);
    CHECK(entry_loaded(registry, "emb-a") == 1);
    CHECK(entry_loaded(registry, "emb-b") == 0);
    CHECK(entry_loaded(registry, "org/rerank") == 1);
    /* Models of the list taken before stay as they were. */
    if (sieve_model_list_size(list) == 4) CHECK(list_entry(list, 1).loaded == 0);

    /* The registry's model is the folder's model. */
    expected = embed_all(direct, texts, SENTENCE_COUNT, dim);
    /* The registry goes first: its models and the list stay valid. */
    sieve_registry_destroy(registry);
    registry = NULL;
    from_registry = embed_all(model, texts, SENTENCE_COUNT, dim);
    if (from_registry != NULL && expected != NULL) {
      CHECK(max_abs_diff(from_registry, expected, SENTENCE_COUNT * dim) == 0.0f);
    }
    free(from_registry);
    free(expected);
    {
      float scores[2], expected_scores[2];
      if (EXPECT_OK(sieve_score(rerank, texts[0], texts + 2, 2, scores, 2)) &&
          EXPECT_OK(sieve_score(direct_rerank, texts[0], texts + 2, 2, expected_scores, 2))) {
        CHECK(scores[0] == expected_scores[0] && scores[1] == expected_scores[1]);
      }
    }
    if (sieve_model_list_size(list) == 4) CHECK(strcmp(list_entry(list, 3).name, "org/rerank") == 0);
  }
  sieve_model_list_destroy(list);
  sieve_model_destroy(model);
  sieve_model_destroy(rerank);
  sieve_registry_destroy(registry);
  sieve_model_destroy(direct);
  sieve_model_destroy(direct_rerank);
}

/* Registry options: model options reach the models; a memory budget evicts
   the least recently used model nobody holds, never a held one. */
static void test_registry_options(const config* cfg, const char* root) {
  char path[PATH_MAX];
  sieve_registry_options options;
  sieve_model_options model_options;
  sieve_registry* registry = NULL;
  sieve_model *a = NULL, *b = NULL;
  const char* providers[1] = {"no-such-provider"};
  long bytes;

  sieve_model_options_init(&model_options, sizeof model_options);
  model_options.normalize = 0;
  model_options.kind = SIEVE_KIND_RERANKER; /* ignored by the registry */
  sieve_registry_options_init(&options, sizeof options);
  options.model_options = &model_options;
  if (EXPECT_OK(sieve_registry_open(root, &options, &registry))) {
    if (EXPECT_OK(sieve_registry_get(registry, "emb-a", &a))) CHECK(model_info(a).normalize == 0);
    if (EXPECT_OK(sieve_registry_get(registry, "org/rerank", &b))) CHECK(model_info(b).kind == SIEVE_KIND_RERANKER);
  }
  sieve_model_destroy(a);
  sieve_model_destroy(b);
  sieve_registry_destroy(registry);
  a = b = NULL;
  registry = NULL;

  /* An older caller without model_options: a bad one there is not read. */
  sieve_model_options_init(&model_options, sizeof model_options);
  model_options.providers = providers;
  model_options.provider_count = 1;
  sieve_registry_options_init(&options, sizeof options);
  options.model_options = &model_options;
  if (EXPECT_OK(sieve_registry_open(root, &options, &registry))) {
    EXPECT_CODE(sieve_registry_get(registry, "emb-a", &a), SIEVE_INVALID_ARGUMENT);
  }
  sieve_registry_destroy(registry);
  registry = NULL;
  options.struct_size = offsetof(sieve_registry_options, model_options);
  if (EXPECT_OK(sieve_registry_open(root, &options, &registry))) {
    EXPECT_OK(sieve_registry_get(registry, "emb-a", &a));
  }
  sieve_model_destroy(a);
  sieve_registry_destroy(registry);
  a = NULL;
  registry = NULL;
  options.struct_size = 0;
  EXPECT_CODE(sieve_registry_open(root, &options, &registry), SIEVE_INVALID_ARGUMENT);

  /* A budget for one tiny model but not two (the estimate is about the files'
     size: ONNX file plus tokenizer.json). */
  join(path, sizeof path, cfg->fixtures, "tiny-bert-tokens/model.onnx");
  bytes = file_size(path);
  join(path, sizeof path, cfg->fixtures, "tiny-bert-tokens/tokenizer.json");
  bytes += file_size(path);
  sieve_registry_options_init(&options, sizeof options);
  options.memory_budget = (uint64_t)(2 * bytes - 1);
  if (CHECK(bytes > 0) && EXPECT_OK(sieve_registry_open(root, &options, &registry))) {
    if (EXPECT_OK(sieve_registry_get(registry, "emb-a", &a))) {
      sieve_model_destroy(a); /* nobody holds emb-a now */
      a = NULL;
      if (EXPECT_OK(sieve_registry_get(registry, "emb-b", &b))) {
        CHECK(entry_loaded(registry, "emb-a") == 0);
        CHECK(entry_loaded(registry, "emb-b") == 1);
        /* emb-b is held: loading emb-a again cannot evict it. */
        if (EXPECT_OK(sieve_registry_get(registry, "emb-a", &a))) {
          CHECK(entry_loaded(registry, "emb-a") == 1);
          CHECK(entry_loaded(registry, "emb-b") == 1);
        }
      }
    }
  }
  sieve_model_destroy(a);
  sieve_model_destroy(b);
  sieve_registry_destroy(registry);
}

/* ---- Sparse embedding -------------------------------------------------------- */

/* The sparse (SPLADE) fixture: FIXTURES/splade-tiny, exported from a real
   model by the fixtures stage of scripts/test.sh; with --fast (valgrind, where
   its vocabulary-wide layers take minutes) FIXTURES/tiny-splade, random
   weights from tools/make_fixtures.py, whose raw logits Sieve pools itself.
   Where scripts/test.sh runs (it sets SIEVE_TEST_TIER; CI runs it) a missing
   one fails; elsewhere the sparse checks are skipped with a note. */
static int sparse_fixture(const config* cfg, char* folder, size_t size, int quiet) {
  const char* tier = getenv("SIEVE_TEST_TIER");
  join(folder, size, cfg->fixtures, cfg->fast ? "tiny-splade" : "splade-tiny");
  if (exists(folder)) return 1;
  if (tier != NULL && tier[0] != '\0') {
    CHECK(!"the sparse fixture exists (SIEVE_TEST_TIER is set: scripts/test.sh makes it)");
    fprintf(stderr, "  missing %s\n", folder);
  } else if (!quiet) {
    fprintf(stderr, "note: no %s (scripts/test.sh makes it): sparse embedding checks skipped\n", folder);
  }
  return 0;
}

typedef struct sparse_view {
  const uint32_t* ids;
  const float* weights;
  size_t size;
} sparse_view;

static sparse_view sparse_get(const sieve_sparse_embeddings* list, size_t index) {
  sparse_view v;
  memset(&v, 0, sizeof v);
  EXPECT_OK(sieve_sparse_embeddings_get(list, index, &v.ids, &v.weights, &v.size));
  return v;
}

/* The vectors of `count` texts, or NULL (a failed check). */
static sieve_sparse_embeddings* embed_sparse(const sieve_model* model, const sieve_text* texts, size_t count,
                                             const sieve_sparse_options* options) {
  sieve_sparse_embeddings* list = NULL;
  if (!EXPECT_OK(sieve_embed_sparse(model, texts, count, options, &list))) return NULL;
  if (!CHECK(list != NULL && sieve_sparse_embeddings_count(list) == count)) {
    sieve_sparse_embeddings_destroy(list);
    return NULL;
  }
  return list;
}

/* Ids strictly ascending and below the vocabulary size, weights finite and
   above `floor`; NULL arrays for an empty vector. */
static int sparse_well_formed(sparse_view v, size_t vocabulary, float floor) {
  size_t i;
  if (v.size == 0) return v.ids == NULL && v.weights == NULL;
  if (v.ids == NULL || v.weights == NULL) return 0;
  for (i = 0; i < v.size; ++i) {
    if (v.ids[i] >= vocabulary || (i > 0 && v.ids[i] <= v.ids[i - 1])) return 0;
    if (!isfinite(v.weights[i]) || !(v.weights[i] > floor)) return 0;
  }
  return 1;
}

static int sparse_identical(sparse_view a, sparse_view b) {
  return a.size == b.size && (a.size == 0 || (memcmp(a.ids, b.ids, a.size * sizeof *a.ids) == 0 &&
                                              memcmp(a.weights, b.weights, a.size * sizeof *a.weights) == 0));
}

/* The weight of `id` in v, 0 when absent. */
static float sparse_weight(sparse_view v, uint32_t id) {
  size_t i;
  for (i = 0; i < v.size; ++i) {
    if (v.ids[i] == id) return v.weights[i];
  }
  return 0.0f;
}

/* The same vector up to float noise (padding to another batch length): every
   weight within `tolerance` of the other's (0 where absent). */
static int sparse_close(sparse_view a, sparse_view b, float tolerance) {
  size_t i;
  for (i = 0; i < a.size; ++i) {
    if (!(fabsf(a.weights[i] - sparse_weight(b, a.ids[i])) <= tolerance)) return 0;
  }
  for (i = 0; i < b.size; ++i) {
    if (!(fabsf(b.weights[i] - sparse_weight(a, b.ids[i])) <= tolerance)) return 0;
  }
  return 1;
}

/* Whether `pruned` is `full` pruned as the header says: the weights above
   min_weight, then the top_k largest of them (ties: the smaller id), by id. */
static int sparse_pruned(sparse_view full, sparse_view pruned, size_t top_k, float min_weight) {
  size_t i, kept = 0, above = 0;
  for (i = 0; i < full.size; ++i) above += full.weights[i] > min_weight;
  if (pruned.size != (top_k == 0 || above < top_k ? above : top_k)) return 0;
  for (i = 0; i < full.size; ++i) {
    /* Entry i is kept when fewer than top_k others beat it. */
    size_t j, better = 0;
    int keep = full.weights[i] > min_weight;
    for (j = 0; keep && top_k != 0 && j < full.size; ++j) {
      better += full.weights[j] > min_weight && (full.weights[j] > full.weights[i] ||
                                                 (full.weights[j] == full.weights[i] && full.ids[j] < full.ids[i]));
    }
    if (top_k != 0 && better >= top_k) keep = 0;
    if (!keep) continue;
    if (kept >= pruned.size || pruned.ids[kept] != full.ids[i] || pruned.weights[kept] != full.weights[i]) return 0;
    ++kept;
  }
  return kept == pruned.size;
}

static void test_sparse_options_init(void) {
  sieve_sparse_options o;
  struct {
    sieve_sparse_options known;
    uint64_t future_field;
  } newer;
  memset(&o, 0xA5, sizeof o);
  sieve_sparse_options_init(&o, sizeof o);
  CHECK(o.struct_size == sizeof o && o.top_k == 0 && o.min_weight == 0.0f);
  /* An older caller's size: nothing past it is written. */
  memset(&o, SENTINEL_BYTE, sizeof o);
  sieve_sparse_options_init(&o, offsetof(sieve_sparse_options, min_weight));
  CHECK(o.struct_size == offsetof(sieve_sparse_options, min_weight) && o.top_k == 0);
  CHECK(untouched((char*)&o + offsetof(sieve_sparse_options, min_weight),
                  sizeof o - offsetof(sieve_sparse_options, min_weight)));
  /* A newer caller's size: the unknown tail is zeroed. */
  memset(&newer, SENTINEL_BYTE, sizeof newer);
  sieve_sparse_options_init(&newer.known, sizeof newer);
  CHECK(newer.known.struct_size == sizeof newer && newer.future_field == 0 && newer.known.top_k == 0);
  memset(&o, SENTINEL_BYTE, sizeof o);
  sieve_sparse_options_init(&o, 0);
  sieve_sparse_options_init(&o, sizeof(size_t) - 1);
  CHECK(untouched(&o, sizeof o));
  sieve_sparse_options_init(NULL, sizeof o);
}

/* What a sparse model's kind allows and refuses, loading included. */
static void test_sparse_kinds(const config* cfg, const char* folder, const sieve_model* sparse,
                              const sieve_model* embedder, const sieve_model* reranker) {
  sieve_model_options options;
  sieve_model* model = NULL;
  sieve_sparse_embeddings* list = NULL;
  sieve_text texts[SENTENCE_COUNT];
  float out[64], scores[2];
  size_t floats = 0, count = 0;
  char tiny[PATH_MAX];
  sieve_status* status;

  sentence_texts(texts);
  join(tiny, sizeof tiny, cfg->fixtures, "tiny-bert-tokens");
  /* Loading with a kind: only SPARSE (or AUTO) loads a SPLADE folder, and
     SPARSE loads nothing else. */
  sieve_model_options_init(&options, sizeof options);
  options.kind = SIEVE_KIND_SPARSE;
  if (EXPECT_OK(sieve_model_load(folder, &options, &model))) CHECK(model_info(model).kind == SIEVE_KIND_SPARSE);
  sieve_model_destroy(model);
  model = NULL;
  options.kind = SIEVE_KIND_EMBEDDING;
  status = EXPECT_KEEP(sieve_model_load(folder, &options, &model), SIEVE_WRONG_KIND);
  CHECK(strstr(sieve_status_message(status), "sparse") != NULL);
  sieve_status_destroy(status);
  options.kind = SIEVE_KIND_RERANKER;
  EXPECT_CODE(sieve_model_load(folder, &options, &model), SIEVE_WRONG_KIND);
  options.kind = SIEVE_KIND_SPARSE;
  status = EXPECT_KEEP(sieve_model_load(tiny, &options, &model), SIEVE_WRONG_KIND);
  CHECK(strstr(sieve_status_message(status), "dense embedding model") != NULL);
  sieve_status_destroy(status);
  EXPECT_CODE(sieve_model_load(cfg->reranker, &options, &model), SIEVE_WRONG_KIND);
  CHECK(model == NULL);

  /* Options a sparse model cannot honour. */
  sieve_model_options_init(&options, sizeof options);
  options.pooling = "mean";
  EXPECT_CODE(sieve_model_load(folder, &options, &model), SIEVE_INVALID_ARGUMENT);
  sieve_model_options_init(&options, sizeof options);
  options.dimensions = 8;
  EXPECT_CODE(sieve_model_load(folder, &options, &model), SIEVE_INVALID_ARGUMENT);
  sieve_model_options_init(&options, sizeof options);
  options.normalize = 1;
  EXPECT_CODE(sieve_model_load(folder, &options, &model), SIEVE_INVALID_ARGUMENT);
  options.normalize = 0;
  if (EXPECT_OK(sieve_model_load(folder, &options, &model))) CHECK(model_info(model).normalize == 0);
  sieve_model_destroy(model);

  /* Dense calls on the sparse model name the call to use. */
  status = EXPECT_KEEP(sieve_embed(sparse, texts, 1, out, 64), SIEVE_WRONG_KIND);
  CHECK(strstr(sieve_status_message(status), "sieve_embed_sparse") != NULL);
  sieve_status_destroy(status);
  status = EXPECT_KEEP(sieve_embed_size(sparse, 1, &floats), SIEVE_WRONG_KIND);
  CHECK(strstr(sieve_status_message(status), "sieve_embed_sparse") != NULL);
  sieve_status_destroy(status);
  EXPECT_CODE(sieve_score(sparse, texts[0], texts, 2, scores, 2), SIEVE_WRONG_KIND);
  EXPECT_CODE(sieve_rerank(sparse, texts[0], texts, 2, 0, NULL, 0, &count), SIEVE_WRONG_KIND);
  EXPECT_CODE(sieve_classify(sparse, texts, NULL, 1, 0, out, 64), SIEVE_WRONG_KIND);
  /* And sparse calls on the other kinds. */
  status = EXPECT_KEEP(sieve_embed_sparse(embedder, texts, 1, NULL, &list), SIEVE_WRONG_KIND);
  CHECK(strstr(sieve_status_message(status), "sieve_embed") != NULL);
  sieve_status_destroy(status);
  EXPECT_CODE(sieve_embed_sparse(reranker, texts, 1, NULL, &list), SIEVE_WRONG_KIND);
  CHECK(list == NULL);
  /* The model's tokenizer works as any model's. */
  if (CHECK(sieve_model_tokenizer(sparse) != NULL)) {
    sieve_encoding* encoding = NULL;
    if (EXPECT_OK(sieve_tokenize(sieve_model_tokenizer(sparse), texts[0], NULL, 1, &encoding))) {
      CHECK(sieve_encoding_size(encoding) > 2);
    }
    sieve_encoding_destroy(encoding);
  }
}

static void test_sparse_errors(const sieve_model* sparse, size_t vocabulary) {
  sieve_sparse_embeddings* list = NULL;
  sieve_sparse_options options;
  sieve_text texts[SENTENCE_COUNT], bad[4];
  sieve_status* status;
  sparse_view v;
  struct {
    sieve_sparse_options known;
    uint64_t future_field;
  } newer;

  sentence_texts(texts);
  EXPECT_CODE(sieve_embed_sparse(NULL, texts, 1, NULL, &list), SIEVE_INVALID_ARGUMENT);
  EXPECT_CODE(sieve_embed_sparse(sparse, texts, 1, NULL, NULL), SIEVE_INVALID_ARGUMENT);
  EXPECT_CODE(sieve_embed_sparse(sparse, NULL, 1, NULL, &list), SIEVE_INVALID_ARGUMENT);
  bad[0] = cstr("fine");
  bad[1] = make_text(NULL, 3);
  EXPECT_CODE(sieve_embed_sparse(sparse, bad, 2, NULL, &list), SIEVE_INVALID_ARGUMENT);
  CHECK(list == NULL);

  /* Options out of range: a negative or NaN floor, an uninitialized struct,
     a newer header's field set. */
  sieve_sparse_options_init(&options, sizeof options);
  options.min_weight = -0.5f;
  EXPECT_CODE(sieve_embed_sparse(sparse, texts, 1, &options, &list), SIEVE_INVALID_ARGUMENT);
  options.min_weight = (float)NAN;
  EXPECT_CODE(sieve_embed_sparse(sparse, texts, 1, &options, &list), SIEVE_INVALID_ARGUMENT);
  sieve_sparse_options_init(&options, sizeof options);
  options.struct_size = 0;
  EXPECT_CODE(sieve_embed_sparse(sparse, texts, 1, &options, &list), SIEVE_INVALID_ARGUMENT);
  sieve_sparse_options_init(&newer.known, sizeof newer);
  newer.future_field = 1;
  EXPECT_CODE(sieve_embed_sparse(sparse, texts, 1, &newer.known, &list), SIEVE_INVALID_ARGUMENT);
  CHECK(list == NULL);
  newer.future_field = 0;
  if (EXPECT_OK(sieve_embed_sparse(sparse, texts, 1, &newer.known, &list))) {
    CHECK(sieve_sparse_embeddings_count(list) == 1);
  }
  sieve_sparse_embeddings_destroy(list);
  list = NULL;

  /* count 0: an empty list, texts or not. */
  if (EXPECT_OK(sieve_embed_sparse(sparse, NULL, 0, NULL, &list))) {
    CHECK(list != NULL && sieve_sparse_embeddings_count(list) == 0);
    EXPECT_CODE(sieve_sparse_embeddings_get(list, 0, &v.ids, &v.weights, &v.size), SIEVE_INVALID_ARGUMENT);
  }
  sieve_sparse_embeddings_destroy(list);
  list = NULL;
  if (EXPECT_OK(sieve_embed_sparse(sparse, texts, 0, NULL, &list))) CHECK(sieve_sparse_embeddings_count(list) == 0);
  sieve_sparse_embeddings_destroy(list);
  list = NULL;

  /* Invalid UTF-8: the first bad text's index, and no list. */
  bad[0] = cstr("valid");
  bad[1] = cstr("also valid");
  bad[2] = TEXT_LIT("broken \xff byte");
  bad[3] = TEXT_LIT("ends inside a character \xe2\x82");
  status = EXPECT_KEEP(sieve_embed_sparse(sparse, bad, 4, NULL, &list), SIEVE_INVALID_INPUT);
  CHECK(sieve_status_input_index(status) == 2);
  sieve_status_destroy(status);
  CHECK(list == NULL);

  /* Getting a vector: every parameter is checked. */
  list = embed_sparse(sparse, texts, 2, NULL);
  if (list != NULL) {
    EXPECT_CODE(sieve_sparse_embeddings_get(NULL, 0, &v.ids, &v.weights, &v.size), SIEVE_INVALID_ARGUMENT);
    EXPECT_CODE(sieve_sparse_embeddings_get(list, 2, &v.ids, &v.weights, &v.size), SIEVE_INVALID_ARGUMENT);
    EXPECT_CODE(sieve_sparse_embeddings_get(list, SIZE_MAX, &v.ids, &v.weights, &v.size), SIEVE_INVALID_ARGUMENT);
    EXPECT_CODE(sieve_sparse_embeddings_get(list, 0, NULL, &v.weights, &v.size), SIEVE_INVALID_ARGUMENT);
    EXPECT_CODE(sieve_sparse_embeddings_get(list, 0, &v.ids, NULL, &v.size), SIEVE_INVALID_ARGUMENT);
    EXPECT_CODE(sieve_sparse_embeddings_get(list, 0, &v.ids, &v.weights, NULL), SIEVE_INVALID_ARGUMENT);
    CHECK(sparse_well_formed(sparse_get(list, 1), vocabulary, 0.0f));
  }
  sieve_sparse_embeddings_destroy(list);
}

/* `pruned_texts`: how many of the sentences the pruning checks embed (fewer under valgrind). */
static void test_sparse_vectors(const sieve_model* sparse, size_t vocabulary, size_t pruned_texts) {
  sieve_text texts[SENTENCE_COUNT];
  sieve_sparse_embeddings *batch, *again, *single, *pruned;
  sieve_sparse_options options;
  static const size_t kTopK[] = {1, 2, 5, 17, 100000};
  size_t i, k;

  sentence_texts(texts);
  batch = embed_sparse(sparse, texts, SENTENCE_COUNT, NULL);
  if (batch == NULL) return;
  for (i = 0; i < SENTENCE_COUNT; ++i) {
    const sparse_view v = sparse_get(batch, i);
    if (!CHECK(sparse_well_formed(v, vocabulary, 0.0f) && v.size > 0)) {
      fprintf(stderr, "  text %lu: %lu entries\n", (unsigned long)i, (unsigned long)v.size);
    }
    /* Each text alone is its row of the batch, up to padding's float noise. */
    single = embed_sparse(sparse, &texts[i], 1, NULL);
    if (single != NULL && !CHECK(sparse_close(sparse_get(single, 0), v, 1e-4f))) {
      fprintf(stderr, "  text %lu differs alone and in the batch\n", (unsigned long)i);
    }
    sieve_sparse_embeddings_destroy(single);
  }
  /* Different texts, different vectors; the same texts, the same bits. */
  CHECK(!sparse_close(sparse_get(batch, 0), sparse_get(batch, 2), 1e-3f));
  again = embed_sparse(sparse, texts, SENTENCE_COUNT, NULL);
  if (again != NULL) {
    for (i = 0; i < SENTENCE_COUNT; ++i) CHECK(sparse_identical(sparse_get(again, i), sparse_get(batch, i)));
  }
  sieve_sparse_embeddings_destroy(again);

  /* NULL options are the defaults. */
  sieve_sparse_options_init(&options, sizeof options);
  again = embed_sparse(sparse, texts, SENTENCE_COUNT, &options);
  if (again != NULL) {
    for (i = 0; i < SENTENCE_COUNT; ++i) CHECK(sparse_identical(sparse_get(again, i), sparse_get(batch, i)));
  }
  sieve_sparse_embeddings_destroy(again);

  /* top_k, min_weight and both: the full vectors pruned as the header says. */
  for (k = 0; k < sizeof kTopK / sizeof kTopK[0]; ++k) {
    sieve_sparse_options_init(&options, sizeof options);
    options.top_k = kTopK[k];
    pruned = embed_sparse(sparse, texts, pruned_texts, &options);
    for (i = 0; pruned != NULL && i < pruned_texts; ++i) {
      if (!CHECK(sparse_pruned(sparse_get(batch, i), sparse_get(pruned, i), kTopK[k], 0.0f))) {
        fprintf(stderr, "  top_k %lu, text %lu\n", (unsigned long)kTopK[k], (unsigned long)i);
      }
    }
    sieve_sparse_embeddings_destroy(pruned);
  }
  {
    /* A floor in the middle of the first text's weights: exactly the weights
       above it stay; with top_k, the largest of those. */
    const sparse_view first = sparse_get(batch, 0);
    const float floor = first.size > 0 ? first.weights[first.size / 2] : 0.5f;
    sieve_sparse_options_init(&options, sizeof options);
    options.min_weight = floor;
    pruned = embed_sparse(sparse, texts, pruned_texts, &options);
    for (i = 0; pruned != NULL && i < pruned_texts; ++i) {
      CHECK(sparse_pruned(sparse_get(batch, i), sparse_get(pruned, i), 0, floor));
      CHECK(sparse_well_formed(sparse_get(pruned, i), vocabulary, floor));
    }
    sieve_sparse_embeddings_destroy(pruned);
    options.top_k = 3;
    pruned = embed_sparse(sparse, texts, pruned_texts, &options);
    for (i = 0; pruned != NULL && i < pruned_texts; ++i) {
      CHECK(sparse_pruned(sparse_get(batch, i), sparse_get(pruned, i), 3, floor));
    }
    sieve_sparse_embeddings_destroy(pruned);
    /* An older caller's options without min_weight: it is not read. */
    options.struct_size = offsetof(sieve_sparse_options, min_weight);
    pruned = embed_sparse(sparse, texts, pruned_texts, &options);
    for (i = 0; pruned != NULL && i < pruned_texts; ++i) {
      CHECK(sparse_pruned(sparse_get(batch, i), sparse_get(pruned, i), 3, 0.0f));
    }
    sieve_sparse_embeddings_destroy(pruned);
  }
  /* A floor above every weight: empty vectors, NULL arrays. */
  sieve_sparse_options_init(&options, sizeof options);
  options.min_weight = 1e30f;
  pruned = embed_sparse(sparse, texts, pruned_texts, &options);
  for (i = 0; pruned != NULL && i < pruned_texts; ++i) {
    const sparse_view v = sparse_get(pruned, i);
    CHECK(v.size == 0 && v.ids == NULL && v.weights == NULL);
  }
  sieve_sparse_embeddings_destroy(pruned);
  sieve_sparse_embeddings_destroy(batch);
}

/* The registry lists a SPLADE folder as SPARSE and hands out the same model. */
static void test_sparse_registry(const config* cfg, const char* folder, const sieve_model* sparse) {
  char root[PATH_MAX], to[PATH_MAX];
  const sieve_model_info info = model_info(sparse);
  sieve_registry* registry = NULL;
  sieve_model_list* list = NULL;
  sieve_model* model = NULL;
  sieve_text texts[SENTENCE_COUNT];
  sentence_texts(texts);
  join(root, sizeof root, cfg->tmp, "sparse-models");
  join(to, sizeof to, root, "splade");
  if (!CHECK(mkdir(root, 0755) == 0 && link_folder(folder, to))) return;
  if (!EXPECT_OK(sieve_registry_open(root, NULL, &registry))) return;
  if (EXPECT_OK(sieve_registry_list(registry, &list)) && CHECK(sieve_model_list_size(list) == 1)) {
    const sieve_registry_entry entry = list_entry(list, 0);
    CHECK(entry.kind == SIEVE_KIND_SPARSE && entry.error != NULL && entry.error[0] == '\0');
    CHECK(entry.dimension == info.dimension && entry.max_length == info.max_length);
  }
  sieve_model_list_destroy(list);
  if (EXPECT_OK(sieve_registry_get(registry, "splade", &model))) {
    sieve_sparse_embeddings *got, *want;
    const sieve_model_info got_info = model_info(model);
    CHECK(got_info.kind == SIEVE_KIND_SPARSE && got_info.dimension == info.dimension);
    CHECK(strcmp(got_info.pooling, info.pooling) == 0);
    got = embed_sparse(model, texts, SENTENCE_COUNT, NULL);
    want = embed_sparse(sparse, texts, SENTENCE_COUNT, NULL);
    if (got != NULL && want != NULL) {
      size_t i;
      for (i = 0; i < SENTENCE_COUNT; ++i) CHECK(sparse_identical(sparse_get(got, i), sparse_get(want, i)));
    }
    sieve_sparse_embeddings_destroy(got);
    sieve_sparse_embeddings_destroy(want);
  }
  sieve_model_destroy(model);
  sieve_registry_destroy(registry);
}

static void test_sparse(const config* cfg, const sieve_model* embedder, const sieve_model* reranker) {
  char folder[PATH_MAX];
  sieve_model* sparse;
  sieve_model_info info;
  if (!sparse_fixture(cfg, folder, sizeof folder, 0)) return;
  sparse = load_model(folder, NULL);
  if (sparse == NULL) return;
  info = model_info(sparse);
  CHECK(info.kind == SIEVE_KIND_SPARSE);
  /* A vocabulary: BERT's 30,522, or more for other tokenizers. */
  CHECK(info.dimension >= 1000);
  CHECK(info.max_length > 0 && info.normalize == 0);
  CHECK(info.pooling != NULL && (strcmp(info.pooling, "splade max") == 0 || strcmp(info.pooling, "splade sum") == 0 ||
                                 strcmp(info.pooling, "model") == 0));
  CHECK(info.providers != NULL && strcmp(info.providers, "cpu") == 0);
  CHECK(same_file(info.folder, folder));
  test_sparse_kinds(cfg, folder, sparse, embedder, reranker);
  test_sparse_errors(sparse, info.dimension);
  test_sparse_vectors(sparse, info.dimension, cfg->fast ? 3 : SENTENCE_COUNT);
  test_sparse_registry(cfg, folder, sparse);
  sieve_model_destroy(sparse);
}

/* ---- Threads --------------------------------------------------------------- */

struct worker {
  const sieve_model* embedder;
  const sieve_model* reranker;
  const float* vectors; /* expected, from one thread */
  const float* scores;
  size_t dim;
  int mismatches;
};

static void* work(void* arg) {
  struct worker* w = (struct worker*)arg;
  sieve_text texts[SENTENCE_COUNT];
  float* vectors = malloc(SENTENCE_COUNT * w->dim * sizeof(float));
  float scores[SENTENCE_COUNT];
  int round;
  sentence_texts(texts);
  if (vectors == NULL) {
    w->mismatches = 1;
    return NULL;
  }
  for (round = 0; round < 3; ++round) {
    sieve_status* s = sieve_embed(w->embedder, texts, SENTENCE_COUNT, vectors, SENTENCE_COUNT * w->dim);
    if (s != NULL || memcmp(vectors, w->vectors, SENTENCE_COUNT * w->dim * sizeof(float)) != 0) ++w->mismatches;
    sieve_status_destroy(s);
    s = sieve_score(w->reranker, texts[0], texts, SENTENCE_COUNT, scores, SENTENCE_COUNT);
    if (s != NULL || memcmp(scores, w->scores, sizeof scores) != 0) ++w->mismatches;
    sieve_status_destroy(s);
  }
  free(vectors);
  return NULL;
}

/* One model used by several threads at once gives every thread the answers
   of one thread alone. */
static void test_threads(const sieve_model* embedder, const sieve_model* reranker) {
  enum { kThreads = 4 };
  struct worker workers[kThreads];
  pthread_t threads[kThreads];
  sieve_text texts[SENTENCE_COUNT];
  const size_t dim = model_info(embedder).dimension;
  float *vectors, *scores;
  int i;
  sentence_texts(texts);
  vectors = embed_all(embedder, texts, SENTENCE_COUNT, dim);
  scores = score_all(reranker, texts[0], texts, SENTENCE_COUNT);
  if (vectors != NULL && scores != NULL) {
    for (i = 0; i < kThreads; ++i) {
      workers[i].embedder = embedder;
      workers[i].reranker = reranker;
      workers[i].vectors = vectors;
      workers[i].scores = scores;
      workers[i].dim = dim;
      workers[i].mismatches = 0;
      CHECK(pthread_create(&threads[i], NULL, work, &workers[i]) == 0);
    }
    for (i = 0; i < kThreads; ++i) {
      CHECK(pthread_join(threads[i], NULL) == 0);
      CHECK(workers[i].mismatches == 0);
    }
  }
  free(vectors);
  free(scores);
}

/* ---- Search ------------------------------------------------------------------ */

/* The index the search checks use: made by the sieve command (the C ABI reads
   indexes, `sieve index add` writes them) from a few documents with metadata. */
typedef struct search_setup {
  char index[PATH_MAX];
  char embedder[PATH_MAX]; /* the index's model: tiny-bert-tokens */
  int ready;
} search_setup;

/* $SIEVE_BIN, else the sieve command beside this program (both are built into
   the build folder). */
static int find_sieve_command(char* out, size_t size) {
  const char* env = getenv("SIEVE_BIN");
  char self[PATH_MAX];
  char* slash;
  ssize_t n;
  if (env != NULL && env[0] != '\0') {
    if (strlen(env) >= size) return 0;
    strcpy(out, env);
    return exists(out);
  }
  n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return 0;
  self[n] = '\0';
  slash = strrchr(self, '/');
  if (slash == NULL) return 0;
  *slash = '\0';
  join(out, size, self, "sieve");
  return exists(out);
}

/* Runs argv[0] with its output discarded; whether it exited with status 0. */
static int run_program(char* const argv[]) {
  int status = 0;
  const pid_t pid = fork();
  if (pid < 0) return 0;
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, STDOUT_FILENO);
    execv(argv[0], argv);
    _exit(127);
  }
  if (waitpid(pid, &status, 0) != pid) return 0;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static const char kJsonlDocuments[] =
    "{\"id\": \"r1\", \"text\": \"Rivers carry sediment to deltas.\", \"region\": \"europe\"}\n"
    "{\"id\": \"r2\", \"text\": \"A lagoon behind the reef, a marsh beside the delta.\", \"region\": \"pacific\"}\n"
    "{\"id\": \"r3\", \"text\": \"Volcanic islands rise from the ocean floor.\", \"region\": \"pacific\"}\n"
    "{\"id\": \"r4\", \"text\": \"Tundra and glaciers cover the far north.\", \"region\": \"arctic\"}\n";

static int make_search_index(const config* cfg, search_setup* setup) {
  char sieve[PATH_MAX], docs[PATH_MAX], path[PATH_MAX];
  static const char kMarkdown[] = "---\ntitle: Reefs\nregion: pacific\n---\n# Coral\n\nCoral reefs shelter fish.";
  static const char kText[] = "Glaciers carve deep valleys over thousands of years.";
  memset(setup, 0, sizeof *setup);
  join(setup->embedder, sizeof setup->embedder, cfg->fixtures, "tiny-bert-tokens");
  join(setup->index, sizeof setup->index, cfg->tmp, "search-index");
  join(docs, sizeof docs, cfg->tmp, "search-docs");
  if (!find_sieve_command(sieve, sizeof sieve)) {
    fprintf(stderr, "note: no sieve command beside the test (or in $SIEVE_BIN): search checks skipped\n");
    return 0;
  }
  if (mkdir(docs, 0755) != 0) return 0;
  join(path, sizeof path, docs, "a.txt");
  if (!write_file(path, kText, sizeof kText - 1)) return 0;
  join(path, sizeof path, docs, "b.md");
  if (!write_file(path, kMarkdown, sizeof kMarkdown - 1)) return 0;
  join(path, sizeof path, docs, "c.jsonl");
  if (!write_file(path, kJsonlDocuments, sizeof kJsonlDocuments - 1)) return 0;
  {
    char* argv[] = {sieve,        "--log-level", "warn",          "index",   "add", "--index",
                    setup->index, "--model",     setup->embedder, "--quiet", docs,  NULL};
    setup->ready = run_program(argv);
  }
  CHECK(setup->ready);
  return setup->ready;
}

static sieve_search_hit search_hit(const sieve_search_results* results, size_t index) {
  sieve_search_hit hit;
  memset(&hit, 0, sizeof hit);
  hit.struct_size = sizeof hit;
  EXPECT_OK(sieve_search_results_get(results, index, &hit));
  return hit;
}

static sieve_search_results* search(const sieve_index* index, const sieve_model* embedder, const sieve_model* reranker,
                                    const char* query, const sieve_search_options* options) {
  sieve_search_results* results = NULL;
  EXPECT_OK(sieve_index_search(index, embedder, reranker, cstr(query), options, &results));
  return results;
}

/* The same hits (chunks and scores, in order). */
static int same_hits(const sieve_search_results* a, const sieve_search_results* b) {
  size_t i;
  if (a == NULL || b == NULL || sieve_search_results_size(a) != sieve_search_results_size(b)) return 0;
  for (i = 0; i < sieve_search_results_size(a); ++i) {
    const sieve_search_hit x = search_hit(a, i), y = search_hit(b, i);
    if (x.chunk_id != y.chunk_id || x.score != y.score) return 0;
  }
  return 1;
}

static int nul_terminated(sieve_text text) {
  return text.data != NULL && text.data[text.size] == '\0' && strlen(text.data) == text.size;
}

static void check_hits(const sieve_search_results* results, sieve_search_mode mode, int reranked) {
  size_t i, m;
  for (i = 0; i < sieve_search_results_size(results); ++i) {
    const sieve_search_hit hit = search_hit(results, i);
    CHECK(nul_terminated(hit.document_id) && hit.document_id.size > 0);
    CHECK(nul_terminated(hit.source) && hit.source.size > 0);
    CHECK(nul_terminated(hit.title));
    CHECK(nul_terminated(hit.text) && hit.text.size > 0);
    CHECK(hit.chunk_begin < hit.chunk_end);
    CHECK(hit.metadata_json != NULL && hit.metadata_json[0] == '{' &&
          hit.metadata_json[strlen(hit.metadata_json) - 1] == '}');
    CHECK((hit.match_count == 0) == (hit.matches == NULL));
    for (m = 0; m < hit.match_count; ++m) {
      CHECK(hit.matches[2 * m] < hit.matches[2 * m + 1] && hit.matches[2 * m + 1] <= hit.text.size);
    }
    CHECK(isnan(hit.rerank_score) == !reranked);
    if (reranked) {
      CHECK(hit.score == hit.rerank_score);
    } else if (mode == SIEVE_SEARCH_BM25) {
      CHECK(hit.score == hit.bm25_score && isnan(hit.vector_score));
    } else if (mode == SIEVE_SEARCH_VECTOR) {
      CHECK(hit.score == hit.vector_score && isnan(hit.bm25_score));
    }
    if (i > 0) CHECK(search_hit(results, i - 1).score >= hit.score);
  }
}

static void test_search_options_init(void) {
  sieve_search_options options;
  unsigned char bigger[sizeof(sieve_search_options) + 16];
  size_t i;
  memset(&options, 0x5A, sizeof options);
  sieve_search_options_init(&options, sizeof options);
  CHECK(options.struct_size == sizeof options);
  CHECK(options.k == 10);
  CHECK(options.mode == SIEVE_SEARCH_HYBRID);
  CHECK(options.rerank_candidates == 20);
  CHECK(options.exact == 0);
  CHECK(options.ef_search == 64);
  CHECK(options.filter_keys == NULL && options.filter_values == NULL && options.filter_count == 0);
  CHECK(options.per_document == 2 && options.offset == 0);
  CHECK(options.formats == NULL && options.format_count == 0 && options.folders == NULL && options.folder_count == 0);
  /* A newer caller's larger struct: the tail is zeroed. */
  memset(bigger, 0x5A, sizeof bigger);
  sieve_search_options_init((sieve_search_options*)(void*)bigger, sizeof bigger);
  for (i = sizeof(sieve_search_options); i < sizeof bigger; ++i) CHECK(bigger[i] == 0);
  sieve_search_options_init(NULL, sizeof options); /* ignored */
}

static void test_search_errors(const config* cfg, const search_setup* setup, const sieve_index* index,
                               const sieve_model* reranker) {
  char path[PATH_MAX];
  sieve_index* other = (sieve_index*)&other; /* set to NULL by a failing open */
  sieve_search_results* results = (sieve_search_results*)&results;
  sieve_search_options options;
  sieve_search_hit hit;
  sieve_model* wrong = NULL;
  char* json = (char*)&json;
  const sieve_text keys[1] = {{"region", 6}};
  const sieve_text values[1] = {{"pacific", 7}};
  const sieve_text null_text[1] = {{NULL, 3}};
  int32_t bad_mode = 7;

  EXPECT_CODE(sieve_index_open(NULL, &other), SIEVE_INVALID_ARGUMENT);
  CHECK(other == NULL);
  EXPECT_CODE(sieve_index_open(setup->index, NULL), SIEVE_INVALID_ARGUMENT);
  join(path, sizeof path, cfg->tmp, "no-such-index");
  other = (sieve_index*)&other;
  EXPECT_CODE(sieve_index_open(path, &other), SIEVE_NOT_FOUND);
  CHECK(other == NULL);

  EXPECT_CODE(sieve_index_search(NULL, NULL, NULL, cstr("q"), NULL, &results), SIEVE_INVALID_ARGUMENT);
  CHECK(results == NULL);
  EXPECT_CODE(sieve_index_search(index, NULL, NULL, cstr("q"), NULL, NULL), SIEVE_INVALID_ARGUMENT);
  EXPECT_CODE(sieve_index_search(index, NULL, NULL, make_text(NULL, 2), NULL, &results), SIEVE_INVALID_ARGUMENT);
  EXPECT_CODE(sieve_index_search(index, NULL, NULL, make_text("", 0), NULL, &results), SIEVE_INVALID_INPUT);

  sieve_search_options_init(&options, sizeof options);
  options.mode = SIEVE_SEARCH_BM25;
  options.k = 0;
  EXPECT_CODE(sieve_index_search(index, NULL, NULL, cstr("q"), &options, &results), SIEVE_INVALID_ARGUMENT);
  options.k = 1001;
  EXPECT_CODE(sieve_index_search(index, NULL, NULL, cstr("q"), &options, &results), SIEVE_INVALID_ARGUMENT);
  options.k = 10;
  memcpy(&options.mode, &bad_mode, sizeof bad_mode);
  EXPECT_CODE(sieve_index_search(index, NULL, NULL, cstr("q"), &options, &results), SIEVE_INVALID_ARGUMENT);
  options.mode = SIEVE_SEARCH_BM25;
  options.filter_count = 1;
  EXPECT_CODE(sieve_index_search(index, NULL, NULL, cstr("q"), &options, &results), SIEVE_INVALID_ARGUMENT);
  options.filter_keys = keys;
  options.filter_values = null_text;
  EXPECT_CODE(sieve_index_search(index, NULL, NULL, cstr("q"), &options, &results), SIEVE_INVALID_ARGUMENT);
  options.filter_keys = null_text;
  options.filter_values = values;
  EXPECT_CODE(sieve_index_search(index, NULL, NULL, cstr("q"), &options, &results), SIEVE_INVALID_ARGUMENT);
  options.filter_count = 0;
  options.ef_search = 0;
  EXPECT_CODE(sieve_index_search(index, NULL, NULL, cstr("q"), &options, &results), SIEVE_INVALID_ARGUMENT);
  options.struct_size = 0;
  EXPECT_CODE(sieve_index_search(index, NULL, NULL, cstr("q"), &options, &results), SIEVE_INVALID_ARGUMENT);
  CHECK(results == NULL);

  /* Models of the wrong kind, and another embedding model than the index's. */
  EXPECT_CODE(sieve_index_search(index, reranker, NULL, cstr("q"), NULL, &results), SIEVE_WRONG_KIND);
  join(path, sizeof path, cfg->fixtures, "tiny-bert-cls");
  wrong = load_model(path, NULL);
  if (wrong != NULL) {
    EXPECT_CODE(sieve_index_search(index, NULL, wrong, cstr("q"), NULL, &results), SIEVE_WRONG_KIND);
    EXPECT_CODE(sieve_index_search(index, wrong, NULL, cstr("q"), NULL, &results), SIEVE_INVALID_ARGUMENT);
    /* BM25 uses no embedding model: the wrong one is not looked at. */
    sieve_search_options_init(&options, sizeof options);
    options.mode = SIEVE_SEARCH_BM25;
    if (EXPECT_OK(sieve_index_search(index, wrong, NULL, cstr("reefs"), &options, &results))) {
      CHECK(sieve_search_results_size(results) > 0);
      sieve_search_results_destroy(results);
    }
  }
  sieve_model_destroy(wrong);

  /* Results' accessors. */
  sieve_search_options_init(&options, sizeof options);
  options.mode = SIEVE_SEARCH_BM25;
  options.filter_keys = keys;
  options.filter_values = values;
  options.filter_count = 1;
  results = search(index, NULL, NULL, "reef", &options);
  if (results != NULL) {
    const size_t n = sieve_search_results_size(results);
    CHECK(n > 0);
    memset(&hit, 0, sizeof hit);
    hit.struct_size = sizeof hit;
    EXPECT_CODE(sieve_search_results_get(results, n, &hit), SIEVE_INVALID_ARGUMENT);
    EXPECT_CODE(sieve_search_results_get(results, 0, NULL), SIEVE_INVALID_ARGUMENT);
    EXPECT_CODE(sieve_search_results_get(NULL, 0, &hit), SIEVE_INVALID_ARGUMENT);
    hit.struct_size = 0;
    EXPECT_CODE(sieve_search_results_get(results, 0, &hit), SIEVE_INVALID_ARGUMENT);
    /* An older caller's shorter hit: nothing is written beyond it. */
    memset(&hit, SENTINEL_BYTE, sizeof hit);
    hit.struct_size = offsetof(sieve_search_hit, title);
    EXPECT_OK(sieve_search_results_get(results, 0, &hit));
    CHECK(hit.struct_size == offsetof(sieve_search_hit, title));
    CHECK(nul_terminated(hit.source));
    CHECK(untouched((const unsigned char*)&hit + offsetof(sieve_search_hit, title),
                    sizeof hit - offsetof(sieve_search_hit, title)));
    EXPECT_CODE(sieve_search_results_json(results, NULL, NULL), SIEVE_INVALID_ARGUMENT);
    EXPECT_CODE(sieve_search_results_json(NULL, &json, NULL), SIEVE_INVALID_ARGUMENT);
    CHECK(json == NULL);
  }
  sieve_search_results_destroy(results);
  json = (char*)&json;
  EXPECT_CODE(sieve_index_stats_json(NULL, &json, NULL), SIEVE_INVALID_ARGUMENT);
  CHECK(json == NULL);
  EXPECT_CODE(sieve_index_stats_json(index, NULL, NULL), SIEVE_INVALID_ARGUMENT);
}

struct search_worker {
  const sieve_index* index;
  const sieve_search_results* expected;
  int mismatches;
};

static void* search_work(void* arg) {
  struct search_worker* w = (struct search_worker*)arg;
  int round;
  for (round = 0; round < 5; ++round) {
    sieve_search_results* results = NULL;
    /* NULL embedder: the first searches race to load the index's own model. */
    sieve_status* s = sieve_index_search(w->index, NULL, NULL, cstr("islands and reefs"), NULL, &results);
    if (s != NULL || !same_hits(results, w->expected)) ++w->mismatches;
    sieve_status_destroy(s);
    sieve_search_results_destroy(results);
  }
  return NULL;
}

/* Searching, against the index's own answers: the model the index loads
   itself and a caller's handle of the same model agree, filters hold,
   reranking reorders, and threads share an index. */
static void test_search(const config* cfg, const search_setup* setup, const sieve_model* reranker, int rerank) {
  enum { kThreads = 4 };
  sieve_index* index = NULL;
  sieve_index* fresh = NULL;
  sieve_model* embedder = NULL;
  sieve_search_options options;
  sieve_search_results *own = NULL, *given = NULL, *filtered = NULL, *reranked = NULL, *expected = NULL;
  struct search_worker workers[kThreads];
  pthread_t threads[kThreads];
  const sieve_text keys[2] = {{"region", 6}, {"source", 6}};
  const sieve_text values[1] = {{"pacific", 7}};
  char *json = NULL, *stats = NULL, source[PATH_MAX];
  size_t json_size = 0, i;
  int modes[3] = {SIEVE_SEARCH_VECTOR, SIEVE_SEARCH_BM25, SIEVE_SEARCH_HYBRID}, m;

  test_search_options_init();
  if (!EXPECT_OK(sieve_index_open(setup->index, &index))) return;
  test_search_errors(cfg, setup, index, reranker);

  if (EXPECT_OK(sieve_index_stats_json(index, &stats, &json_size))) {
    CHECK(strlen(stats) == json_size);
    CHECK(strstr(stats, "\"documents\":6") != NULL);
    CHECK(strstr(stats, "tiny-bert-tokens") != NULL);
  }
  sieve_string_free(stats);

  embedder = load_model(setup->embedder, NULL);
  for (m = 0; m < 3; ++m) {
    sieve_search_options_init(&options, sizeof options);
    options.mode = (sieve_search_mode)modes[m];
    options.k = 5;
    own = search(index, NULL, NULL, "coral reefs and islands", &options);
    given = search(index, embedder, NULL, "coral reefs and islands", &options);
    /* BM25 finds only the chunks with words of the query. */
    CHECK(own != NULL &&
          (modes[m] == SIEVE_SEARCH_BM25 ? sieve_search_results_size(own) > 0 : sieve_search_results_size(own) == 5));
    CHECK(same_hits(own, given));
    if (own != NULL) check_hits(own, (sieve_search_mode)modes[m], 0);
    /* The graph and the exact search agree on an index this small. */
    options.exact = 1;
    sieve_search_results_destroy(given);
    given = search(index, embedder, NULL, "coral reefs and islands", &options);
    CHECK(same_hits(own, given));
    if (own != NULL && EXPECT_OK(sieve_search_results_json(own, &json, &json_size))) {
      CHECK(strlen(json) == json_size);
      CHECK(strstr(json, "\"hits\":[{") != NULL);
      CHECK(strstr(json, "\"query\":\"coral reefs and islands\"") != NULL);
      CHECK(strstr(json, modes[m] == SIEVE_SEARCH_BM25     ? "\"mode\":\"bm25\""
                         : modes[m] == SIEVE_SEARCH_VECTOR ? "\"mode\":\"vector\""
                                                           : "\"mode\":\"hybrid\"") != NULL);
    }
    sieve_string_free(json);
    json = NULL;
    sieve_search_results_destroy(own);
    sieve_search_results_destroy(given);
    own = given = NULL;
  }

  /* Filters: every hit has the metadata asked for; the source filter too. */
  sieve_search_options_init(&options, sizeof options);
  options.k = 20;
  options.filter_keys = keys;
  options.filter_values = values;
  options.filter_count = 1;
  filtered = search(index, embedder, NULL, "water", &options);
  if (filtered != NULL) {
    CHECK(sieve_search_results_size(filtered) == 3); /* b.md, r2, r3 */
    for (i = 0; i < sieve_search_results_size(filtered); ++i) {
      CHECK(strstr(search_hit(filtered, i).metadata_json, "\"region\":\"pacific\"") != NULL);
    }
  }
  sieve_search_results_destroy(filtered);
  join(source, sizeof source, cfg->tmp, "search-docs/c.jsonl");
  {
    sieve_text want[2];
    want[0] = values[0];
    want[1] = cstr(source);
    options.filter_keys = keys;
    options.filter_values = want;
    options.filter_count = 2;
    filtered = search(index, embedder, NULL, "water", &options);
    CHECK(filtered != NULL && sieve_search_results_size(filtered) == 2); /* r2, r3 */
    for (i = 0; filtered != NULL && i < sieve_search_results_size(filtered); ++i) {
      const sieve_search_hit hit = search_hit(filtered, i);
      CHECK(hit.source.size == strlen(source) && memcmp(hit.source.data, source, hit.source.size) == 0);
    }
    sieve_search_results_destroy(filtered);
  }

  /* Reranking: the cross-encoder's scores, best first. */
  if (rerank && reranker != NULL) {
    sieve_search_options_init(&options, sizeof options);
    options.k = 4;
    options.rerank_candidates = 8;
    reranked = search(index, embedder, reranker, "where do fish live", &options);
    if (reranked != NULL) {
      CHECK(sieve_search_results_size(reranked) == 4);
      check_hits(reranked, SIEVE_SEARCH_HYBRID, 1);
      for (i = 0; i < sieve_search_results_size(reranked); ++i) {
        const sieve_search_hit hit = search_hit(reranked, i);
        float score = 0;
        EXPECT_OK(sieve_score(reranker, cstr("where do fish live"), &hit.text, 1, &score, 1));
        CHECK(fabs(score - hit.rerank_score) < 1e-5);
      }
    }
    sieve_search_results_destroy(reranked);
  }

  /* Threads on a freshly opened index, which loads its own model on the way. */
  expected = search(index, embedder, NULL, "islands and reefs", NULL);
  if (expected != NULL && EXPECT_OK(sieve_index_open(setup->index, &fresh))) {
    for (i = 0; i < kThreads; ++i) {
      workers[i].index = fresh;
      workers[i].expected = expected;
      workers[i].mismatches = 0;
      CHECK(pthread_create(&threads[i], NULL, search_work, &workers[i]) == 0);
    }
    for (i = 0; i < kThreads; ++i) {
      CHECK(pthread_join(threads[i], NULL) == 0);
      CHECK(workers[i].mismatches == 0);
    }
  }
  sieve_index_destroy(fresh);
  sieve_search_results_destroy(expected);

  /* Results outlive the index and the models that made them. */
  own = search(index, NULL, NULL, "glaciers", NULL);
  sieve_index_destroy(index);
  sieve_model_destroy(embedder);
  if (own != NULL) {
    CHECK(sieve_search_results_size(own) > 0);
    check_hits(own, SIEVE_SEARCH_HYBRID, 0);
  }
  sieve_search_results_destroy(own);
}

/* ---- Leak loop --------------------------------------------------------------- */

/* Models, tokenizers and search indexes (with what they hand out: encodings,
   decoded text, search results, errors) created, used and destroyed `rounds`
   times. Run under valgrind with different counts, the memory left at exit
   must not grow with the count. */
static void run_loop(const config* cfg, long rounds) {
  char embedder[PATH_MAX], tokenizer_file[PATH_MAX], missing[PATH_MAX];
  const sieve_text text = cstr("a short text to embed");
  search_setup setup;
  const int searching = make_search_index(cfg, &setup);
  char sparse_folder[PATH_MAX];
  const int sparse = sparse_fixture(cfg, sparse_folder, sizeof sparse_folder, 1);
  long round;
  join(embedder, sizeof embedder, cfg->fixtures, "tiny-bert-tokens");
  join(tokenizer_file, sizeof tokenizer_file, embedder, "tokenizer.json");
  join(missing, sizeof missing, cfg->tmp, "no-such-folder");
  for (round = 0; round < rounds; ++round) {
    sieve_model* model = NULL;
    sieve_tokenizer* tokenizer = NULL;
    sieve_encoding* encoding = NULL;
    char* decoded = NULL;
    float out[4096];

    if (EXPECT_OK(sieve_model_load(embedder, NULL, &model))) {
      EXPECT_OK(sieve_embed(model, &text, 1, out, sizeof out / sizeof out[0]));
      EXPECT_OK(sieve_tokenize(sieve_model_tokenizer(model), text, NULL, 1, &encoding));
      sieve_encoding_destroy(encoding);
      encoding = NULL;
    }
    sieve_model_destroy(model);
    model = NULL;

    if (EXPECT_OK(sieve_tokenizer_load(tokenizer_file, &tokenizer)) &&
        EXPECT_OK(sieve_tokenize(tokenizer, text, &text, 1, &encoding))) {
      EXPECT_OK(sieve_tokenizer_decode(tokenizer, sieve_encoding_ids(encoding), sieve_encoding_size(encoding), 1,
                                       &decoded, NULL));
      sieve_string_free(decoded);
    }
    sieve_encoding_destroy(encoding);
    sieve_tokenizer_destroy(tokenizer);

    if (sparse && EXPECT_OK(sieve_model_load(sparse_folder, NULL, &model))) {
      sieve_sparse_embeddings* vectors = NULL;
      sieve_sparse_options options;
      sieve_sparse_options_init(&options, sizeof options);
      options.top_k = 8;
      if (EXPECT_OK(sieve_embed_sparse(model, &text, 1, &options, &vectors))) {
        const uint32_t* ids = NULL;
        const float* weights = NULL;
        size_t size = 0;
        EXPECT_OK(sieve_sparse_embeddings_get(vectors, 0, &ids, &weights, &size));
      }
      sieve_sparse_embeddings_destroy(vectors);
      EXPECT_CODE(sieve_embed(model, &text, 1, out, sizeof out / sizeof out[0]), SIEVE_WRONG_KIND);
      sieve_model_destroy(model);
      model = NULL;
    }

    if (searching) {
      sieve_index* index = NULL;
      sieve_search_results* results = NULL;
      char* json = NULL;
      if (EXPECT_OK(sieve_index_open(setup.index, &index))) {
        /* The index loads its own model for the hybrid search. */
        if (EXPECT_OK(sieve_index_search(index, NULL, NULL, text, NULL, &results)) &&
            EXPECT_OK(sieve_search_results_json(results, &json, NULL))) {
          sieve_string_free(json);
          json = NULL;
        }
        sieve_search_results_destroy(results);
        EXPECT_OK(sieve_index_stats_json(index, &json, NULL));
        sieve_string_free(json);
        EXPECT_CODE(sieve_index_search(index, NULL, NULL, make_text("", 0), NULL, &results), SIEVE_INVALID_INPUT);
      }
      sieve_index_destroy(index);
      EXPECT_CODE(sieve_index_open(missing, &index), SIEVE_NOT_FOUND);
    }

    /* Errors own memory too. */
    EXPECT_CODE(sieve_model_load(missing, NULL, &model), SIEVE_NOT_FOUND);
    EXPECT_CODE(sieve_embed(NULL, &text, 1, out, 1), SIEVE_INVALID_ARGUMENT);
  }
}

/* Handles dropped without their destroy function, for the leak checkers to
   find: their pointers are gone when the function returns. */
static void leak_on_purpose(const config* cfg) {
  char tokenizer_file[PATH_MAX];
  sieve_model* model = NULL;
  sieve_tokenizer* tokenizer = NULL;
  sieve_status* status = sieve_model_load(NULL, NULL, &model);
  CHECK(status != NULL);
  CHECK(sieve_model_load(cfg->embedder, NULL, &model) == NULL);
  join(tokenizer_file, sizeof tokenizer_file, cfg->embedder, "tokenizer.json");
  CHECK(sieve_tokenizer_load(tokenizer_file, &tokenizer) == NULL);
}

/* ---- Main ------------------------------------------------------------------ */

/* Whether the next section of checks is in this run's share (--part K/N). */
static int in_share(config* cfg) {
  const long section = cfg->section++;
  return cfg->parts == 0 || section % cfg->parts == cfg->part - 1;
}

static void usage(void) {
  fprintf(stderr,
          "usage: sieve_capi_test [--source DIR] [--fixtures DIR] [--fast] [--part K/N] [--loop N | "
          "--leak-on-purpose]\n");
}

static int copy_path(char* out, const char* value) {
  if (value == NULL || strlen(value) >= PATH_MAX) return 0;
  strcpy(out, value);
  return 1;
}

static int absolute(char* path) {
  char real[PATH_MAX];
  if (realpath(path, real) == NULL) {
    fprintf(stderr, "%s: %s\n", path, strerror(errno));
    return 0;
  }
  strcpy(path, real);
  return 1;
}

static int parse_args(int argc, char** argv, config* cfg) {
  const char* env;
  int i;
  memset(cfg, 0, sizeof *cfg);
  cfg->loop = -1;
  env = getenv("SIEVE_SOURCE_DIR");
  copy_path(cfg->source, env != NULL && env[0] != '\0' ? env : ".");
  env = getenv("SIEVE_FIXTURES_DIR");
  if (env != NULL && env[0] != '\0') copy_path(cfg->fixtures, env);
  for (i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--source") == 0 && i + 1 < argc) {
      if (!copy_path(cfg->source, argv[++i])) return 0;
    } else if (strcmp(argv[i], "--fixtures") == 0 && i + 1 < argc) {
      if (!copy_path(cfg->fixtures, argv[++i])) return 0;
    } else if (strcmp(argv[i], "--fast") == 0) {
      cfg->fast = 1;
    } else if (strcmp(argv[i], "--leak-on-purpose") == 0) {
      cfg->leak_on_purpose = 1;
    } else if (strcmp(argv[i], "--part") == 0 && i + 1 < argc) {
      char* end;
      cfg->part = strtol(argv[++i], &end, 10);
      if (*end != '/') return 0;
      cfg->parts = strtol(end + 1, &end, 10);
      if (*end != '\0' || cfg->parts < 1 || cfg->part < 1 || cfg->part > cfg->parts) return 0;
    } else if (strcmp(argv[i], "--loop") == 0 && i + 1 < argc) {
      char* end;
      cfg->loop = strtol(argv[++i], &end, 10);
      if (*end != '\0' || cfg->loop < 0) return 0;
    } else {
      return 0;
    }
  }
  if (cfg->fixtures[0] == '\0') join(cfg->fixtures, sizeof cfg->fixtures, cfg->source, "build/fixtures");
  /* Absolute paths: the registry checks take one for a name outside the root. */
  if (!absolute(cfg->source) || !absolute(cfg->fixtures)) return 0;
  if (cfg->fast) {
    join(cfg->embedder, sizeof cfg->embedder, cfg->fixtures, "tiny-bert-tokens");
    join(cfg->reranker, sizeof cfg->reranker, cfg->fixtures, "cross-encoder-tiny-3labels");
    join(cfg->tokenizer, sizeof cfg->tokenizer, cfg->fixtures, "cross-encoder-tiny-3labels");
  } else {
    join(cfg->embedder, sizeof cfg->embedder, cfg->source, "models/all-MiniLM-L6-v2");
    join(cfg->reranker, sizeof cfg->reranker, cfg->fixtures, "cross-encoder-minilm-l6");
    join(cfg->tokenizer, sizeof cfg->tokenizer, cfg->source, "models/all-MiniLM-L6-v2");
  }
  return 1;
}

/* Missing models are a set-up error, not a pass. */
static int model_present(const char* folder) {
  char path[PATH_MAX];
  join(path, sizeof path, folder, "model.onnx");
  if (exists(path)) return 1;
  fprintf(stderr, "missing %s (scripts/test.sh makes the fixtures; scripts/bootstrap.sh the real model)\n", path);
  return 0;
}

static int models_present(const config* cfg) {
  static const char* const kFixtures[] = {"tiny-bert-tokens", "tiny-bert-cls", "cross-encoder-tiny-3labels"};
  char folder[PATH_MAX];
  size_t i;
  int ok = model_present(cfg->embedder) & model_present(cfg->reranker) & model_present(cfg->tokenizer);
  for (i = 0; i < sizeof kFixtures / sizeof kFixtures[0]; ++i) {
    join(folder, sizeof folder, cfg->fixtures, kFixtures[i]);
    ok &= model_present(folder);
  }
  return ok;
}

int main(int argc, char** argv) {
  config cfg;
  char root[PATH_MAX];
  const char* tmpdir = getenv("TMPDIR");
  sieve_model *embedder, *reranker;
  search_setup search_index;

  if (!parse_args(argc, argv, &cfg)) {
    usage();
    return 2;
  }
  if (!models_present(&cfg)) return 2;
  snprintf(cfg.tmp, sizeof cfg.tmp, "%s/sieve-capi-XXXXXX", tmpdir != NULL && tmpdir[0] != '\0' ? tmpdir : "/tmp");
  if (mkdtemp(cfg.tmp) == NULL) {
    fprintf(stderr, "mkdtemp %s: %s\n", cfg.tmp, strerror(errno));
    return 2;
  }
  if (!make_registry_root(&cfg, root, sizeof root)) {
    fprintf(stderr, "cannot make the registry folders under %s\n", cfg.tmp);
    nftw(cfg.tmp, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return 2;
  }

  if (cfg.leak_on_purpose) {
    leak_on_purpose(&cfg);
  } else if (cfg.loop >= 0) {
    run_loop(&cfg, cfg.loop);
  } else {
    /* Sections in an order that splits the slow ones (under valgrind) evenly
       between the two shares of --part K/2. */
    if (in_share(&cfg)) test_versions(&cfg);
    if (in_share(&cfg)) test_status();
    if (in_share(&cfg)) test_null_handles();
    if (in_share(&cfg)) test_options_init();
    if (in_share(&cfg)) test_sparse_options_init();
    if (in_share(&cfg)) test_shared_thread_pool(root); /* before any other model is loaded */
    if (in_share(&cfg)) test_log_level(&cfg);
    if (in_share(&cfg)) test_load_errors(&cfg);
    embedder = load_model(cfg.embedder, NULL);
    reranker = load_model(cfg.reranker, NULL);
    if (embedder != NULL && reranker != NULL) {
      if (in_share(&cfg)) test_info(&cfg, embedder, reranker);
      if (in_share(&cfg)) test_embedding_errors(embedder, reranker, model_info(embedder).dimension);
      if (in_share(&cfg)) test_embedding(embedder);
      if (in_share(&cfg)) test_embedding_options(&cfg, embedder);
      if (in_share(&cfg)) test_tokenizer(&cfg, embedder);
      if (in_share(&cfg)) test_older_caller(&cfg, embedder);
      if (in_share(&cfg)) test_reranking(reranker, embedder);
      if (in_share(&cfg)) test_newer_caller(&cfg, root);
      if (in_share(&cfg)) test_sparse(&cfg, embedder, reranker);
      if (in_share(&cfg)) test_threads(embedder, reranker);
    }
    sieve_model_destroy(embedder);
    sieve_model_destroy(reranker);
    if (in_share(&cfg)) test_multilabel(&cfg);
    if (in_share(&cfg) && make_search_index(&cfg, &search_index)) {
      /* The fast run's cross-encoder has three labels: only the checks that
         need no reranking scores run there. */
      reranker = load_model(cfg.reranker, NULL);
      test_search(&cfg, &search_index, reranker, !cfg.fast);
      sieve_model_destroy(reranker);
    }
    if (in_share(&cfg)) test_model_tokenizer_replace(&cfg);
    if (in_share(&cfg)) test_registry_options(&cfg, root);
    if (in_share(&cfg)) test_registry(&cfg, root);
  }

  nftw(cfg.tmp, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  printf("%ld checks, %ld failed\n", g_checks, g_failures);
  return g_failures == 0 ? 0 : 1;
}
