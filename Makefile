# rlx.h: build examples, tests and benchmarks; run the test suites.
#
#   make / make all   build examples and tests into build/
#   make run          build and run examples/mlp.c
#   make test         compile matrix (gcc, clang; C99, C++11; RLX_STATIC; RLX_NO_SIMD+RLX_NO_THREADS) beside every
#                     tests/test_*.c at -O2 (those with their own implementation at -O0; TEST_JOBS at a time); the
#                     last line is `N passed, N failed, N skipped`
#   make asan         the test programs under AddressSanitizer + UndefinedBehaviorSanitizer (leaks included)
#   make asan32       the hostile-input tests (test_hardening, test_fuzz_regress, test_api, test_gguf,
#                     test_safetensors) as 32-bit programs under ASan + UBSan (clang -m32; Debian: gcc-multilib,
#                     libclang-rt-14-dev)
#   make portability  tests and examples with tcc, MinGW-w64 under wine, aarch64 under qemu-user and gcc -m32
#                     (.ci/portability.sh; the toolchains it needs are listed at its top)
#   make bench        build and run bench/*.c
#   make examples     build examples/*.c
#   make fuzz         build the API fuzzer (tests/fuzz/fuzz_api.c, clang + libFuzzer + ASan/UBSan) and run it for
#                     FUZZ_SECONDS (default 60) over a copy of the seed corpus; findings land in build/fuzz/
#                     (FUZZ_M32=1: a 32-bit fuzzer, in build/fuzz32/)
#   make fuzz-gguf, make fuzz-safetensors   the weight-file fuzzers (tests/fuzz/fuzz_gguf.c, fuzz_safetensors.c),
#                     the same way, from tests/fuzz/corpus_gguf and corpus_safetensors
#   make fuzz-quant   the quantized-dtype fuzzer (tests/fuzz/fuzz_quant.c) for FUZZ_SECONDS
#   make fuzz-chat    the chat-template / stop-string / sampler fuzzer (tests/fuzz/fuzz_chat.c) for FUZZ_SECONDS
#   make fuzz-llm     the language-model builder fuzzer (tests/fuzz/fuzz_llm.c) for FUZZ_SECONDS
#   make fuzz-tok     the tokenizer fuzzer (tests/fuzz/fuzz_tok.c) for FUZZ_SECONDS
#   make fuzz-hf      the Hugging Face folder fuzzer (tests/fuzz/fuzz_hf.c: config.json, tokenizer.json) for FUZZ_SECONDS
#   make fuzz-autodiff  the training fuzzer (tests/fuzz/fuzz_autodiff.c: rlx_grad, optimizers) for FUZZ_SECONDS
#   make fuzz-autodiff-more  the gradient-rule fuzzer (tests/fuzz/fuzz_autodiff_more.c: rope, grouped conv,
#                     conv_transpose, attention with kv_len, resize, pooling against central differences)
#   make fuzz-replay FUZZ_INPUT=FILE_OR_DIR   replay inputs under ASan/UBSan without libFuzzer, printing the calls
#   make fuzz-seeds   regenerate tests/fuzz/corpus with tests/fuzz/make_seeds.c
#   make fuzz-onnx    build the ONNX loader fuzzer (tests/fuzz/fuzz_onnx.c) and run it for FUZZ_SECONDS over the seeds
#                     of tests/fuzz/onnx_corpus and the small ONNX node-test models (libonnx-testdata)
#   make fuzz-onnx-seeds   regenerate tests/fuzz/onnx_corpus with tests/fuzz/make_onnx_seeds.c
#   make kernels      embed compiled GPU kernels into rlx_kernels_spv.h / rlx_kernels_ptx.h (with the HIP sources)
#   make clean

CC ?= cc
CFLAGS ?= -O2 -g
WARNINGS = -Wall -Wextra
LDLIBS = -lm -lpthread -ldl
BUILD = build

TEST_CFLAGS = -O2 -g
ASAN_CFLAGS = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer
# (test_hip compiles one kernel module for one AMD target under the sanitizers instead of every module for three:
# the host code is the same; `make test` compiles them all)
ASAN_ENV = UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
    RLX_TEST_HIP_ARCHS=gfx90a RLX_TEST_HIP_MODULES=matmul
BENCH_CFLAGS = -O3 -g
# Parallel builds of the test programs in `make test`, `make asan` and `make asan32` (each compiles all of rlx.h).
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# Test programs run side by side in `make test`, `make asan` and `make asan32`: JOBS, at most 4 (each program
# starts its own worker threads, and some take a gigabyte or more).
TEST_JOBS ?= $(shell j=$(JOBS); [ "$$j" -gt 4 ] 2>/dev/null && j=4; echo $$j)

EXAMPLES := $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/*.c))
BENCHES := $(patsubst bench/%.c,$(BUILD)/bench/%,$(wildcard bench/*.c))
TEST_NAMES := $(patsubst tests/%.c,%,$(wildcard tests/test_*.c))
TESTS := $(TEST_NAMES:%=$(BUILD)/tests/%)
ASAN_TESTS := $(TEST_NAMES:%=$(BUILD)/asan/%)

SUMMARIZE = sh tests/summarize.sh

# Mesa's lavapipe compiles each kernel with LLVM on first use, which can take tens of seconds on a loaded
# machine: the tests give a Vulkan run ten minutes before it counts as a lost device (default: one minute).
export RLX_VULKAN_TIMEOUT_MS ?= 600000

.PHONY: all examples tests asan-tests run test asan asan32 asan32-run portability bench kernels kernels-spv kernels-check clean fuzz fuzz-replay fuzz-seeds fuzz-gguf fuzz-safetensors fuzz-onnx fuzz-onnx-seeds fuzz-quant fuzz-chat fuzz-llm fuzz-tok fuzz-hf fuzz-autodiff

all: examples tests

examples: $(EXAMPLES)
tests: $(TESTS)
asan-tests: $(ASAN_TESTS)

$(BUILD)/examples/%: examples/%.c rlx.h examples/transformer_model.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARNINGS) -I. -o $@ $< $(LDLIBS)

$(BUILD)/bench/%: bench/%.c rlx.h examples/transformer_model.h
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) $(WARNINGS) -I. -o $@ $< $(LDLIBS)

# A test that fails to build must not leave an older binary behind (it would be run instead).
# A test whose `#define RLX_IMPLEMENTATION` is guarded by RLX_TEST_SHARED_IMPL links the implementation compiled
# once (tests/rlx_impl.c: most of a test's build time is rlx.h's implementation); the others compile their own.
# OWN_IMPL_OPT: the optimisation of the tests that compile their own implementation: -O0 (a third of -O2's compile
# time; these tests run little code, and the -O2 build of all of rlx.h with gcc's optimisation-dependent warnings
# is the compile matrix's and tests/rlx_impl.c's); it follows TEST_CFLAGS / ASAN_CFLAGS, so it wins.
OWN_IMPL_OPT = -O0
SHARED_IMPL = if grep -q RLX_TEST_SHARED_IMPL $<; then set -- -DRLX_TEST_SHARED_IMPL $< $(@D)/rlx_impl.o; else set -- $(OWN_IMPL_OPT) $<; fi
$(BUILD)/tests/rlx_impl.o: tests/rlx_impl.c rlx.h rlx_kernels_spv.h rlx_kernels_ptx.h
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $(WARNINGS) -I. -c -o $@ $<
$(BUILD)/tests/%: tests/%.c rlx.h rlx_kernels_spv.h rlx_kernels_ptx.h tests/harness.h tests/onnx_pbw.h examples/transformer_model.h $(BUILD)/tests/rlx_impl.o
	@mkdir -p $(@D)
	@rm -f $@
	@$(SHARED_IMPL); echo "$(CC) $(TEST_CFLAGS) $(WARNINGS) -I. -Itests -o $@ $$* $(LDLIBS)"; \
	$(CC) $(TEST_CFLAGS) $(WARNINGS) -I. -Itests -o $@ "$$@" $(LDLIBS)

# test_vk_f32math compiles the GLSL math in C, and runs tests/vk_f32math.comp (SPIR-V as numbers from glslc;
# a lone 0 without glslc, and the Vulkan part skips) on a Vulkan device
$(BUILD)/tests/test_vk_f32math $(BUILD)/asan/test_vk_f32math: kernels/vulkan/math_f32.glsl $(BUILD)/gen/vk_f32math_spv.h
$(BUILD)/tests/test_vk_f32math: TEST_CFLAGS += -I$(BUILD)/gen
$(BUILD)/asan/test_vk_f32math: ASAN_CFLAGS += -I$(BUILD)/gen
$(BUILD)/gen/vk_f32math_spv.h: tests/vk_f32math.comp kernels/vulkan/math_f32.glsl
	@mkdir -p $(@D)
	@if command -v glslc >/dev/null 2>&1; then glslc --target-env=vulkan1.1 -O -Werror -Ikernels/vulkan -mfmt=num \
	    $< -o $@.tmp && mv $@.tmp $@; else echo 0 > $@; fi

$(BUILD)/asan/rlx_impl.o: tests/rlx_impl.c rlx.h rlx_kernels_spv.h rlx_kernels_ptx.h
	@mkdir -p $(@D)
	$(CC) $(ASAN_CFLAGS) $(WARNINGS) -I. -c -o $@ $<
$(BUILD)/asan/%: tests/%.c rlx.h rlx_kernels_spv.h rlx_kernels_ptx.h tests/harness.h tests/onnx_pbw.h examples/transformer_model.h $(BUILD)/asan/rlx_impl.o
	@mkdir -p $(@D)
	@rm -f $@
	@$(SHARED_IMPL); echo "$(CC) $(ASAN_CFLAGS) $(WARNINGS) -I. -Itests -o $@ $$* $(LDLIBS)"; \
	$(CC) $(ASAN_CFLAGS) $(WARNINGS) -I. -Itests -o $@ "$$@" $(LDLIBS)

# test_ocr runs the example program (examples/ocr.c) on rendered images
$(BUILD)/tests/test_ocr $(BUILD)/asan/test_ocr: $(BUILD)/examples/ocr
# the regression replay test includes the fuzzer
$(BUILD)/tests/test_fuzz_regress $(BUILD)/asan/test_fuzz_regress: tests/fuzz/fuzz_api.c tests/fuzz/fuzz_ops.h
$(BUILD)/tests/test_onnx $(BUILD)/asan/test_onnx: tests/fuzz/fuzz_onnx.c
# the Vulkan feature tests' environment helpers
$(BUILD)/tests/test_vk_narrow $(BUILD)/asan/test_vk_narrow $(BUILD)/tests/test_vk_features $(BUILD)/asan/test_vk_features: tests/vk_env.h
# random quantized weight blocks shared by two quant tests
$(BUILD)/tests/test_quant_act $(BUILD)/asan/test_quant_act $(BUILD)/tests/test_quant_gemv $(BUILD)/asan/test_quant_gemv: tests/quant_blocks.h
# the language-model tests open llama.cpp's libllama through one shared header
$(BUILD)/tests/test_llm $(BUILD)/asan/test_llm $(BUILD)/tests/test_llm_hf $(BUILD)/asan/test_llm_hf: tests/llama_ffi.h
# the tokenizer test converts tokenizer.json files with the converter tool (included)
$(BUILD)/tests/test_tok $(BUILD)/asan/test_tok: tests/tok_to_gguf.c
# the Hugging Face tokenizer test: the converter tool and the libllama oracle
$(BUILD)/tests/test_llm_hf_tok $(BUILD)/asan/test_llm_hf_tok: tests/tok_to_gguf.c tests/llama_ffi.h

# ---- API fuzzer (needs clang with libFuzzer: clang 14 + libclang-rt-14-dev or newer) ----
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_COMMON = -g -O1 -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS = -fsanitize=fuzzer,address,undefined $(FUZZ_COMMON)
FUZZ_ARGS ?= -rss_limit_mb=2048 -timeout=10 -max_len=2048 -dict=tests/fuzz/fuzz.dict
FUZZ_ENV = UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1
REPLAY_CC ?= $(CC)
# FUZZ_M32=1: a 32-bit fuzzer (32-bit size_t), in build/fuzz32
FUZZ_DIR = $(BUILD)/fuzz$(if $(FUZZ_M32),32)
# The fuzzers but fuzz_tok link one implementation compiled with the fuzzer's coverage instrumentation and
# sanitizers (tests/rlx_impl.c; each harness guards its RLX_IMPLEMENTATION with RLX_TEST_SHARED_IMPL): the
# implementation is most of a fuzzer's build time (minutes), so it is compiled once per word size.
FUZZ_IMPL = $(FUZZ_DIR)/rlx_impl.o
FUZZ_IMPL_CFLAGS = -fsanitize=fuzzer-no-link,address,undefined $(FUZZ_COMMON)
$(FUZZ_DIR)/rlx_impl.o: tests/rlx_impl.c rlx.h rlx_kernels_spv.h rlx_kernels_ptx.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(if $(FUZZ_M32),-m32) $(FUZZ_IMPL_CFLAGS) -I. -c -o $@ $<
# every fuzzer binary (CI builds them before the time-bound runs: make -j2 fuzz-build)
FUZZ_TARGETS = fuzz_api fuzz_gguf fuzz_safetensors fuzz_onnx fuzz_quant fuzz_chat fuzz_autodiff fuzz_autodiff_more \
    fuzz_tok fuzz_llm fuzz_hf
.PHONY: fuzz-build
fuzz-build: $(FUZZ_TARGETS:%=$(FUZZ_DIR)/%)
# one fuzzer from its harness (the first prerequisite) and the shared implementation
FUZZ_LINK = $(FUZZ_CC) $(if $(FUZZ_M32),-m32) $(FUZZ_CFLAGS) -DRLX_TEST_SHARED_IMPL -I. -o $@ $< $(FUZZ_IMPL) $(LDLIBS)

$(FUZZ_DIR)/fuzz_api: tests/fuzz/fuzz_api.c tests/fuzz/fuzz_ops.h rlx.h $(FUZZ_IMPL)
	@mkdir -p $(@D)
	$(FUZZ_LINK)

$(BUILD)/fuzz/fuzz_replay: tests/fuzz/fuzz_api.c tests/fuzz/fuzz_ops.h rlx.h
	@mkdir -p $(@D)
	$(REPLAY_CC) $(ASAN_CFLAGS) -DRLX_FUZZ_STANDALONE -I. -o $@ tests/fuzz/fuzz_api.c $(LDLIBS)

# The seed corpus is copied so that the fuzzer's additions stay out of the source tree; regression inputs are
# replayed by tests/test_fuzz_regress.c instead (one that still fails would stop the fuzzer at once).
fuzz: $(FUZZ_DIR)/fuzz_api
	@rm -rf $(FUZZ_DIR)/corpus && mkdir -p $(FUZZ_DIR)/corpus $(FUZZ_DIR)/artifacts
	@cp tests/fuzz/corpus/* $(FUZZ_DIR)/corpus/
	$(FUZZ_ENV) ./$(FUZZ_DIR)/fuzz_api $(FUZZ_ARGS) -max_total_time=$(FUZZ_SECONDS) \
		-artifact_prefix=$(FUZZ_DIR)/artifacts/ $(FUZZ_DIR)/corpus

# The weight-file fuzzers (GGUF and safetensors readers and writers): the same flags and FUZZ_SECONDS/FUZZ_M32,
# inputs up to 64 KiB, seeds from tests/fuzz/corpus_gguf and tests/fuzz/corpus_safetensors (copied).
WEIGHT_FUZZ_ARGS ?= -rss_limit_mb=2048 -timeout=10 -max_len=65536
$(FUZZ_DIR)/fuzz_gguf $(FUZZ_DIR)/fuzz_safetensors: $(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_weights.h rlx.h $(FUZZ_IMPL)
	@mkdir -p $(@D)
	$(FUZZ_LINK)

fuzz-gguf fuzz-safetensors: fuzz-%: $(FUZZ_DIR)/fuzz_%
	@rm -rf $(FUZZ_DIR)/corpus_$* && mkdir -p $(FUZZ_DIR)/corpus_$* $(FUZZ_DIR)/artifacts_$*
	@cp tests/fuzz/corpus_$*/* $(FUZZ_DIR)/corpus_$*/
	$(FUZZ_ENV) ./$(FUZZ_DIR)/fuzz_$* $(WEIGHT_FUZZ_ARGS) -max_total_time=$(FUZZ_SECONDS) \
		-artifact_prefix=$(FUZZ_DIR)/artifacts_$*/ $(FUZZ_DIR)/corpus_$*

# ---- ONNX loader fuzzer (tests/fuzz/fuzz_onnx.c): the seeds of tests/fuzz/onnx_corpus, plus the small models of
# the ONNX node tests where libonnx-testdata is installed ----
ONNX_NODE_DIR ?= /usr/share/libonnx-testdata/data/node
FUZZ_ONNX_ARGS ?= -rss_limit_mb=2048 -timeout=20 -max_len=65536

$(FUZZ_DIR)/fuzz_onnx: tests/fuzz/fuzz_onnx.c rlx.h $(FUZZ_IMPL)
	@mkdir -p $(@D)
	$(FUZZ_LINK)

fuzz-onnx: $(FUZZ_DIR)/fuzz_onnx
	@rm -rf $(FUZZ_DIR)/onnx_corpus && mkdir -p $(FUZZ_DIR)/onnx_corpus $(FUZZ_DIR)/onnx_artifacts
	@cp tests/fuzz/onnx_corpus/* $(FUZZ_DIR)/onnx_corpus/
	@if [ -d $(ONNX_NODE_DIR) ]; then for d in $(ONNX_NODE_DIR)/*/; do \
		f=$$d/model.onnx; [ -f $$f ] && [ $$(stat -c %s $$f) -le 4096 ] && cp $$f $(FUZZ_DIR)/onnx_corpus/$$(basename $$d).onnx; \
	done; true; fi
	$(FUZZ_ENV) ./$(FUZZ_DIR)/fuzz_onnx $(FUZZ_ONNX_ARGS) -max_total_time=$(FUZZ_SECONDS) \
		-artifact_prefix=$(FUZZ_DIR)/onnx_artifacts/ $(FUZZ_DIR)/onnx_corpus

fuzz-onnx-seeds:
	@mkdir -p $(BUILD) tests/fuzz/onnx_corpus
	$(CC) $(WARNINGS) -I. -o $(BUILD)/make_onnx_seeds tests/fuzz/make_onnx_seeds.c
	./$(BUILD)/make_onnx_seeds tests/fuzz/onnx_corpus

# The quantized-dtype fuzzer (tests/fuzz/fuzz_quant.c): no seed corpus, it starts from nothing.
$(FUZZ_DIR)/fuzz_quant: tests/fuzz/fuzz_quant.c rlx.h $(FUZZ_IMPL)
	@mkdir -p $(@D)
	$(FUZZ_LINK)

fuzz-quant: $(FUZZ_DIR)/fuzz_quant
	@rm -rf $(FUZZ_DIR)/quant_corpus && mkdir -p $(FUZZ_DIR)/quant_corpus $(FUZZ_DIR)/artifacts
	$(FUZZ_ENV) ./$(FUZZ_DIR)/fuzz_quant -rss_limit_mb=2048 -timeout=10 -max_len=4096 -max_total_time=$(FUZZ_SECONDS) \
		-artifact_prefix=$(FUZZ_DIR)/artifacts/ $(FUZZ_DIR)/quant_corpus

# The generation-utilities fuzzer (tests/fuzz/fuzz_chat.c: chat templates, stop strings, sampler chains): no seed
# corpus, it starts from nothing.
$(FUZZ_DIR)/fuzz_chat: tests/fuzz/fuzz_chat.c rlx.h $(FUZZ_IMPL)
	@mkdir -p $(@D)
	$(FUZZ_LINK)

fuzz-chat: $(FUZZ_DIR)/fuzz_chat
	@rm -rf $(FUZZ_DIR)/chat_corpus && mkdir -p $(FUZZ_DIR)/chat_corpus $(FUZZ_DIR)/artifacts_chat
	$(FUZZ_ENV) ./$(FUZZ_DIR)/fuzz_chat -rss_limit_mb=2048 -timeout=10 -max_len=8192 -max_total_time=$(FUZZ_SECONDS) \
		-artifact_prefix=$(FUZZ_DIR)/artifacts_chat/ $(FUZZ_DIR)/chat_corpus
# The training fuzzer (tests/fuzz/fuzz_autodiff.c: random float graphs through rlx_grad, rlx_optimizer_step,
# compile and run): no seed corpus, it starts from nothing.
$(FUZZ_DIR)/fuzz_autodiff: tests/fuzz/fuzz_autodiff.c rlx.h $(FUZZ_IMPL)
	@mkdir -p $(@D)
	$(FUZZ_LINK)

fuzz-autodiff: $(FUZZ_DIR)/fuzz_autodiff
	@rm -rf $(FUZZ_DIR)/autodiff_corpus && mkdir -p $(FUZZ_DIR)/autodiff_corpus $(FUZZ_DIR)/artifacts_autodiff
	$(FUZZ_ENV) ./$(FUZZ_DIR)/fuzz_autodiff -rss_limit_mb=2048 -timeout=20 -max_len=256 -max_total_time=$(FUZZ_SECONDS) \
		-artifact_prefix=$(FUZZ_DIR)/artifacts_autodiff/ $(FUZZ_DIR)/autodiff_corpus

# The gradient-rule fuzzer (tests/fuzz/fuzz_autodiff_more.c: rope, grouped conv, conv_transpose, attention with
# kv_len, resize, average pooling with attributes from the input; each accepted graph's gradients are checked
# against a central difference of its own forward program): no seed corpus.
.PHONY: fuzz-autodiff-more
$(FUZZ_DIR)/fuzz_autodiff_more: tests/fuzz/fuzz_autodiff_more.c rlx.h $(FUZZ_IMPL)
	@mkdir -p $(@D)
	$(FUZZ_LINK)

fuzz-autodiff-more: $(FUZZ_DIR)/fuzz_autodiff_more
	@rm -rf $(FUZZ_DIR)/autodiff_more_corpus && mkdir -p $(FUZZ_DIR)/autodiff_more_corpus $(FUZZ_DIR)/artifacts_autodiff_more
	$(FUZZ_ENV) ./$(FUZZ_DIR)/fuzz_autodiff_more -rss_limit_mb=2048 -timeout=20 -max_len=128 \
		-max_total_time=$(FUZZ_SECONDS) -artifact_prefix=$(FUZZ_DIR)/artifacts_autodiff_more/ $(FUZZ_DIR)/autodiff_more_corpus

# The tokenizer fuzzer (tests/fuzz/fuzz_tok.c): no seed corpus; random text for a fixed vocabulary, hostile
# tokenizer metadata and raw GGUF bytes, for FUZZ_SECONDS.
# It compiles its own implementation (it reads a tokenizer field), without the SIMD kernels, which the tokenizer
# does not use and which are most of the implementation's instrumented build time.
$(FUZZ_DIR)/fuzz_tok: tests/fuzz/fuzz_tok.c rlx.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(if $(FUZZ_M32),-m32) $(FUZZ_CFLAGS) -DRLX_NO_SIMD -I. -o $@ tests/fuzz/fuzz_tok.c $(LDLIBS)

fuzz-tok: $(FUZZ_DIR)/fuzz_tok
	@rm -rf $(FUZZ_DIR)/tok_corpus && mkdir -p $(FUZZ_DIR)/tok_corpus $(FUZZ_DIR)/artifacts_tok
	$(FUZZ_ENV) ./$(FUZZ_DIR)/fuzz_tok -rss_limit_mb=2048 -timeout=10 -max_len=4096 -max_total_time=$(FUZZ_SECONDS) \
		-artifact_prefix=$(FUZZ_DIR)/artifacts_tok/ $(FUZZ_DIR)/tok_corpus

# The language-model builder fuzzer (tests/fuzz/fuzz_llm.c): the input describes a model; seeds (one small model
# per architecture that loads and runs) in tests/fuzz/corpus_llm, copied.
$(FUZZ_DIR)/fuzz_llm: tests/fuzz/fuzz_llm.c tests/fuzz/fuzz_weights.h rlx.h $(FUZZ_IMPL)
	@mkdir -p $(@D)
	$(FUZZ_LINK)

fuzz-llm: $(FUZZ_DIR)/fuzz_llm
	@rm -rf $(FUZZ_DIR)/llm_corpus && mkdir -p $(FUZZ_DIR)/llm_corpus $(FUZZ_DIR)/artifacts_llm
	@cp tests/fuzz/corpus_llm/* $(FUZZ_DIR)/llm_corpus/
	$(FUZZ_ENV) ./$(FUZZ_DIR)/fuzz_llm -rss_limit_mb=2048 -timeout=20 -max_len=256 -max_total_time=$(FUZZ_SECONDS) \
		-artifact_prefix=$(FUZZ_DIR)/artifacts_llm/ $(FUZZ_DIR)/llm_corpus

# The Hugging Face folder fuzzer (tests/fuzz/fuzz_hf.c): the input is config.json next to a fixed tiny
# model.safetensors, or ("TOK\n" first) tokenizer.json [NUL tokenizer_config.json]; seeds in tests/fuzz/corpus_hf, copied.
$(FUZZ_DIR)/fuzz_hf: tests/fuzz/fuzz_hf.c rlx.h $(FUZZ_IMPL)
	@mkdir -p $(@D)
	$(FUZZ_LINK)

fuzz-hf: $(FUZZ_DIR)/fuzz_hf
	@rm -rf $(FUZZ_DIR)/hf_corpus && mkdir -p $(FUZZ_DIR)/hf_corpus $(FUZZ_DIR)/artifacts_hf
	@cp tests/fuzz/corpus_hf/* $(FUZZ_DIR)/hf_corpus/
	$(FUZZ_ENV) ./$(FUZZ_DIR)/fuzz_hf -rss_limit_mb=2048 -timeout=20 -max_len=4096 -max_total_time=$(FUZZ_SECONDS) \
		-artifact_prefix=$(FUZZ_DIR)/artifacts_hf/ $(FUZZ_DIR)/hf_corpus

fuzz-replay: $(BUILD)/fuzz/fuzz_replay
	$(ASAN_ENV) ./$(BUILD)/fuzz/fuzz_replay -v $(or $(FUZZ_INPUT),tests/fuzz/regress tests/fuzz/corpus)

fuzz-seeds:
	@mkdir -p $(BUILD) tests/fuzz/corpus
	$(CC) $(WARNINGS) -I. -o $(BUILD)/make_seeds tests/fuzz/make_seeds.c
	./$(BUILD)/make_seeds tests/fuzz/corpus

run: $(BUILD)/examples/mlp
	./$(BUILD)/examples/mlp

# Every step appends its result lines to the log; a test that does not build or crashes counts as failed.
# The compile matrix runs beside the test builds and runs (its lines follow the tests'); the test programs run
# $(TEST_JOBS) at a time through tests/run_tests.sh, which prints their outputs in the order listed: the longest
# first, the rest by name, then the reruns on Vulkan.
LONG_TESTS = test_onnx_models test_hip test_vk_f32math test_quant
RUN_ORDER = $(LONG_TESTS) $(filter-out $(LONG_TESTS),$(TEST_NAMES))
test:
	@mkdir -p $(BUILD)
	@: > $(BUILD)/test.log; : > $(BUILD)/compile.log
	@$(SUMMARIZE) run $(BUILD)/compile.log compile sh tests/compile/matrix.sh $(BUILD)/compile >$(BUILD)/compile.out 2>&1 & \
	$(MAKE) --no-print-directory -k -j$(JOBS) tests; \
	{ echo "test_train_vulkan env RLX_TEST_DEVICE=vulkan ./$(BUILD)/tests/test_train"; \
	  for t in $(RUN_ORDER); do echo "$$t ./$(BUILD)/tests/$$t"; done; \
	  echo "test_onnx_node_vulkan ./$(BUILD)/tests/test_onnx_node vulkan"; \
	  echo "test_onnx_control_vulkan ./$(BUILD)/tests/test_onnx_control vulkan"; \
	  echo "test_quant_vulkan ./$(BUILD)/tests/test_quant vulkan"; \
	  echo "test_train_accum_vulkan env RLX_TEST_DEVICE=vulkan ./$(BUILD)/tests/test_train_accum"; \
	  echo "test_train_master_vulkan env RLX_TEST_DEVICE=vulkan ./$(BUILD)/tests/test_train_master"; \
	  echo "test_autodiff_more_vulkan env RLX_TEST_DEVICE=vulkan ./$(BUILD)/tests/test_autodiff_more"; } | \
	    bash tests/run_tests.sh $(BUILD)/test.log $(TEST_JOBS); \
	wait; cat $(BUILD)/compile.out; cat $(BUILD)/compile.log >> $(BUILD)/test.log
	@$(SUMMARIZE) total $(BUILD)/test.log

asan:
	@mkdir -p $(BUILD)
	@: > $(BUILD)/asan.log
	@-$(MAKE) --no-print-directory -k -j$(JOBS) asan-tests
	@{ for t in $(RUN_ORDER); do echo "$$t ./$(BUILD)/asan/$$t"; done; } | \
	    env $(ASAN_ENV) bash tests/run_tests.sh $(BUILD)/asan.log $(TEST_JOBS)
	@$(SUMMARIZE) total $(BUILD)/asan.log

# 32-bit size_t: the cases that once overflowed sizes, under the sanitizers
ASAN32_TESTS = test_hardening test_fuzz_regress test_api test_gguf test_safetensors
# the tokenizer's hostile-metadata and hand-made cases (its llama.cpp oracle is 64-bit only and skips)
ASAN32_TESTS += test_tok
$(BUILD)/asan32/test_tok: tests/tok_to_gguf.c
ASAN32_CC ?= clang
ASAN32_FLAGS = -m32 -msse2 -mfpmath=sse $(ASAN_CFLAGS) $(WARNINGS)
$(BUILD)/asan32/rlx_impl.o: tests/rlx_impl.c rlx.h rlx_kernels_spv.h rlx_kernels_ptx.h
	@mkdir -p $(@D)
	$(ASAN32_CC) $(ASAN32_FLAGS) -I. -c -o $@ $<
$(BUILD)/asan32/%: tests/%.c rlx.h tests/harness.h tests/fuzz/fuzz_api.c tests/fuzz/fuzz_ops.h $(BUILD)/asan32/rlx_impl.o
	@mkdir -p $(@D)
	@rm -f $@
	@$(SHARED_IMPL); echo "$(ASAN32_CC) $(ASAN32_FLAGS) -I. -Itests -o $@ $$* $(LDLIBS)"; \
	$(ASAN32_CC) $(ASAN32_FLAGS) -I. -Itests -o $@ "$$@" $(LDLIBS)

asan32:
	@mkdir -p $(BUILD)
	@: > $(BUILD)/asan32.log
	@echo 'int main(void){return 0;}' > $(BUILD)/m32_probe.c
	@if $(ASAN32_CC) -m32 -o $(BUILD)/m32_probe $(BUILD)/m32_probe.c >/dev/null 2>&1 && ! ./$(BUILD)/m32_probe 2>/dev/null; then \
	    echo "SKIP: asan32: this kernel cannot run 32-bit programs (booted without ia32 emulation)"; \
	    echo "0 passed, 0 failed, 1 skipped"; exit 0; fi; \
	$(MAKE) --no-print-directory asan32-run
asan32-run:
	@-$(MAKE) --no-print-directory -k -j$(JOBS) $(ASAN32_TESTS:%=$(BUILD)/asan32/%)
	@{ for t in $(ASAN32_TESTS); do echo "$$t ./$(BUILD)/asan32/$$t"; done; } | \
	    env $(ASAN_ENV) bash tests/run_tests.sh $(BUILD)/asan32.log $(TEST_JOBS)
	@$(SUMMARIZE) total $(BUILD)/asan32.log

portability:
	@bash .ci/portability.sh

bench: $(BENCHES)
	@for b in $(BENCHES); do echo "== $$b"; ./$$b || exit 1; done

# Training steps/s against PyTorch on the CPU (bench/train.c; the peer bench/train_torch.py needs python3-torch)
.PHONY: bench-train
bench-train: $(BUILD)/bench/train
	./$(BUILD)/bench/train

# GPU kernels. SPIR-V: when glslc is found, every kernel of kernels/vulkan/*.comp (line 2 lists them) compiles to
# build/kernels/spv/MODULE__KERNEL.spv (Vulkan 1.1 SPIR-V) and is embedded into rlx_kernels_spv.h; without glslc the
# committed header is kept. CUDA: when nvcc is found (on PATH or in /usr/local/cuda/bin), kernels/cuda/*.cu compile
# to build/kernels/*.ptx (compute_75, the oldest target of CUDA 13; matmul_tc.cu needs compute_80 for mma.sync on
# TF32) and are embedded into rlx_kernels_ptx.h; without nvcc the PTX of the committed rlx_kernels_ptx.h is kept.
# HIP: the CUDA C sources themselves (common.cuh and every .cu but the CUDA-only matmul_tc.cu) are embedded into
# rlx_kernels_ptx.h too, with or without nvcc; the HIP backend compiles them with hipRTC at run time for the
# device's architecture.
GLSLC := $(shell command -v glslc 2>/dev/null)
GLSLC_FLAGS = --target-env=vulkan1.1 -O -Werror
VK_SOURCES := $(wildcard kernels/vulkan/*.comp)
VK_INCLUDES := $(wildcard kernels/vulkan/*.glsl)
VK_SPV := $(foreach f,$(VK_SOURCES),$(foreach k,$(shell sed -n '2s|^// kernels:||p' $(f)),$(BUILD)/kernels/spv/$(basename $(notdir $(f)))__$(k).spv))
NVCC := $(shell command -v nvcc 2>/dev/null || { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; })
NVCC_FLAGS = -ptx -O3 --std=c++14 -Werror all-warnings
CUDA_PTX := $(patsubst kernels/cuda/%.cu,$(BUILD)/kernels/%.ptx,$(wildcard kernels/cuda/*.cu))
HIP_SOURCES := kernels/cuda/common.cuh $(filter-out kernels/cuda/matmul_tc.cu,$(wildcard kernels/cuda/*.cu))

kernels: kernels-spv $(BUILD)/embed_kernels $(if $(NVCC),$(CUDA_PTX))
	@mkdir -p $(BUILD)/kernels
ifneq ($(NVCC),)
	$(BUILD)/embed_kernels ptx rlx_kernels_ptx.h $(CUDA_PTX) --source $(HIP_SOURCES)
else
	@echo "kernels: nvcc not found (PATH, /usr/local/cuda/bin): kept the PTX of the committed rlx_kernels_ptx.h"
	$(BUILD)/embed_kernels ptx rlx_kernels_ptx.h --keep-ptx --source $(HIP_SOURCES)
endif

kernels-spv: $(BUILD)/embed_kernels $(if $(GLSLC),$(VK_SPV))
ifneq ($(GLSLC),)
	$(BUILD)/embed_kernels spv rlx_kernels_spv.h $(VK_SPV)
else
	@echo "kernels: glslc not found: kept the committed rlx_kernels_spv.h"
endif

# One SPIR-V module per kernel: MODULE.comp compiled with -DRLX_K_KERNEL.
.SECONDEXPANSION:
$(BUILD)/kernels/spv/%.spv: kernels/vulkan/$$(firstword $$(subst __, ,$$*)).comp $(VK_INCLUDES)
	@mkdir -p $(@D)
	@n=$*; k=$${n#*__}; echo "glslc $< ($$k)"; \
	$(GLSLC) $(GLSLC_FLAGS) -Ikernels/vulkan -DRLX_K_$$k $< -o $@.tmp$$$$ && mv $@.tmp$$$$ $@

# The embedded PTX is stamped with ISA 7.8 (CUDA 11.8) instead of the toolkit's own, so drivers from CUDA 11.8 on
# can load it; rlx.h checks the driver version against the same number (RLX__CUDA_MIN_DRIVER), and
# kernels-check assembles the result with ptxas to prove nothing newer is used.
PTX_ISA = 7.8
$(BUILD)/kernels/%.ptx: kernels/cuda/%.cu kernels/cuda/common.cuh
	@mkdir -p $(@D)
	$(NVCC) $(NVCC_FLAGS) -arch=$(if $(filter matmul_tc,$*),compute_80,compute_75) -o $@.tmp $<
	sed 's/^\.version .*/.version $(PTX_ISA)/' $@.tmp > $@ && rm -f $@.tmp

# CI: where nvcc exists, the committed rlx_kernels_ptx.h must equal a fresh build, and its PTX must assemble with
# ptxas for sm_75, sm_80 and sm_90; the tensor-core module (9.6 MB of PTX, about 4 minutes of ptxas per target)
# for sm_80 only, its own target (it uses nothing sm_90 lacks; a Hopper driver JIT-compiles the same PTX at load time).
PTXAS := $(if $(NVCC),$(dir $(NVCC))ptxas)
kernels-check: $(BUILD)/embed_kernels $(if $(NVCC),$(CUDA_PTX)) $(if $(GLSLC),$(VK_SPV))
ifneq ($(GLSLC),)
	$(BUILD)/embed_kernels spv $(BUILD)/kernels_spv_fresh.h $(VK_SPV)
	@cmp -s $(BUILD)/kernels_spv_fresh.h rlx_kernels_spv.h || { echo "kernels-check: rlx_kernels_spv.h is stale: run make kernels and commit it"; exit 1; }
	@for f in $(VK_SPV); do spirv-val --target-env vulkan1.1 $$f || { echo "kernels-check: spirv-val $$f failed"; exit 1; }; done
	@echo "kernels-check: rlx_kernels_spv.h is current; every SPIR-V module validates (Vulkan 1.1)"
else
	@echo "kernels-check: glslc not found: skipped the SPIR-V check (the committed rlx_kernels_spv.h is used as is)"
endif
ifneq ($(NVCC),)
	$(BUILD)/embed_kernels ptx $(BUILD)/kernels_ptx_fresh.h $(CUDA_PTX) --source $(HIP_SOURCES)
	@cmp -s $(BUILD)/kernels_ptx_fresh.h rlx_kernels_ptx.h || { echo "kernels-check: rlx_kernels_ptx.h is stale: run make kernels and commit it"; exit 1; }
	@for p in $(CUDA_PTX); do for a in sm_75 sm_80 sm_90; do \
	    case $$p:$$a in *matmul_tc.ptx:sm_75|*matmul_tc.ptx:sm_90) continue;; esac; echo "$$p $$a"; \
	done; done | xargs -P $(JOBS) -n 2 sh -c '$(PTXAS) -arch=$$1 --warning-as-error $$0 -o $$0.$$1.cubin || \
	    { echo "kernels-check: ptxas $$1 $$0 failed"; exit 255; }' || exit 1
	@echo "kernels-check: rlx_kernels_ptx.h is current; PTX (ISA $(PTX_ISA)) assembles for sm_75, sm_80, sm_90 (matmul_tc: sm_80)"
else
	@echo "kernels-check: nvcc not found: skipped (the committed rlx_kernels_ptx.h is used as is)"
endif

$(BUILD)/embed_kernels: tools/embed_kernels.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARNINGS) -o $@ $<

clean:
	rm -rf $(BUILD)
