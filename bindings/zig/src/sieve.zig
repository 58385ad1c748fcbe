//! Zig bindings for Sieve, local text embeddings (dense, and learned sparse
//! SPLADE vectors) and cross-encoder reranking on ONNX Runtime, over its C ABI
//! (include/sieve.h).
//!
//! Every fallible call returns a `SieveError` union and takes an optional
//! `*Diagnostics` that receives the library's message (and, for an error
//! about one text of a batch, its index). Results whose size the caller cannot
//! know in advance are returned in memory from the allocator passed in; the
//! `...Into` variants write into caller-provided buffers instead.
//!
//! Handles (`Model`, `Tokenizer`, `Registry`) are safe to use from many threads
//! at once; a `Diagnostics`, an `Encoding` and a `ModelList` belong to one
//! thread at a time.

const std = @import("std");
const Allocator = std.mem.Allocator;

/// The raw C declarations of sieve.h, for anything these bindings do not wrap.
pub const c = @import("sieve_c");

/// The failures of the C ABI, one per `sieve_status_code` other than SIEVE_OK.
pub const SieveError = error{
    /// A bad parameter or option (unknown provider, zero batch size, ...).
    InvalidArgument,
    /// User text is malformed: not UTF-8, or too long without truncation.
    InvalidInput,
    /// A named file, folder or model does not exist.
    NotFound,
    /// A file exists but its content is malformed.
    Parse,
    /// Well-formed, but uses something Sieve does not implement.
    Unsupported,
    /// ONNX Runtime or the operating system failed.
    Runtime,
    /// A call the model's kind does not answer: an embedding call on a
    /// reranker, `embed` on a sparse model, `embedSparse` on a dense one, ...
    WrongKind,
    /// A caller-provided buffer cannot hold the result.
    BufferTooSmall,
    OutOfMemory,
    /// A bug in Sieve.
    Internal,
};

/// `sieve_status_code` as a Zig enum; non-exhaustive so that codes added by
/// a newer library can still be represented.
pub const Code = enum(c.sieve_status_code) {
    ok = c.SIEVE_OK,
    invalid_argument = c.SIEVE_INVALID_ARGUMENT,
    invalid_input = c.SIEVE_INVALID_INPUT,
    not_found = c.SIEVE_NOT_FOUND,
    parse = c.SIEVE_PARSE,
    unsupported = c.SIEVE_UNSUPPORTED,
    runtime = c.SIEVE_RUNTIME,
    wrong_kind = c.SIEVE_WRONG_KIND,
    buffer_too_small = c.SIEVE_BUFFER_TOO_SMALL,
    out_of_memory = c.SIEVE_OUT_OF_MEMORY,
    internal = c.SIEVE_INTERNAL,
    _,

    /// The error this code maps to; null for `ok`.
    pub fn toError(code: Code) ?SieveError {
        return switch (code) {
            .ok => null,
            .invalid_argument => error.InvalidArgument,
            .invalid_input => error.InvalidInput,
            .not_found => error.NotFound,
            .parse => error.Parse,
            .unsupported => error.Unsupported,
            .runtime => error.Runtime,
            .wrong_kind => error.WrongKind,
            .buffer_too_small => error.BufferTooSmall,
            .out_of_memory => error.OutOfMemory,
            .internal => error.Internal,
            // A code this header predates: the library knows more than we
            // do, and the message in the diagnostics still says what failed.
            _ => error.Internal,
        };
    }

    /// The library's name for the code ("invalid_argument", ...).
    pub fn name(code: Code) [:0]const u8 {
        return std.mem.span(c.sieve_status_code_name(@backingInt(code)));
    }
};

/// Details of the last failure of the calls it was passed to, as
/// std.zon's and std.json's diagnostics do. Holds the library's status
/// object, so call `deinit` when done. Not thread-safe: give each thread its
/// own.
pub const Diagnostics = struct {
    status: ?*c.sieve_status = null,

    pub fn deinit(diagnostics: *Diagnostics) void {
        c.sieve_status_destroy(diagnostics.status);
        diagnostics.* = .{};
    }

    /// `ok` until a call fails.
    pub fn code(diagnostics: Diagnostics) Code {
        return @fromBackingInt(c.sieve_status_get_code(diagnostics.status));
    }

    /// The library's message; valid until the next failure recorded here or
    /// `deinit`. Empty until a call fails.
    pub fn message(diagnostics: Diagnostics) [:0]const u8 {
        return std.mem.span(c.sieve_status_message(diagnostics.status));
    }

    /// For an error about one text of a batch, its index in the input.
    pub fn inputIndex(diagnostics: Diagnostics) ?usize {
        const index = c.sieve_status_input_index(diagnostics.status);
        return if (index < 0) null else @intCast(index);
    }

    pub fn format(diagnostics: Diagnostics, writer: *std.Io.Writer) std.Io.Writer.Error!void {
        try writer.print("{s}: {s}", .{ diagnostics.code().name(), diagnostics.message() });
    }

    fn record(diagnostics: *Diagnostics, status: *c.sieve_status) void {
        c.sieve_status_destroy(diagnostics.status);
        diagnostics.status = status;
    }
};

/// Turns a C status into an error, handing the status to `diagnostics` (or
/// destroying it): the one place a status's ownership ends.
fn check(status: ?*c.sieve_status, diagnostics: ?*Diagnostics) SieveError!void {
    const failure = status orelse return;
    const code: Code = @fromBackingInt(c.sieve_status_get_code(failure));
    if (diagnostics) |d| d.record(failure) else c.sieve_status_destroy(failure);
    // A non-NULL status with SIEVE_OK would break the header's contract;
    // report it rather than pretend the call succeeded.
    return code.toError() orelse error.Internal;
}

/// The version of the loaded library ("0.1.0").
pub fn version() [:0]const u8 {
    return std.mem.span(c.sieve_version());
}

/// The version of the ONNX Runtime the library runs on.
pub fn onnxRuntimeVersion() [:0]const u8 {
    return std.mem.span(c.sieve_onnxruntime_version());
}

/// The ABI version of the loaded library; these bindings were built against
/// `header_abi_version`, and the two must be equal.
pub fn abiVersion() u32 {
    return c.sieve_abi_version();
}

pub const header_abi_version: u32 = c.SIEVE_ABI_VERSION;

pub const LogLevel = enum { trace, debug, info, warn, @"error", off };

/// How much Sieve logs to standard error ("sieve: info: session for ...
/// uses providers [cpu]"); `info` by default. Process-wide.
pub fn setLogLevel(level: LogLevel, diagnostics: ?*Diagnostics) SieveError!void {
    try check(c.sieve_set_log_level(@tagName(level)), diagnostics);
}

pub const Kind = enum(c.sieve_model_kind) {
    /// Options only: detected from the model folder.
    auto = c.SIEVE_KIND_AUTO,
    embedding = c.SIEVE_KIND_EMBEDDING,
    reranker = c.SIEVE_KIND_RERANKER,
    /// A learned sparse (SPLADE) embedding model: `Model.embedSparse`.
    sparse = c.SIEVE_KIND_SPARSE,
    /// A late-interaction (ColBERT) model: a vector per token; it reranks by MaxSim (`Model.rerank`, `Model.score`).
    multi_vector = c.SIEVE_KIND_MULTI_VECTOR,
    _,
};

pub const Pooling = enum { mean, cls, max, mean_sqrt_len, lasttoken };

/// How a model is loaded. Every field left null takes the library's default
/// (which is mostly the model folder's own configuration).
pub const ModelOptions = struct {
    kind: Kind = .auto,
    /// 0: one per physical core.
    intra_op_threads: ?u31 = null,
    inter_op_threads: ?u31 = null,
    /// Execution providers in priority order, as on the command line:
    /// "cuda", "cuda:device_id=1", "tensorrt", ...; CPU always ends the list.
    providers: []const [*:0]const u8 = &.{},
    /// Fail instead of skipping providers the ONNX Runtime lacks.
    strict_providers: ?bool = null,
    /// L2-normalize embeddings; embedding models only (a sparse model
    /// refuses true, and `pooling` and `dimensions`, with InvalidArgument).
    normalize: ?bool = null,
    /// Embedding models only.
    pooling: ?Pooling = null,
    /// In tokens, special tokens included.
    max_length: ?usize = null,
    /// Inputs per ONNX Runtime run.
    batch_size: ?usize = null,
    /// Matryoshka truncation of embeddings.
    dimensions: ?usize = null,
    /// A prompt of the model folder to prepend; embedding models only.
    prompt_name: ?[*:0]const u8 = null,
    /// Replace invalid UTF-8 by U+FFFD instead of failing with InvalidInput.
    replace_invalid_utf8: ?bool = null,

    /// The C struct, starting from the library's defaults. Strings are
    /// borrowed from `options`.
    pub fn toC(options: ModelOptions) c.sieve_model_options {
        var raw: c.sieve_model_options = undefined;
        c.sieve_model_options_init(&raw, @sizeOf(c.sieve_model_options));
        raw.kind = @backingInt(options.kind);
        if (options.intra_op_threads) |n| raw.intra_op_threads = n;
        if (options.inter_op_threads) |n| raw.inter_op_threads = n;
        raw.providers = @ptrCast(options.providers.ptr);
        raw.provider_count = options.providers.len;
        if (options.strict_providers) |strict| raw.strict_providers = @intFromBool(strict);
        if (options.normalize) |normalize| raw.normalize = @intFromBool(normalize);
        if (options.pooling) |pooling| raw.pooling = @tagName(pooling);
        if (options.max_length) |n| raw.max_length = n;
        if (options.batch_size) |n| raw.batch_size = n;
        if (options.dimensions) |n| raw.dimensions = n;
        if (options.prompt_name) |prompt| raw.prompt_name = prompt;
        if (options.replace_invalid_utf8) |replace| raw.replace_invalid_utf8 = @intFromBool(replace);
        return raw;
    }
};

/// What `Model.info` reports. The strings belong to the model.
pub const Info = struct {
    kind: Kind,
    /// Embedding: the length of each vector. Reranker: the number of labels.
    /// Sparse: the vocabulary size (every token id of its vectors is below it).
    dimension: usize,
    max_length: usize,
    /// Embedding: whether vectors are L2-normalized (never for sparse ones).
    normalize: bool,
    /// Embedding: "mean", ...; sparse: "splade max" or "splade sum" ("model"
    /// when the graph pools); reranker: "".
    pooling: [:0]const u8,
    /// The providers the session really uses, comma-separated: "cuda,cpu".
    providers: [:0]const u8,
    folder: [:0]const u8,
    onnx_file: [:0]const u8,
};

/// Embeddings of a batch of texts, row-major, owned by the allocator passed
/// to `Model.embed`.
pub const Embeddings = struct {
    data: []f32,
    count: usize,
    dimension: usize,

    pub fn deinit(embeddings: *Embeddings, allocator: Allocator) void {
        allocator.free(embeddings.data);
        embeddings.* = undefined;
    }

    /// The vector of the `index`th text.
    pub fn row(embeddings: Embeddings, index: usize) []f32 {
        std.debug.assert(index < embeddings.count);
        return embeddings.data[index * embeddings.dimension ..][0..embeddings.dimension];
    }
};

/// How `Model.embedSparse` prunes its vectors.
pub const SparseOptions = struct {
    /// Keep the `top_k` largest weights (of equal weights, the smaller token
    /// id); 0: all.
    top_k: usize = 0,
    /// Drop weights at or below it (0 or more); 0: keep every non-zero one.
    min_weight: f32 = 0,
};

/// A learned sparse vector: the non-zero weights of a sparse (SPLADE)
/// model's vocabulary entries, by strictly ascending token id.
pub const SparseVector = struct {
    ids: []const u32,
    /// Each above 0 (and above `SparseOptions.min_weight`).
    weights: []const f32,

    /// The weight of token `id` (0 when absent).
    pub fn weight(vector: SparseVector, id: u32) f32 {
        const index = std.sort.binarySearch(u32, vector.ids, id, struct {
            fn order(key: u32, item: u32) std.math.Order {
                return std.math.order(key, item);
            }
        }.order) orelse return 0;
        return vector.weights[index];
    }
};

/// The sparse vectors of `Model.embedSparse`, one per text in input order,
/// owned by the allocator passed to it.
pub const SparseEmbeddings = struct {
    vectors: []SparseVector,
    /// Every vector's ids and weights, end to end: the vectors' slices point
    /// into them.
    ids: []u32,
    weights: []f32,

    pub fn deinit(embeddings: *SparseEmbeddings, allocator: Allocator) void {
        allocator.free(embeddings.vectors);
        allocator.free(embeddings.ids);
        allocator.free(embeddings.weights);
        embeddings.* = undefined;
    }

    /// Copies the library's list.
    fn copy(
        allocator: Allocator,
        list: *const c.sieve_sparse_embeddings,
        diagnostics: ?*Diagnostics,
    ) SieveError!SparseEmbeddings {
        const count = c.sieve_sparse_embeddings_count(list);
        var total: usize = 0;
        for (0..count) |index| total += (try view(list, index, diagnostics)).ids.len;
        const vectors = try allocator.alloc(SparseVector, count);
        errdefer allocator.free(vectors);
        const ids = try allocator.alloc(u32, total);
        errdefer allocator.free(ids);
        const weights = try allocator.alloc(f32, total);
        errdefer allocator.free(weights);
        var at: usize = 0;
        for (vectors, 0..) |*vector, index| {
            const source = try view(list, index, diagnostics);
            const n = source.ids.len;
            @memcpy(ids[at..][0..n], source.ids);
            @memcpy(weights[at..][0..n], source.weights);
            vector.* = .{ .ids = ids[at..][0..n], .weights = weights[at..][0..n] };
            at += n;
        }
        return .{ .vectors = vectors, .ids = ids, .weights = weights };
    }

    /// Vector `index` of the library's list, pointing into it.
    fn view(list: *const c.sieve_sparse_embeddings, index: usize, diagnostics: ?*Diagnostics) SieveError!SparseVector {
        var ids: [*c]const u32 = null;
        var weights: [*c]const f32 = null;
        var size: usize = 0;
        try check(c.sieve_sparse_embeddings_get(list, index, &ids, &weights, &size), diagnostics);
        // The arrays are NULL for an empty vector, which a slice cannot be.
        if (size == 0) return .{ .ids = &.{}, .weights = &.{} };
        return .{ .ids = ids[0..size], .weights = weights[0..size] };
    }
};

/// One reranked document. Laid out as `sieve_rerank_result`, so the library
/// writes results straight into slices of it.
pub const RerankResult = extern struct {
    /// Of the document in the input.
    index: usize,
    score: f32,
};

comptime {
    std.debug.assert(@sizeOf(RerankResult) == @sizeOf(c.sieve_rerank_result));
    std.debug.assert(@offsetOf(RerankResult, "index") == @offsetOf(c.sieve_rerank_result, "index"));
    std.debug.assert(@offsetOf(RerankResult, "score") == @offsetOf(c.sieve_rerank_result, "score"));
}

/// How `Model.classify` scores.
pub const ClassifyOptions = struct {
    /// The logits instead of probabilities (the softmax, or the sigmoid for
    /// multi-label and one-label models, as the model's problem_type says).
    raw_scores: bool = false,
};

/// One label's score for one input. The name belongs to the model.
pub const LabelScore = struct {
    label: [:0]const u8,
    score: f32,

    /// Best first, NaN last, as `sieve classify` ranks labels.
    fn better(_: void, a: LabelScore, b: LabelScore) bool {
        if (std.math.isNan(a.score)) return false;
        if (std.math.isNan(b.score)) return true;
        return a.score > b.score;
    }
};

/// Every label's score for each input of `Model.classify`, owned by the
/// allocator passed to it: one row per input, in input order, holding every
/// label best first (labels with equal scores keep the model's label order,
/// so a row's first label is the prediction), as `sieve classify` lists them.
pub const Classification = struct {
    data: []LabelScore,
    count: usize,
    /// The model's number of labels: the length of every row.
    label_count: usize,

    pub fn deinit(classification: *Classification, allocator: Allocator) void {
        allocator.free(classification.data);
        classification.* = undefined;
    }

    /// The labels of the `index`th input, best first.
    pub fn row(classification: Classification, index: usize) []LabelScore {
        std.debug.assert(index < classification.count);
        return classification.data[index * classification.label_count ..][0..classification.label_count];
    }
};

fn toText(bytes: []const u8) c.sieve_text {
    // The ABI allows a NULL pointer only with size 0, and an empty Zig slice's
    // pointer carries no meaning, so send NULL for every empty text.
    return .{ .data = if (bytes.len == 0) null else bytes.ptr, .size = bytes.len };
}

/// Zig slices have no defined layout, so a batch is passed to C as a
/// separate array of `sieve_text`, freed by the caller.
fn toTexts(allocator: Allocator, texts: []const []const u8) Allocator.Error![]c.sieve_text {
    const result = try allocator.alloc(c.sieve_text, texts.len);
    for (result, texts) |*text, bytes| text.* = toText(bytes);
    return result;
}

/// A loaded model: an embedding model, a sparse (SPLADE) embedding model, or
/// a cross-encoder reranker (which also classifies, being a sequence
/// classifier).
pub const Model = struct {
    handle: *c.sieve_model,

    /// Loads a model folder (model.onnx or onnx/model.onnx, tokenizer.json and
    /// the sentence-transformers files).
    pub fn load(folder: [:0]const u8, options: ModelOptions, diagnostics: ?*Diagnostics) SieveError!Model {
        const raw = options.toC();
        var handle: ?*c.sieve_model = null;
        try check(c.sieve_model_load(folder.ptr, &raw, &handle), diagnostics);
        return .{ .handle = handle.? };
    }

    /// Must not be called while another thread uses the model.
    pub fn deinit(model: *Model) void {
        c.sieve_model_destroy(model.handle);
        model.* = undefined;
    }

    pub fn info(model: Model, diagnostics: ?*Diagnostics) SieveError!Info {
        var raw = std.mem.zeroes(c.sieve_model_info);
        raw.struct_size = @sizeOf(c.sieve_model_info);
        try check(c.sieve_model_get_info(model.handle, &raw), diagnostics);
        return .{
            .kind = @fromBackingInt(raw.kind),
            .dimension = raw.dimension,
            .max_length = raw.max_length,
            .normalize = raw.normalize != 0,
            .pooling = std.mem.span(raw.pooling),
            .providers = std.mem.span(raw.providers),
            .folder = std.mem.span(raw.folder),
            .onnx_file = std.mem.span(raw.onnx_file),
        };
    }

    /// The number of floats the embeddings of `count` texts take.
    pub fn embedSize(model: Model, count: usize, diagnostics: ?*Diagnostics) SieveError!usize {
        var floats: usize = 0;
        try check(c.sieve_embed_size(model.handle, count, &floats), diagnostics);
        return floats;
    }

    /// Embeds `texts` (UTF-8, may contain NUL bytes), one vector per text in
    /// input order. Free the result with `Embeddings.deinit`.
    pub fn embed(
        model: Model,
        allocator: Allocator,
        texts: []const []const u8,
        diagnostics: ?*Diagnostics,
    ) SieveError!Embeddings {
        const dimension = try model.embedSize(1, diagnostics);
        const data = try allocator.alloc(f32, try model.embedSize(texts.len, diagnostics));
        errdefer allocator.free(data);
        try model.embedInto(allocator, texts, data, diagnostics);
        return .{ .data = data, .count = texts.len, .dimension = dimension };
    }

    /// Embeds `texts` into `out`, row-major; `out` must hold at least
    /// `embedSize(texts.len)` floats, else BufferTooSmall and nothing is
    /// written. `allocator` is used only during the call.
    pub fn embedInto(
        model: Model,
        allocator: Allocator,
        texts: []const []const u8,
        out: []f32,
        diagnostics: ?*Diagnostics,
    ) SieveError!void {
        const raw = try toTexts(allocator, texts);
        defer allocator.free(raw);
        try check(c.sieve_embed(model.handle, raw.ptr, raw.len, out.ptr, out.len), diagnostics);
    }

    /// Embeds `texts` with a sparse (SPLADE) model: one vector per text, in
    /// input order, holding its non-zero weights by ascending token id, pruned
    /// by `options`. Free the result with `SparseEmbeddings.deinit`. A dense
    /// embedding model or a reranker is WrongKind.
    pub fn embedSparse(
        model: Model,
        allocator: Allocator,
        texts: []const []const u8,
        options: SparseOptions,
        diagnostics: ?*Diagnostics,
    ) SieveError!SparseEmbeddings {
        const raw = try toTexts(allocator, texts);
        defer allocator.free(raw);
        var raw_options: c.sieve_sparse_options = undefined;
        c.sieve_sparse_options_init(&raw_options, @sizeOf(c.sieve_sparse_options));
        raw_options.top_k = options.top_k;
        raw_options.min_weight = options.min_weight;
        var list: ?*c.sieve_sparse_embeddings = null;
        try check(c.sieve_embed_sparse(model.handle, raw.ptr, raw.len, &raw_options, &list), diagnostics);
        defer c.sieve_sparse_embeddings_destroy(list);
        return SparseEmbeddings.copy(allocator, list.?, diagnostics);
    }

    /// One score per document, in input order, owned by the caller.
    pub fn score(
        model: Model,
        allocator: Allocator,
        query: []const u8,
        documents: []const []const u8,
        diagnostics: ?*Diagnostics,
    ) SieveError![]f32 {
        const scores = try allocator.alloc(f32, documents.len);
        errdefer allocator.free(scores);
        try model.scoreInto(allocator, query, documents, scores, diagnostics);
        return scores;
    }

    /// Scores into `scores`, which must hold one float per document.
    pub fn scoreInto(
        model: Model,
        allocator: Allocator,
        query: []const u8,
        documents: []const []const u8,
        scores: []f32,
        diagnostics: ?*Diagnostics,
    ) SieveError!void {
        const raw = try toTexts(allocator, documents);
        defer allocator.free(raw);
        try check(c.sieve_score(model.handle, toText(query), raw.ptr, raw.len, scores.ptr, scores.len), diagnostics);
    }

    /// The `top_k` best documents (all for null or 0, as in the C ABI), best
    /// first; ties keep input order. Owned by the caller.
    pub fn rerank(
        model: Model,
        allocator: Allocator,
        query: []const u8,
        documents: []const []const u8,
        top_k: ?usize,
        diagnostics: ?*Diagnostics,
    ) SieveError![]RerankResult {
        const k = top_k orelse 0;
        const count = if (k == 0) documents.len else @min(k, documents.len);
        const results = try allocator.alloc(RerankResult, count);
        errdefer allocator.free(results);
        const written = try model.rerankInto(allocator, query, documents, top_k, results, diagnostics);
        // The library writes exactly min(count, top_k) results; anything else
        // would leave undefined entries in what we hand out.
        if (written.len != count) return error.Internal;
        return results;
    }

    /// Reranks into `results`, which must hold min(documents.len, top_k)
    /// entries; returns the part written.
    pub fn rerankInto(
        model: Model,
        allocator: Allocator,
        query: []const u8,
        documents: []const []const u8,
        top_k: ?usize,
        results: []RerankResult,
        diagnostics: ?*Diagnostics,
    ) SieveError![]RerankResult {
        const raw = try toTexts(allocator, documents);
        defer allocator.free(raw);
        var written: usize = 0;
        try check(c.sieve_rerank(
            model.handle,
            toText(query),
            raw.ptr,
            raw.len,
            top_k orelse 0,
            @ptrCast(results.ptr),
            results.len,
            &written,
        ), diagnostics);
        return results[0..written];
    }

    /// The name of label `index` (below `info().dimension`): config.json's
    /// id2label, or "LABEL_<index>" where it has none. Owned by the model.
    pub fn label(model: Model, index: usize, diagnostics: ?*Diagnostics) SieveError![:0]const u8 {
        var name: [*c]const u8 = null;
        try check(c.sieve_model_label(model.handle, index, &name), diagnostics);
        return std.mem.span(name);
    }

    /// Every label's score for each text, with a reranker-kind model (a
    /// sequence classifier). Free the result with `Classification.deinit`.
    pub fn classify(
        model: Model,
        allocator: Allocator,
        texts: []const []const u8,
        options: ClassifyOptions,
        diagnostics: ?*Diagnostics,
    ) SieveError!Classification {
        const raw = try toTexts(allocator, texts);
        defer allocator.free(raw);
        return model.classifyTexts(allocator, raw, null, options, diagnostics);
    }

    /// `classify` for inputs of two texts each, such as an NLI premise and
    /// hypothesis (`sieve classify --pairs`).
    pub fn classifyPairs(
        model: Model,
        allocator: Allocator,
        pairs: []const [2][]const u8,
        options: ClassifyOptions,
        diagnostics: ?*Diagnostics,
    ) SieveError!Classification {
        // The C ABI takes the first and the second texts as two arrays.
        const raw = try allocator.alloc(c.sieve_text, 2 * pairs.len);
        defer allocator.free(raw);
        for (pairs, raw[0..pairs.len], raw[pairs.len..]) |pair, *first, *second| {
            first.* = toText(pair[0]);
            second.* = toText(pair[1]);
        }
        return model.classifyTexts(allocator, raw[0..pairs.len], raw[pairs.len..], options, diagnostics);
    }

    fn classifyTexts(
        model: Model,
        allocator: Allocator,
        texts: []const c.sieve_text,
        pairs: ?[]const c.sieve_text,
        options: ClassifyOptions,
        diagnostics: ?*Diagnostics,
    ) SieveError!Classification {
        const label_count = (try model.info(diagnostics)).dimension;
        const n = std.math.mul(usize, texts.len, label_count) catch return error.OutOfMemory;
        const scores = try allocator.alloc(f32, n);
        defer allocator.free(scores);
        try check(c.sieve_classify(
            model.handle,
            texts.ptr,
            if (pairs) |p| p.ptr else null,
            texts.len,
            @intFromBool(options.raw_scores),
            scores.ptr,
            scores.len,
        ), diagnostics);
        const data = try allocator.alloc(LabelScore, n);
        errdefer allocator.free(data);
        for (data, scores, 0..) |*entry, value, i| {
            entry.* = .{ .label = try model.label(i % label_count, diagnostics), .score = value };
        }
        const classification: Classification = .{ .data = data, .count = texts.len, .label_count = label_count };
        for (0..texts.len) |i| std.mem.sort(LabelScore, classification.row(i), {}, LabelScore.better);
        return classification;
    }

    /// The model's own tokenizer (with its truncation), borrowed: valid while
    /// the model is.
    pub fn tokenizer(model: Model) Tokenizer {
        return .{ .handle = c.sieve_model_tokenizer(model.handle).? };
    }

    /// Tokenizes as the model does before inference.
    pub fn tokenize(
        model: Model,
        text: []const u8,
        options: Tokenizer.EncodeOptions,
        diagnostics: ?*Diagnostics,
    ) SieveError!Encoding {
        return model.tokenizer().encode(text, options, diagnostics);
    }

    pub fn decode(
        model: Model,
        allocator: Allocator,
        ids: []const u32,
        options: Tokenizer.DecodeOptions,
        diagnostics: ?*Diagnostics,
    ) SieveError![]u8 {
        return model.tokenizer().decode(allocator, ids, options, diagnostics);
    }
};

/// The tokens of one text or pair. The slices point into the library's
/// encoding and are valid until `deinit`.
pub const Encoding = struct {
    handle: *c.sieve_encoding,
    ids: []const u32,
    type_ids: []const u32,
    attention_mask: []const u8,
    special_tokens_mask: []const u8,
    /// Byte offsets [begin, end) of each token in its text.
    offsets: []const [2]u32,

    pub fn deinit(encoding: *Encoding) void {
        c.sieve_encoding_destroy(encoding.handle);
        encoding.* = undefined;
    }

    pub fn len(encoding: Encoding) usize {
        return encoding.ids.len;
    }

    fn fromHandle(handle: *c.sieve_encoding) Encoding {
        const n = c.sieve_encoding_size(handle);
        return .{
            .handle = handle,
            .ids = view(u32, c.sieve_encoding_ids(handle), n),
            .type_ids = view(u32, c.sieve_encoding_type_ids(handle), n),
            .attention_mask = view(u8, c.sieve_encoding_attention_mask(handle), n),
            .special_tokens_mask = view(u8, c.sieve_encoding_special_tokens_mask(handle), n),
            // The library's flat [begin, end, begin, end, ...] as pairs.
            .offsets = @ptrCast(view(u32, c.sieve_encoding_offsets(handle), 2 * n)),
        };
    }

    // The arrays are NULL when there are no tokens, which a slice cannot be.
    fn view(comptime T: type, pointer: [*c]const T, n: usize) []const T {
        return if (n == 0) &.{} else pointer[0..n];
    }
};

/// A Hugging Face tokenizer: loaded from a tokenizer.json file (owned) or a
/// model's own (borrowed).
pub const Tokenizer = struct {
    handle: *const c.sieve_tokenizer,
    /// Set only when this Tokenizer loaded the file itself: a model's
    /// tokenizer lives and dies with the model.
    owned: ?*c.sieve_tokenizer = null,

    pub const EncodeOptions = struct {
        /// Encode the pair (text, pair), as a cross-encoder's input.
        pair: ?[]const u8 = null,
        add_special_tokens: bool = true,
    };

    pub const DecodeOptions = struct {
        /// As Hugging Face tokenizers' decode() does by default.
        skip_special_tokens: bool = true,
    };

    pub fn load(path: [:0]const u8, diagnostics: ?*Diagnostics) SieveError!Tokenizer {
        var handle: ?*c.sieve_tokenizer = null;
        try check(c.sieve_tokenizer_load(path.ptr, &handle), diagnostics);
        return .{ .handle = handle.?, .owned = handle.? };
    }

    /// Frees a loaded tokenizer; does nothing for a model's.
    pub fn deinit(tokenizer: *Tokenizer) void {
        if (tokenizer.owned) |handle| c.sieve_tokenizer_destroy(handle);
        tokenizer.* = undefined;
    }

    /// Encodes with the tokenizer's truncation and padding, as Hugging Face's
    /// encode() does.
    pub fn encode(
        tokenizer: Tokenizer,
        text: []const u8,
        options: EncodeOptions,
        diagnostics: ?*Diagnostics,
    ) SieveError!Encoding {
        const pair: ?c.sieve_text = if (options.pair) |p| toText(p) else null;
        var handle: ?*c.sieve_encoding = null;
        try check(c.sieve_tokenize(
            tokenizer.handle,
            toText(text),
            if (pair) |*p| p else null,
            @intFromBool(options.add_special_tokens),
            &handle,
        ), diagnostics);
        return Encoding.fromHandle(handle.?);
    }

    /// The text of `ids` through the tokenizer's decoder, owned by the caller.
    pub fn decode(
        tokenizer: Tokenizer,
        allocator: Allocator,
        ids: []const u32,
        options: DecodeOptions,
        diagnostics: ?*Diagnostics,
    ) SieveError![]u8 {
        var text: [*c]u8 = null;
        var size: usize = 0;
        try check(c.sieve_tokenizer_decode(
            tokenizer.handle,
            if (ids.len == 0) null else ids.ptr,
            ids.len,
            @intFromBool(options.skip_special_tokens),
            &text,
            &size,
        ), diagnostics);
        defer c.sieve_string_free(text);
        return allocator.dupe(u8, text[0..size]);
    }

    /// The vocabulary entry of `id`, borrowed from the tokenizer.
    pub fn idToToken(tokenizer: Tokenizer, id: u32, diagnostics: ?*Diagnostics) SieveError![]const u8 {
        var token: c.sieve_text = .{};
        try check(c.sieve_tokenizer_id_to_token(tokenizer.handle, id, &token), diagnostics);
        return if (token.size == 0) "" else token.data[0..token.size];
    }

    pub fn vocabSize(tokenizer: Tokenizer) usize {
        return c.sieve_tokenizer_vocab_size(tokenizer.handle);
    }
};

/// Model folders under a root, addressed by their path below it ("minilm",
/// "org/model"), each loaded on first use, once, and shared.
pub const Registry = struct {
    handle: *c.sieve_registry,

    pub const Options = struct {
        /// Bound in bytes on the estimated memory of loaded models (least
        /// recently used ones nobody holds are evicted); null: none.
        memory_budget: ?u64 = null,
        /// What models are loaded with; `kind` is ignored.
        model: ModelOptions = .{},
        /// Run every model on one process-wide ONNX Runtime thread pool.
        shared_thread_pool: ?bool = null,
    };

    pub fn open(root: [:0]const u8, options: Options, diagnostics: ?*Diagnostics) SieveError!Registry {
        const model_options = options.model.toC();
        var raw: c.sieve_registry_options = undefined;
        c.sieve_registry_options_init(&raw, @sizeOf(c.sieve_registry_options));
        if (options.memory_budget) |budget| raw.memory_budget = budget;
        raw.model_options = &model_options;
        if (options.shared_thread_pool) |shared| raw.shared_thread_pool = @intFromBool(shared);
        var handle: ?*c.sieve_registry = null;
        try check(c.sieve_registry_open(root.ptr, &raw, &handle), diagnostics);
        return .{ .handle = handle.? };
    }

    /// Models already handed out stay valid.
    pub fn deinit(registry: *Registry) void {
        c.sieve_registry_destroy(registry.handle);
        registry.* = undefined;
    }

    /// The model `name`, loaded if needed, as a handle of its own (free it
    /// with `Model.deinit`). Names outside the root ("..", absolute paths)
    /// are NotFound.
    pub fn get(registry: Registry, name: [:0]const u8, diagnostics: ?*Diagnostics) SieveError!Model {
        var handle: ?*c.sieve_model = null;
        try check(c.sieve_registry_get(registry.handle, name.ptr, &handle), diagnostics);
        return .{ .handle = handle.? };
    }

    /// Every model folder under the root, sorted by name; nothing is loaded.
    pub fn list(registry: Registry, allocator: Allocator, diagnostics: ?*Diagnostics) SieveError!ModelList {
        var handle: ?*c.sieve_model_list = null;
        try check(c.sieve_registry_list(registry.handle, &handle), diagnostics);
        errdefer c.sieve_model_list_destroy(handle);
        const entries = try allocator.alloc(RegistryEntry, c.sieve_model_list_size(handle));
        errdefer allocator.free(entries);
        for (entries, 0..) |*entry, index| {
            var raw = std.mem.zeroes(c.sieve_registry_entry);
            raw.struct_size = @sizeOf(c.sieve_registry_entry);
            try check(c.sieve_model_list_get(handle, index, &raw), diagnostics);
            const error_message = std.mem.span(raw.@"error");
            entry.* = .{
                .name = std.mem.span(raw.name),
                .kind = @fromBackingInt(raw.kind),
                .dimension = raw.dimension,
                .max_length = raw.max_length,
                .loaded = raw.loaded != 0,
                .providers = std.mem.span(raw.providers),
                .error_message = if (error_message.len == 0) null else error_message,
            };
        }
        return .{ .handle = handle.?, .entries = entries };
    }
};

/// One model folder of a registry. The strings belong to its `ModelList`.
pub const RegistryEntry = struct {
    name: [:0]const u8,
    kind: Kind,
    /// Embedding: the vector length. Reranker: the number of labels. Sparse:
    /// the vocabulary size.
    dimension: usize,
    max_length: usize,
    loaded: bool,
    /// Comma-separated.
    providers: [:0]const u8,
    /// Why the folder could not be described, if it could not.
    error_message: ?[:0]const u8,
};

pub const ModelList = struct {
    handle: *c.sieve_model_list,
    entries: []RegistryEntry,

    pub fn deinit(model_list: *ModelList, allocator: Allocator) void {
        allocator.free(model_list.entries);
        c.sieve_model_list_destroy(model_list.handle);
        model_list.* = undefined;
    }
};

test "each status code maps to the error of the same name" {
    // The error set and the code enum are written by hand; this keeps them
    // from drifting apart.
    const names = @typeInfo(Code).@"enum".field_names;
    inline for (names) |name| {
        const code = @field(Code, name);
        if (code.toError()) |err| {
            var camel: [64]u8 = undefined;
            var n: usize = 0;
            var word_start = true;
            for (name) |char| {
                if (char == '_') {
                    word_start = true;
                } else {
                    camel[n] = if (word_start) std.ascii.toUpper(char) else char;
                    n += 1;
                    word_start = false;
                }
            }
            try std.testing.expectEqualStrings(camel[0..n], @errorName(err));
        } else {
            try std.testing.expectEqual(Code.ok, code);
        }
    }
    try std.testing.expectEqual(names.len - 1, @typeInfo(SieveError).error_set.error_names.?.len);
}
