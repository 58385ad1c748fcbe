//! The model registry against `sieve info --models` and `sieve embed`.

const std = @import("std");
const sieve = @import("sieve");
const support = @import("support.zig");

const testing = std.testing;

test "registry: list() describes the folders as `sieve info --models --no-load` does" {
    const allocator = testing.allocator;
    const root = try support.fixturesRoot(allocator);
    defer allocator.free(root);
    var registry = try sieve.Registry.open(root, .{}, null);
    defer registry.deinit();
    var models = try registry.list(allocator, null);
    defer models.deinit(allocator);

    const json = try support.runCli(allocator, &.{ "info", "--models", root, "--json", "--no-load" }, "");
    defer allocator.free(json);
    const Expected = struct {
        models: []const struct {
            name: []const u8,
            kind: []const u8,
            dimension: usize,
            max_length: usize,
        },
    };
    const expected = try std.json.parseFromSlice(Expected, allocator, json, .{ .ignore_unknown_fields = true });
    defer expected.deinit();

    try testing.expect(expected.value.models.len > 0);
    try testing.expectEqual(expected.value.models.len, models.entries.len);
    for (expected.value.models, models.entries) |e, entry| {
        try testing.expectEqualStrings(e.name, entry.name);
        // The CLI tells models that pool inside the graph apart; the ABI
        // knows embedding models, sparse ones, rerankers and multi-vector
        // (ColBERT) ones.
        const kind: sieve.Kind = if (std.mem.eql(u8, e.kind, "reranker"))
            .reranker
        else if (std.mem.eql(u8, e.kind, "late interaction"))
            .multi_vector
        else if (std.mem.eql(u8, e.kind, "sparse embedding"))
            .sparse
        else
            .embedding;
        try testing.expectEqual(kind, entry.kind);
        try testing.expectEqual(e.dimension, entry.dimension);
        try testing.expectEqual(e.max_length, entry.max_length);
        try testing.expectEqual(false, entry.loaded);
        try testing.expectEqual(null, entry.error_message);
    }
}

test "registry: get() loads models that embed as the CLI does and outlive the registry" {
    const allocator = testing.allocator;
    const root = try support.fixturesRoot(allocator);
    defer allocator.free(root);
    // (shared_thread_pool is not tried: ONNX Runtime has one environment per
    // process, fixed by the first model loaded, and other tests load models.)
    var registry = try sieve.Registry.open(root, .{ .model = .{ .batch_size = 2 } }, null);

    var diagnostics: sieve.Diagnostics = .{};
    defer diagnostics.deinit();
    var embedder = registry.get("tiny-bert-tokens", &diagnostics) catch |err| {
        std.debug.print("{f}\n", .{diagnostics});
        return err;
    };
    defer embedder.deinit();
    var reranker = try registry.get("cross-encoder-minilm-l6", null);
    defer reranker.deinit();
    try testing.expectEqual(sieve.Kind.embedding, (try embedder.info(null)).kind);
    try testing.expectEqual(sieve.Kind.reranker, (try reranker.info(null)).kind);

    var models = try registry.list(allocator, null);
    defer models.deinit(allocator);
    for (models.entries) |entry| {
        const held = std.mem.eql(u8, entry.name, "tiny-bert-tokens") or std.mem.eql(u8, entry.name, "cross-encoder-minilm-l6");
        try testing.expectEqual(held, entry.loaded);
    }

    // Handles stay valid after the registry is gone.
    registry.deinit();

    const texts = [_][]const u8{ "one text", "and a second, longer one", "3" };
    var embeddings = try embedder.embed(allocator, &texts, null);
    defer embeddings.deinit(allocator);

    const path = try support.fixture(allocator, "tiny-bert-tokens");
    defer allocator.free(path);
    const stdin = try support.lines(allocator, &texts);
    defer allocator.free(stdin);
    const npy = try support.runCli(allocator, &.{ "embed", "--model", path, "--format", "npy", "--batch-size", "2" }, stdin);
    defer allocator.free(npy);
    var expected = try support.parseNpy(allocator, npy);
    defer expected.deinit(allocator);
    try support.expectSameBits(expected.data, embeddings.data);

    const scores = try reranker.score(allocator, "query", &texts, null);
    defer allocator.free(scores);
    try testing.expectEqual(texts.len, scores.len);
}
