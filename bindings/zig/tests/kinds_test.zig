//! Every call on every kind of model: the calls a kind serves answer; any
//! other is WrongKind, its diagnostics naming the model's kind and a call
//! that serves it.

const std = @import("std");
const sieve = @import("sieve");
const support = @import("support.zig");

const testing = std.testing;

const Call = enum { embed, embed_sparse, rerank, classify };

fn attempt(model: sieve.Model, call: Call, diagnostics: *sieve.Diagnostics) !void {
    const allocator = testing.allocator;
    const texts = [_][]const u8{"x"};
    switch (call) {
        .embed => {
            var embeddings = try model.embed(allocator, &texts, diagnostics);
            embeddings.deinit(allocator);
        },
        .embed_sparse => {
            var embeddings = try model.embedSparse(allocator, &texts, .{}, diagnostics);
            embeddings.deinit(allocator);
        },
        .rerank => allocator.free(try model.rerank(allocator, "q", &texts, null, diagnostics)),
        .classify => {
            var classified = try model.classify(allocator, &texts, .{}, diagnostics);
            classified.deinit(allocator);
        },
    }
}

test "kinds: every call serves or refuses every kind of model" {
    const allocator = testing.allocator;
    const Case = struct { fixture: []const u8, kind: sieve.Kind, noun: []const u8, serves: []const Call, names: []const u8 };
    const cases = [_]Case{
        .{ .fixture = "tiny-bert-tokens", .kind = .embedding, .noun = "dense embedding model", .serves = &.{.embed}, .names = "sieve_embed" },
        .{ .fixture = "splade-tiny", .kind = .sparse, .noun = "sparse (SPLADE)", .serves = &.{.embed_sparse}, .names = "sieve_embed_sparse" },
        .{ .fixture = "colbert-tiny", .kind = .multi_vector, .noun = "late-interaction (ColBERT)", .serves = &.{.rerank}, .names = "sieve_rerank" },
        .{ .fixture = "bge-m3-tiny", .kind = .embedding, .noun = "dense embedding model", .serves = &.{ .embed, .embed_sparse }, .names = "sieve_embed" },
        .{ .fixture = "cross-encoder-tiny-3labels", .kind = .reranker, .noun = "reranker", .serves = &.{ .rerank, .classify }, .names = "sieve_rerank" },
    };
    for (cases) |case| {
        const path = try support.fixture(allocator, case.fixture);
        defer allocator.free(path);
        var model = try sieve.Model.load(path, .{}, null);
        defer model.deinit();
        try testing.expectEqual(case.kind, (try model.info(null)).kind);
        for (std.enums.values(Call)) |call| {
            var diagnostics: sieve.Diagnostics = .{};
            defer diagnostics.deinit();
            const served = std.mem.indexOfScalar(Call, case.serves, call) != null;
            if (served) {
                try attempt(model, call, &diagnostics);
                continue;
            }
            try testing.expectError(error.WrongKind, attempt(model, call, &diagnostics));
            const message = diagnostics.message();
            if (std.mem.indexOf(u8, message, case.noun) == null or std.mem.indexOf(u8, message, case.names) == null) {
                std.debug.print("{s} {s}: {q} does not name {q} and {q}\n", .{ case.fixture, @tagName(call), message, case.noun, case.names });
                return error.TestUnexpectedMessage;
            }
        }
    }
}
