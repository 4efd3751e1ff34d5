/* libFuzzer target for the generation utilities (>>sampler): chat templates, stop strings and sampler chains
   built from arbitrary bytes. rlx_chat_apply gets random templates (random bytes, or a family name or marker
   spliced in), random roles and contents and a random cap: it must never crash, never write past cap, and a
   success must leave a NUL-terminated prompt of the reported length. Stop matchers get random stop strings and
   pieces; what they return plus what they hold must be exactly the text fed (until a match). Sampler chains get
   random stages and parameters (NaN, inf, huge, negative) and logits taken from the input's bits: every call
   returns a result code, and a token, when one is returned, is in range. Any ASan/UBSan report, or a broken
   contract, stops it.

   Input: byte 0 picks the part (chat, stop, sampler), the rest is split at 0xFF bytes into strings.
       make fuzz-chat [FUZZ_SECONDS=60]
   RLX_FUZZ_STANDALONE builds a replayer: fuzz_chat FILE... */
#ifndef RLX_TEST_SHARED_IMPL   /* the Makefile links one instrumented implementation (tests/rlx_impl.c) */
#define RLX_IMPLEMENTATION
#endif
#include "../../rlx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FC_MAXS 16

static void fc_fail(const char* what) {
    fprintf(stderr, "fuzz_chat: %s (%s)\n", what, rlx_gen_error());
    abort();
}

/* Splits data at 0xFF into up to FC_MAXS NUL-terminated strings copied into buf (NUL bytes of the input end a
   string early, as C strings do). */
static int fc_split(const uint8_t* d, size_t n, char* buf, char** s) {
    int k = 0;
    size_t i, start = 0;
    memcpy(buf, d, n);
    buf[n] = 0;
    for (i = 0; i <= n && k < FC_MAXS; i++) {
        if (i == n || d[i] == 0xFF) {
            buf[i] = 0;
            s[k++] = buf + start;
            start = i + 1;
        }
    }
    return k;
}

static void fc_chat(uint8_t sel, char** s, int ns) {
    static const char* const names[] = {"chatml", "llama2", "llama2-sys", "llama2-sys-bos", "llama2-sys-strip",
        "mistral-v1", "mistral-v3", "mistral-v3-tekken", "mistral-v7", "mistral-v7-tekken", "phi3", "phi4", "falcon3",
        "zephyr", "gemma", "llama3", "llama4", "glmedge", "command-r", "<|im_start|>", "[INST] <<SYS>>", "<start_of_turn>",
        "<|start_header_id|><|end_header_id|>", "<|assistant|><|end|>", "[SYSTEM_PROMPT]", "mistral"};
    static const char* const roles[] = {"system", "user", "assistant", "model", "tool"};
    rlx_chat_message m[FC_MAXS];
    char out[512];
    size_t cap = (size_t)(sel % 7) * 80, need = 0, i;
    const char* tmpl = sel & 0x80 ? (ns > 0 ? s[0] : "") : names[(sel >> 3) % (sizeof names / sizeof names[0])];
    int32_t n = 0, k;
    rlx_result r;
    for (k = 1; k + 1 < ns; k += 2) {
        m[n].role = (s[k][0] & 1) ? roles[(unsigned char)s[k][0] % 5] : s[k];
        m[n].content = s[k + 1];
        n++;
    }
    memset(out, 0x5A, sizeof out);
    r = rlx_chat_apply(tmpl, m, n, sel & 0x40, cap ? out : NULL, cap, &need);
    for (i = cap; i < sizeof out; i++) if ((unsigned char)out[i] != 0x5A) fc_fail("chat: wrote past cap");
    if (r == RLX_OK && cap) {
        if (need >= cap || out[need] != 0) fc_fail("chat: success without the prompt and a NUL inside cap");
    }
    if (r != RLX_OK && r != RLX_ERROR_SIZE && r != RLX_ERROR_UNSUPPORTED) fc_fail("chat: unexpected result");
    if (r == RLX_OK && cap && strlen(out) != need) fc_fail("chat: the prompt's length is not *needed");
}

static void fc_stop(uint8_t sel, char** s, int ns, const uint8_t* raw, size_t nraw) {
    rlx_stop_desc sd;
    rlx_stop_matcher* sm = NULL;
    const char* stops[4];
    int nst = 0, k;
    size_t pos = 0, shown = 0, got;
    int32_t hit = -1;
    char out[4200];
    int too_long = 0;
    for (k = 0; k < ns && nst < 4; k++) if (s[k][0]) { too_long |= strlen(s[k]) > 4096; stops[nst++] = s[k]; }
    memset(&sd, 0, sizeof sd);
    sd.stops = stops;
    sd.n_stops = nst;
    if (rlx_stop_create(&sd, &sm) != RLX_OK) {
        if (nst > 0 && !too_long) fc_fail("stop: create refused valid stops");
        return;
    }
    while (pos < nraw && hit < 0) {
        size_t len = 1 + (size_t)((sel + pos) % 9);
        size_t held = rlx_stop_held(sm);
        if (len > nraw - pos) len = nraw - pos;
        if (rlx_stop_feed(sm, (const char*)raw + pos, len, out, sizeof out, &got, &hit) != RLX_OK) fc_fail("stop: feed failed");
        if (got > held + len) fc_fail("stop: returned more than held + piece");
        shown += got;
        pos += len;
        if (hit < 0 && shown + rlx_stop_held(sm) != pos) fc_fail("stop: shown + held is not the text fed");
    }
    if (hit < 0 && rlx_stop_flush(sm, out, sizeof out, &got) != RLX_OK) fc_fail("stop: flush failed");
    rlx_stop_destroy(sm);
}

static void fc_sampler(uint8_t sel, const uint8_t* d, size_t n) {
    rlx_sampler_stage st[6];
    rlx_logit_bias lb[4];
    rlx_sampler_chain_desc cd;
    rlx_sampler_chain* ch = NULL;
    float logits[64];
    rlx_token_prob tp[64];
    int32_t nv = 1 + (int32_t)(sel % 64), ns = 0, i, tok, nout;
    size_t off = 0;
    uint32_t u;
#define FC_U32() (off + 4 <= n ? (memcpy(&u, d + off, 4), off += 4, u) : (uint32_t)(off++ * 2654435761u))
#define FC_F32() (u = FC_U32(), *(float*)memcpy(&f_, &u, 4))
    float f_;
    for (i = 0; i < 4; i++) { lb[i].token = (int32_t)(FC_U32() % 80u) - 8; lb[i].bias = FC_F32(); }
    while (ns < 6 && off < n) {
        uint32_t t = FC_U32();
        rlx_sampler_stage* s = &st[ns++];
        memset(s, 0, sizeof *s);
        s->type = (rlx_sampler_type)(t % 11u);
        s->value = FC_F32();
        s->k = (int32_t)FC_U32() % 80;
        s->min_keep = (int32_t)(FC_U32() % 8u) - 1;
        s->last_n = (int32_t)(FC_U32() % 40u) - 2;
        s->repeat = (t & 0x100) ? FC_F32() : 1.1f;
        s->freq = (t & 0x200) ? FC_F32() : 0.1f;
        s->present = (t & 0x400) ? FC_F32() : 0.2f;
        s->biases = lb;
        s->n_biases = (int32_t)((t >> 12) % 5u);
        s->seed = t;
        if (t & 0x800) {   /* mostly sane values, so that more calls get past validation */
            s->value = (float)(t % 1000u) / 500.0f;
            for (i = 0; i < 4; i++) { lb[i].token = (int32_t)((uint32_t)lb[i].token % (uint32_t)nv); if (lb[i].bias != lb[i].bias) lb[i].bias = -1.0f; }
        }
    }
    for (i = 0; i < nv; i++) logits[i] = (sel & 1) ? FC_F32() : (float)(int32_t)(FC_U32() % 2001u) / 100.0f - 10.0f;
    memset(&cd, 0, sizeof cd);
    cd.n_vocab = nv;
    cd.stages = st;
    cd.n_stages = ns;
    if (rlx_sampler_chain_create(&cd, &ch) != RLX_OK) return;
    for (i = 0; i < 6; i++) {
        rlx_result r = rlx_sampler_sample(ch, logits, nv, &tok);
        if (r == RLX_OK && (tok < 0 || tok >= nv)) fc_fail("sampler: token out of range");
        if (r == RLX_OK && rlx_sampler_accept(ch, tok) != RLX_OK) fc_fail("sampler: accept of a sampled token failed");
        r = rlx_sampler_apply(ch, logits, nv, tp, 64, &nout);
        if (r == RLX_OK && (nout < 1 || nout > nv)) fc_fail("sampler: survivor count out of range");
        if (r == RLX_OK) {
            int32_t j;
            for (j = 0; j < nout; j++) if (tp[j].id < 0 || tp[j].id >= nv) fc_fail("sampler: survivor id out of range");
        }
        logits[i % nv] = -logits[i % nv];
    }
    rlx_sampler_reset(ch);
    rlx_sampler_chain_destroy(ch);
#undef FC_U32
#undef FC_F32
}

static void fc_run(const uint8_t* data, size_t size) {
    char* buf;
    char* s[FC_MAXS];
    int ns;
    if (size < 2 || size > 65536) return;
    buf = (char*)malloc(size);
    if (!buf) return;
    ns = fc_split(data + 2, size - 2, buf, s);
    switch (data[0] % 3) {
    case 0: fc_chat(data[1], s, ns); break;
    case 1: fc_stop(data[1], s, ns, data + 2, size - 2); break;
    default: fc_sampler(data[1], data + 2, size - 2); break;
    }
    free(buf);
}

#if defined(RLX_FUZZ_STANDALONE)
int main(int argc, char** argv) {
    int i;
    for (i = 1; i < argc; i++) {
        FILE* f = fopen(argv[i], "rb");
        static uint8_t buf[65536];
        size_t n;
        if (!f) continue;
        n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        fc_run(buf, n);
    }
    printf("fuzz_chat: replayed %d inputs\n", argc - 1);
    return 0;
}
#else
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    fc_run(data, size);
    return 0;
}
#endif
