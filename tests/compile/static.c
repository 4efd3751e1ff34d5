/* RLX_STATIC: a private copy of the implementation; unused static functions must not warn. */
#define RLX_STATIC
#define RLX_IMPLEMENTATION
#include "../../rlx.h"
#include "use.h"

int main(void) { return trivial_use(); }
