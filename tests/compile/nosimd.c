/* RLX_NO_SIMD + RLX_NO_THREADS: scalar kernels on the calling thread only. */
#define RLX_NO_SIMD
#define RLX_NO_THREADS
#define RLX_IMPLEMENTATION
#include "../../rlx.h"
#include "use.h"

int main(void) { return trivial_use(); }
