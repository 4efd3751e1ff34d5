/* embed_kernels.c - turns compiled GPU kernels into a C header that rlx.h can include.

   Usage:
       embed_kernels [--version X] spv OUT.h [kernel.spv ...]
       embed_kernels [--version X] ptx OUT.h [kernel.ptx ... | --keep-ptx] [--source FILE ...]

   Each input becomes one kernel named after its file (the base name without the extension, which must be a C
   identifier). SPIR-V files are binary: their size must be a non-zero multiple of 4 and the first word the
   SPIR-V magic number 0x07230203 (either byte order; words are written in host-independent form). PTX files
   are text without NUL bytes. Kernels are sorted by name.

   The header defines (for spv; ptx is the same with ptx/PTX):
       #define RLX_KERNELS_SPV_VERSION "X"                     X defaults to "0.1.0" and must equal rlx.h's
                                                               RLX_VERSION_STRING
       static const char rlx__spv_NAME[] = "...";              one per kernel: the module's words as little-endian
                                                               bytes (string literals parse several times faster
                                                               than a list of numbers; the reader assembles the
                                                               words from the bytes on any host)
       static const char rlx__ptx_NAME[] = "...";              (ptx)
       static const rlx__kernel_blob rlx__spv_kernels[];       {name, data, size in bytes}, sorted by name
       static const int rlx__spv_kernel_count;                 with no kernels: 0, and the table holds one
                                                               {NULL, NULL, 0} entry (C has no empty arrays)
   ptx mode can also embed the CUDA C *sources* of the kernels, which the HIP backend compiles at run time
   with hipRTC: every FILE after --source is embedded verbatim. A file ending in .cuh, .h or .hpp is a header,
   named by its file name (e.g. "common.cuh", the name it is #included by); any other file is a module, named
   by its base name without the extension (e.g. "elementwise" for elementwise.cu; a C identifier). This adds
       #define RLX_KERNELS_HIP_SOURCES 1
       static const char rlx__hipsrc_NAME[] = "...";            one per file ('.' in a header name becomes '_')
       static const rlx__kernel_blob rlx__hip_sources[];       {name, text, size in bytes}, sorted by name
       static const int rlx__hip_source_count;
   after the PTX table, which stays as it is without --source. --keep-ptx takes the PTX kernels from the
   existing OUT.h instead of from files (to refresh the sources where nvcc is not installed); it fails when
   OUT.h does not exist or holds no PTX table.

   The output is only written when its content changes. Exit status 0 on success, 1 on any error.

   Build: cc -std=c99 -O2 tools/embed_kernels.c -o build/embed_kernels
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EK_MAX_INPUT_BYTES ((size_t)256 << 20) /* refuse inputs above 256 MiB */
#define EK_SPV_MAGIC 0x07230203ul
#define EK_EM_DASH "\xE2\x80\x94"              /* UTF-8 em dash, kept out of this file's source text */

typedef struct ek_kernel {
    char* name;          /* C identifier derived from the file name */
    const char* path;    /* as given on the command line */
    unsigned char* data; /* file contents */
    size_t size;         /* bytes */
} ek_kernel;

typedef struct ek_buf {
    char* p;
    size_t len, cap;
    int oom;
} ek_buf;

static void ek_put(ek_buf* b, const char* s, size_t n) {
    if (b->oom) return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        char* np;
        while (b->len + n + 1 > cap) cap *= 2;
        np = (char*)realloc(b->p, cap);
        if (!np) { b->oom = 1; return; }
        b->p = np;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void ek_puts(ek_buf* b, const char* s) { ek_put(b, s, strlen(s)); }

/* Reads a whole file. Returns 0 on success; on failure prints why and returns 1. */
static int ek_read_file(const char* path, unsigned char** out, size_t* size) {
    FILE* f = fopen(path, "rb");
    unsigned char* data = NULL;
    size_t len = 0, cap = 0;
    *out = NULL;
    *size = 0;
    if (!f) {
        fprintf(stderr, "embed_kernels: cannot open %s\n", path);
        return 1;
    }
    for (;;) {
        size_t got;
        if (len == cap) {
            unsigned char* nd;
            cap = cap ? cap * 2 : 65536;
            nd = (unsigned char*)realloc(data, cap + 1);
            if (!nd) {
                fprintf(stderr, "embed_kernels: out of memory reading %s\n", path);
                free(data);
                fclose(f);
                return 1;
            }
            data = nd;
        }
        got = fread(data + len, 1, cap - len, f);
        len += got;
        if (len > EK_MAX_INPUT_BYTES) {
            fprintf(stderr, "embed_kernels: %s is larger than %lu bytes\n", path, (unsigned long)EK_MAX_INPUT_BYTES);
            free(data);
            fclose(f);
            return 1;
        }
        if (got == 0) break;
    }
    if (ferror(f)) {
        fprintf(stderr, "embed_kernels: error reading %s\n", path);
        free(data);
        fclose(f);
        return 1;
    }
    fclose(f);
    data[len] = 0;
    *out = data;
    *size = len;
    return 0;
}

static int ek_is_ident(const char* s) {
    const char* c;
    if (!s[0]) return 0;
    if (!(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z'))) return 0;
    for (c = s + 1; *c; c++)
        if (!(*c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')))
            return 0;
    return 1;
}

/* "dir/sub/add_f32.spv" -> "add_f32" (malloc'ed). Strips the last extension only. */
static char* ek_kernel_name(const char* path) {
    const char* base = path;
    const char* c;
    const char* dot = NULL;
    size_t n;
    char* name;
    for (c = path; *c; c++)
        if (*c == '/' || *c == '\\') base = c + 1;
    for (c = base; *c; c++)
        if (*c == '.') dot = c;
    n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    name = (char*)malloc(n + 1);
    if (!name) return NULL;
    memcpy(name, base, n);
    name[n] = '\0';
    return name;
}

static unsigned long ek_word(const unsigned char* p, int big_endian) {
    if (big_endian)
        return ((unsigned long)p[0] << 24) | ((unsigned long)p[1] << 16) | ((unsigned long)p[2] << 8) | p[3];
    return ((unsigned long)p[3] << 24) | ((unsigned long)p[2] << 16) | ((unsigned long)p[1] << 8) | p[0];
}

static int ek_cmp_kernel(const void* a, const void* b) {
    return strcmp(((const ek_kernel*)a)->name, ((const ek_kernel*)b)->name);
}

/* PTX text as adjacent string literals, one source line per literal (long lines are split). */
/* s[0..n) as C string literals (3-digit octal escapes for bytes that are not printable ASCII) */
static void ek_emit_string(ek_buf* b, const unsigned char* s, size_t n) {
    size_t i, col = 0;
    int open = 0;
    if (n == 0) { ek_puts(b, "    \"\""); return; }
    for (i = 0; i < n; i++) {
        unsigned char c = s[i];
        char esc[8];
        if (!open) { ek_puts(b, "    \""); open = 1; col = 0; }
        switch (c) {
        case '\n': strcpy(esc, "\\n"); break;
        case '\t': strcpy(esc, "\\t"); break;
        case '\r': strcpy(esc, "\\r"); break;
        case '\\': strcpy(esc, "\\\\"); break;
        case '"': strcpy(esc, "\\\""); break;
        case '?': strcpy(esc, "\\?"); break; /* no trigraphs */
        default:
            if (c >= 0x20 && c < 0x7F) { esc[0] = (char)c; esc[1] = '\0'; }
            else sprintf(esc, "\\%03o", (unsigned)c); /* always 3 octal digits: never absorbs a following digit */
        }
        ek_puts(b, esc);
        col += strlen(esc);
        if (c == '\n' || col >= 100) {
            ek_puts(b, "\"");
            if (i + 1 < n) ek_puts(b, "\n");
            open = 0;
        }
    }
    if (open) ek_puts(b, "\"");
}

/* Is the file a header (embedded under its file name) rather than a module? */
static int ek_is_header(const char* path) {
    size_t n = strlen(path);
    return (n >= 4 && strcmp(path + n - 4, ".cuh") == 0) || (n >= 2 && strcmp(path + n - 2, ".h") == 0) ||
           (n >= 4 && strcmp(path + n - 4, ".hpp") == 0);
}

/* "dir/common.cuh" -> "common.cuh" (malloc'ed) */
static char* ek_file_name(const char* path) {
    const char* base = path;
    const char* c;
    char* name;
    for (c = path; *c; c++)
        if (*c == '/' || *c == '\\') base = c + 1;
    name = (char*)malloc(strlen(base) + 1);
    if (name) strcpy(name, base);
    return name;
}

/* The C identifier of a source: its name with '.' and '-' as '_'. */
static void ek_source_ident(const char* name, char* out) {
    for (; *name; name++) *out++ = (*name == '.' || *name == '-') ? '_' : *name;
    *out = '\0';
}

/* The HIP source section: text of every source and the sorted rlx__hip_sources table. */
static void ek_generate_sources(ek_buf* b, const ek_kernel* ss, int ns) {
    char tmp[1024], id[256];
    size_t longest = 0;
    int i;
    for (i = 0; i < ns; i++)
        if (ss[i].size > longest) longest = ss[i].size;
    ek_puts(b, "/* HIP: the CUDA C sources of the kernels, compiled at run time with hipRTC for the device's architecture.\n"
               "   Names with an extension are headers (given to hipRTC under that include name); the others are modules. */\n"
               "#define RLX_KERNELS_HIP_SOURCES 1\n\n");
    if (longest > 4095)
        ek_puts(b, "#if defined(__GNUC__) || defined(__clang__)\n"
                   "#pragma GCC diagnostic push\n"
                   "#pragma GCC diagnostic ignored \"-Woverlength-strings\"\n"
                   "#endif\n\n");
    for (i = 0; i < ns; i++) {
        ek_source_ident(ss[i].name, id);
        sprintf(tmp, "/* %s: %lu bytes */\nstatic const char rlx__hipsrc_%s[] RLX__KERNELS_PTX_UNUSED =\n", ss[i].name,
                (unsigned long)ss[i].size, id);
        ek_puts(b, tmp);
        ek_emit_string(b, ss[i].data, ss[i].size);
        ek_puts(b, ";\n\n");
    }
    if (longest > 4095)
        ek_puts(b, "#if defined(__GNUC__) || defined(__clang__)\n#pragma GCC diagnostic pop\n#endif\n\n");
    ek_puts(b, "/* Sorted by name. */\nstatic const rlx__kernel_blob rlx__hip_sources[] RLX__KERNELS_PTX_UNUSED = {\n");
    if (ns == 0) ek_puts(b, "    {NULL, NULL, 0} /* no sources: C has no empty arrays */\n");
    for (i = 0; i < ns; i++) {
        ek_source_ident(ss[i].name, id);
        sprintf(tmp, "    {\"%s\", rlx__hipsrc_%s, sizeof(rlx__hipsrc_%s) - 1}%s\n", ss[i].name, id, id,
                i + 1 < ns ? "," : "");
        ek_puts(b, tmp);
    }
    ek_puts(b, "};\n");
    sprintf(tmp, "static const int rlx__hip_source_count RLX__KERNELS_PTX_UNUSED = %d;\n\n", ns);
    ek_puts(b, tmp);
}

static int ek_generate(ek_buf* b, int ptx, const char* version, const ek_kernel* ks, int nk, const ek_kernel* ss,
                       int ns) {
    const char* lo = ptx ? "ptx" : "spv";
    const char* up = ptx ? "PTX" : "SPV";
    char tmp[1024]; /* kernel names are at most 200 characters */
    char extra[96];
    size_t longest = 0;
    int i;

    for (i = 0; i < nk; i++)
        if (ks[i].size > longest) longest = ks[i].size;

    extra[0] = '\0';
    if (ns >= 0) sprintf(extra, "\n   With the CUDA C sources of the kernels for hipRTC (%d files).", ns);
    sprintf(tmp, "/* GENERATED by tools/embed_kernels.c " EK_EM_DASH " do not edit.\n"
                 "   %s kernels for rlx.h (%d), %s. Regenerate with `make kernels`.%s */\n",
            ptx ? "PTX" : "SPIR-V", nk, ptx ? "embedded as NUL-terminated text" : "embedded as the little-endian bytes of their words", extra);
    ek_puts(b, tmp);
    sprintf(tmp, "#ifndef RLX_KERNELS_%s_H\n#define RLX_KERNELS_%s_H\n\n", up, up);
    ek_puts(b, tmp);
    ek_puts(b, "#include <stddef.h>\n");
    if (!ptx) ek_puts(b, "#include <stdint.h>\n");
    sprintf(tmp, "\n#define RLX_KERNELS_%s_VERSION \"%s\" /* must equal RLX_VERSION_STRING */\n\n", up, version);
    ek_puts(b, tmp);
    ek_puts(b, "#ifndef RLX__KERNEL_BLOB_DEFINED\n"
               "#define RLX__KERNEL_BLOB_DEFINED\n"
               "/* One embedded kernel. data: the little-endian bytes of the words (SPIR-V) or NUL-terminated text\n"
               "   (PTX); size: bytes (without the NUL). */\n"
               "typedef struct rlx__kernel_blob {\n"
               "    const char* name;\n"
               "    const void* data;\n"
               "    size_t size;\n"
               "} rlx__kernel_blob;\n"
               "#endif\n\n");
    sprintf(tmp, "#if defined(__GNUC__) || defined(__clang__)\n"
                 "#define RLX__KERNELS_%s_UNUSED __attribute__((unused))\n"
                 "#else\n"
                 "#define RLX__KERNELS_%s_UNUSED\n"
                 "#endif\n\n", up, up);
    ek_puts(b, tmp);
    /* C99 only promises string literals of 4095 characters; gcc and clang take any length but warn under
       -Wpedantic, so silence that one warning around the kernels. */
    if (longest > 4095)
        ek_puts(b, "#if defined(__GNUC__) || defined(__clang__)\n"
                   "#pragma GCC diagnostic push\n"
                   "#pragma GCC diagnostic ignored \"-Woverlength-strings\"\n"
                   "#endif\n\n");

    for (i = 0; i < nk; i++) {
        const ek_kernel* k = &ks[i];
        if (!ptx) {
            size_t w, nw = k->size / 4;
            int big = ek_word(k->data, 0) != EK_SPV_MAGIC;
            unsigned char* le = (unsigned char*)malloc(k->size);
            if (!le) { b->oom = 1; return 1; }
            for (w = 0; w < nw; w++) {   /* the words in little-endian byte order */
                unsigned long v = ek_word(k->data + 4 * w, big);
                le[4 * w] = (unsigned char)(v & 0xFF);
                le[4 * w + 1] = (unsigned char)((v >> 8) & 0xFF);
                le[4 * w + 2] = (unsigned char)((v >> 16) & 0xFF);
                le[4 * w + 3] = (unsigned char)((v >> 24) & 0xFF);
            }
            sprintf(tmp, "/* %s: %lu words */\nstatic const char rlx__spv_%s[] RLX__KERNELS_SPV_UNUSED =\n",
                    k->name, (unsigned long)nw, k->name);
            ek_puts(b, tmp);
            ek_emit_string(b, le, k->size);
            ek_puts(b, ";\n\n");
            free(le);
        } else {
            sprintf(tmp, "/* %s: %lu bytes */\nstatic const char rlx__ptx_%s[] RLX__KERNELS_PTX_UNUSED =\n", k->name,
                    (unsigned long)k->size, k->name);
            ek_puts(b, tmp);
            ek_emit_string(b, k->data, k->size);
            ek_puts(b, ";\n\n");
        }
    }
    if (longest > 4095)
        ek_puts(b, "#if defined(__GNUC__) || defined(__clang__)\n#pragma GCC diagnostic pop\n#endif\n\n");

    sprintf(tmp, "/* Sorted by name. */\nstatic const rlx__kernel_blob rlx__%s_kernels[] RLX__KERNELS_%s_UNUSED = {\n",
            lo, up);
    ek_puts(b, tmp);
    if (nk == 0) ek_puts(b, "    {NULL, NULL, 0} /* no kernels: C has no empty arrays */\n");
    for (i = 0; i < nk; i++) {
        if (ptx)
            sprintf(tmp, "    {\"%s\", rlx__ptx_%s, sizeof(rlx__ptx_%s) - 1}%s\n", ks[i].name, ks[i].name,
                    ks[i].name, i + 1 < nk ? "," : "");
        else
            sprintf(tmp, "    {\"%s\", rlx__spv_%s, sizeof(rlx__spv_%s) - 1}%s\n", ks[i].name, ks[i].name, ks[i].name,
                    i + 1 < nk ? "," : "");
        ek_puts(b, tmp);
    }
    ek_puts(b, "};\n");
    sprintf(tmp, "static const int rlx__%s_kernel_count RLX__KERNELS_%s_UNUSED = %d;\n\n", lo, up, nk);
    ek_puts(b, tmp);
    if (ns >= 0) ek_generate_sources(b, ss, ns);
    sprintf(tmp, "#endif /* RLX_KERNELS_%s_H */\n", up);
    ek_puts(b, tmp);
    ek_puts(b, "/* rlx.h kernels " EK_EM_DASH " public domain or MIT, see rlx.h */\n");
    return b->oom ? 1 : 0;
}

/* Writes `text` to path unless the file already holds exactly that. */
static int ek_write_if_changed(const char* path, const char* text, size_t len) {
    unsigned char* old = NULL;
    size_t old_len = 0;
    FILE* f = fopen(path, "rb");
    if (f) {
        fclose(f);
        if (ek_read_file(path, &old, &old_len) == 0 && old_len == len && memcmp(old, text, len) == 0) {
            free(old);
            printf("%s unchanged\n", path);
            return 0;
        }
        free(old);
    }
    f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "embed_kernels: cannot write %s\n", path);
        return 1;
    }
    if (fwrite(text, 1, len, f) != len) {
        fprintf(stderr, "embed_kernels: error writing %s\n", path);
        fclose(f);
        remove(path);
        return 1;
    }
    if (fclose(f) != 0) {
        fprintf(stderr, "embed_kernels: error writing %s\n", path);
        remove(path);
        return 1;
    }
    printf("wrote %s\n", path);
    return 0;
}

/* Reads back the PTX kernels of an earlier output: every `static const char rlx__ptx_NAME[] ... = "..." "...";`
   (the literals ek_emit_string wrote). Returns the number found, or -1 after printing why. */
static int ek_read_embedded_ptx(const char* path, ek_kernel** out) {
    static const char key[] = "\nstatic const char rlx__ptx_";
    unsigned char* text;
    size_t size;
    const char* s;
    ek_kernel* ks = NULL;
    int nk = 0, cap = 0;
    *out = NULL;
    if (ek_read_file(path, &text, &size)) return -1;
    s = (const char*)text;
    while ((s = strstr(s, key)) != NULL) {
        const char* nm = s + sizeof key - 1;
        const char* e = strchr(nm, '[');
        unsigned char* d;
        size_t n = 0;
        ek_kernel* k;
        if (!e || e == nm || (size_t)(e - nm) > 200) goto bad;
        if (nk == cap) {
            ek_kernel* nks = (ek_kernel*)realloc(ks, sizeof(ek_kernel) * (size_t)(cap = cap ? cap * 2 : 8));
            if (!nks) goto oom;
            ks = nks;
        }
        k = &ks[nk];
        memset(k, 0, sizeof *k);
        k->path = path;
        k->name = (char*)malloc((size_t)(e - nm) + 1);
        /* the decoded text is never longer than its literal: the rest of the file bounds it */
        k->data = d = (unsigned char*)malloc(size - (size_t)(e - (const char*)text) + 1);
        nk++;
        if (!k->name || !d) goto oom;
        memcpy(k->name, nm, (size_t)(e - nm));
        k->name[e - nm] = '\0';
        if (!ek_is_ident(k->name)) goto bad;
        s = strchr(e, '=');
        if (!s) goto bad;
        for (s++;;) {
            while (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t') s++;
            if (*s == ';') break;
            if (*s != '"') goto bad;
            for (s++; *s != '"'; s++) {
                if (!*s || *s == '\n') goto bad;
                if (*s != '\\') { d[n++] = (unsigned char)*s; continue; }
                s++;
                switch (*s) {
                case 'n': d[n++] = '\n'; break;
                case 't': d[n++] = '\t'; break;
                case 'r': d[n++] = '\r'; break;
                case '\\': case '"': case '?': d[n++] = (unsigned char)*s; break;
                default:
                    if (s[0] >= '0' && s[0] <= '7' && s[1] >= '0' && s[1] <= '7' && s[2] >= '0' && s[2] <= '7') {
                        d[n++] = (unsigned char)(((s[0] - '0') << 6) | ((s[1] - '0') << 3) | (s[2] - '0'));
                        s += 2;
                    } else {
                        goto bad;
                    }
                }
            }
            s++;
        }
        d[n] = '\0';
        k->size = n;
    }
    if (nk == 0 && !strstr((const char*)text, "static const rlx__kernel_blob rlx__ptx_kernels[]")) {
        fprintf(stderr, "embed_kernels: --keep-ptx: %s has no PTX table\n", path);
        free(text);
        return -1;
    }
    free(text);
    *out = ks;
    return nk;
bad:
    fprintf(stderr, "embed_kernels: --keep-ptx: cannot parse the embedded PTX of %s\n", path);
    goto fail;
oom:
    fprintf(stderr, "embed_kernels: out of memory\n");
fail:
    while (nk > 0) { nk--; free(ks[nk].name); free(ks[nk].data); }
    free(ks);
    free(text);
    return -1;
}

/* Reads the --source files. Returns 0, or 1 after printing why. */
static int ek_read_sources(const char* const* files, int n, ek_kernel* ss, int* ns) {
    int i;
    for (i = 0; i < n; i++) {
        ek_kernel* k = &ss[*ns];
        const char* c;
        int hdr = ek_is_header(files[i]);
        k->path = files[i];
        k->name = hdr ? ek_file_name(files[i]) : ek_kernel_name(files[i]);
        if (!k->name) { fprintf(stderr, "embed_kernels: out of memory\n"); return 1; }
        (*ns)++;
        if (strlen(k->name) > 200 || (!hdr && !ek_is_ident(k->name))) {
            fprintf(stderr, "embed_kernels: %s: source name \"%s\" is not a C identifier\n", files[i], k->name);
            return 1;
        }
        for (c = k->name; *c; c++) {
            if (!(*c == '_' || *c == '.' || *c == '-' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                  (*c >= '0' && *c <= '9'))) {
                fprintf(stderr, "embed_kernels: %s: header name \"%s\" has characters other than letters, digits, '_', '.', '-'\n",
                        files[i], k->name);
                return 1;
            }
        }
        if (ek_read_file(files[i], &k->data, &k->size)) return 1;
        if (memchr(k->data, 0, k->size)) {
            fprintf(stderr, "embed_kernels: %s: contains a NUL byte, not source text\n", files[i]);
            return 1;
        }
    }
    if (*ns > 1) qsort(ss, (size_t)*ns, sizeof(ek_kernel), ek_cmp_kernel);
    for (i = 1; i < *ns; i++) {
        char a[256], b2[256];
        ek_source_ident(ss[i - 1].name, a);
        ek_source_ident(ss[i].name, b2);
        if (strcmp(a, b2) == 0) {
            fprintf(stderr, "embed_kernels: %s and %s give the same source name \"%s\"\n", ss[i - 1].path, ss[i].path,
                    b2);
            return 1;
        }
    }
    return 0;
}

static int ek_usage(void) {
    fprintf(stderr, "usage: embed_kernels [--version X] spv OUT.h [kernel.spv ...]\n"
                    "       embed_kernels [--version X] ptx OUT.h [kernel.ptx ... | --keep-ptx] [--source FILE ...]\n");
    return 1;
}

int main(int argc, char** argv) {
    const char* version = "0.1.0";
    const char* mode = NULL;
    const char* out = NULL;
    const char** files;
    const char** srcs;
    ek_kernel* ks = NULL;
    ek_kernel* ss = NULL;
    ek_buf b = {NULL, 0, 0, 0};
    int nfiles = 0, nsrcs = 0, nk = 0, ns = 0, ptx, i, rc = 1, keep_ptx = 0, sources = 0;
    const char* c;

    files = (const char**)malloc(sizeof(char*) * (size_t)(argc > 0 ? argc : 1));
    srcs = (const char**)malloc(sizeof(char*) * (size_t)(argc > 0 ? argc : 1));
    if (!files || !srcs) { fprintf(stderr, "embed_kernels: out of memory\n"); free(files); free(srcs); return 1; }
    for (i = 1; i < argc; i++) {
        if (sources) {
            srcs[nsrcs++] = argv[i];
        } else if (strcmp(argv[i], "--version") == 0) {
            if (i + 1 >= argc) { rc = ek_usage(); goto done; }
            version = argv[++i];
        } else if (strcmp(argv[i], "--source") == 0 && mode) {
            sources = 1;
        } else if (strcmp(argv[i], "--keep-ptx") == 0 && mode) {
            keep_ptx = 1;
        } else if (!mode) {
            mode = argv[i];
        } else if (!out) {
            out = argv[i];
        } else {
            files[nfiles++] = argv[i];
        }
    }
    if (!mode || !out || (strcmp(mode, "spv") != 0 && strcmp(mode, "ptx") != 0)) { rc = ek_usage(); goto done; }
    ptx = strcmp(mode, "ptx") == 0;
    if (!ptx && (sources || keep_ptx)) {
        fprintf(stderr, "embed_kernels: --source and --keep-ptx are for ptx mode\n");
        goto done;
    }
    if (keep_ptx && nfiles) {
        fprintf(stderr, "embed_kernels: --keep-ptx takes the PTX from %s: give no .ptx files with it\n", out);
        goto done;
    }
    if (!version[0] || strlen(version) > 64) {
        fprintf(stderr, "embed_kernels: bad --version \"%s\"\n", version);
        goto done;
    }
    for (c = version; *c; c++) {
        if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || *c == '.' ||
              *c == '-' || *c == '+')) {
            fprintf(stderr, "embed_kernels: bad --version \"%s\" (use digits, letters, '.', '-', '+')\n", version);
            goto done;
        }
    }

    if (keep_ptx) {
        if ((nk = ek_read_embedded_ptx(out, &ks)) < 0) { nk = 0; goto done; }
    } else {
        ks = (ek_kernel*)calloc((size_t)(nfiles > 0 ? nfiles : 1), sizeof(ek_kernel));
        if (!ks) { fprintf(stderr, "embed_kernels: out of memory\n"); goto done; }
    }
    ss = (ek_kernel*)calloc((size_t)(nsrcs > 0 ? nsrcs : 1), sizeof(ek_kernel));
    if (!ss) { fprintf(stderr, "embed_kernels: out of memory\n"); goto done; }

    for (i = 0; i < nfiles; i++) {
        ek_kernel* k = &ks[nk];
        k->path = files[i];
        k->name = ek_kernel_name(files[i]);
        if (!k->name) { fprintf(stderr, "embed_kernels: out of memory\n"); goto done; }
        nk++;
        if (!ek_is_ident(k->name) || strlen(k->name) > 200) {
            fprintf(stderr, "embed_kernels: %s: kernel name \"%s\" (the file name without its extension) is not a C identifier\n",
                    files[i], k->name);
            goto done;
        }
        if (strcmp(k->name, "kernels") == 0 || strcmp(k->name, "kernel_count") == 0) {
            fprintf(stderr, "embed_kernels: %s: the kernel name \"%s\" is reserved\n", files[i], k->name);
            goto done;
        }
        if (ek_read_file(files[i], &k->data, &k->size)) goto done;
        if (!ptx) {
            if (k->size == 0 || k->size % 4 != 0) {
                fprintf(stderr, "embed_kernels: %s: size %lu is not a non-zero multiple of 4, not SPIR-V\n", files[i],
                        (unsigned long)k->size);
                goto done;
            }
            if (ek_word(k->data, 0) != EK_SPV_MAGIC && ek_word(k->data, 1) != EK_SPV_MAGIC) {
                fprintf(stderr, "embed_kernels: %s: bad SPIR-V magic 0x%08lx (want 0x%08lx)\n", files[i],
                        ek_word(k->data, 0), EK_SPV_MAGIC);
                goto done;
            }
        } else {
            if (memchr(k->data, 0, k->size)) {
                fprintf(stderr, "embed_kernels: %s: contains a NUL byte, not PTX text\n", files[i]);
                goto done;
            }
        }
    }
    if (nk > 1) qsort(ks, (size_t)nk, sizeof(ek_kernel), ek_cmp_kernel);
    for (i = 1; i < nk; i++) {
        if (strcmp(ks[i - 1].name, ks[i].name) == 0) {
            fprintf(stderr, "embed_kernels: %s and %s give the same kernel name \"%s\"\n", ks[i - 1].path, ks[i].path,
                    ks[i].name);
            goto done;
        }
    }
    if (ek_read_sources(srcs, nsrcs, ss, &ns)) goto done;
    if (ek_generate(&b, ptx, version, ks, nk, ss, sources ? ns : -1)) {
        fprintf(stderr, "embed_kernels: out of memory\n");
        goto done;
    }
    rc = ek_write_if_changed(out, b.p, b.len);

done:
    for (i = 0; i < nk; i++) {
        free(ks[i].name);
        free(ks[i].data);
    }
    for (i = 0; i < ns; i++) {
        free(ss[i].name);
        free(ss[i].data);
    }
    free(ks);
    free(ss);
    free(files);
    free(srcs);
    free(b.p);
    return rc;
}
