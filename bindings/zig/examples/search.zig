//! Semantic search over a few sentences with an embedding model:
//!
//!     sieve-search MODEL_DIR [QUERY]
//!
//! `zig build example` runs it with all-MiniLM-L6-v2.

const std = @import("std");
const sieve = @import("sieve");

const corpus = [_][]const u8{
    "A cat sits on the mat.",
    "The stock market fell sharply on Monday.",
    "Dogs are loyal companions.",
    "Paris is the capital of France.",
    "The new phone has a larger battery.",
};

pub fn main(init: std.process.Init) !void {
    const allocator = init.gpa;
    const args = try init.minimal.args.toSlice(init.arena.allocator());
    if (args.len < 2) {
        std.debug.print("usage: {s} MODEL_DIR [QUERY]\n", .{args[0]});
        return error.MissingModel;
    }
    const query = if (args.len > 2) args[2] else "Where is the kitten?";

    var diagnostics: sieve.Diagnostics = .{};
    defer diagnostics.deinit();
    var model = sieve.Model.load(args[1], .{}, &diagnostics) catch |err| {
        std.debug.print("cannot load {s}: {f}\n", .{ args[1], diagnostics });
        return err;
    };
    defer model.deinit();

    var documents = try model.embed(allocator, &corpus, &diagnostics);
    defer documents.deinit(allocator);
    var query_vector = try model.embed(allocator, &.{query}, &diagnostics);
    defer query_vector.deinit(allocator);

    // The model normalizes its vectors, so the dot product is the cosine.
    var order: [corpus.len]usize = undefined;
    var similarity: [corpus.len]f32 = undefined;
    for (&order, &similarity, 0..) |*index, *s, i| {
        index.* = i;
        s.* = dot(documents.row(i), query_vector.row(0));
    }
    std.mem.sort(usize, &order, &similarity, struct {
        fn greater(s: *const [corpus.len]f32, a: usize, b: usize) bool {
            return s[a] > s[b];
        }
    }.greater);

    var buffer: [1024]u8 = undefined;
    var stdout = std.Io.File.stdout().writer(init.io, &buffer);
    const out = &stdout.interface;
    try out.print("query: {s}\n", .{query});
    for (order) |i| try out.print("{d:.4}  {s}\n", .{ similarity[i], corpus[i] });
    try out.flush();
}

fn dot(a: []const f32, b: []const f32) f32 {
    var sum: f32 = 0;
    for (a, b) |x, y| sum += x * y;
    return sum;
}
