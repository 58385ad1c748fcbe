//! The root of `zig build test`'s integration tests.

const sieve = @import("sieve");

// Tests run in this order, in one process. The library's info lines (one per
// model loaded) would otherwise fill the build runner's report, which shows
// any standard error output of a test run as if it had failed.
test "quiet: the library logs warnings and errors only" {
    try sieve.setLogLevel(.warn, null);
}

test {
    _ = @import("embed_test.zig");
    _ = @import("sparse_test.zig");
    _ = @import("rerank_test.zig");
    _ = @import("classify_test.zig");
    _ = @import("tokenize_test.zig");
    _ = @import("errors_test.zig");
    _ = @import("registry_test.zig");
    _ = @import("kinds_test.zig");
}
