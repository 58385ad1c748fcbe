//! Every failure of the C ABI arrives as the matching Zig error, with the
//! library's diagnostics.

const std = @import("std");
const sieve = @import("sieve");
const support = @import("support.zig");

const testing = std.testing;

fn expectDiagnostics(diagnostics: sieve.Diagnostics, code: sieve.Code, input_index: ?usize, mentions: []const u8) !void {
    try testing.expectEqual(code, diagnostics.code());
    try testing.expectEqual(input_index, diagnostics.inputIndex());
    if (std.mem.indexOf(u8, diagnostics.message(), mentions) == null) {
        std.debug.print("message {q} does not mention {q}\n", .{ diagnostics.message(), mentions });
        return error.TestUnexpectedMessage;
    }
}

/// The tiny embedder and the cross-encoder fixtures, loaded with default options.
const TwoModels = struct {
    embedder: sieve.Model,
    reranker: sieve.Model,

    fn load(allocator: std.mem.Allocator) !TwoModels {
        const embedder_path = try support.fixture(allocator, "tiny-bert-tokens");
        defer allocator.free(embedder_path);
        const reranker_path = try support.fixture(allocator, "cross-encoder-minilm-l6");
        defer allocator.free(reranker_path);
        var embedder = try sieve.Model.load(embedder_path, .{}, null);
        errdefer embedder.deinit();
        return .{ .embedder = embedder, .reranker = try sieve.Model.load(reranker_path, .{}, null) };
    }

    fn deinit(self: *TwoModels) void {
        self.reranker.deinit();
        self.embedder.deinit();
    }
};

test "errors: a missing model folder is NotFound" {
    var diagnostics: sieve.Diagnostics = .{};
    defer diagnostics.deinit();
    try testing.expectError(error.NotFound, sieve.Model.load("/nonexistent/sieve-model", .{}, &diagnostics));
    try expectDiagnostics(diagnostics, .not_found, null, "/nonexistent/sieve-model");
    // Without diagnostics the error is the same (and the status is freed).
    try testing.expectError(error.NotFound, sieve.Model.load("/nonexistent/sieve-model", .{}, null));
}

test "errors: bad options are InvalidArgument" {
    const allocator = testing.allocator;
    const path = try support.fixture(allocator, "tiny-bert-tokens");
    defer allocator.free(path);
    var diagnostics: sieve.Diagnostics = .{};
    defer diagnostics.deinit();

    try testing.expectError(error.InvalidArgument, sieve.Model.load(path, .{ .batch_size = 0 }, &diagnostics));
    try expectDiagnostics(diagnostics, .invalid_argument, null, "batch_size");

    const providers = [_][*:0]const u8{"no-such-provider"};
    try testing.expectError(error.InvalidArgument, sieve.Model.load(path, .{ .providers = &providers }, &diagnostics));
    try expectDiagnostics(diagnostics, .invalid_argument, null, "no-such-provider");
}

test "errors: embedding with a reranker and reranking with an embedder are WrongKind" {
    const allocator = testing.allocator;
    var models = try TwoModels.load(allocator);
    defer models.deinit();
    const embedder = &models.embedder;
    const reranker = &models.reranker;
    var diagnostics: sieve.Diagnostics = .{};
    defer diagnostics.deinit();
    const docs = [_][]const u8{ "one", "two" };

    try testing.expectError(error.WrongKind, reranker.embed(allocator, &docs, &diagnostics));
    try expectDiagnostics(diagnostics, .wrong_kind, null, "reranker");
    var out: [64]f32 = undefined;
    try testing.expectError(error.WrongKind, reranker.embedInto(allocator, &docs, &out, null));
    try testing.expectError(error.WrongKind, reranker.embedSize(2, null));

    try testing.expectError(error.WrongKind, embedder.score(allocator, "q", &docs, &diagnostics));
    try expectDiagnostics(diagnostics, .wrong_kind, null, "embedding model");
    try testing.expectError(error.WrongKind, embedder.rerank(allocator, "q", &docs, null, &diagnostics));
    try expectDiagnostics(diagnostics, .wrong_kind, null, "embedding model");
}

test "errors: invalid UTF-8 is InvalidInput, with the index of the text" {
    const allocator = testing.allocator;
    var models = try TwoModels.load(allocator);
    defer models.deinit();
    const embedder = &models.embedder;
    const reranker = &models.reranker;
    var diagnostics: sieve.Diagnostics = .{};
    defer diagnostics.deinit();

    const texts = [_][]const u8{ "valid", "also valid", "truncated \xc3", "\xff" };
    try testing.expectError(error.InvalidInput, embedder.embed(allocator, &texts, &diagnostics));
    try expectDiagnostics(diagnostics, .invalid_input, 2, "UTF-8");

    try testing.expectError(error.InvalidInput, reranker.rerank(allocator, "query", texts[1..], null, &diagnostics));
    try expectDiagnostics(diagnostics, .invalid_input, 1, "UTF-8");
    try testing.expectError(error.InvalidInput, reranker.score(allocator, "query", texts[3..], &diagnostics));
    try expectDiagnostics(diagnostics, .invalid_input, 0, "UTF-8");

    try testing.expectError(error.InvalidInput, embedder.tokenize("\xff", .{}, &diagnostics));
    try testing.expectEqual(sieve.Code.invalid_input, diagnostics.code());
}

test "errors: with replace_invalid_utf8 the texts embed as the CLI's --invalid-utf8 replace" {
    const allocator = testing.allocator;
    const path = try support.fixture(allocator, "tiny-bert-tokens");
    defer allocator.free(path);
    var model = try sieve.Model.load(path, .{ .replace_invalid_utf8 = true }, null);
    defer model.deinit();
    const texts = [_][]const u8{ "valid", "truncated \xc3", "\xff\xfe bytes" };
    var embeddings = try model.embed(allocator, &texts, null);
    defer embeddings.deinit(allocator);

    const stdin = try support.lines(allocator, &texts);
    defer allocator.free(stdin);
    const npy = try support.runCli(allocator, &.{ "embed", "--model", path, "--format", "npy", "--invalid-utf8", "replace" }, stdin);
    defer allocator.free(npy);
    var expected = try support.parseNpy(allocator, npy);
    defer expected.deinit(allocator);
    try support.expectSameBits(expected.data, embeddings.data);
}

test "errors: buffers too small are BufferTooSmall and stay untouched" {
    const allocator = testing.allocator;
    var models = try TwoModels.load(allocator);
    defer models.deinit();
    const embedder = &models.embedder;
    const reranker = &models.reranker;
    var diagnostics: sieve.Diagnostics = .{};
    defer diagnostics.deinit();
    const texts = [_][]const u8{ "one", "two", "three" };

    const floats = try embedder.embedSize(texts.len, null);
    const out = try allocator.alloc(f32, floats - 1);
    defer allocator.free(out);
    @memset(out, 42);
    try testing.expectError(error.BufferTooSmall, embedder.embedInto(allocator, &texts, out, &diagnostics));
    try expectDiagnostics(diagnostics, .buffer_too_small, null, "");
    for (out) |value| try testing.expectEqual(42, value);

    var scores: [texts.len - 1]f32 = @splat(42);
    try testing.expectError(error.BufferTooSmall, reranker.scoreInto(allocator, "q", &texts, &scores, &diagnostics));
    try testing.expectEqual(sieve.Code.buffer_too_small, diagnostics.code());
    for (scores) |value| try testing.expectEqual(42, value);

    var results: [2]sieve.RerankResult = undefined;
    try testing.expectError(error.BufferTooSmall, reranker.rerankInto(allocator, "q", &texts, 3, &results, &diagnostics));
    try testing.expectEqual(sieve.Code.buffer_too_small, diagnostics.code());
    try testing.expectError(error.BufferTooSmall, reranker.rerankInto(allocator, "q", &texts, null, &results, null));
    // Two results fit when only two are asked for.
    try testing.expectEqual(2, (try reranker.rerankInto(allocator, "q", &texts, 2, &results, null)).len);
}

test "errors: tokenizer files that are missing or malformed, ids outside the vocabulary" {
    const allocator = testing.allocator;
    const io = testing.io;
    var diagnostics: sieve.Diagnostics = .{};
    defer diagnostics.deinit();

    try testing.expectError(error.NotFound, sieve.Tokenizer.load("/nonexistent/tokenizer.json", &diagnostics));
    try expectDiagnostics(diagnostics, .not_found, null, "/nonexistent/tokenizer.json");

    var tmp = testing.tmpDir(.{});
    defer tmp.cleanup();
    try tmp.dir.writeFile(io, .{ .sub_path = "tokenizer.json", .data = "{ this is not JSON" });
    const bad = try tmp.dir.realPathFileAlloc(io, "tokenizer.json", allocator);
    defer allocator.free(bad);
    try testing.expectError(error.Parse, sieve.Tokenizer.load(bad, &diagnostics));
    try testing.expectEqual(sieve.Code.parse, diagnostics.code());

    const path = try support.fixture(allocator, "tiny-bert-tokens");
    defer allocator.free(path);
    var model = try sieve.Model.load(path, .{}, null);
    defer model.deinit();
    const tokenizer = model.tokenizer();
    const past_end: u32 = @intCast(tokenizer.vocabSize() + 1000);
    try testing.expectError(error.InvalidArgument, tokenizer.idToToken(past_end, &diagnostics));
    try expectDiagnostics(diagnostics, .invalid_argument, null, "vocabulary");
}

test "errors: a missing registry root and an unknown model name are NotFound" {
    const allocator = testing.allocator;
    var diagnostics: sieve.Diagnostics = .{};
    defer diagnostics.deinit();

    try testing.expectError(error.NotFound, sieve.Registry.open("/nonexistent/models", .{}, &diagnostics));
    try expectDiagnostics(diagnostics, .not_found, null, "/nonexistent/models");

    const root = try support.fixturesRoot(allocator);
    defer allocator.free(root);
    var registry = try sieve.Registry.open(root, .{}, null);
    defer registry.deinit();
    try testing.expectError(error.NotFound, registry.get("no-such-model", &diagnostics));
    try expectDiagnostics(diagnostics, .not_found, null, "no-such-model");
}

test "errors: registry names outside the root are NotFound, as sieve.h says" {
    const allocator = testing.allocator;
    var diagnostics: sieve.Diagnostics = .{};
    defer diagnostics.deinit();
    const root = try support.fixturesRoot(allocator);
    defer allocator.free(root);
    var registry = try sieve.Registry.open(root, .{}, null);
    defer registry.deinit();
    // "../fixtures/..." would lead back into the root, but ".." parts are
    // refused whatever they resolve to.
    for ([_][:0]const u8{ "../x", "../fixtures/tiny-bert-tokens", "/etc" }) |name| {
        testing.expectError(error.NotFound, registry.get(name, &diagnostics)) catch |err| {
            std.debug.print("name {q}: {f}\n", .{ name, diagnostics });
            return err;
        };
        try testing.expectEqual(sieve.Code.not_found, diagnostics.code());
    }
}

test "diagnostics: the last failure replaces the one before; names are the library's" {
    var diagnostics: sieve.Diagnostics = .{};
    defer diagnostics.deinit();
    try testing.expectEqual(sieve.Code.ok, diagnostics.code());
    try testing.expectEqualStrings("", diagnostics.message());
    try testing.expectEqual(null, diagnostics.inputIndex());

    try testing.expectError(error.NotFound, sieve.Model.load("/nonexistent/first", .{}, &diagnostics));
    try testing.expectError(error.NotFound, sieve.Tokenizer.load("/nonexistent/second.json", &diagnostics));
    try expectDiagnostics(diagnostics, .not_found, null, "second");
    try testing.expect(std.mem.indexOf(u8, diagnostics.message(), "first") == null);

    var buffer: [256]u8 = undefined;
    const formatted = try std.fmt.bufPrint(&buffer, "{f}", .{diagnostics});
    try testing.expect(std.mem.startsWith(u8, formatted, "not_found: "));

    inline for (@typeInfo(sieve.Code).@"enum".field_names) |name| {
        try testing.expectEqualStrings(name, @field(sieve.Code, name).name());
    }
}
