/* RLX_VOLK_EXTERNAL: the application builds volk.c itself (linked from a separate object); rlx.h only includes
   volk.h and uses the application's volk. */
#define RLX_VOLK_EXTERNAL
#define RLX_VULKAN
#define RLX_IMPLEMENTATION
#include "../../rlx.h"
#include "use.h"

int main(void) { return trivial_use(); }
