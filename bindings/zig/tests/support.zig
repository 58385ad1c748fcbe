//! What the tests share: where the CLI, models and fixtures are, running the
//! CLI, and reading its output formats.

const std = @import("std");
const config = @import("config");
const Allocator = std.mem.Allocator;

const testing = std.testing;

/// A path from the environment variable `variable`, else `default` below the
/// repository root. Owned by the caller.
fn locate(allocator: Allocator, variable: []const u8, default: []const []const u8) ![:0]u8 {
    if (testing.environ.getPosix(variable)) |value| return allocator.dupeSentinel(u8, value, 0);
    var parts: std.ArrayList([]const u8) = .empty;
    defer parts.deinit(allocator);
    try parts.append(allocator, config.repo_root);
    try parts.appendSlice(allocator, default);
    return std.fs.path.joinZ(allocator, parts.items);
}

/// The sieve command line tool: the independent reference for results.
pub fn sieveBin(allocator: Allocator) ![:0]u8 {
    return locate(allocator, "SIEVE_BIN", &.{ "build", "sieve" });
}

/// The real all-MiniLM-L6-v2 sentence-transformers model.
pub fn minilm(allocator: Allocator) ![:0]u8 {
    return locate(allocator, "SIEVE_MINILM", &.{ "models", "all-MiniLM-L6-v2" });
}

/// A fixture folder (build/fixtures/...): tiny models and tokenizers.
pub fn fixture(allocator: Allocator, name: []const u8) ![:0]u8 {
    const root = try fixturesRoot(allocator);
    defer allocator.free(root);
    return std.fs.path.joinZ(allocator, &.{ root, name });
}

/// A real tokenizer.json of ../shared/tokenizers (beside the repository, as
/// the parity tests use it), e.g. "gpt2" for byte-level BPE; null when that
/// folder is not there (the parity tests, too, take the folders present).
pub fn sharedTokenizer(allocator: Allocator, name: []const u8) !?[:0]u8 {
    const path = try std.fs.path.joinZ(allocator, &.{ config.repo_root, "..", "shared", "tokenizers", name, "tokenizer.json" });
    std.Io.Dir.cwd().access(testing.io, path, .{}) catch {
        allocator.free(path);
        return null;
    };
    return path;
}

pub fn fixturesRoot(allocator: Allocator) ![:0]u8 {
    return locate(allocator, "SIEVE_FIXTURES", &.{ "build", "fixtures" });
}

/// Runs `sieve args...` with `stdin` as its standard input and returns its
/// standard output, owned by the caller. A failing run fails the test, with
/// the tool's standard error shown.
pub fn runCli(allocator: Allocator, args: []const []const u8, stdin: []const u8) ![]u8 {
    const io = testing.io;
    const bin = try sieveBin(allocator);
    defer allocator.free(bin);
    const argv = try std.mem.concat(allocator, []const u8, &.{ &.{bin}, args });
    defer allocator.free(argv);

    // Files rather than pipes: nothing to interleave, no pipe buffer to fill.
    var tmp = testing.tmpDir(.{});
    defer tmp.cleanup();
    try tmp.dir.writeFile(io, .{ .sub_path = "stdin", .data = stdin });
    const input = try tmp.dir.openFile(io, "stdin", .{});
    defer input.close(io);
    const output = try tmp.dir.createFile(io, "stdout", .{});
    defer output.close(io);
    const errors = try tmp.dir.createFile(io, "stderr", .{});
    defer errors.close(io);

    var child = try std.process.spawn(io, .{
        .argv = argv,
        .stdin = .{ .file = input },
        .stdout = .{ .file = output },
        .stderr = .{ .file = errors },
    });
    const term = try child.wait(io);
    if (!term.success()) {
        const message = try tmp.dir.readFileAlloc(io, "stderr", allocator, .unlimited);
        defer allocator.free(message);
        std.debug.print("{s} {f}:\n{s}\n", .{ bin, term, message });
        return error.CliFailed;
    }
    return tmp.dir.readFileAlloc(io, "stdout", allocator, .unlimited);
}

/// A float32 matrix from a .npy file, as `sieve embed --format npy` writes.
pub const Matrix = struct {
    rows: usize,
    cols: usize,
    data: []f32,

    pub fn deinit(matrix: *Matrix, allocator: Allocator) void {
        allocator.free(matrix.data);
    }
};

/// Reads NPY format 1.0-3.0 holding a little-endian float32 C-order matrix.
pub fn parseNpy(allocator: Allocator, bytes: []const u8) !Matrix {
    const magic = "\x93NUMPY";
    if (!std.mem.startsWith(u8, bytes, magic) or bytes.len < magic.len + 4) return error.NotNpy;
    const major = bytes[magic.len];
    // Version 1 has a 2-byte header length, later versions a 4-byte one.
    const length_size: usize = if (major == 1) 2 else 4;
    const header_start = magic.len + 2 + length_size;
    if (bytes.len < header_start) return error.NotNpy;
    const header_len: usize = if (major == 1)
        std.mem.readInt(u16, bytes[magic.len + 2 ..][0..2], .little)
    else
        std.mem.readInt(u32, bytes[magic.len + 2 ..][0..4], .little);
    if (bytes.len < header_start + header_len) return error.NotNpy;
    const header = bytes[header_start..][0..header_len];

    if (std.mem.indexOf(u8, header, "'descr': '<f4'") == null) return error.NotFloat32;
    if (std.mem.indexOf(u8, header, "'fortran_order': False") == null) return error.NotCOrder;
    const shape_key = "'shape': (";
    const shape_start = (std.mem.indexOf(u8, header, shape_key) orelse return error.NoShape) + shape_key.len;
    const shape_end = std.mem.indexOfScalarPos(u8, header, shape_start, ')') orelse return error.NoShape;
    var dims: [2]usize = undefined;
    var n: usize = 0;
    var it = std.mem.tokenizeAny(u8, header[shape_start..shape_end], ", ");
    while (it.next()) |dim| : (n += 1) {
        if (n == dims.len) return error.NotAMatrix;
        dims[n] = try std.fmt.parseInt(usize, dim, 10);
    }
    if (n != 2) return error.NotAMatrix;

    const body = bytes[header_start + header_len ..];
    if (body.len != dims[0] * dims[1] * 4) return error.WrongDataSize;
    const data = try allocator.alloc(f32, dims[0] * dims[1]);
    for (data, 0..) |*value, i| {
        value.* = @bitCast(std.mem.readInt(u32, body[i * 4 ..][0..4], .little));
    }
    return .{ .rows = dims[0], .cols = dims[1], .data = data };
}

/// Floats are equal only when their bits are: results must be the CLI's
/// exactly, not approximately.
pub fn expectSameBits(expected: []const f32, actual: []const f32) !void {
    try testing.expectEqual(expected.len, actual.len);
    for (expected, actual, 0..) |e, a, i| {
        if (@as(u32, @bitCast(e)) != @as(u32, @bitCast(a))) {
            std.debug.print("float {d}: expected {e} ({x}), got {e} ({x})\n", .{
                i, e, @as(u32, @bitCast(e)), a, @as(u32, @bitCast(a)),
            });
            return error.TestExpectedEqual;
        }
    }
}

/// One result of `sieve rerank`'s JSON.
pub const Ranked = struct { index: usize, score: f32 };

/// The results of `sieve rerank`, best first, owned by the caller. Scores are
/// parsed from their text straight to float32: going through a double could
/// round differently from the tool's shortest round-trip representation.
pub fn parseRerank(allocator: Allocator, json: []const u8) ![]Ranked {
    const parsed = try std.json.parseFromSlice(std.json.Value, allocator, json, .{ .parse_numbers = false });
    defer parsed.deinit();
    const results = parsed.value.object.get("results") orelse return error.NoResults;
    const ranked = try allocator.alloc(Ranked, results.array.items.len);
    errdefer allocator.free(ranked);
    for (ranked, results.array.items) |*r, item| {
        const object = item.object;
        r.* = .{
            .index = try std.fmt.parseInt(usize, (object.get("index") orelse return error.NoIndex).number_string, 10),
            .score = try std.fmt.parseFloat(f32, (object.get("score") orelse return error.NoScore).number_string),
        };
    }
    return ranked;
}

/// One label of a line of `sieve classify`.
pub const Labeled = struct { label: []const u8, score: f32 };

/// The lines of `sieve classify`: per input, its labels best first. Every
/// part is allocated in `arena`; scores are parsed as in `parseRerank`.
pub fn parseClassify(arena: Allocator, output: []const u8) ![][]Labeled {
    var rows: std.ArrayList([]Labeled) = .empty;
    var it = std.mem.splitScalar(u8, std.mem.trimEnd(u8, output, "\n"), '\n');
    while (it.next()) |line| {
        const labels = try std.json.parseFromSliceLeaky(std.json.Value, arena, line, .{ .parse_numbers = false });
        const row = try arena.alloc(Labeled, labels.array.items.len);
        for (row, labels.array.items) |*labeled, item| {
            labeled.* = .{
                .label = (item.object.get("label") orelse return error.NoLabel).string,
                .score = try std.fmt.parseFloat(f32, (item.object.get("score") orelse return error.NoScore).number_string),
            };
        }
        try rows.append(arena, row);
    }
    return rows.toOwnedSlice(arena);
}

/// One line of `sieve tokenize --byte-offsets`.
pub const Tokenized = struct {
    ids: []u32,
    tokens: [][]const u8,
    type_ids: []u32,
    attention_mask: []u8,
    special_tokens_mask: []u8,
    byte_offsets: [][2]u32,
};

/// The lines of `sieve tokenize` output; free with `parsed.deinit()` each.
pub fn parseTokenize(allocator: Allocator, output: []const u8) ![]std.json.Parsed(Tokenized) {
    var parsed_lines: std.ArrayList(std.json.Parsed(Tokenized)) = .empty;
    errdefer {
        for (parsed_lines.items) |line| line.deinit();
        parsed_lines.deinit(allocator);
    }
    var it = std.mem.splitScalar(u8, std.mem.trimEnd(u8, output, "\n"), '\n');
    while (it.next()) |line| {
        const parsed = try std.json.parseFromSlice(Tokenized, allocator, line, .{ .ignore_unknown_fields = true });
        errdefer parsed.deinit();
        try parsed_lines.append(allocator, parsed);
    }
    return parsed_lines.toOwnedSlice(allocator);
}

pub fn freeTokenize(allocator: Allocator, parsed_lines: []std.json.Parsed(Tokenized)) void {
    for (parsed_lines) |line| line.deinit();
    allocator.free(parsed_lines);
}

/// Texts joined one per line, as the CLI reads standard input.
pub fn lines(allocator: Allocator, texts: []const []const u8) ![]u8 {
    var joined: std.ArrayList(u8) = .empty;
    errdefer joined.deinit(allocator);
    for (texts) |text| {
        // A newline inside a text would split it in two on the CLI's side.
        std.debug.assert(std.mem.indexOfScalar(u8, text, '\n') == null);
        try joined.appendSlice(allocator, text);
        try joined.append(allocator, '\n');
    }
    return joined.toOwnedSlice(allocator);
}

/// Texts of many lengths, so batches are sorted and padded: accents and CJK
/// (multi-byte UTF-8), an empty text, a NUL byte (legal UTF-8 that a
/// NUL-terminated interface would cut), and one past the models' maximum
/// length.
pub const hard_texts = [_][]const u8{
    "A cat sits on the mat.",
    "The quick brown fox jumps over the lazy dog, again and again.",
    "Héllo wörld, ça va? 東京は日本の首都です。",
    "",
    "short",
    "before\x00after the NUL byte",
    repeat("a long text ", 120),
};

/// `text` `n` times over, at compile time.
pub fn repeat(comptime text: []const u8, comptime n: usize) []const u8 {
    comptime {
        var result: []const u8 = "";
        for (0..n) |_| result = result ++ text;
        return result;
    }
}

/// The sparse (SPLADE) fixture, made by the fixtures stage of
/// scripts/test.sh. Without it the test is skipped, unless SIEVE_TEST_TIER is
/// set (scripts/test.sh, which CI runs, sets it): there it must exist.
pub fn sparseFixture(allocator: Allocator) ![:0]u8 {
    const path = try fixture(allocator, "splade-tiny");
    errdefer allocator.free(path);
    std.Io.Dir.cwd().access(testing.io, path, .{}) catch |err| {
        if (testing.environ.getPosix("SIEVE_TEST_TIER") != null) {
            std.debug.print("missing {s} ({t}): SIEVE_TEST_TIER is set, and scripts/test.sh makes it\n", .{ path, err });
            return error.MissingSparseFixture;
        }
        return error.SkipZigTest;
    };
    return path;
}

/// A sparse fixture's reference.json (tools/make_sparse_reference.py): per
/// text, the token ids of the non-zero weights sentence-transformers gives
/// (ascending) and the weights.
pub const SparseReference = struct {
    texts: []const struct { text: []const u8, indices: []const u32, values: []const f32 },
};

/// Reads `folder`/reference.json; free with `parsed.deinit()`.
pub fn readSparseReference(allocator: Allocator, folder: []const u8) !std.json.Parsed(SparseReference) {
    const path = try std.fs.path.join(allocator, &.{ folder, "reference.json" });
    defer allocator.free(path);
    const text = try std.Io.Dir.cwd().readFileAlloc(testing.io, path, allocator, .unlimited);
    defer allocator.free(text);
    const parsed = try std.json.parseFromSlice(SparseReference, allocator, text, .{
        .ignore_unknown_fields = true,
        .allocate = .alloc_always,
    });
    errdefer parsed.deinit();
    if (parsed.value.texts.len == 0) return error.BadReference;
    return parsed;
}
