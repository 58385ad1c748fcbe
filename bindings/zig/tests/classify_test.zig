//! Classification through the bindings against `sieve classify`.

const std = @import("std");
const sieve = @import("sieve");
const support = @import("support.zig");

const testing = std.testing;

const fixture_name = "cross-encoder-tiny-3labels";
const label_names = [_][]const u8{ "contradiction", "entailment", "neutral" };

/// An empty text, a NUL byte, multi-byte UTF-8 and a text longer than the
/// model's maximum length; also the premises of `pairs`.
const texts = [_][]const u8{
    "A man is eating pizza.",
    "Stock markets fell sharply on Monday.",
    "",
    "Le chat est assis sur le tapis, 猫がマットの上に座っている。",
    "with a NUL\x00byte",
    support.repeat("the mat and the cat ", 150),
    "x",
};

const pairs = [_][2][]const u8{
    .{ texts[0], "A person eats food." },
    .{ texts[1], "Stocks went up." },
    .{ texts[2], "Nothing." },
    .{ texts[3], "" },
    .{ texts[4], "another NUL\x00byte" },
    .{ texts[5], "Short." },
    .{ texts[6], support.repeat("and another hypothesis ", 40) },
};

/// The output of `sieve classify`: per input, its labels best first, owned by
/// the arena.
fn classifyCli(arena: std.mem.Allocator, model: []const u8, inputs: []const []const u8, extra: []const []const u8) ![][]support.Labeled {
    const args = try std.mem.concat(arena, []const u8, &.{ &.{ "classify", "--model", model, "--batch-size", "3" }, extra });
    const stdin = try support.lines(arena, inputs);
    return support.parseClassify(arena, try support.runCli(arena, args, stdin));
}

/// The same labels in the same order with the same scores, bit for bit.
fn expectSameClassification(expected: []const []const support.Labeled, actual: sieve.Classification) !void {
    try testing.expectEqual(expected.len, actual.count);
    for (expected, 0..) |labels, i| {
        const row = actual.row(i);
        try testing.expectEqual(labels.len, row.len);
        for (labels, row) |e, a| {
            try testing.expectEqualStrings(e.label, a.label);
            try support.expectSameBits(&.{e.score}, &.{a.score});
        }
    }
}

fn loadFixture(allocator: std.mem.Allocator, name: []const u8) !sieve.Model {
    const path = try support.fixture(allocator, name);
    defer allocator.free(path);
    return sieve.Model.load(path, .{ .batch_size = 3 }, null);
}

test "classify: texts and pairs, probabilities and logits, as the CLI bit for bit" {
    var arena_state: std.heap.ArenaAllocator = .init(testing.allocator);
    defer arena_state.deinit();
    const arena = arena_state.allocator();
    const allocator = testing.allocator;
    const path = try support.fixture(arena, fixture_name);
    var model = try loadFixture(allocator, fixture_name);
    defer model.deinit();

    try testing.expectEqual(label_names.len, (try model.info(null)).dimension);
    for (label_names, 0..) |name, i| try testing.expectEqualStrings(name, try model.label(i, null));

    var lines: [pairs.len][]const u8 = undefined;
    for (&lines, pairs) |*line, pair| line.* = try std.mem.concat(arena, u8, &.{ pair[0], "\t", pair[1] });

    for ([_]bool{ false, true }) |raw_scores| {
        const raw_flag: []const []const u8 = if (raw_scores) &.{"--raw-scores"} else &.{};

        var classified = try model.classify(allocator, &texts, .{ .raw_scores = raw_scores }, null);
        defer classified.deinit(allocator);
        try expectSameClassification(try classifyCli(arena, path, &texts, raw_flag), classified);

        var classified_pairs = try model.classifyPairs(allocator, &pairs, .{ .raw_scores = raw_scores }, null);
        defer classified_pairs.deinit(allocator);
        const pairs_flags = try std.mem.concat(arena, []const u8, &.{ raw_flag, &.{"--pairs"} });
        try expectSameClassification(try classifyCli(arena, path, &lines, pairs_flags), classified_pairs);
    }
}

test "classify: probabilities are a softmax of the logits, with the same best label" {
    const allocator = testing.allocator;
    var model = try loadFixture(allocator, fixture_name);
    defer model.deinit();

    var probabilities = try model.classifyPairs(allocator, &pairs, .{}, null);
    defer probabilities.deinit(allocator);
    var logits = try model.classifyPairs(allocator, &pairs, .{ .raw_scores = true }, null);
    defer logits.deinit(allocator);
    try testing.expectEqual(pairs.len, probabilities.count);
    for (0..pairs.len) |i| {
        const p = probabilities.row(i);
        const z = logits.row(i);
        try testing.expectEqualStrings(z[0].label, p[0].label);
        var sum: f64 = 0;
        var exp_sum: f64 = 0;
        for (p) |entry| sum += entry.score;
        for (z) |entry| exp_sum += @exp(@as(f64, entry.score) - z[0].score);
        try testing.expectApproxEqAbs(1.0, sum, 1e-5);
        // Each probability is its label's exp(logit) over the sum of them.
        for (p) |entry| {
            const logit = for (z) |l| {
                if (std.mem.eql(u8, l.label, entry.label)) break l.score;
            } else return error.TestMissingLabel;
            try testing.expectApproxEqAbs(@exp(@as(f64, logit) - z[0].score) / exp_sum, entry.score, 1e-5);
        }
    }

    var none = try model.classify(allocator, &.{}, .{}, null);
    defer none.deinit(allocator);
    try testing.expectEqual(0, none.count);
}

test "classify: errors" {
    const allocator = testing.allocator;
    var model = try loadFixture(allocator, fixture_name);
    defer model.deinit();
    var embedder = try loadFixture(allocator, "tiny-bert-tokens");
    defer embedder.deinit();
    var diagnostics: sieve.Diagnostics = .{};
    defer diagnostics.deinit();

    try testing.expectError(error.InvalidArgument, model.label(label_names.len, &diagnostics));
    try testing.expect(std.mem.indexOf(u8, diagnostics.message(), "label 3") != null);

    const bad = [_][2][]const u8{ .{ "ok", "ok" }, .{ "ok", "bad \xc3" } };
    try testing.expectError(error.InvalidInput, model.classifyPairs(allocator, &bad, .{}, &diagnostics));
    try testing.expectEqual(1, diagnostics.inputIndex());

    try testing.expectError(error.WrongKind, embedder.classify(allocator, &texts, .{}, &diagnostics));
    try testing.expectEqual(sieve.Code.wrong_kind, diagnostics.code());
    try testing.expectError(error.WrongKind, embedder.label(0, null));
}
