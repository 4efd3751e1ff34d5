/* The implementation compiled as C (or, with -x c++, as C++) with every warning enabled. */
#define RLX_IMPLEMENTATION
#include "../../rlx.h"
#include "use.h"

int main(void) {
    if (strcmp(rlx_version(), RLX_VERSION_STRING) != 0) return 1;
    return trivial_use();
}
