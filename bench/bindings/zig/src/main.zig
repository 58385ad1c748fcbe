//! The bindings benchmark's loop through the Zig binding (bindings/zig): the
//! same protocol as ../embed_loop.c, so that the difference from the C loop is
//! what the binding costs per call.
//!
//!     embed_loop_zig --model DIR --texts FILE [--batch N] [--calls K] [--warmup W] [--threads T]
//!
//! Reads the file's non-empty lines, loads the model with batch_size N and T
//! intra-op threads (0: one per physical core), embeds W untimed and then K
//! timed batches of N lines (lines[(call*N + j) % line_count]) and prints one
//! JSON line, as the C program does but with "impl":"zig".

const std = @import("std");
const sieve = @import("sieve");

// The numbers are formatted by libc's snprintf with the C program's own
// format string: std.fmt rounds the shortest round-trip digits to the
// requested precision rather than the exact binary value, which can differ
// from printf's %.9g in the last digit, and first_value must compare equal
// to the C program's as text.
extern "c" fn snprintf(buffer: [*]u8, size: usize, format: [*:0]const u8, ...) c_int;

const usage = "usage: embed_loop_zig --model DIR --texts FILE [--batch N] [--calls K] [--warmup W] [--threads T]\n";

/// As embed_loop.c's (and bench_util.hpp's) percentile: linear between the
/// closest ranks.
fn percentile(sorted: []const f64, p: f64) f64 {
    const rank = p / 100.0 * @as(f64, @floatFromInt(sorted.len - 1));
    const lo: usize = @intFromFloat(rank);
    const hi = @min(lo + 1, sorted.len - 1);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - @as(f64, @floatFromInt(lo)));
}

fn exitUsage(comptime format: []const u8, args: anytype) noreturn {
    std.debug.print("embed_loop_zig: " ++ format ++ "\n" ++ usage, args);
    std.process.exit(2);
}

fn parseCount(comptime T: type, option: []const u8, value: []const u8) T {
    return std.fmt.parseInt(T, value, 10) catch
        exitUsage("{s} takes a non-negative integer, not \"{s}\"", .{ option, value });
}

fn fail(diagnostics: sieve.Diagnostics) noreturn {
    std.debug.print("embed_loop_zig: {f}\n", .{diagnostics});
    std.process.exit(1);
}

pub fn main(init: std.process.Init) !void {
    const io = init.io;
    const gpa = init.gpa;
    const args = try init.minimal.args.toSlice(init.arena.allocator());

    var model_dir: ?[:0]const u8 = null;
    var texts_path: ?[]const u8 = null;
    var batch: usize = 1;
    var calls: usize = 1000;
    var warmup: usize = 50;
    var threads: u31 = 0;
    var i: usize = 1;
    while (i < args.len) : (i += 2) {
        const option = args[i];
        if (i + 1 == args.len) exitUsage("{s} needs a value", .{option});
        const value = args[i + 1];
        if (std.mem.eql(u8, option, "--model")) {
            model_dir = value;
        } else if (std.mem.eql(u8, option, "--texts")) {
            texts_path = value;
        } else if (std.mem.eql(u8, option, "--batch")) {
            batch = parseCount(usize, option, value);
        } else if (std.mem.eql(u8, option, "--calls")) {
            calls = parseCount(usize, option, value);
        } else if (std.mem.eql(u8, option, "--warmup")) {
            warmup = parseCount(usize, option, value);
        } else if (std.mem.eql(u8, option, "--threads")) {
            threads = parseCount(u31, option, value);
        } else {
            exitUsage("unknown option {s}", .{option});
        }
    }
    if (model_dir == null or texts_path == null or batch == 0 or calls == 0) {
        std.debug.print(usage, .{});
        std.process.exit(2);
    }

    // The whole file in memory; the lines are slices of it. Split on '\n'
    // only, as the C program does (a '\r' stays part of its line).
    const content = std.Io.Dir.cwd().readFileAlloc(io, texts_path.?, gpa, .unlimited) catch |err| {
        std.debug.print("embed_loop_zig: cannot read {s}: {t}\n", .{ texts_path.?, err });
        std.process.exit(1);
    };
    defer gpa.free(content);
    var line_list: std.ArrayList([]const u8) = .empty;
    defer line_list.deinit(gpa);
    var lines_iterator = std.mem.tokenizeScalar(u8, content, '\n');
    while (lines_iterator.next()) |line| try line_list.append(gpa, line);
    const lines = line_list.items;
    if (lines.len == 0) {
        std.debug.print("embed_loop_zig: {s} has no lines\n", .{texts_path.?});
        std.process.exit(1);
    }

    var diagnostics: sieve.Diagnostics = .{};
    defer diagnostics.deinit();
    sieve.setLogLevel(.warn, &diagnostics) catch fail(diagnostics);
    var model = sieve.Model.load(model_dir.?, .{
        .intra_op_threads = threads,
        .batch_size = batch,
    }, &diagnostics) catch fail(diagnostics);
    defer model.deinit();

    // Everything the loop needs is allocated here, once. The loop calls
    // embedInto rather than embed: embed() would allocate the result on every
    // call, while the C program writes into one buffer, and the benchmark
    // measures what the binding adds to the same work, not the allocator.
    // embedInto still needs an allocator for the batch's C view (the
    // sieve_text array it builds from the Zig slices, the binding's real
    // per-call overhead): a FixedBufferAllocator over a buffer of exactly
    // that size, reset before each call, so no call reaches the heap.
    const vectors = try gpa.alloc(f32, model.embedSize(batch, &diagnostics) catch fail(diagnostics));
    defer gpa.free(vectors);
    const texts = try gpa.alloc([]const u8, batch);
    defer gpa.free(texts);
    const c_texts = try gpa.alloc(sieve.c.sieve_text, batch);
    defer gpa.free(c_texts);
    var scratch: std.heap.FixedBufferAllocator = .init(std.mem.sliceAsBytes(c_texts));
    const seconds = try gpa.alloc(f64, calls);
    defer gpa.free(seconds);

    var total: f64 = 0;
    for (0..warmup + calls) |call| {
        for (texts, 0..) |*text, j| text.* = lines[(call * batch + j) % lines.len];
        scratch.reset();
        // CLOCK_MONOTONIC, as the C program's clock_gettime.
        const start = std.Io.Clock.awake.now(io);
        model.embedInto(scratch.allocator(), texts, vectors, &diagnostics) catch fail(diagnostics);
        const elapsed = @as(f64, @floatFromInt(start.durationTo(std.Io.Clock.awake.now(io)).nanoseconds)) * 1e-9;
        if (call >= warmup) {
            seconds[call - warmup] = elapsed;
            total += elapsed;
        }
    }
    std.mem.sort(f64, seconds, {}, std.sort.asc(f64));

    var line: [512]u8 = undefined;
    const length = snprintf(
        &line,
        line.len,
        "{\"impl\":\"zig\",\"batch\":%zu,\"calls\":%zu,\"median_ms\":%.6f,\"p99_ms\":%.6f,\"sentences_per_s\":%.3f," ++
            "\"first_value\":%.9g}\n",
        batch,
        calls,
        1e3 * percentile(seconds, 50),
        1e3 * percentile(seconds, 99),
        @as(f64, @floatFromInt(batch * calls)) / total,
        @as(f64, vectors[0]),
    );
    if (length < 0 or length >= line.len) return error.OutputTooLong;
    var stdout = std.Io.File.stdout().writer(io, &.{});
    try stdout.interface.writeAll(line[0..@intCast(length)]);
}
