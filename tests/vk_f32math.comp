#version 460
// tests/test_vk_f32math.c runs this kernel on a Vulkan device: every function of kernels/vulkan/math_f32.glsl on
// n inputs. No 64-bit integers or doubles anywhere: the argument block's addresses are uvec2
// (GL_EXT_buffer_reference_uvec2), so the module needs neither shaderInt64 nor shaderFloat64.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
layout(local_size_x_id = 0) in;
#include "math_f32.glsl"

layout(buffer_reference, std430, buffer_reference_align = 4) buffer VkfFloats { float v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer VkfArgs {
    uvec2 x;    // n inputs
    uvec2 y;    // n second inputs (pow)
    uvec2 o;    // 9 n outputs: function f of input i at f n + i
    uint n;
};
layout(push_constant) uniform VkfPush { uvec2 args; } pc;

void main() {
    VkfArgs a = VkfArgs(pc.args);
    uint n = a.n;
    VkfFloats xs = VkfFloats(a.x), ys = VkfFloats(a.y), o = VkfFloats(a.o);
    for (uint i = gl_GlobalInvocationID.x; i < n; i += gl_NumWorkGroups.x * gl_WorkGroupSize.x) {
        float x = xs.v[i];
        o.v[i] = rlx_exp_f32(x);
        o.v[n + i] = rlx_log_f32(x);
        o.v[2u * n + i] = rlx_sin_f32(x);
        o.v[3u * n + i] = rlx_cos_f32(x);
        o.v[4u * n + i] = rlx_tan_f32(x);
        o.v[5u * n + i] = rlx_atan_f32(x);
        o.v[6u * n + i] = rlx_tanh_f32(x);
        o.v[7u * n + i] = rlx_erf_f32(x);
        o.v[8u * n + i] = rlx_pow_f32(x, ys.v[i]);
    }
}
