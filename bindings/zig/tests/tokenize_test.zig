//! Tokenization through the bindings against `sieve tokenize --byte-offsets`.

const std = @import("std");
const sieve = @import("sieve");
const support = @import("support.zig");

const testing = std.testing;

const texts = [_][]const u8{
    "Hello, world!",
    "Héllo wörld: naïve café, 東京.",
    "",
    "tokenization of unbelievably long words",
    "a NUL\x00inside",
};

/// With a text longer than a tokenizer file's truncation length.
const long_texts = texts ++ [_][]const u8{support.repeat("many words ", 200)};

fn expectEncodingsEqual(expected: support.Tokenized, encoding: sieve.Encoding, tokenizer: sieve.Tokenizer) !void {
    try testing.expectEqualSlices(u32, expected.ids, encoding.ids);
    try testing.expectEqualSlices(u32, expected.type_ids, encoding.type_ids);
    try testing.expectEqualSlices(u8, expected.attention_mask, encoding.attention_mask);
    try testing.expectEqualSlices(u8, expected.special_tokens_mask, encoding.special_tokens_mask);
    try testing.expectEqualSlices([2]u32, expected.byte_offsets, encoding.offsets);
    try testing.expectEqual(expected.ids.len, encoding.len());
    for (expected.tokens, encoding.ids) |token, id| {
        try testing.expectEqualStrings(token, try tokenizer.idToToken(id, null));
    }
}

/// Encodes `inputs` (a "text\tpair" line is a pair when `pair` is set) with
/// the bindings and the CLI run with `cli_args`, and requires equal results.
fn expectSameAsCli(
    tokenizer: sieve.Tokenizer,
    inputs: []const []const u8,
    options: sieve.Tokenizer.EncodeOptions,
    cli_args: []const []const u8,
) !void {
    const allocator = testing.allocator;
    const args = try std.mem.concat(allocator, []const u8, &.{ &.{ "tokenize", "--byte-offsets" }, cli_args });
    defer allocator.free(args);
    const stdin = try support.lines(allocator, inputs);
    defer allocator.free(stdin);
    const output = try support.runCli(allocator, args, stdin);
    defer allocator.free(output);
    const expected = try support.parseTokenize(allocator, output);
    defer support.freeTokenize(allocator, expected);
    try testing.expectEqual(inputs.len, expected.len);

    for (inputs, expected) |input, line| {
        var encode_options = options;
        var text = input;
        if (options.pair != null) {
            const tab = std.mem.indexOfScalar(u8, input, '\t').?;
            text = input[0..tab];
            encode_options.pair = input[tab + 1 ..];
        }
        var diagnostics: sieve.Diagnostics = .{};
        defer diagnostics.deinit();
        var encoding = tokenizer.encode(text, encode_options, &diagnostics) catch |err| {
            std.debug.print("{f}\n", .{diagnostics});
            return err;
        };
        defer encoding.deinit();
        try expectEncodingsEqual(line.value, encoding, tokenizer);
    }
}

test "tokenize: a model's tokenizer gives `sieve tokenize --model --no-padding`'s encodings" {
    const allocator = testing.allocator;
    const path = try support.fixture(allocator, "cross-encoder-minilm-l6");
    defer allocator.free(path);
    var model = try sieve.Model.load(path, .{}, null);
    defer model.deinit();

    // A model pads whole batches itself, so its tokenizer ignores the
    // padding the file sets.
    try expectSameAsCli(model.tokenizer(), &texts, .{}, &.{ "--model", path, "--no-padding" });
    try expectSameAsCli(model.tokenizer(), &texts, .{ .add_special_tokens = false }, &.{ "--model", path, "--no-padding", "--no-special-tokens" });
    const pairs = [_][]const u8{ "Which animal?\tA cat sits on the mat.", "\tempty first", "naïve\t東京" };
    try expectSameAsCli(model.tokenizer(), &pairs, .{ .pair = "" }, &.{ "--model", path, "--no-padding", "--pair" });

    // Model.tokenize is the model's tokenizer.
    var direct = try model.tokenize(texts[0], .{}, null);
    defer direct.deinit();
    var through = try model.tokenizer().encode(texts[0], .{}, null);
    defer through.deinit();
    try testing.expectEqualSlices(u32, through.ids, direct.ids);
}

test "tokenize: tokenizer.json files (WordPiece with truncation, byte-level BPE) as `sieve tokenize --tokenizer`" {
    const allocator = testing.allocator;
    const minilm = try support.minilm(allocator);
    defer allocator.free(minilm);
    const wordpiece = try std.fs.path.joinZ(allocator, &.{ minilm, "tokenizer.json" });
    defer allocator.free(wordpiece);
    const bbpe = try support.sharedTokenizer(allocator, "gpt2");
    defer if (bbpe) |path| allocator.free(path);

    const files = [_][:0]const u8{ wordpiece, bbpe orelse "" };
    for (files[0..if (bbpe == null) 1 else 2]) |file| {
        var diagnostics: sieve.Diagnostics = .{};
        defer diagnostics.deinit();
        var tokenizer = sieve.Tokenizer.load(file, &diagnostics) catch |err| {
            std.debug.print("{f}\n", .{diagnostics});
            return err;
        };
        defer tokenizer.deinit();
        try expectSameAsCli(tokenizer, &long_texts, .{}, &.{ "--tokenizer", file });
    }
}

test "decode: ids back to the lowercased text, with or without special tokens" {
    const allocator = testing.allocator;
    const path = try support.minilm(allocator);
    defer allocator.free(path);
    var model = try sieve.Model.load(path, .{}, null);
    defer model.deinit();

    // An uncased WordPiece tokenizer loses only case and spacing before
    // punctuation, which its decoder's clean-up restores.
    const text = "hello world, this is a test.";
    var encoding = try model.tokenize("Hello World, this is a TEST.", .{}, null);
    defer encoding.deinit();

    const decoded = try model.decode(allocator, encoding.ids, .{}, null);
    defer allocator.free(decoded);
    try testing.expectEqualStrings(text, decoded);

    const with_special = try model.decode(allocator, encoding.ids, .{ .skip_special_tokens = false }, null);
    defer allocator.free(with_special);
    try testing.expect(std.mem.startsWith(u8, with_special, "[CLS] " ++ text ++ " [SEP]"));

    const nothing = try model.decode(allocator, &.{}, .{}, null);
    defer allocator.free(nothing);
    try testing.expectEqualStrings("", nothing);
}

test "vocabulary: size as `sieve info` reports it" {
    const allocator = testing.allocator;
    const path = try support.minilm(allocator);
    defer allocator.free(path);
    var model = try sieve.Model.load(path, .{}, null);
    defer model.deinit();

    const json = try support.runCli(allocator, &.{ "info", "--model", path, "--json" }, "");
    defer allocator.free(json);
    const expected = try std.json.parseFromSlice(struct { vocab_size: usize }, allocator, json, .{ .ignore_unknown_fields = true });
    defer expected.deinit();
    try testing.expectEqual(expected.value.vocab_size, model.tokenizer().vocabSize());
}
