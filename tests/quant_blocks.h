/* quant_blocks.h - random q4_0 / q8_0 weight blocks with their exact values, for tests/test_quant_act.c and
   tests/test_quant_gemv.c (include after harness.h: it draws from th_uniform). */
#ifndef RLX_TESTS_QUANT_BLOCKS_H
#define RLX_TESTS_QUANT_BLOCKS_H

/* a random normal f16 scale in [2^-9, 2^-4): its bits and its value */
static double f16_pick(unsigned char* p) {
    unsigned e = 6u + (unsigned)(th_uniform(0, 5)), m = (unsigned)th_uniform(0, 1023.99);
    uint16_t b = (uint16_t)((e << 10) | m);
    p[0] = (unsigned char)(b & 0xFF);
    p[1] = (unsigned char)(b >> 8);
    return ldexp(1.0 + m / 1024.0, (int)e - 15);
}

/* n rows of k weights: bytes in w, values in wd (f64), for q4_0 (18 bytes per 32) or q8_0 (34 per 32) */
/* q8_0 values are drawn from [qmin, 127] */
static void make_w(rlx_dtype t, int64_t n, int64_t k, int qmin, unsigned char* w, double* wd) {
    int64_t r, b, j;
    for (r = 0; r < n; r++)
        for (b = 0; b < k / 32; b++) {
            unsigned char* blk = w + (size_t)((r * (k / 32) + b) * (t == RLX_Q4_0 ? 18 : 34));
            double* v = wd + r * k + b * 32;
            double d = f16_pick(blk);
            for (j = 0; j < 32; j++) {
                if (t == RLX_Q8_0) {
                    int q = (int)th_uniform(qmin, 127.99);
                    blk[2 + j] = (unsigned char)(signed char)q;
                    v[j] = d * q;
                } else if (j < 16) {
                    int lo = (int)th_uniform(0, 15.99), hi = (int)th_uniform(0, 15.99);
                    blk[2 + j] = (unsigned char)(lo | (hi << 4));
                    v[j] = d * (lo - 8);
                    v[j + 16] = d * (hi - 8);
                }
            }
        }
}

#endif
