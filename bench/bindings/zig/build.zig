//! The Zig leg of the bindings overhead benchmark (bench/bindings): the
//! embedding loop of embed_loop.c through the Zig binding (bindings/zig).
//!
//!     zig build -Dsieve-prefix=PATH   # zig-out/bin/embed_loop_zig, ReleaseFast
//!
//! build.sh runs it with Zig's caches kept in this folder.

const std = @import("std");

pub fn build(b: *std.Build) void {
    const target = b.standardTargetOptions(.{});
    // A benchmark: ReleaseFast unless told otherwise.
    const optimize = b.option(
        std.builtin.Optimize,
        "optimize",
        "Optimization mode: debug, safe, fast or small (default: fast, i.e. ReleaseFast)",
    ) orelse .fast;
    // Passed through to the binding, which resolves it against the working
    // directory; left out, the binding's own default (build/stage of this
    // repository) applies.
    const prefix = b.option(
        []const u8,
        "sieve-prefix",
        "Sieve's install prefix, holding include/sieve.h and lib/libsieve.so (default: ../../../build/stage)",
    );
    const sieve = if (prefix) |path|
        b.dependency("sieve", .{ .target = target, .optimize = optimize, .@"sieve-prefix" = path })
    else
        b.dependency("sieve", .{ .target = target, .optimize = optimize });

    const exe = b.addExecutable(.{
        .name = "embed_loop_zig",
        .root_module = b.createModule(.{
            .root_source_file = b.path("src/main.zig"),
            .target = target,
            .optimize = optimize,
            // snprintf, for the C program's exact number formatting.
            .link_libc = true,
            .imports = &.{.{ .name = "sieve", .module = sieve.module("sieve") }},
        }),
    });
    b.installArtifact(exe);

    const run = b.addRunArtifact(exe);
    run.addPassthruArgs();
    b.step("run", "Run embed_loop_zig with the arguments after --").dependOn(&run.step);
}
