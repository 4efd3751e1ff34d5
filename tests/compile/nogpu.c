/* RLX_NO_CUDA + RLX_NO_HIP + RLX_NO_VULKAN: the CPU backend only (no driver is ever opened). */
#define RLX_NO_CUDA
#define RLX_NO_HIP
#define RLX_NO_VULKAN
#define RLX_IMPLEMENTATION
#include "../../rlx.h"
#include "use.h"

int main(void) { return trivial_use(); }
