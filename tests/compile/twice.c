/* Built as two translation units linked together:
     - plain: the implementing TU, which includes rlx.h twice (both the declarations and the implementation
       must be guarded), and main;
     - with -DRLX_TWICE_SECOND_TU: a TU that only includes the declarations (twice as well) and uses the API.
   Linking them must not give duplicate or missing symbols. */
#ifdef RLX_TWICE_SECOND_TU

#include "../../rlx.h"
#include "../../rlx.h"

int twice_second_tu(void);
int twice_second_tu(void) {
    int64_t s[1] = {3};
    int n;
    rlx_graph* g = rlx_graph_create(NULL);
    if (!g) return -1;
    rlx_neg(g, rlx_input(g, "x", RLX_F32, 1, s));
    n = rlx_graph_node_count(g);
    rlx_graph_destroy(g);
    return n;
}

#else

#define RLX_IMPLEMENTATION
#include "../../rlx.h"
#include "../../rlx.h"
#include "use.h"

int twice_second_tu(void);

int main(void) {
    if (twice_second_tu() < 2) return 1;
    return trivial_use();
}

#endif
