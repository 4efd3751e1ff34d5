/* llm.c - run a GGUF language model: tokenize, prefill, sample, stream text.

       build/examples/llm -m model.gguf -p "prompt" [-n 128] [--device cpu|cuda|vulkan] [--chat]
                          [--temp 0.8] [--top-k 40] [--top-p 0.95] [--min-p 0.05] [--repeat 1.1] [--seed 1]
                          [-t threads] [-c context] [--stop STRING]...
       build/examples/llm -m hf_folder --tokenizer tokenizer.gguf -p "prompt" ...

   -m names a GGUF file or a Hugging Face folder (config.json + model.safetensors or a sharded index: llama,
   qwen2, qwen3). A folder's tokenizer is its tokenizer.json (+ tokenizer_config.json, whose chat template
   --chat uses), or --tokenizer names a GGUF file with the tokenizer metadata instead.

   --temp 0 (the default) picks the most likely token (greedy). --chat wraps the prompt as one user turn in the
   model's chat template (tokenizer.chat_template, recognised by family; the family name is printed). Text is
   streamed as it is generated; a multi-byte character split over tokens is printed once complete, and text
   that might be the start of a stop string is held back until it is known not to be one. Generation ends at
   -n tokens, an end-of-generation token, a stop string or a full context. The last lines give the prefill and
   decode speeds in tokens per second. */
#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 199309L /* clock_gettime under -std=c99 */
#endif
#define RLX_IMPLEMENTATION
#include "../rlx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(_WIN32)
static double now_s(void) {
    LARGE_INTEGER f, c;
    QueryPerformanceFrequency(&f);
    QueryPerformanceCounter(&c);
    return (double)c.QuadPart / (double)f.QuadPart;
}
#else
static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
#endif

static void usage(const char* argv0) {
    fprintf(stderr, "usage: %s -m model.gguf -p \"prompt\" [-n 128] [--device cpu|cuda|vulkan] [--chat] [--temp T]\n"
                    "       [--top-k K] [--top-p P] [--min-p P] [--repeat R] [--seed S] [-t threads] [-c context]\n"
                    "       [--stop STRING]...\n"
                    "       -m HF_FOLDER [--tokenizer TOKENIZER.gguf]: a Hugging Face folder (config.json + safetensors,\n"
                    "       tokenizer.json)\n", argv0);
}

int main(int argc, char** argv) {
    const char *model = NULL, *prompt = NULL, *stops[16], *tok_path = NULL;
    int folder = 0, own_tok = 1;
    int n_predict = 128, chat = 0, top_k = 0, threads = 0, n_ctx = 0, n_stops = 0, i;
    float temp = 0.0f, top_p = 1.0f, min_p = 0.0f, repeat = 1.0f;
    unsigned long long seed = 1;
    rlx_device device = RLX_DEVICE_AUTO;
    char err[1024] = "", *text = NULL, out[4096];
    rlx_gguf* gf = NULL;
    rlx_tokenizer* tok = NULL;
    rlx_llm* llm = NULL;
    rlx_sampler_chain* chain = NULL;
    rlx_stop_matcher* stop = NULL;
    int32_t* ids = NULL;
    float* logits = NULL;
    size_t n_ids = 0, n_out = 0;
    int rc = 1, n_gen = 0, n_vocab;
    double t0, t_prefill = 0, t_decode = 0;

    if (argc <= 1) {   /* no arguments: say how to use it (not an error) */
        usage(argv[0]);
        return 0;
    }
    for (i = 1; i < argc; i++) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--chat")) { chat = 1; continue; }
        if (!v) { usage(argv[0]); return 2; }
        if (!strcmp(a, "-m")) model = v;
        else if (!strcmp(a, "-p")) prompt = v;
        else if (!strcmp(a, "--tokenizer")) tok_path = v;
        else if (!strcmp(a, "-n")) n_predict = atoi(v);
        else if (!strcmp(a, "-t")) threads = atoi(v);
        else if (!strcmp(a, "-c")) n_ctx = atoi(v);
        else if (!strcmp(a, "--temp")) temp = (float)atof(v);
        else if (!strcmp(a, "--top-k")) top_k = atoi(v);
        else if (!strcmp(a, "--top-p")) top_p = (float)atof(v);
        else if (!strcmp(a, "--min-p")) min_p = (float)atof(v);
        else if (!strcmp(a, "--repeat")) repeat = (float)atof(v);
        else if (!strcmp(a, "--seed")) seed = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--stop")) { if (n_stops < 16) stops[n_stops++] = v; }
        else if (!strcmp(a, "--device")) {
            if (!strcmp(v, "cpu")) device = RLX_DEVICE_CPU;
            else if (!strcmp(v, "cuda")) device = RLX_DEVICE_CUDA;
            else if (!strcmp(v, "vulkan")) device = RLX_DEVICE_VULKAN;
            else if (!strcmp(v, "hip")) device = RLX_DEVICE_HIP;
            else { fprintf(stderr, "unknown device %s\n", v); return 2; }
        } else { usage(argv[0]); return 2; }
        i++;
    }
    if (!model || !prompt) { usage(argv[0]); return 2; }

    /* a folder holds config.json */
    {
        char cfg[4096];
        FILE* f;
        snprintf(cfg, sizeof cfg, "%s/config.json", model);
        if ((f = fopen(cfg, "rb")) != NULL) { folder = 1; fclose(f); }
    }

    /* the file (or the tokenizer's), its tokenizer and the model (weights used in place from the mapping on the CPU);
       a folder without --tokenizer uses the model's own, read from its tokenizer.json */
    if ((!folder || tok_path) && rlx_gguf_open_file(folder ? tok_path : model, NULL, &gf) != RLX_OK) {
        fprintf(stderr, "%s: %s\n", folder ? tok_path : model, rlx_file_error());
        return 1;
    }
    if (gf) {
        rlx_tokenizer_desc td;
        memset(&td, 0, sizeof td);
        td.error = err;
        td.error_cap = sizeof err;
        if (rlx_tokenizer_from_gguf(gf, &td, &tok) != RLX_OK) { fprintf(stderr, "tokenizer: %s\n", err); goto done; }
    }
    {
        rlx_llm_desc ld;
        rlx_llm_info info;
        memset(&ld, 0, sizeof ld);
        ld.device = device;
        ld.n_ctx = n_ctx;
        ld.num_threads = threads;
        ld.error = err;
        ld.error_cap = sizeof err;
        ld.no_tokenizer = tok != NULL;   /* --tokenizer given: the folder's tokenizer.json is not read */
        if ((folder ? rlx_llm_load_hf(model, &ld, &llm) : rlx_llm_load_gguf(gf, &ld, &llm)) != RLX_OK) { fprintf(stderr, "model: %s\n", err); goto done; }
        memset(&info, 0, sizeof info);
        if (rlx_llm_info_get(llm, &info) != RLX_OK || !info.arch_name) { fprintf(stderr, "model: no info\n"); goto done; }
        fprintf(stderr, "%s: %d layers, d %d, %d/%d heads, vocab %d, context %d, on %s\n", info.arch_name,
                info.n_layer, info.n_embd, info.n_head, info.n_head_kv, info.n_vocab, info.n_ctx,
                rlx_device_name(info.device));
    }
    n_vocab = rlx_llm_n_vocab(llm);
    if (!tok) {
        own_tok = 0;
        if (!(tok = rlx_llm_tokenizer(llm))) { fprintf(stderr, "%s has no tokenizer.json: give a tokenizer GGUF with --tokenizer\n", model); goto done; }
    }

    /* the prompt, as a chat turn if asked */
    if (chat) {
        const char* tmpl = NULL;
        rlx_chat_message msg;
        size_t need = 0;
        tmpl = rlx_tokenizer_chat_template(tok);   /* tokenizer.chat_template, or tokenizer_config.json's */
        msg.role = "user";
        msg.content = prompt;
        if (rlx_chat_apply(tmpl, &msg, 1, 1, NULL, 0, &need) != RLX_OK && need == 0) {
            fprintf(stderr, "chat template: %s\n", rlx_gen_error());
            goto done;
        }
        text = (char*)malloc(need + 1);
        if (!text || rlx_chat_apply(tmpl, &msg, 1, 1, text, need + 1, NULL) != RLX_OK) { fprintf(stderr, "chat template: %s\n", rlx_gen_error()); goto done; }
        {
            const char* fam = rlx_chat_template_family(tmpl);
            fprintf(stderr, "chat template: %s\n", fam ? fam : "?");
        }
    } else {
        text = (char*)malloc(strlen(prompt) + 1);
        if (!text) goto done;
        strcpy(text, prompt);
    }
    if (rlx_tokenize(tok, text, strlen(text), RLX_TOKENIZE_ADD_SPECIAL | RLX_TOKENIZE_PARSE_SPECIAL, NULL, 0, &n_ids) != RLX_ERROR_SIZE && n_ids == 0) {
        fprintf(stderr, "tokenize: %s\n", rlx_tokenizer_error(tok));
        goto done;
    }
    ids = (int32_t*)malloc(sizeof(int32_t) * (n_ids + 1));
    logits = (float*)malloc(sizeof(float) * (size_t)n_vocab);
    if (!ids || !logits || rlx_tokenize(tok, text, strlen(text), RLX_TOKENIZE_ADD_SPECIAL | RLX_TOKENIZE_PARSE_SPECIAL, ids, n_ids + 1, &n_ids) != RLX_OK) {
        fprintf(stderr, "tokenize: %s\n", rlx_tokenizer_error(tok));
        goto done;
    }
    if (n_ids == 0) { fprintf(stderr, "the prompt gives no tokens\n"); goto done; }

    /* the sampler chain: penalties, then greedy, or temperature with the filters and a seeded draw */
    {
        rlx_sampler_stage st[8];
        rlx_sampler_chain_desc cd;
        int ns = 0;
        if (repeat != 1.0f) st[ns++] = rlx_sampler_penalties(64, repeat, 0.0f, 0.0f);
        if (temp <= 0.0f) st[ns++] = rlx_sampler_greedy();
        else {
            if (top_k > 0) st[ns++] = rlx_sampler_top_k(top_k);
            if (top_p < 1.0f) st[ns++] = rlx_sampler_top_p(top_p, 1);
            if (min_p > 0.0f) st[ns++] = rlx_sampler_min_p(min_p, 1);
            st[ns++] = rlx_sampler_temp(temp);
            st[ns++] = rlx_sampler_dist(seed);
        }
        memset(&cd, 0, sizeof cd);
        cd.n_vocab = n_vocab;
        cd.stages = st;
        cd.n_stages = ns;
        if (rlx_sampler_chain_create(&cd, &chain) != RLX_OK) { fprintf(stderr, "sampler: %s\n", rlx_gen_error()); goto done; }
        for (i = 0; i < (int)n_ids; i++) rlx_sampler_accept(chain, ids[i]);
    }
    if (n_stops > 0) {
        rlx_stop_desc sd;
        memset(&sd, 0, sizeof sd);
        sd.stops = stops;
        sd.n_stops = n_stops;
        if (rlx_stop_create(&sd, &stop) != RLX_OK) { fprintf(stderr, "stop strings: %s\n", rlx_gen_error()); goto done; }
    }

    /* prefill, then one token at a time */
    fputs(chat ? "" : prompt, stdout);
    fflush(stdout);
    t0 = now_s();
    if (rlx_llm_eval(llm, ids, (int)n_ids, logits) != RLX_OK) { fprintf(stderr, "\nprefill: %s\n", rlx_llm_error(llm)); goto done; }
    t_prefill = now_s() - t0;
    {
        rlx_token_stream ts;
        memset(&ts, 0, sizeof ts);
        while (n_gen < n_predict) {
            int32_t next = 0, hit = -1;
            if (rlx_sampler_sample(chain, logits, n_vocab, &next) != RLX_OK) { fprintf(stderr, "\nsample: %s\n", rlx_gen_error()); goto done; }
            rlx_sampler_accept(chain, next);
            n_gen++;
            if (rlx_tokenizer_is_eog(tok, next)) break;
            if (rlx_token_stream_push(tok, &ts, next, 0, out, sizeof out, &n_out) == RLX_OK && n_out) {
                if (stop) {
                    char shown[8192];
                    size_t ns = 0;
                    if (rlx_stop_feed(stop, out, n_out, shown, sizeof shown, &ns, &hit) == RLX_OK) fwrite(shown, 1, ns, stdout);
                } else fwrite(out, 1, n_out, stdout);
                fflush(stdout);
            }
            if (hit >= 0) break;
            if (rlx_llm_pos(llm) >= rlx_llm_n_ctx(llm)) { fprintf(stderr, "\n[context full]"); break; }
            t0 = now_s();
            if (rlx_llm_eval(llm, &next, 1, logits) != RLX_OK) { fprintf(stderr, "\ndecode: %s\n", rlx_llm_error(llm)); goto done; }
            t_decode += now_s() - t0;
        }
        if (rlx_token_stream_flush(&ts, out, sizeof out, &n_out) == RLX_OK && n_out) {
            if (stop) {
                char shown[8192];
                size_t ns = 0;
                int32_t hit = -1;
                if (rlx_stop_feed(stop, out, n_out, shown, sizeof shown, &ns, &hit) == RLX_OK) fwrite(shown, 1, ns, stdout);
            } else fwrite(out, 1, n_out, stdout);
        }
        if (stop && rlx_stop_flush(stop, out, sizeof out, &n_out) == RLX_OK) fwrite(out, 1, n_out, stdout);
    }
    printf("\n");
    fprintf(stderr, "prefill: %zu tokens in %.3f s (%.1f tokens/s)\n", n_ids, t_prefill, t_prefill > 0 ? n_ids / t_prefill : 0.0);
    fprintf(stderr, "decode:  %d tokens in %.3f s (%.1f tokens/s)\n", n_gen > 1 ? n_gen - 1 : 0, t_decode,
            t_decode > 0 ? (n_gen - 1) / t_decode : 0.0);
    rc = 0;
done:
    free(logits);
    free(ids);
    free(text);
    rlx_stop_destroy(stop);
    rlx_sampler_chain_destroy(chain);
    if (own_tok) rlx_tokenizer_destroy(tok);
    rlx_llm_destroy(llm);
    rlx_gguf_close(gf);
    return rc;
}
