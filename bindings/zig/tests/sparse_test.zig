//! Sparse (SPLADE) embeddings through the bindings against
//! sentence-transformers' vectors (the fixture's reference.json).

const std = @import("std");
const sieve = @import("sieve");
const support = @import("support.zig");

const testing = std.testing;

/// support.hard_texts, and a question.
const texts = support.hard_texts ++ [_][]const u8{"How do plants make food from sunlight?"};

/// Token ids strictly ascending below `vocabulary`, weights finite and above
/// `floor`.
fn expectWellFormed(vector: sieve.SparseVector, vocabulary: usize, floor: f32) !void {
    try testing.expectEqual(vector.ids.len, vector.weights.len);
    for (vector.ids, vector.weights, 0..) |id, weight, i| {
        try testing.expect(id < vocabulary);
        if (i > 0) try testing.expect(id > vector.ids[i - 1]);
        try testing.expect(std.math.isFinite(weight) and weight > floor);
    }
}

/// Every weight of `a` and `b` within `tolerance` of the other's (0 where
/// absent), and the same ids above `floor`.
fn expectClose(a: sieve.SparseVector, b: sieve.SparseVector, tolerance: f32, floor: f32) !void {
    for ([2][2]sieve.SparseVector{ .{ a, b }, .{ b, a } }) |pair| {
        for (pair[0].ids, pair[0].weights) |id, weight| {
            const other = pair[1].weight(id);
            if (!(@abs(weight - other) <= tolerance) or (weight > floor and other == 0)) {
                std.debug.print("token {d}: {e} against {e}\n", .{ id, weight, other });
                return error.TestExpectedApproxEqAbs;
            }
        }
    }
}

/// Whether `pruned` is `full` pruned as SparseOptions say: the weights above
/// min_weight, then the top_k largest (ties: the smaller id), by id.
fn expectPruned(full: sieve.SparseVector, pruned: sieve.SparseVector, options: sieve.SparseOptions) !void {
    var kept: usize = 0;
    for (full.ids, full.weights) |id, weight| {
        if (!(weight > options.min_weight)) continue;
        if (options.top_k != 0) {
            // Kept when fewer than top_k others beat it.
            var better: usize = 0;
            for (full.ids, full.weights) |other_id, other| {
                if (other > options.min_weight and (other > weight or (other == weight and other_id < id))) better += 1;
            }
            if (better >= options.top_k) continue;
        }
        try testing.expect(kept < pruned.ids.len);
        try testing.expectEqual(id, pruned.ids[kept]);
        try support.expectSameBits(&.{weight}, &.{pruned.weights[kept]});
        kept += 1;
    }
    try testing.expectEqual(kept, pruned.ids.len);
}

fn loadSparse(path: [:0]const u8, options: sieve.ModelOptions) !sieve.Model {
    var diagnostics: sieve.Diagnostics = .{};
    defer diagnostics.deinit();
    return sieve.Model.load(path, options, &diagnostics) catch |err| {
        std.debug.print("{f}\n", .{diagnostics});
        return err;
    };
}

test "sparse: the model's description and sentence-transformers' vectors" {
    const allocator = testing.allocator;
    const path = try support.sparseFixture(allocator);
    defer allocator.free(path);
    var model = try loadSparse(path, .{});
    defer model.deinit();

    const info = try model.info(null);
    try testing.expectEqual(sieve.Kind.sparse, info.kind);
    try testing.expect(info.dimension >= 1000 and info.max_length > 0 and !info.normalize);
    const poolings = [_][]const u8{ "splade max", "splade sum", "model" };
    var known = false;
    for (poolings) |pooling| known = known or std.mem.eql(u8, pooling, info.pooling);
    try testing.expect(known);

    const reference = try support.readSparseReference(allocator, path);
    defer reference.deinit();
    const inputs = try allocator.alloc([]const u8, reference.value.texts.len);
    defer allocator.free(inputs);
    for (inputs, reference.value.texts) |*input, entry| input.* = entry.text;
    var diagnostics: sieve.Diagnostics = .{};
    defer diagnostics.deinit();
    var embeddings = try model.embedSparse(allocator, inputs, .{}, &diagnostics);
    defer embeddings.deinit(allocator);
    try testing.expectEqual(inputs.len, embeddings.vectors.len);
    for (embeddings.vectors, reference.value.texts) |got, want| {
        try expectWellFormed(got, info.dimension, 0);
        try expectClose(got, .{ .ids = want.indices, .weights = want.values }, 1e-4, 1e-3);
    }
}

test "sparse: top_k and min_weight prune the full vectors" {
    const allocator = testing.allocator;
    const path = try support.sparseFixture(allocator);
    defer allocator.free(path);
    var model = try loadSparse(path, .{ .batch_size = 3 });
    defer model.deinit();
    const vocabulary = (try model.info(null)).dimension;

    var full = try model.embedSparse(allocator, &texts, .{}, null);
    defer full.deinit(allocator);
    try testing.expectEqual(texts.len, full.vectors.len);
    for (full.vectors) |vector| {
        try expectWellFormed(vector, vocabulary, 0);
        try testing.expect(vector.ids.len > 0);
    }
    // A text alone is its row of the batch, up to padding's float noise.
    var alone = try model.embedSparse(allocator, texts[1..2], .{}, null);
    defer alone.deinit(allocator);
    try expectClose(alone.vectors[0], full.vectors[1], 1e-4, 1e-3);

    const first = full.vectors[0];
    const floor = first.weights[first.weights.len / 2];
    const cases = [_]sieve.SparseOptions{
        .{ .top_k = 1 },          .{ .top_k = 4 },                      .{ .top_k = 100000 },
        .{ .min_weight = floor }, .{ .top_k = 3, .min_weight = floor }, .{ .min_weight = 1e30 },
    };
    for (cases) |options| {
        var pruned = try model.embedSparse(allocator, &texts, options, null);
        defer pruned.deinit(allocator);
        for (full.vectors, pruned.vectors) |whole, part| {
            try expectPruned(whole, part, options);
            try expectWellFormed(part, vocabulary, options.min_weight);
        }
    }
}

test "sparse: kinds, empty batches and errors" {
    const allocator = testing.allocator;
    const path = try support.sparseFixture(allocator);
    defer allocator.free(path);
    var model = try loadSparse(path, .{ .kind = .sparse });
    defer model.deinit();
    var diagnostics: sieve.Diagnostics = .{};
    defer diagnostics.deinit();

    var none = try model.embedSparse(allocator, &.{}, .{}, null);
    try testing.expectEqual(0, none.vectors.len);
    none.deinit(allocator);

    const bad = [_][]const u8{ "fine", "also fine", "broken \xff here", "fine" };
    try testing.expectError(error.InvalidInput, model.embedSparse(allocator, &bad, .{}, &diagnostics));
    try testing.expectEqual(2, diagnostics.inputIndex());
    try testing.expectError(error.InvalidArgument, model.embedSparse(allocator, &texts, .{ .min_weight = -1 }, null));

    // Dense calls on the sparse model, and the reverse, name the call to use.
    try testing.expectError(error.WrongKind, model.embed(allocator, &texts, &diagnostics));
    try testing.expect(std.mem.indexOf(u8, diagnostics.message(), "sieve_embed_sparse") != null);
    try testing.expectError(error.WrongKind, model.score(allocator, "query", &texts, null));
    const dense_path = try support.fixture(allocator, "tiny-bert-tokens");
    defer allocator.free(dense_path);
    var dense = try sieve.Model.load(dense_path, .{}, null);
    defer dense.deinit();
    try testing.expectError(error.WrongKind, dense.embedSparse(allocator, &texts, .{}, &diagnostics));
    try testing.expectEqual(sieve.Code.wrong_kind, diagnostics.code());

    // Loading with another kind, or with options only dense models take.
    try testing.expectError(error.WrongKind, sieve.Model.load(path, .{ .kind = .embedding }, null));
    try testing.expectError(error.WrongKind, sieve.Model.load(dense_path, .{ .kind = .sparse }, null));
    try testing.expectError(error.InvalidArgument, sieve.Model.load(path, .{ .pooling = .mean }, null));
    try testing.expectError(error.InvalidArgument, sieve.Model.load(path, .{ .dimensions = 8 }, null));
}
