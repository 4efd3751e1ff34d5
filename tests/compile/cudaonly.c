/* RLX_NO_VULKAN + RLX_NO_HIP: CUDA and the CPU; no need for rlx_kernels_spv.h. */
#define RLX_NO_VULKAN
#define RLX_NO_HIP
#define RLX_IMPLEMENTATION
#include "../../rlx.h"
#include "use.h"

int main(void) { return trivial_use(); }
