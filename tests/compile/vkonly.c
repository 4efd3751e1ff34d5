/* RLX_NO_CUDA + RLX_NO_HIP: Vulkan (where volk.h is found) and the CPU; no need for rlx_kernels_ptx.h. The
   Vulkan backend shares the GPU lowering with CUDA, so this checks that it does not depend on CUDA's parts. */
#define RLX_NO_CUDA
#define RLX_NO_HIP
#define RLX_IMPLEMENTATION
#include "../../rlx.h"
#include "use.h"

int main(void) { return trivial_use(); }
