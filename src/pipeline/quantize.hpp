#pragma once

// The quantization API is public: include/sieve/quantize.hpp. This header
// exists so pipeline code can include it by its pipeline path.
#include "sieve/quantize.hpp"
