/*
 * sieve.h: the C ABI of Sieve, local text embeddings and reranking on ONNX
 * Runtime. The only C header; usable from C99 and C++.
 *
 * Conventions
 * - Handles are opaque. Each sieve_X_create/load/open has a sieve_X_destroy
 *   that accepts NULL.
 * - Every call that can fail returns a sieve_status*: NULL on success, else
 *   an error the caller owns and frees with sieve_status_destroy(). No C++
 *   exception ever crosses this boundary. On failure, a handle out-parameter
 *   (sieve_model** and the like) is set to NULL.
 * - Text is UTF-8 with an explicit length (sieve_text), so it may contain NUL
 *   bytes; a NULL data pointer is allowed only with size 0. File paths and
 *   model names are NUL-terminated.
 * - Option structs start with struct_size. Fill them with
 *   sieve_X_options_init(&options, sizeof options), which sets struct_size
 *   and every field to its default. The library reads only the fields that
 *   fit in struct_size, so a program built against an older header keeps
 *   working with a newer library; a struct from a newer header is accepted by
 *   an older library when the fields it does not know are left zero (their
 *   defaults), and refused (SIEVE_INVALID_ARGUMENT) when they are set.
 * - Output: fixed-size results (vectors, scores) go into buffers the caller
 *   provides, with the required size queryable beforehand (sieve_embed_size)
 *   and checked (SIEVE_BUFFER_TOO_SMALL); results whose size is known only
 *   afterwards (encodings, lists, decoded text) are library-allocated and have
 *   a matching destroy/free function.
 * - Thread safety: a sieve_model, a sieve_registry and a sieve_index may be
 *   used from many threads at once (embedding, scoring, tokenizing and
 *   searching are const); a model must not be destroyed while another thread
 *   uses it. A sieve_status, an encoding, a model list, sparse embeddings and
 *   search results belong to one thread at a time.
 */
#ifndef SIEVE_H_
#define SIEVE_H_

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define SIEVE_API __declspec(dllexport)
#elif defined(__GNUC__)
#define SIEVE_API __attribute__((visibility("default")))
#else
#define SIEVE_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped on any incompatible change; compare with sieve_abi_version(). */
#define SIEVE_ABI_VERSION 1

/* The ABI version of the loaded library (SIEVE_ABI_VERSION it was built with). */
SIEVE_API uint32_t sieve_abi_version(void);
/* The library's version ("0.1.0"), and ONNX Runtime's. Static strings. */
SIEVE_API const char* sieve_version(void);
SIEVE_API const char* sieve_onnxruntime_version(void);

/* Sieve logs to standard error ("sieve: info: session for ... uses providers
   [cpu]"). Levels: "trace", "debug", "info" (the default), "warn", "error",
   "off". Process-wide. */
typedef struct sieve_status sieve_status;
SIEVE_API sieve_status* sieve_set_log_level(const char* level);

/* ---- Status --------------------------------------------------------------- */

typedef enum sieve_status_code {
  SIEVE_OK = 0,
  SIEVE_INVALID_ARGUMENT = 1, /* a bad parameter or option (NULL handle, unknown provider, ...) */
  SIEVE_INVALID_INPUT = 2,    /* user text is malformed (not UTF-8, too long without truncation) */
  SIEVE_NOT_FOUND = 3,        /* a named file, folder or model does not exist */
  SIEVE_PARSE = 4,            /* a file exists but its content is malformed */
  SIEVE_UNSUPPORTED = 5,      /* well-formed, but uses something Sieve does not implement */
  SIEVE_RUNTIME = 6,          /* ONNX Runtime or the operating system failed */
  SIEVE_WRONG_KIND = 7,       /* a call the model's kind does not answer (embedding on a reranker, ...) */
  SIEVE_BUFFER_TOO_SMALL = 8, /* a caller-provided buffer cannot hold the result */
  SIEVE_OUT_OF_MEMORY = 9,
  SIEVE_INTERNAL = 10 /* a bug in Sieve */
} sieve_status_code;

SIEVE_API sieve_status_code sieve_status_get_code(const sieve_status* status); /* SIEVE_OK for NULL */
/* The message, NUL-terminated, valid until the status is destroyed ("" for NULL). */
SIEVE_API const char* sieve_status_message(const sieve_status* status);
/* For an error about one input of a batch, its index; else -1. */
SIEVE_API int64_t sieve_status_input_index(const sieve_status* status);
SIEVE_API void sieve_status_destroy(sieve_status* status);
/* The name of a code ("invalid_argument", ...), a static string. */
SIEVE_API const char* sieve_status_code_name(sieve_status_code code);

/* ---- Common types ------------------------------------------------------------ */

typedef struct sieve_text {
  const char* data; /* UTF-8, not NUL-terminated; may be NULL when size is 0 */
  size_t size;      /* in bytes */
} sieve_text;

typedef enum sieve_model_kind {
  SIEVE_KIND_AUTO = 0, /* options only: detected from the model folder */
  SIEVE_KIND_EMBEDDING = 1,
  SIEVE_KIND_RERANKER = 2,
  /* A learned sparse (SPLADE) embedding model: a weight per vocabulary entry,
     most of them zero (sieve_embed_sparse). */
  SIEVE_KIND_SPARSE = 3,
  /* A late-interaction (ColBERT) model: a vector per token. Through this
     ABI it reranks and scores by MaxSim (sieve_rerank, sieve_score); a
     model loaded with kind SIEVE_KIND_RERANKER may be one. */
  SIEVE_KIND_MULTI_VECTOR = 4
} sieve_model_kind;

/* Tri-state for options whose default comes from the model folder. */
#define SIEVE_DEFAULT (-1)

/* ---- Models ------------------------------------------------------------------ */

/* Of the options marked "embedding only", a sparse model refuses pooling,
   dimensions and normalize 1 (SIEVE_INVALID_ARGUMENT). */
typedef struct sieve_model_options {
  size_t struct_size;
  sieve_model_kind kind;    /* SIEVE_KIND_AUTO; another kind than the folder holds is SIEVE_WRONG_KIND */
  int32_t intra_op_threads; /* 0: one per physical core; above 4 per hardware thread: SIEVE_INVALID_ARGUMENT */
  int32_t inter_op_threads; /* 1; likewise at most 4 per hardware thread */
  /* Execution providers in priority order, as on the command line: "cuda",
     "cuda:device_id=1", "tensorrt", ...; CPU always ends the list. NULL/0: CPU. */
  const char* const* providers;
  size_t provider_count;
  int32_t strict_providers;     /* 0: skip providers the ONNX Runtime lacks; 1: fail */
  int32_t normalize;            /* SIEVE_DEFAULT (from the model folder), 0 or 1; embedding only */
  const char* pooling;          /* NULL (from the model folder), "mean", "cls", "max", "mean_sqrt_len",
                                   "weightedmean", "lasttoken" */
  size_t max_length;            /* 0: the model's */
  size_t batch_size;            /* inputs per ONNX Runtime run: 32 */
  size_t dimensions;            /* Matryoshka truncation, 0: all; embedding only */
  const char* prompt_name;      /* NULL: the model folder's default prompt; embedding only */
  int32_t replace_invalid_utf8; /* 0: invalid UTF-8 is an error; 1: replaced by U+FFFD */
} sieve_model_options;

/* Pass sizeof(sieve_model_options) as struct_size: the library fills in the
   defaults it knows and zeroes the rest, so neither an older nor a newer
   library writes past the caller's struct. */
SIEVE_API void sieve_model_options_init(sieve_model_options* options, size_t struct_size);

typedef struct sieve_model sieve_model;

/* Loads the model folder (model.onnx or onnx/model.onnx, tokenizer.json, and
   the sentence-transformers files). options may be NULL (defaults). */
SIEVE_API sieve_status* sieve_model_load(const char* folder, const sieve_model_options* options, sieve_model** out);
SIEVE_API void sieve_model_destroy(sieve_model* model);

typedef struct sieve_model_info {
  size_t struct_size; /* set by the caller: sizeof(sieve_model_info) */
  sieve_model_kind kind;
  /* Embedding: the length of the vectors sieve_embed writes. Reranker: the
     number of labels (logits per pair). Sparse: the vocabulary size (every
     token id of its sparse vectors is below it). */
  size_t dimension;
  size_t max_length;
  int32_t normalize; /* embedding: 1 when vectors are L2-normalized; sparse: 0 */
  /* NUL-terminated, owned by the model, valid until it is destroyed. */
  const char* pooling;   /* embedding: "mean", ..., or "model" when the model pools; sparse: "splade max" or
                            "splade sum" ("model" when the graph pools); reranker: "" */
  const char* providers; /* providers the session really uses, comma-separated: "cuda,cpu" */
  const char* folder;
  const char* onnx_file;
} sieve_model_info;

SIEVE_API sieve_status* sieve_model_get_info(const sieve_model* model, sieve_model_info* info);

/* ---- Embedding --------------------------------------------------------------- */

/* The number of floats sieve_embed writes for `count` texts (count * dimension).
   A sparse model is SIEVE_WRONG_KIND (its vectors vary in size: sieve_embed_sparse). */
SIEVE_API sieve_status* sieve_embed_size(const sieve_model* model, size_t count, size_t* out_floats);

/* Embeds `count` texts into `out`, row-major, one row of info.dimension
   floats per text, in input order. out_capacity is in floats; when it is too
   small, SIEVE_BUFFER_TOO_SMALL and nothing is written. count 0 is allowed.
   A reranker or a sparse model is SIEVE_WRONG_KIND. */
SIEVE_API sieve_status* sieve_embed(const sieve_model* model, const sieve_text* texts, size_t count, float* out,
                                    size_t out_capacity);

/* ---- Sparse embedding -------------------------------------------------------- */

/* Pruning of sparse vectors. */
typedef struct sieve_sparse_options {
  size_t struct_size;
  /* Keep the top_k largest weights (of equal weights, the smaller token id);
     0: all. */
  size_t top_k;
  /* Drop weights at or below it (0 or more, not NaN, else
     SIEVE_INVALID_ARGUMENT); 0: keep every non-zero weight. */
  float min_weight;
} sieve_sparse_options;

/* As sieve_model_options_init: pass sizeof(sieve_sparse_options). */
SIEVE_API void sieve_sparse_options_init(sieve_sparse_options* options, size_t struct_size);

/* The sparse vectors of a batch of texts, one per text in input order. */
typedef struct sieve_sparse_embeddings sieve_sparse_embeddings;

/* Embeds `count` texts with a sparse (SPLADE) model, or BGE-M3's lexical
   weights: per text, its non-zero weights by ascending token id, pruned by
   `options` (NULL: the defaults, every non-zero weight). *out is a new list,
   freed with sieve_sparse_embeddings_destroy. count 0 is allowed (texts may
   then be NULL) and gives an empty list. Another dense embedding model
   (sieve_embed) or a reranker is SIEVE_WRONG_KIND; invalid UTF-8 is
   SIEVE_INVALID_INPUT with the text's index. */
SIEVE_API sieve_status* sieve_embed_sparse(const sieve_model* model, const sieve_text* texts, size_t count,
                                           const sieve_sparse_options* options, sieve_sparse_embeddings** out);
/* Number of vectors (the count of texts); 0 for NULL. */
SIEVE_API size_t sieve_sparse_embeddings_count(const sieve_sparse_embeddings* embeddings);
/* The vector of text `index` < count: *size entries, token ids strictly
   ascending with their weights (each above 0 and min_weight). The arrays are
   owned by the list and valid until it is destroyed; both NULL when *size is
   0 (a text whose every weight was pruned). */
SIEVE_API sieve_status* sieve_sparse_embeddings_get(const sieve_sparse_embeddings* embeddings, size_t index,
                                                    const uint32_t** ids, const float** weights, size_t* size);
SIEVE_API void sieve_sparse_embeddings_destroy(sieve_sparse_embeddings* embeddings);

/* ---- Reranking --------------------------------------------------------------- */

/* One score per document, in input order, into scores[0..count). */
SIEVE_API sieve_status* sieve_score(const sieve_model* model, sieve_text query, const sieve_text* documents,
                                    size_t count, float* scores, size_t scores_capacity);

typedef struct sieve_rerank_result {
  size_t index; /* of the document in the input */
  float score;
} sieve_rerank_result;

/* The top_k best documents (all when top_k is 0), best first; ties keep input
   order. Writes min(count, top_k or count) results and sets *out_count.
   results_capacity must hold that many. */
SIEVE_API sieve_status* sieve_rerank(const sieve_model* model, sieve_text query, const sieve_text* documents,
                                     size_t count, size_t top_k, sieve_rerank_result* results, size_t results_capacity,
                                     size_t* out_count);

/* ---- Classification ---------------------------------------------------------- */

/* A reranker-kind model (a *ForSequenceClassification folder) also
   classifies: every label's score for each input, row-major, count rows of
   info.dimension (the number of labels) floats, in input order. `pairs` is
   NULL for single texts, or holds each input's second text (an NLI
   hypothesis, ...). raw_scores 0: softmax, or sigmoid for multi-label and
   one-label models (config.json's problem_type decides, as transformers'
   text-classification pipeline); 1: the logits. An LLM reranker
   (llm_reranker.json) does not classify: SIEVE_UNSUPPORTED; a ColBERT model
   (SIEVE_KIND_MULTI_VECTOR) has no labels: SIEVE_WRONG_KIND. */
SIEVE_API sieve_status* sieve_classify(const sieve_model* model, const sieve_text* texts, const sieve_text* pairs,
                                       size_t count, int32_t raw_scores, float* out, size_t out_capacity);

/* The name of label `index` < info.dimension: config.json's id2label, or
   "LABEL_<index>" where it has none. NUL-terminated, owned by the model,
   valid until it is destroyed. */
SIEVE_API sieve_status* sieve_model_label(const sieve_model* model, size_t index, const char** out);

/* ---- Tokenization ------------------------------------------------------------ */

typedef struct sieve_tokenizer sieve_tokenizer;

/* A tokenizer from a Hugging Face tokenizer.json file. */
SIEVE_API sieve_status* sieve_tokenizer_load(const char* path, sieve_tokenizer** out);
SIEVE_API void sieve_tokenizer_destroy(sieve_tokenizer* tokenizer);
/* The model's own tokenizer (with its truncation), borrowed: valid while the
   model is; never destroy it. NULL for a NULL model. */
SIEVE_API const sieve_tokenizer* sieve_model_tokenizer(const sieve_model* model);

typedef struct sieve_encoding sieve_encoding;

/* Encodes `text`, or the pair (text, pair) when pair is non-NULL, with the
   tokenizer's truncation and padding, as Hugging Face's encode(). */
SIEVE_API sieve_status* sieve_tokenize(const sieve_tokenizer* tokenizer, sieve_text text, const sieve_text* pair,
                                       int32_t add_special_tokens, sieve_encoding** out);
SIEVE_API void sieve_encoding_destroy(sieve_encoding* encoding);
/* Number of tokens; the arrays below have that many entries and are valid
   until the encoding is destroyed (NULL when there are no tokens). */
SIEVE_API size_t sieve_encoding_size(const sieve_encoding* encoding);
SIEVE_API const uint32_t* sieve_encoding_ids(const sieve_encoding* encoding);
SIEVE_API const uint32_t* sieve_encoding_type_ids(const sieve_encoding* encoding);
SIEVE_API const uint8_t* sieve_encoding_attention_mask(const sieve_encoding* encoding);
SIEVE_API const uint8_t* sieve_encoding_special_tokens_mask(const sieve_encoding* encoding);
/* Byte offsets [begin, end) of each token in its text: 2 * size entries. */
SIEVE_API const uint32_t* sieve_encoding_offsets(const sieve_encoding* encoding);

/* The vocabulary entry of `id`; points into the tokenizer (no NUL, valid
   while it is). An id that names no token is SIEVE_INVALID_ARGUMENT. */
SIEVE_API sieve_status* sieve_tokenizer_id_to_token(const sieve_tokenizer* tokenizer, uint32_t id, sieve_text* out);
/* The model's vocabulary size, added tokens not included. */
SIEVE_API size_t sieve_tokenizer_vocab_size(const sieve_tokenizer* tokenizer);
/* Text of token ids through the tokenizer's decoder, NUL-terminated, freed
   with sieve_string_free; *out_size (if non-NULL) gets its length in bytes. */
SIEVE_API sieve_status* sieve_tokenizer_decode(const sieve_tokenizer* tokenizer, const uint32_t* ids, size_t count,
                                               int32_t skip_special_tokens, char** out, size_t* out_size);
SIEVE_API void sieve_string_free(char* string);

/* ---- Registry ---------------------------------------------------------------- */

typedef struct sieve_registry_options {
  size_t struct_size;
  /* Bound in bytes on the estimated memory of loaded models (least recently
     used models nobody holds are evicted); 0: none. */
  uint64_t memory_budget;
  /* Options models are loaded with (kind is ignored); NULL: defaults. */
  const sieve_model_options* model_options;
  /* 1: every model runs on one process-wide ORT thread pool. ONNX Runtime
     has one environment per process, so this must be chosen before the
     process loads its first model (else SIEVE_INVALID_ARGUMENT). */
  int32_t shared_thread_pool;
} sieve_registry_options;

/* As sieve_model_options_init: pass sizeof(sieve_registry_options). */
SIEVE_API void sieve_registry_options_init(sieve_registry_options* options, size_t struct_size);

typedef struct sieve_registry sieve_registry;

/* Models under `root`, addressed by their path below it ("minilm",
   "org/model"); loaded on first use, once, and shared. options may be NULL. */
SIEVE_API sieve_status* sieve_registry_open(const char* root, const sieve_registry_options* options,
                                            sieve_registry** out);
SIEVE_API void sieve_registry_destroy(sieve_registry* registry);

/* The model `name` (loading it if needed) as a new handle, destroyed with
   sieve_model_destroy; it stays valid after the registry is destroyed or the
   model evicted. Names that are not a model under the root (empty, "..",
   absolute paths) are NOT_FOUND. */
SIEVE_API sieve_status* sieve_registry_get(sieve_registry* registry, const char* name, sieve_model** out);

typedef struct sieve_model_list sieve_model_list;

typedef struct sieve_registry_entry {
  size_t struct_size; /* set by the caller: sizeof(sieve_registry_entry) */
  /* NUL-terminated strings owned by the list, valid until it is destroyed. */
  const char* name;
  sieve_model_kind kind;
  size_t dimension; /* as sieve_model_info's */
  size_t max_length;
  int32_t loaded;
  const char* providers; /* comma-separated */
  const char* error;     /* "" unless the folder could not be described */
} sieve_registry_entry;

/* Every model folder under the root, sorted by name; nothing is loaded. */
SIEVE_API sieve_status* sieve_registry_list(const sieve_registry* registry, sieve_model_list** out);
SIEVE_API size_t sieve_model_list_size(const sieve_model_list* list);
SIEVE_API sieve_status* sieve_model_list_get(const sieve_model_list* list, size_t index, sieve_registry_entry* out);
SIEVE_API void sieve_model_list_destroy(sieve_model_list* list);

/* ---- Search ------------------------------------------------------------------ */

/* A local search index made by `sieve index add` (a folder holding an SQLite
   database and a nearest-neighbour graph). A sieve_index may be searched from
   many threads at once; it must not be destroyed while another thread uses it. */
typedef struct sieve_index sieve_index;

/* Opens the index in `folder` (NOT_FOUND when it holds none). Nothing is loaded
   until the first search that needs the index's embedding model. */
SIEVE_API sieve_status* sieve_index_open(const char* folder, sieve_index** out);
SIEVE_API void sieve_index_destroy(sieve_index* index);

/* The index's statistics as JSON (what `sieve index stats --json` prints):
   NUL-terminated, freed with sieve_string_free; *out_size (if non-NULL) gets
   its length in bytes. */
SIEVE_API sieve_status* sieve_index_stats_json(const sieve_index* index, char** out, size_t* out_size);

typedef enum sieve_search_mode {
  SIEVE_SEARCH_HYBRID = 0, /* vector and BM25 lists fused (weighted, scores scaled to 0-1) */
  SIEVE_SEARCH_VECTOR = 1, /* cosine similarity of the embeddings */
  SIEVE_SEARCH_BM25 = 2    /* full-text BM25; needs no embedding model */
} sieve_search_mode;

typedef struct sieve_search_options {
  size_t struct_size;
  size_t k;                 /* results at most: 10 (1 to 1000) */
  sieve_search_mode mode;   /* SIEVE_SEARCH_HYBRID */
  size_t rerank_candidates; /* with a reranker: fused candidates it scores (at least k): 20 */
  int32_t exact;            /* 1: compare with every stored vector instead of the graph; 0 */
  size_t ef_search;         /* graph search breadth: 64 */
  /* Metadata filters, all of which must hold: document metadata key
     filter_keys[i] equals filter_values[i] ("source" matches the file). */
  const sieve_text* filter_keys;
  const sieve_text* filter_values;
  size_t filter_count;
  /* Hits of one document at most, its best chunks first: 2; 0: no limit. */
  size_t per_document;
  /* Hits skipped first: offset k gives the second page of the same ranking: 0. */
  size_t offset;
  /* Documents of any of these formats ("pdf", "markdown", "text": as index stats' documents_by_format names
     them); format_count 0: any. */
  const sieve_text* formats;
  size_t format_count;
  /* Documents from files in or below any of these absolute paths (on path boundaries); folder_count 0: any. */
  const sieve_text* folders;
  size_t folder_count;
} sieve_search_options;

/* As sieve_model_options_init: pass sizeof(sieve_search_options). */
SIEVE_API void sieve_search_options_init(sieve_search_options* options, size_t struct_size);

typedef struct sieve_search_results sieve_search_results;

/* Searches the index for `query`. embedder: the index's embedding model (an
   embedding sieve_model of the same ONNX file, else SIEVE_INVALID_ARGUMENT;
   a reranker or a sparse model is SIEVE_WRONG_KIND),
   or NULL for the model folder the index records, loaded with default options
   on the first search that needs it and kept with the index; BM25 searches use
   none. reranker: a cross-encoder sieve_model that rescores the best
   candidates, or NULL. options may be NULL (defaults). The results are a
   consistent snapshot even while another process adds to the index. */
SIEVE_API sieve_status* sieve_index_search(const sieve_index* index, const sieve_model* embedder,
                                           const sieve_model* reranker, sieve_text query,
                                           const sieve_search_options* options, sieve_search_results** out);
SIEVE_API void sieve_search_results_destroy(sieve_search_results* results);

typedef struct sieve_search_hit {
  size_t struct_size; /* set by the caller: sizeof(sieve_search_hit) */
  double score;       /* of the mode (cosine, BM25, fused), or the reranker's */
  /* The scores behind it; NaN when the hit has none of that kind. */
  double vector_score;
  double bm25_score;
  double rerank_score;
  /* Owned by the results, valid until they are destroyed; each is also
     NUL-terminated (data[size] == 0). */
  sieve_text document_id;
  sieve_text source; /* the file the document came from */
  sieve_text title;
  sieve_text text; /* the chunk's text */
  int64_t chunk_id;
  size_t chunk_index;
  size_t chunk_begin; /* byte offsets of the chunk in its document's text */
  size_t chunk_end;
  /* Byte spans [begin, end) in `text` of words of the query: 2 * match_count
     entries (NULL when there are none). */
  const size_t* matches;
  size_t match_count;
  const char* metadata_json; /* the document's metadata, a JSON object of strings */
  /* Where in the document the chunk starts: "page 3", "slide 2", "sheet Budget", "chapter 4"; empty when the
     document has no parts. */
  sieve_text section;
  size_t rank;       /* 1 for the best hit of the ranking (offset + 1 for the first of a later page) */
  double relevance;  /* 0 to 1: the reranker's probability, the cosine for vector search, else over the best hit's */
  sieve_text format; /* of the document, as its reader names it ("pdf", "markdown") */
  /* A passage of about 240 bytes around the matches ("…" where text was cut), and the byte spans in it of
     words of the query: 2 * snippet_match_count entries (NULL when there are none). */
  sieve_text snippet;
  const size_t* snippet_matches;
  size_t snippet_match_count;
} sieve_search_hit;

/* Number of hits, best first; 0 for NULL. */
SIEVE_API size_t sieve_search_results_size(const sieve_search_results* results);
SIEVE_API sieve_status* sieve_search_results_get(const sieve_search_results* results, size_t index,
                                                 sieve_search_hit* out);
/* The whole result as JSON, exactly as `sieve search --json` and POST
   /v1/search answer: NUL-terminated, freed with sieve_string_free. */
SIEVE_API sieve_status* sieve_search_results_json(const sieve_search_results* results, char** out, size_t* out_size);

#ifdef __cplusplus
}
#endif

#endif /* SIEVE_H_ */
