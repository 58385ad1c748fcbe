//! Scoring and reranking through the bindings against `sieve rerank`.

const std = @import("std");
const sieve = @import("sieve");
const support = @import("support.zig");

const testing = std.testing;

const query = "Which animal sits on the mat?";

/// A duplicate (ties keep input order), an empty document, a NUL byte,
/// multi-byte UTF-8 and a document longer than the model's maximum length.
const documents = [_][]const u8{
    "A cat sits on the mat.",
    "Stock markets fell sharply on Monday.",
    "The dog sleeps on the rug.",
    "",
    "A cat sits on the mat.",
    "Le chat est assis sur le tapis, 猫がマットの上に座っている。",
    "with a NUL\x00byte",
    support.repeat("the mat and the cat ", 150),
};

fn rerankCli(model: []const u8, extra: []const []const u8) ![]support.Ranked {
    const allocator = testing.allocator;
    const args = try std.mem.concat(allocator, []const u8, &.{
        &.{ "rerank", "--model", model, "--query", query, "--batch-size", "3" }, extra,
    });
    defer allocator.free(args);
    const stdin = try support.lines(allocator, &documents);
    defer allocator.free(stdin);
    const json = try support.runCli(allocator, args, stdin);
    defer allocator.free(json);
    return support.parseRerank(allocator, json);
}

fn expectSameRanking(expected: []const support.Ranked, actual: []const sieve.RerankResult) !void {
    try testing.expectEqual(expected.len, actual.len);
    for (expected, actual) |e, a| {
        try testing.expectEqual(e.index, a.index);
        try support.expectSameBits(&.{e.score}, &.{a.score});
    }
}

fn loadFixture(name: []const u8) !sieve.Model {
    const path = try support.fixture(testing.allocator, name);
    defer testing.allocator.free(path);
    var diagnostics: sieve.Diagnostics = .{};
    defer diagnostics.deinit();
    return sieve.Model.load(path, .{ .batch_size = 3 }, &diagnostics) catch |err| {
        std.debug.print("{f}\n", .{diagnostics});
        return err;
    };
}

fn expectRerankLikeCli(fixture_name: []const u8) !void {
    const allocator = testing.allocator;
    const path = try support.fixture(allocator, fixture_name);
    defer allocator.free(path);
    var model = try loadFixture(fixture_name);
    defer model.deinit();

    const expected = try rerankCli(path, &.{});
    defer allocator.free(expected);
    const ranked = try model.rerank(allocator, query, &documents, null, null);
    defer allocator.free(ranked);
    try expectSameRanking(expected, ranked);

    // score() is in input order: each document's score is the one the CLI
    // reports for its index.
    const scores = try model.score(allocator, query, &documents, null);
    defer allocator.free(scores);
    try testing.expectEqual(documents.len, scores.len);
    for (expected) |e| try support.expectSameBits(&.{e.score}, &.{scores[e.index]});

    const top = try rerankCli(path, &.{ "--top-k", "3" });
    defer allocator.free(top);
    const ranked_top = try model.rerank(allocator, query, &documents, 3, null);
    defer allocator.free(ranked_top);
    try expectSameRanking(top, ranked_top);
}

test "rerank and score: the cross-encoder gives the CLI's ranking and scores bit for bit" {
    try expectRerankLikeCli("cross-encoder-minilm-l6");
}

test "rerank and score: a three-label cross-encoder (softmax) as on the CLI" {
    try expectRerankLikeCli("cross-encoder-tiny-3labels");
}

test "rerank: into a caller's buffer, top_k larger than the batch, no documents" {
    const allocator = testing.allocator;
    var model = try loadFixture("cross-encoder-minilm-l6");
    defer model.deinit();

    const all = try model.rerank(allocator, query, &documents, null, null);
    defer allocator.free(all);

    var buffer: [documents.len + 2]sieve.RerankResult = undefined;
    const written = try model.rerankInto(allocator, query, &documents, 100, &buffer, null);
    try testing.expectEqual(documents.len, written.len);
    try testing.expectEqualSlices(sieve.RerankResult, all, written);

    const none = try model.rerank(allocator, query, &.{}, null, null);
    defer allocator.free(none);
    try testing.expectEqual(0, none.len);

    const info = try model.info(null);
    try testing.expectEqual(sieve.Kind.reranker, info.kind);
    try testing.expectEqual(1, info.dimension);
}
