//! Embeddings through the bindings against `sieve embed --format npy`.

const std = @import("std");
const sieve = @import("sieve");
const support = @import("support.zig");

const testing = std.testing;

/// support.hard_texts, and emoji with a tab.
const texts = support.hard_texts ++ [_][]const u8{"Emoji 🙂 and a\ttab."};

/// Embeds `texts` with the bindings and with the CLI given `cli_args`, and
/// requires the same bits.
fn expectSameAsCli(model_path: [:0]const u8, options: sieve.ModelOptions, cli_args: []const []const u8) !void {
    const allocator = testing.allocator;
    var diagnostics: sieve.Diagnostics = .{};
    defer diagnostics.deinit();

    var model = sieve.Model.load(model_path, options, &diagnostics) catch |err| {
        std.debug.print("{f}\n", .{diagnostics});
        return err;
    };
    defer model.deinit();
    var embeddings = try model.embed(allocator, &texts, &diagnostics);
    defer embeddings.deinit(allocator);

    const args = try std.mem.concat(allocator, []const u8, &.{
        &.{ "embed", "--model", model_path, "--format", "npy" }, cli_args,
    });
    defer allocator.free(args);
    const stdin = try support.lines(allocator, &texts);
    defer allocator.free(stdin);
    const npy = try support.runCli(allocator, args, stdin);
    defer allocator.free(npy);
    var expected = try support.parseNpy(allocator, npy);
    defer expected.deinit(allocator);

    try testing.expectEqual(expected.rows, embeddings.count);
    try testing.expectEqual(expected.cols, embeddings.dimension);
    try support.expectSameBits(expected.data, embeddings.data);
}

test "embed: all-MiniLM-L6-v2 gives the CLI's vectors bit for bit" {
    const model = try support.minilm(testing.allocator);
    defer testing.allocator.free(model);
    try expectSameAsCli(model, .{ .batch_size = 3 }, &.{ "--batch-size", "3" });
}

test "embed: options (no normalization, CLS pooling, max length, dimensions) as on the CLI" {
    const model = try support.minilm(testing.allocator);
    defer testing.allocator.free(model);
    try expectSameAsCli(
        model,
        .{ .batch_size = 2, .normalize = false, .pooling = .cls, .max_length = 16, .dimensions = 128 },
        &.{ "--batch-size", "2", "--no-normalize", "--pooling", "cls", "--max-length", "16", "--dimensions", "128" },
    );
}

test "embed: a fixture model with max pooling" {
    const model = try support.fixture(testing.allocator, "tiny-bert-max");
    defer testing.allocator.free(model);
    try expectSameAsCli(model, .{}, &.{});
}

test "embed: rows, embedInto and an empty batch agree" {
    const allocator = testing.allocator;
    const path = try support.minilm(allocator);
    defer allocator.free(path);
    var model = try sieve.Model.load(path, .{}, null);
    defer model.deinit();

    const info = try model.info(null);
    try testing.expectEqual(sieve.Kind.embedding, info.kind);

    var embeddings = try model.embed(allocator, texts[0..3], null);
    defer embeddings.deinit(allocator);
    try testing.expectEqual(info.dimension, embeddings.dimension);
    try testing.expectEqual(3 * info.dimension, try model.embedSize(3, null));

    const out = try allocator.alloc(f32, try model.embedSize(3, null));
    defer allocator.free(out);
    try model.embedInto(allocator, texts[0..3], out, null);
    try support.expectSameBits(embeddings.data, out);
    for (0..3) |i| try support.expectSameBits(out[i * info.dimension ..][0..info.dimension], embeddings.row(i));

    var empty = try model.embed(allocator, &.{}, null);
    defer empty.deinit(allocator);
    try testing.expectEqual(0, empty.count);
    try testing.expectEqual(0, empty.data.len);
    try testing.expectEqual(info.dimension, empty.dimension);
}

test "info: as `sieve info --json` reports it" {
    const allocator = testing.allocator;
    const path = try support.minilm(allocator);
    defer allocator.free(path);
    var model = try sieve.Model.load(path, .{}, null);
    defer model.deinit();
    const info = try model.info(null);

    const json = try support.runCli(allocator, &.{ "info", "--model", path, "--json" }, "");
    defer allocator.free(json);
    const Expected = struct {
        dimension: usize,
        max_length: usize,
        normalize: bool,
        pooling: []const u8,
        kind: []const u8,
        providers: []const []const u8,
        onnxruntime_version: []const u8,
    };
    const expected = try std.json.parseFromSlice(Expected, allocator, json, .{ .ignore_unknown_fields = true });
    defer expected.deinit();

    try testing.expectEqualStrings(expected.value.kind, @tagName(info.kind));
    try testing.expectEqual(expected.value.dimension, info.dimension);
    try testing.expectEqual(expected.value.max_length, info.max_length);
    try testing.expectEqual(expected.value.normalize, info.normalize);
    try testing.expectEqualStrings(expected.value.pooling, info.pooling);
    const providers = try std.mem.join(allocator, ",", expected.value.providers);
    defer allocator.free(providers);
    try testing.expectEqualStrings(providers, info.providers);
    try testing.expectEqualStrings(path, info.folder);
    try testing.expect(std.mem.endsWith(u8, info.onnx_file, "model.onnx"));
    try testing.expectEqualStrings(expected.value.onnxruntime_version, sieve.onnxRuntimeVersion());
}

test "log level: every level is accepted" {
    for (std.enums.values(sieve.LogLevel)) |level| try sieve.setLogLevel(level, null);
    // Back to what tests/all.zig chose.
    try sieve.setLogLevel(.warn, null);
}

test "versions: the loaded library speaks this header's ABI" {
    try testing.expectEqual(sieve.header_abi_version, sieve.abiVersion());
    try testing.expect(sieve.version().len > 0);
    try testing.expect(sieve.onnxRuntimeVersion().len > 0);
}

test "embed: one model shared by several threads gives each the same vectors" {
    const allocator = testing.allocator;
    const path = try support.fixture(allocator, "tiny-bert-tokens");
    defer allocator.free(path);
    var model = try sieve.Model.load(path, .{ .batch_size = 2 }, null);
    defer model.deinit();
    var expected = try model.embed(allocator, &texts, null);
    defer expected.deinit(allocator);

    const Worker = struct {
        fn run(shared: sieve.Model, out: *?sieve.Embeddings, failure: *?anyerror) void {
            // testing.allocator is thread-safe.
            out.* = shared.embed(testing.allocator, &texts, null) catch |err| {
                failure.* = err;
                return;
            };
        }
    };
    var results: [4]?sieve.Embeddings = @splat(null);
    defer for (&results) |*result| if (result.*) |*r| r.deinit(allocator);
    var failures: [4]?anyerror = @splat(null);
    var threads: [4]std.Thread = undefined;
    {
        var spawned: usize = 0;
        defer for (threads[0..spawned]) |thread| thread.join();
        for (&threads, &results, &failures) |*thread, *out, *failure| {
            thread.* = try std.Thread.spawn(.{}, Worker.run, .{ model, out, failure });
            spawned += 1;
        }
    }

    for (results, failures) |result, failure| {
        if (failure) |err| return err;
        try support.expectSameBits(expected.data, result.?.data);
    }
}
