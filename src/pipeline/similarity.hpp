#pragma once

// The similarity API is public: include/sieve/similarity.hpp.
#include "sieve/similarity.hpp"
