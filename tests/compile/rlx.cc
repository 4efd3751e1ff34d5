// The implementation compiled as C++.
#define RLX_IMPLEMENTATION
#include "../../rlx.h"
#include "use.h"

int main() {
    if (strcmp(rlx_version(), RLX_VERSION_STRING) != 0) return 1;
    return trivial_use();
}
