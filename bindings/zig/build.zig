const std = @import("std");

pub fn build(b: *std.Build) void {
    const target = b.standardTargetOptions(.{});
    const optimize = b.standardOptimizeOption(.{});

    // Where `cmake --install` put Sieve: include/sieve.h and lib/libsieve.so.
    // The default is the repository's own staging folder, so the bindings
    // build in a checkout without any flag.
    const prefix = absolutePath(b, b.option(
        []const u8,
        "sieve-prefix",
        "Sieve's install prefix, holding include/sieve.h and lib/libsieve.so (default: ../../build/stage)",
    ), "../../build/stage");
    const lib_dir = prefix.path(b, "lib");

    // Zig 0.16 removed @cImport: the header is translated by the build
    // system and imported by the bindings as the module "sieve_c".
    const translate_c = b.addTranslateC(.{
        .root_source_file = prefix.path(b, "include/sieve.h"),
        .target = target,
        .optimize = optimize,
    });

    const sieve = b.addModule("sieve", .{
        .root_source_file = b.path("src/sieve.zig"),
        .target = target,
        .optimize = optimize,
        .link_libc = true,
        .imports = &.{.{ .name = "sieve_c", .module = translate_c.createModule() }},
    });
    sieve.addLibraryPath(lib_dir);
    sieve.linkSystemLibrary("sieve", .{ .preferred_link_mode = .dynamic });
    // Programs find libsieve.so where it was linked from, without
    // LD_LIBRARY_PATH.
    sieve.addRPath(lib_dir);

    // Tests compare against the command line tool and use the repository's
    // models and fixtures; SIEVE_BIN, SIEVE_MINILM and SIEVE_FIXTURES
    // override where they are looked for.
    const config = b.addOptions();
    config.addOption([]const u8, "repo_root", absolutePath(b, null, "../..").cwd_relative);

    const unit_tests = b.addTest(.{ .name = "sieve-unit", .root_module = sieve });
    const integration_tests = b.addTest(.{
        .name = "sieve-integration",
        .root_module = b.createModule(.{
            .root_source_file = b.path("tests/all.zig"),
            .target = target,
            .optimize = optimize,
            .imports = &.{
                .{ .name = "sieve", .module = sieve },
                .{ .name = "config", .module = config.createModule() },
            },
        }),
    });

    const test_step = b.step("test", "Run the unit tests and the tests against the library and the CLI");
    for ([_]*std.Build.Step.Compile{ unit_tests, integration_tests }) |tests| {
        const run = b.addRunArtifact(tests);
        // std.testing.tmpDir creates its folders under the working directory:
        // keep them in this package's (ignored) .zig-cache.
        run.setCwd(b.path("."));
        // The results depend on libsieve.so, the CLI and the models, none of
        // which the build cache tracks: always run the tests.
        run.has_side_effects = true;
        test_step.dependOn(&run.step);
    }

    const example = b.addExecutable(.{
        .name = "sieve-search",
        .root_module = b.createModule(.{
            .root_source_file = b.path("examples/search.zig"),
            .target = target,
            .optimize = optimize,
            .imports = &.{.{ .name = "sieve", .module = sieve }},
        }),
    });
    b.installArtifact(example);

    const example_model = absolutePath(b, b.option(
        []const u8,
        "example-model",
        "Embedding model folder for `zig build example` (default: ../../models/all-MiniLM-L6-v2)",
    ), "../../models/all-MiniLM-L6-v2");
    const run_example = b.addRunArtifact(example);
    run_example.addDirectoryArg(example_model);
    run_example.addPassthruArgs();
    b.step("example", "Run the semantic search example").dependOn(&run_example.step);
}

/// `user` (relative to the working directory) or else `default` (relative to
/// this package), made absolute: the build system passes paths below the
/// build root on as relative ones, and a relative rpath would be looked up
/// from wherever a program happens to run.
fn absolutePath(b: *std.Build, user: ?[]const u8, default: []const u8) std.Build.LazyPath {
    const cwd = std.process.currentPathAlloc(b.graph.io, b.allocator) catch |err|
        std.debug.panic("cannot get the working directory: {t}", .{err});
    const resolved = if (user) |path|
        b.pathResolve(&.{ cwd, path })
    else
        b.pathResolve(&.{ cwd, b.root.root_dir.path orelse ".", b.root.sub_path, default });
    return .{ .cwd_relative = resolved };
}
