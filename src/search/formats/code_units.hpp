#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace sieve::search {

// Where the units of source code begin (byte offsets at line starts,
// ascending), found by a cheap rule that holds across most languages rather
// than by parsing one:
//   - a line whose first word defines something (def, class, fn, func,
//     function, struct, impl, interface, module, ...) indented by at most
//     four columns, or
//   - a line at column 0 that follows a blank line and does not close a
//     block (`}`, `)`, `]`, `end`);
// each moved up over the comments, decorators and attributes directly above
// it. The chunker ends its windows there where it can (chunker.hpp).
std::vector<std::size_t> code_unit_starts(std::string_view text);

}  // namespace sieve::search
