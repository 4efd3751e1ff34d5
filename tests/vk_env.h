/* vk_env.h - for the Vulkan feature tests (tests/test_vk_features.c, tests/test_vk_narrow.c; include after
   rlx.h): setting RLX_VULKAN_HIDE_FEATURES at run time, and the Vulkan entry of rlx_devices. */
#ifndef RLX_TESTS_VK_ENV_H
#define RLX_TESTS_VK_ENV_H

static int vk_setenv(const char* name, const char* value) {
#if defined(_WIN32)
    return _putenv_s(name, value);
#else
    return setenv(name, value, 1);
#endif
}

/* The Vulkan entry of rlx_devices: 1 if available; its reason in why. -1 if not listed. */
static int vk_status(char* why, size_t cap) {
    rlx_device_info info[RLX_DEVICE_COUNT];
    int i, n = rlx_devices(info, RLX_DEVICE_COUNT);
    for (i = 0; i < n && i < RLX_DEVICE_COUNT; i++)
        if (info[i].device == RLX_DEVICE_VULKAN) {
            snprintf(why, cap, "%s", info[i].reason);
            return info[i].available;
        }
    snprintf(why, cap, "rlx_devices does not list Vulkan");
    return -1;
}
#endif
