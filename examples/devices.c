/* Lists the devices rlx.h can see, says why each is (un)available, and runs a tiny graph on AUTO.
   Build: cc -O2 -I. examples/devices.c -o build/devices -lm -lpthread -ldl */
#define RLX_IMPLEMENTATION
#include "rlx.h"
#include <stdio.h>
#include <string.h>

int main(void) {
    rlx_device_info info[16];
    int n = rlx_devices(info, 16), i;
    rlx_graph* g = rlx_graph_create(NULL);
    int64_t shape[1] = {5};
    float x[5] = {-2.0f, -0.5f, 0.0f, 0.5f, 2.0f}, y[5];
    rlx_program* p = NULL;
    rlx_compile_desc desc;
    memset(&desc, 0, sizeof desc);   /* RLX_DEVICE_AUTO */
    for (i = 0; i < n && i < 16; i++) {
        printf("%-7s %d %-9s %s\n        %s\n", rlx_device_name(info[i].device), info[i].index,
               info[i].available ? "available" : "-", info[i].name, info[i].reason);
        if (info[i].memory_bytes || info[i].driver[0])
            printf("        memory %.1f GiB, driver %s\n", (double)info[i].memory_bytes / (1024.0 * 1024.0 * 1024.0),
                   info[i].driver[0] ? info[i].driver : "?");
    }
    rlx_output(g, "y", rlx_tanh(g, rlx_input(g, "x", RLX_F32, 1, shape)));
    if (rlx_compile(g, &desc, &p) != RLX_OK) {
        printf("compile failed: %s\n", rlx_graph_error(g));
        rlx_graph_destroy(g);
        return 1;
    }
    if (rlx_set_input_f32(p, "x", x, 5) != RLX_OK || rlx_run(p) != RLX_OK || rlx_get_output_f32(p, "y", y, 5) != RLX_OK) {
        printf("run failed: %s\n", rlx_program_error(p));
        rlx_program_destroy(p);
        rlx_graph_destroy(g);
        return 1;
    }
    printf("\nran on %s: %s\ntanh(x) =", rlx_device_name(rlx_program_device(p)), rlx_program_device_reason(p));
    for (i = 0; i < 5; i++) printf(" %.6f", y[i]);
    printf("\n");
    rlx_program_destroy(p);
    rlx_graph_destroy(g);
    return 0;
}
