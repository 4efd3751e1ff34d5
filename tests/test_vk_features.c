/* test_vk_features.c - the Vulkan backend with optional device features hidden (RLX_VULKAN_HIDE_FEATURES).

   1. The whole op table of tests/test_backends.c (this file includes it) runs on Vulkan with every optional
      feature hidden that leaves the device usable: int8, int16, float16 (no kernel needs shaderInt8,
      shaderInt16 or shaderFloat16) and storage8, storage16 (most kernels read 8- and 16-bit dtypes, so their
      cases must be reported unsupported). Every case must pass or be skipped with RLX_ERROR_UNSUPPORTED and a
      message naming the kernel and the missing feature; none may fail, and some must pass (the kernels that
      touch no 8- or 16-bit storage).
   2. Without RLX_COMPILE_NO_FALLBACK such a program falls back to the CPU and computes the right values.
   3. rlx_devices keeps the Vulkan device available when float64 or int64 is hidden (the 32-bit kernel variants
      need neither; tests/test_vk_narrow.c runs them), and reports it unavailable naming an unknown word of the
      variable.
   Without a Vulkan device every check is skipped with the reason. */
#if !defined(_WIN32)
#  define _POSIX_C_SOURCE 200809L /* setenv under -std=c99 */
#endif
#include <stdlib.h>

/* test_backends.c guards its RLX_IMPLEMENTATION with RLX_TEST_SHARED_IMPL: the Makefile links tests/rlx_impl.c */
#define main backends_main
#include "test_backends.c"
#undef main

#include "vk_env.h"

int main(void) {
    static char arg0[] = "test_vk_features", arg1[] = "all", arg2[] = "vulkan";
    char* argv[4] = {arg0, arg1, arg2, NULL};
    char why[512];
    int before, p0, f0, s0;
    before = vk_status(why, sizeof why);
    if (before != 1) {
        th_skip("vulkan: not available (%s)", why);
        return th_summary("vk_features");
    }
    vk_setenv("RLX_VULKAN_HIDE_FEATURES", "int8,int16,float16,storage8,storage16");
    p0 = th_passed, f0 = th_failed, s0 = th_skipped;
    backends_main(3, argv); /* prints its own summary line: the final one below is this file's */
    printf("with int8, int16, float16, storage8, storage16 hidden: %d passed, %d failed, %d skipped\n",
           th_passed - p0, th_failed - f0, th_skipped - s0);
    TH_CHECK(th_passed - p0 > 0, "no case ran on Vulkan with 8/16-bit features hidden");
    TH_CHECK(th_skipped - s0 > 0, "no case was reported unsupported with 8- and 16-bit storage hidden");

    { /* without RLX_COMPILE_NO_FALLBACK an unsupported kernel sends the program to the CPU, with right results */
        rlx_graph* g = rlx_graph_create(NULL);
        int64_t shp[1] = {5};
        float xv[5] = {-2.0f, -0.5f, 0.25f, 1.0f, 3.0f}, yv[5] = {0};
        rlx_program* p = NULL;
        rlx_compile_desc cd;
        rlx_result r;
        int k, ok = 1;
        rlx_output(g, "y", rlx_relu(g, rlx_input(g, "x", RLX_F32, 1, shp)));
        memset(&cd, 0, sizeof cd);
        cd.device = RLX_DEVICE_VULKAN;
        r = rlx_compile(g, &cd, &p);
        TH_CHECK(r == RLX_OK && p && rlx_program_device(p) == RLX_DEVICE_CPU,
                 "storage hidden, fallback allowed: compile %s, device %s", rlx_result_string(r),
                 p ? rlx_device_name(rlx_program_device(p)) : "-");
        if (r == RLX_OK && p) {
            rlx_set_input_f32(p, "x", xv, 5);
            r = rlx_run(p);
            rlx_get_output_f32(p, "y", yv, 5);
            for (k = 0; k < 5; k++) ok &= yv[k] == (xv[k] > 0.0f ? xv[k] : 0.0f);
            TH_CHECK(r == RLX_OK && ok, "fallback program: run %s, results %s", rlx_result_string(r), ok ? "right" : "wrong");
        }
        rlx_program_destroy(p);
        rlx_graph_destroy(g);
    }

    vk_setenv("RLX_VULKAN_HIDE_FEATURES", "float64");
    TH_CHECK(vk_status(why, sizeof why) == 1, "float64 hidden: Vulkan should stay available (32-bit variants): %s", why);
    vk_setenv("RLX_VULKAN_HIDE_FEATURES", "int64");
    TH_CHECK(vk_status(why, sizeof why) == 1, "int64 hidden: Vulkan should stay available (32-bit variants): %s", why);
    vk_setenv("RLX_VULKAN_HIDE_FEATURES", "int8, bogus");
    TH_CHECK(vk_status(why, sizeof why) == 0 && strstr(why, "'bogus'"),
             "an unknown feature should make Vulkan unavailable naming it: %s", why);
    vk_setenv("RLX_VULKAN_HIDE_FEATURES", "");
    TH_CHECK(vk_status(why, sizeof why) == 1, "Vulkan should be available again with nothing hidden: %s", why);
    return th_summary("vk_features");
}
