/* The implementation of rlx.h, compiled once per build configuration (`make test`, `make asan`) and linked into
   every test program that guards its own `#define RLX_IMPLEMENTATION` with `#ifndef RLX_TEST_SHARED_IMPL`
   (the Makefile defines it for those). A test that configures rlx.h with macros of its own (RLX_PROFILE_CLOCK,
   ...) or reaches internal rlx__ functions keeps its own implementation. */
#define RLX_IMPLEMENTATION
#include "../rlx.h"
