/* rlx.h v0.1.0 - a machine-learning compiler and runtime in one C header. Public domain or MIT (see end).

   Do this:
       #define RLX_IMPLEMENTATION
   before you include this file in *one* C or C++ file to create the implementation.

       // i.e. it should look like this:
       #include ...
       #define RLX_IMPLEMENTATION
       #include "rlx.h"

   Link with: -lm -lpthread (and -ldl on older glibc). Nothing else: no BLAS, no GPU SDK. GPU drivers (CUDA's
   libcuda, HIP's libamdhip64, the Vulkan loader through volk) are opened at run time. Their kernels come from
   two companion headers that must sit next to rlx.h: rlx_kernels_ptx.h (CUDA and HIP; not needed when both
   RLX_NO_CUDA and RLX_NO_HIP are defined) and rlx_kernels_spv.h (Vulkan; not needed with RLX_NO_VULKAN or when
   volk.h is not on the include path). They are most of a program's size: about 4.4 MB of PTX and 2.7 MB of
   SPIR-V against 0.2 MB for the CPU-only build (the README has the table).

   rlx.h builds a graph of tensor operations, optimises it (constant folding, common subexpressions, dead code),
   plans every intermediate buffer into one arena by liveness, lowers the graph once to a flat list of steps,
   and runs those steps on a device as often as you like. Fusion forms matmul + bias + activation and other
   composite steps; a weight stored [out, in] and used as rlx_transpose(W) in a matmul or rlx_linear is read
   in place by every backend, never copied per run.

   EXAMPLE (a linear layer followed by a ReLU, error checks folded into one):

       rlx_graph* g = rlx_graph_create(NULL);
       int64_t xs[2] = {1, 4}, ws[2] = {4, 3};
       rlx_tensor x = rlx_input(g, "x", RLX_F32, 2, xs);
       rlx_tensor w = rlx_param(g, "w", RLX_F32, 2, ws);
       rlx_output(g, "y", rlx_relu(g, rlx_matmul(g, x, w)));   // builder errors are sticky
       rlx_program* p = NULL;
       rlx_compile_desc cd = {0};                              // zero means default: AUTO device (C++: = {})
       if (rlx_compile(g, &cd, &p) != RLX_OK) { puts(rlx_graph_error(g)); return 1; }
       float wv[12] = {...}, xv[4] = {1, 2, 3, 4}, yv[3];
       rlx_set_param_f32(p, "w", wv, 12);
       rlx_set_input_f32(p, "x", xv, 4);
       if (rlx_run(p) != RLX_OK) puts(rlx_program_error(p));
       rlx_get_output_f32(p, "y", yv, 3);
       rlx_program_destroy(p);
       rlx_graph_destroy(g);      // the graph may be destroyed right after compile

   CONFIGURATION MACROS (define before including the implementation)

       RLX_STATIC              make every public function static (for a private copy in one file)
       RLX_DLL                 export (with RLX_IMPLEMENTATION) or import the API from a shared library
       RLX_MALLOC/RLX_REALLOC/RLX_FREE
                               default allocator; define all three or none
       RLX_ASSERT(c)           internal invariant check (default: assert.h). Never fires on user input.
       RLX_NO_THREADS          no worker threads; everything runs on the calling thread
       RLX_NO_SIMD             portable scalar kernels only (no AVX2/AVX-512/NEON paths)
       RLX_MAX_THREADS         upper bound on CPU worker threads (default 64)
       RLX_PARALLEL_MIN_WORK   element operations below which a parallel step runs on the calling thread
                               (default 65536; see rlx_thread_pool_desc)
       RLX_DIM_CACHE           compiled specialisations a graph with symbolic dims keeps (default 8; 0 = none)
       RLX_NO_CUDA             leave out the CUDA backend (and the need for rlx_kernels_ptx.h, with RLX_NO_HIP)
       RLX_NO_HIP              leave out the HIP backend
       RLX_NO_HIP_DISK_CACHE   never cache hipRTC code objects on disk
       RLX_NO_VULKAN           leave out the Vulkan backend (and the need for rlx_kernels_spv.h and volk.h)
       RLX_VULKAN              build the Vulkan backend even where __has_include cannot find volk.h
       RLX_VOLK_EXTERNAL       the application compiles volk.c itself (rlx.h then only includes volk.h)
       RLX_VULKAN_TIMEOUT_MS   default wait for one Vulkan run before it counts as a lost device (60000)
       RLX_CUDA_TF32           f32 matmuls on CUDA tensor cores (sm_80+): 0 = three TF32 products (default), 1 = one
       RLX_PROFILE_CLOCK()     host clock of CPU profiling, microseconds as a double (default: a monotonic clock)

   ENVIRONMENT (read at run time)
       RLX_CUDA_LIBRARY, RLX_HIP_LIBRARY, RLX_HIPRTC_LIBRARY   driver library to open instead of the default
       RLX_HIP_CACHE           directory of the hipRTC code-object cache (0 = off)
       RLX_VULKAN_LOADER       Vulkan loader library to open instead of the default
       RLX_VULKAN_TIMEOUT_MS   overrides the macro of the same name at run time

   CONTENTS
       1. Types, results, dtypes                     >>types
       2. Graph builder, node names, ops             >>builder
       3. Compile, run, I/O, thread pools, stores    >>program
       4. Devices, introspection, profiling          >>devices
       --- implementation (RLX_IMPLEMENTATION) ---
       5. Config, allocation, checked sizes          >>config >>alloc >>size
       6. Messages and names, element conversion     >>log >>convert
       7. IR, node references in messages, shape inference  >>ir >>infer
       8. Passes, shape specialisation               >>passes >>shapes
       9. Memory planner                             >>planner
      10. CPU backend (thread pools, job-system hook, inline threshold, SIMD, GEMM, kernels; block-quantized
          dtypes: dequantize, quantize, matmul_quant)   >>cpu >>gemm >>quant
      11. Runtime (compile, run, I/O)                >>runtime
      12. Driver loading, shared GPU layer           >>dl >>gpu
      13. CUDA and HIP backends                      >>cuda >>hip
      14. Vulkan backend                             >>vulkan
      15. Weight / state store (rlx_store)           >>store

   WEIGHTS AND STATES OUTSIDE PROGRAMS (rlx_store, see >>program)
       By default each program holds its own copy of its params (and, on a GPU, uploads it). A store holds named
       tensors and states on one device; programs compiled with rlx_compile_desc.store bind their params and
       states to it by name, so programs of different graphs and shapes (prefill and decode) share one copy of
       the weights and hand a KV cache to each other on the device:

       rlx_store* s = NULL;
       rlx_store_create(NULL, &s);                                  // AUTO: the device rlx_compile would pick
       rlx_store_add(s, "w", RLX_F32, 2, ws, wdata);                // copied (uploaded once on a GPU)
       rlx_store_borrow(s, "emb", RLX_F32, 2, es, mapped, release, user); // used in place on the CPU
       rlx_store_add_state(s, "k_cache", RLX_F32, 3, cs);           // zeros, shared by every bound program
       rlx_compile_desc cd = {0};
       cd.store = s;                                                // device AUTO = the store's device
       rlx_compile(prefill_graph, &cd, &pre);
       rlx_compile(decode_graph, &cd, &dec);
       rlx_store_destroy(s);                                        // storage lives until pre and dec are gone

   SYMBOLIC DIMS
       rlx_dim(g, "seq", example) declares a named dim and returns a token to use in the shapes of rlx_input,
       rlx_param and rlx_state, in reshape/expand targets and as a slice length. The graph is built at the example
       value. rlx_compile_desc.dims gives the values, and rlx_compile specialises the graph by replaying every
       builder with them, so the builders' own checks reject impossible values with a message that names the node.
       Compiled cores are cached in the graph per (values, device, flags, allocator), RLX_DIM_CACHE of them: a
       repeated compile only allocates the new program's memory. Programs for different values share weights
       and states when compiled with one rlx_store (rlx_compile_desc.store); such store-bound cores are not
       cached (they refer to the store's tensors). Without a store each program has its own.

   QUANTIZED DTYPES (ggml's block formats, >>quant)
       RLX_Q4_0, RLX_Q4_1, RLX_Q5_0, RLX_Q5_1, RLX_Q8_0, RLX_Q2_K, RLX_Q3_K, RLX_Q4_K, RLX_Q5_K, RLX_Q6_K, RLX_IQ4_NL
       and RLX_IQ4_XS pack blocks of 32 or 256 consecutive elements of the last axis into ggml's exact byte layout
       (rlx_dtype_block gives the block; rlx_tensor_bytes the byte size of a shape; rlx_dtype_size is 0 for them;
       the last dim must be a multiple of the block). They are packed bytes: inputs, params, constants, store
       tensors and outputs hold them (set and read with their own dtype: the _raw calls or rlx_set_input(p, name,
       RLX_Q4_0, bytes, n)), and only three ops take them: rlx_cast to f32/f16 (dequantize, bit for bit ggml's
       dequantize_row_*) and from f32 (quantize, byte for byte ggml's reference quantizers; not iq4_nl/iq4_xs),
       rlx_gather of rows (an axis before the last; the result keeps the dtype) and rlx_matmul_quant(x, w):
       x [..., K] f32 times w [N, K] (GGUF layout, x · wᵀ) in f32. Any other op given one fails at its builder
       with RLX_ERROR_DTYPE. CPU only for now: compiling them for a GPU fails with RLX_ERROR_UNSUPPORTED.
       On the CPU, for up to 15 rows of x, rlx_matmul_quant with a q4_0, q8_0, q4_K or q6_K weight rounds x to
       8 bits once per call as ggml does (q8_0 blocks of 32 for q4_0/q8_0, Q8_K blocks of 256 for the K-quants)
       and sums integer block products (AVX2 maddubs/madd; AVX-512 VNNI vpdpbusd for q4_0/q8_0 where the CPU has
       it, chosen at run time), giving ggml's vec_dot result bit for bit; a call whose
       x holds a NaN or an infinity, and the other formats, decode the weights in AVX2 registers and keep x in f32
       (a CPU without AVX2 and F16C decodes rows in portable C first). From 16 rows on, tiles are dequantized for
       the packed f32 GEMM and x stays f32.

   ERRORS
       Every fallible function returns rlx_result (RLX_OK = 0, negative on failure) and the object involved keeps a
       readable message: rlx_graph_error(g) for builder and compile failures, rlx_program_error(p) for everything
       done with a program. Builder functions return a tensor handle; an invalid call records a *sticky* error in
       the graph and returns an invalid handle (id 0), and every later builder call that receives it is a no-op,
       so one check at the end (rlx_graph_status or rlx_compile) is enough. rlx.h never calls exit() or abort()
       on user input.
       A message about one node starts with the node: "op (node N, 'name'): in0 [shape] dtype, in1 ...: cause",
       e.g. "matmul (node 3, 'layer1.mm'): a [4,3] f32, b [5,2] f32: a's last dim 3 != b's dim -2 5". N is the
       node id (the %N of rlx_graph_dump; for a builder error the id the node would have had; for a compile or
       GPU launch error about a compiled step, the user's node it comes from); the name is the node's label
       (rlx_set_name, rlx_set_next_name) or its input/param/state name, clipped to 64 bytes; the inputs are the
       required ones under the builder's parameter names; the cause names the failing dim, axis or both dtypes.
       Messages are cut to their 512-byte buffers on a UTF-8 character boundary.

   THREADING
       A graph or a program is used by one thread at a time. A call on a program (run, set, get, clone) made while
       another thread is inside a call on the same program returns RLX_ERROR_BUSY instead of racing; a graph has
       no such check. Different programs (including clones) may run on different threads at once. A program owns its worker threads (created by rlx_compile, joined by
       rlx_program_destroy) unless rlx_compile_desc.pool names a shared rlx_thread_pool, which any number of
       programs may use from any threads at once, or whose hook runs the parallel steps on the application's job
       system (see rlx_thread_pool_desc). Steps under RLX_PARALLEL_MIN_WORK element operations run on the
       calling thread. rlx_run blocks until all steps are done. The device list is computed on every call and
       touches no global state beyond the GPU drivers, loaded once. A store (rlx_store) is changed by one thread at a time, and
       programs that share a store state must not run at the same time (see rlx_store).

   SECURITY
       Graphs built through this API are validated: shapes, dtypes, axes, byte sizes. Every element count, byte
       size and offset goes through overflow-checked arithmetic, for 32- and 64-bit size_t: a tensor larger than
       RLX_MAX_ELEMENTS fails at its builder with RLX_ERROR_SHAPE, a program whose buffers do not fit fails to
       compile with RLX_ERROR_OUT_OF_MEMORY. Tensor handles carry their graph's tag: a handle of another graph,
       or of a destroyed one, is RLX_ERROR_INVALID_TENSOR. Run-time positions (state_write offsets, gather
       indices, kv_len; scalars or one per batch row) are checked for any int64 value without overflow: a
       state_write offset whose rows do not fit fails rlx_run with RLX_ERROR_OUT_OF_RANGE (naming the state,
       the batch row and the offset) and that row is not written (GPUs report it through an error word in
       device memory, read back after the run); gather indices out of range read 0; kv_len is clamped to
       [0, Sk]. The builder API is fuzzed (tests/fuzz). There is no file loader yet.

   PROFILING
       Off by default and free when off. RLX_COMPILE_PROFILE or rlx_program_profile_enable(p, 1) times every step
       of every run: a host clock on the CPU, events on CUDA/HIP, timestamp queries on Vulkan (a device without
       them says so). rlx_program_profile gives the entries, rlx_program_profile_json a Chrome trace / Perfetto
       file (chrome://tracing, ui.perfetto.dev), rlx_program_profile_table the slowest steps.

   COMPILER FLAGS
       The file that defines RLX_IMPLEMENTATION must not be built with -ffast-math or -ffinite-math-only (rlx.h
       stops with an #error): masks, NaN propagation and the half-float conversions need IEEE semantics.

   MATRIX PRODUCTS ON THE CPU
       f32, f16 and bf16 share the packed GEMM (f16/bf16 are widened while packing, F16C where the CPU has it,
       summed in f32 and rounded once); i8/u8 (rlx_matmul_integer, int32 results) use AVX-512 VNNI, AVX2 or
       portable kernels. The SIMD family is picked at run time from the CPU; f64 runs row-by-row axpys (sums
       in k order, as a dot product), other integer matmuls a plain loop.

   rlx.h does NOT: train (no autodiff yet), load model files (yet), use BLAS, map files (rlx_store_borrow takes
   memory the caller mapped), move a store between devices (one store per device; add the tensors to each),
   spread one program over several GPUs (each program runs on one device; rlx_devices lists them all), pin
   threads to cores or spin-wait (idle workers sleep on a condition variable), time inside a step (a profile
   has one entry per step; on GPUs a step lasts from the end of the previous step's work to the end of its own),
   run a kernel with a shape unknown at compile time (symbolic dims are specialised per value at compile time;
   see rlx_dim), run block-quantized dtypes on a GPU (CPU only; the GPU lowering refuses them), or quantize to
   iq4_nl / iq4_xs (they can be read, dequantized and multiplied, not made).
*/
#ifndef RLX_H
#define RLX_H

#define RLX_VERSION_MAJOR 0
#define RLX_VERSION_MINOR 1
#define RLX_VERSION_PATCH 0
#define RLX_VERSION_STRING "0.1.0"
/* The API and ABI are not stable across 0.x releases: include the header statically. */

#include <stddef.h>
#include <stdint.h>

#if defined(RLX_STATIC)
#  if defined(__GNUC__) || defined(__clang__)
#    define RLXDEF static __attribute__((unused))
#  else
#    define RLXDEF static
#  endif
#elif defined(RLX_DLL)
#  if defined(_WIN32)
#    if defined(RLX_IMPLEMENTATION)
#      define RLXDEF __declspec(dllexport)
#    else
#      define RLXDEF __declspec(dllimport)
#    endif
#  else
#    define RLXDEF __attribute__((visibility("default")))
#  endif
#else
#  define RLXDEF extern
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================================================
   >>types
   ============================================================================================================ */

#define RLX_MAX_RANK 8

typedef enum rlx_result {
    RLX_OK = 0,
    /* generic */
    RLX_ERROR_INVALID_ARGUMENT = -1,   /* a NULL pointer, an out-of-range enum or count                    */
    RLX_ERROR_OUT_OF_MEMORY = -2,
    RLX_ERROR_INTERNAL = -3,
    /* validation */
    RLX_ERROR_SHAPE = -10,             /* incompatible or invalid shapes, rank > 8, negative dims, overflow */
    RLX_ERROR_DTYPE = -11,             /* dtype not allowed for the op, or a dtype mismatch                 */
    RLX_ERROR_AXIS = -12,              /* axis or permutation out of range                                   */
    RLX_ERROR_NOT_FOUND = -13,         /* unknown input, param or output name                                */
    RLX_ERROR_SIZE = -14,              /* byte size or element count does not match the tensor               */
    RLX_ERROR_DUPLICATE = -15,         /* a name used twice                                                  */
    RLX_ERROR_BAD_GRAPH = -16,         /* graph is empty, has no outputs, or carries a builder error         */
    RLX_ERROR_INVALID_TENSOR = -17,    /* a tensor handle that is 0 or from another graph                    */
    RLX_ERROR_NOT_SET = -18,           /* rlx_run before every param and input was set                       */
    RLX_ERROR_BUSY = -19,              /* another thread is inside a call on the same program                */
    RLX_ERROR_OUT_OF_RANGE = -20,      /* a run-time position (state_write offset) puts rows outside a state */
    /* devices */
    RLX_ERROR_DEVICE_UNAVAILABLE = -30,
    RLX_ERROR_UNSUPPORTED = -31,       /* the device cannot run an op                                        */
    RLX_ERROR_DEVICE_LOST = -32,       /* the device or its context failed (illegal address, reset, ...)     */
    RLX_ERROR_LAUNCH = -33,            /* a driver call or kernel launch failed (the message has the details)*/
    RLX_ERROR_KERNEL_COMPILE = -34,    /* a kernel failed to compile or load (the message has the log)       */
    RLX_RESULT_FORCE_I32 = 0x7FFFFFFF
} rlx_result;

typedef enum rlx_dtype {
    RLX_DTYPE_INVALID = 0,
    RLX_F32, RLX_F16, RLX_BF16, RLX_F64,
    RLX_I8, RLX_I16, RLX_I32, RLX_I64,
    RLX_U8, RLX_U32, RLX_BOOL,
    /* ggml's block-quantized formats (>>quant): packed blocks along the last axis, see rlx_dtype_block */
    RLX_Q4_0, RLX_Q4_1, RLX_Q5_0, RLX_Q5_1, RLX_Q8_0,
    RLX_Q2_K, RLX_Q3_K, RLX_Q4_K, RLX_Q5_K, RLX_Q6_K,
    RLX_IQ4_NL, RLX_IQ4_XS,
    RLX_DTYPE_COUNT,
    RLX_DTYPE_FORCE_U32 = 0x7FFFFFFF
} rlx_dtype;

/* A tensor handle: a node of one graph. id 0 is the invalid handle (so `rlx_tensor t = {0};` is "none").
   `graph` is the tag of the graph that made it (every graph gets a tag no other graph of the process has had),
   so a handle from another graph, or from a destroyed one, is rejected with RLX_ERROR_INVALID_TENSOR. */
typedef struct rlx_tensor { uint32_t id; uint32_t graph; } rlx_tensor;

typedef struct rlx_graph rlx_graph;
typedef struct rlx_program rlx_program;
typedef struct rlx_store rlx_store;

/* Optional allocator. Zero-initialised = use RLX_MALLOC/RLX_FREE. alloc must return memory aligned to at least
   16 bytes; rlx.h aligns its large buffers itself. */
typedef struct rlx_allocator {
    void* (*alloc)(size_t size, void* user_data);
    void (*free)(void* ptr, void* user_data);
    void* user_data;
} rlx_allocator;

RLXDEF const char* rlx_result_string(rlx_result r);
RLXDEF const char* rlx_dtype_name(rlx_dtype t);
RLXDEF size_t rlx_dtype_size(rlx_dtype t);           /* bytes per element, 0 for an invalid or a block dtype */
/* Block geometry of a dtype: a quantized dtype (RLX_Q4_0 … RLX_IQ4_XS) packs `block_elems` consecutive elements of
   the LAST axis into `block_bytes` bytes (ggml's layout, 32 or 256 elements); a plain dtype is a block of 1
   element of rlx_dtype_size bytes. A tensor of a block dtype needs a last dim that is a multiple of the block;
   its byte size is (element count / block_elems) × block_bytes. Either pointer may be NULL.
   RLX_ERROR_DTYPE for an invalid dtype. */
RLXDEF rlx_result rlx_dtype_block(rlx_dtype t, int64_t* block_elems, size_t* block_bytes);
/* Byte size of a tensor of `dtype` and shape, for every dtype (block dtypes as above), overflow-checked.
   RLX_ERROR_DTYPE for an invalid dtype; RLX_ERROR_SHAPE for an invalid shape (a dim < 1, a rank outside 0..8,
   more than RLX_MAX_ELEMENTS elements) or, for a block dtype, a scalar or a last dim not a multiple of the block. */
RLXDEF rlx_result rlx_tensor_bytes(rlx_dtype t, int rank, const int64_t* shape, size_t* bytes);
RLXDEF const char* rlx_version(void);

/* ============================================================================================================
   >>builder
   Every builder validates its inputs and infers the output shape and dtype. Shapes are arrays of int64_t of
   length `rank` (0 ≤ rank ≤ 8); every dim must be ≥ 1 and the element count must not exceed RLX_MAX_ELEMENTS
   (SIZE_MAX / 16: 2^28 - 1 on 32-bit targets, 2^60 - 1 on 64-bit), so the byte size of any dtype, rounded up to
   the arena's alignment, fits in size_t. Every builder checks its *output* against the same limit: a graph
   whose intermediate would be larger fails with RLX_ERROR_SHAPE at the builder that makes it.
   ============================================================================================================ */
#define RLX_MAX_ELEMENTS ((int64_t)(SIZE_MAX / 16))

typedef struct rlx_graph_desc {
    rlx_allocator allocator;
} rlx_graph_desc;

RLXDEF rlx_graph* rlx_graph_create(const rlx_graph_desc* desc);    /* desc may be NULL; NULL on out of memory */
RLXDEF void rlx_graph_destroy(rlx_graph* g);                       /* NULL is fine */
RLXDEF rlx_result rlx_graph_status(const rlx_graph* g);            /* first sticky builder error, or RLX_OK */
RLXDEF const char* rlx_graph_error(const rlx_graph* g);            /* message of the last failure ("" if none) */
RLXDEF int rlx_graph_node_count(const rlx_graph* g);

/* Shape and dtype of a tensor. rank/shape may be NULL. Returns RLX_DTYPE_INVALID for a bad handle. */
RLXDEF rlx_dtype rlx_tensor_info(const rlx_graph* g, rlx_tensor t, int* rank, int64_t* shape);

/* Sources. Names are copied, must be non-empty and unique among inputs+params (outputs have their own space). */
RLXDEF rlx_tensor rlx_input(rlx_graph* g, const char* name, rlx_dtype dtype, int rank, const int64_t* shape);
RLXDEF rlx_tensor rlx_param(rlx_graph* g, const char* name, rlx_dtype dtype, int rank, const int64_t* shape);
/* `data` holds the elements in `dtype`, row-major; it is copied. */
RLXDEF rlx_tensor rlx_constant(rlx_graph* g, rlx_dtype dtype, int rank, const int64_t* shape, const void* data);
RLXDEF rlx_tensor rlx_scalar(rlx_graph* g, rlx_dtype dtype, double value);  /* rank-0 constant */
/* Marks t as a graph output under `name`. A tensor may be output under several names. */
RLXDEF rlx_result rlx_output(rlx_graph* g, const char* name, rlx_tensor t);
/* Node names (labels), e.g. the node names of a model file. A label is shown in error messages ("conv (node 12,
   'backbone.conv1'): ..."), in rlx_graph_dump / rlx_graph_dump_dot and in rlx_program_report, and nothing else:
   it is never looked up, need not be unique, and is independent of input, param, state and output names (a
   label may equal any of them; an input keeps its input name for rlx_set_input whatever its label). The name is
   copied (at most 255 bytes, more is clipped on a UTF-8 boundary). rlx_set_name labels the node of t (replacing
   its label); rlx_set_next_name labels the next node a builder adds, so that the builder's own error already
   names it (a builder that adds several nodes labels the first; NULL clears a pending name). Errors are sticky
   like a builder's: RLX_ERROR_INVALID_TENSOR for a bad handle, RLX_ERROR_INVALID_ARGUMENT for a NULL or empty
   name (rlx_set_name). */
RLXDEF rlx_result rlx_set_name(rlx_graph* g, rlx_tensor t, const char* name);
RLXDEF rlx_result rlx_set_next_name(rlx_graph* g, const char* name);

/* Op codes (also used by rlx_unary/rlx_binary/rlx_reduce and by the text dump). */
#define RLX_OP_LIST(X) \
    X(INVALID, "invalid") X(INPUT, "input") X(PARAM, "param") X(CONSTANT, "constant") \
    X(NEG, "neg") X(ABS, "abs") X(EXP, "exp") X(LOG, "log") X(SQRT, "sqrt") X(RSQRT, "rsqrt") \
    X(SIN, "sin") X(COS, "cos") X(TAN, "tan") X(ATAN, "atan") X(TANH, "tanh") X(SIGMOID, "sigmoid") \
    X(RELU, "relu") X(GELU, "gelu") X(GELU_TANH, "gelu_tanh") X(SILU, "silu") X(ERF, "erf") \
    X(ROUND, "round") X(FLOOR, "floor") X(CEIL, "ceil") \
    X(ADD, "add") X(SUB, "sub") X(MUL, "mul") X(DIV, "div") X(POW, "pow") X(MAX, "max") X(MIN, "min") \
    X(EQ, "eq") X(NE, "ne") X(LT, "lt") X(LE, "le") X(GT, "gt") X(GE, "ge") \
    X(WHERE, "where") X(CAST, "cast") X(MATMUL, "matmul") \
    X(SUM, "sum") X(MEAN, "mean") X(REDUCE_MAX, "reduce_max") X(REDUCE_MIN, "reduce_min") X(PROD, "prod") \
    X(ARGMAX, "argmax") X(ARGMIN, "argmin") X(SOFTMAX, "softmax") X(LOG_SOFTMAX, "log_softmax") \
    X(LAYERNORM, "layernorm") X(RMSNORM, "rmsnorm") \
    X(RESHAPE, "reshape") X(TRANSPOSE, "transpose") X(SLICE, "slice") X(CONCAT, "concat") \
    X(EXPAND, "expand") X(GATHER, "gather") \
    X(ATTENTION, "attention") X(ROPE, "rope") X(CUMSUM, "cumsum") X(TOPK, "topk") X(SAMPLE, "sample") \
    X(CONV, "conv") X(CONV_TRANSPOSE, "conv_transpose") X(POOL, "pool") X(GROUP_NORM, "group_norm") \
    X(RESIZE, "resize") X(PAD, "pad") \
    X(LINEAR, "linear") X(ADD_NORM, "add_norm") X(SWIGLU, "swiglu") X(GEGLU, "geglu") X(FUSED_EW, "fused_ew") \
    X(STATE, "state") X(STATE_WRITE, "state_write") X(EXTRA, "extra") \
    X(MATMUL_INTEGER, "matmul_integer") X(MATMUL_QUANT, "matmul_quant")

typedef enum rlx_op {
#define RLX__OP_ENUM(n, s) RLX_OP_##n,
    RLX_OP_LIST(RLX__OP_ENUM)
#undef RLX__OP_ENUM
    RLX_OP_COUNT,
    RLX_OP_FORCE_U32 = 0x7FFFFFFF
} rlx_op;

RLXDEF const char* rlx_op_name(rlx_op op);

/* Unary ops. Float math (exp … ceil) needs a float dtype (f32, f16, bf16, f64); neg and abs also take signed
   integers; relu takes any signed dtype. gelu is the exact erf form 0.5·x·(1+erf(x/√2)); gelu_tanh is the tanh
   approximation; round is half-to-even; rsqrt(x) = 1/sqrt(x). Output dtype = input dtype. */
RLXDEF rlx_tensor rlx_unary(rlx_graph* g, rlx_op op, rlx_tensor x);
RLXDEF rlx_tensor rlx_neg(rlx_graph* g, rlx_tensor x);
RLXDEF rlx_tensor rlx_abs(rlx_graph* g, rlx_tensor x);
RLXDEF rlx_tensor rlx_exp(rlx_graph* g, rlx_tensor x);
RLXDEF rlx_tensor rlx_log(rlx_graph* g, rlx_tensor x);
RLXDEF rlx_tensor rlx_sqrt(rlx_graph* g, rlx_tensor x);
RLXDEF rlx_tensor rlx_rsqrt(rlx_graph* g, rlx_tensor x);
RLXDEF rlx_tensor rlx_sin(rlx_graph* g, rlx_tensor x);
RLXDEF rlx_tensor rlx_cos(rlx_graph* g, rlx_tensor x);
RLXDEF rlx_tensor rlx_tan(rlx_graph* g, rlx_tensor x);
RLXDEF rlx_tensor rlx_atan(rlx_graph* g, rlx_tensor x);
RLXDEF rlx_tensor rlx_tanh(rlx_graph* g, rlx_tensor x);
RLXDEF rlx_tensor rlx_sigmoid(rlx_graph* g, rlx_tensor x);
RLXDEF rlx_tensor rlx_relu(rlx_graph* g, rlx_tensor x);
RLXDEF rlx_tensor rlx_gelu(rlx_graph* g, rlx_tensor x);
RLXDEF rlx_tensor rlx_gelu_tanh(rlx_graph* g, rlx_tensor x);
RLXDEF rlx_tensor rlx_silu(rlx_graph* g, rlx_tensor x);
RLXDEF rlx_tensor rlx_erf(rlx_graph* g, rlx_tensor x);
RLXDEF rlx_tensor rlx_round(rlx_graph* g, rlx_tensor x);
RLXDEF rlx_tensor rlx_floor(rlx_graph* g, rlx_tensor x);
RLXDEF rlx_tensor rlx_ceil(rlx_graph* g, rlx_tensor x);

/* Binary ops with numpy broadcasting. Both operands must have the same dtype (cast first); bool is not
   allowed for arithmetic. Integer division truncates toward zero and x/0 gives 0 (no trap); integer pow
   needs a non-negative exponent (negative gives 0); integer overflow wraps. max/min propagate NaN.
   Comparisons (eq … ge) give bool. */
RLXDEF rlx_tensor rlx_binary(rlx_graph* g, rlx_op op, rlx_tensor a, rlx_tensor b);
RLXDEF rlx_tensor rlx_add(rlx_graph* g, rlx_tensor a, rlx_tensor b);
RLXDEF rlx_tensor rlx_sub(rlx_graph* g, rlx_tensor a, rlx_tensor b);
RLXDEF rlx_tensor rlx_mul(rlx_graph* g, rlx_tensor a, rlx_tensor b);
RLXDEF rlx_tensor rlx_div(rlx_graph* g, rlx_tensor a, rlx_tensor b);
RLXDEF rlx_tensor rlx_pow(rlx_graph* g, rlx_tensor a, rlx_tensor b);
RLXDEF rlx_tensor rlx_max(rlx_graph* g, rlx_tensor a, rlx_tensor b);
RLXDEF rlx_tensor rlx_min(rlx_graph* g, rlx_tensor a, rlx_tensor b);
RLXDEF rlx_tensor rlx_eq(rlx_graph* g, rlx_tensor a, rlx_tensor b);
RLXDEF rlx_tensor rlx_ne(rlx_graph* g, rlx_tensor a, rlx_tensor b);
RLXDEF rlx_tensor rlx_lt(rlx_graph* g, rlx_tensor a, rlx_tensor b);
RLXDEF rlx_tensor rlx_le(rlx_graph* g, rlx_tensor a, rlx_tensor b);
RLXDEF rlx_tensor rlx_gt(rlx_graph* g, rlx_tensor a, rlx_tensor b);
RLXDEF rlx_tensor rlx_ge(rlx_graph* g, rlx_tensor a, rlx_tensor b);
/* where(cond, a, b): cond is bool; a and b share a dtype; all three broadcast together. */
RLXDEF rlx_tensor rlx_where(rlx_graph* g, rlx_tensor cond, rlx_tensor a, rlx_tensor b);

/* Cast between any two dtypes:
   - float → float: round to nearest even (f32→f16 overflows to ±inf; NaN stays NaN);
   - float → integer: truncate toward zero, then saturate to the target range; NaN → 0;
   - integer → integer: saturate to the target range (no wrap-around);
   - anything → bool: value != 0 (NaN → true); bool → number: 0 or 1. */
RLXDEF rlx_tensor rlx_cast(rlx_graph* g, rlx_tensor x, rlx_dtype to);

/* Matrix product with numpy matmul semantics: rank-1 a is [k] → [1,k] (dim removed after), rank-1 b is [k] →
   [k,1]; batch dims broadcast. Both operands share a dtype (f32, f16, bf16, f64 or an integer type). f16/bf16
   accumulate in f32; integers accumulate in int64 and wrap to the output type. A b given as a transpose that
   swaps its last two dims is read in place (no copy), on every device, for every dtype. */
RLXDEF rlx_tensor rlx_matmul(rlx_graph* g, rlx_tensor a, rlx_tensor b);

/* Integer matrix product (ONNX MatMulInteger): (a - a_zero_point) · (b - b_zero_point) in int32, exact (the sums
   wrap modulo 2^32 only where int32 cannot hold the result). a and b are each i8 or u8; shapes, batching and
   broadcasting as rlx_matmul; output i32. Zero points are optional (a zero handle means 0) and have their
   operand's dtype: a_zero_point one element (any rank) or [M] (one per row of a), b_zero_point one element or
   [N] (one per column of b). GPUs run it as casts to i32, subtractions and an i32 matmul. */
RLXDEF rlx_tensor rlx_matmul_integer(rlx_graph* g, rlx_tensor a, rlx_tensor b, rlx_tensor a_zero_point,
                                     rlx_tensor b_zero_point);

/* Matrix product with a block-quantized weight in GGUF layout (>>quant): y[..., n] = Σ_k x[..., k] · w[n, k],
   i.e. x · wᵀ, the layout of nn.Linear and of every GGUF weight. x is f32 [..., K] (any rank ≥ 1), w is
   [N, K] of a block dtype (RLX_Q4_0 … RLX_IQ4_XS; K a multiple of its block), y is f32 [..., N]. A separate op
   rather than rlx_matmul(x, rlx_transpose(w)): the transpose of a block tensor would move its blocks off the
   last axis, so it cannot exist as a tensor. The CPU dequantizes the weight exactly (as rlx_cast would) a few
   rows at a time and sums in f32 (x stays f32: no 8-bit rounding of the activations, unlike ggml's CPU path).
   GPUs do not run it yet (compile fails with RLX_ERROR_UNSUPPORTED). */
RLXDEF rlx_tensor rlx_matmul_quant(rlx_graph* g, rlx_tensor x, rlx_tensor w);

/* Reductions over a set of axes (negative axes count from the end; naxes = 0 means all axes). sum/prod of an
   integer or bool tensor give int64 (numpy's default), otherwise the input dtype; mean needs a float dtype.
   argmax/argmin give int64 indices along one axis; ties go to the first index; a NaN wins (the index of the
   first NaN, as numpy). max/min reductions propagate NaN. */
RLXDEF rlx_tensor rlx_reduce(rlx_graph* g, rlx_op op, rlx_tensor x, int naxes, const int* axes, int keepdims);
RLXDEF rlx_tensor rlx_reduce_sum(rlx_graph* g, rlx_tensor x, int naxes, const int* axes, int keepdims);
RLXDEF rlx_tensor rlx_reduce_mean(rlx_graph* g, rlx_tensor x, int naxes, const int* axes, int keepdims);
RLXDEF rlx_tensor rlx_reduce_max(rlx_graph* g, rlx_tensor x, int naxes, const int* axes, int keepdims);
RLXDEF rlx_tensor rlx_reduce_min(rlx_graph* g, rlx_tensor x, int naxes, const int* axes, int keepdims);
RLXDEF rlx_tensor rlx_reduce_prod(rlx_graph* g, rlx_tensor x, int naxes, const int* axes, int keepdims);
RLXDEF rlx_tensor rlx_argmax(rlx_graph* g, rlx_tensor x, int axis, int keepdims);
RLXDEF rlx_tensor rlx_argmin(rlx_graph* g, rlx_tensor x, int axis, int keepdims);

/* Normalisation (float dtypes). softmax/log_softmax over one axis. layernorm normalises over the trailing
   dims [axis, rank) (ONNX LayerNormalization); gamma and beta are optional (pass a zero handle) and must have
   shape x.shape[axis:]. rmsnorm normalises over the last axis: y = x / sqrt(mean(x²) + eps) · γ + β, with
   optional γ, β of shape [x.shape[-1]]. */
RLXDEF rlx_tensor rlx_softmax(rlx_graph* g, rlx_tensor x, int axis);
RLXDEF rlx_tensor rlx_log_softmax(rlx_graph* g, rlx_tensor x, int axis);
RLXDEF rlx_tensor rlx_layernorm(rlx_graph* g, rlx_tensor x, rlx_tensor gamma, rlx_tensor beta, int axis, float eps);
RLXDEF rlx_tensor rlx_rmsnorm(rlx_graph* g, rlx_tensor x, rlx_tensor gamma, rlx_tensor beta, float eps);

/* Layout ops. reshape: one dim may be -1 (inferred). transpose: perm is a permutation of 0..rank-1 (NULL
   reverses the axes). slice: `length` elements along `axis` starting at `start` (negative counts from the end)
   with `step` ≥ 1; start + (length-1)·step must lie inside the axis. narrow = slice with step 1. concat: n ≥ 1
   tensors of one dtype, equal except along `axis`. expand: numpy broadcast_to (the new shape may add leading
   dims). gather: numpy take(x, indices, axis): output shape x.shape[:axis] + indices.shape + x.shape[axis+1:];
   indices are i32 or i64, negative ones count from the end; an index still out of range after that reads 0. */
RLXDEF rlx_tensor rlx_reshape(rlx_graph* g, rlx_tensor x, int rank, const int64_t* shape);
RLXDEF rlx_tensor rlx_transpose(rlx_graph* g, rlx_tensor x, const int* perm);
RLXDEF rlx_tensor rlx_slice(rlx_graph* g, rlx_tensor x, int axis, int64_t start, int64_t length, int64_t step);
RLXDEF rlx_tensor rlx_narrow(rlx_graph* g, rlx_tensor x, int axis, int64_t start, int64_t length);
RLXDEF rlx_tensor rlx_concat(rlx_graph* g, int n, const rlx_tensor* xs, int axis);
RLXDEF rlx_tensor rlx_expand(rlx_graph* g, rlx_tensor x, int rank, const int64_t* shape);
RLXDEF rlx_tensor rlx_gather(rlx_graph* g, rlx_tensor x, rlx_tensor indices, int axis);

/* ---- model ops: attention, rope, sampling ----------------------------------------------------------------- */

typedef enum rlx_layout {
    RLX_LAYOUT_BSHD = 0,   /* [B, S, H·D]: heads packed in the last dim (needs num_heads) */
    RLX_LAYOUT_BHSD,       /* [B, H, S, D]                                                 */
    RLX_LAYOUT_COUNT,
    RLX_LAYOUT_FORCE_U32 = 0x7FFFFFFF
} rlx_layout;

/* Attention. q: [B, Sq, H·D] or [B, H, Sq, D]; k: [B, Sk, Hkv·D] / [B, Hkv, Sk, D]; v: the same with Dv;
   output: [B, Sq, H·Dv] / [B, H, Sq, Dv] in q's dtype (float; computed in f32). Grouped-query attention is
   native: query head h reads kv head h / (H / Hkv); K and V are never copied. Every mask below combines:
     - kv_len (optional i32/i64 scalar tensor, default Sk; or [B], one per batch row, for sequences of one
       batch at different lengths): keys j >= kv_len[b] are masked (kv_len is clamped to [0, Sk]). The causal
       offset is off = kv_len[b] - Sq, so query i of batch b sits at position i + off (decoding with a
       fixed-size KV cache);
     - causal: key j is visible to query i iff j <= i + off;
     - window > 0 (sliding window, implies causal): also j > i + off - window;
     - keep_mask (optional bool [B, Sk] or [B, Sq, Sk]): false hides key j;
     - bias (optional, q's dtype, broadcastable to [B, H, Sq, Sk]): added to the logits.
   Logits: s = scale · q·k (scale 0 = 1/sqrt(D)); if softcap > 0, s = softcap · tanh(s / softcap); then s += bias.
   A query that sees no key at all outputs zeros (never NaN). */
typedef struct rlx_attention_desc {
    rlx_layout layout;
    int num_heads;        /* H: required for BSHD; for BHSD 0 or equal to q.shape[1]   */
    int num_kv_heads;     /* Hkv: 0 = derived from k (BHSD) or = num_heads (BSHD)      */
    int causal;
    int window;
    rlx_tensor keep_mask;
    rlx_tensor bias;
    rlx_tensor kv_len;
    float scale;
    float softcap;
} rlx_attention_desc;
RLXDEF rlx_tensor rlx_attention(rlx_graph* g, rlx_tensor q, rlx_tensor k, rlx_tensor v, const rlx_attention_desc* desc);

typedef enum rlx_rope_kind {
    RLX_ROPE_NEOX = 0,     /* rotate-half: pairs (i, i + n_rot/2)  */
    RLX_ROPE_GPTJ,         /* interleaved: pairs (2i, 2i + 1)       */
    RLX_ROPE_KIND_COUNT,
    RLX_ROPE_KIND_FORCE_U32 = 0x7FFFFFFF
} rlx_rope_kind;

/* Rotary position embedding. x: [B, S, H·D] (BSHD, needs num_heads) or [B, H, S, D]. cos/sin: [P, n_rot/2] in
   x's dtype (see rlx_rope_tables). Pair p of a token at position t: (a, b) → (a·cos[t,p] − b·sin[t,p],
   b·cos[t,p] + a·sin[t,p]). Dims past n_rot pass through. Positions come from `positions` (i32/i64 [S] or
   [B, S]: one row of positions per batch row, for sequences at different lengths) or, without it,
   position_offset + s. A position outside [0, P) leaves its token unrotated. */
typedef struct rlx_rope_desc {
    rlx_rope_kind kind;
    rlx_layout layout;
    int num_heads;
    int n_rot;                 /* rotated dims, even, <= D; 0 = D */
    rlx_tensor positions;
    int64_t position_offset;
} rlx_rope_desc;
RLXDEF rlx_tensor rlx_rope(rlx_graph* g, rlx_tensor x, rlx_tensor cos, rlx_tensor sin, const rlx_rope_desc* desc);
/* Fills cos/sin tables of max_pos × n_rot/2 floats: angle(t, p) = t · theta^(−2p / n_rot). */
RLXDEF rlx_result rlx_rope_tables(float* cos_out, float* sin_out, int max_pos, int n_rot, double theta);

/* Cumulative sum along axis (sum dtype rules as rlx_reduce_sum). exclusive: element i gets the sum of the
   elements before it; reverse: sums run from the end. */
RLXDEF rlx_tensor rlx_cumsum(rlx_graph* g, rlx_tensor x, int axis, int exclusive, int reverse);
/* Top-k along axis: values (x's dtype) and int64 indices, sorted best first; ties go to the smaller index;
   largest = 0 selects the smallest. NaN counts as larger than every number. Either out pointer may be NULL. */
RLXDEF rlx_result rlx_topk(rlx_graph* g, rlx_tensor x, int k, int axis, int largest, rlx_tensor* values,
                           rlx_tensor* indices);

/* Sampling from logits [..., V] → int64 token ids [...]. Reproducible on every backend: row r draws
   u = rlx_uniform(seed, counter, r) from a counter-based generator (splitmix64 of seed, counter and row;
   24 bits → [0, 1)), where counter is an i64 scalar tensor you advance per step. Steps: temperature <= 0
   means greedy (argmax, first index on ties); else candidates are the top_k largest logits (0 = all; ties
   to the smaller index), probabilities softmax(logit / temperature) over candidates in that order, top_p < 1
   keeps the shortest prefix whose probability mass reaches top_p, and the token is the first candidate whose
   cumulative (renormalised) probability exceeds u. */
typedef struct rlx_sample_desc {
    float temperature;
    int top_k;
    float top_p;          /* 0 or >= 1: off */
    uint64_t seed;
} rlx_sample_desc;
RLXDEF rlx_tensor rlx_sample(rlx_graph* g, rlx_tensor logits, rlx_tensor counter, const rlx_sample_desc* desc);
RLXDEF float rlx_uniform(uint64_t seed, int64_t counter, int64_t row);

/* ---- vision and audio ops (NCHW / NCL) -------------------------------------------------------------------- */

/* conv: x [N, C, L] (1D) or [N, C, H, W] (2D); w [O, C/groups, K] or [O, C/groups, KH, KW]; optional bias [O].
   conv_transpose (2D): x [N, C, H, W]; w [C, O/groups, KH, KW]; out = (in−1)·stride − pad_begin − pad_end +
   dilation·(K−1) + output_padding + 1. Arrays are per spatial dim ([0] only for 1D); zero means the default
   (stride 1, dilation 1, groups 1, padding 0). Float dtypes. */
typedef struct rlx_conv_desc {
    int stride[2];
    int dilation[2];
    int pad_begin[2];
    int pad_end[2];
    int output_padding[2];  /* conv_transpose only, < stride */
    int groups;
} rlx_conv_desc;
RLXDEF rlx_tensor rlx_conv(rlx_graph* g, rlx_tensor x, rlx_tensor w, rlx_tensor bias, const rlx_conv_desc* desc);
RLXDEF rlx_tensor rlx_conv_transpose(rlx_graph* g, rlx_tensor x, rlx_tensor w, rlx_tensor bias, const rlx_conv_desc* desc);

typedef enum rlx_pool_kind { RLX_POOL_INVALID = 0, RLX_POOL_MAX, RLX_POOL_AVG, RLX_POOL_KIND_COUNT,
                             RLX_POOL_KIND_FORCE_U32 = 0x7FFFFFFF } rlx_pool_kind;
/* Pooling over the spatial dims of [N, C, L] or [N, C, H, W]. stride 0 = kernel size. Max pooling ignores
   padding; average pooling divides by the window size including padding when count_include_pad, else by the
   number of real elements. global = 1 pools each whole plane (kernel/stride/padding ignored). */
typedef struct rlx_pool_desc {
    rlx_pool_kind kind;
    int kernel[2];
    int stride[2];
    int pad_begin[2];
    int pad_end[2];
    int count_include_pad;
    int global;
} rlx_pool_desc;
RLXDEF rlx_tensor rlx_pool(rlx_graph* g, rlx_tensor x, const rlx_pool_desc* desc);

/* group_norm: x [N, C, ...], C divisible by groups; normalised over each group's channels and spatial dims;
   optional gamma/beta [C]. */
RLXDEF rlx_tensor rlx_group_norm(rlx_graph* g, rlx_tensor x, int groups, rlx_tensor gamma, rlx_tensor beta, float eps);

typedef enum rlx_resize_mode { RLX_RESIZE_INVALID = 0, RLX_RESIZE_NEAREST, RLX_RESIZE_BILINEAR,
                               RLX_RESIZE_MODE_COUNT, RLX_RESIZE_MODE_FORCE_U32 = 0x7FFFFFFF } rlx_resize_mode;
/* resize of [N, C, H, W] to [N, C, out_h, out_w]. nearest: src = floor(dst · in / out). bilinear:
   align_corners = 0 uses half-pixel centres (src = (dst + 0.5) · in / out − 0.5, clamped at the edges),
   1 maps corner to corner. */
RLXDEF rlx_tensor rlx_resize(rlx_graph* g, rlx_tensor x, int64_t out_h, int64_t out_w, rlx_resize_mode mode,
                             int align_corners);

typedef enum rlx_pad_mode { RLX_PAD_INVALID = 0, RLX_PAD_CONSTANT, RLX_PAD_REFLECT, RLX_PAD_EDGE,
                            RLX_PAD_MODE_COUNT, RLX_PAD_MODE_FORCE_U32 = 0x7FFFFFFF } rlx_pad_mode;
/* pad: before[i]/after[i] >= 0 elements on each axis (arrays of x's rank). reflect mirrors without repeating
   the edge (needs pad < dim), edge repeats it, constant fills `value`. */
RLXDEF rlx_tensor rlx_pad(rlx_graph* g, rlx_tensor x, const int64_t* before, const int64_t* after, rlx_pad_mode mode,
                          double value);

/* ---- fused ops (built directly or formed by the fusion pass) ---------------------------------------------- */

typedef enum rlx_activation { RLX_ACT_NONE = 0, RLX_ACT_RELU, RLX_ACT_GELU, RLX_ACT_GELU_TANH, RLX_ACT_SILU,
                              RLX_ACT_COUNT, RLX_ACT_FORCE_U32 = 0x7FFFFFFF } rlx_activation;
/* act(x · w + bias): x [..., K], w [K, N], optional bias [N]; f32 only. A weight stored [N, K] (nn.Linear, ONNX
   Gemm transB = 1) is passed as rlx_transpose(W): the compiled program reads W in place on every device (no copy
   step, no weight-sized buffer in the arena), as it does for matmul(x, transpose(W)) [+ bias] [+ activation],
   which the fusion pass turns into this op. */
RLXDEF rlx_tensor rlx_linear(rlx_graph* g, rlx_tensor x, rlx_tensor w, rlx_tensor bias, rlx_activation act);
/* norm(x + residual) in one step (x and residual of one shape); if sum_out is non-NULL it receives x + residual
   from the same step. rmsnorm / layernorm semantics as the plain ops. */
RLXDEF rlx_tensor rlx_add_rmsnorm(rlx_graph* g, rlx_tensor x, rlx_tensor residual, rlx_tensor gamma, rlx_tensor beta,
                                  float eps, rlx_tensor* sum_out);
RLXDEF rlx_tensor rlx_add_layernorm(rlx_graph* g, rlx_tensor x, rlx_tensor residual, rlx_tensor gamma, rlx_tensor beta,
                                    int axis, float eps, rlx_tensor* sum_out);
/* swiglu = silu(gate) · up; geglu = gelu(gate) · up (erf gelu); same shapes and float dtype. */
RLXDEF rlx_tensor rlx_swiglu(rlx_graph* g, rlx_tensor gate, rlx_tensor up);
RLXDEF rlx_tensor rlx_geglu(rlx_graph* g, rlx_tensor gate, rlx_tensor up);

/* ---- state (incremental decoding) ------------------------------------------------------------------------- */

/* A state tensor persists across runs of one program (zeros after compile; clones copy it). Read and write
   it from the host with rlx_set_state / rlx_get_state. */
RLXDEF rlx_tensor rlx_state(rlx_graph* g, const char* name, rlx_dtype dtype, int rank, const int64_t* shape);
/* Writes `update` into `state` in place along `axis`, starting at the value of `offset` (read at run time);
   update has the state's shape except along axis. offset is an i32/i64 scalar tensor, or, with axis > 0, an
   i32/i64 [B] tensor (B = the state's dim 0, the batch): batch row b is written at offset[b] (continuous
   batching, each sequence at its own length). The update's rows [offset, offset + len) must fit in the
   state's dim along axis: an offset that does not fit makes rlx_run return RLX_ERROR_OUT_OF_RANGE (the message
   names the state, the batch row and the offset) and that batch row (for a scalar offset: the whole update)
   is not written; the other rows and every other step of the run still run, and outputs can be read. Returns
   the updated state: every later reader must use the returned tensor (a reader of the old handle sees either
   version). The write always runs, even when nothing reads the result. */
RLXDEF rlx_tensor rlx_state_write(rlx_graph* g, rlx_tensor state, rlx_tensor update, int axis, rlx_tensor offset);

/* Dumps. Write into buf (always NUL-terminated when cap > 0) and return the length the full text needs (not
   counting the NUL), like snprintf: call with buf = NULL, cap = 0 to size the buffer. */
RLXDEF size_t rlx_graph_dump(const rlx_graph* g, char* buf, size_t cap);
RLXDEF size_t rlx_graph_dump_dot(const rlx_graph* g, char* buf, size_t cap);

/* ---- symbolic dims (shape polymorphism) ------------------------------------------------------------------- */

/* Declares a named symbolic dim of g (e.g. "seq", "batch") and returns its token, a reserved negative int64
   (RLX_DIM_TOKEN(k) for the k-th dim of g) that may stand for a dim wherever these take a shape or a length:
       rlx_input, rlx_param, rlx_state shapes; rlx_reshape and rlx_expand targets; rlx_slice / rlx_narrow length.
   The graph is built and validated at `example_value` (so rlx_tensor_info shows example shapes); rlx_compile
   specialises it for the values in rlx_compile_desc.dims (unbound dims take their example value) by replaying
   every builder in order with the new shapes, then optimises, plans and lowers as usual. A slice with a negative
   start counts from the end of the specialised axis; a reshape with a -1 entry re-infers it (both only for nodes
   built after the graph's first rlx_dim: declare dims before building). Compiled programs
   are cached per (dim values, device, flags, allocator) inside the graph (RLX_DIM_CACHE entries, least recently
   used dropped), so compiling the same values again skips everything but the program's own memory.
   Errors (sticky): g NULL, name NULL/empty/duplicate, example_value < 1 or > RLX_MAX_ELEMENTS, more than
   RLX_MAX_DIMS dims. On error returns 0 (which no builder accepts as a dim). */
#define RLX_MAX_DIMS 16
#define RLX_DIM_TOKEN(k) (-((int64_t)1 << 40) - (int64_t)(k))
RLXDEF int64_t rlx_dim(rlx_graph* g, const char* name, int64_t example_value);

/* ============================================================================================================
   >>program
   ============================================================================================================ */

typedef enum rlx_device {
    RLX_DEVICE_AUTO = 0,   /* the first of: CUDA device 0, HIP device 0, Vulkan device 0 (rlx's order; not a CPU
                              implementation such as lavapipe), the CPU, that is available and compiles the
                              graph (a GPU that cannot run an op is skipped)                              */
    RLX_DEVICE_CPU,
    RLX_DEVICE_VULKAN,
    RLX_DEVICE_CUDA,
    RLX_DEVICE_HIP,
    RLX_DEVICE_COUNT,
    RLX_DEVICE_FORCE_U32 = 0x7FFFFFFF
} rlx_device;

enum {
    RLX_COMPILE_NO_FALLBACK = 1u << 0,  /* fail instead of falling back to another device              */
    RLX_COMPILE_NO_OPTIMIZE = 1u << 1,  /* skip constant folding, CSE and DCE (verify still runs)      */
    RLX_COMPILE_NO_REUSE = 1u << 2,     /* give every buffer its own memory (for debugging the planner) */
    RLX_COMPILE_DECOMPOSE = 1u << 3,    /* legalize as if the device lacked every composite op that has a
                                           decomposition (gelu, silu, sigmoid, rsqrt, mean, softmax,
                                           log_softmax, layernorm, rmsnorm, linear, add+norm, swiglu, geglu,
                                           fused elementwise): tests the GPU legalizer on the CPU */
    RLX_COMPILE_NO_FUSION = 1u << 4,    /* skip the fusion pass (matmul+bias+act, add+norm, GLUs, elementwise
                                           chains); RLX_COMPILE_NO_OPTIMIZE implies it */
    RLX_COMPILE_TF32 = 1u << 5,         /* GPUs may run f32 matmuls in TF32 (10-bit mantissa inputs, ~1e-3
                                           relative error) on tensor cores; by default they keep f32 accuracy */
    RLX_COMPILE_PROFILE = 1u << 6       /* time every step of every run (rlx_program_profile); the same as
                                           calling rlx_program_profile_enable(p, 1) after compiling */
};

/* ---- thread pools ------------------------------------------------------------------------------------------

   By default every CPU program owns its worker threads. A thread pool is a set of workers that any number of
   programs share (rlx_compile_desc.pool), or a hook that runs rlx.h's parallel loops on the application's own
   job system. Zero-initialise the desc:
     num_threads   threads that run one parallel step, the calling thread included (0 = one per core, capped
                   at RLX_MAX_THREADS). With a hook: the most jobs rlx.h hands to one parallel_for call, so
                   it also sizes each program's per-thread scratch.
     allocator     for the pool object (zero = RLX_MALLOC/RLX_FREE).
     parallel_for  optional hook. rlx.h calls parallel_for(user_data, count, job, ctx) with
                   2 <= count <= num_threads; the hook must call job(ctx, i) exactly once for every i in
                   [0, count), on any threads, in any order, concurrently or not, and return only when all of
                   them have returned. Job i works as thread i: it takes the step's tasks one by one from a
                   shared counter and uses scratch slice i, so the hook never chooses a scratch index (a
                   second call of the same i while the first runs, or an i out of range, returns at once; tasks
                   that no job took run on the calling thread after the hook returns). The hook may be called
                   from several threads at once (one call per program that runs). No workers are started.
     user_data     passed to the hook.
   Sharing: every program keeps its own scratch, so programs on one pool never share memory. With workers, one
   parallel step at a time owns them: a step of another program that finds them busy runs on its own calling
   thread instead of waiting (two programs on two application threads never block each other). Through a hook,
   every parallel step is an independent call.
   Small steps run on the calling thread without waking any thread (and without calling the hook): a step
   splits only when its work, counted in element operations (one per multiply-add, per element read and
   written, per window element), reaches RLX_PARALLEL_MIN_WORK (default 65536), so M = 1 matmuls of a small
   model and tiny convolutions are not slowed down by thread wake-ups.
   With RLX_NO_THREADS a pool has one thread and never calls the hook.
   Thread safety: create and destroy from any thread. The pool is reference-counted: destroying it while
   programs still use it is allowed; the workers stop when the last of those programs is destroyed. */
typedef struct rlx_thread_pool rlx_thread_pool;
typedef void (*rlx_job_fn)(void* ctx, int64_t index);
typedef struct rlx_thread_pool_desc {
    int num_threads;
    rlx_allocator allocator;
    void (*parallel_for)(void* user_data, int64_t count, rlx_job_fn job, void* ctx);
    void* user_data;
} rlx_thread_pool_desc;

/* *out = a new pool. RLX_ERROR_INVALID_ARGUMENT for out == NULL, num_threads < 0 or > RLX_MAX_THREADS, or an
   allocator with only one of alloc/free; RLX_ERROR_OUT_OF_MEMORY. desc may be NULL (one worker per core). */
RLXDEF rlx_result rlx_thread_pool_create(const rlx_thread_pool_desc* desc, rlx_thread_pool** out);
RLXDEF void rlx_thread_pool_destroy(rlx_thread_pool* pool);           /* NULL is fine */
RLXDEF int rlx_thread_pool_threads(const rlx_thread_pool* pool);      /* threads incl. the caller; 0 for NULL */
/* A value for a symbolic dim declared with rlx_dim, by name. */
typedef struct rlx_dim_value {
    const char* name;
    int64_t value;           /* 1 ..= RLX_MAX_ELEMENTS                                       */
} rlx_dim_value;

/* Zero-initialise and set what you need. */
typedef struct rlx_compile_desc {
    rlx_device device;       /* 0 = AUTO                                                   */
    int device_index;        /* which device of that kind (0 = first; see rlx_devices); must
                                be 0 with AUTO                                             */
    int num_threads;         /* CPU worker threads incl. the caller; 0 = one per core      */
    uint32_t flags;          /* RLX_COMPILE_*                                               */
    rlx_allocator allocator; /* zero = the graph's allocator                                */
    rlx_store* store;        /* bind params and states by name to this store (see rlx_store)   */
    rlx_thread_pool* pool;   /* CPU programs: run on this shared pool (num_threads must be 0 or
                                equal to its size); NULL = the program starts its own threads */
    const rlx_dim_value* dims; /* values of the graph's symbolic dims (see rlx_dim); unbound   */
    int num_dims;              /* dims take their example value; NULL/0 = all examples        */
} rlx_compile_desc;

/* Compiles g into *out. On failure *out is NULL and rlx_graph_error(g) says why. The program does not refer to
   the graph afterwards. A graph with a sticky builder error, no nodes or no outputs fails with
   RLX_ERROR_BAD_GRAPH. With desc->store, params and states are bound to the store by name (see rlx_store
   below): a dtype or shape mismatch fails naming the tensor, and the device is the store's. */
RLXDEF rlx_result rlx_compile(rlx_graph* g, const rlx_compile_desc* desc, rlx_program** out);
RLXDEF void rlx_program_destroy(rlx_program* p);             /* NULL is fine; joins worker threads */
RLXDEF const char* rlx_program_error(const rlx_program* p);  /* message of the last failure on p ("" if none) */
RLXDEF rlx_device rlx_program_device(const rlx_program* p);
RLXDEF const char* rlx_program_device_reason(const rlx_program* p); /* why this device was chosen */

/* Clone: a new program with the same steps, its own arena, inputs and threads. share_weights != 0 makes the
   clone use the same param storage as p (set_param on either is seen by both; the storage lives until the
   last sharer is destroyed); 0 copies the current param values. Constants are always shared (read-only).
   Params and states bound to a store stay bound: the clone shares them with p either way. */
RLXDEF rlx_result rlx_program_clone(rlx_program* p, int share_weights, rlx_program** out);

/* Params. `dtype` is the dtype of *your* buffer; values are converted to the param's dtype with the rules of
   rlx_cast. `bytes` must equal element count × rlx_dtype_size(dtype). rlx_set_param_raw copies bytes as they
   are and needs bytes == the param's own byte size. A block-quantized tensor (>>quant) takes only its own dtype,
   `bytes` = rlx_tensor_bytes (no conversion; any other dtype is RLX_ERROR_DTYPE). Every param must be set before the first rlx_run
   (RLX_ERROR_NOT_SET otherwise); values persist across runs. */
RLXDEF rlx_result rlx_set_param(rlx_program* p, const char* name, rlx_dtype dtype, const void* data, size_t bytes);
RLXDEF rlx_result rlx_set_param_raw(rlx_program* p, const char* name, const void* data, size_t bytes);
RLXDEF rlx_result rlx_set_param_f32(rlx_program* p, const char* name, const float* data, size_t count);
RLXDEF rlx_result rlx_set_param_f64(rlx_program* p, const char* name, const double* data, size_t count);
RLXDEF rlx_result rlx_set_param_f16(rlx_program* p, const char* name, const uint16_t* data, size_t count);
RLXDEF rlx_result rlx_set_param_bf16(rlx_program* p, const char* name, const uint16_t* data, size_t count);
RLXDEF rlx_result rlx_set_param_i32(rlx_program* p, const char* name, const int32_t* data, size_t count);
RLXDEF rlx_result rlx_set_param_i64(rlx_program* p, const char* name, const int64_t* data, size_t count);

/* Inputs: same conversion rules as params. Every input must be set before the first run; values persist. */
RLXDEF rlx_result rlx_set_input(rlx_program* p, const char* name, rlx_dtype dtype, const void* data, size_t bytes);
RLXDEF rlx_result rlx_set_input_f32(rlx_program* p, const char* name, const float* data, size_t count);
RLXDEF rlx_result rlx_set_input_i32(rlx_program* p, const char* name, const int32_t* data, size_t count);
RLXDEF rlx_result rlx_set_input_i64(rlx_program* p, const char* name, const int64_t* data, size_t count);

/* Runs every step. Fails with RLX_ERROR_NOT_SET (naming the first missing tensor) if a param or input was never
   set; nothing is computed then. */
RLXDEF rlx_result rlx_run(rlx_program* p);

/* Outputs, converted to `dtype` (the dtype of your buffer) with the rules of rlx_cast; bytes must equal the
   output's element count × rlx_dtype_size(dtype). Reading before the first successful run is an error. */
RLXDEF rlx_result rlx_get_output(rlx_program* p, const char* name, rlx_dtype dtype, void* dst, size_t bytes);
RLXDEF rlx_result rlx_get_output_f32(rlx_program* p, const char* name, float* dst, size_t count);
RLXDEF rlx_result rlx_get_output_i64(rlx_program* p, const char* name, int64_t* dst, size_t count);
/* Zero-copy: *data points at the output in its own dtype inside the program's memory, valid until the next
   rlx_run, rlx_set_* or rlx_program_destroy on p. dtype/rank/shape may be NULL. */
RLXDEF rlx_result rlx_output_ptr(rlx_program* p, const char* name, const void** data, rlx_dtype* dtype, int* rank,
                                 int64_t* shape);
/* States (see rlx_state): same conversion and size rules as params. */
RLXDEF rlx_result rlx_set_state(rlx_program* p, const char* name, rlx_dtype dtype, const void* data, size_t bytes);
RLXDEF rlx_result rlx_get_state(rlx_program* p, const char* name, rlx_dtype dtype, void* dst, size_t bytes);

/* ---- weight set / state store ------------------------------------------------------------------------------

   A store is a set of named tensors (weights and states) that live on ONE device outside every program. A
   program compiled with rlx_compile_desc.store binds each param and each state of its graph whose name is in
   the store to the store's tensor: no copy, no upload, the program's own weight block only holds the params
   that are not in the store (and constants), and rlx_program_plan's weight_bytes / state_bytes count only
   those. Several programs of different graphs and shapes (a prefill and a decode program, several batch sizes,
   clones) bind to one store, so the weights exist once per device, and a state written by one program (a KV
   cache filled by prefill) is read by the next (decode) on the device, with no host round trip.

   Binding rules (checked by rlx_compile, which fails naming the tensor, its graph and store dtype/shape):
     - the dtype and the shape must match exactly (RLX_ERROR_DTYPE, RLX_ERROR_SHAPE);
     - a graph state binds only to a store state (rlx_store_add_state); a param binds to any store tensor;
     - the program's device must be the store's device and index: RLX_DEVICE_AUTO picks the store's device,
       another device fails with RLX_ERROR_INVALID_ARGUMENT; there is no CPU fallback for a GPU store;
     - params and states whose names are not in the store belong to the program as usual.
   rlx_set_param / rlx_set_state on a store-bound tensor write through to the store (every program bound to it
   sees the new value; a borrowed tensor is read-only: RLX_ERROR_INVALID_ARGUMENT); rlx_get_state reads the
   store, and so does rlx_get_output of an output that is a store tensor (e.g. the rlx_state_write of a store
   state; on a GPU rlx_output_ptr of such an output fails: it has no host copy). A clone binds to the same store
   (store-bound states are then shared, not copied).

   Memory. rlx_store_add copies the data into the store (on a GPU: one device allocation per tensor, uploaded
   once, whatever the number of programs). rlx_store_borrow uses the caller's memory in place on the CPU (e.g.
   a mapped file): `data` must stay valid and unchanged by anything but the caller until `release(user)` is
   called, which happens exactly once, when the store and every program bound to it are destroyed. Data that
   is not aligned to its element size (rlx_dtype_size) cannot be used in place: it is copied and `release` is
   called before rlx_store_borrow returns (rlx_store_tensor says which happened). On a GPU, borrowed data is
   uploaded once and `release` is called before rlx_store_borrow returns. rlx_store_destroy drops the caller's
   handle: the storage lives until the last program bound to the store is destroyed (any order is safe).

   Thread safety: a store is changed (add, borrow, set, destroy) by one thread at a time; programs bound to it
   may run on other threads, but a program must not run while a tensor it uses is set or read (rlx_store_set,
   rlx_store_get), and two programs that share a state must not run at the same time. */
typedef struct rlx_store_desc {
    rlx_device device;        /* 0 = AUTO: the device rlx_compile would pick (a GPU if usable, else the CPU) */
    int device_index;         /* which device of that kind (0 = first)                                     */
    rlx_allocator allocator;  /* host memory of the store (zero = RLX_MALLOC/RLX_FREE)                     */
} rlx_store_desc;

/* Creates an empty store on the device (desc may be NULL: AUTO). On failure *out is NULL and the result says
   why (RLX_ERROR_DEVICE_UNAVAILABLE: the device cannot be used). */
RLXDEF rlx_result rlx_store_create(const rlx_store_desc* desc, rlx_store** out);
RLXDEF void rlx_store_destroy(rlx_store* s);                  /* NULL is fine; see "Memory" above */
RLXDEF const char* rlx_store_error(const rlx_store* s);       /* message of the last failure on s ("" if none) */
RLXDEF rlx_device rlx_store_device(const rlx_store* s);       /* the device the store lives on */
/* Adds a tensor; `data` holds its elements in `dtype` (row-major) and is copied. Names are unique in a store
   (RLX_ERROR_DUPLICATE) and non-empty; shapes follow the builder rules (rank <= 8, dims >= 1). */
RLXDEF rlx_result rlx_store_add(rlx_store* s, const char* name, rlx_dtype dtype, int rank, const int64_t* shape,
                                const void* data);
/* Adds a tensor whose memory stays the caller's (zero copy on the CPU); release (may be NULL) is called once
   when it is no longer used (see "Memory" above). */
RLXDEF rlx_result rlx_store_borrow(rlx_store* s, const char* name, rlx_dtype dtype, int rank, const int64_t* shape,
                                   const void* data, void (*release)(void* user), void* user);
/* Adds a state (zeros), e.g. a KV cache shared by a prefill and a decode program. */
RLXDEF rlx_result rlx_store_add_state(rlx_store* s, const char* name, rlx_dtype dtype, int rank, const int64_t* shape);
/* Host write / read of a tensor or state; `dtype` is the dtype of your buffer, converted with the rules of
   rlx_cast; bytes = element count × rlx_dtype_size(dtype). Programs bound to the store see a write at their
   next run. Borrowed tensors cannot be written (RLX_ERROR_INVALID_ARGUMENT). */
RLXDEF rlx_result rlx_store_set(rlx_store* s, const char* name, rlx_dtype dtype, const void* data, size_t bytes);
RLXDEF rlx_result rlx_store_get(rlx_store* s, const char* name, rlx_dtype dtype, void* dst, size_t bytes);

typedef struct rlx_store_stats {
    rlx_device device;
    int device_index;
    int count;                /* tensors and states                                                   */
    size_t bytes;             /* memory the store owns on its device (each tensor rounded up to 64 B)  */
    size_t borrowed_bytes;    /* CPU memory used in place, owned by the caller                          */
    size_t state_bytes;       /* of which states                                                        */
    uint64_t uploads;         /* host-to-device copies made so far (0 on the CPU): one per add/set      */
    int programs;             /* programs bound to the store now                                        */
} rlx_store_stats;
RLXDEF rlx_result rlx_store_info(const rlx_store* s, rlx_store_stats* stats);

typedef struct rlx_store_tensor_info {
    const char* name;         /* valid while the store lives                                             */
    rlx_dtype dtype;
    int rank;
    int64_t shape[RLX_MAX_RANK];
    size_t bytes;             /* element count × dtype size                                               */
    int is_state;
    int borrowed;             /* 1: the caller's memory is used in place                                 */
    const void* host;         /* CPU: where the elements are (a borrowed tensor: the caller's pointer);
                                 GPU: NULL (device memory)                                              */
} rlx_store_tensor_info;
/* Entry `index` (0 .. count-1, in the order added). */
RLXDEF rlx_result rlx_store_tensor(const rlx_store* s, int index, rlx_store_tensor_info* info);

/* ============================================================================================================
   >>devices
   ============================================================================================================ */

typedef struct rlx_device_info {
    rlx_device device;
    int index;
    int available;        /* 1 if rlx_compile can use it                     */
    char name[96];        /* e.g. "CPU (AVX-512, 16 threads)"                 */
    char reason[256];     /* why it is (not) available                        */
    uint64_t memory_bytes;/* device memory (Vulkan: the largest device-local heap; CPU: physical memory); 0 =
                             unknown or unavailable                                                          */
    char driver[64];      /* driver version, e.g. "CUDA driver 12.4", "llvmpipe Mesa 23.2.1"; "" if unknown */
} rlx_device_info;

/* Fills up to `cap` entries and returns how many exist (out may be NULL to count). The CPU comes first (index
   0), then every device of each GPU kind in kind order (Vulkan, CUDA, HIP), each with its own entry: index is
   the value of rlx_compile_desc.device_index that selects it (Vulkan: discrete GPUs first, then integrated,
   virtual and CPU implementations; CUDA and HIP: the driver's order). A kind whose driver is missing or has no
   device gets one unavailable entry (index 0) whose reason says why. Loads the GPU drivers on first use. */
RLXDEF int rlx_devices(rlx_device_info* out, int cap);
RLXDEF const char* rlx_device_name(rlx_device d);

typedef struct rlx_plan_info {
    size_t arena_bytes;        /* per-run memory: inputs + intermediates + outputs, after reuse        */
    size_t no_reuse_bytes;     /* the same buffers laid end to end (each aligned)                       */
    size_t lower_bound_bytes;  /* max over steps of the bytes live at that step: no plan can beat it    */
    size_t weight_bytes;       /* params + constants the program holds itself (store tensors excluded)  */
    size_t workspace_bytes;    /* kernel scratch (matmul packing)                                       */
    size_t state_bytes;        /* persistent states (rlx_state) the program holds (store states excluded)*/
    int num_steps;             /* steps executed per run (views are free and not counted)               */
    int num_buffers;           /* entries readable with rlx_program_buffer                              */
    int num_threads;
} rlx_plan_info;

RLXDEF rlx_result rlx_program_plan(const rlx_program* p, rlx_plan_info* info);

typedef enum rlx_buffer_kind {
    RLX_BUFFER_INVALID = 0,
    RLX_BUFFER_INPUT, RLX_BUFFER_PARAM, RLX_BUFFER_CONSTANT, RLX_BUFFER_INTERMEDIATE, RLX_BUFFER_OUTPUT,
    RLX_BUFFER_VIEW,              /* aliases `parent` at byte `offset` relative to the parent's start */
    RLX_BUFFER_STATE,             /* persistent per-program state (offset into the state block)        */
    RLX_BUFFER_KIND_COUNT,
    RLX_BUFFER_KIND_FORCE_U32 = 0x7FFFFFFF
} rlx_buffer_kind;

/* One planned buffer (for tests and tools). Arena buffers (input/intermediate/output) have an offset into the
   arena; param/constant buffers an offset into weight memory; views an offset into their parent; params and
   states bound to a store (rlx_compile_desc.store) offset 0 (their memory is the store's). Live range:
   [first_step, last_step] in step indices (inputs/params/constants: whole run; outputs: to the end). */
typedef struct rlx_buffer_info {
    rlx_buffer_kind kind;
    int parent;           /* buffer index a view aliases, else -1            */
    size_t offset;
    size_t bytes;
    int first_step, last_step;
    char name[64];        /* input/param/output name, or the op name         */
} rlx_buffer_info;

RLXDEF rlx_result rlx_program_buffer(const rlx_program* p, int index, rlx_buffer_info* info);
/* Human-readable plan: one line per step and totals. snprintf-style like rlx_graph_dump. */
RLXDEF size_t rlx_program_report(const rlx_program* p, char* buf, size_t cap);

/* ---- profiling ---------------------------------------------------------------------------------------------
   Off by default and free when off (no clock is read, no timestamp recorded). Turned on by the compile flag
   RLX_COMPILE_PROFILE or by rlx_program_profile_enable(p, 1); then every rlx_run times each executed step
   (views are not steps; a fused op is one step):
     - CPU: a monotonic host clock read before each step and after the last (RLX_PROFILE_CLOCK overrides it);
     - CUDA / HIP: an event recorded before the first launch and after each step's launches on the program's
       stream, read after the run's synchronisation (profiled CUDA runs issue the launches one by one instead of
       replaying the CUDA graph, so launch overhead is included);
     - Vulkan: vkCmdWriteTimestamp into a second recorded command buffer (used while profiling is on), converted
       with the device's timestampPeriod. A queue without timestamps (timestampValidBits = 0) leaves the runs
       untimed and rlx_program_profile reports RLX_ERROR_UNSUPPORTED saying so.
   Entry s is step s of the last profiled run (start and duration in microseconds, start 0 = the start of the
   run's first step); total_us and runs add up every profiled run since profiling was (re)enabled.
   Thread safety: like every call on a program (RLX_ERROR_BUSY while another thread is inside). */
typedef struct rlx_profile_entry {
    int step;              /* index in the step list (the numbering of rlx_program_report)              */
    int node;              /* 0-based node of the compiled graph (the index of rlx_program_buffer)       */
    rlx_op op;
    char name[64];         /* op name and node name: "matmul %12", or "linear logits" for an output      */
    char shape[64];        /* the step's result, e.g. "f32[1,8,256]"                                      */
    double start_us;       /* last profiled run: start relative to the start of the first step           */
    double dur_us;         /* last profiled run: duration (>= 0)                                          */
    double total_us;       /* sum of the durations over `runs` profiled runs                              */
    int runs;
} rlx_profile_entry;

/* on != 0 turns profiling on (and clears the sums), 0 turns it off. */
RLXDEF rlx_result rlx_program_profile_enable(rlx_program* p, int on);
/* *count = number of entries (steps); the first min(cap, *count) are written to out (out may be NULL when cap
   is 0). RLX_ERROR_NOT_SET when profiling is off or no run has been profiled yet, RLX_ERROR_UNSUPPORTED when
   the device cannot time its steps; rlx_program_error says which. */
RLXDEF rlx_result rlx_program_profile(rlx_program* p, rlx_profile_entry* out, int cap, int* count);
/* The last profiled run as Chrome trace / Perfetto JSON ({"traceEvents": [...]}, one "ph":"X" complete event
   per step, ts and dur in microseconds): save it to a file and open it in chrome://tracing or ui.perfetto.dev.
   snprintf-style like rlx_graph_dump; returns 0 (and writes "") when there is no profile, see
   rlx_program_profile for why. */
RLXDEF size_t rlx_program_profile_json(rlx_program* p, char* buf, size_t cap);
/* Text table of the `top` slowest steps by total time (0 = all): op, node, shape, total, runs, % of total,
   then the total per op kind. snprintf-style; 0 when there is no profile. */
RLXDEF size_t rlx_program_profile_table(rlx_program* p, char* buf, size_t cap, int top);

#ifdef __cplusplus
}
#endif
#endif /* RLX_H */

/* ============================================================================================================
   IMPLEMENTATION. Stop here if you only need the API.
   ============================================================================================================ */
#if defined(__INTELLISENSE__) || defined(__JETBRAINS_IDE__) || defined(Q_CREATOR_RUN) || defined(__CDT_PARSER__)
#  ifndef RLX_IMPLEMENTATION
#    define RLX_IMPLEMENTATION
#  endif
#endif

#if defined(RLX_IMPLEMENTATION) && !defined(RLX_IMPLEMENTATION_INCLUDED)
#define RLX_IMPLEMENTATION_INCLUDED

/* -ffast-math (and -ffinite-math-only) let the compiler assume no NaN or infinity exists and reorder float
   sums: rlx.h's masks (-inf scores), NaN propagation, max/min, softmax and the f16/bf16 conversions then give
   wrong answers without any warning. Only the one file that defines RLX_IMPLEMENTATION must be built without
   it; the rest of a program may keep -ffast-math. */
#if defined(__FAST_MATH__) || (defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__ > 0)
#  error "rlx.h: compile the file that defines RLX_IMPLEMENTATION without -ffast-math / -ffinite-math-only (add -fno-fast-math for that file): rlx.h needs IEEE NaN and infinity semantics and would silently compute wrong results"
#endif

/* ------------------------------------------------------------------------------------------------------------
   >>config
   ------------------------------------------------------------------------------------------------------------ */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(RLX_MALLOC) && defined(RLX_REALLOC) && defined(RLX_FREE)
/* all three given */
#elif !defined(RLX_MALLOC) && !defined(RLX_REALLOC) && !defined(RLX_FREE)
#  define RLX_MALLOC(sz) malloc(sz)
#  define RLX_REALLOC(p, sz) realloc(p, sz)
#  define RLX_FREE(p) free(p)
#else
#  error "rlx.h: define all of RLX_MALLOC, RLX_REALLOC and RLX_FREE, or none of them"
#endif

#ifndef RLX_ASSERT
#  include <assert.h>
#  define RLX_ASSERT(c) assert(c)
#endif

#ifndef RLX_MAX_THREADS
#  define RLX_MAX_THREADS 64
#endif

#ifndef RLX_DIM_CACHE
#  define RLX_DIM_CACHE 8   /* compiled specialisations a graph with symbolic dims keeps (see rlx_dim) */
#endif

#if !defined(RLX_NO_THREADS)
#  if defined(_WIN32)
#    ifndef WIN32_LEAN_AND_MEAN
#      define WIN32_LEAN_AND_MEAN
#    endif
#    include <windows.h>
#  else
#    include <pthread.h>
#    include <unistd.h>
#  endif
#endif

#if defined(__GNUC__) || defined(__clang__)
#  define RLX__MAYBE_UNUSED __attribute__((unused))
#else
#  define RLX__MAYBE_UNUSED
#endif

/* Thread-local storage: C++11 thread_local, MSVC __declspec(thread), gcc/clang __thread (MinGW included), C11
   _Thread_local. A compiler with none of these (tcc) leaves RLX__TLS empty and defines RLX__NO_TLS: each use says
   what it does then (error-message scratch buffers become plain statics; state that must be per thread is kept
   under a pthread key instead). */
#if defined(RLX_NO_THREADS)
#  define RLX__TLS
#elif defined(__cplusplus) && __cplusplus >= 201103L
#  define RLX__TLS thread_local
#elif defined(_MSC_VER)
#  define RLX__TLS __declspec(thread)
#elif defined(__GNUC__) || defined(__clang__)
#  define RLX__TLS __thread
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__TINYC__)
#  define RLX__TLS _Thread_local
#else
#  define RLX__TLS
#  define RLX__NO_TLS 1
#endif

#define RLX__ALIGN 64
/* Reference counts: RLX__ATOMIC_ADD(int* p, int v) adds and returns the new value. gcc/clang builtins; else
   Interlocked* on Windows, or one process-wide mutex (tcc has no atomic builtins); a plain add without threads. */
#if defined(__GNUC__) || defined(__clang__)
#  define RLX__ATOMIC_ADD(p, v) __atomic_add_fetch((p), (v), __ATOMIC_ACQ_REL)
#elif defined(RLX_NO_THREADS)
#  define RLX__ATOMIC_ADD(p, v) (*(p) = (int)((unsigned)*(p) + (unsigned)(v)))
#elif defined(_WIN32)
static int rlx__atomic_add(int* p, int v) { return (int)InterlockedExchangeAdd((volatile LONG*)p, (LONG)v) + v; }
#  define RLX__ATOMIC_ADD(p, v) rlx__atomic_add((p), (v))
#else
static pthread_mutex_t rlx__atomic_mutex = PTHREAD_MUTEX_INITIALIZER;
static int rlx__atomic_add(int* p, int v) {
    int r;
    pthread_mutex_lock(&rlx__atomic_mutex);
    r = *p = (int)((unsigned)*p + (unsigned)v);   /* wraps like the builtins, without signed overflow */
    pthread_mutex_unlock(&rlx__atomic_mutex);
    return r;
}
#  define RLX__ATOMIC_MUTEX 1
#  define RLX__ATOMIC_ADD(p, v) rlx__atomic_add((p), (v))
#endif

#define RLX__MIN(a, b) ((a) < (b) ? (a) : (b))
#define RLX__MAX(a, b) ((a) > (b) ? (a) : (b))
#define RLX__UNUSED(x) (void)(x)

/* ------------------------------------------------------------------------------------------------------------
   >>alloc
   ------------------------------------------------------------------------------------------------------------ */
/* n rounded up to a multiple of the power of two a; saturates at SIZE_MAX (which no allocator satisfies)
   instead of wrapping */
static size_t rlx__round_up(size_t n, size_t a) { return n > SIZE_MAX - (a - 1) ? SIZE_MAX : (n + (a - 1)) & ~(a - 1); }
static size_t rlx__align_up(size_t n) { return rlx__round_up(n, RLX__ALIGN); }

/* >>size  The one way to compute sizes: every element count, byte size, offset and alignment that can come
   from user input goes through these. Each returns 1 and stores the result, or returns 0 on overflow (and
   stores nothing). They are plain C (no overflow builtins), so every compiler and every size_t width agrees. */
static int rlx__mul_i64(int64_t a, int64_t b, int64_t* r) {
    if (a > 0 ? (b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a)
              : (b > 0 ? a < INT64_MIN / b : (a != 0 && b < INT64_MAX / a)))
        return 0;
    *r = a * b;
    return 1;
}
static int rlx__add_i64(int64_t a, int64_t b, int64_t* r) {
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) return 0;
    *r = a + b;
    return 1;
}
static int rlx__mul_sz(size_t a, size_t b, size_t* r) {
    if (b != 0 && a > SIZE_MAX / b) return 0;
    *r = a * b;
    return 1;
}
static int rlx__add_sz(size_t a, size_t b, size_t* r) {
    if (a > SIZE_MAX - b) return 0;
    *r = a + b;
    return 1;
}
/* n rounded up to the arena alignment (RLX__ALIGN) */
static int rlx__align_sz(size_t n, size_t* r) {
    if (n > SIZE_MAX - (RLX__ALIGN - 1)) return 0;
    *r = rlx__align_up(n);
    return 1;
}
/* Saturating forms for byte counts that end in an allocation (workspaces, layouts): an overflow gives SIZE_MAX,
   which no allocation satisfies, so the caller reports RLX_ERROR_OUT_OF_MEMORY. Shape dims convert to size_t
   exactly (they are <= RLX_MAX_ELEMENTS). */
static size_t rlx__szmul(size_t a, size_t b) { size_t r; return rlx__mul_sz(a, b, &r) ? r : SIZE_MAX; }
static size_t rlx__szadd(size_t a, size_t b) { size_t r; return rlx__add_sz(a, b, &r) ? r : SIZE_MAX; }
/* Element count of a shape: 1 if every dim is >= 1 and the count is <= RLX_MAX_ELEMENTS, else 0. */
static int rlx__numel_chk(int rank, const int64_t* shape, int64_t* out) {
    int64_t n = 1;
    int i;
    if (rank < 0 || rank > RLX_MAX_RANK) return 0;
    for (i = 0; i < rank; i++) {
        if (shape[i] < 1 || !rlx__mul_i64(n, shape[i], &n) || n > RLX_MAX_ELEMENTS) return 0;
    }
    *out = n;
    return 1;
}
/* Block dtypes (>>quant): elements per block along the last axis and bytes per block, ggml's layouts. */
static const unsigned short rlx__qblock[][2] = {
    {32, 18}, {32, 20}, {32, 22}, {32, 24}, {32, 34},                 /* q4_0 q4_1 q5_0 q5_1 q8_0 */
    {256, 84}, {256, 110}, {256, 144}, {256, 176}, {256, 210},        /* q2_K q3_K q4_K q5_K q6_K */
    {32, 18}, {256, 136}};                                            /* iq4_nl iq4_xs */
static int rlx__is_quant(rlx_dtype t) { return (int)t >= (int)RLX_Q4_0 && (int)t <= (int)RLX_IQ4_XS; }
/* Byte size of a tensor, the one helper for every dtype: 1 and *out on success; 0 when the shape is invalid
   (see rlx__numel_chk) or the size overflows; -1 when the dtype is a block dtype and the shape is a scalar or
   its last dim is not a multiple of the block. */
static int rlx__bytes_chk(rlx_dtype t, int rank, const int64_t* shape, size_t* out) {
    int64_t n;
    if (!rlx__numel_chk(rank, shape, &n)) return 0;
    if (rlx__is_quant(t)) {
        int64_t be = (int64_t)rlx__qblock[t - RLX_Q4_0][0];
        if (rank < 1 || shape[rank - 1] % be != 0) return -1;
        return rlx__mul_sz((size_t)(n / be), (size_t)rlx__qblock[t - RLX_Q4_0][1], out);
    }
    return rlx__mul_sz((size_t)n, rlx_dtype_size(t), out);
}

static void* rlx__alloc(const rlx_allocator* a, size_t n) {
    if (n == 0) n = 1;
    if (a && a->alloc) return a->alloc(n, a->user_data);
    return RLX_MALLOC(n);
}
static void rlx__free(const rlx_allocator* a, void* p) {
    if (!p) return;
    if (a && a->free) { a->free(p, a->user_data); return; }
    RLX_FREE(p);
}
static void* rlx__calloc(const rlx_allocator* a, size_t n) {
    void* p = rlx__alloc(a, n);
    if (p) memset(p, 0, n);
    return p;
}
/* Grow a dynamic array to hold at least `need` elements of `esz` bytes. Returns 0 on out of memory. */
static int rlx__grow(const rlx_allocator* a, void** arr, int* cap, int need, size_t esz) {
    void* na;
    int nc;
    size_t bytes;
    if (need <= *cap) return 1;
    if (need < 0 || need > INT_MAX / 2) return 0;
    nc = *cap ? *cap * 2 : 16;
    while (nc < need) nc *= 2;
    if (!rlx__mul_sz((size_t)nc, esz, &bytes)) return 0;
    na = rlx__alloc(a, bytes);
    if (!na) return 0;
    if (*arr) { memcpy(na, *arr, (size_t)*cap * esz); rlx__free(a, *arr); }
    *arr = na;
    *cap = nc;
    return 1;
}
static char* rlx__strdup(const rlx_allocator* a, const char* s) {
    size_t n = strlen(s) + 1;
    char* d = (char*)rlx__alloc(a, n);
    if (d) memcpy(d, s, n);
    return d;
}
/* 64-byte aligned block: returns the aligned pointer, *raw gets what to free. */
static void* rlx__alloc_aligned(const rlx_allocator* a, size_t n, void** raw) {
    unsigned char* r;
    size_t mis;
    *raw = NULL;
    if (n > SIZE_MAX - RLX__ALIGN) return NULL;
    r = (unsigned char*)rlx__alloc(a, n + RLX__ALIGN);
    *raw = r;
    if (!r) return NULL;
    mis = (size_t)((uintptr_t)r % RLX__ALIGN);
    return r + (mis ? RLX__ALIGN - mis : 0);
}


/* ------------------------------------------------------------------------------------------------------------
   >>log  (messages, names)
   ------------------------------------------------------------------------------------------------------------ */
RLXDEF const char* rlx_version(void) { return RLX_VERSION_STRING; }

RLXDEF const char* rlx_result_string(rlx_result r) {
    switch (r) {
    case RLX_OK: return "ok";
    case RLX_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case RLX_ERROR_OUT_OF_MEMORY: return "out of memory";
    case RLX_ERROR_INTERNAL: return "internal error";
    case RLX_ERROR_SHAPE: return "invalid or incompatible shape";
    case RLX_ERROR_DTYPE: return "invalid or mismatched dtype";
    case RLX_ERROR_AXIS: return "axis out of range";
    case RLX_ERROR_NOT_FOUND: return "name not found";
    case RLX_ERROR_SIZE: return "size mismatch";
    case RLX_ERROR_DUPLICATE: return "duplicate name";
    case RLX_ERROR_BAD_GRAPH: return "graph cannot be compiled";
    case RLX_ERROR_INVALID_TENSOR: return "invalid tensor handle";
    case RLX_ERROR_NOT_SET: return "param or input not set";
    case RLX_ERROR_BUSY: return "the program is in use by another thread (a program is used by one thread at a time)";
    case RLX_ERROR_OUT_OF_RANGE: return "a run-time position is out of range";
    case RLX_ERROR_DEVICE_UNAVAILABLE: return "device unavailable";
    case RLX_ERROR_UNSUPPORTED: return "unsupported on this device";
    case RLX_ERROR_DEVICE_LOST: return "device lost";
    case RLX_ERROR_LAUNCH: return "driver call or kernel launch failed";
    case RLX_ERROR_KERNEL_COMPILE: return "kernel compile or load failed";
    default: return "unknown result code";
    }
}

static const char* const rlx__op_names[] = {
#define RLX__OP_NAME(n, s) s,
    RLX_OP_LIST(RLX__OP_NAME)
#undef RLX__OP_NAME
};

RLXDEF const char* rlx_op_name(rlx_op op) {
    if ((int)op < 0 || (int)op >= (int)RLX_OP_COUNT) return "?";
    return rlx__op_names[op];
}

static const char* const rlx__dtype_names[] = {"invalid", "f32", "f16", "bf16", "f64", "i8", "i16",
                                               "i32", "i64", "u8", "u32", "bool",
                                               "q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "q2_K", "q3_K", "q4_K",
                                               "q5_K", "q6_K", "iq4_nl", "iq4_xs"};
static const unsigned char rlx__dtype_sizes[] = {0, 4, 2, 2, 8, 1, 2, 4, 8, 1, 4, 1,
                                                 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};

static int rlx__dtype_ok(rlx_dtype t) { return (int)t > 0 && (int)t < (int)RLX_DTYPE_COUNT; }
RLXDEF const char* rlx_dtype_name(rlx_dtype t) { return rlx__dtype_ok(t) ? rlx__dtype_names[t] : "invalid"; }
RLXDEF size_t rlx_dtype_size(rlx_dtype t) { return rlx__dtype_ok(t) ? rlx__dtype_sizes[t] : 0; }
static int rlx__is_float(rlx_dtype t) { return t == RLX_F32 || t == RLX_F16 || t == RLX_BF16 || t == RLX_F64; }
static int rlx__is_signed_int(rlx_dtype t) { return t == RLX_I8 || t == RLX_I16 || t == RLX_I32 || t == RLX_I64; }
static int rlx__is_int(rlx_dtype t) { return rlx__is_signed_int(t) || t == RLX_U8 || t == RLX_U32; }
RLXDEF rlx_result rlx_dtype_block(rlx_dtype t, int64_t* block_elems, size_t* block_bytes) {
    if (!rlx__dtype_ok(t)) return RLX_ERROR_DTYPE;
    if (block_elems) *block_elems = rlx__is_quant(t) ? (int64_t)rlx__qblock[t - RLX_Q4_0][0] : 1;
    if (block_bytes) *block_bytes = rlx__is_quant(t) ? (size_t)rlx__qblock[t - RLX_Q4_0][1] : rlx_dtype_size(t);
    return RLX_OK;
}
RLXDEF rlx_result rlx_tensor_bytes(rlx_dtype t, int rank, const int64_t* shape, size_t* bytes) {
    size_t b;
    if (!rlx__dtype_ok(t)) return RLX_ERROR_DTYPE;
    if ((rank && !shape) || rlx__bytes_chk(t, rank, shape, &b) != 1) return RLX_ERROR_SHAPE;
    if (bytes) *bytes = b;
    return RLX_OK;
}

RLXDEF const char* rlx_device_name(rlx_device d) {
    switch (d) {
    case RLX_DEVICE_AUTO: return "auto";
    case RLX_DEVICE_CPU: return "cpu";
    case RLX_DEVICE_VULKAN: return "vulkan";
    case RLX_DEVICE_CUDA: return "cuda";
    case RLX_DEVICE_HIP: return "hip";
    default: return "invalid";
    }
}

/* Cuts s to at most `len` bytes without splitting a UTF-8 sequence: a lead byte whose continuation bytes do not
   all fit is dropped with them. Every message that may be truncated goes through it, so a long (non-ASCII) name
   never leaves half a character at the end of a message. */
static void rlx__utf8_clip(char* s, size_t len) {
    size_t i = len, need;
    unsigned char c;
    while (i > 0 && len - i < 4 && ((unsigned char)s[i - 1] & 0xC0) == 0x80) i--;   /* back over continuations */
    if (i > 0) {
        c = (unsigned char)s[i - 1];
        need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
        if (c >= 0xC0 && len - (i - 1) < need) len = i - 1;   /* the last sequence is incomplete */
    }
    s[len] = 0;
}
static void rlx__vfmt(char* buf, size_t cap, const char* fmt, va_list ap) {
    int n = vsnprintf(buf, cap, fmt, ap);
    if (cap && n >= 0 && (size_t)n >= cap) rlx__utf8_clip(buf, cap - 1);
}
/* Copy with truncation, always NUL-terminated (cap > 0), never ending inside a UTF-8 sequence. */
static void rlx__strlcpy(char* dst, size_t cap, const char* src) {
    size_t full = strlen(src), n = full;
    if (n >= cap) n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
    if (n < full) rlx__utf8_clip(dst, n);
}

/* ------------------------------------------------------------------------------------------------------------
   >>convert  (element conversion: the one place that defines cast semantics)
   ------------------------------------------------------------------------------------------------------------ */
static uint64_t rlx__f64_bits(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
static float rlx__bits_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* Round a double to a small binary float with `mb` mantissa bits and `eb` exponent bits (f16: 10/5, bf16:
   7/8), round to nearest even, overflow to inf, NaN stays NaN (quiet). Returns the bit pattern. */
static uint16_t rlx__round_small_float(double d, int mb, int eb) {
    uint64_t u = rlx__f64_bits(d);
    uint16_t sign = (uint16_t)((u >> 63) << (mb + eb));
    int e = (int)((u >> 52) & 0x7FF);
    uint64_t m = u & 0xFFFFFFFFFFFFFull;
    int bias = (1 << (eb - 1)) - 1, emax = (1 << eb) - 1;
    int ue;
    uint64_t full, keep, rem, half;
    int shift;
    if (e == 0x7FF) { /* inf / nan */
        uint16_t r = (uint16_t)(sign | ((uint16_t)emax << mb));
        if (m) r = (uint16_t)(r | (1u << (mb - 1)));
        return r;
    }
    if (e == 0) return sign; /* double subnormals are far below any small float's range */
    ue = e - 1023;           /* value = 1.m × 2^ue */
    full = m | (1ull << 52); /* 53-bit significand */
    if (ue + bias >= 1) {    /* normal range of the target */
        shift = 52 - mb;
    } else {                 /* subnormal in the target: value = full × 2^(ue-52); unit = 2^(1-bias-mb) */
        shift = 52 - mb + (1 - bias - ue);
        if (shift > 62) return sign;
    }
    keep = full >> shift;
    rem = full & ((1ull << shift) - 1);
    half = 1ull << (shift - 1);
    if (rem > half || (rem == half && (keep & 1))) keep++;
    if (ue + bias >= 1) {
        /* keep holds 1.m with mb fraction bits; carry may have made it 2.0 */
        int te = ue + bias;
        if (keep >> (mb + 1)) { keep >>= 1; te++; }
        if (te >= emax) return (uint16_t)(sign | ((uint16_t)emax << mb));
        return (uint16_t)(sign | ((uint16_t)te << mb) | (uint16_t)(keep & ((1u << mb) - 1)));
    }
    /* subnormal: keep is the subnormal mantissa; rounding up to 1<<mb gives the smallest normal, which the
       same bit pattern encodes */
    return (uint16_t)(sign | (uint16_t)keep);
}
static double rlx__small_float_to_f64(uint16_t h, int mb, int eb) {
    int bias = (1 << (eb - 1)) - 1, emax = (1 << eb) - 1;
    int e = (h >> mb) & emax;
    uint32_t m = h & ((1u << mb) - 1);
    double s = (h >> (mb + eb)) ? -1.0 : 1.0;
    if (e == emax) return m ? (double)NAN : s * (double)INFINITY;
    if (e == 0) return s * ldexp((double)m, 1 - bias - mb);
    return s * ldexp((double)(m | (1u << mb)), e - bias - mb);
}
static uint16_t rlx__f64_to_f16(double d) { return rlx__round_small_float(d, 10, 5); }
static uint16_t rlx__f64_to_bf16(double d) { return rlx__round_small_float(d, 7, 8); }
static float rlx__f16_to_f32(uint16_t h) { return (float)rlx__small_float_to_f64(h, 10, 5); }
static float rlx__bf16_to_f32(uint16_t h) { return rlx__bits_f32((uint32_t)h << 16); }
/* The same conversions on f32 bit patterns with integer arithmetic only (fast, and free of the x87's excess
   precision): the same results as the double-based functions above, NaN included (quiet, sign kept). */
static float rlx__f16_bits_to_f32(uint16_t h) {
    uint32_t s = (uint32_t)(h & 0x8000u) << 16, e = (uint32_t)(h >> 10) & 0x1Fu, m = (uint32_t)h & 0x3FFu;
    if (e == 31) return rlx__bits_f32(s | 0x7F800000u | (m << 13));
    if (e == 0) {                                /* zero or subnormal: renormalise m · 2^-24 */
        if (!m) return rlx__bits_f32(s);
        e = 113;
        while (!(m & 0x400u)) { m <<= 1; e--; }
        return rlx__bits_f32(s | (e << 23) | ((m & 0x3FFu) << 13));
    }
    return rlx__bits_f32(s | ((e + 112u) << 23) | (m << 13));
}
static uint16_t rlx__f32_bits_to_f16(float f) {
    uint32_t u, a, keep, rem, half, sh;
    uint16_t sign;
    memcpy(&u, &f, 4);
    sign = (uint16_t)((u >> 16) & 0x8000u);
    a = u & 0x7FFFFFFFu;
    if (a > 0x7F800000u) return (uint16_t)(sign | 0x7E00u);    /* NaN */
    if (a >= 0x477FF000u) return (uint16_t)(sign | 0x7C00u);   /* >= 65520 rounds to inf */
    if (a < 0x38800000u) {                                     /* below 2^-14: subnormal (or zero) */
        if (a < 0x33000000u) return sign;                      /* at most 2^-25: rounds to zero */
        sh = 126u - (a >> 23);                                 /* 14 .. 24 */
        a = (a & 0x7FFFFFu) | 0x800000u;
        keep = a >> sh; rem = a & ((1u << sh) - 1u); half = 1u << (sh - 1u);
        if (rem > half || (rem == half && (keep & 1u))) keep++;
        return (uint16_t)(sign | keep);
    }
    keep = (a - 0x38000000u) >> 13; rem = a & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (keep & 1u))) keep++;
    return (uint16_t)(sign | keep);
}
static uint16_t rlx__f32_bits_to_bf16(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return (uint16_t)(((u >> 16) & 0x8000u) | 0x7FC0u);   /* NaN */
    return (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

/* Load element i of any dtype as double (floats) or int64 (integers and bool). */
static double rlx__load_f64(const void* p, rlx_dtype t, int64_t i) {
    switch (t) {
    case RLX_F32: return (double)((const float*)p)[i];
    case RLX_F16: return (double)rlx__f16_to_f32(((const uint16_t*)p)[i]);
    case RLX_BF16: return (double)rlx__bf16_to_f32(((const uint16_t*)p)[i]);
    case RLX_F64: return ((const double*)p)[i];
    case RLX_I8: return (double)((const int8_t*)p)[i];
    case RLX_I16: return (double)((const int16_t*)p)[i];
    case RLX_I32: return (double)((const int32_t*)p)[i];
    case RLX_I64: return (double)((const int64_t*)p)[i];
    case RLX_U8: return (double)((const uint8_t*)p)[i];
    case RLX_U32: return (double)((const uint32_t*)p)[i];
    case RLX_BOOL: return ((const uint8_t*)p)[i] ? 1.0 : 0.0;
    default: return 0.0;
    }
}
static int64_t rlx__load_i64(const void* p, rlx_dtype t, int64_t i) {
    switch (t) {
    case RLX_I8: return ((const int8_t*)p)[i];
    case RLX_I16: return ((const int16_t*)p)[i];
    case RLX_I32: return ((const int32_t*)p)[i];
    case RLX_I64: return ((const int64_t*)p)[i];
    case RLX_U8: return ((const uint8_t*)p)[i];
    case RLX_U32: return ((const uint32_t*)p)[i];
    case RLX_BOOL: return ((const uint8_t*)p)[i] ? 1 : 0;
    default: return (int64_t)rlx__load_f64(p, t, i);
    }
}
static int64_t rlx__sat_i64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }
/* float → integer: truncate toward zero, saturate, NaN → 0 */
static int64_t rlx__f64_to_int_sat(double d, int64_t lo, int64_t hi) {
    if (d != d) return 0;
    d = trunc(d);
    if (d <= (double)lo) return lo;
    if (d >= (double)hi) return hi; /* (double)INT64_MAX rounds up to 2^63, so >= catches it */
    return (int64_t)d;
}
static void rlx__int_range(rlx_dtype t, int64_t* lo, int64_t* hi) {
    switch (t) {
    case RLX_I8: *lo = INT8_MIN; *hi = INT8_MAX; break;
    case RLX_I16: *lo = INT16_MIN; *hi = INT16_MAX; break;
    case RLX_I32: *lo = INT32_MIN; *hi = INT32_MAX; break;
    case RLX_U8: *lo = 0; *hi = UINT8_MAX; break;
    case RLX_U32: *lo = 0; *hi = (int64_t)UINT32_MAX; break;
    case RLX_BOOL: *lo = 0; *hi = 1; break;
    default: *lo = INT64_MIN; *hi = INT64_MAX; break;
    }
}
/* Store a double into any dtype with the cast rules (saturating for integers). */
static void rlx__store_f64(void* p, rlx_dtype t, int64_t i, double v) {
    int64_t lo, hi;
    switch (t) {
    case RLX_F32: ((float*)p)[i] = (float)v; return;
    case RLX_F16: ((uint16_t*)p)[i] = rlx__f64_to_f16(v); return;
    case RLX_BF16: ((uint16_t*)p)[i] = rlx__f64_to_bf16(v); return;
    case RLX_F64: ((double*)p)[i] = v; return;
    case RLX_BOOL: ((uint8_t*)p)[i] = (uint8_t)(v != 0.0); return;
    default: break;
    }
    rlx__int_range(t, &lo, &hi);
    {
        int64_t x = rlx__f64_to_int_sat(v, lo, hi);
        switch (t) {
        case RLX_I8: ((int8_t*)p)[i] = (int8_t)x; break;
        case RLX_I16: ((int16_t*)p)[i] = (int16_t)x; break;
        case RLX_I32: ((int32_t*)p)[i] = (int32_t)x; break;
        case RLX_I64: ((int64_t*)p)[i] = x; break;
        case RLX_U8: ((uint8_t*)p)[i] = (uint8_t)x; break;
        case RLX_U32: ((uint32_t*)p)[i] = (uint32_t)x; break;
        default: break;
        }
    }
}
/* Store an int64 into any dtype. sat != 0: saturate (cast rules); sat == 0: wrap (arithmetic results). */
static void rlx__store_i64(void* p, rlx_dtype t, int64_t i, int64_t v, int sat) {
    if (sat && rlx__is_int(t)) {
        int64_t lo, hi;
        rlx__int_range(t, &lo, &hi);
        v = rlx__sat_i64(v, lo, hi);
    }
    switch (t) {
    case RLX_F32: ((float*)p)[i] = (float)v; break;
    case RLX_F64: ((double*)p)[i] = (double)v; break;
    case RLX_F16: ((uint16_t*)p)[i] = rlx__f64_to_f16((double)v); break;
    case RLX_BF16: ((uint16_t*)p)[i] = rlx__f64_to_bf16((double)v); break;
    case RLX_I8: ((int8_t*)p)[i] = (int8_t)(uint8_t)(uint64_t)v; break;
    case RLX_I16: ((int16_t*)p)[i] = (int16_t)(uint16_t)(uint64_t)v; break;
    case RLX_I32: ((int32_t*)p)[i] = (int32_t)(uint32_t)(uint64_t)v; break;
    case RLX_I64: ((int64_t*)p)[i] = v; break;
    case RLX_U8: ((uint8_t*)p)[i] = (uint8_t)(uint64_t)v; break;
    case RLX_U32: ((uint32_t*)p)[i] = (uint32_t)(uint64_t)v; break;
    case RLX_BOOL: ((uint8_t*)p)[i] = (uint8_t)(v != 0); break;
    default: break;
    }
}
/* Convert one element between dtypes with the rules documented at rlx_cast. */
static void rlx__convert_elem(void* dst, rlx_dtype dt, int64_t di, const void* src, rlx_dtype st, int64_t si) {
    if (rlx__is_float(st)) rlx__store_f64(dst, dt, di, rlx__load_f64(src, st, si));
    else rlx__store_i64(dst, dt, di, rlx__load_i64(src, st, si), 1);
}
/* Convert n contiguous elements. */
static void rlx__convert(void* dst, rlx_dtype dt, const void* src, rlx_dtype st, int64_t n) {
    int64_t i;
    if (dt == st && rlx__is_quant(dt)) {   /* packed blocks: callers pass whole blocks (a last dim of blocks) */
        memcpy(dst, src, (size_t)(n / rlx__qblock[dt - RLX_Q4_0][0]) * rlx__qblock[dt - RLX_Q4_0][1]);
        return;
    }
    if (dt == st) { memcpy(dst, src, (size_t)n * rlx_dtype_size(dt)); return; }
    if (st == RLX_F32 && dt == RLX_F16) {
        for (i = 0; i < n; i++) ((uint16_t*)dst)[i] = rlx__f64_to_f16((double)((const float*)src)[i]);
        return;
    }
    if (st == RLX_F16 && dt == RLX_F32) {
        for (i = 0; i < n; i++) ((float*)dst)[i] = rlx__f16_to_f32(((const uint16_t*)src)[i]);
        return;
    }
    for (i = 0; i < n; i++) rlx__convert_elem(dst, dt, i, src, st, i);
}

/* ------------------------------------------------------------------------------------------------------------
   >>ir
   A graph is a list of nodes in topological order (every input precedes its user). Node ids are 1-based
   indices; id 0 is "no tensor". Input ids of all nodes live in one pool (concat has any number).
   ------------------------------------------------------------------------------------------------------------ */
#define RLX__NIA 20
#define RLX__MAX_NODES (1 << 26)   /* node ids and input-pool offsets stay far from INT_MAX */

typedef struct rlx__node {
    rlx_op op;
    rlx_dtype dtype;
    int rank;
    int64_t shape[RLX_MAX_RANK];
    int nin;
    int in_off;               /* first input id in graph->ins                                   */
    int64_t ia[RLX__NIA];     /* integer attributes, meaning per op (see rlx__attr_doc)         */
    double fa[2];             /* float attributes (eps, scalar value)                            */
    char* name;               /* input / param name (owned)                                     */
    void* data;               /* constant payload (owned), rank/shape/dtype as the node's       */
    uint32_t origin;          /* id of the user's node this one comes from (0: made by a pass)  */
    char* label;              /* rlx_set_name / rlx_set_next_name label (owned), or NULL        */
} rlx__node;
/* Integer attributes by op:
   CAST: ia[0] = source dtype (for the dump only)
   MATMUL: ia[0]/ia[1] = original ranks of a / b; ia[3] = b is stored with its last two dims swapped (set by
           fusion, every dtype: each matmul kernel honours it); ia[10] = TF32 allowed (set by rlx_compile for GPUs)
   MATMUL_INTEGER: ia[0]/ia[1] as MATMUL; ia[4]/ia[5] = a / b zero point present (inputs 2, 3 in that order)
   reductions: ia[0] = keepdims, ia[1] = naxes, ia[2..] = normalised axes     ARGMAX/MIN: ia[0] axis, ia[1] keepdims
   SOFTMAX/LOG_SOFTMAX: ia[0] axis        LAYERNORM: ia[0] axis, ia[1] has gamma, ia[2] has beta; fa[0] eps
   RMSNORM: ia[1] has gamma, ia[2] has beta; fa[0] eps      TRANSPOSE: ia[0..rank) perm
   SLICE: ia[0] axis, ia[1] start (normalised), ia[2] step      CONCAT: ia[0] axis      GATHER: ia[0] axis */

typedef struct rlx__out { char* name; uint32_t id; } rlx__out;

struct rlx_graph {
    rlx_allocator al;
    rlx__node* nodes;
    int n, cap;
    uint32_t* ins;
    int nins, cap_ins;
    rlx__out* outs;
    int nouts, cap_outs;
    /* hash indexes (open addressing, 1-based entries, 0 = empty) of node names and of output names, for the
       builders' duplicate checks; they cover nodes [0, name_done) and outputs [0, out_done) and catch up on the
       next lookup (see rlx__name_taken) */
    uint32_t* name_tab;
    uint32_t* out_tab;
    int name_cap, name_done, out_cap, out_done;
    rlx_result status;      /* first sticky builder error */
    uint32_t tag;           /* handles carry it; 0 for the graphs passes make internally (they check no tag) */
    char msg[512];
    /* The node being built, for the prefix of builder errors (see rlx__gerr): set by rlx__begin / rlx__source,
       valid while ctx_what is set and ctx_at == n (no node added since), cleared by rlx__add_node. */
    const char* ctx_what;
    int ctx_at, ctx_nin, ctx_nall;
    uint32_t ctx_in[6];
    char ctx_name[96];      /* input/param/state name of a source being built (clipped)                 */
    char* next_label;       /* rlx_set_next_name: the label of the next node added (owned)              */
    uint32_t origin_hint;   /* passes: origin and label of the nodes being added (0 = the node's own id) */
    const char* label_hint;
    /* symbolic dims (>>shapes): names and example values, the shape entries given as tokens (or that must be
       re-inferred: reshape -1, slice start from the end), the last specialised graph and the compile cache */
    int ndims;
    char* dim_names[RLX_MAX_DIMS];
    int64_t dim_ex[RLX_MAX_DIMS];
    struct rlx__symrec* syms;
    int nsyms, cap_syms;
    rlx_graph* spec;        /* specialisation for spec_vals (at spec_n nodes, spec_nouts outputs), or NULL */
    int64_t spec_vals[RLX_MAX_DIMS];
    int spec_n, spec_nouts;
    struct rlx__dimcache* dcache;  /* RLX_DIM_CACHE entries, allocated on the first compile */
    uint64_t dclock;
};

/* A builder argument of node `node` that names symbolic dims: shape entries (input, param, state, reshape,
   expand: spec[0..n) as given, tokens and -1 included) or, for slice, spec[0] = start and spec[1] = length as
   given. Records are appended in node order. */
typedef struct rlx__symrec {
    uint32_t node;
    int n;
    int64_t spec[RLX_MAX_RANK];
} rlx__symrec;
static void rlx__dims_free(rlx_graph* g);

static rlx__node* rlx__N(const rlx_graph* g, uint32_t id) { return &g->nodes[id - 1]; }
static uint32_t rlx__in(const rlx_graph* g, const rlx__node* nd, int k) { return g->ins[nd->in_off + k]; }

static void rlx__shape_str(char* buf, size_t cap, int rank, const int64_t* shape);

static int64_t rlx__numel(int rank, const int64_t* shape) {
    int64_t n = 1;
    int i;
    for (i = 0; i < rank; i++) n *= shape[i];
    return n;
}
static int64_t rlx__node_numel(const rlx__node* nd) { return rlx__numel(nd->rank, nd->shape); }
static size_t rlx__node_bytes(const rlx__node* nd) {   /* nodes passed rlx__add_node's checks: never SIZE_MAX */
    size_t b;
    return rlx__bytes_chk(nd->dtype, nd->rank, nd->shape, &b) == 1 ? b : SIZE_MAX;
}

/* Names of the inputs of each op, for messages: the required inputs in order (optional ones are named by the
   message that checks them). NULL = x0, x1, ... */
static const char* rlx__op_inputs(rlx_op op) {
    if (op >= RLX_OP_NEG && op <= RLX_OP_CEIL) return "x";
    if (op >= RLX_OP_ADD && op <= RLX_OP_GE) return "a,b";
    if (op >= RLX_OP_SUM && op <= RLX_OP_RMSNORM) return "x";
    switch (op) {
    case RLX_OP_WHERE: return "cond,a,b";
    case RLX_OP_MATMUL: return "a,b";
    case RLX_OP_MATMUL_QUANT: return "x,w";
    case RLX_OP_GATHER: return "x,indices";
    case RLX_OP_ATTENTION: return "q,k,v";
    case RLX_OP_ROPE: return "x,cos,sin";
    case RLX_OP_SAMPLE: return "logits,counter";
    case RLX_OP_CONV: case RLX_OP_CONV_TRANSPOSE: case RLX_OP_LINEAR: return "x,w";
    case RLX_OP_ADD_NORM: return "x,residual";
    case RLX_OP_SWIGLU: case RLX_OP_GEGLU: return "gate,up";
    case RLX_OP_STATE_WRITE: return "state,update,offset";
    case RLX_OP_CONCAT: case RLX_OP_FUSED_EW: return NULL;
    default: return "x";
    }
}
/* The op whose name starts `what` ("attention keep_mask" -> attention), or RLX_OP_INVALID. */
static rlx_op rlx__op_of(const char* what) {
    int i;
    size_t n = 0;
    while (what[n] && what[n] != ' ') n++;
    if ((n == 11 && memcmp(what, "add_rmsnorm", 11) == 0) || (n == 13 && memcmp(what, "add_layernorm", 13) == 0))
        return RLX_OP_ADD_NORM;   /* the builders named after their norm */
    for (i = 1; i < (int)RLX_OP_COUNT; i++)
        if (strlen(rlx__op_names[i]) == n && memcmp(rlx__op_names[i], what, n) == 0) return (rlx_op)i;
    return RLX_OP_INVALID;
}

/* The node reference every message about a node starts with:
       op (node N, 'name'): in0 [shape] dtype, in1 [shape] dtype
   `node` is the user's node id (0: unknown, left out), `name` its label or input/param/state name (NULL: none),
   ins the ids of (the first nin of nall) inputs in g. Names are clipped to 64 bytes (on a UTF-8 boundary, with
   "..."). Returns the length written (always NUL-terminated, cap > 0). */
static size_t rlx__node_ref(char* buf, size_t cap, const rlx_graph* g, const char* what, uint32_t node,
                            const char* name, int nin, const uint32_t* ins, int nall) {
    const char* labels = rlx__op_inputs(rlx__op_of(what));
    size_t o;
    int k;
    char nm[72], sh[160];
    nm[0] = 0;
    if (name && name[0]) {
        rlx__strlcpy(nm, 65, name);
        if (strlen(name) > strlen(nm)) memcpy(nm + strlen(nm), "...", 4);
    }
    if (node && nm[0]) snprintf(buf, cap, "%s (node %u, '%s')", what, (unsigned)node, nm);
    else if (node) snprintf(buf, cap, "%s (node %u)", what, (unsigned)node);
    else if (nm[0]) snprintf(buf, cap, "%s ('%s')", what, nm);
    else snprintf(buf, cap, "%s", what);
    o = strlen(buf);
    for (k = 0; k < nin && o + 1 < cap; k++) {
        const rlx__node* in = &g->nodes[ins[k] - 1];
        const char* l = labels;
        char lb[24];
        int j;
        for (j = 0; l && j < k; j++) { l = strchr(l, ','); if (l) l++; }
        if (l) { size_t ln = strcspn(l, ","); if (ln > 20) ln = 20; memcpy(lb, l, ln); lb[ln] = 0; }
        else snprintf(lb, sizeof lb, labels ? "in%d" : "x%d", k);
        rlx__shape_str(sh, sizeof sh, in->rank, in->shape);
        snprintf(buf + o, cap - o, "%s %s %s %s", k ? "," : ":", lb, sh, rlx_dtype_name(in->dtype));
        o += strlen(buf + o);
    }
    if (nall > nin && o + 1 < cap) { snprintf(buf + o, cap - o, ", ... (%d inputs)", nall); o += strlen(buf + o); }
    return o;
}

/* "op (node N, 'name'): in0 [shape] dtype, ..." for node nd of an optimised graph: N is the user's node it comes
   from (for a fused or decomposed node, the one it replaced), the name its label or input name. */
static size_t rlx__ir_node_ref(char* buf, size_t cap, const rlx_graph* ir, const rlx__node* nd) {
    int nin = nd->nin < 6 ? nd->nin : 6;
    return rlx__node_ref(buf, cap, ir, rlx_op_name(nd->op), nd->origin, nd->label ? nd->label : nd->name, nin,
                         ir->ins + nd->in_off, nd->nin);
}

/* Records an error on g. Builder errors are sticky (the first one wins); compile errors only set msg.
   While a builder is at work (see rlx__begin) the message is the node reference, then the cause:
   "conv (node 12, 'backbone.conv1'): x [1,16,32,32] f32, w [8,8,3,3] f32: x has 16 channels, ...". A cause
   written as "conv: ..." loses its own "conv: " there, so every builder's message gets the prefix unchanged. */
static rlx_result rlx__gerr(rlx_graph* g, rlx_result r, const char* fmt, ...) {
    va_list ap;
    char cause[512];
    const char* c = cause;
    if (!g) return r;
    if (g->status != RLX_OK) return r;  /* keep the first message */
    g->status = r;
    va_start(ap, fmt);
    rlx__vfmt(cause, sizeof cause, fmt, ap);
    va_end(ap);
    if (g->ctx_what && g->ctx_at == g->n) {
        char pre[400];
        size_t wl = strlen(g->ctx_what);
        uint32_t node = rlx__op_of(g->ctx_what) == RLX_OP_INVALID ? 0 : g->tag ? (uint32_t)g->n + 1 : g->origin_hint;
        const char* nm = g->ctx_name[0] ? g->ctx_name : g->tag ? g->next_label : g->label_hint;
        if (strncmp(cause, g->ctx_what, wl) == 0 && cause[wl] == ':' && cause[wl + 1] == ' ') c = cause + wl + 2;
        rlx__node_ref(pre, sizeof pre, g, g->ctx_what, node, nm, g->ctx_nin, g->ctx_in, g->ctx_nall);
        if ((size_t)snprintf(g->msg, sizeof g->msg, "%s: %s", pre, c) >= sizeof g->msg)
            rlx__utf8_clip(g->msg, sizeof g->msg - 1);
    } else {
        rlx__strlcpy(g->msg, sizeof g->msg, cause);
    }
    return r;
}
static void rlx__gmsg(rlx_graph* g, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    rlx__vfmt(g->msg, sizeof g->msg, fmt, ap);
    va_end(ap);
}

RLXDEF rlx_graph* rlx_graph_create(const rlx_graph_desc* desc) {
    rlx_allocator al;
    rlx_graph* g;
    memset(&al, 0, sizeof al);
    if (desc) al = desc->allocator;
    if ((al.alloc == NULL) != (al.free == NULL)) return NULL; /* all or none */
    g = (rlx_graph*)rlx__calloc(&al, sizeof *g);
    if (!g) return NULL;
    g->al = al;
    {
        /* Tags count up process-wide (the one piece of global state outside >>dl), skipping 0. */
        static int rlx__graph_tags = 0;
        int t;
        do t = RLX__ATOMIC_ADD(&rlx__graph_tags, 1); while (t == 0);
        g->tag = (uint32_t)t;
    }
    return g;
}

RLXDEF void rlx_graph_destroy(rlx_graph* g) {
    int i;
    if (!g) return;
    for (i = 0; i < g->n; i++) {
        rlx__free(&g->al, g->nodes[i].name);
        rlx__free(&g->al, g->nodes[i].data);
        rlx__free(&g->al, g->nodes[i].label);
    }
    rlx__free(&g->al, g->next_label);
    for (i = 0; i < g->nouts; i++) rlx__free(&g->al, g->outs[i].name);
    rlx__free(&g->al, g->nodes);
    rlx__free(&g->al, g->ins);
    rlx__free(&g->al, g->outs);
    rlx__free(&g->al, g->name_tab);
    rlx__free(&g->al, g->out_tab);
    rlx__dims_free(g);
    {
        rlx_allocator al = g->al;
        rlx__free(&al, g);
    }
}

RLXDEF rlx_result rlx_graph_status(const rlx_graph* g) { return g ? g->status : RLX_ERROR_INVALID_ARGUMENT; }
RLXDEF const char* rlx_graph_error(const rlx_graph* g) { return g ? g->msg : "graph is NULL"; }
RLXDEF int rlx_graph_node_count(const rlx_graph* g) { return g ? g->n : 0; }

RLXDEF rlx_dtype rlx_tensor_info(const rlx_graph* g, rlx_tensor t, int* rank, int64_t* shape) {
    const rlx__node* nd;
    if (!g || t.id == 0 || t.id > (uint32_t)g->n || (g->tag && t.graph != g->tag)) return RLX_DTYPE_INVALID;
    nd = rlx__N(g, t.id);
    if (rank) *rank = nd->rank;
    if (shape) memcpy(shape, nd->shape, sizeof(int64_t) * (size_t)nd->rank);
    return nd->dtype;
}

/* Block dtypes (>>quant) are packed bytes: only sources (input, param, constant), cast (to and from), gather
   (rows of a quantized table, axis before the last) and matmul_quant (the weight) take or make them. Every node
   passes here, so no other op, pass or backend ever sees one. Returns 0 with the error recorded. */
static int rlx__quant_gate(rlx_graph* g, rlx_op op, rlx_dtype dt, int rank, const int64_t* shape, int nin,
                           const uint32_t* ins) {
    int i;
    size_t b;
    if (rlx__is_quant(dt)) {
        if (!(op == RLX_OP_INPUT || op == RLX_OP_PARAM || op == RLX_OP_CONSTANT || op == RLX_OP_CAST ||
              op == RLX_OP_GATHER)) {
            rlx__gerr(g, RLX_ERROR_DTYPE, "%s: cannot make a %s tensor (block dtypes come only from input, param, "
                      "constant, cast and gather)", rlx_op_name(op), rlx_dtype_name(dt));
            return 0;
        }
        if (rlx__bytes_chk(dt, rank, shape, &b) == -1) {
            rlx__gerr(g, RLX_ERROR_SHAPE, "%s: a %s tensor needs rank >= 1 and a last dim that is a multiple of "
                      "%d (got %s%lld)", rlx_op_name(op), rlx_dtype_name(dt), (int)rlx__qblock[dt - RLX_Q4_0][0],
                      rank < 1 ? "rank 0, " : "", rank < 1 ? 0LL : (long long)shape[rank - 1]);
            return 0;
        }
    }
    for (i = 0; i < nin; i++) {
        rlx_dtype it;
        if (!ins[i]) continue;
        it = g->nodes[ins[i] - 1].dtype;
        if (!rlx__is_quant(it)) continue;
        if (op == RLX_OP_CAST || (op == RLX_OP_GATHER && i == 0) || (op == RLX_OP_MATMUL_QUANT && i == 1)) continue;
        rlx__gerr(g, RLX_ERROR_DTYPE, "%s: input %d is %s; block dtypes are taken only by cast, gather (the table) "
                  "and matmul_quant (the weight)", rlx_op_name(op), i, rlx_dtype_name(it));
        return 0;
    }
    return 1;
}

/* Append a node; inputs are copied into the pool. Returns the new id or 0 (out of memory, error recorded). */
static uint32_t rlx__add_node(rlx_graph* g, rlx_op op, rlx_dtype dt, int rank, const int64_t* shape, int nin,
                              const uint32_t* ins) {
    rlx__node* nd;
    int64_t shp[RLX_MAX_RANK] = {0}, numel;
    int i;
    /* Every node's shape passes the same check, whatever builder or pass made it: dims >= 1, the element
       count within RLX_MAX_ELEMENTS, input ids of this graph. */
    if ((rank && !shape) || !rlx__numel_chk(rank, shape, &numel)) {   /* numel_chk also checks the rank */
        char sb[160];
        if (rank < 0 || rank > RLX_MAX_RANK || !shape) snprintf(sb, sizeof sb, "(rank %d)", rank);
        else rlx__shape_str(sb, sizeof sb, rank, shape);
        rlx__gerr(g, RLX_ERROR_SHAPE, "%s: output shape %s is invalid: every dim must be >= 1 and the element "
                  "count at most RLX_MAX_ELEMENTS (%lld)", rlx_op_name(op), sb, (long long)RLX_MAX_ELEMENTS);
        return 0;
    }
    for (i = 0; i < nin; i++)
        if (ins[i] > (uint32_t)g->n) {
            rlx__gerr(g, RLX_ERROR_INVALID_TENSOR, "%s: input %d is not a tensor of this graph", rlx_op_name(op), i);
            return 0;
        }
    if (!rlx__quant_gate(g, op, dt, rank, shape, nin, ins)) return 0;
    if (g->n >= RLX__MAX_NODES) {
        rlx__gerr(g, RLX_ERROR_OUT_OF_MEMORY, "%s: the graph already has the maximum of %d nodes", rlx_op_name(op),
                  RLX__MAX_NODES);
        return 0;
    }
    /* shape and ins may point into g's own arrays, which growing can move: copy the shape first */
    if (rank) memcpy(shp, shape, sizeof(int64_t) * (size_t)rank);
    if (!rlx__grow(&g->al, (void**)&g->nodes, &g->cap, g->n + 1, sizeof(rlx__node)) ||
        !rlx__grow(&g->al, (void**)&g->ins, &g->cap_ins, g->nins + nin, sizeof(uint32_t))) {
        rlx__gerr(g, RLX_ERROR_OUT_OF_MEMORY, "out of memory while adding a %s node", rlx_op_name(op));
        return 0;
    }
    nd = &g->nodes[g->n];
    memset(nd, 0, sizeof *nd);
    nd->op = op;
    nd->dtype = dt;
    nd->rank = rank;
    if (rank) memcpy(nd->shape, shp, sizeof(int64_t) * (size_t)rank);
    nd->nin = nin;
    nd->in_off = g->nins;
    if (nin) memcpy(g->ins + g->nins, ins, sizeof(uint32_t) * (size_t)nin);
    g->nins += nin;
    g->ctx_what = NULL;   /* the node exists: later messages are about something else */
    if (g->tag) {         /* a user's node: its own origin, and the name rlx_set_next_name left for it */
        nd->origin = (uint32_t)g->n + 1;
        nd->label = g->next_label;
        g->next_label = NULL;
    } else if (g->origin_hint) {   /* a pass rewriting one user node into these */
        nd->origin = g->origin_hint;
        if (g->label_hint && !(nd->label = rlx__strdup(&g->al, g->label_hint))) {
            rlx__gerr(g, RLX_ERROR_OUT_OF_MEMORY, "out of memory while adding a %s node", rlx_op_name(op));
            return 0;
        }
    }
    return (uint32_t)++g->n;
}

static rlx_tensor rlx__Tg(const rlx_graph* g, uint32_t id) {
    rlx_tensor t;
    t.id = id;
    t.graph = id && g ? g->tag : 0;
    return t;
}
/* A handle of the graph `g` in scope (the builders' graph). */
#define rlx__T(id) rlx__Tg(g, (id))

/* ------------------------------------------------------------------------------------------------------------
   >>infer  (validation and shape inference of every builder)
   ------------------------------------------------------------------------------------------------------------ */
/* Starts the context of builder errors (see rlx__gerr): the node about to be added is `what` on inputs ts. A
   second call for the same node (an optional input: `what` starts with the first call's op name) keeps it. */
static void rlx__ctx_begin(rlx_graph* g, const char* what, int n, const rlx_tensor* ts) {
    int i;
    if (g->ctx_what && g->ctx_at == g->n && rlx__op_of(what) != RLX_OP_INVALID &&
        rlx__op_of(what) == rlx__op_of(g->ctx_what))
        return;
    g->ctx_what = what;
    g->ctx_at = g->n;
    g->ctx_nin = 0;
    g->ctx_nall = n;
    g->ctx_name[0] = 0;
    for (i = 0; i < n && ts; i++) {
        if (ts[i].id == 0 || ts[i].id > (uint32_t)g->n || (g->tag && ts[i].graph != g->tag)) break;
        if (g->ctx_nin < (int)(sizeof g->ctx_in / sizeof g->ctx_in[0])) g->ctx_in[g->ctx_nin++] = ts[i].id;
    }
    if (i < n) { g->ctx_nin = 0; g->ctx_nall = 0; }   /* an invalid handle: its message says which */
}

/* Common entry of every builder: graph non-NULL, no sticky error, every handle valid. */
static int rlx__begin(rlx_graph* g, const char* what, int n, const rlx_tensor* ts) {
    int i;
    if (!g) return 0;
    if (g->status != RLX_OK) return 0;
    rlx__ctx_begin(g, what, n, ts);
    for (i = 0; i < n; i++) {
        if (ts[i].id == 0 || ts[i].id > (uint32_t)g->n || (g->tag && ts[i].graph != g->tag)) {
            rlx__gerr(g, RLX_ERROR_INVALID_TENSOR, "%s: input %d is not a tensor of this graph (id %u%s)", what, i,
                      (unsigned)ts[i].id, ts[i].id && g->tag && ts[i].graph != g->tag ?
                      ", made by another or a destroyed graph" : "");
            return 0;
        }
    }
    return 1;
}

/* ---- symbolic dims (see rlx_dim; specialisation and the compile cache are in >>shapes) ---- */
static int rlx__is_dim_token(int64_t v) { return v <= RLX_DIM_TOKEN(0) && v > RLX_DIM_TOKEN(RLX_MAX_DIMS); }
static int rlx__dim_index(int64_t v) { return (int)(RLX_DIM_TOKEN(0) - v); }

/* Copies shape[0..n) into out with every dim token replaced by its example value; *sym = 1 when there was one.
   A token of a dim g did not declare is a sticky error (returns 0). */
static int rlx__dims_resolve(rlx_graph* g, const char* what, int n, const int64_t* shape, int64_t* out, int* sym) {
    int i;
    *sym = 0;
    for (i = 0; i < n; i++) {
        int64_t v = shape[i];
        if (rlx__is_dim_token(v)) {
            int k = rlx__dim_index(v);
            if (k >= g->ndims) {
                rlx__gerr(g, RLX_ERROR_SHAPE, "%s: entry %d is the token of symbolic dim %d, which this graph did not "
                          "declare (it has %d; see rlx_dim)", what, i, k, g->ndims);
                return 0;
            }
            v = g->dim_ex[k];
            *sym = 1;
        }
        out[i] = v;
    }
    return 1;
}

/* Remembers the builder argument spec[0..n) of node id (see rlx__symrec). 0 (sticky error) on out of memory. */
static int rlx__sym_record(rlx_graph* g, uint32_t id, int n, const int64_t* spec) {
    rlx__symrec* r;
    if (!rlx__grow(&g->al, (void**)&g->syms, &g->cap_syms, g->nsyms + 1, sizeof(rlx__symrec))) {
        rlx__gerr(g, RLX_ERROR_OUT_OF_MEMORY, "%s: out of memory for its symbolic dims", rlx_op_name(rlx__N(g, id)->op));
        return 0;
    }
    r = &g->syms[g->nsyms++];
    memset(r, 0, sizeof *r);
    r->node = id;
    r->n = n;
    if (n) memcpy(r->spec, spec, sizeof(int64_t) * (size_t)n);
    return 1;
}

RLXDEF int64_t rlx_dim(rlx_graph* g, const char* name, int64_t example_value) {
    int k;
    if (!g || g->status != RLX_OK) return 0;
    if (!name || !name[0]) { rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "dim: name is NULL or empty"); return 0; }
    for (k = 0; k < g->ndims; k++)
        if (strcmp(g->dim_names[k], name) == 0) {
            rlx__gerr(g, RLX_ERROR_DUPLICATE, "dim: '%s' is already a dim of this graph", name);
            return 0;
        }
    if (example_value < 1 || example_value > RLX_MAX_ELEMENTS) {
        rlx__gerr(g, RLX_ERROR_SHAPE, "dim '%s': example value %lld is outside 1..RLX_MAX_ELEMENTS (%lld)", name,
                  (long long)example_value, (long long)RLX_MAX_ELEMENTS);
        return 0;
    }
    if (g->ndims >= RLX_MAX_DIMS) {
        rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "dim '%s': the graph already has the maximum of %d dims", name,
                  RLX_MAX_DIMS);
        return 0;
    }
    g->dim_names[g->ndims] = rlx__strdup(&g->al, name);
    if (!g->dim_names[g->ndims]) { rlx__gerr(g, RLX_ERROR_OUT_OF_MEMORY, "dim '%s': out of memory", name); return 0; }
    g->dim_ex[g->ndims] = example_value;
    return RLX_DIM_TOKEN(g->ndims++);
}

static int rlx__check_shape(rlx_graph* g, const char* what, int rank, const int64_t* shape) {
    int i;
    int64_t n = 1;
    if (rank < 0 || rank > RLX_MAX_RANK) {
        rlx__gerr(g, RLX_ERROR_SHAPE, "%s: rank %d is outside 0..%d", what, rank, RLX_MAX_RANK);
        return 0;
    }
    if (rank > 0 && !shape) {
        rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "%s: shape is NULL", what);
        return 0;
    }
    for (i = 0; i < rank; i++) {
        if (shape[i] < 1) {
            rlx__gerr(g, RLX_ERROR_SHAPE, "%s: dim %d is %lld; dims must be >= 1%s", what, i, (long long)shape[i],
                      rlx__is_dim_token(shape[i]) ? " (a symbolic dim token: only input, param and state shapes, "
                      "reshape and expand targets and slice lengths take them, in the graph that declared it)" : "");
            return 0;
        }
        if (!rlx__mul_i64(n, shape[i], &n) || n > RLX_MAX_ELEMENTS) {
            rlx__gerr(g, RLX_ERROR_SHAPE, "%s: element count exceeds RLX_MAX_ELEMENTS (%lld)", what,
                      (long long)RLX_MAX_ELEMENTS);
            return 0;
        }
    }
    return 1;
}

static int rlx__norm_axis(rlx_graph* g, const char* what, int axis, int rank, int* out) {
    int a = axis < 0 ? axis + rank : axis;
    if (a < 0 || a >= rank) {
        rlx__gerr(g, RLX_ERROR_AXIS, "%s: axis %d is out of range for rank %d", what, axis, rank);
        return 0;
    }
    *out = a;
    return 1;
}

static void rlx__shape_str(char* buf, size_t cap, int rank, const int64_t* shape) {
    size_t o = 0;
    int i;
    o += (size_t)snprintf(buf + o, cap - o, "[");
    for (i = 0; i < rank && o < cap; i++)
        o += (size_t)snprintf(buf + o, cap - o, i ? ",%lld" : "%lld", (long long)shape[i]);
    if (o < cap) snprintf(buf + o, cap - o, "]");
}

/* numpy broadcasting of two shapes into out. Returns 0 on mismatch. */
static int rlx__broadcast(int ra, const int64_t* a, int rb, const int64_t* b, int* ro, int64_t* o) {
    int r = RLX__MAX(ra, rb), i;
    for (i = 0; i < r; i++) {
        int64_t da = i < r - ra ? 1 : a[i - (r - ra)];
        int64_t db = i < r - rb ? 1 : b[i - (r - rb)];
        if (da != db && da != 1 && db != 1) return 0;
        o[i] = da == 1 ? db : da;
    }
    *ro = r;
    return 1;
}

/* Why two shapes do not broadcast: the first dim (counted from the end, as broadcasting aligns them) where they
   differ and neither is 1. Empty if they broadcast. */
static void rlx__bcast_why(char* buf, size_t cap, const char* an, int ra, const int64_t* a, const char* bn, int rb,
                           const int64_t* b) {
    int i;
    buf[0] = 0;
    for (i = 1; i <= ra && i <= rb; i++) {
        int64_t da = a[ra - i], db = b[rb - i];
        if (da != db && da != 1 && db != 1) {
            snprintf(buf, cap, "%s dim %d (%lld) and %s dim %d (%lld) differ and neither is 1", an, ra - i,
                     (long long)da, bn, rb - i, (long long)db);
            return;
        }
    }
}

static uint64_t rlx__hash_str(const char* s) {   /* FNV-1a */
    uint64_t x = 0xCBF29CE484222325ull;
    while (*s) { x ^= (uint64_t)(unsigned char)*s++; x *= 0x100000001B3ull; }
    return x ^ (x >> 32);
}

static const char* rlx__entry_name(const rlx_graph* g, int outs, uint32_t e) {
    return outs ? g->outs[e - 1].name : g->nodes[e - 1].name;
}

/* Is `name` already the name of a node (outs = 0) or of an output (outs = 1)? 1 yes, 0 no, -1 out of memory.
   The graph's hash index first takes in the entries added since the last lookup (growing to keep at most half
   of its slots used), so n lookups cost O(n) however the entries were added. */
static int rlx__name_taken(rlx_graph* g, int outs, const char* name) {
    uint32_t** tab = outs ? &g->out_tab : &g->name_tab;
    int* cap = outs ? &g->out_cap : &g->name_cap;
    int* done = outs ? &g->out_done : &g->name_done;
    int count = outs ? g->nouts : g->n, i;
    uint32_t mask, slot;
    if (*done > count) {   /* entries were dropped: start over */
        if (*tab) memset(*tab, 0, sizeof(uint32_t) * (size_t)*cap);
        *done = 0;
    }
    if (*done < count) {
        if (*cap < 2 * count + 2) {
            int nc = 64;
            uint32_t* nt;
            while (nc < 2 * count + 2) nc *= 2;
            nt = (uint32_t*)rlx__calloc(&g->al, sizeof(uint32_t) * (size_t)nc);
            if (!nt) return -1;
            rlx__free(&g->al, *tab);
            *tab = nt;
            *cap = nc;
            *done = 0;
        }
        mask = (uint32_t)*cap - 1;
        for (i = *done; i < count; i++) {
            const char* nm = rlx__entry_name(g, outs, (uint32_t)i + 1);
            if (!nm) continue;
            for (slot = (uint32_t)rlx__hash_str(nm) & mask; (*tab)[slot]; slot = (slot + 1) & mask) {}
            (*tab)[slot] = (uint32_t)i + 1;
        }
        *done = count;
    }
    if (!*tab) return 0;
    mask = (uint32_t)*cap - 1;
    for (slot = (uint32_t)rlx__hash_str(name) & mask; (*tab)[slot]; slot = (slot + 1) & mask) {
        uint32_t e = (*tab)[slot];
        const char* nm = (int)e <= count ? rlx__entry_name(g, outs, e) : NULL;
        if (nm && strcmp(nm, name) == 0) return 1;
    }
    return 0;
}

static uint32_t rlx__source(rlx_graph* g, rlx_op op, const char* what, const char* name, rlx_dtype dt, int rank,
                            const int64_t* shape) {
    uint32_t id;
    int taken, sym = 0;
    int64_t rs[RLX_MAX_RANK];
    const int64_t* spec = shape;
    if (!g || g->status != RLX_OK) return 0;
    rlx__ctx_begin(g, what, 0, NULL);
    if (name) rlx__strlcpy(g->ctx_name, sizeof g->ctx_name, name);
    if (!rlx__dtype_ok(dt)) {
        rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "%s: invalid dtype %d", what, (int)dt);
        return 0;
    }
    if (g->ndims && rank > 0 && rank <= RLX_MAX_RANK && shape) {
        if (!rlx__dims_resolve(g, what, rank, shape, rs, &sym)) return 0;
        if (sym && op == RLX_OP_CONSTANT) {
            rlx__gerr(g, RLX_ERROR_SHAPE, "constant: a shape entry is a symbolic dim; a constant's data has a fixed "
                      "size (expand a constant, or make the tensor an input)");
            return 0;
        }
        if (sym) shape = rs;
    }
    if (!rlx__check_shape(g, what, rank, shape)) return 0;
    if (op != RLX_OP_CONSTANT) {
        if (!name || !name[0]) {
            rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "%s: name is NULL or empty", what);
            return 0;
        }
        taken = rlx__name_taken(g, 0, name);
        if (taken) {
            if (taken < 0) rlx__gerr(g, RLX_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
            else rlx__gerr(g, RLX_ERROR_DUPLICATE, "%s: name '%s' is already used by an input or param", what, name);
            return 0;
        }
    }
    id = rlx__add_node(g, op, dt, rank, shape, 0, NULL);
    if (id && name) {
        rlx__N(g, id)->name = rlx__strdup(&g->al, name);
        if (!rlx__N(g, id)->name) {
            rlx__free(&g->al, rlx__N(g, id)->label);
            g->n--;
            rlx__gerr(g, RLX_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
            return 0;
        }
    }
    if (id && sym && !rlx__sym_record(g, id, rank, spec)) return 0;
    return id;
}

RLXDEF rlx_tensor rlx_input(rlx_graph* g, const char* name, rlx_dtype dtype, int rank, const int64_t* shape) {
    return rlx__T(rlx__source(g, RLX_OP_INPUT, "input", name, dtype, rank, shape));
}
RLXDEF rlx_tensor rlx_param(rlx_graph* g, const char* name, rlx_dtype dtype, int rank, const int64_t* shape) {
    return rlx__T(rlx__source(g, RLX_OP_PARAM, "param", name, dtype, rank, shape));
}
RLXDEF rlx_tensor rlx_constant(rlx_graph* g, rlx_dtype dtype, int rank, const int64_t* shape, const void* data) {
    uint32_t id;
    size_t bytes;
    void* copy;
    if (!g || g->status != RLX_OK) return rlx__T(0);
    if (!data) {
        rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "constant: data is NULL");
        return rlx__T(0);
    }
    id = rlx__source(g, RLX_OP_CONSTANT, "constant", NULL, dtype, rank, shape);
    if (!id) return rlx__T(0);
    bytes = rlx__node_bytes(rlx__N(g, id));
    copy = rlx__alloc(&g->al, bytes);
    if (!copy) {
        rlx__free(&g->al, rlx__N(g, id)->label);
        g->n--;
        rlx__gerr(g, RLX_ERROR_OUT_OF_MEMORY, "constant: out of memory for %zu bytes", bytes);
        return rlx__T(0);
    }
    memcpy(copy, data, bytes);
    rlx__N(g, id)->data = copy;
    return rlx__T(id);
}
RLXDEF rlx_tensor rlx_scalar(rlx_graph* g, rlx_dtype dtype, double value) {
    unsigned char buf[8];
    if (!g || g->status != RLX_OK) return rlx__T(0);
    if (!rlx__dtype_ok(dtype)) {
        rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "scalar: invalid dtype %d", (int)dtype);
        return rlx__T(0);
    }
    rlx__store_f64(buf, dtype, 0, value);
    return rlx_constant(g, dtype, 0, NULL, buf);
}

RLXDEF rlx_result rlx_output(rlx_graph* g, const char* name, rlx_tensor t) {
    int taken;
    if (!g) return RLX_ERROR_INVALID_ARGUMENT;
    if (g->status != RLX_OK) return g->status;
    if (!name || !name[0]) return rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "output: name is NULL or empty");
    if (!rlx__begin(g, "output", 1, &t)) return g->status;
    if (g->nouts >= RLX__MAX_NODES)
        return rlx__gerr(g, RLX_ERROR_OUT_OF_MEMORY, "output: the graph already has the maximum of %d outputs", RLX__MAX_NODES);
    taken = rlx__name_taken(g, 1, name);
    if (taken < 0) return rlx__gerr(g, RLX_ERROR_OUT_OF_MEMORY, "output: out of memory");
    if (taken) return rlx__gerr(g, RLX_ERROR_DUPLICATE, "output: name '%s' is already an output", name);
    if (!rlx__grow(&g->al, (void**)&g->outs, &g->cap_outs, g->nouts + 1, sizeof(rlx__out)))
        return rlx__gerr(g, RLX_ERROR_OUT_OF_MEMORY, "output: out of memory");
    g->outs[g->nouts].name = rlx__strdup(&g->al, name);
    if (!g->outs[g->nouts].name) return rlx__gerr(g, RLX_ERROR_OUT_OF_MEMORY, "output: out of memory");
    g->outs[g->nouts].id = t.id;
    g->nouts++;
    g->ctx_what = NULL;   /* no node was added: end the message context here */
    return RLX_OK;
}

#define RLX__MAX_LABEL 255
/* A copy of name clipped to RLX__MAX_LABEL bytes on a UTF-8 boundary, or NULL (out of memory). */
static char* rlx__label_dup(rlx_graph* g, const char* name) {
    size_t n = strlen(name);
    char* c = (char*)rlx__alloc(&g->al, (n > RLX__MAX_LABEL ? RLX__MAX_LABEL : n) + 1);
    if (!c) return NULL;
    if (n > RLX__MAX_LABEL) {
        memcpy(c, name, RLX__MAX_LABEL);
        rlx__utf8_clip(c, RLX__MAX_LABEL);
    } else {
        memcpy(c, name, n + 1);
    }
    return c;
}

RLXDEF rlx_result rlx_set_name(rlx_graph* g, rlx_tensor t, const char* name) {
    char* c;
    if (!g) return RLX_ERROR_INVALID_ARGUMENT;
    if (g->status != RLX_OK) return g->status;
    g->ctx_what = NULL;
    if (t.id == 0 || t.id > (uint32_t)g->n || (g->tag && t.graph != g->tag))
        return rlx__gerr(g, RLX_ERROR_INVALID_TENSOR, "set_name: tensor (id %u) is not a tensor of this graph%s",
                         (unsigned)t.id, t.id && g->tag && t.graph != g->tag ? " (made by another or a destroyed graph)" : "");
    if (!name || !name[0]) return rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "set_name: name is NULL or empty (node %u)", (unsigned)t.id);
    if (!(c = rlx__label_dup(g, name))) return rlx__gerr(g, RLX_ERROR_OUT_OF_MEMORY, "set_name: out of memory");
    rlx__free(&g->al, rlx__N(g, t.id)->label);
    rlx__N(g, t.id)->label = c;
    return RLX_OK;
}

RLXDEF rlx_result rlx_set_next_name(rlx_graph* g, const char* name) {
    char* c = NULL;
    if (!g) return RLX_ERROR_INVALID_ARGUMENT;
    if (g->status != RLX_OK) return g->status;
    g->ctx_what = NULL;
    if (name && name[0] && !(c = rlx__label_dup(g, name)))
        return rlx__gerr(g, RLX_ERROR_OUT_OF_MEMORY, "set_next_name: out of memory");
    rlx__free(&g->al, g->next_label);
    g->next_label = c;
    return RLX_OK;
}

/* ---- unary ---- */
static int rlx__is_unary(rlx_op op) { return op >= RLX_OP_NEG && op <= RLX_OP_CEIL; }
static int rlx__is_binary(rlx_op op) { return op >= RLX_OP_ADD && op <= RLX_OP_GE; }
static int rlx__is_compare(rlx_op op) { return op >= RLX_OP_EQ && op <= RLX_OP_GE; }
static int rlx__is_reduce(rlx_op op) { return op >= RLX_OP_SUM && op <= RLX_OP_PROD; }

RLXDEF rlx_tensor rlx_unary(rlx_graph* g, rlx_op op, rlx_tensor x) {
    const rlx__node* nx;
    rlx_dtype dt;
    if (g && g->status == RLX_OK && !rlx__is_unary(op)) {
        rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "unary: op %d (%s) is not a unary op", (int)op, rlx_op_name(op));
        return rlx__T(0);
    }
    if (!rlx__begin(g, rlx_op_name(op), 1, &x)) return rlx__T(0);
    nx = rlx__N(g, x.id);
    dt = nx->dtype;
    if (!rlx__is_float(dt)) {
        int ok = (op == RLX_OP_NEG || op == RLX_OP_ABS || op == RLX_OP_RELU) && rlx__is_signed_int(dt);
        if (!ok) {
            rlx__gerr(g, RLX_ERROR_DTYPE, "%s: dtype %s is not allowed (needs a float%s)", rlx_op_name(op),
                      rlx_dtype_name(dt), (op == RLX_OP_NEG || op == RLX_OP_ABS || op == RLX_OP_RELU) ?
                      " or signed integer" : "");
            return rlx__T(0);
        }
    }
    return rlx__T(rlx__add_node(g, op, dt, nx->rank, nx->shape, 1, &x.id));
}
#define RLX__UNARY_FN(fname, OPC) \
    RLXDEF rlx_tensor fname(rlx_graph* g, rlx_tensor x) { return rlx_unary(g, OPC, x); }
RLX__UNARY_FN(rlx_neg, RLX_OP_NEG)
RLX__UNARY_FN(rlx_abs, RLX_OP_ABS)
RLX__UNARY_FN(rlx_exp, RLX_OP_EXP)
RLX__UNARY_FN(rlx_log, RLX_OP_LOG)
RLX__UNARY_FN(rlx_sqrt, RLX_OP_SQRT)
RLX__UNARY_FN(rlx_rsqrt, RLX_OP_RSQRT)
RLX__UNARY_FN(rlx_sin, RLX_OP_SIN)
RLX__UNARY_FN(rlx_cos, RLX_OP_COS)
RLX__UNARY_FN(rlx_tan, RLX_OP_TAN)
RLX__UNARY_FN(rlx_atan, RLX_OP_ATAN)
RLX__UNARY_FN(rlx_tanh, RLX_OP_TANH)
RLX__UNARY_FN(rlx_sigmoid, RLX_OP_SIGMOID)
RLX__UNARY_FN(rlx_relu, RLX_OP_RELU)
RLX__UNARY_FN(rlx_gelu, RLX_OP_GELU)
RLX__UNARY_FN(rlx_gelu_tanh, RLX_OP_GELU_TANH)
RLX__UNARY_FN(rlx_silu, RLX_OP_SILU)
RLX__UNARY_FN(rlx_erf, RLX_OP_ERF)
RLX__UNARY_FN(rlx_round, RLX_OP_ROUND)
RLX__UNARY_FN(rlx_floor, RLX_OP_FLOOR)
RLX__UNARY_FN(rlx_ceil, RLX_OP_CEIL)

/* ---- binary ---- */
RLXDEF rlx_tensor rlx_binary(rlx_graph* g, rlx_op op, rlx_tensor a, rlx_tensor b) {
    rlx_tensor ab[2];
    const rlx__node *na, *nb;
    int r;
    int64_t shape[RLX_MAX_RANK] = {0};
    uint32_t ids[2];
    ab[0] = a;
    ab[1] = b;
    if (g && g->status == RLX_OK && !rlx__is_binary(op)) {
        rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "binary: op %d (%s) is not a binary op", (int)op, rlx_op_name(op));
        return rlx__T(0);
    }
    if (!rlx__begin(g, rlx_op_name(op), 2, ab)) return rlx__T(0);
    na = rlx__N(g, a.id);
    nb = rlx__N(g, b.id);
    if (na->dtype != nb->dtype) {
        rlx__gerr(g, RLX_ERROR_DTYPE, "%s: a is %s but b is %s (both must have one dtype: cast one first)", rlx_op_name(op),
                  rlx_dtype_name(na->dtype), rlx_dtype_name(nb->dtype));
        return rlx__T(0);
    }
    if (na->dtype == RLX_BOOL && !(op == RLX_OP_EQ || op == RLX_OP_NE)) {
        rlx__gerr(g, RLX_ERROR_DTYPE, "%s: a and b are bool, allowed only for eq/ne", rlx_op_name(op));
        return rlx__T(0);
    }
    if (!rlx__broadcast(na->rank, na->shape, nb->rank, nb->shape, &r, shape)) {
        char why[160];
        rlx__bcast_why(why, sizeof why, "a", na->rank, na->shape, "b", nb->rank, nb->shape);
        rlx__gerr(g, RLX_ERROR_SHAPE, "%s: a and b do not broadcast: %s", rlx_op_name(op), why);
        return rlx__T(0);
    }
    if (!rlx__check_shape(g, rlx_op_name(op), r, shape)) return rlx__T(0);
    ids[0] = a.id;
    ids[1] = b.id;
    return rlx__T(rlx__add_node(g, op, rlx__is_compare(op) ? RLX_BOOL : na->dtype, r, shape, 2, ids));
}
#define RLX__BINARY_FN(fname, OPC) \
    RLXDEF rlx_tensor fname(rlx_graph* g, rlx_tensor a, rlx_tensor b) { return rlx_binary(g, OPC, a, b); }
RLX__BINARY_FN(rlx_add, RLX_OP_ADD)
RLX__BINARY_FN(rlx_sub, RLX_OP_SUB)
RLX__BINARY_FN(rlx_mul, RLX_OP_MUL)
RLX__BINARY_FN(rlx_div, RLX_OP_DIV)
RLX__BINARY_FN(rlx_pow, RLX_OP_POW)
RLX__BINARY_FN(rlx_max, RLX_OP_MAX)
RLX__BINARY_FN(rlx_min, RLX_OP_MIN)
RLX__BINARY_FN(rlx_eq, RLX_OP_EQ)
RLX__BINARY_FN(rlx_ne, RLX_OP_NE)
RLX__BINARY_FN(rlx_lt, RLX_OP_LT)
RLX__BINARY_FN(rlx_le, RLX_OP_LE)
RLX__BINARY_FN(rlx_gt, RLX_OP_GT)
RLX__BINARY_FN(rlx_ge, RLX_OP_GE)

RLXDEF rlx_tensor rlx_where(rlx_graph* g, rlx_tensor cond, rlx_tensor a, rlx_tensor b) {
    rlx_tensor t3[3];
    const rlx__node *nc, *na, *nb;
    int r1, r2;
    int64_t s1[RLX_MAX_RANK] = {0}, s2[RLX_MAX_RANK] = {0};
    uint32_t ids[3];
    t3[0] = cond; t3[1] = a; t3[2] = b;
    if (!rlx__begin(g, "where", 3, t3)) return rlx__T(0);
    nc = rlx__N(g, cond.id);
    na = rlx__N(g, a.id);
    nb = rlx__N(g, b.id);
    if (nc->dtype != RLX_BOOL) {
        rlx__gerr(g, RLX_ERROR_DTYPE, "where: cond must be bool, not %s", rlx_dtype_name(nc->dtype));
        return rlx__T(0);
    }
    if (na->dtype != nb->dtype) {
        rlx__gerr(g, RLX_ERROR_DTYPE, "where: a is %s but b is %s (they must share a dtype)", rlx_dtype_name(na->dtype),
                  rlx_dtype_name(nb->dtype));
        return rlx__T(0);
    }
    if (!rlx__broadcast(nc->rank, nc->shape, na->rank, na->shape, &r1, s1) ||
        !rlx__broadcast(r1, s1, nb->rank, nb->shape, &r2, s2)) {
        char why[160];
        rlx__bcast_why(why, sizeof why, "cond", nc->rank, nc->shape, "a", na->rank, na->shape);
        if (!why[0]) rlx__bcast_why(why, sizeof why, "cond", nc->rank, nc->shape, "b", nb->rank, nb->shape);
        if (!why[0]) rlx__bcast_why(why, sizeof why, "a", na->rank, na->shape, "b", nb->rank, nb->shape);
        rlx__gerr(g, RLX_ERROR_SHAPE, "where: cond, a and b do not broadcast: %s", why);
        return rlx__T(0);
    }
    if (!rlx__check_shape(g, "where", r2, s2)) return rlx__T(0);
    ids[0] = cond.id; ids[1] = a.id; ids[2] = b.id;
    return rlx__T(rlx__add_node(g, RLX_OP_WHERE, na->dtype, r2, s2, 3, ids));
}

RLXDEF rlx_tensor rlx_cast(rlx_graph* g, rlx_tensor x, rlx_dtype to) {
    const rlx__node* nx;
    uint32_t id;
    if (!rlx__begin(g, "cast", 1, &x)) return rlx__T(0);
    if (!rlx__dtype_ok(to)) {
        rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "cast: invalid target dtype %d", (int)to);
        return rlx__T(0);
    }
    nx = rlx__N(g, x.id);
    if ((rlx__is_quant(to) && nx->dtype != to && (nx->dtype != RLX_F32 || to == RLX_IQ4_NL || to == RLX_IQ4_XS)) ||
        (rlx__is_quant(nx->dtype) && to != nx->dtype && to != RLX_F32 && to != RLX_F16)) {
        rlx__gerr(g, RLX_ERROR_DTYPE, "cast: %s to %s: block dtypes are made from f32 (quantize; not iq4_nl/iq4_xs) "
                  "and read as f32 or f16 (dequantize)", rlx_dtype_name(nx->dtype), rlx_dtype_name(to));
        return rlx__T(0);
    }
    id = rlx__add_node(g, RLX_OP_CAST, to, nx->rank, nx->shape, 1, &x.id);
    if (id) rlx__N(g, id)->ia[0] = rlx__N(g, x.id)->dtype;
    return rlx__T(id);
}

RLXDEF rlx_tensor rlx_matmul_quant(rlx_graph* g, rlx_tensor x, rlx_tensor w) {
    rlx_tensor t2[2];
    const rlx__node *nx, *nw;
    int64_t os[RLX_MAX_RANK];
    uint32_t ids[2];
    t2[0] = x; t2[1] = w;
    if (!rlx__begin(g, "matmul_quant", 2, t2)) return rlx__T(0);
    nx = rlx__N(g, x.id);
    nw = rlx__N(g, w.id);
    if (nx->dtype != RLX_F32 || !rlx__is_quant(nw->dtype)) {
        rlx__gerr(g, RLX_ERROR_DTYPE, "matmul_quant: x must be f32 and w a block dtype (q4_0 ... iq4_xs), not %s and %s",
                  rlx_dtype_name(nx->dtype), rlx_dtype_name(nw->dtype));
        return rlx__T(0);
    }
    if (nx->rank < 1 || nw->rank != 2) {
        rlx__gerr(g, RLX_ERROR_SHAPE, "matmul_quant: x needs rank >= 1 and w rank 2 ([n, k]), not %d and %d", nx->rank,
                  nw->rank);
        return rlx__T(0);
    }
    if (nx->shape[nx->rank - 1] != nw->shape[1]) {
        rlx__gerr(g, RLX_ERROR_SHAPE, "matmul_quant: x's last dim %lld != w's dim 1 %lld (w is [n, k])",
                  (long long)nx->shape[nx->rank - 1], (long long)nw->shape[1]);
        return rlx__T(0);
    }
    memcpy(os, nx->shape, sizeof(int64_t) * (size_t)nx->rank);
    os[nx->rank - 1] = nw->shape[0];
    ids[0] = x.id; ids[1] = w.id;
    return rlx__T(rlx__add_node(g, RLX_OP_MATMUL_QUANT, RLX_F32, nx->rank, os, 2, ids));
}

RLXDEF rlx_tensor rlx_matmul(rlx_graph* g, rlx_tensor a, rlx_tensor b) {
    rlx_tensor ab[2];
    const rlx__node *na, *nb;
    int64_t as[RLX_MAX_RANK] = {0}, bs[RLX_MAX_RANK] = {0}, os[RLX_MAX_RANK] = {0};
    int ra, rb, rbatch = 0, ro = 0;
    int64_t M, K, K2, N;
    uint32_t ids[2], id;
    ab[0] = a; ab[1] = b;
    if (!rlx__begin(g, "matmul", 2, ab)) return rlx__T(0);
    na = rlx__N(g, a.id);
    nb = rlx__N(g, b.id);
    if (na->dtype != nb->dtype || na->dtype == RLX_BOOL) {
        if (na->dtype != nb->dtype)
            rlx__gerr(g, RLX_ERROR_DTYPE, "matmul: a is %s but b is %s (both must have one dtype: cast one first)",
                      rlx_dtype_name(na->dtype), rlx_dtype_name(nb->dtype));
        else
            rlx__gerr(g, RLX_ERROR_DTYPE, "matmul: a and b are bool, which matmul does not take");
        return rlx__T(0);
    }
    if (na->rank < 1 || nb->rank < 1) {
        rlx__gerr(g, RLX_ERROR_SHAPE, "matmul: operands must have rank >= 1 (got %d and %d)", na->rank, nb->rank);
        return rlx__T(0);
    }
    ra = na->rank; rb = nb->rank;
    memcpy(as, na->shape, sizeof(int64_t) * (size_t)ra);
    memcpy(bs, nb->shape, sizeof(int64_t) * (size_t)rb);
    if (ra == 1) { as[1] = as[0]; as[0] = 1; ra = 2; }
    if (rb == 1) { bs[1] = 1; rb = 2; }
    M = as[ra - 2]; K = as[ra - 1]; K2 = bs[rb - 2]; N = bs[rb - 1];
    if (K != K2) {
        rlx__gerr(g, RLX_ERROR_SHAPE, "matmul: a's last dim %lld != b's dim %s %lld", (long long)K,
                  nb->rank == 1 ? "0" : "-2", (long long)K2);
        return rlx__T(0);
    }
    if (!rlx__broadcast(ra - 2, as, rb - 2, bs, &rbatch, os)) {
        char why[160];
        rlx__bcast_why(why, sizeof why, "a batch", ra - 2, as, "b batch", rb - 2, bs);
        rlx__gerr(g, RLX_ERROR_SHAPE, "matmul: the batch dims (all but the last two) do not broadcast: %s", why);
        return rlx__T(0);
    }
    ro = rbatch;
    if (na->rank > 1) os[ro++] = M;
    if (nb->rank > 1) os[ro++] = N;
    if (!rlx__check_shape(g, "matmul", ro, os)) return rlx__T(0);
    ids[0] = a.id; ids[1] = b.id;
    {
        int64_t ra0 = na->rank, rb0 = nb->rank;
        id = rlx__add_node(g, RLX_OP_MATMUL, na->dtype, ro, os, 2, ids);
        if (id) { rlx__N(g, id)->ia[0] = ra0; rlx__N(g, id)->ia[1] = rb0; }
    }
    return rlx__T(id);
}

/* MATMUL_INTEGER: inputs a, b, then the zero points that were given; ia[0], ia[1] the ranks of a and b (as
   MATMUL, whose geometry it shares), ia[4] / ia[5]: a / b zero point present. */
RLXDEF rlx_tensor rlx_matmul_integer(rlx_graph* g, rlx_tensor a, rlx_tensor b, rlx_tensor a_zero_point,
                                     rlx_tensor b_zero_point) {
    static const char* what = "matmul_integer";
    rlx_tensor ab[2];
    const rlx__node *na, *nb;
    int64_t as[RLX_MAX_RANK] = {0}, bs[RLX_MAX_RANK] = {0}, os[RLX_MAX_RANK] = {0};
    int ra, rb, rbatch = 0, ro = 0, nin = 2, k;
    int64_t M, K, K2, N;
    uint32_t ids[4], id;
    ab[0] = a; ab[1] = b;
    if (!rlx__begin(g, what, 2, ab)) return rlx__T(0);
    if (a_zero_point.id && !rlx__begin(g, what, 1, &a_zero_point)) return rlx__T(0);
    if (b_zero_point.id && !rlx__begin(g, what, 1, &b_zero_point)) return rlx__T(0);
    na = rlx__N(g, a.id);
    nb = rlx__N(g, b.id);
    if ((na->dtype != RLX_I8 && na->dtype != RLX_U8) || (nb->dtype != RLX_I8 && nb->dtype != RLX_U8)) {
        rlx__gerr(g, RLX_ERROR_DTYPE, "%s: a and b must be i8 or u8 (got %s and %s)", what, rlx_dtype_name(na->dtype),
                  rlx_dtype_name(nb->dtype));
        return rlx__T(0);
    }
    if (na->rank < 1 || nb->rank < 1) {
        rlx__gerr(g, RLX_ERROR_SHAPE, "%s: operands must have rank >= 1 (got %d and %d)", what, na->rank, nb->rank);
        return rlx__T(0);
    }
    ra = na->rank; rb = nb->rank;
    memcpy(as, na->shape, sizeof(int64_t) * (size_t)ra);
    memcpy(bs, nb->shape, sizeof(int64_t) * (size_t)rb);
    if (ra == 1) { as[1] = as[0]; as[0] = 1; ra = 2; }
    if (rb == 1) { bs[1] = 1; rb = 2; }
    M = as[ra - 2]; K = as[ra - 1]; K2 = bs[rb - 2]; N = bs[rb - 1];
    if (K != K2) {
        rlx__gerr(g, RLX_ERROR_SHAPE, "%s: inner dims differ (%lld vs %lld)", what, (long long)K, (long long)K2);
        return rlx__T(0);
    }
    if (!rlx__broadcast(ra - 2, as, rb - 2, bs, &rbatch, os)) {
        rlx__gerr(g, RLX_ERROR_SHAPE, "%s: batch dims do not broadcast", what);
        return rlx__T(0);
    }
    ids[0] = a.id; ids[1] = b.id;
    for (k = 0; k < 2; k++) {   /* zero points: the operand's dtype, one element or one per row / column */
        rlx_tensor z = k ? b_zero_point : a_zero_point;
        const rlx__node* nz;
        int64_t want = k ? N : M;
        if (!z.id) continue;
        nz = rlx__N(g, z.id);
        if (nz->dtype != (k ? nb : na)->dtype) {
            rlx__gerr(g, RLX_ERROR_DTYPE, "%s: %s_zero_point must have its operand's dtype %s (got %s)", what,
                      k ? "b" : "a", rlx_dtype_name((k ? nb : na)->dtype), rlx_dtype_name(nz->dtype));
            return rlx__T(0);
        }
        if (rlx__node_numel(nz) != 1 && !(nz->rank == 1 && nz->shape[0] == want)) {
            rlx__gerr(g, RLX_ERROR_SHAPE, "%s: %s_zero_point must have one element or shape [%lld] (one per %s)", what,
                      k ? "b" : "a", (long long)want, k ? "column of b" : "row of a");
            return rlx__T(0);
        }
        ids[nin++] = z.id;
    }
    ro = rbatch;
    if (na->rank > 1) os[ro++] = M;
    if (nb->rank > 1) os[ro++] = N;
    if (!rlx__check_shape(g, what, ro, os)) return rlx__T(0);
    {
        int64_t ra0 = na->rank, rb0 = nb->rank;
        id = rlx__add_node(g, RLX_OP_MATMUL_INTEGER, RLX_I32, ro, os, nin, ids);
        if (id) {
            rlx__node* nd = rlx__N(g, id);
            nd->ia[0] = ra0; nd->ia[1] = rb0;
            nd->ia[4] = a_zero_point.id != 0; nd->ia[5] = b_zero_point.id != 0;
        }
    }
    return rlx__T(id);
}

RLXDEF rlx_tensor rlx_reduce(rlx_graph* g, rlx_op op, rlx_tensor x, int naxes, const int* axes, int keepdims) {
    const rlx__node* nx;
    int mark[RLX_MAX_RANK], i, ro = 0, cnt = 0;
    int64_t os[RLX_MAX_RANK] = {0};
    rlx_dtype dt;
    uint32_t id;
    if (g && g->status == RLX_OK && !rlx__is_reduce(op)) {
        rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "reduce: op %d (%s) is not a reduction", (int)op, rlx_op_name(op));
        return rlx__T(0);
    }
    if (!rlx__begin(g, rlx_op_name(op), 1, &x)) return rlx__T(0);
    nx = rlx__N(g, x.id);
    if (naxes < 0 || naxes > nx->rank || (naxes > 0 && !axes)) {
        rlx__gerr(g, (naxes < 0 || (naxes > 0 && !axes)) ? RLX_ERROR_INVALID_ARGUMENT : RLX_ERROR_AXIS, "%s: %d axes given for rank %d%s", rlx_op_name(op), naxes, nx->rank,
                  (naxes > 0 && !axes) ? " (axes is NULL)" : "");
        return rlx__T(0);
    }
    memset(mark, 0, sizeof mark);
    for (i = 0; i < naxes; i++) {
        int a;
        if (!rlx__norm_axis(g, rlx_op_name(op), axes[i], nx->rank, &a)) return rlx__T(0);
        if (mark[a]) {
            rlx__gerr(g, RLX_ERROR_AXIS, "%s: axis %d given twice", rlx_op_name(op), axes[i]);
            return rlx__T(0);
        }
        mark[a] = 1;
    }
    if (naxes == 0)
        for (i = 0; i < nx->rank; i++) mark[i] = 1;
    dt = nx->dtype;
    if (op == RLX_OP_MEAN && !rlx__is_float(dt)) {
        rlx__gerr(g, RLX_ERROR_DTYPE, "mean: needs a float dtype, not %s", rlx_dtype_name(dt));
        return rlx__T(0);
    }
    if ((op == RLX_OP_REDUCE_MAX || op == RLX_OP_REDUCE_MIN) && dt == RLX_BOOL) {
        rlx__gerr(g, RLX_ERROR_DTYPE, "%s: bool is not allowed", rlx_op_name(op));
        return rlx__T(0);
    }
    if ((op == RLX_OP_SUM || op == RLX_OP_PROD) && (rlx__is_int(dt) || dt == RLX_BOOL)) dt = RLX_I64;
    for (i = 0; i < nx->rank; i++) {
        if (!mark[i]) os[ro++] = nx->shape[i];
        else if (keepdims) os[ro++] = 1;
    }
    {
        int xr = nx->rank;
        id = rlx__add_node(g, op, dt, ro, os, 1, &x.id);
        nx = NULL; /* the node array may have moved */
        if (id) {
            rlx__node* nd = rlx__N(g, id);
            nd->ia[0] = keepdims ? 1 : 0;
            for (i = 0; i < xr; i++)
                if (mark[i]) nd->ia[2 + cnt++] = i;
            nd->ia[1] = cnt;
        }
    }
    return rlx__T(id);
}
RLXDEF rlx_tensor rlx_reduce_sum(rlx_graph* g, rlx_tensor x, int n, const int* axes, int keep) { return rlx_reduce(g, RLX_OP_SUM, x, n, axes, keep); }
RLXDEF rlx_tensor rlx_reduce_mean(rlx_graph* g, rlx_tensor x, int n, const int* axes, int keep) { return rlx_reduce(g, RLX_OP_MEAN, x, n, axes, keep); }
RLXDEF rlx_tensor rlx_reduce_max(rlx_graph* g, rlx_tensor x, int n, const int* axes, int keep) { return rlx_reduce(g, RLX_OP_REDUCE_MAX, x, n, axes, keep); }
RLXDEF rlx_tensor rlx_reduce_min(rlx_graph* g, rlx_tensor x, int n, const int* axes, int keep) { return rlx_reduce(g, RLX_OP_REDUCE_MIN, x, n, axes, keep); }
RLXDEF rlx_tensor rlx_reduce_prod(rlx_graph* g, rlx_tensor x, int n, const int* axes, int keep) { return rlx_reduce(g, RLX_OP_PROD, x, n, axes, keep); }

static rlx_tensor rlx__arg(rlx_graph* g, rlx_op op, rlx_tensor x, int axis, int keepdims) {
    const rlx__node* nx;
    int a, i, ro = 0;
    int64_t os[RLX_MAX_RANK] = {0};
    uint32_t id;
    if (!rlx__begin(g, rlx_op_name(op), 1, &x)) return rlx__T(0);
    nx = rlx__N(g, x.id);
    if (nx->dtype == RLX_BOOL) {
        rlx__gerr(g, RLX_ERROR_DTYPE, "%s: bool is not allowed", rlx_op_name(op));
        return rlx__T(0);
    }
    if (nx->rank == 0) {
        rlx__gerr(g, RLX_ERROR_AXIS, "%s: needs rank >= 1", rlx_op_name(op));
        return rlx__T(0);
    }
    if (!rlx__norm_axis(g, rlx_op_name(op), axis, nx->rank, &a)) return rlx__T(0);
    for (i = 0; i < nx->rank; i++) {
        if (i != a) os[ro++] = nx->shape[i];
        else if (keepdims) os[ro++] = 1;
    }
    id = rlx__add_node(g, op, RLX_I64, ro, os, 1, &x.id);
    if (id) { rlx__N(g, id)->ia[0] = a; rlx__N(g, id)->ia[1] = keepdims ? 1 : 0; }
    return rlx__T(id);
}
RLXDEF rlx_tensor rlx_argmax(rlx_graph* g, rlx_tensor x, int axis, int keepdims) { return rlx__arg(g, RLX_OP_ARGMAX, x, axis, keepdims); }
RLXDEF rlx_tensor rlx_argmin(rlx_graph* g, rlx_tensor x, int axis, int keepdims) { return rlx__arg(g, RLX_OP_ARGMIN, x, axis, keepdims); }

static rlx_tensor rlx__softmax(rlx_graph* g, rlx_op op, rlx_tensor x, int axis) {
    const rlx__node* nx;
    int a;
    uint32_t id;
    if (!rlx__begin(g, rlx_op_name(op), 1, &x)) return rlx__T(0);
    nx = rlx__N(g, x.id);
    if (!rlx__is_float(nx->dtype)) {
        rlx__gerr(g, RLX_ERROR_DTYPE, "%s: needs a float dtype, not %s", rlx_op_name(op), rlx_dtype_name(nx->dtype));
        return rlx__T(0);
    }
    if (!rlx__norm_axis(g, rlx_op_name(op), axis, nx->rank, &a)) return rlx__T(0);
    id = rlx__add_node(g, op, nx->dtype, nx->rank, nx->shape, 1, &x.id);
    if (id) rlx__N(g, id)->ia[0] = a;
    return rlx__T(id);
}
RLXDEF rlx_tensor rlx_softmax(rlx_graph* g, rlx_tensor x, int axis) { return rlx__softmax(g, RLX_OP_SOFTMAX, x, axis); }
RLXDEF rlx_tensor rlx_log_softmax(rlx_graph* g, rlx_tensor x, int axis) { return rlx__softmax(g, RLX_OP_LOG_SOFTMAX, x, axis); }

/* Shared by layernorm and rmsnorm: x float, optional gamma/beta of shape x.shape[axis:], same dtype. */
static rlx_tensor rlx__norm(rlx_graph* g, rlx_op op, rlx_tensor x, rlx_tensor gamma, rlx_tensor beta, int axis,
                            float eps) {
    const rlx__node* nx;
    rlx_tensor opt[2];
    uint32_t ids[3], id;
    int a, k, nin = 1;
    const char* what = rlx_op_name(op);
    if (!rlx__begin(g, what, 1, &x)) return rlx__T(0);
    nx = rlx__N(g, x.id);
    if (!rlx__is_float(nx->dtype)) {
        rlx__gerr(g, RLX_ERROR_DTYPE, "%s: needs a float dtype, not %s", what, rlx_dtype_name(nx->dtype));
        return rlx__T(0);
    }
    if (nx->rank == 0) {
        rlx__gerr(g, RLX_ERROR_SHAPE, "%s: needs rank >= 1", what);
        return rlx__T(0);
    }
    if (!rlx__norm_axis(g, what, axis, nx->rank, &a)) return rlx__T(0);
    if (!(eps >= 0.0f) || isinf(eps)) {
        rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "%s: eps must be finite and >= 0", what);
        return rlx__T(0);
    }
    opt[0] = gamma; opt[1] = beta;
    ids[0] = x.id;
    for (k = 0; k < 2; k++) {
        const rlx__node* np;
        if (opt[k].id == 0) continue;
        if (!rlx__begin(g, what, 1, &opt[k])) return rlx__T(0);
        np = rlx__N(g, opt[k].id);
        if (np->dtype != nx->dtype) {
            rlx__gerr(g, RLX_ERROR_DTYPE, "%s: %s dtype %s differs from x dtype %s", what, k ? "beta" : "gamma",
                      rlx_dtype_name(np->dtype), rlx_dtype_name(nx->dtype));
            return rlx__T(0);
        }
        if (np->rank != nx->rank - a || memcmp(np->shape, nx->shape + a, sizeof(int64_t) * (size_t)np->rank) != 0) {
            char sp[160], sw[160];
            rlx__shape_str(sp, sizeof sp, np->rank, np->shape);
            rlx__shape_str(sw, sizeof sw, nx->rank - a, nx->shape + a);
            rlx__gerr(g, RLX_ERROR_SHAPE, "%s: %s is %s but must have shape x.shape[%d:] = %s", what, k ? "beta" : "gamma",
                      sp, a, sw);
            return rlx__T(0);
        }
        ids[nin++] = opt[k].id;
    }
    id = rlx__add_node(g, op, nx->dtype, nx->rank, nx->shape, nin, ids);
    if (id) {
        rlx__node* nd = rlx__N(g, id);
        nd->ia[0] = a;
        nd->ia[1] = gamma.id != 0;
        nd->ia[2] = beta.id != 0;
        nd->fa[0] = (double)eps;
    }
    return rlx__T(id);
}
RLXDEF rlx_tensor rlx_layernorm(rlx_graph* g, rlx_tensor x, rlx_tensor gamma, rlx_tensor beta, int axis, float eps) {
    return rlx__norm(g, RLX_OP_LAYERNORM, x, gamma, beta, axis, eps);
}
RLXDEF rlx_tensor rlx_rmsnorm(rlx_graph* g, rlx_tensor x, rlx_tensor gamma, rlx_tensor beta, float eps) {
    return rlx__norm(g, RLX_OP_RMSNORM, x, gamma, beta, -1, eps);
}

RLXDEF rlx_tensor rlx_reshape(rlx_graph* g, rlx_tensor x, int rank, const int64_t* shape) {
    const rlx__node* nx;
    int64_t os[RLX_MAX_RANK] = {0}, known = 1, rs[RLX_MAX_RANK];
    int i, neg = -1, sym = 0;
    const int64_t* spec = shape;
    uint32_t id;
    if (!rlx__begin(g, "reshape", 1, &x)) return rlx__T(0);
    nx = rlx__N(g, x.id);
    if (rank > 0 && rank <= RLX_MAX_RANK && !shape) {
        rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "reshape: shape is NULL");
        return rlx__T(0);
    }
    if (rank < 0 || rank > RLX_MAX_RANK) {
        rlx__gerr(g, RLX_ERROR_SHAPE, "reshape: rank %d is outside 0..%d", rank, RLX_MAX_RANK);
        return rlx__T(0);
    }
    if (g->ndims && rank > 0) {
        if (!rlx__dims_resolve(g, "reshape", rank, shape, rs, &sym)) return rlx__T(0);
        if (sym) shape = rs;
    }
    for (i = 0; i < rank; i++) {
        os[i] = shape[i];
        if (shape[i] == -1) {
            if (neg >= 0) {
                rlx__gerr(g, RLX_ERROR_SHAPE, "reshape: more than one -1");
                return rlx__T(0);
            }
            neg = i;
        } else if (shape[i] < 1) {
            rlx__gerr(g, RLX_ERROR_SHAPE, "reshape: dim %d is %lld%s", i, (long long)shape[i],
                      rlx__is_dim_token(shape[i]) ? " (a symbolic dim token of a graph that declares no dims)" : "");
            return rlx__T(0);
        } else {
            if (known > INT64_MAX / shape[i]) {
                rlx__gerr(g, RLX_ERROR_SHAPE, "reshape: element count overflows");
                return rlx__T(0);
            }
            known *= shape[i];
        }
    }
    if (neg >= 0) {
        if (rlx__node_numel(nx) % known != 0) {
            rlx__gerr(g, RLX_ERROR_SHAPE, "reshape: %lld elements do not divide into the known dims (%lld)",
                      (long long)rlx__node_numel(nx), (long long)known);
            return rlx__T(0);
        }
        os[neg] = rlx__node_numel(nx) / known;
        known *= os[neg];
    }
    if (known != rlx__node_numel(nx)) {
        rlx__gerr(g, RLX_ERROR_SHAPE, "reshape: %lld elements cannot become %lld", (long long)rlx__node_numel(nx),
                  (long long)known);
        return rlx__T(0);
    }
    id = rlx__add_node(g, RLX_OP_RESHAPE, nx->dtype, rank, os, 1, &x.id);
    if (id && g->ndims && (sym || neg >= 0) && !rlx__sym_record(g, id, rank, spec)) return rlx__T(0);
    return rlx__T(id);
}

RLXDEF rlx_tensor rlx_transpose(rlx_graph* g, rlx_tensor x, const int* perm) {
    const rlx__node* nx;
    int p[RLX_MAX_RANK], seen[RLX_MAX_RANK], i;
    int64_t os[RLX_MAX_RANK] = {0};
    uint32_t id;
    if (!rlx__begin(g, "transpose", 1, &x)) return rlx__T(0);
    nx = rlx__N(g, x.id);
    memset(seen, 0, sizeof seen);
    for (i = 0; i < nx->rank; i++) {
        p[i] = perm ? perm[i] : nx->rank - 1 - i;
        if (p[i] < 0 || p[i] >= nx->rank || seen[p[i]]) {
            rlx__gerr(g, RLX_ERROR_AXIS, "transpose: perm is not a permutation of 0..%d: perm[%d] = %d %s", nx->rank - 1,
                      i, p[i], p[i] < 0 || p[i] >= nx->rank ? "is out of range" : "appears twice");
            return rlx__T(0);
        }
        seen[p[i]] = 1;
        os[i] = nx->shape[p[i]];
    }
    id = rlx__add_node(g, RLX_OP_TRANSPOSE, nx->dtype, nx->rank, os, 1, &x.id);
    nx = NULL; /* the node array may have moved */
    if (id)
        for (i = 0; i < rlx__N(g, id)->rank; i++) rlx__N(g, id)->ia[i] = p[i];
    return rlx__T(id);
}

RLXDEF rlx_tensor rlx_slice(rlx_graph* g, rlx_tensor x, int axis, int64_t start, int64_t length, int64_t step) {
    const rlx__node* nx;
    int a;
    int64_t os[RLX_MAX_RANK] = {0}, dim, spec[2];
    int sym = 0;
    uint32_t id;
    if (!rlx__begin(g, "slice", 1, &x)) return rlx__T(0);
    nx = rlx__N(g, x.id);
    if (!rlx__norm_axis(g, "slice", axis, nx->rank, &a)) return rlx__T(0);
    spec[0] = start;
    spec[1] = length;
    if (g->ndims && !rlx__dims_resolve(g, "slice length", 1, &spec[1], &length, &sym)) return rlx__T(0);
    dim = nx->shape[a];
    if (start < 0) start += dim;
    if (step < 1 || length < 1 || start < 0 || start >= dim || (length - 1) > (dim - 1 - start) / step) {
        rlx__gerr(g, RLX_ERROR_SHAPE, "slice: start %lld, length %lld, step %lld do not fit axis %d of size %lld",
                  (long long)start, (long long)length, (long long)step, a, (long long)dim);
        return rlx__T(0);
    }
    memcpy(os, nx->shape, sizeof(int64_t) * (size_t)nx->rank);
    os[a] = length;
    id = rlx__add_node(g, RLX_OP_SLICE, nx->dtype, nx->rank, os, 1, &x.id);
    if (id) { rlx__N(g, id)->ia[0] = a; rlx__N(g, id)->ia[1] = start; rlx__N(g, id)->ia[2] = step; }
    if (id && g->ndims && (sym || spec[0] < 0) && !rlx__sym_record(g, id, 2, spec)) return rlx__T(0);
    return rlx__T(id);
}
RLXDEF rlx_tensor rlx_narrow(rlx_graph* g, rlx_tensor x, int axis, int64_t start, int64_t length) {
    return rlx_slice(g, x, axis, start, length, 1);
}

RLXDEF rlx_tensor rlx_concat(rlx_graph* g, int n, const rlx_tensor* xs, int axis) {
    const rlx__node* n0;
    int a, i, d;
    int64_t os[RLX_MAX_RANK] = {0};
    uint32_t* ids;
    uint32_t id;
    if (!g || g->status != RLX_OK) return rlx__T(0);
    if (n < 1 || !xs) {
        rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "concat: needs n >= 1 tensors (n = %d%s)", n, xs ? "" : ", xs NULL");
        return rlx__T(0);
    }
    if (!rlx__begin(g, "concat", n, xs)) return rlx__T(0);
    n0 = rlx__N(g, xs[0].id);
    if (!rlx__norm_axis(g, "concat", axis, n0->rank, &a)) return rlx__T(0);
    memcpy(os, n0->shape, sizeof(int64_t) * (size_t)n0->rank);
    for (i = 1; i < n; i++) {
        const rlx__node* ni = rlx__N(g, xs[i].id);
        if (ni->dtype != n0->dtype) {
            rlx__gerr(g, RLX_ERROR_DTYPE, "concat: input %d dtype %s differs from %s", i, rlx_dtype_name(ni->dtype),
                      rlx_dtype_name(n0->dtype));
            return rlx__T(0);
        }
        if (ni->rank != n0->rank) {
            rlx__gerr(g, RLX_ERROR_SHAPE, "concat: input %d has rank %d, not %d", i, ni->rank, n0->rank);
            return rlx__T(0);
        }
        for (d = 0; d < n0->rank; d++)
            if (d != a && ni->shape[d] != n0->shape[d]) {
                rlx__gerr(g, RLX_ERROR_SHAPE, "concat: input %d differs in dim %d (%lld vs %lld)", i, d,
                          (long long)ni->shape[d], (long long)n0->shape[d]);
                return rlx__T(0);
            }
        if (os[a] > INT64_MAX - ni->shape[a]) {
            rlx__gerr(g, RLX_ERROR_SHAPE, "concat: the size along axis %d overflows", a);
            return rlx__T(0);
        }
        os[a] += ni->shape[a];
    }
    if (!rlx__check_shape(g, "concat", n0->rank, os)) return rlx__T(0);
    ids = (uint32_t*)rlx__alloc(&g->al, sizeof(uint32_t) * (size_t)n);
    if (!ids) {
        rlx__gerr(g, RLX_ERROR_OUT_OF_MEMORY, "concat: out of memory");
        return rlx__T(0);
    }
    for (i = 0; i < n; i++) ids[i] = xs[i].id;
    id = rlx__add_node(g, RLX_OP_CONCAT, n0->dtype, n0->rank, os, n, ids);
    rlx__free(&g->al, ids);
    if (id) rlx__N(g, id)->ia[0] = a;
    return rlx__T(id);
}

RLXDEF rlx_tensor rlx_expand(rlx_graph* g, rlx_tensor x, int rank, const int64_t* shape) {
    const rlx__node* nx;
    int i, sym = 0;
    int64_t rs[RLX_MAX_RANK];
    const int64_t* spec = shape;
    uint32_t id;
    if (!rlx__begin(g, "expand", 1, &x)) return rlx__T(0);
    nx = rlx__N(g, x.id);
    if (g->ndims && rank > 0 && rank <= RLX_MAX_RANK && shape) {
        if (!rlx__dims_resolve(g, "expand", rank, shape, rs, &sym)) return rlx__T(0);
        if (sym) shape = rs;
    }
    if (!rlx__check_shape(g, "expand", rank, shape)) return rlx__T(0);
    if (rank < nx->rank) {
        rlx__gerr(g, RLX_ERROR_SHAPE, "expand: target rank %d is below the input rank %d", rank, nx->rank);
        return rlx__T(0);
    }
    for (i = 0; i < nx->rank; i++) {
        int64_t d = nx->shape[i], t = shape[rank - nx->rank + i];
        if (d != t && d != 1) {
            rlx__gerr(g, RLX_ERROR_SHAPE, "expand: input dim %d (%lld) cannot broadcast to %lld", i, (long long)d,
                      (long long)t);
            return rlx__T(0);
        }
    }
    id = rlx__add_node(g, RLX_OP_EXPAND, nx->dtype, rank, shape, 1, &x.id);
    if (id && sym && !rlx__sym_record(g, id, rank, spec)) return rlx__T(0);
    return rlx__T(id);
}

RLXDEF rlx_tensor rlx_gather(rlx_graph* g, rlx_tensor x, rlx_tensor indices, int axis) {
    rlx_tensor t2[2];
    const rlx__node *nx, *ni;
    int a, i, ro = 0;
    int64_t os[RLX_MAX_RANK * 2] = {0};
    uint32_t ids[2], id;
    t2[0] = x; t2[1] = indices;
    if (!rlx__begin(g, "gather", 2, t2)) return rlx__T(0);
    nx = rlx__N(g, x.id);
    ni = rlx__N(g, indices.id);
    if (ni->dtype != RLX_I32 && ni->dtype != RLX_I64) {
        rlx__gerr(g, RLX_ERROR_DTYPE, "gather: indices must be i32 or i64, not %s", rlx_dtype_name(ni->dtype));
        return rlx__T(0);
    }
    if (nx->rank == 0) {
        rlx__gerr(g, RLX_ERROR_SHAPE, "gather: x must have rank >= 1");
        return rlx__T(0);
    }
    if (!rlx__norm_axis(g, "gather", axis, nx->rank, &a)) return rlx__T(0);
    if (rlx__is_quant(nx->dtype) && a == nx->rank - 1) {
        rlx__gerr(g, RLX_ERROR_AXIS, "gather: x is %s, packed in blocks along its last axis: gather rows (an axis "
                  "before the last), not single elements", rlx_dtype_name(nx->dtype));
        return rlx__T(0);
    }
    for (i = 0; i < a; i++) os[ro++] = nx->shape[i];
    for (i = 0; i < ni->rank; i++) os[ro++] = ni->shape[i];
    for (i = a + 1; i < nx->rank; i++) os[ro++] = nx->shape[i];
    if (!rlx__check_shape(g, "gather", ro, os)) return rlx__T(0);
    ids[0] = x.id; ids[1] = indices.id;
    id = rlx__add_node(g, RLX_OP_GATHER, nx->dtype, ro, os, 2, ids);
    if (id) rlx__N(g, id)->ia[0] = a;
    return rlx__T(id);
}

/* ---- dumps ---- */
typedef struct rlx__sb { char* buf; size_t cap, len; } rlx__sb;
static void rlx__sbf(rlx__sb* s, const char* fmt, ...) {
    va_list ap;
    int n;
    char* dst = s->buf && s->len < s->cap ? s->buf + s->len : NULL;
    size_t room = s->buf && s->len < s->cap ? s->cap - s->len : 0;
    va_start(ap, fmt);
    n = vsnprintf(dst, room, fmt, ap);
    va_end(ap);
    if (n > 0) s->len += (size_t)n;
}
static size_t rlx__sb_done(rlx__sb* s) {
    if (s->buf && s->cap) s->buf[s->len < s->cap ? s->len : s->cap - 1] = 0;
    return s->len;
}
static void rlx__sb_type(rlx__sb* s, const rlx__node* nd) {
    int i;
    rlx__sbf(s, "%s[", rlx_dtype_name(nd->dtype));
    for (i = 0; i < nd->rank; i++) rlx__sbf(s, i ? ",%lld" : "%lld", (long long)nd->shape[i]);
    rlx__sbf(s, "]");
}
static void rlx__sb_attrs(rlx__sb* s, const rlx__node* nd) {
    int i;
    switch (nd->op) {
    case RLX_OP_CAST: rlx__sbf(s, " from=%s", rlx_dtype_name((rlx_dtype)nd->ia[0])); break;
    case RLX_OP_SUM: case RLX_OP_MEAN: case RLX_OP_REDUCE_MAX: case RLX_OP_REDUCE_MIN: case RLX_OP_PROD:
        rlx__sbf(s, " axes=");
        for (i = 0; i < (int)nd->ia[1]; i++) rlx__sbf(s, i ? ",%lld" : "%lld", (long long)nd->ia[2 + i]);
        rlx__sbf(s, " keepdims=%d", (int)nd->ia[0]);
        break;
    case RLX_OP_ARGMAX: case RLX_OP_ARGMIN: rlx__sbf(s, " axis=%d keepdims=%d", (int)nd->ia[0], (int)nd->ia[1]); break;
    case RLX_OP_SOFTMAX: case RLX_OP_LOG_SOFTMAX: case RLX_OP_CONCAT: case RLX_OP_GATHER:
        rlx__sbf(s, " axis=%d", (int)nd->ia[0]); break;
    case RLX_OP_LAYERNORM: rlx__sbf(s, " axis=%d eps=%g", (int)nd->ia[0], nd->fa[0]); break;
    case RLX_OP_RMSNORM: rlx__sbf(s, " eps=%g", nd->fa[0]); break;
    case RLX_OP_TRANSPOSE:
        rlx__sbf(s, " perm=");
        for (i = 0; i < nd->rank; i++) rlx__sbf(s, i ? ",%lld" : "%lld", (long long)nd->ia[i]);
        break;
    case RLX_OP_SLICE: rlx__sbf(s, " axis=%d start=%lld step=%lld", (int)nd->ia[0], (long long)nd->ia[1], (long long)nd->ia[2]); break;
    default: break;
    }
}

RLXDEF size_t rlx_graph_dump(const rlx_graph* g, char* buf, size_t cap) {
    rlx__sb s;
    int i, k;
    s.buf = buf; s.cap = cap; s.len = 0;
    if (!g) { rlx__sbf(&s, "(null graph)\n"); return rlx__sb_done(&s); }
    for (i = 0; i < g->n; i++) {
        const rlx__node* nd = &g->nodes[i];
        rlx__sbf(&s, "%%%d = %s", i + 1, rlx_op_name(nd->op));
        if (nd->name) rlx__sbf(&s, " \"%s\"", nd->name);
        if (nd->label) rlx__sbf(&s, " '%s'", nd->label);
        if (nd->nin) {
            rlx__sbf(&s, "(");
            for (k = 0; k < nd->nin; k++) rlx__sbf(&s, k ? ", %%%u" : "%%%u", (unsigned)rlx__in(g, nd, k));
            rlx__sbf(&s, ")");
        }
        rlx__sb_attrs(&s, nd);
        rlx__sbf(&s, " : ");
        rlx__sb_type(&s, nd);
        rlx__sbf(&s, "\n");
    }
    for (i = 0; i < g->nouts; i++) rlx__sbf(&s, "output \"%s\" = %%%u\n", g->outs[i].name, (unsigned)g->outs[i].id);
    return rlx__sb_done(&s);
}

RLXDEF size_t rlx_graph_dump_dot(const rlx_graph* g, char* buf, size_t cap) {
    rlx__sb s;
    int i, k;
    s.buf = buf; s.cap = cap; s.len = 0;
    rlx__sbf(&s, "digraph rlx {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n");
    if (g) {
        for (i = 0; i < g->n; i++) {
            const rlx__node* nd = &g->nodes[i];
            const char* style = nd->op == RLX_OP_INPUT ? ", style=filled, fillcolor=\"#cfe8ff\"" :
                                nd->op == RLX_OP_PARAM ? ", style=filled, fillcolor=\"#ffe9c2\"" :
                                nd->op == RLX_OP_CONSTANT ? ", style=filled, fillcolor=\"#e6e6e6\"" : "";
            rlx__sbf(&s, "  n%d [label=\"%%%d %s", i + 1, i + 1, rlx_op_name(nd->op));
            if (nd->name) rlx__sbf(&s, " '%s'", nd->name);
            if (nd->label) {   /* labels come from model files: escape what DOT would read */
                const char* c;
                rlx__sbf(&s, " [");
                for (c = nd->label; *c; c++) rlx__sbf(&s, (*c == '"' || *c == '\\') ? "\\%c" : "%c", *c);
                rlx__sbf(&s, "]");
            }
            rlx__sb_attrs(&s, nd);
            rlx__sbf(&s, "\\n");
            rlx__sb_type(&s, nd);
            rlx__sbf(&s, "\"%s];\n", style);
            for (k = 0; k < nd->nin; k++) rlx__sbf(&s, "  n%u -> n%d;\n", (unsigned)rlx__in(g, nd, k), i + 1);
        }
        for (i = 0; i < g->nouts; i++) {
            rlx__sbf(&s, "  out%d [label=\"output '%s'\", shape=oval, style=filled, fillcolor=\"#d4f5d4\"];\n", i,
                     g->outs[i].name);
            rlx__sbf(&s, "  n%u -> out%d;\n", (unsigned)g->outs[i].id, i);
        }
    }
    rlx__sbf(&s, "}\n");
    return rlx__sb_done(&s);
}

/* ------------------------------------------------------------------------------------------------------------
   >>infer (model ops)
   Attribute layout of the model ops (ia = integer attributes, fa = float attributes; inputs in order):
   ATTENTION  in: q, k, v, [keep_mask], [bias], [kv_len]
              ia: 0 layout, 1 H, 2 Hkv, 3 causal, 4 window, 5 has_keep, 6 has_bias, 7 kv_len (0 none, 1 scalar,
                  2 one per batch row: [B]), 8 D, 9 Dv,
                  10 B, 11 Sq, 12 Sk, 13 keep_mask rank (2 or 3)          fa: 0 scale (resolved), 1 softcap
   ROPE       in: x, cos, sin, [positions]
              ia: 0 kind, 1 layout, 2 H, 3 n_rot, 4 has_positions, 5 position_offset, 6 D, 7 B, 8 S, 9 P (rows)
   CUMSUM     ia: 0 axis, 1 exclusive, 2 reverse
   TOPK       ia: 0 axis, 1 k, 2 largest, 3 which (0 values, 1 indices)
   SAMPLE     in: logits, counter   ia: 0 top_k, 1 seed (bits of the uint64)   fa: 0 temperature, 1 top_p
   CONV, CONV_TRANSPOSE  in: x, w, [bias]
              ia: 0 nspatial (1|2), 1-2 stride, 3-4 dilation, 5-6 pad_begin, 7-8 pad_end, 9 groups, 10 has_bias,
                  11-12 output_padding (all resolved: no zeros meaning "default")
   POOL       ia: 0 nspatial, 1 kind, 2-3 kernel, 4-5 stride, 6-7 pad_begin, 8-9 pad_end, 10 count_include_pad
              (global pooling is resolved into kernel = plane, stride = kernel, no padding)
   GROUP_NORM in: x, [gamma], [beta]   ia: 0 groups, 1 has_gamma, 2 has_beta   fa: 0 eps
   RESIZE     ia: 0 mode, 1 align_corners
   PAD        ia: 0 mode, 1-8 before[axis], 9-16 after[axis]   fa: 0 value
   LINEAR     in: x, w, [bias], [gate]   ia: 0 activation, 1 has_bias, 2 has_gate, 3 gate activation,
                  4 w is stored transposed: [N, K] (set by the fusion pass when w was transpose(W))
              y = act(x·w + bias), times act_gate(gate) when gated (formed only by the fusion pass)
   ADD_NORM   in: x, residual, [gamma], [beta]
              ia: 0 axis (first normalised axis), 1 has_gamma, 2 has_beta, 3 kind (0 rmsnorm, 1 layernorm),
                  4 emit_sum   fa: 0 eps. The node is the norm; with emit_sum an EXTRA node (input: the ADD_NORM)
              stands for the sum, a second output written by the same step into a buffer of its own.
   EXTRA      in: the node whose second output it is (no step of its own; see rlx__extra_of)
   SWIGLU, GEGLU  in: gate, up (same shape)
   FUSED_EW   in: up to 8 tensors, each of the output's shape or a single element; ia: 0 = instruction count n,
              1..n = instructions (op | a << 8 | b << 16; operand r < 8 is input r, r >= 8 is the result of
              instruction r - 8), the last instruction is the result
   STATE      source with a name (persistent per program)
   STATE_WRITE in: state, update, offset   ia: 0 axis, 1 rows of the state per offset element when the offset
              is one per batch row ([B]: the product of dims 1 .. axis-1), 0 for a scalar offset
   ------------------------------------------------------------------------------------------------------------ */

static int rlx__opt_tensor(rlx_graph* g, const char* what, rlx_tensor t) {
    if (t.id == 0) return 1;
    return rlx__begin(g, what, 1, &t);
}

static int rlx__is_int_scalar(const rlx__node* n) {
    return (n->dtype == RLX_I32 || n->dtype == RLX_I64) && rlx__node_numel(n) == 1;
}

/* A run-time position per batch row: i32/i64 of shape [B] (B > 1; with B = 1 it is a scalar). */
static int rlx__is_int_rows(const rlx__node* n, int64_t B) {
    return (n->dtype == RLX_I32 || n->dtype == RLX_I64) && n->rank == 1 && n->shape[0] == B && B > 1;
}

RLXDEF rlx_tensor rlx_attention(rlx_graph* g, rlx_tensor q, rlx_tensor k, rlx_tensor v, const rlx_attention_desc* desc) {
    rlx_tensor t3[3];
    const rlx__node *nq, *nk, *nv;
    int64_t B, Sq, Sk, H, Hkv, D, Dk, Dv, os[4];
    int orank;
    uint32_t ids[6], id;
    int nin = 3;
    rlx_attention_desc d;
    t3[0] = q; t3[1] = k; t3[2] = v;
    if (!rlx__begin(g, "attention", 3, t3)) return rlx__T(0);
    if (!desc) { rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "attention: desc is NULL"); return rlx__T(0); }
    d = *desc;
    nq = rlx__N(g, q.id); nk = rlx__N(g, k.id); nv = rlx__N(g, v.id);
    if (!rlx__is_float(nq->dtype) || nk->dtype != nq->dtype || nv->dtype != nq->dtype) {
        if (!rlx__is_float(nq->dtype))
            rlx__gerr(g, RLX_ERROR_DTYPE, "attention: q is %s; q, k, v must share a float dtype", rlx_dtype_name(nq->dtype));
        else
            rlx__gerr(g, RLX_ERROR_DTYPE, "attention: %s is %s but q is %s (q, k, v must share a float dtype)",
                      nk->dtype != nq->dtype ? "k" : "v", rlx_dtype_name(nk->dtype != nq->dtype ? nk->dtype : nv->dtype),
                      rlx_dtype_name(nq->dtype));
        return rlx__T(0);
    }
    if ((int)d.layout < 0 || d.layout >= RLX_LAYOUT_COUNT) {
        rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "attention: invalid layout %d", (int)d.layout);
        return rlx__T(0);
    }
    if (d.window < 0 || d.num_heads < 0 || d.num_kv_heads < 0 || !(d.scale >= 0.0f) || !(d.softcap >= 0.0f) ||
        isinf(d.scale) || isinf(d.softcap)) {
        rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "attention: window, heads, scale and softcap must be >= 0 and finite");
        return rlx__T(0);
    }
    if (d.layout == RLX_LAYOUT_BSHD) {
        if (nq->rank != 3 || nk->rank != 3 || nv->rank != 3) {
            rlx__gerr(g, RLX_ERROR_SHAPE, "attention: BSHD layout needs rank-3 q, k, v [B, S, H*D]; their ranks are %d, %d, %d",
                      nq->rank, nk->rank, nv->rank);
            return rlx__T(0);
        }
        H = d.num_heads;
        Hkv = d.num_kv_heads ? d.num_kv_heads : H;
        if (H < 1) { rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "attention: BSHD layout needs num_heads"); return rlx__T(0); }
        B = nq->shape[0]; Sq = nq->shape[1]; Sk = nk->shape[1];
        if (nq->shape[2] % H || nk->shape[2] % Hkv || nv->shape[2] % Hkv) {
            if (nq->shape[2] % H)
                rlx__gerr(g, RLX_ERROR_SHAPE, "attention: q's last dim %lld is not divisible by num_heads %lld",
                          (long long)nq->shape[2], (long long)H);
            else
                rlx__gerr(g, RLX_ERROR_SHAPE, "attention: %s's last dim %lld is not divisible by %s %lld",
                          nk->shape[2] % Hkv ? "k" : "v", (long long)(nk->shape[2] % Hkv ? nk->shape[2] : nv->shape[2]),
                          d.num_kv_heads ? "num_kv_heads" : "the kv heads (num_kv_heads 0 = num_heads)", (long long)Hkv);
            return rlx__T(0);
        }
        D = nq->shape[2] / H; Dk = nk->shape[2] / Hkv; Dv = nv->shape[2] / Hkv;
        if (nk->shape[0] != B || nv->shape[0] != B || nv->shape[1] != Sk) {
            if (nk->shape[0] != B || nv->shape[0] != B)
                rlx__gerr(g, RLX_ERROR_SHAPE, "attention: batch differs: q has %lld, k %lld, v %lld (dim 0)", (long long)B,
                          (long long)nk->shape[0], (long long)nv->shape[0]);
            else
                rlx__gerr(g, RLX_ERROR_SHAPE, "attention: key length differs: k has %lld, v %lld (dim 1)", (long long)Sk,
                          (long long)nv->shape[1]);
            return rlx__T(0);
        }
        os[0] = B; os[1] = Sq; orank = 3;
        if (!rlx__mul_i64(H, Dv, &os[2])) { rlx__gerr(g, RLX_ERROR_SHAPE, "attention: heads x head dim overflows"); return rlx__T(0); }
    } else {
        if (nq->rank != 4 || nk->rank != 4 || nv->rank != 4) {
            rlx__gerr(g, RLX_ERROR_SHAPE, "attention: BHSD layout needs rank-4 q, k, v [B, H, S, D]; their ranks are %d, %d, %d",
                      nq->rank, nk->rank, nv->rank);
            return rlx__T(0);
        }
        B = nq->shape[0]; H = nq->shape[1]; Sq = nq->shape[2]; D = nq->shape[3];
        Hkv = nk->shape[1]; Sk = nk->shape[2]; Dk = nk->shape[3]; Dv = nv->shape[3];
        if ((d.num_heads && d.num_heads != H) || (d.num_kv_heads && d.num_kv_heads != Hkv)) {
            rlx__gerr(g, RLX_ERROR_SHAPE, "attention: num_heads %d / num_kv_heads %d disagree with q's %lld heads / k's %lld "
                      "(dim 1; 0 = take them from the shapes)", d.num_heads, d.num_kv_heads, (long long)H, (long long)Hkv);
            return rlx__T(0);
        }
        if (nk->shape[0] != B || nv->shape[0] != B || nv->shape[1] != Hkv || nv->shape[2] != Sk) {
            if (nk->shape[0] != B || nv->shape[0] != B)
                rlx__gerr(g, RLX_ERROR_SHAPE, "attention: batch differs: q has %lld, k %lld, v %lld (dim 0)", (long long)B,
                          (long long)nk->shape[0], (long long)nv->shape[0]);
            else if (nv->shape[1] != Hkv)
                rlx__gerr(g, RLX_ERROR_SHAPE, "attention: kv heads differ: k has %lld, v %lld (dim 1)", (long long)Hkv,
                          (long long)nv->shape[1]);
            else
                rlx__gerr(g, RLX_ERROR_SHAPE, "attention: key length differs: k has %lld, v %lld (dim 2)", (long long)Sk,
                          (long long)nv->shape[2]);
            return rlx__T(0);
        }
        os[0] = B; os[1] = H; os[2] = Sq; os[3] = Dv; orank = 4;
    }
    if (Dk != D) { rlx__gerr(g, RLX_ERROR_SHAPE, "attention: q head dim %lld != k head dim %lld", (long long)D, (long long)Dk); return rlx__T(0); }
    if (Hkv < 1 || H % Hkv) {
        rlx__gerr(g, RLX_ERROR_SHAPE, "attention: kv heads (%lld) must divide heads (%lld)", (long long)Hkv, (long long)H);
        return rlx__T(0);
    }
    ids[0] = q.id; ids[1] = k.id; ids[2] = v.id;
    if (!rlx__opt_tensor(g, "attention keep_mask", d.keep_mask) || !rlx__opt_tensor(g, "attention bias", d.bias) ||
        !rlx__opt_tensor(g, "attention kv_len", d.kv_len))
        return rlx__T(0);
    if (d.keep_mask.id) {
        const rlx__node* m = rlx__N(g, d.keep_mask.id);
        int ok;
        char sm_[160];
        rlx__shape_str(sm_, sizeof sm_, m->rank, m->shape);
        if (m->dtype != RLX_BOOL) { rlx__gerr(g, RLX_ERROR_DTYPE, "attention: keep_mask %s must be bool, not %s", sm_, rlx_dtype_name(m->dtype)); return rlx__T(0); }
        ok = ((m->rank == 2 && m->shape[0] == B && m->shape[1] == Sk) ||
                                          (m->rank == 3 && m->shape[0] == B && m->shape[1] == Sq && m->shape[2] == Sk));
        if (!ok) {
            rlx__gerr(g, RLX_ERROR_SHAPE, "attention: keep_mask is %s but must be [B, Sk] = [%lld,%lld] or [B, Sq, Sk] = "
                      "[%lld,%lld,%lld]", sm_, (long long)B, (long long)Sk, (long long)B, (long long)Sq, (long long)Sk);
            return rlx__T(0);
        }
        ids[nin++] = d.keep_mask.id;
    }
    if (d.bias.id) {
        const rlx__node* m = rlx__N(g, d.bias.id);
        int64_t full[4] = {0}, bs[RLX_MAX_RANK] = {0};
        int r;
        full[0] = B; full[1] = H; full[2] = Sq; full[3] = Sk;
        if (m->dtype != nq->dtype) { rlx__gerr(g, RLX_ERROR_DTYPE, "attention: bias dtype %s differs from q's %s", rlx_dtype_name(m->dtype), rlx_dtype_name(nq->dtype)); return rlx__T(0); }
        if (m->rank > 4 || !rlx__broadcast(m->rank, m->shape, 4, full, &r, bs) ||
            memcmp(bs, full, sizeof full) != 0) {
            char sb_[160];
            rlx__shape_str(sb_, sizeof sb_, m->rank, m->shape);
            rlx__gerr(g, RLX_ERROR_SHAPE, "attention: bias %s does not broadcast to [B, H, Sq, Sk] = [%lld,%lld,%lld,%lld]",
                      sb_, (long long)B, (long long)H, (long long)Sq, (long long)Sk);
            return rlx__T(0);
        }
        ids[nin++] = d.bias.id;
    }
    if (d.kv_len.id) {
        const rlx__node* nl = rlx__N(g, d.kv_len.id);
        if (!rlx__is_int_scalar(nl) && !rlx__is_int_rows(nl, B)) {
            char sk_[160];
            rlx__shape_str(sk_, sizeof sk_, nl->rank, nl->shape);
            rlx__gerr(g, RLX_ERROR_DTYPE, "attention: kv_len is %s %s but must be a single i32/i64 element or i32/i64 [B] = [%lld]",
                      sk_, rlx_dtype_name(nl->dtype), (long long)B);
            return rlx__T(0);
        }
        ids[nin++] = d.kv_len.id;
    }
    {
        int64_t keep_rank = d.keep_mask.id ? rlx__N(g, d.keep_mask.id)->rank : 0;
        id = rlx__add_node(g, RLX_OP_ATTENTION, nq->dtype, orank, os, nin, ids);
        if (id) {
            rlx__node* nd = rlx__N(g, id);
            nd->ia[0] = d.layout; nd->ia[1] = H; nd->ia[2] = Hkv; nd->ia[3] = d.causal || d.window > 0;
            nd->ia[4] = d.window; nd->ia[5] = d.keep_mask.id != 0; nd->ia[6] = d.bias.id != 0;
            nd->ia[7] = d.kv_len.id != 0; nd->ia[8] = D; nd->ia[9] = Dv; nd->ia[10] = B; nd->ia[11] = Sq;
            nd->ia[12] = Sk; nd->ia[13] = keep_rank;
            if (d.kv_len.id && !rlx__is_int_scalar(rlx__N(g, d.kv_len.id))) nd->ia[7] = 2;   /* one per batch row */
            nd->fa[0] = d.scale > 0.0f ? (double)d.scale : 1.0 / sqrt((double)D);
            nd->fa[1] = (double)d.softcap;
        }
    }
    return rlx__T(id);
}

RLXDEF rlx_tensor rlx_rope(rlx_graph* g, rlx_tensor x, rlx_tensor cs, rlx_tensor sn, const rlx_rope_desc* desc) {
    rlx_tensor t3[3];
    const rlx__node *nx, *nc, *ns;
    rlx_rope_desc d;
    int64_t B, S, H, D, nrot;
    uint32_t ids[4], id;
    int nin = 3;
    t3[0] = x; t3[1] = cs; t3[2] = sn;
    if (!rlx__begin(g, "rope", 3, t3)) return rlx__T(0);
    if (!desc) { rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "rope: desc is NULL"); return rlx__T(0); }
    d = *desc;
    nx = rlx__N(g, x.id); nc = rlx__N(g, cs.id); ns = rlx__N(g, sn.id);
    if (!rlx__is_float(nx->dtype) || nc->dtype != nx->dtype || ns->dtype != nx->dtype) {
        rlx__gerr(g, RLX_ERROR_DTYPE, "rope: x is %s, cos %s, sin %s; they must share a float dtype",
                  rlx_dtype_name(nx->dtype), rlx_dtype_name(nc->dtype), rlx_dtype_name(ns->dtype));
        return rlx__T(0);
    }
    if ((int)d.kind < 0 || d.kind >= RLX_ROPE_KIND_COUNT || (int)d.layout < 0 || d.layout >= RLX_LAYOUT_COUNT) {
        rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "rope: invalid kind %d or layout %d", (int)d.kind, (int)d.layout);
        return rlx__T(0);
    }
    if (d.layout == RLX_LAYOUT_BSHD) {
        if (d.num_heads < 1) { rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "rope: BSHD layout needs num_heads"); return rlx__T(0); }
        if (nx->rank != 3 || nx->shape[2] % d.num_heads) {
            if (nx->rank != 3) rlx__gerr(g, RLX_ERROR_SHAPE, "rope: BSHD layout needs rank-3 x [B, S, H*D], not rank %d", nx->rank);
            else rlx__gerr(g, RLX_ERROR_SHAPE, "rope: x's last dim %lld is not divisible by num_heads %d", (long long)nx->shape[2], d.num_heads);
            return rlx__T(0);
        }
        B = nx->shape[0]; S = nx->shape[1]; H = d.num_heads; D = nx->shape[2] / H;
    } else {
        if (nx->rank != 4 || (d.num_heads && d.num_heads != nx->shape[1])) {
            if (nx->rank != 4) rlx__gerr(g, RLX_ERROR_SHAPE, "rope: BHSD layout needs rank-4 x [B, H, S, D], not rank %d", nx->rank);
            else rlx__gerr(g, RLX_ERROR_SHAPE, "rope: num_heads %d disagrees with x's %lld heads (dim 1; 0 = take it from x)",
                           d.num_heads, (long long)nx->shape[1]);
            return rlx__T(0);
        }
        B = nx->shape[0]; H = nx->shape[1]; S = nx->shape[2]; D = nx->shape[3];
    }
    nrot = d.n_rot ? d.n_rot : D;
    if (nrot < 2 || nrot % 2 || nrot > D) {
        rlx__gerr(g, RLX_ERROR_SHAPE, "rope: n_rot %lld must be even, >= 2 and <= head dim %lld", (long long)nrot, (long long)D);
        return rlx__T(0);
    }
    if (nc->rank != 2 || ns->rank != 2 || nc->shape[1] != nrot / 2 || ns->shape[1] != nrot / 2 || ns->shape[0] != nc->shape[0]) {
        char sc_[160], ss_[160];
        rlx__shape_str(sc_, sizeof sc_, nc->rank, nc->shape);
        rlx__shape_str(ss_, sizeof ss_, ns->rank, ns->shape);
        rlx__gerr(g, RLX_ERROR_SHAPE, "rope: cos %s and sin %s must both be [P, n_rot/2] = [P, %lld]", sc_, ss_, (long long)(nrot / 2));
        return rlx__T(0);
    }
    ids[0] = x.id; ids[1] = cs.id; ids[2] = sn.id;
    if (d.positions.id) {
        const rlx__node* np;
        if (!rlx__begin(g, "rope positions", 1, &d.positions)) return rlx__T(0);
        np = rlx__N(g, d.positions.id);
        if (np->dtype != RLX_I32 && np->dtype != RLX_I64) { rlx__gerr(g, RLX_ERROR_DTYPE, "rope: positions must be i32 or i64, not %s", rlx_dtype_name(np->dtype)); return rlx__T(0); }
        if (!((np->rank == 1 && np->shape[0] == S) || (np->rank == 2 && np->shape[0] == B && np->shape[1] == S))) {
            char sp_[160];
            rlx__shape_str(sp_, sizeof sp_, np->rank, np->shape);
            rlx__gerr(g, RLX_ERROR_SHAPE, "rope: positions is %s but must be [S] = [%lld] or [B, S] = [%lld,%lld]", sp_,
                      (long long)S, (long long)B, (long long)S);
            return rlx__T(0);
        }
        ids[nin++] = d.positions.id;
    }
    {
        int64_t P = nc->shape[0];
        id = rlx__add_node(g, RLX_OP_ROPE, nx->dtype, nx->rank, nx->shape, nin, ids);
        if (id) {
            rlx__node* nd = rlx__N(g, id);
            nd->ia[0] = d.kind; nd->ia[1] = d.layout; nd->ia[2] = H; nd->ia[3] = nrot; nd->ia[4] = d.positions.id != 0;
            nd->ia[5] = d.position_offset; nd->ia[6] = D; nd->ia[7] = B; nd->ia[8] = S; nd->ia[9] = P;
        }
    }
    return rlx__T(id);
}

RLXDEF rlx_tensor rlx_cumsum(rlx_graph* g, rlx_tensor x, int axis, int exclusive, int reverse) {
    const rlx__node* nx;
    int a;
    rlx_dtype dt;
    uint32_t id;
    if (!rlx__begin(g, "cumsum", 1, &x)) return rlx__T(0);
    nx = rlx__N(g, x.id);
    if (!rlx__norm_axis(g, "cumsum", axis, nx->rank, &a)) return rlx__T(0);
    dt = (rlx__is_int(nx->dtype) || nx->dtype == RLX_BOOL) ? RLX_I64 : nx->dtype;
    id = rlx__add_node(g, RLX_OP_CUMSUM, dt, nx->rank, nx->shape, 1, &x.id);
    if (id) { rlx__node* nd = rlx__N(g, id); nd->ia[0] = a; nd->ia[1] = exclusive != 0; nd->ia[2] = reverse != 0; }
    return rlx__T(id);
}

RLXDEF rlx_result rlx_topk(rlx_graph* g, rlx_tensor x, int k, int axis, int largest, rlx_tensor* values,
                           rlx_tensor* indices) {
    const rlx__node* nx;
    int a, w;
    int64_t os[RLX_MAX_RANK] = {0};
    rlx_dtype xdt;
    if (values) *values = rlx__T(0);
    if (indices) *indices = rlx__T(0);
    if (!g) return RLX_ERROR_INVALID_ARGUMENT;
    if (!rlx__begin(g, "topk", 1, &x)) return g->status;
    nx = rlx__N(g, x.id);
    if (nx->dtype == RLX_BOOL) return rlx__gerr(g, RLX_ERROR_DTYPE, "topk: bool is not allowed");
    if (!rlx__norm_axis(g, "topk", axis, nx->rank, &a)) return g->status;
    if (k < 1 || k > nx->shape[a])
        return rlx__gerr(g, RLX_ERROR_SHAPE, "topk: k = %d is outside 1..%lld", k, (long long)nx->shape[a]);
    memcpy(os, nx->shape, sizeof(int64_t) * (size_t)nx->rank);
    os[a] = k;
    xdt = nx->dtype;
    for (w = 0; w < 2; w++) {
        rlx_tensor* dst = w ? indices : values;
        uint32_t id;
        if (!dst) continue;
        id = rlx__add_node(g, RLX_OP_TOPK, w ? RLX_I64 : xdt, rlx__N(g, x.id)->rank, os, 1, &x.id);
        if (!id) return g->status;
        { rlx__node* nd = rlx__N(g, id); nd->ia[0] = a; nd->ia[1] = k; nd->ia[2] = largest != 0; nd->ia[3] = w; }
        *dst = rlx__T(id);
    }
    g->ctx_what = NULL;   /* (with both outputs NULL no node was added) */
    return RLX_OK;
}

RLXDEF rlx_tensor rlx_sample(rlx_graph* g, rlx_tensor logits, rlx_tensor counter, const rlx_sample_desc* desc) {
    rlx_tensor t2[2];
    const rlx__node* nl;
    uint32_t ids[2], id;
    t2[0] = logits; t2[1] = counter;
    if (!rlx__begin(g, "sample", 2, t2)) return rlx__T(0);
    if (!desc) { rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "sample: desc is NULL"); return rlx__T(0); }
    nl = rlx__N(g, logits.id);
    if (!rlx__is_float(nl->dtype) || nl->rank < 1) {
        rlx__gerr(g, RLX_ERROR_DTYPE, "sample: logits must be a float tensor of rank >= 1, not rank %d %s", nl->rank, rlx_dtype_name(nl->dtype));
        return rlx__T(0);
    }
    if (!rlx__is_int_scalar(rlx__N(g, counter.id))) {
        rlx__gerr(g, RLX_ERROR_DTYPE, "sample: counter must be a single i32/i64 element, not %lld x %s", (long long)rlx__node_numel(rlx__N(g, counter.id)), rlx_dtype_name(rlx__N(g, counter.id)->dtype));
        return rlx__T(0);
    }
    if (desc->top_k < 0 || desc->temperature != desc->temperature || desc->top_p != desc->top_p ||
        isinf(desc->temperature) || desc->top_p < 0.0f) {
        rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "sample: top_k must be >= 0, temperature finite, top_p >= 0");
        return rlx__T(0);
    }
    ids[0] = logits.id; ids[1] = counter.id;
    id = rlx__add_node(g, RLX_OP_SAMPLE, RLX_I64, nl->rank - 1, nl->shape, 2, ids);
    if (id) {
        rlx__node* nd = rlx__N(g, id);
        uint64_t s = desc->seed;
        nd->ia[0] = desc->top_k;
        memcpy(&nd->ia[1], &s, sizeof s);
        nd->fa[0] = (double)desc->temperature;
        nd->fa[1] = (double)desc->top_p;
    }
    return rlx__T(id);
}

/* ---- vision ---- */
static int rlx__conv_common(rlx_graph* g, rlx_op op, rlx_tensor x, rlx_tensor w, rlx_tensor bias,
                            const rlx_conv_desc* desc, int64_t* ia, int64_t* os, int* orank) {
    const char* what = rlx_op_name(op);
    const rlx__node *nx, *nw;
    rlx_tensor t2[2];
    int ns, i;
    int64_t C, O, groups;
    rlx_conv_desc d;
    t2[0] = x; t2[1] = w;
    if (!rlx__begin(g, what, 2, t2) || !rlx__opt_tensor(g, what, bias)) return 0;
    if (!desc) { rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "%s: desc is NULL", what); return 0; }
    d = *desc;
    nx = rlx__N(g, x.id); nw = rlx__N(g, w.id);
    if (!rlx__is_float(nx->dtype) || nw->dtype != nx->dtype || (bias.id && rlx__N(g, bias.id)->dtype != nx->dtype)) {
        if (!rlx__is_float(nx->dtype))
            rlx__gerr(g, RLX_ERROR_DTYPE, "%s: x is %s; x, w (and bias) must share a float dtype", what, rlx_dtype_name(nx->dtype));
        else
            rlx__gerr(g, RLX_ERROR_DTYPE, "%s: %s is %s but x is %s (x, w and bias must share a float dtype)", what,
                      nw->dtype != nx->dtype ? "w" : "bias",
                      rlx_dtype_name(nw->dtype != nx->dtype ? nw->dtype : rlx__N(g, bias.id)->dtype), rlx_dtype_name(nx->dtype));
        return 0;
    }
    ns = nx->rank - 2;
    if (ns < 1 || ns > 2 || (op == RLX_OP_CONV_TRANSPOSE && ns != 2) || nw->rank != nx->rank) {
        rlx__gerr(g, RLX_ERROR_SHAPE, "%s: x must be %s and w of the same rank (x has rank %d, w rank %d)", what,
                  op == RLX_OP_CONV ? "[N, C, L] or [N, C, H, W]" : "[N, C, H, W]", nx->rank, nw->rank);
        return 0;
    }
    groups = d.groups ? d.groups : 1;
    if (groups < 1) { rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "%s: groups must be >= 1 (0 = 1)", what); return 0; }
    C = nx->shape[1];
    if (groups < 1 || C % groups) { rlx__gerr(g, RLX_ERROR_SHAPE, "%s: groups %lld does not divide x's %lld channels", what, (long long)groups, (long long)C); return 0; }
    if (op == RLX_OP_CONV) {
        O = nw->shape[0];
        if (nw->shape[1] != C / groups || O % groups) {
            if (nw->shape[1] != C / groups && groups == 1)
                rlx__gerr(g, RLX_ERROR_SHAPE, "%s: x has %lld channels, w expects %lld (w is [O, C/groups, ...])", what,
                          (long long)C, (long long)nw->shape[1]);
            else if (nw->shape[1] != C / groups)
                rlx__gerr(g, RLX_ERROR_SHAPE, "%s: x has %lld channels in %lld groups (%lld each), w expects %lld per group "
                          "(w is [O, C/groups, ...])", what, (long long)C, (long long)groups, (long long)(C / groups),
                          (long long)nw->shape[1]);
            else
                rlx__gerr(g, RLX_ERROR_SHAPE, "%s: w's %lld output channels (dim 0) are not divisible by groups %lld", what,
                          (long long)O, (long long)groups);
            return 0;
        }
    } else {
        if (nw->shape[0] != C) {
            rlx__gerr(g, RLX_ERROR_SHAPE, "%s: x has %lld channels, w expects %lld (w is [C, O/groups, KH, KW])", what,
                      (long long)C, (long long)nw->shape[0]);
            return 0;
        }
        O = nw->shape[1] * groups;
    }
    if (bias.id) {
        const rlx__node* nb = rlx__N(g, bias.id);
        if (nb->rank != 1 || nb->shape[0] != O) {
            char sb_[160];
            rlx__shape_str(sb_, sizeof sb_, nb->rank, nb->shape);
            rlx__gerr(g, RLX_ERROR_SHAPE, "%s: bias is %s but must be [O] = [%lld]", what, sb_, (long long)O);
            return 0;
        }
    }
    memset(ia, 0, sizeof(int64_t) * RLX__NIA);
    ia[0] = ns; ia[9] = groups; ia[10] = bias.id != 0;
    os[0] = nx->shape[0]; os[1] = O;
    for (i = 0; i < ns; i++) {
        int64_t s = d.stride[i] ? d.stride[i] : 1, dl = d.dilation[i] ? d.dilation[i] : 1;
        int64_t pb = d.pad_begin[i], pe = d.pad_end[i], op_ = d.output_padding[i];
        int64_t in = nx->shape[2 + i], K = nw->shape[2 + i], out;
        if (s < 1 || dl < 1 || pb < 0 || pe < 0 || op_ < 0 || (op == RLX_OP_CONV && op_ != 0) || (op_ && op_ >= s)) {
            rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "%s: spatial dim %d: stride %lld, dilation %lld, padding %lld/%lld, output_padding "
                      "%lld: stride/dilation must be >= 1, padding >= 0, output_padding < stride (conv_transpose only)", what,
                      i, (long long)s, (long long)dl, (long long)pb, (long long)pe, (long long)op_);
            return 0;
        }
        /* ek = dl·(K−1) + 1, the dilated kernel extent; every product is checked (dims reach 2^60) */
        int64_t ek = 0, t = 0;
        int ok = rlx__mul_i64(dl, K - 1, &ek) && rlx__add_i64(ek, 1, &ek);
        if (ok && op == RLX_OP_CONV) {
            ok = rlx__add_i64(in, pb + pe, &t);   /* pb, pe < 2^31 */
            out = ok && t >= ek ? (t - ek) / s + 1 : 0;
        } else if (ok) {
            ok = rlx__mul_i64(in - 1, s, &t) && rlx__add_i64(ek, op_ - pb - pe, &ek) && rlx__add_i64(t, ek, &out);
        }
        if (!ok) {
            rlx__gerr(g, RLX_ERROR_SHAPE, "%s: spatial dim %d overflows (in %lld, kernel %lld, stride %lld, dilation %lld)",
                      what, i, (long long)in, (long long)K, (long long)s, (long long)dl);
            return 0;
        }
        if (out < 1) {
            if (op == RLX_OP_CONV)
                rlx__gerr(g, RLX_ERROR_SHAPE, "%s: spatial dim %d gives no output: input %lld + padding %lld is smaller than "
                          "the kernel extent %lld (kernel %lld, dilation %lld)", what, i, (long long)in, (long long)(pb + pe),
                          (long long)ek, (long long)K, (long long)dl);
            else
                rlx__gerr(g, RLX_ERROR_SHAPE, "%s: spatial dim %d gives no output (in %lld, kernel %lld, padding %lld/%lld)",
                          what, i, (long long)in, (long long)K, (long long)pb, (long long)pe);
            return 0;
        }
        ia[1 + i] = s; ia[3 + i] = dl; ia[5 + i] = pb; ia[7 + i] = pe; ia[11 + i] = op_;
        os[2 + i] = out;
    }
    *orank = 2 + ns;
    return rlx__check_shape(g, what, *orank, os);
}

static rlx_tensor rlx__conv_build(rlx_graph* g, rlx_op op, rlx_tensor x, rlx_tensor w, rlx_tensor bias, const rlx_conv_desc* desc) {
    int64_t ia[RLX__NIA] = {0}, os[RLX_MAX_RANK] = {0};
    int orank;
    uint32_t ids[3], id;
    if (!rlx__conv_common(g, op, x, w, bias, desc, ia, os, &orank)) return rlx__T(0);
    ids[0] = x.id; ids[1] = w.id; ids[2] = bias.id;
    id = rlx__add_node(g, op, rlx__N(g, x.id)->dtype, orank, os, bias.id ? 3 : 2, ids);
    if (id) memcpy(rlx__N(g, id)->ia, ia, sizeof ia);
    return rlx__T(id);
}
RLXDEF rlx_tensor rlx_conv(rlx_graph* g, rlx_tensor x, rlx_tensor w, rlx_tensor bias, const rlx_conv_desc* desc) {
    return rlx__conv_build(g, RLX_OP_CONV, x, w, bias, desc);
}
RLXDEF rlx_tensor rlx_conv_transpose(rlx_graph* g, rlx_tensor x, rlx_tensor w, rlx_tensor bias, const rlx_conv_desc* desc) {
    return rlx__conv_build(g, RLX_OP_CONV_TRANSPOSE, x, w, bias, desc);
}

RLXDEF rlx_tensor rlx_pool(rlx_graph* g, rlx_tensor x, const rlx_pool_desc* desc) {
    const rlx__node* nx;
    int64_t os[RLX_MAX_RANK] = {0}, ia[RLX__NIA] = {0};
    int ns, i;
    uint32_t id;
    rlx_pool_desc d;
    if (!rlx__begin(g, "pool", 1, &x)) return rlx__T(0);
    if (!desc) { rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "pool: desc is NULL"); return rlx__T(0); }
    d = *desc;
    nx = rlx__N(g, x.id);
    if (!rlx__is_float(nx->dtype)) { rlx__gerr(g, RLX_ERROR_DTYPE, "pool: needs a float dtype, not %s", rlx_dtype_name(nx->dtype)); return rlx__T(0); }
    if (d.kind != RLX_POOL_MAX && d.kind != RLX_POOL_AVG) { rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "pool: invalid kind %d", (int)d.kind); return rlx__T(0); }
    ns = nx->rank - 2;
    if (ns < 1 || ns > 2) { rlx__gerr(g, RLX_ERROR_SHAPE, "pool: x must be [N, C, L] or [N, C, H, W], not rank %d", nx->rank); return rlx__T(0); }
    memset(ia, 0, sizeof ia);
    ia[0] = ns; ia[1] = d.kind; ia[10] = d.count_include_pad != 0;
    os[0] = nx->shape[0]; os[1] = nx->shape[1];
    for (i = 0; i < ns; i++) {
        int64_t in = nx->shape[2 + i];
        int64_t K = d.global ? in : d.kernel[i], s = d.global ? in : (d.stride[i] ? d.stride[i] : K);
        int64_t pb = d.global ? 0 : d.pad_begin[i], pe = d.global ? 0 : d.pad_end[i];
        if (K < 1 || s < 1 || pb < 0 || pe < 0 || pb >= K || pe >= K || in + pb + pe < K) {
            rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "pool: kernel %lld, stride %lld, padding %lld/%lld invalid for size %lld",
                      (long long)K, (long long)s, (long long)pb, (long long)pe, (long long)in);
            return rlx__T(0);
        }
        ia[2 + i] = K; ia[4 + i] = s; ia[6 + i] = pb; ia[8 + i] = pe;
        os[2 + i] = (in + pb + pe - K) / s + 1;
    }
    id = rlx__add_node(g, RLX_OP_POOL, nx->dtype, nx->rank, os, 1, &x.id);
    if (id) memcpy(rlx__N(g, id)->ia, ia, sizeof ia);
    return rlx__T(id);
}

RLXDEF rlx_tensor rlx_group_norm(rlx_graph* g, rlx_tensor x, int groups, rlx_tensor gamma, rlx_tensor beta, float eps) {
    const rlx__node* nx;
    rlx_tensor opt[2];
    uint32_t ids[3], id;
    int nin = 1, k;
    if (!rlx__begin(g, "group_norm", 1, &x)) return rlx__T(0);
    nx = rlx__N(g, x.id);
    if (!rlx__is_float(nx->dtype)) { rlx__gerr(g, RLX_ERROR_DTYPE, "group_norm: needs a float dtype, not %s", rlx_dtype_name(nx->dtype)); return rlx__T(0); }
    if (nx->rank < 2 || groups < 1 || nx->shape[1] % groups) {
        if (nx->rank < 2) rlx__gerr(g, RLX_ERROR_SHAPE, "group_norm: x must be [N, C, ...] (rank >= 2), not rank %d", nx->rank);
        else rlx__gerr(g, RLX_ERROR_SHAPE, "group_norm: groups %d does not divide x's %lld channels", groups, (long long)nx->shape[1]);
        return rlx__T(0);
    }
    if (!(eps >= 0.0f) || isinf(eps)) { rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "group_norm: eps must be finite and >= 0"); return rlx__T(0); }
    opt[0] = gamma; opt[1] = beta;
    ids[0] = x.id;
    for (k = 0; k < 2; k++) {
        const rlx__node* np;
        if (!opt[k].id) continue;
        if (!rlx__begin(g, "group_norm", 1, &opt[k])) return rlx__T(0);
        np = rlx__N(g, opt[k].id);
        if (np->dtype != nx->dtype) {
            rlx__gerr(g, RLX_ERROR_DTYPE, "group_norm: %s dtype %s differs from x dtype %s", k ? "beta" : "gamma",
                      rlx_dtype_name(np->dtype), rlx_dtype_name(nx->dtype));
            return rlx__T(0);
        }
        if (np->rank != 1 || np->shape[0] != nx->shape[1]) {
            char sp[160];
            rlx__shape_str(sp, sizeof sp, np->rank, np->shape);
            rlx__gerr(g, RLX_ERROR_SHAPE, "group_norm: %s is %s but must be [C] = [%lld]", k ? "beta" : "gamma", sp, (long long)nx->shape[1]);
            return rlx__T(0);
        }
        ids[nin++] = opt[k].id;
    }
    id = rlx__add_node(g, RLX_OP_GROUP_NORM, nx->dtype, nx->rank, nx->shape, nin, ids);
    if (id) {
        rlx__node* nd = rlx__N(g, id);
        nd->ia[0] = groups; nd->ia[1] = gamma.id != 0; nd->ia[2] = beta.id != 0; nd->fa[0] = (double)eps;
    }
    return rlx__T(id);
}

RLXDEF rlx_tensor rlx_resize(rlx_graph* g, rlx_tensor x, int64_t out_h, int64_t out_w, rlx_resize_mode mode, int align_corners) {
    const rlx__node* nx;
    int64_t os[4] = {0};
    uint32_t id;
    if (!rlx__begin(g, "resize", 1, &x)) return rlx__T(0);
    nx = rlx__N(g, x.id);
    if (!rlx__is_float(nx->dtype)) { rlx__gerr(g, RLX_ERROR_DTYPE, "resize: needs a float dtype, not %s", rlx_dtype_name(nx->dtype)); return rlx__T(0); }
    if (mode != RLX_RESIZE_NEAREST && mode != RLX_RESIZE_BILINEAR) { rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "resize: invalid mode %d", (int)mode); return rlx__T(0); }
    if (nx->rank != 4) { rlx__gerr(g, RLX_ERROR_SHAPE, "resize: x must be [N, C, H, W], not rank %d", nx->rank); return rlx__T(0); }
    os[0] = nx->shape[0]; os[1] = nx->shape[1]; os[2] = out_h; os[3] = out_w;
    if (!rlx__check_shape(g, "resize", 4, os)) return rlx__T(0);
    id = rlx__add_node(g, RLX_OP_RESIZE, nx->dtype, 4, os, 1, &x.id);
    if (id) { rlx__N(g, id)->ia[0] = mode; rlx__N(g, id)->ia[1] = align_corners != 0; }
    return rlx__T(id);
}

RLXDEF rlx_tensor rlx_pad(rlx_graph* g, rlx_tensor x, const int64_t* before, const int64_t* after, rlx_pad_mode mode, double value) {
    const rlx__node* nx;
    int64_t os[RLX_MAX_RANK] = {0};
    int i;
    uint32_t id;
    if (!rlx__begin(g, "pad", 1, &x)) return rlx__T(0);
    nx = rlx__N(g, x.id);
    if (nx->rank > 0 && (!before || !after)) { rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "pad: before/after is NULL"); return rlx__T(0); }
    if (mode != RLX_PAD_CONSTANT && mode != RLX_PAD_REFLECT && mode != RLX_PAD_EDGE) {
        rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "pad: invalid mode %d", (int)mode);
        return rlx__T(0);
    }
    for (i = 0; i < nx->rank; i++) {
        if (before[i] < 0 || after[i] < 0 || before[i] > INT64_MAX / 4 || after[i] > INT64_MAX / 4) {
            rlx__gerr(g, RLX_ERROR_SHAPE, "pad: padding of axis %d must be >= 0", i);
            return rlx__T(0);
        }
        if (mode == RLX_PAD_REFLECT && (before[i] >= nx->shape[i] || after[i] >= nx->shape[i])) {
            rlx__gerr(g, RLX_ERROR_SHAPE, "pad: reflect padding of axis %d must be < its size %lld", i, (long long)nx->shape[i]);
            return rlx__T(0);
        }
        os[i] = nx->shape[i] + before[i] + after[i];
    }
    if (!rlx__check_shape(g, "pad", nx->rank, os)) return rlx__T(0);
    {
        int r = nx->rank;
        id = rlx__add_node(g, RLX_OP_PAD, nx->dtype, r, os, 1, &x.id);
        if (id) {
            rlx__node* nd = rlx__N(g, id);
            nd->ia[0] = mode;
            for (i = 0; i < r; i++) { nd->ia[1 + i] = before[i]; nd->ia[9 + i] = after[i]; }
            nd->fa[0] = value;
        }
    }
    return rlx__T(id);
}

/* ---- fused ---- */
RLXDEF rlx_tensor rlx_linear(rlx_graph* g, rlx_tensor x, rlx_tensor w, rlx_tensor bias, rlx_activation act) {
    rlx_tensor t2[2];
    const rlx__node *nx, *nw;
    int64_t os[RLX_MAX_RANK] = {0};
    uint32_t ids[3], id;
    t2[0] = x; t2[1] = w;
    if (!rlx__begin(g, "linear", 2, t2) || !rlx__opt_tensor(g, "linear", bias)) return rlx__T(0);
    nx = rlx__N(g, x.id); nw = rlx__N(g, w.id);
    if (nx->dtype != RLX_F32 || nw->dtype != RLX_F32 || (bias.id && rlx__N(g, bias.id)->dtype != RLX_F32)) {
        rlx__gerr(g, RLX_ERROR_DTYPE, "linear: %s is %s; x, w and bias must be f32", nx->dtype != RLX_F32 ? "x" :
                  nw->dtype != RLX_F32 ? "w" : "bias", rlx_dtype_name(nx->dtype != RLX_F32 ? nx->dtype :
                  nw->dtype != RLX_F32 ? nw->dtype : rlx__N(g, bias.id)->dtype));
        return rlx__T(0);
    }
    if ((int)act < 0 || act >= RLX_ACT_COUNT) { rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "linear: invalid activation %d", (int)act); return rlx__T(0); }
    if (nx->rank < 1 || nw->rank != 2 || nx->shape[nx->rank - 1] != nw->shape[0]) {
        if (nx->rank < 1 || nw->rank != 2)
            rlx__gerr(g, RLX_ERROR_SHAPE, "linear: x must be [..., K] (rank >= 1) and w [K, N] (rank 2); their ranks are %d and %d",
                      nx->rank, nw->rank);
        else
            rlx__gerr(g, RLX_ERROR_SHAPE, "linear: x's last dim %lld != w's dim 0 %lld (x is [..., K], w [K, N])",
                      (long long)nx->shape[nx->rank - 1], (long long)nw->shape[0]);
        return rlx__T(0);
    }
    if (bias.id) {
        const rlx__node* nb = rlx__N(g, bias.id);
        if (nb->rank != 1 || nb->shape[0] != nw->shape[1]) {
            char sb_[160];
            rlx__shape_str(sb_, sizeof sb_, nb->rank, nb->shape);
            rlx__gerr(g, RLX_ERROR_SHAPE, "linear: bias is %s but must be [N] = [%lld]", sb_, (long long)nw->shape[1]);
            return rlx__T(0);
        }
    }
    memcpy(os, nx->shape, sizeof(int64_t) * (size_t)nx->rank);
    os[nx->rank - 1] = nw->shape[1];
    ids[0] = x.id; ids[1] = w.id; ids[2] = bias.id;
    id = rlx__add_node(g, RLX_OP_LINEAR, RLX_F32, nx->rank, os, bias.id ? 3 : 2, ids);
    if (id) { rlx__N(g, id)->ia[0] = act; rlx__N(g, id)->ia[1] = bias.id != 0; }
    return rlx__T(id);
}

static rlx_tensor rlx__add_norm(rlx_graph* g, int kind, rlx_tensor x, rlx_tensor res, rlx_tensor gamma, rlx_tensor beta,
                                int axis, float eps, rlx_tensor* sum_out) {
    const char* what = kind ? "add_layernorm" : "add_rmsnorm";
    rlx_tensor t2[2], opt[2];
    const rlx__node *nx, *nr;
    int a, k, nin = 2, rank;
    int64_t xs[RLX_MAX_RANK] = {0};
    uint32_t ids[4], id;
    if (sum_out) *sum_out = rlx__T(0);
    t2[0] = x; t2[1] = res;
    if (!rlx__begin(g, what, 2, t2)) return rlx__T(0);
    nx = rlx__N(g, x.id); nr = rlx__N(g, res.id);
    if (!rlx__is_float(nx->dtype) || nr->dtype != nx->dtype) { rlx__gerr(g, RLX_ERROR_DTYPE, "%s: x is %s and residual %s; they must share a float dtype", what, rlx_dtype_name(nx->dtype), rlx_dtype_name(nr->dtype)); return rlx__T(0); }
    if (nx->rank < 1 || nx->rank != nr->rank || memcmp(nx->shape, nr->shape, sizeof(int64_t) * (size_t)nx->rank)) {
        rlx__gerr(g, RLX_ERROR_SHAPE, "%s: x and residual must have one shape of rank >= 1", what);
        return rlx__T(0);
    }
    if (!rlx__norm_axis(g, what, kind ? axis : -1, nx->rank, &a)) return rlx__T(0);
    if (!(eps >= 0.0f) || isinf(eps)) { rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "%s: eps must be finite and >= 0", what); return rlx__T(0); }
    opt[0] = gamma; opt[1] = beta;
    ids[0] = x.id; ids[1] = res.id;
    for (k = 0; k < 2; k++) {
        const rlx__node* np;
        if (!opt[k].id) continue;
        if (!rlx__begin(g, what, 1, &opt[k])) return rlx__T(0);
        np = rlx__N(g, opt[k].id);
        if (np->dtype != nx->dtype || np->rank != nx->rank - a || memcmp(np->shape, nx->shape + a, sizeof(int64_t) * (size_t)np->rank)) {
            char sp[160], sw[160];
            rlx__shape_str(sp, sizeof sp, np->rank, np->shape);
            rlx__shape_str(sw, sizeof sw, nx->rank - a, nx->shape + a);
            rlx__gerr(g, RLX_ERROR_SHAPE, "%s: %s is %s %s but must have shape "
                      "x.shape[%d:] = %s and x's dtype %s", what, k ? "beta" : "gamma", sp, rlx_dtype_name(np->dtype), a, sw,
                      rlx_dtype_name(nx->dtype));
            return rlx__T(0);
        }
        ids[nin++] = opt[k].id;
    }
    rank = nx->rank;
    memcpy(xs, nx->shape, sizeof(int64_t) * (size_t)rank);
    id = rlx__add_node(g, RLX_OP_ADD_NORM, nx->dtype, rank, xs, nin, ids);
    if (!id) return rlx__T(0);
    {
        rlx__node* nd = rlx__N(g, id);
        nd->ia[0] = a; nd->ia[1] = gamma.id != 0; nd->ia[2] = beta.id != 0; nd->ia[3] = kind; nd->ia[4] = sum_out != NULL;
        nd->fa[0] = (double)eps;
    }
    if (sum_out) {
        rlx_dtype dt = rlx__N(g, id)->dtype;
        *sum_out = rlx__T(rlx__add_node(g, RLX_OP_EXTRA, dt, rank, xs, 1, &id));
    }
    return rlx__T(id);
}
RLXDEF rlx_tensor rlx_add_rmsnorm(rlx_graph* g, rlx_tensor x, rlx_tensor residual, rlx_tensor gamma, rlx_tensor beta,
                                  float eps, rlx_tensor* sum_out) {
    return rlx__add_norm(g, 0, x, residual, gamma, beta, -1, eps, sum_out);
}
RLXDEF rlx_tensor rlx_add_layernorm(rlx_graph* g, rlx_tensor x, rlx_tensor residual, rlx_tensor gamma, rlx_tensor beta,
                                    int axis, float eps, rlx_tensor* sum_out) {
    return rlx__add_norm(g, 1, x, residual, gamma, beta, axis, eps, sum_out);
}

static rlx_tensor rlx__glu(rlx_graph* g, rlx_op op, rlx_tensor gate, rlx_tensor up) {
    rlx_tensor t2[2];
    const rlx__node *ng, *nu;
    uint32_t ids[2];
    t2[0] = gate; t2[1] = up;
    if (!rlx__begin(g, rlx_op_name(op), 2, t2)) return rlx__T(0);
    ng = rlx__N(g, gate.id); nu = rlx__N(g, up.id);
    if (!rlx__is_float(ng->dtype) || nu->dtype != ng->dtype) { rlx__gerr(g, RLX_ERROR_DTYPE, "%s: gate is %s and up %s; they must share a float dtype", rlx_op_name(op), rlx_dtype_name(ng->dtype), rlx_dtype_name(nu->dtype)); return rlx__T(0); }
    if (ng->rank != nu->rank || memcmp(ng->shape, nu->shape, sizeof(int64_t) * (size_t)ng->rank)) {
        rlx__gerr(g, RLX_ERROR_SHAPE, "%s: gate and up must have one shape (no broadcasting)", rlx_op_name(op));
        return rlx__T(0);
    }
    ids[0] = gate.id; ids[1] = up.id;
    return rlx__T(rlx__add_node(g, op, ng->dtype, ng->rank, ng->shape, 2, ids));
}
RLXDEF rlx_tensor rlx_swiglu(rlx_graph* g, rlx_tensor gate, rlx_tensor up) { return rlx__glu(g, RLX_OP_SWIGLU, gate, up); }
RLXDEF rlx_tensor rlx_geglu(rlx_graph* g, rlx_tensor gate, rlx_tensor up) { return rlx__glu(g, RLX_OP_GEGLU, gate, up); }

/* ---- state ---- */
RLXDEF rlx_tensor rlx_state(rlx_graph* g, const char* name, rlx_dtype dtype, int rank, const int64_t* shape) {
    return rlx__T(rlx__source(g, RLX_OP_STATE, "state", name, dtype, rank, shape));
}

RLXDEF rlx_tensor rlx_state_write(rlx_graph* g, rlx_tensor state, rlx_tensor update, int axis, rlx_tensor offset) {
    rlx_tensor t3[3];
    const rlx__node *ns, *nu, *no, *root;
    int a, i;
    int64_t per = 0;
    uint32_t ids[3], id;
    t3[0] = state; t3[1] = update; t3[2] = offset;
    if (!rlx__begin(g, "state_write", 3, t3)) return rlx__T(0);
    ns = rlx__N(g, state.id); nu = rlx__N(g, update.id);
    root = ns;
    while (root->op == RLX_OP_STATE_WRITE) root = rlx__N(g, rlx__in(g, root, 0));
    if (root->op != RLX_OP_STATE) { rlx__gerr(g, RLX_ERROR_INVALID_ARGUMENT, "state_write: state (node %u) is a %s, not a state (rlx_state) or a state_write's result", (unsigned)state.id, rlx_op_name(root->op)); return rlx__T(0); }
    if (nu->dtype != ns->dtype) { rlx__gerr(g, RLX_ERROR_DTYPE, "state_write: update dtype %s differs from the state's %s", rlx_dtype_name(nu->dtype), rlx_dtype_name(ns->dtype)); return rlx__T(0); }
    if (!rlx__norm_axis(g, "state_write", axis, ns->rank, &a)) return rlx__T(0);
    no = rlx__N(g, offset.id);
    if (!rlx__is_int_scalar(no) && !(rlx__is_int_rows(no, ns->shape[0]) && a > 0)) {
        rlx__gerr(g, RLX_ERROR_DTYPE, "state_write: offset is %lld x %s but must be a single i32/i64 element or, with "
                  "axis > 0, i32/i64 [B] = [%lld] (one per batch row)", (long long)rlx__node_numel(no),
                  rlx_dtype_name(no->dtype), (long long)ns->shape[0]);
        return rlx__T(0);
    }
    if (nu->rank != ns->rank) { rlx__gerr(g, RLX_ERROR_SHAPE, "state_write: update has rank %d, the state rank %d", nu->rank, ns->rank); return rlx__T(0); }
    for (i = 0; i < ns->rank; i++)
        if (i != a && nu->shape[i] != ns->shape[i]) { rlx__gerr(g, RLX_ERROR_SHAPE, "state_write: update dim %d is %lld but the state's is %lld (only axis %d may differ)", i, (long long)nu->shape[i], (long long)ns->shape[i], a); return rlx__T(0); }
    ids[0] = state.id; ids[1] = update.id; ids[2] = offset.id;
    if (!rlx__is_int_scalar(no))
        for (per = 1, i = 1; i < a; i++) per *= ns->shape[i];   /* cannot overflow: a factor of numel */
    id = rlx__add_node(g, RLX_OP_STATE_WRITE, ns->dtype, ns->rank, ns->shape, 3, ids);
    if (id) { rlx__N(g, id)->ia[0] = a; rlx__N(g, id)->ia[1] = per; }
    return rlx__T(id);
}

/* ------------------------------------------------------------------------------------------------------------
   >>passes
   Every pass reads a graph and writes a new one (the user's graph is never modified): verify → legalize →
   constant folding → CSE → DCE. `remap[old id] = new id` carries node identity across a rewrite.
   ------------------------------------------------------------------------------------------------------------ */
typedef struct rlx__pool rlx__pool;
static void rlx__cpu_exec(const rlx_graph* g, const rlx__node* nd, void* const* in, void* out, rlx__pool* pool, void* ws);
static size_t rlx__node_workspace(const rlx_graph* g, const rlx__node* nd, int nthreads);

/* Copy node nd of g into ng with inputs remapped; deep-copies name and data. Returns the new id or 0. */
static uint32_t rlx__copy_node(rlx_graph* ng, const rlx_graph* g, const rlx__node* nd, const uint32_t* remap) {
    uint32_t ins[64], *insp = ins, id;
    int k;
    ins[0] = 0;
    if (nd->nin > 64) {
        insp = (uint32_t*)rlx__alloc(&ng->al, sizeof(uint32_t) * (size_t)nd->nin);
        if (!insp) { rlx__gerr(ng, RLX_ERROR_OUT_OF_MEMORY, "out of memory"); return 0; }
    }
    for (k = 0; k < nd->nin; k++) insp[k] = remap[rlx__in(g, nd, k)];
    id = rlx__add_node(ng, nd->op, nd->dtype, nd->rank, nd->shape, nd->nin, insp);
    if (insp != ins) rlx__free(&ng->al, insp);
    if (!id) return 0;
    {
        rlx__node* nn = rlx__N(ng, id);
        int in_off = nn->in_off;
        rlx__free(&ng->al, nn->label);
        *nn = *nd;
        nn->in_off = in_off;
        nn->name = NULL;
        nn->data = NULL;
        nn->label = NULL;
        if (nd->label && !(nn->label = rlx__strdup(&ng->al, nd->label))) {
            rlx__gerr(ng, RLX_ERROR_OUT_OF_MEMORY, "out of memory");
            return 0;
        }
        if (nd->name && !(nn->name = rlx__strdup(&ng->al, nd->name))) {
            rlx__gerr(ng, RLX_ERROR_OUT_OF_MEMORY, "out of memory");
            return 0;
        }
        if (nd->data) {
            size_t b = rlx__node_bytes(nd);
            nn->data = rlx__alloc(&ng->al, b);
            if (!nn->data) { rlx__gerr(ng, RLX_ERROR_OUT_OF_MEMORY, "out of memory"); return 0; }
            memcpy(nn->data, nd->data, b);
        }
    }
    return id;
}

static rlx_graph* rlx__new_graph(const rlx_allocator* al) {
    rlx_graph* g = (rlx_graph*)rlx__calloc(al, sizeof *g);
    if (g) g->al = *al;
    return g;
}

/* Copies the outputs of g into ng through remap. */
static int rlx__copy_outputs(rlx_graph* ng, const rlx_graph* g, const uint32_t* remap) {
    int i;
    for (i = 0; i < g->nouts; i++) {
        rlx_tensor t = rlx__Tg(ng, remap[g->outs[i].id]);
        if (rlx_output(ng, g->outs[i].name, t) != RLX_OK) return 0;
    }
    return 1;
}

/* verify: structural invariants the builders guarantee; a failure here is a bug, reported, never asserted. */
static rlx_result rlx__verify(const rlx_graph* g, char* msg, size_t cap) {
    int i, k;
    for (i = 0; i < g->n; i++) {
        const rlx__node* nd = &g->nodes[i];
        if ((int)nd->op <= 0 || nd->op >= RLX_OP_COUNT || !rlx__dtype_ok(nd->dtype) || nd->rank < 0 ||
            nd->rank > RLX_MAX_RANK) {
            snprintf(msg, cap, "verify: node %%%d is malformed", i + 1);
            return RLX_ERROR_INTERNAL;
        }
        for (k = 0; k < nd->nin; k++) {
            uint32_t in = rlx__in(g, nd, k);
            if (in == 0 || in > (uint32_t)i) {
                snprintf(msg, cap, "verify: node %%%d reads %%%u, which does not precede it", i + 1, (unsigned)in);
                return RLX_ERROR_INTERNAL;
            }
        }
        if (nd->op == RLX_OP_CONSTANT && !nd->data) {
            snprintf(msg, cap, "verify: constant %%%d has no data", i + 1);
            return RLX_ERROR_INTERNAL;
        }
    }
    for (i = 0; i < g->nouts; i++)
        if (g->outs[i].id == 0 || g->outs[i].id > (uint32_t)g->n) {
            snprintf(msg, cap, "verify: output '%s' refers to no node", g->outs[i].name);
            return RLX_ERROR_INTERNAL;
        }
    return RLX_OK;
}

/* legalize: rewrite ops the target cannot run into ones it can. `has(op)` says what the target runs; with
   decompose_all every op that has a decomposition is decomposed (used by tests to prove the rewrites). */
typedef struct rlx__target {
    /* does the device run this node natively? NULL = everything (the CPU) */
    int (*supports)(const rlx_graph* g, const rlx__node* nd, int sm);
    int sm;        /* device generation passed to supports (CUDA: compute capability × 10) */
    int fuse;      /* the device runs every fused op (linear, add_norm, swiglu, geglu, fused_ew) */
    int fuse_gated;/* ... and linear with a gate input (the matmul epilogue multiplies by act(gate)) */
    int fuse_transpose; /* ... and matmul / linear reading a transposed b in place (MATMUL ia[3], LINEAR ia[4]) */
} rlx__target;
static int rlx__target_has(const rlx__target* t, const rlx_graph* g, const rlx__node* nd) {
    return !t->supports || t->supports(g, nd, t->sm);
}

static int rlx__decomposable(rlx_op op) {
    switch (op) {
    case RLX_OP_GELU: case RLX_OP_GELU_TANH: case RLX_OP_SILU: case RLX_OP_SIGMOID: case RLX_OP_RSQRT:
    case RLX_OP_MEAN: case RLX_OP_SOFTMAX: case RLX_OP_LOG_SOFTMAX: case RLX_OP_LAYERNORM: case RLX_OP_RMSNORM:
    case RLX_OP_LINEAR: case RLX_OP_ADD_NORM: case RLX_OP_SWIGLU: case RLX_OP_GEGLU: case RLX_OP_FUSED_EW:
    case RLX_OP_MATMUL_INTEGER:
        return 1;
    default: return 0;
    }
}

static rlx_tensor rlx__act_build(rlx_graph* ng, rlx_activation act, rlx_tensor y) {
    switch (act) {
    case RLX_ACT_RELU: return rlx_relu(ng, y);
    case RLX_ACT_GELU: return rlx_gelu(ng, y);
    case RLX_ACT_GELU_TANH: return rlx_gelu_tanh(ng, y);
    case RLX_ACT_SILU: return rlx_silu(ng, y);
    default: return y;
    }
}

/* Emit the decomposition of nd (inputs already remapped to x[...]) into ng; returns the result tensor
   (and, for add+norm, the sum through *sum). */
static rlx_tensor rlx__decompose(rlx_graph* ng, const rlx__node* nd, const rlx_tensor* x, rlx_tensor* sum) {
    rlx_dtype dt = nd->dtype;
#define RLX__C(v) rlx_scalar(ng, dt, (v))
    switch (nd->op) {
    case RLX_OP_GELU:  /* 0.5·x·(1 + erf(x/√2)) */
        return rlx_mul(ng, rlx_mul(ng, x[0], RLX__C(0.5)),
                       rlx_add(ng, RLX__C(1.0), rlx_erf(ng, rlx_mul(ng, x[0], RLX__C(0.70710678118654752440)))));
    case RLX_OP_GELU_TANH: { /* 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))) */
        rlx_tensor x3 = rlx_mul(ng, rlx_mul(ng, x[0], x[0]), x[0]);
        rlx_tensor in = rlx_mul(ng, RLX__C(0.79788456080286535588), rlx_add(ng, x[0], rlx_mul(ng, RLX__C(0.044715), x3)));
        return rlx_mul(ng, rlx_mul(ng, x[0], RLX__C(0.5)), rlx_add(ng, RLX__C(1.0), rlx_tanh(ng, in)));
    }
    case RLX_OP_SIGMOID:
        return rlx_div(ng, RLX__C(1.0), rlx_add(ng, RLX__C(1.0), rlx_exp(ng, rlx_neg(ng, x[0]))));
    case RLX_OP_SILU:
        return rlx_div(ng, x[0], rlx_add(ng, RLX__C(1.0), rlx_exp(ng, rlx_neg(ng, x[0]))));
    case RLX_OP_RSQRT:
        return rlx_div(ng, RLX__C(1.0), rlx_sqrt(ng, x[0]));
    case RLX_OP_MEAN: {
        int axes[RLX_MAX_RANK], i, n = (int)nd->ia[1];
        int64_t cnt = 1;
        int rank = 0;
        int64_t shp[RLX_MAX_RANK];
        rlx_tensor_info(ng, x[0], &rank, shp);
        for (i = 0; i < n; i++) { axes[i] = (int)nd->ia[2 + i]; cnt *= shp[axes[i]]; }
        return rlx_div(ng, rlx_reduce_sum(ng, x[0], n, axes, (int)nd->ia[0]), RLX__C((double)cnt));
    }
    case RLX_OP_SOFTMAX: case RLX_OP_LOG_SOFTMAX: {
        int axis = (int)nd->ia[0];
        rlx_tensor m = rlx_reduce_max(ng, x[0], 1, &axis, 1);
        rlx_tensor sh = rlx_sub(ng, x[0], m);
        rlx_tensor e = rlx_exp(ng, sh);
        rlx_tensor s = rlx_reduce_sum(ng, e, 1, &axis, 1);
        if (nd->op == RLX_OP_SOFTMAX) return rlx_div(ng, e, s);
        return rlx_sub(ng, sh, rlx_log(ng, s));
    }
    case RLX_OP_LAYERNORM: case RLX_OP_RMSNORM: {
        int rank = 0, axes[RLX_MAX_RANK], n = 0, i, k = 1;
        int64_t shp[RLX_MAX_RANK], cnt = 1;
        rlx_tensor xc, var, y;
        rlx_tensor_info(ng, x[0], &rank, shp);
        for (i = (nd->op == RLX_OP_RMSNORM ? rank - 1 : (int)nd->ia[0]); i < rank; i++) { axes[n++] = i; cnt *= shp[i]; }
        if (nd->op == RLX_OP_LAYERNORM) {
            rlx_tensor mean = rlx_div(ng, rlx_reduce_sum(ng, x[0], n, axes, 1), RLX__C((double)cnt));
            xc = rlx_sub(ng, x[0], mean);
        } else {
            xc = x[0];
        }
        var = rlx_div(ng, rlx_reduce_sum(ng, rlx_mul(ng, xc, xc), n, axes, 1), RLX__C((double)cnt));
        y = rlx_div(ng, xc, rlx_sqrt(ng, rlx_add(ng, var, RLX__C(nd->fa[0]))));
        if (nd->ia[1]) y = rlx_mul(ng, y, x[k++]);
        if (nd->ia[2]) y = rlx_add(ng, y, x[k]);
        return y;
    }
    case RLX_OP_LINEAR: {
        rlx_tensor y = rlx_matmul(ng, x[0], nd->ia[4] ? rlx_transpose(ng, x[1], NULL) : x[1]);
        if (nd->ia[1]) y = rlx_add(ng, y, x[2]);
        y = rlx__act_build(ng, (rlx_activation)nd->ia[0], y);
        if (nd->ia[2]) y = rlx_mul(ng, rlx__act_build(ng, (rlx_activation)nd->ia[3], x[nd->ia[1] ? 3 : 2]), y);
        return y;
    }
    case RLX_OP_SWIGLU: return rlx_mul(ng, rlx_silu(ng, x[0]), x[1]);
    case RLX_OP_GEGLU: return rlx_mul(ng, rlx_gelu(ng, x[0]), x[1]);
    case RLX_OP_ADD_NORM: {
        rlx_tensor s = rlx_add(ng, x[0], x[1]), none = rlx__Tg(ng, 0), y;
        int k = 2;
        rlx_tensor gm = nd->ia[1] ? x[k++] : none, bt = nd->ia[2] ? x[k] : none;
        y = nd->ia[3] ? rlx_layernorm(ng, s, gm, bt, (int)nd->ia[0], (float)nd->fa[0])
                      : rlx_rmsnorm(ng, s, gm, bt, (float)nd->fa[0]);
        if (sum) *sum = s;
        return y;
    }
    case RLX_OP_FUSED_EW: {
        rlx_tensor reg[RLX__NIA];
        int n = (int)nd->ia[0], i;
        for (i = 0; i < n && i < RLX__NIA - 1; i++) {
            int64_t code = nd->ia[1 + i];
            rlx_op op = (rlx_op)(code & 0xFF);
            int ra = (int)((code >> 8) & 0xFF), rb = (int)((code >> 16) & 0xFF);
            rlx_tensor a = ra < 8 ? x[ra] : reg[ra - 8];
            if (rlx__is_binary(op)) reg[i] = rlx_binary(ng, op, a, rb < 8 ? x[rb] : reg[rb - 8]);
            else reg[i] = rlx_unary(ng, op, a);
        }
        return n > 0 ? reg[n - 1] : rlx__Tg(ng, 0);
    }
    case RLX_OP_MATMUL_INTEGER: {   /* widen to i32, subtract the zero points, i32 matmul (wraps as int32) */
        rlx_tensor y[2];
        int k = 2, o, rank = 0;
        int64_t shp[RLX_MAX_RANK];
        for (o = 0; o < 2; o++) {
            y[o] = rlx_cast(ng, x[o], RLX_I32);
            if (nd->ia[4 + o]) {
                rlx_tensor z = rlx_cast(ng, x[k++], RLX_I32);
                int64_t col[2];
                rlx_tensor_info(ng, z, &rank, shp);
                col[0] = shp[0]; col[1] = 1;
                if (rlx__numel(rank, shp) == 1) z = rlx_reshape(ng, z, 0, NULL);   /* no batch dims from it */
                else if (o == 0) z = rlx_reshape(ng, z, 2, col);                  /* [M] → [M, 1]: per row */
                y[o] = rlx_sub(ng, y[o], z);
            }
        }
        return rlx_matmul(ng, y[0], y[1]);
    }
    default:
        return rlx__Tg(ng, 0);
    }
#undef RLX__C
}

static rlx_graph* rlx__legalize(rlx_graph* g, const rlx__target* t, int decompose_all, uint32_t* remap) {
    rlx_graph* ng = rlx__new_graph(&g->al);
    uint32_t* sums;     /* per decomposed add+norm: the tensor its EXTRA (sum) becomes */
    int i, k;
    if (!ng) return NULL;
    sums = (uint32_t*)rlx__calloc(&g->al, sizeof(uint32_t) * ((size_t)g->n + 1));
    if (!sums) { rlx_graph_destroy(ng); return NULL; }
    for (i = 0; i < g->n && ng->status == RLX_OK; i++) {
        const rlx__node* nd = &g->nodes[i];
        if (nd->op == RLX_OP_EXTRA && sums[rlx__in(g, nd, 0)]) {
            remap[i + 1] = sums[rlx__in(g, nd, 0)];
        } else if (rlx__decomposable(nd->op) && (decompose_all || !rlx__target_has(t, g, nd))) {
            rlx_tensor x[8], s = rlx__T(0);
            ng->origin_hint = nd->origin;   /* the nodes of the decomposition (and its messages) name this node */
            ng->label_hint = nd->label;
            for (k = 0; k < nd->nin && k < 8; k++) x[k] = rlx__T(remap[rlx__in(g, nd, k)]);
            if (nd->dtype == RLX_F16 || nd->dtype == RLX_BF16) {
                /* half types compute in f32 (as their kernels do) and round once at the end */
                rlx__node wide = *nd;
                wide.dtype = RLX_F32;
                for (k = 0; k < nd->nin && k < 8; k++)
                    if (rlx__N(g, rlx__in(g, nd, k))->dtype == nd->dtype) x[k] = rlx_cast(ng, x[k], RLX_F32);
                remap[i + 1] = rlx_cast(ng, rlx__decompose(ng, &wide, x, &s), nd->dtype).id;
                if (s.id) s = rlx_cast(ng, s, nd->dtype);
            } else {
                remap[i + 1] = rlx__decompose(ng, nd, x, &s).id;
            }
            sums[i + 1] = s.id;
            ng->origin_hint = 0;
            ng->label_hint = NULL;
        } else {
            remap[i + 1] = rlx__copy_node(ng, g, nd, remap);
        }
    }
    rlx__free(&g->al, sums);
    if (ng->status == RLX_OK) rlx__copy_outputs(ng, g, remap);
    return ng;
}

/* constant folding: a node whose inputs are all constants is evaluated once at compile time (on the CPU
   kernels) and replaced by a constant, unless its result would be large (expand of a scalar, say). */
#define RLX__FOLD_MAX_BYTES ((size_t)16 << 20)

static rlx_graph* rlx__fold(rlx_graph* g, uint32_t* remap) {
    rlx_graph* ng = rlx__new_graph(&g->al);
    int i, k;
    if (!ng) return NULL;
    for (i = 0; i < g->n && ng->status == RLX_OK; i++) {
        const rlx__node* nd = &g->nodes[i];
        int all_const = nd->nin > 0;
        void* inptr[65];
        for (k = 0; k < nd->nin; k++)
            if (k >= 64 || rlx__N(ng, remap[rlx__in(g, nd, k)])->op != RLX_OP_CONSTANT) all_const = 0;
        if (nd->op == RLX_OP_EXTRA || (nd->op == RLX_OP_ADD_NORM && nd->ia[4])) all_const = 0;
        if (all_const && rlx__node_bytes(nd) <= RLX__FOLD_MAX_BYTES) {
            uint32_t id = rlx__copy_node(ng, g, nd, remap);
            size_t wsb;
            void *data, *ws = NULL, *ws_raw = NULL;
            rlx__node* nn;
            if (!id) break;
            nn = rlx__N(ng, id);
            for (k = 0; k < nn->nin; k++) inptr[k] = rlx__N(ng, rlx__in(ng, nn, k))->data;
            inptr[nn->nin] = NULL;   /* no second output */
            data = rlx__alloc(&g->al, rlx__node_bytes(nn));
            wsb = rlx__node_workspace(ng, nn, 1);
            if (wsb) ws = rlx__alloc_aligned(&g->al, wsb, &ws_raw);
            if (!data || (wsb && !ws)) {
                rlx__free(&g->al, data);
                rlx__free(&g->al, ws_raw);
                rlx__gerr(ng, RLX_ERROR_OUT_OF_MEMORY, "constant folding: out of memory");
                break;
            }
            rlx__cpu_exec(ng, nn, inptr, data, NULL, ws);
            rlx__free(&g->al, ws_raw);
            nn = rlx__N(ng, id);
            nn->op = RLX_OP_CONSTANT;
            nn->nin = 0;
            memset(nn->ia, 0, sizeof nn->ia);
            memset(nn->fa, 0, sizeof nn->fa);
            nn->data = data;
            remap[i + 1] = id;
        } else {
            remap[i + 1] = rlx__copy_node(ng, g, nd, remap);
        }
    }
    if (ng->status == RLX_OK) rlx__copy_outputs(ng, g, remap);
    return ng;
}

/* CSE: two nodes with the same op, dtype, shape, inputs and attributes (and bytes, for constants) are one.
   Inputs and params are never merged. Open-addressing hash table over the new graph's nodes. */
static uint64_t rlx__hash_bytes(uint64_t h, const void* p, size_t n) {
    const unsigned char* b = (const unsigned char*)p;
    size_t i;
    for (i = 0; i < n; i++) { h ^= b[i]; h *= 0x100000001B3ull; }
    return h;
}
static uint64_t rlx__node_hash(const rlx_graph* g, const rlx__node* nd) {
    uint64_t h = 0xCBF29CE484222325ull;
    int k;
    h = rlx__hash_bytes(h, &nd->op, sizeof nd->op);
    h = rlx__hash_bytes(h, &nd->dtype, sizeof nd->dtype);
    h = rlx__hash_bytes(h, nd->shape, sizeof(int64_t) * (size_t)nd->rank);
    h = rlx__hash_bytes(h, nd->ia, sizeof nd->ia);
    for (k = 0; k < nd->nin; k++) { uint32_t in = rlx__in(g, nd, k); h = rlx__hash_bytes(h, &in, sizeof in); }
    if (nd->data) h = rlx__hash_bytes(h, nd->data, RLX__MIN(rlx__node_bytes(nd), (size_t)256));
    return h;
}
static int rlx__node_same(const rlx_graph* g, const rlx__node* a, const rlx__node* b) {
    int k;
    if (a->op != b->op || a->dtype != b->dtype || a->rank != b->rank || a->nin != b->nin) return 0;
    if (memcmp(a->shape, b->shape, sizeof(int64_t) * (size_t)a->rank) || memcmp(a->ia, b->ia, sizeof a->ia) ||
        memcmp(a->fa, b->fa, sizeof a->fa))
        return 0;
    for (k = 0; k < a->nin; k++)
        if (rlx__in(g, a, k) != rlx__in(g, b, k)) return 0;
    if (a->data && memcmp(a->data, b->data, rlx__node_bytes(a))) return 0;
    return 1;
}

static rlx_graph* rlx__cse(rlx_graph* g, uint32_t* remap) {
    rlx_graph* ng = rlx__new_graph(&g->al);
    uint32_t* table;
    size_t cap = 16, mask, j;
    int i;
    if (!ng) return NULL;
    while (cap < (size_t)g->n * 2) cap *= 2;
    mask = cap - 1;
    table = (uint32_t*)rlx__calloc(&g->al, cap * sizeof(uint32_t));
    if (!table) { rlx_graph_destroy(ng); return NULL; }
    for (i = 0; i < g->n && ng->status == RLX_OK; i++) {
        const rlx__node* nd = &g->nodes[i];
        uint32_t id = rlx__copy_node(ng, g, nd, remap);
        rlx__node* nn;
        if (!id) break;
        remap[i + 1] = id;
        nn = rlx__N(ng, id);
        if (nn->op == RLX_OP_INPUT || nn->op == RLX_OP_PARAM || nn->op == RLX_OP_STATE || nn->op == RLX_OP_STATE_WRITE)
            continue;
        for (j = (size_t)rlx__node_hash(ng, nn) & mask;; j = (j + 1) & mask) {
            if (table[j] == 0) { table[j] = id; break; }
            if (rlx__node_same(ng, rlx__N(ng, table[j]), nn)) {
                /* drop the duplicate we just appended (it is last) and point at the first one */
                rlx__free(&ng->al, nn->data);
                rlx__free(&ng->al, nn->label);
                ng->nins -= nn->nin;
                ng->n--;
                remap[i + 1] = table[j];
                break;
            }
        }
    }
    rlx__free(&g->al, table);
    if (ng->status == RLX_OK) rlx__copy_outputs(ng, g, remap);
    return ng;
}

/* DCE: keep what an output needs, every input, param and state (the program's interface), and every state
   write (a side effect) with what it needs. */
static rlx_graph* rlx__dce(rlx_graph* g, uint32_t* remap) {
    rlx_graph* ng = rlx__new_graph(&g->al);
    unsigned char* live;
    int i, k;
    if (!ng) return NULL;
    live = (unsigned char*)rlx__calloc(&g->al, (size_t)g->n + 1);
    if (!live) { rlx_graph_destroy(ng); return NULL; }
    for (i = 0; i < g->nouts; i++) live[g->outs[i].id] = 1;
    for (i = g->n; i >= 1; i--) {
        const rlx__node* nd = rlx__N(g, (uint32_t)i);
        if (nd->op == RLX_OP_INPUT || nd->op == RLX_OP_PARAM || nd->op == RLX_OP_STATE || nd->op == RLX_OP_STATE_WRITE)
            live[i] = 1;
        if (!live[i]) continue;
        for (k = 0; k < nd->nin; k++) live[rlx__in(g, nd, k)] = 1;
    }
    for (i = 1; i <= g->n && ng->status == RLX_OK; i++)
        remap[i] = live[i] ? rlx__copy_node(ng, g, rlx__N(g, (uint32_t)i), remap) : 0;
    rlx__free(&g->al, live);
    if (ng->status == RLX_OK) rlx__copy_outputs(ng, g, remap);
    return ng;
}

/* fusion: forms linear (matmul + bias + activation), add + rmsnorm/layernorm (emitting the sum when the sum
   has later readers), swiglu/geglu, and fused elementwise chains (f32). It only absorbs intermediates that
   have a single reader and are not graph outputs (except the add of add+norm, whose other readers switch to
   the emitted sum). It runs only for targets that run every fused op. The absorbed producers are left dead
   for the DCE that follows. */
typedef struct rlx__ewgroup {
    int ninst, nin;
    int64_t inst[RLX__NIA - 1];
    uint32_t in[8];            /* ids in the new graph */
} rlx__ewgroup;

static int rlx__ew_fusable(const rlx_graph* g, const rlx__node* nd) {
    int k;
    if (nd->dtype != RLX_F32) return 0;
    if (!(rlx__is_unary(nd->op) || (rlx__is_binary(nd->op) && !rlx__is_compare(nd->op)))) return 0;
    for (k = 0; k < nd->nin; k++) {
        const rlx__node* in = rlx__N(g, rlx__in(g, nd, k));
        int same = in->rank == nd->rank && !memcmp(in->shape, nd->shape, sizeof(int64_t) * (size_t)nd->rank);
        if (in->dtype != RLX_F32 || !(same || (rlx__node_numel(in) == 1 && in->rank <= nd->rank))) return 0;
    }
    return 1;
}

/* Operand index of new-graph tensor id in group gr (adding it as an input); -1 when full. */
static int rlx__ew_operand(rlx__ewgroup* gr, uint32_t id) {
    int i;
    for (i = 0; i < gr->nin; i++)
        if (gr->in[i] == id) return i;
    if (gr->nin >= 8) return -1;
    gr->in[gr->nin] = id;
    return gr->nin++;
}

/* Append producer group p into gr; returns the register holding p's result, or -1 if it does not fit. */
static int rlx__ew_inline(rlx__ewgroup* gr, const rlx__ewgroup* p) {
    rlx__ewgroup save = *gr;
    int base = gr->ninst, i;
    if (gr->ninst + p->ninst > RLX__NIA - 2) return -1;
    for (i = 0; i < p->ninst; i++) {
        int64_t code = p->inst[i];
        int op = (int)(code & 0xFF), ra = (int)((code >> 8) & 0xFF), rb = (int)((code >> 16) & 0xFF);
        ra = ra < 8 ? rlx__ew_operand(gr, p->in[ra]) : ra + base;
        rb = rb < 8 ? (rlx__is_binary((rlx_op)op) ? rlx__ew_operand(gr, p->in[rb]) : 0) : rb + base;
        if (ra < 0 || rb < 0) { *gr = save; return -1; }
        gr->inst[gr->ninst++] = op | ((int64_t)ra << 8) | ((int64_t)rb << 16);
    }
    return 8 + gr->ninst - 1;
}

static rlx_graph* rlx__fuse(rlx_graph* g, const rlx__target* t, uint32_t* remap) {
    rlx_graph* ng = rlx__new_graph(&g->al);
    int *uses = NULL, *first_use = NULL, i, k;
    unsigned char* isout = NULL;
    rlx__ewgroup* grp = NULL;        /* per old node: its elementwise group (ninst 0 = none) */
    if (!ng) return NULL;
    uses = (int*)rlx__calloc(&g->al, sizeof(int) * ((size_t)g->n + 1));
    first_use = (int*)rlx__calloc(&g->al, sizeof(int) * ((size_t)g->n + 1));
    isout = (unsigned char*)rlx__calloc(&g->al, (size_t)g->n + 1);
    grp = (rlx__ewgroup*)rlx__calloc(&g->al, sizeof(rlx__ewgroup) * ((size_t)g->n + 1));
    if (!uses || !first_use || !isout || !grp) { rlx__gerr(ng, RLX_ERROR_OUT_OF_MEMORY, "fusion: out of memory"); goto done; }
    for (i = 1; i <= g->n; i++) {
        const rlx__node* nd = rlx__N(g, (uint32_t)i);
        for (k = 0; k < nd->nin; k++) {
            uint32_t in = rlx__in(g, nd, k);
            if (!uses[in]++) first_use[in] = i;
        }
    }
    for (i = 0; i < g->nouts; i++) isout[g->outs[i].id] = 1;
#define RLX__SOLE(id) (uses[id] == 1 && !isout[id])
    for (i = 1; i <= g->n && ng->status == RLX_OK; i++) {
        const rlx__node* nd = rlx__N(g, (uint32_t)i);
        uint32_t fused = 0;
        ng->origin_hint = nd->origin;   /* a fused node names the user's node it replaces (the pattern's root) */
        ng->label_hint = nd->label;
        /* linear: [act](add(matmul(x, w), bias)) */
        if (nd->dtype == RLX_F32) {
            const rlx__node* add = NULL;
            rlx_activation act = RLX_ACT_NONE;
            uint32_t add_id = 0;
            switch (nd->op) {
            case RLX_OP_RELU: act = RLX_ACT_RELU; break;
            case RLX_OP_GELU: act = RLX_ACT_GELU; break;
            case RLX_OP_GELU_TANH: act = RLX_ACT_GELU_TANH; break;
            case RLX_OP_SILU: act = RLX_ACT_SILU; break;
            default: break;
            }
            if (act != RLX_ACT_NONE && rlx__N(g, rlx__in(g, nd, 0))->op == RLX_OP_ADD && RLX__SOLE(rlx__in(g, nd, 0)))
                add_id = rlx__in(g, nd, 0);
            else if (nd->op == RLX_OP_ADD) {
                /* fuse at the add only when no activation will take it */
                const rlx__node* c = uses[i] == 1 && !isout[i] ? rlx__N(g, (uint32_t)first_use[i]) : NULL;
                int act_next = c && (c->op == RLX_OP_RELU || c->op == RLX_OP_GELU || c->op == RLX_OP_GELU_TANH || c->op == RLX_OP_SILU);
                if (!act_next) add_id = (uint32_t)i;
            }
            if (add_id) add = rlx__N(g, add_id);
            if (add) {
                for (k = 0; k < 2 && !fused; k++) {
                    uint32_t mm = rlx__in(g, add, k), b = rlx__in(g, add, 1 - k);
                    const rlx__node *nm = rlx__N(g, mm), *nb = rlx__N(g, b);
                    if (nm->op != RLX_OP_MATMUL || !RLX__SOLE(mm) || nm->dtype != RLX_F32) continue;
                    if (rlx__N(g, rlx__in(g, nm, 1))->rank != 2 || nm->ia[1] != 2) continue;
                    if (nb->rank != 1 || nm->rank < 1 || nb->shape[0] != nm->shape[nm->rank - 1]) continue;
                    if (add->rank != nm->rank) continue;
                    fused = rlx_linear(ng, rlx__T(remap[rlx__in(g, nm, 0)]), rlx__T(remap[rlx__in(g, nm, 1)]),
                                       rlx__T(remap[b]), act).id;
                }
            }
        }
        /* add + norm */
        if (!fused && (nd->op == RLX_OP_RMSNORM || nd->op == RLX_OP_LAYERNORM)) {
            uint32_t a = rlx__in(g, nd, 0);
            const rlx__node* na = rlx__N(g, a);
            if (na->op == RLX_OP_ADD && first_use[a] == i) {
                const rlx__node *x0 = rlx__N(g, rlx__in(g, na, 0)), *x1 = rlx__N(g, rlx__in(g, na, 1));
                int same = x0->rank == na->rank && x1->rank == na->rank && na->rank < RLX_MAX_RANK &&
                           !memcmp(x0->shape, na->shape, sizeof(int64_t) * (size_t)na->rank) &&
                           !memcmp(x1->shape, na->shape, sizeof(int64_t) * (size_t)na->rank);
                if (same) {
                    rlx_tensor gm = rlx__T(nd->ia[1] ? remap[rlx__in(g, nd, 1)] : 0);
                    rlx_tensor bt = rlx__T(nd->ia[2] ? remap[rlx__in(g, nd, nd->ia[1] ? 2 : 1)] : 0);
                    rlx_tensor x = rlx__T(remap[rlx__in(g, na, 0)]), r = rlx__T(remap[rlx__in(g, na, 1)]), sum;
                    int sole = RLX__SOLE(a);
                    if (nd->op == RLX_OP_RMSNORM) fused = rlx_add_rmsnorm(ng, x, r, gm, bt, (float)nd->fa[0], sole ? NULL : &sum).id;
                    else fused = rlx_add_layernorm(ng, x, r, gm, bt, (int)nd->ia[0], (float)nd->fa[0], sole ? NULL : &sum).id;
                    if (fused && !sole) remap[a] = sum.id;   /* later readers of the add read the emitted sum */
                }
            }
        }
        /* swiglu / geglu: mul(silu|gelu(g), up) */
        if (!fused && nd->op == RLX_OP_MUL && rlx__is_float(nd->dtype)) {
            for (k = 0; k < 2 && !fused; k++) {
                uint32_t ga = rlx__in(g, nd, k), up = rlx__in(g, nd, 1 - k);
                const rlx__node *na = rlx__N(g, ga), *nu = rlx__N(g, up);
                rlx_op want = na->op == RLX_OP_SILU ? RLX_OP_SWIGLU : na->op == RLX_OP_GELU ? RLX_OP_GEGLU : RLX_OP_INVALID;
                if (want == RLX_OP_INVALID || !RLX__SOLE(ga)) continue;
                if (nu->rank != nd->rank || na->rank != nd->rank || memcmp(nu->shape, nd->shape, sizeof(int64_t) * (size_t)nd->rank) ||
                    memcmp(na->shape, nd->shape, sizeof(int64_t) * (size_t)nd->rank))
                    continue;
                if (t->fuse_gated && nu->op == RLX_OP_MATMUL && RLX__SOLE(up) && nu->dtype == RLX_F32 && nu->ia[1] == 2 &&
                    rlx__N(g, rlx__in(g, nu, 1))->rank == 2) {
                    /* the up projection's epilogue multiplies by act(gate): `up` is never stored */
                    rlx_tensor lin = rlx_linear(ng, rlx__T(remap[rlx__in(g, nu, 0)]), rlx__T(remap[rlx__in(g, nu, 1)]),
                                                rlx__T(0), RLX_ACT_NONE);
                    if (lin.id) {
                        uint32_t gin = remap[rlx__in(g, na, 0)];
                        rlx__node* nl = rlx__N(ng, lin.id);
                        if (rlx__grow(&ng->al, (void**)&ng->ins, &ng->cap_ins, ng->nins + 1, sizeof(uint32_t))) {
                            ng->ins[ng->nins++] = gin;   /* the linear is the last node: its inputs end the pool */
                            nl = rlx__N(ng, lin.id);
                            nl->nin++;
                            nl->ia[2] = 1;
                            nl->ia[3] = want == RLX_OP_SWIGLU ? RLX_ACT_SILU : RLX_ACT_GELU;
                            fused = lin.id;
                        }
                    }
                    if (fused) continue;
                }
                fused = (want == RLX_OP_SWIGLU ? rlx_swiglu : rlx_geglu)(ng, rlx__T(remap[rlx__in(g, na, 0)]), rlx__T(remap[up])).id;
            }
        }
        /* elementwise chains */
        if (!fused && rlx__ew_fusable(g, nd)) {
            rlx__ewgroup gr;
            int regs[2] = {0, 0}, ok = 1, absorbed = 0;
            memset(&gr, 0, sizeof gr);
            for (k = 0; k < nd->nin && ok; k++) {
                uint32_t in = rlx__in(g, nd, k);
                if (grp[in].ninst > 0 && RLX__SOLE(in)) {
                    regs[k] = rlx__ew_inline(&gr, &grp[in]);
                    if (regs[k] >= 0) { absorbed++; continue; }
                }
                regs[k] = rlx__ew_operand(&gr, remap[in]);
                if (regs[k] < 0) ok = 0;
            }
            if (ok && gr.ninst < RLX__NIA - 1) {
                gr.inst[gr.ninst++] = (int64_t)nd->op | ((int64_t)regs[0] << 8) | ((int64_t)(nd->nin > 1 ? regs[1] : 0) << 16);
                grp[i] = gr;
                if (absorbed) {
                    uint32_t id = rlx__add_node(ng, RLX_OP_FUSED_EW, RLX_F32, nd->rank, nd->shape, gr.nin, gr.in);
                    if (id) {
                        rlx__node* nn = rlx__N(ng, id);
                        nn->ia[0] = gr.ninst;
                        memcpy(nn->ia + 1, gr.inst, sizeof(int64_t) * (size_t)gr.ninst);
                    }
                    fused = id;
                }
            }
        }
        remap[i] = fused ? fused : rlx__copy_node(ng, g, nd, remap);
        /* linear(x, transpose(W)), built so or fused from matmul(x, transpose(W)) + b: the GEMM reads W [N, K] in
           place (LINEAR ia[4]); the transpose is left without readers and DCE removes it */
        if (remap[i] && t->fuse_transpose && rlx__N(ng, remap[i])->op == RLX_OP_LINEAR && !rlx__N(ng, remap[i])->ia[4]) {
            rlx__node* nn = rlx__N(ng, remap[i]);
            const rlx__node* tw = rlx__N(ng, ng->ins[nn->in_off + 1]);
            if (tw->op == RLX_OP_TRANSPOSE && tw->rank == 2 && tw->ia[0] == 1 && tw->ia[1] == 0) {
                ng->ins[nn->in_off + 1] = rlx__in(ng, tw, 0);
                nn->ia[4] = 1;
            }
        }
        /* matmul(a, transpose(w)) with the last two dims swapped: the GEMM reads w through strides */
        if (!fused && remap[i] && t->fuse_transpose && nd->op == RLX_OP_MATMUL && nd->ia[1] >= 2) {
            const rlx__node* tb = rlx__N(g, rlx__in(g, nd, 1));
            int r = tb->rank, ok = tb->op == RLX_OP_TRANSPOSE && r >= 2 && tb->ia[r - 1] == r - 2 && tb->ia[r - 2] == r - 1;
            for (k = 0; ok && k < r - 2; k++)
                if (tb->ia[k] != k) ok = 0;
            if (ok) {
                rlx__node* nn = rlx__N(ng, remap[i]);
                ng->ins[nn->in_off + 1] = remap[rlx__in(g, tb, 0)];
                nn->ia[3] = 1;
            }
        }
    }
#undef RLX__SOLE
    ng->origin_hint = 0;
    ng->label_hint = NULL;
    if (ng->status == RLX_OK) rlx__copy_outputs(ng, g, remap);
done:
    rlx__free(&g->al, uses);
    rlx__free(&g->al, first_use);
    rlx__free(&g->al, isout);
    rlx__free(&g->al, grp);
    return ng;
}

/* ------------------------------------------------------------------------------------------------------------
   >>shapes  (symbolic dims: specialising a graph for dim values; the compile cache is in >>runtime)
   rlx_dim gives a token; the builders that take it (sources, reshape, expand, slice) validate at the example
   value and keep the argument as given in an rlx__symrec. Specialising replays the graph into a new one: a node
   whose inputs kept their shapes and that has no record is copied as it is; any other node calls its builder
   again with the arguments recovered from its attributes (and its record, tokens replaced by the values), so
   every shape rule and every check of the builders applies to the new values, and shape-derived attributes
   (attention's B/Sq/Sk, rope's S, ...) are recomputed. A builder that fails names the node and the values.
   ------------------------------------------------------------------------------------------------------------ */
static int64_t rlx__dims_subst(const int64_t* vals, int64_t v) {
    return rlx__is_dim_token(v) ? vals[rlx__dim_index(v)] : v;
}

/* Rebuilds node nd of src in g (inputs through remap); rec is its symbolic record or NULL. Returns the id or 0
   (g's message says why). */
static uint32_t rlx__respec_node(rlx_graph* g, const rlx_graph* src, const rlx__node* nd, const rlx__symrec* rec,
                                 const int64_t* vals, const uint32_t* remap) {
    rlx_tensor x[8], none, t, opt[2];
    int64_t shp[RLX_MAX_RANK];
    const int64_t* ia = nd->ia;
    int k, same = 1, r = nd->rank;
    rlx_op op = nd->op;
    none.id = 0;
    none.graph = 0;
    t = none;
    for (k = 0; k < 8; k++) x[k] = none;
    for (k = 0; k < nd->nin; k++) {
        const rlx__node* a = rlx__N(src, rlx__in(src, nd, k));
        const rlx__node* b = rlx__N(g, remap[rlx__in(src, nd, k)]);
        if (a->rank != b->rank || memcmp(a->shape, b->shape, sizeof(int64_t) * (size_t)a->rank) != 0) same = 0;
        if (k < 8) x[k] = rlx__Tg(g, remap[rlx__in(src, nd, k)]);
    }
    if (op == RLX_OP_EXTRA) {   /* the sum of an ADD_NORM: made by its builder right after it, or copied with it */
        uint32_t id = remap[rlx__in(src, nd, 0)] + 1;
        if (id <= (uint32_t)g->n && rlx__N(g, id)->op == RLX_OP_EXTRA && rlx__in(g, rlx__N(g, id), 0) == id - 1)
            return id;
        return rlx__copy_node(g, src, nd, remap);
    }
    if (same && !rec) return rlx__copy_node(g, src, nd, remap);
    memcpy(shp, nd->shape, sizeof(int64_t) * (size_t)r);
    if (rec && op != RLX_OP_SLICE)
        for (k = 0; k < rec->n; k++) shp[k] = rlx__dims_subst(vals, rec->spec[k]);
    opt[0] = opt[1] = none;
    if (rlx__is_unary(op)) t = rlx_unary(g, op, x[0]);
    else if (rlx__is_binary(op)) t = rlx_binary(g, op, x[0], x[1]);
    else if (rlx__is_reduce(op)) {
        int axes[RLX_MAX_RANK];
        for (k = 0; k < (int)ia[1] && k < RLX_MAX_RANK; k++) axes[k] = (int)ia[2 + k];
        t = rlx_reduce(g, op, x[0], (int)ia[1], axes, (int)ia[0]);
    } else switch (op) {
    case RLX_OP_INPUT: case RLX_OP_PARAM: case RLX_OP_STATE:
        t = rlx__Tg(g, rlx__source(g, op, rlx_op_name(op), nd->name, nd->dtype, r, shp));
        break;
    case RLX_OP_CONSTANT: t = rlx_constant(g, nd->dtype, r, nd->shape, nd->data); break;
    case RLX_OP_WHERE: t = rlx_where(g, x[0], x[1], x[2]); break;
    case RLX_OP_CAST: t = rlx_cast(g, x[0], nd->dtype); break;
    case RLX_OP_MATMUL: t = rlx_matmul(g, x[0], x[1]); break;
    case RLX_OP_ARGMAX: case RLX_OP_ARGMIN: t = rlx__arg(g, op, x[0], (int)ia[0], (int)ia[1]); break;
    case RLX_OP_SOFTMAX: case RLX_OP_LOG_SOFTMAX: t = rlx__softmax(g, op, x[0], (int)ia[0]); break;
    case RLX_OP_LAYERNORM: case RLX_OP_RMSNORM:
        k = 1;
        if (ia[1]) opt[0] = x[k++];
        if (ia[2]) opt[1] = x[k++];
        t = rlx__norm(g, op, x[0], opt[0], opt[1], (int)ia[0], (float)nd->fa[0]);
        break;
    case RLX_OP_RESHAPE: t = rlx_reshape(g, x[0], r, shp); break;
    case RLX_OP_TRANSPOSE: {
        int perm[RLX_MAX_RANK];
        for (k = 0; k < r; k++) perm[k] = (int)ia[k];
        t = rlx_transpose(g, x[0], perm);
        break;
    }
    case RLX_OP_SLICE:
        t = rlx_slice(g, x[0], (int)ia[0], rec ? rec->spec[0] : ia[1],
                      rec ? rlx__dims_subst(vals, rec->spec[1]) : nd->shape[ia[0]], ia[2]);
        break;
    case RLX_OP_CONCAT: {
        rlx_tensor* xs = (rlx_tensor*)rlx__alloc(&g->al, sizeof(rlx_tensor) * (size_t)nd->nin);
        if (!xs) { rlx__gerr(g, RLX_ERROR_OUT_OF_MEMORY, "concat: out of memory"); return 0; }
        for (k = 0; k < nd->nin; k++) xs[k] = rlx__Tg(g, remap[rlx__in(src, nd, k)]);
        t = rlx_concat(g, nd->nin, xs, (int)ia[0]);
        rlx__free(&g->al, xs);
        break;
    }
    case RLX_OP_EXPAND: t = rlx_expand(g, x[0], r, shp); break;
    case RLX_OP_GATHER: t = rlx_gather(g, x[0], x[1], (int)ia[0]); break;
    case RLX_OP_MATMUL_QUANT: t = rlx_matmul_quant(g, x[0], x[1]); break;
    case RLX_OP_ATTENTION: {
        rlx_attention_desc d;
        memset(&d, 0, sizeof d);
        d.layout = (rlx_layout)ia[0];
        if (d.layout == RLX_LAYOUT_BSHD) { d.num_heads = (int)ia[1]; d.num_kv_heads = (int)ia[2]; }
        d.causal = (int)ia[3];
        d.window = (int)ia[4];
        k = 3;
        if (ia[5]) d.keep_mask = x[k++];
        if (ia[6]) d.bias = x[k++];
        if (ia[7]) d.kv_len = x[k++];
        d.scale = (float)nd->fa[0];   /* the exact double comes back with fa below */
        d.softcap = (float)nd->fa[1];
        t = rlx_attention(g, x[0], x[1], x[2], &d);
        break;
    }
    case RLX_OP_ROPE: {
        rlx_rope_desc d;
        memset(&d, 0, sizeof d);
        d.kind = (rlx_rope_kind)ia[0];
        d.layout = (rlx_layout)ia[1];
        d.num_heads = d.layout == RLX_LAYOUT_BSHD ? (int)ia[2] : 0;
        d.n_rot = (int)ia[3];
        if (ia[4]) d.positions = x[3];
        d.position_offset = ia[5];
        t = rlx_rope(g, x[0], x[1], x[2], &d);
        break;
    }
    case RLX_OP_CUMSUM: t = rlx_cumsum(g, x[0], (int)ia[0], (int)ia[1], (int)ia[2]); break;
    case RLX_OP_TOPK:
        rlx_topk(g, x[0], (int)ia[1], (int)ia[0], (int)ia[2], ia[3] ? NULL : &t, ia[3] ? &t : NULL);
        break;
    case RLX_OP_SAMPLE: {
        rlx_sample_desc d;
        uint64_t seed;
        memcpy(&seed, &ia[1], sizeof seed);
        memset(&d, 0, sizeof d);
        d.top_k = (int)ia[0];
        d.seed = seed;
        d.temperature = (float)nd->fa[0];
        d.top_p = (float)nd->fa[1];
        t = rlx_sample(g, x[0], x[1], &d);
        break;
    }
    case RLX_OP_CONV: case RLX_OP_CONV_TRANSPOSE: {
        rlx_conv_desc d;
        memset(&d, 0, sizeof d);
        for (k = 0; k < (int)ia[0] && k < 2; k++) {
            d.stride[k] = (int)ia[1 + k]; d.dilation[k] = (int)ia[3 + k]; d.pad_begin[k] = (int)ia[5 + k];
            d.pad_end[k] = (int)ia[7 + k]; d.output_padding[k] = (int)ia[11 + k];
        }
        d.groups = (int)ia[9];
        t = rlx__conv_build(g, op, x[0], x[1], ia[10] ? x[2] : none, &d);
        break;
    }
    case RLX_OP_POOL: {
        rlx_pool_desc d;
        memset(&d, 0, sizeof d);
        d.kind = (rlx_pool_kind)ia[1];
        for (k = 0; k < (int)ia[0] && k < 2; k++) {
            d.kernel[k] = (int)ia[2 + k]; d.stride[k] = (int)ia[4 + k]; d.pad_begin[k] = (int)ia[6 + k];
            d.pad_end[k] = (int)ia[8 + k];
        }
        d.count_include_pad = (int)ia[10];
        t = rlx_pool(g, x[0], &d);
        break;
    }
    case RLX_OP_GROUP_NORM:
        k = 1;
        if (ia[1]) opt[0] = x[k++];
        if (ia[2]) opt[1] = x[k++];
        t = rlx_group_norm(g, x[0], (int)ia[0], opt[0], opt[1], (float)nd->fa[0]);
        break;
    case RLX_OP_RESIZE:
        t = rlx_resize(g, x[0], nd->shape[2], nd->shape[3], (rlx_resize_mode)ia[0], (int)ia[1]);
        break;
    case RLX_OP_PAD: t = rlx_pad(g, x[0], ia + 1, ia + 9, (rlx_pad_mode)ia[0], nd->fa[0]); break;
    case RLX_OP_LINEAR:
        if (ia[2]) break;   /* gated: formed by fusion only, never in a graph a builder made */
        t = rlx_linear(g, x[0], x[1], ia[1] ? x[2] : none, (rlx_activation)ia[0]);
        break;
    case RLX_OP_ADD_NORM: {
        rlx_tensor sum;
        k = 2;
        if (ia[1]) opt[0] = x[k++];
        if (ia[2]) opt[1] = x[k++];
        t = rlx__add_norm(g, (int)ia[3], x[0], x[1], opt[0], opt[1], (int)ia[0], (float)nd->fa[0], ia[4] ? &sum : NULL);
        break;
    }
    case RLX_OP_SWIGLU: case RLX_OP_GEGLU: t = rlx__glu(g, op, x[0], x[1]); break;
    case RLX_OP_STATE_WRITE: t = rlx_state_write(g, x[0], x[1], (int)ia[0], x[2]); break;
    default: break;
    }
    if (!t.id) {
        if (g->status == RLX_OK)
            rlx__gerr(g, RLX_ERROR_UNSUPPORTED, "%s: this op cannot take new input shapes", rlx_op_name(op));
        return 0;
    }
    memcpy(rlx__N(g, t.id)->fa, nd->fa, sizeof nd->fa);   /* exact float attributes (attention's scale) */
    return t.id;
}

/* Writes "seq=5, batch=2" for the values vals of g's dims. */
static void rlx__dims_str(const rlx_graph* g, const int64_t* vals, char* buf, size_t cap) {
    size_t o = 0;
    int k;
    buf[0] = 0;
    for (k = 0; k < g->ndims && o < cap; k++)
        o += (size_t)snprintf(buf + o, cap - o, "%s%s=%lld", k ? ", " : "", g->dim_names[k], (long long)vals[k]);
}

/* g specialised for the dim values vals (a new graph without a tag), or NULL with msg saying why. */
static rlx_graph* rlx__specialize(rlx_graph* g, const int64_t* vals, rlx_result* why, char* msg, size_t cap) {
    rlx_graph* ng = rlx__new_graph(&g->al);
    uint32_t* remap = (uint32_t*)rlx__calloc(&g->al, sizeof(uint32_t) * ((size_t)g->n + 1));
    int i, si = 0;
    char dv[200];
    *why = RLX_ERROR_OUT_OF_MEMORY;
    if (!ng || !remap) {
        snprintf(msg, cap, "out of memory while specialising the graph");
        rlx__free(&g->al, remap);
        rlx_graph_destroy(ng);
        return NULL;
    }
    for (i = 0; i < g->n; i++) {
        const rlx__node* nd = &g->nodes[i];
        const rlx__symrec* rec = NULL;
        while (si < g->nsyms && g->syms[si].node < (uint32_t)(i + 1)) si++;
        if (si < g->nsyms && g->syms[si].node == (uint32_t)(i + 1)) rec = &g->syms[si];
        remap[i + 1] = rlx__respec_node(ng, g, nd, rec, vals, remap);
        if (!remap[i + 1]) break;
    }
    if (ng->status == RLX_OK) rlx__copy_outputs(ng, g, remap);
    rlx__free(&g->al, remap);
    if (ng->status != RLX_OK) {
        rlx__dims_str(g, vals, dv, sizeof dv);
        *why = ng->status;
        snprintf(msg, cap, "with %.120s: node %d (%s): ", dv, i + 1, i < g->n ? rlx_op_name(g->nodes[i].op) : "outputs");
        if (strlen(msg) + 1 < cap) rlx__strlcpy(msg + strlen(msg), cap - strlen(msg), ng->msg);
        rlx_graph_destroy(ng);
        return NULL;
    }
    *why = RLX_OK;
    return ng;
}

/* ------------------------------------------------------------------------------------------------------------
   >>planner
   One buffer per node. Views (reshape, same-dtype cast, contiguous slice, identity transpose/expand) alias
   their root. Inputs live for the whole run (they persist between runs), params and constants sit in a
   separate weight block, outputs live to the end. Intermediates get arena offsets by greedy first-fit,
   largest first: each goes to the lowest 64-aligned offset that overlaps no placed buffer whose live range
   intersects its own (rlx__place finds it in O(log steps) merged span sets, not by scanning every placed
   buffer). Intermediate addresses overlap by design.
   ------------------------------------------------------------------------------------------------------------ */
typedef struct rlx__buf {
    rlx_buffer_kind kind;
    int root;          /* node index (0-based) owning the memory; itself unless a view */
    size_t offset;     /* arena / weight offset for roots; byte offset inside the root for views */
    size_t bytes;
    int first, last;   /* live range in steps */
} rlx__buf;

typedef struct rlx__plan {
    rlx__buf* bufs;    /* one per node */
    int* steps;        /* node index of each executed step */
    int nsteps;
    size_t arena_bytes, no_reuse_bytes, lower_bound_bytes, weight_bytes, state_bytes;
} rlx__plan;

/* Is node nd a view of its first input? Returns 1 and the byte offset if so. */
static int rlx__view_offset(const rlx_graph* g, const rlx__node* nd, size_t* off) {
    const rlx__node* x;
    int i;
    *off = 0;
    if (nd->nin < 1) return 0;
    x = rlx__N(g, rlx__in(g, nd, 0));
    switch (nd->op) {
    case RLX_OP_RESHAPE: return 1;
    case RLX_OP_CAST: return nd->dtype == x->dtype;
    case RLX_OP_EXPAND: return nd->rank == x->rank && !memcmp(nd->shape, x->shape, sizeof(int64_t) * (size_t)nd->rank);
    case RLX_OP_TRANSPOSE: {
        /* identity when the permuted non-1 dims keep their order */
        int last = -1;
        for (i = 0; i < nd->rank; i++) {
            if (x->shape[nd->ia[i]] == 1) continue;
            if ((int)nd->ia[i] < last) return 0;
            last = (int)nd->ia[i];
        }
        return 1;
    }
    case RLX_OP_SLICE: {
        int a = (int)nd->ia[0];
        int64_t outer = 1, inner = 1;
        for (i = 0; i < a; i++) outer *= x->shape[i];
        for (i = a + 1; i < x->rank; i++) inner *= x->shape[i];
        if (outer != 1 || (nd->ia[2] != 1 && nd->shape[a] != 1)) return 0;
        *off = (size_t)(nd->ia[1] * inner) * rlx_dtype_size(x->dtype);
        return 1;
    }
    default: return 0;
    }
}

static void rlx__plan_free(const rlx_allocator* al, rlx__plan* p) {
    rlx__free(al, p->bufs);
    rlx__free(al, p->steps);
    memset(p, 0, sizeof *p);
}

/* Sort key of the placement order: size descending, then first step, then node index (a stable order). */
static int rlx__place_before(const rlx__plan* p, int a, int b) {
    const rlx__buf *x = &p->bufs[a], *y = &p->bufs[b];
    if (x->bytes != y->bytes) return x->bytes > y->bytes;
    if (x->first != y->first) return x->first < y->first;
    return a < b;
}

/* Bottom-up merge sort of order[0..cnt) by rlx__place_before; tmp holds cnt ints. */
static void rlx__place_sort(const rlx__plan* p, int* order, int* tmp, int cnt) {
    int w, lo, *src = order, *dst = tmp;
    for (w = 1; w < cnt; w *= 2) {
        for (lo = 0; lo < cnt; lo += 2 * w) {
            int mid = lo + w < cnt ? lo + w : cnt, hi = lo + 2 * w < cnt ? lo + 2 * w : cnt;
            int i = lo, j = mid, k = lo;
            while (i < mid && j < hi) dst[k++] = rlx__place_before(p, src[j], src[i]) ? src[j++] : src[i++];
            while (i < mid) dst[k++] = src[i++];
            while (j < hi) dst[k++] = src[j++];
        }
        { int* t = src; src = dst; dst = t; }
    }
    if (src != order) memcpy(order, src, sizeof(int) * (size_t)cnt);
}

/* A set of byte ranges kept as sorted, disjoint, non-touching [lo, hi) spans (touching ones merge). */
typedef struct rlx__span { size_t lo, hi; } rlx__span;
typedef struct rlx__spans { rlx__span* v; int n, cap; } rlx__spans;

/* Index of the first span of s with hi > x (s->n if none). */
static int rlx__spans_after(const rlx__spans* s, int from, size_t x) {
    int lo = from, hi = s->n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (s->v[mid].hi > x) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

/* Adds [lo, hi) to s, merging what it overlaps or touches. Returns 0 on out of memory. */
static int rlx__spans_add(const rlx_allocator* al, rlx__spans* s, size_t lo, size_t hi) {
    int i = lo > 0 ? rlx__spans_after(s, 0, lo - 1) : 0, j = i;   /* first span with hi >= lo */
    while (j < s->n && s->v[j].lo <= hi) j++;                       /* spans i..j-1 merge with [lo, hi) */
    if (i < j) {
        if (s->v[i].lo < lo) lo = s->v[i].lo;
        if (s->v[j - 1].hi > hi) hi = s->v[j - 1].hi;
        s->v[i].lo = lo;
        s->v[i].hi = hi;
        memmove(s->v + i + 1, s->v + j, sizeof(rlx__span) * (size_t)(s->n - j));
        s->n -= j - i - 1;
        return 1;
    }
    if (!rlx__grow(al, (void**)&s->v, &s->cap, s->n + 1, sizeof(rlx__span))) return 0;
    memmove(s->v + i + 1, s->v + i, sizeof(rlx__span) * (size_t)(s->n - i));
    s->v[i].lo = lo;
    s->v[i].hi = hi;
    s->n++;
    return 1;
}

/* Placement of order[0..cnt) (already sorted) over steps [0, nt): each buffer takes the lowest 64-aligned offset
   that overlaps no placed buffer whose live range intersects its own. Placed buffers are kept in a segment tree
   over steps: a buffer is stored at the O(log nt) nodes that exactly cover its live range; every node keeps the
   byte ranges of the buffers stored at it (own) and at it or any node below it (sub), each as a merged set of
   spans. The buffers whose live range meets [first, last] are those in sub of the nodes covering [first, last]
   and in own of those nodes' ancestors, so the lowest free offset is found by walking these O(log nt) merged
   sets upwards from 0, never looking at buffers live at other steps; tightly packed buffers merge into a few
   spans, so the walk is short. Returns 0 on out of memory. */
static int rlx__place(const rlx_allocator* al, rlx__plan* p, const int* order, int cnt, int nt) {
    int leaves = 1, nodes, j, ok = 0, stamp = 0;
    rlx__spans *own = NULL, *sub = NULL, **use = NULL;
    int *seen = NULL, *pos = NULL;
    while (leaves < nt) leaves *= 2;
    nodes = 2 * leaves;
    own = (rlx__spans*)rlx__calloc(al, sizeof(rlx__spans) * (size_t)nodes);
    sub = (rlx__spans*)rlx__calloc(al, sizeof(rlx__spans) * (size_t)nodes);
    seen = (int*)rlx__calloc(al, sizeof(int) * (size_t)nodes);
    use = (rlx__spans**)rlx__alloc(al, sizeof(rlx__spans*) * 256);
    pos = (int*)rlx__alloc(al, sizeof(int) * 256);
    if (!own || !sub || !seen || !use || !pos) goto done;
    p->arena_bytes = 0;
    for (j = 0; j < cnt; j++) {
        rlx__buf* b = &p->bufs[order[j]];
        size_t sz = rlx__align_up(b->bytes), cand = 0;
        int nuse = 0, lo, hi, t, moved, still, pass;
        /* pass 0 gathers the sets to avoid; pass 1 (after placing) adds b's span to the same nodes' sets */
        for (pass = 0; pass < 2; pass++) {
            stamp++;
            for (lo = b->first + leaves, hi = b->last + leaves + 1; lo < hi; lo >>= 1, hi >>= 1) {
                int at[2], na = 0, a;
                if (lo & 1) at[na++] = lo++;
                if (hi & 1) at[na++] = --hi;
                for (t = 0; t < na; t++) {
                    if (pass == 0) use[nuse++] = &sub[at[t]];
                    else if (!rlx__spans_add(al, &own[at[t]], cand, cand + sz) ||
                             !rlx__spans_add(al, &sub[at[t]], cand, cand + sz)) goto done;
                    for (a = at[t] >> 1; a >= 1 && seen[a] != stamp; a >>= 1) {   /* ancestors, once each */
                        seen[a] = stamp;
                        if (pass == 0) use[nuse++] = &own[a];
                        else if (!rlx__spans_add(al, &sub[a], cand, cand + sz)) goto done;
                    }
                }
            }
            if (pass == 1) break;
            /* lowest offset that no span of the gathered sets overlaps */
            for (t = 0; t < nuse; t++) pos[t] = 0;
            /* visit the sets in turn; each moves cand past its spans that overlap [cand, cand + sz); done when
               nuse sets in a row left it where it was */
            for (t = 0, still = 0; still < nuse; t = t + 1 < nuse ? t + 1 : 0) {
                const rlx__spans* s = use[t];
                moved = 0;
                for (;;) {
                    pos[t] = rlx__spans_after(s, pos[t], cand);
                    if (pos[t] >= s->n || s->v[pos[t]].lo >= cand + sz) break;
                    cand = s->v[pos[t]].hi;
                    moved = 1;
                }
                still = moved ? 1 : still + 1;
            }
            b->offset = cand;
            if (cand + sz > p->arena_bytes) p->arena_bytes = cand + sz;
        }
    }
    ok = 1;
done:
    if (own && sub)
        for (j = 0; j < nodes; j++) { rlx__free(al, own[j].v); rlx__free(al, sub[j].v); }
    rlx__free(al, own); rlx__free(al, sub); rlx__free(al, seen); rlx__free(al, use); rlx__free(al, pos);
    return ok;
}

static rlx_result rlx__plan_build(const rlx_graph* g, int no_reuse, rlx__plan* p) {
    const rlx_allocator* al = &g->al;
    int n = g->n, i, k, s, end;
    int *order = NULL, *stepof = NULL;
    size_t off;
    memset(p, 0, sizeof *p);
    p->bufs = (rlx__buf*)rlx__calloc(al, sizeof(rlx__buf) * (size_t)(n + 1));
    p->steps = (int*)rlx__calloc(al, sizeof(int) * (size_t)(n + 1));
    order = (int*)rlx__calloc(al, sizeof(int) * (size_t)(n + 1));
    stepof = (int*)rlx__calloc(al, sizeof(int) * (size_t)(n + 1));
    if (!p->bufs || !p->steps || !order || !stepof) {
        rlx__free(al, order); rlx__free(al, stepof); rlx__plan_free(al, p);
        return RLX_ERROR_OUT_OF_MEMORY;
    }
    /* 1. kinds, roots, steps */
    for (i = 0; i < n; i++) {
        const rlx__node* nd = &g->nodes[i];
        rlx__buf* b = &p->bufs[i];
        b->bytes = rlx__node_bytes(nd);
        b->root = i;
        stepof[i] = -1;
        if (nd->op == RLX_OP_INPUT) b->kind = RLX_BUFFER_INPUT;
        else if (nd->op == RLX_OP_PARAM) b->kind = RLX_BUFFER_PARAM;
        else if (nd->op == RLX_OP_CONSTANT) b->kind = RLX_BUFFER_CONSTANT;
        else if (nd->op == RLX_OP_STATE) b->kind = RLX_BUFFER_STATE;
        else if (nd->op == RLX_OP_EXTRA) {          /* second output: its producer's step writes it */
            b->kind = RLX_BUFFER_INTERMEDIATE;
            stepof[i] = stepof[rlx__in(g, nd, 0) - 1];
        } else if (nd->op == RLX_OP_STATE_WRITE) {   /* in place: a view of the state that also runs */
            int src = (int)rlx__in(g, nd, 0) - 1;
            b->kind = RLX_BUFFER_VIEW;
            b->root = p->bufs[src].root;
            b->offset = 0;
            stepof[i] = p->nsteps;
            p->steps[p->nsteps++] = i;
        } else if (rlx__view_offset(g, nd, &off)) {
            int src = (int)rlx__in(g, nd, 0) - 1;
            b->kind = RLX_BUFFER_VIEW;
            b->root = p->bufs[src].root;
            b->offset = (src == b->root ? 0 : p->bufs[src].offset) + off;
        } else {
            b->kind = RLX_BUFFER_INTERMEDIATE;
            stepof[i] = p->nsteps;
            p->steps[p->nsteps++] = i;
        }
    }
    end = p->nsteps > 0 ? p->nsteps - 1 : 0;
    /* Every offset below is at most the sum of all aligned buffer sizes: if that sum fits in size_t, no offset
       or size computed by the planner can wrap (on 32-bit targets a few large buffers would). */
    {
        size_t total = 0, a;
        for (i = 0; i < n; i++)
            if (!rlx__align_sz(p->bufs[i].bytes, &a) || !rlx__add_sz(total, a, &total)) {
                rlx__free(al, order); rlx__free(al, stepof); rlx__plan_free(al, p);
                return RLX_ERROR_SIZE;
            }
    }
    /* 2. live ranges */
    for (i = 0; i < n; i++) {
        rlx__buf* b = &p->bufs[i];
        if (b->kind == RLX_BUFFER_INTERMEDIATE) b->first = b->last = stepof[i];
        else { b->first = 0; b->last = end; }
    }
    for (s = 0; s < p->nsteps; s++) {
        const rlx__node* nd = &g->nodes[p->steps[s]];
        for (k = 0; k < nd->nin; k++) {
            rlx__buf* r = &p->bufs[p->bufs[rlx__in(g, nd, k) - 1].root];
            if (s > r->last) r->last = s;
        }
    }
    for (i = 0; i < g->nouts; i++) {
        rlx__buf* r = &p->bufs[p->bufs[g->outs[i].id - 1].root];
        r->last = end;
        if (r->kind == RLX_BUFFER_INTERMEDIATE) r->kind = RLX_BUFFER_OUTPUT;
    }
    for (i = 0; i < n; i++) {   /* a view lives as long as its root (for reporting) */
        rlx__buf* b = &p->bufs[i];
        if (b->kind == RLX_BUFFER_VIEW) { b->first = p->bufs[b->root].first; b->last = p->bufs[b->root].last; }
    }
    /* 3. weights: sequential */
    off = 0;
    for (i = 0; i < n; i++) {
        rlx__buf* b = &p->bufs[i];
        if (b->kind != RLX_BUFFER_PARAM && b->kind != RLX_BUFFER_CONSTANT) continue;
        b->offset = off;
        off += rlx__align_up(b->bytes);
    }
    p->weight_bytes = off;
    off = 0;
    for (i = 0; i < n; i++) {
        rlx__buf* b = &p->bufs[i];
        if (b->kind != RLX_BUFFER_STATE) continue;
        b->offset = off;
        off += rlx__align_up(b->bytes);
    }
    p->state_bytes = off;
    /* 4. arena: no-reuse sum, lower bound, then placement */
    {
        int cnt = 0, j;
        size_t lb = 0, live = 0, *delta;
        for (i = 0; i < n; i++) {
            rlx_buffer_kind kd = p->bufs[i].kind;
            if (kd == RLX_BUFFER_INPUT || kd == RLX_BUFFER_INTERMEDIATE || kd == RLX_BUFFER_OUTPUT) {
                order[cnt++] = i;
                p->no_reuse_bytes += rlx__align_up(p->bufs[i].bytes);
            }
        }
        /* bytes live at each step: +size at first, -size after last, then a running sum */
        delta = (size_t*)rlx__calloc(al, sizeof(size_t) * (size_t)(end + 2));
        if (!delta) goto oom;
        for (j = 0; j < cnt; j++) {
            const rlx__buf* b = &p->bufs[order[j]];
            delta[b->first] += rlx__align_up(b->bytes);
            delta[b->last + 1] -= rlx__align_up(b->bytes);
        }
        for (s = 0; s <= end; s++) {
            live += delta[s];
            if (live > lb) lb = live;
        }
        rlx__free(al, delta);
        p->lower_bound_bytes = lb;
        if (no_reuse) {
            off = 0;
            for (j = 0; j < cnt; j++) { p->bufs[order[j]].offset = off; off += rlx__align_up(p->bufs[order[j]].bytes); }
            p->arena_bytes = off;
        } else {
            /* largest first (ties: earlier first step, then node order); stepof is free now and holds the
               merge sort's scratch */
            rlx__place_sort(p, order, stepof, cnt);
            if (!rlx__place(al, p, order, cnt, end + 1)) goto oom;
        }
    }
    rlx__free(al, order);
    rlx__free(al, stepof);
    return RLX_OK;
oom:
    rlx__free(al, order);
    rlx__free(al, stepof);
    rlx__plan_free(al, p);
    return RLX_ERROR_OUT_OF_MEMORY;
}

/* ------------------------------------------------------------------------------------------------------------
   >>cpu
   Thread pool: the caller is thread 0 and `n-1` workers wait on a condition variable. parallel_for hands out
   task indices under one mutex (tasks are coarse: row blocks and matmul tiles). A pool may be shared by
   programs (rlx_thread_pool): one parallel_for owns the workers at a time (`running`); another that finds
   them busy runs its tasks on its own calling thread as thread 0 (each program has its own workspace, so
   thread indices of different programs never share scratch). A pool with a hook has no workers: parallel_for
   hands the application `lanes` jobs, and lane i runs tasks from a shared counter as thread i.
   Call sites pass rlx__pool_if(pool, work): below RLX_PARALLEL_MIN_WORK element operations a step runs inline.
   ------------------------------------------------------------------------------------------------------------ */
typedef void (*rlx__task_fn)(void* ctx, int64_t task, int thread);

/* Work (element operations: a multiply-add, an element read and written, a window element) below which a
   parallel loop runs on the calling thread: waking a worker and joining it costs about this much. */
#ifndef RLX_PARALLEL_MIN_WORK
#  define RLX_PARALLEL_MIN_WORK 65536
#endif

#if defined(RLX_NO_THREADS)
struct rlx__pool { int n; };
static int rlx__pool_threads(const rlx__pool* p) { RLX__UNUSED(p); return 1; }
static rlx__pool* rlx__pool_hooked(const rlx_allocator* al, int n, void (*hook)(void*, int64_t, rlx_job_fn, void*), void* user) {
    RLX__UNUSED(al); RLX__UNUSED(n); RLX__UNUSED(hook); RLX__UNUSED(user);
    return NULL;
}
static void rlx__parallel_for(rlx__pool* p, int64_t ntasks, rlx__task_fn fn, void* ctx) {
    int64_t t;
    RLX__UNUSED(p);
    for (t = 0; t < ntasks; t++) fn(ctx, t, 0);
}
static rlx__pool* rlx__pool_create(const rlx_allocator* al, int n) { RLX__UNUSED(al); RLX__UNUSED(n); return NULL; }
static void rlx__pool_destroy(const rlx_allocator* al, rlx__pool* p) { RLX__UNUSED(al); RLX__UNUSED(p); }
static int rlx__cpu_count(void) { return 1; }
#else
#  if defined(_WIN32)
typedef HANDLE rlx__thread;
typedef CRITICAL_SECTION rlx__mutex;
typedef CONDITION_VARIABLE rlx__cond;
#    define rlx__mutex_init(m) InitializeCriticalSection(m)
#    define rlx__mutex_destroy(m) DeleteCriticalSection(m)
#    define rlx__lock(m) EnterCriticalSection(m)
#    define rlx__unlock(m) LeaveCriticalSection(m)
#    define rlx__cond_init(c) InitializeConditionVariable(c)
#    define rlx__cond_destroy(c) ((void)(c))
#    define rlx__cond_wait(c, m) SleepConditionVariableCS(c, m, INFINITE)
#    define rlx__cond_broadcast(c) WakeAllConditionVariable(c)
static int rlx__cpu_count(void) { SYSTEM_INFO si; GetSystemInfo(&si); return (int)si.dwNumberOfProcessors; }
#  else
typedef pthread_t rlx__thread;
typedef pthread_mutex_t rlx__mutex;
typedef pthread_cond_t rlx__cond;
#    define rlx__mutex_init(m) pthread_mutex_init(m, NULL)
#    define rlx__mutex_destroy(m) pthread_mutex_destroy(m)
#    define rlx__lock(m) pthread_mutex_lock(m)
#    define rlx__unlock(m) pthread_mutex_unlock(m)
#    define rlx__cond_init(c) pthread_cond_init(c, NULL)
#    define rlx__cond_destroy(c) pthread_cond_destroy(c)
#    define rlx__cond_wait(c, m) pthread_cond_wait(c, m)
#    define rlx__cond_broadcast(c) pthread_cond_broadcast(c)
static int rlx__cpu_count(void) { long n = sysconf(_SC_NPROCESSORS_ONLN); return n > 0 ? (int)n : 1; }
#  endif

typedef struct rlx__worker { struct rlx__pool* pool; int index; } rlx__worker;

struct rlx__pool {
    int n;                         /* threads including the caller */
    rlx__thread th[RLX_MAX_THREADS];
    rlx__worker wk[RLX_MAX_THREADS];
    rlx__mutex mu;
    rlx__cond start, done;
    uint64_t gen;                  /* bumped for every parallel_for */
    int busy;                      /* workers still inside the current job */
    int quit;
    rlx__task_fn fn;
    void* ctx;
    int64_t ntasks, next;
    int running;                   /* a parallel_for owns the workers (shared pools) */
    void (*hook)(void*, int64_t, rlx_job_fn, void*);   /* the application's parallel_for; no workers then */
    void* user;
};

static int rlx__pool_threads(const rlx__pool* p) { return p ? p->n : 1; }

/* One parallel_for through the hook: lane i (one job of the application) takes tasks as thread i. */
typedef struct rlx__lanes {
    rlx__task_fn fn;
    void* ctx;
    int64_t ntasks, next, nlanes;
    rlx__mutex mu;
    unsigned char entered[RLX_MAX_THREADS];
} rlx__lanes;

static void rlx__lane_main(void* c, int64_t lane) {
    rlx__lanes* L = (rlx__lanes*)c;
    int ok;
    if (lane < 0 || lane >= L->nlanes) return;   /* not an index rlx.h handed out */
    rlx__lock(&L->mu);
    ok = !L->entered[lane];                      /* a lane runs once: its scratch slice has one user */
    L->entered[lane] = 1;
    rlx__unlock(&L->mu);
    if (!ok) return;
    for (;;) {
        int64_t t;
        rlx__lock(&L->mu);
        t = L->next < L->ntasks ? L->next++ : -1;
        rlx__unlock(&L->mu);
        if (t < 0) return;
        L->fn(L->ctx, t, (int)lane);
    }
}

static void rlx__hook_for(rlx__pool* p, int64_t ntasks, rlx__task_fn fn, void* ctx) {
    rlx__lanes L;
    int64_t t;
    L.fn = fn;
    L.ctx = ctx;
    L.ntasks = ntasks;
    L.next = 0;
    L.nlanes = RLX__MIN(ntasks, (int64_t)p->n);
    memset(L.entered, 0, sizeof L.entered);
    rlx__mutex_init(&L.mu);
    p->hook(p->user, L.nlanes, rlx__lane_main, &L);
    rlx__mutex_destroy(&L.mu);
    for (t = L.next; t < ntasks; t++) fn(ctx, t, 0);   /* what no lane took (a hook that skipped jobs) */
}

/* Take tasks until none are left. */
static void rlx__pool_drain(rlx__pool* p, int thread) {
    for (;;) {
        int64_t t;
        rlx__lock(&p->mu);
        t = p->next < p->ntasks ? p->next++ : -1;
        rlx__unlock(&p->mu);
        if (t < 0) return;
        p->fn(p->ctx, t, thread);
    }
}

#  if defined(_WIN32)
static DWORD WINAPI rlx__worker_main(LPVOID arg)
#  else
static void* rlx__worker_main(void* arg)
#  endif
{
    rlx__worker* w = (rlx__worker*)arg;
    rlx__pool* p = w->pool;
    uint64_t seen = 0;
    for (;;) {
        rlx__lock(&p->mu);
        while (p->gen == seen && !p->quit) rlx__cond_wait(&p->start, &p->mu);
        if (p->quit) { rlx__unlock(&p->mu); break; }
        seen = p->gen;
        rlx__unlock(&p->mu);
        rlx__pool_drain(p, w->index);
        rlx__lock(&p->mu);
        if (--p->busy == 0) rlx__cond_broadcast(&p->done);
        rlx__unlock(&p->mu);
    }
    return 0;
}

static void rlx__parallel_for(rlx__pool* p, int64_t ntasks, rlx__task_fn fn, void* ctx) {
    int64_t t;
    if (!p || p->n <= 1 || ntasks <= 1) {
        for (t = 0; t < ntasks; t++) fn(ctx, t, 0);
        return;
    }
    if (p->hook) { rlx__hook_for(p, ntasks, fn, ctx); return; }
    rlx__lock(&p->mu);
    if (p->running) {   /* another program's step owns the workers: run this one here */
        rlx__unlock(&p->mu);
        for (t = 0; t < ntasks; t++) fn(ctx, t, 0);
        return;
    }
    p->running = 1;
    p->fn = fn;
    p->ctx = ctx;
    p->ntasks = ntasks;
    p->next = 0;
    p->busy = p->n - 1;
    p->gen++;
    rlx__cond_broadcast(&p->start);
    rlx__unlock(&p->mu);
    rlx__pool_drain(p, 0);
    rlx__lock(&p->mu);
    while (p->busy > 0) rlx__cond_wait(&p->done, &p->mu);
    p->running = 0;
    rlx__unlock(&p->mu);
}

static void rlx__pool_destroy(const rlx_allocator* al, rlx__pool* p) {
    int i;
    if (!p) return;
    rlx__lock(&p->mu);
    p->quit = 1;
    rlx__cond_broadcast(&p->start);
    rlx__unlock(&p->mu);
    for (i = 1; i < p->n && !p->hook; i++) {
#  if defined(_WIN32)
        WaitForSingleObject(p->th[i], INFINITE);
        CloseHandle(p->th[i]);
#  else
        pthread_join(p->th[i], NULL);
#  endif
    }
    rlx__mutex_destroy(&p->mu);
    rlx__cond_destroy(&p->start);
    rlx__cond_destroy(&p->done);
    rlx__free(al, p);
}

/* n threads including the caller; returns NULL for n <= 1 (serial) or when threads cannot be made. */
static rlx__pool* rlx__pool_create(const rlx_allocator* al, int n) {
    rlx__pool* p;
    int i;
    if (n <= 1) return NULL;
    if (n > RLX_MAX_THREADS) n = RLX_MAX_THREADS;
    p = (rlx__pool*)rlx__calloc(al, sizeof *p);
    if (!p) return NULL;
    rlx__mutex_init(&p->mu);
    rlx__cond_init(&p->start);
    rlx__cond_init(&p->done);
    p->n = 1;
    for (i = 1; i < n; i++) {
        p->wk[i].pool = p;
        p->wk[i].index = i;
#  if defined(_WIN32)
        p->th[i] = CreateThread(NULL, 0, rlx__worker_main, &p->wk[i], 0, NULL);
        if (!p->th[i]) break;
#  else
        if (pthread_create(&p->th[i], NULL, rlx__worker_main, &p->wk[i]) != 0) break;
#  endif
        p->n++;
    }
    return p;
}

/* A pool without workers whose parallel_for calls the application's hook with up to n lanes. */
static rlx__pool* rlx__pool_hooked(const rlx_allocator* al, int n, void (*hook)(void*, int64_t, rlx_job_fn, void*), void* user) {
    rlx__pool* p = (rlx__pool*)rlx__calloc(al, sizeof *p);
    if (!p) return NULL;
    rlx__mutex_init(&p->mu);
    rlx__cond_init(&p->start);
    rlx__cond_init(&p->done);
    p->n = RLX__MAX(1, RLX__MIN(n, RLX_MAX_THREADS));
    p->hook = hook;
    p->user = user;
    return p;
}
#endif /* RLX_NO_THREADS */

/* pool when a loop of `work` element operations pays for waking threads, else NULL (run inline). */
static rlx__pool* rlx__pool_if(rlx__pool* p, double work) { return work >= (double)RLX_PARALLEL_MIN_WORK ? p : NULL; }

/* The public shared pool: a reference-counted rlx__pool (NULL with RLX_NO_THREADS or one thread). */
struct rlx_thread_pool {
    rlx_allocator al;
    int refs;                 /* the creator's reference + one per program */
    int n;
    rlx__pool* pool;
};
static void rlx__tp_release(rlx_thread_pool* tp) {
    rlx_allocator al;
    if (!tp || RLX__ATOMIC_ADD(&tp->refs, -1) > 0) return;
    al = tp->al;
    rlx__pool_destroy(&al, tp->pool);
    rlx__free(&al, tp);
}

/* ------------------------------------------------------------------------------------------------------------
   >>gemm  f32 matrix multiply  C[M,N] = A[M,K] · B[K,N]

   Operands are described by strides, so a transposed A or B costs nothing extra: packing reads any layout.

   Blocking (GotoBLAS/BLIS style, oriented for row-major C: vectors run along N, A values are broadcast):

       rlx__parallel_for over a tm x tn grid of rectangles of C (one task per thread, no two touch the same C)
         for jc in the task's columns, step NC
           for pc in K, step KC                  B~ = B[pc:+KC, jc:+NC] packed into NR-wide column panels,
             pack B~                                  kc x nc floats: stays in the core's L2
             for ir in the task's rows, step MR  A~ = A[ir:+MR, pc:+KC] packed as one MR-row panel,
               pack A~                                kc x MR floats: stays in L1 across the jr loop
               for jr in nc, step NR
                 microkernel: C[ir:+MR, jc+jr:+NR] (= on the first K block, += after) A~ · B~panel

   The microkernel keeps the MR x NR tile of C in registers: per k it loads NR/W vectors of B~ and broadcasts
   MR values of A~ (AVX-512: 8 x 32 in 16 zmm accumulators, AVX2+FMA: 6 x 16 in 12 ymm, NEON: 8 x 8,
   portable C: 4 x 16). Panels are zero-padded to MR/NR, so edge tiles run the same kernel and only the
   final store is masked (AVX-512) or goes through a small scratch tile.

   M == 1 (x·W, the decode case) and N == 1 (W·x) skip packing: rlx__sgemv streams W once, either as rows
   (axpy form, when W's columns are contiguous) or as columns (dot products, when W's rows are).

   f16 and bf16 (rlx__hgemm_with) run on the same kernels: operands are converted to f32 while they are packed
   (F16C where the CPU has it), C is accumulated in f32 in the workspace, and each task rounds its finished
   rectangle to the output dtype; M == 1 / N == 1 stream the half-float weight through converting GEMVs.
   8-bit integers (rlx__igemm_with, for matmul_integer) have their own packing and kernels (AVX-512 VNNI, AVX2,
   portable C) with exact int32 sums; they are described where they are defined, after the f32 driver.

   Dispatch: rlx__cpu_features() asks the CPU once per call (cheap) and rlx__sgemm picks the widest kernel.
   SIMD code is compiled with per-function target attributes, so no -mavx flags are needed; RLX_NO_SIMD or a
   compiler other than gcc/clang leaves only the portable C path. No memory is ever allocated: all scratch
   lives in the caller's workspace, one slice per thread (rlx__sgemm_workspace_bytes).
   ------------------------------------------------------------------------------------------------------------ */

enum { RLX__CPU_AVX2 = 1, RLX__CPU_AVX512 = 2, RLX__CPU_NEON = 4, RLX__CPU_F16C = 8, RLX__CPU_AVX512VNNI = 16 };

/* x86 SIMD needs gcc/clang (target attributes, __builtin_cpu_supports). Not with MSVC or clang-cl (no
   __builtin_cpu_supports runtime), nor with MinGW gcc (it spills 32/64-byte vectors to a 16-byte aligned stack). */
#if !defined(RLX_NO_SIMD) && (defined(__GNUC__) || defined(__clang__)) && !defined(_MSC_VER) &&                  \
    !(defined(_WIN32) && !defined(__clang__)) && (defined(__x86_64__) || defined(_M_X64))
#  define RLX__GEMM_X86 1
#  include <immintrin.h>
#  define RLX__TARGET_AVX2 __attribute__((target("avx2,fma")))
#  define RLX__TARGET_AVX512 __attribute__((target("avx2,fma,avx512f")))
#  define RLX__TARGET_F16C __attribute__((target("avx2,fma,f16c")))
#  define RLX__TARGET_VNNI __attribute__((target("avx2,fma,avx512f,avx512bw,avx512vnni")))
#  include <cpuid.h>
#elif !defined(RLX_NO_SIMD) && defined(__aarch64__) && defined(__ARM_NEON)
#  define RLX__GEMM_NEON 1
#  include <arm_neon.h>
#endif

/* Which SIMD kernels this CPU can run (RLX__CPU_* bits). AVX2 means AVX2 and FMA together; AVX512 implies
   AVX2. The gcc/clang builtins read a table the runtime fills at start-up (it also checks that the OS saves
   the wide registers), so this is a few loads and needs no cache of its own. */
static unsigned rlx__cpu_features(void) {
#if defined(RLX__GEMM_X86)
    unsigned f = 0;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        f |= RLX__CPU_AVX2;
        if (__builtin_cpu_supports("avx512f")) f |= RLX__CPU_AVX512;
        if ((f & RLX__CPU_AVX512) && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vnni"))
            f |= RLX__CPU_AVX512VNNI;
    }
    return f;
#elif defined(RLX__GEMM_NEON)
    return RLX__CPU_NEON;
#else
    return 0;
#endif
}

/* Name of the kernel family rlx__sgemm will use on this CPU. */
static const char* rlx__cpu_simd_name(void) {
    unsigned f = rlx__cpu_features();
    if (f & RLX__CPU_AVX512) return "AVX-512";
    if (f & RLX__CPU_AVX2) return "AVX2+FMA";
    if (f & RLX__CPU_NEON) return "NEON";
    return "scalar";
}

/* Microkernel: c[0:mr, 0:nr] (= if !acc, += if acc) sum over k < kc of a[k*MR + i] * b[k*NR + j], where a is a
   packed A panel and b a packed B panel (both zero-padded); mr <= MR, nr <= NR; c has row stride ldc. */
typedef void (*rlx__sgemm_kernel_fn)(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, int acc,
                                     int mr, int nr);
/* Packs `lines` (<= R) lines of kc elements into a panel of R lines: dst[k*R + r] = src[r*ls + k*ks], lines
   past `lines` are zero. A panels are rows of A (ls = rsa, ks = csa), B panels columns of B (ls = csb, ks =
   rsb). */
typedef void (*rlx__sgemm_pack_fn)(int R, int lines, int64_t kc, const float* src, int64_t ls, int64_t ks,
                                   float* dst);
/* y[n*incy] = sum over k < K of x[k*incx] * w[k*rsw + n*csw] for n < N, for one of the two fast layouts. */
typedef void (*rlx__sgemv_fn)(int64_t N, int64_t K, const float* x, int64_t incx, const float* w, int64_t rsw,
                              int64_t csw, float* y, int64_t incy);

/* One kernel family: register tile, cache blocks and the routines that go with them. */
typedef struct rlx__sgemm_impl {
    int mr, nr;                  /* register tile                                     */
    int64_t kc, nc;              /* K block and N block (nc is a multiple of nr)      */
    rlx__sgemm_kernel_fn kernel;
    rlx__sgemm_pack_fn pack;
    rlx__sgemv_fn gemv_rows;     /* w rows contiguous (csw == 1): axpy form           */
    rlx__sgemv_fn gemv_cols;     /* w columns contiguous (rsw == 1, incx == 1): dots  */
} rlx__sgemm_impl;

static int64_t rlx__gemm_min(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t rlx__gemm_cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* ---- portable C ------------------------------------------------------------------------------------------ */

/* Generic packer for any strides (see rlx__sgemm_pack_fn). */
static void rlx__sgemm_pack_c(int R, int lines, int64_t kc, const float* src, int64_t ls, int64_t ks, float* dst) {
    int64_t k;
    int r;
    if (ks == 1) {                       /* each line contiguous in k: read line by line */
        for (r = 0; r < lines; ++r) {
            const float* s = src + r * ls;
            for (k = 0; k < kc; ++k) dst[k * R + r] = s[k];
        }
    } else {
        for (k = 0; k < kc; ++k) {
            const float* s = src + k * ks;
            for (r = 0; r < lines; ++r) dst[k * R + r] = s[r * ls];
        }
    }
    if (lines < R)
        for (k = 0; k < kc; ++k)
            for (r = lines; r < R; ++r) dst[k * R + r] = 0.0f;
}

#define RLX__SGEMM_C_MR 4
#define RLX__SGEMM_C_NR 16

/* Portable 4 x 16 microkernel; plain loops over small fixed bounds that compilers vectorise on their own. */
static void rlx__sgemm_kernel_c(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, int acc, int mr,
                                int nr) {
    float t[RLX__SGEMM_C_MR][RLX__SGEMM_C_NR];
    int64_t k;
    int i, j;
    for (i = 0; i < RLX__SGEMM_C_MR; ++i)
        for (j = 0; j < RLX__SGEMM_C_NR; ++j) t[i][j] = 0.0f;
    for (k = 0; k < kc; ++k) {
        const float* ak = a + k * RLX__SGEMM_C_MR;
        const float* bk = b + k * RLX__SGEMM_C_NR;
        for (i = 0; i < RLX__SGEMM_C_MR; ++i) {
            float av = ak[i];
            for (j = 0; j < RLX__SGEMM_C_NR; ++j) t[i][j] += av * bk[j];
        }
    }
    for (i = 0; i < mr; ++i) {
        float* ci = c + i * ldc;
        if (acc)
            for (j = 0; j < nr; ++j) ci[j] += t[i][j];
        else
            for (j = 0; j < nr; ++j) ci[j] = t[i][j];
    }
}

/* Columns per pass of the row-form GEMV: the partial sums of one pass (16 KB) stay in L1 while the K rows stream
   by. They are kept in y itself when y is contiguous, else in a small local buffer (passes of 512 columns). */
#define RLX__GEMV_NB 4096
#define RLX__GEMV_NB_STRIDED 512

/* GEMV, rows of w contiguous: y = sum_k x[k] * w[k, :]. Each pass over RLX__GEMV_NB columns walks K four rows at a
   time, so W is read as a few long sequential streams. */
static void rlx__sgemv_rows_c(int64_t N, int64_t K, const float* x, int64_t incx, const float* w, int64_t rsw,
                              int64_t csw, float* y, int64_t incy) {
    float t[RLX__GEMV_NB_STRIDED];
    int64_t n0, k, j, step = incy == 1 ? RLX__GEMV_NB : RLX__GEMV_NB_STRIDED;
    (void)csw;
    for (n0 = 0; n0 < N; n0 += step) {
        int64_t nb = rlx__gemm_min(step, N - n0);
        float* acc = incy == 1 ? y + n0 : t;
        for (j = 0; j < nb; ++j) acc[j] = 0.0f;
        for (k = 0; k + 4 <= K; k += 4) {
            const float* w0 = w + k * rsw + n0;
            const float* w1 = w0 + rsw;
            const float* w2 = w1 + rsw;
            const float* w3 = w2 + rsw;
            float x0 = x[k * incx], x1 = x[(k + 1) * incx], x2 = x[(k + 2) * incx], x3 = x[(k + 3) * incx];
            for (j = 0; j < nb; ++j) acc[j] += x0 * w0[j] + x1 * w1[j] + x2 * w2[j] + x3 * w3[j];
        }
        for (; k < K; ++k) {
            const float* w0 = w + k * rsw + n0;
            float x0 = x[k * incx];
            for (j = 0; j < nb; ++j) acc[j] += x0 * w0[j];
        }
        if (incy != 1)
            for (j = 0; j < nb; ++j) y[(n0 + j) * incy] = t[j];
    }
}

/* GEMV, columns of w contiguous and x contiguous: y[n] = dot(x, w[:, n]) with 4 partial sums. */
static void rlx__sgemv_cols_c(int64_t N, int64_t K, const float* x, int64_t incx, const float* w, int64_t rsw,
                              int64_t csw, float* y, int64_t incy) {
    int64_t n, k;
    (void)incx; (void)rsw;
    for (n = 0; n < N; ++n) {
        const float* wn = w + n * csw;
        float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
        for (k = 0; k + 4 <= K; k += 4) {
            s0 += x[k] * wn[k]; s1 += x[k + 1] * wn[k + 1];
            s2 += x[k + 2] * wn[k + 2]; s3 += x[k + 3] * wn[k + 3];
        }
        for (; k < K; ++k) s0 += x[k] * wn[k];
        y[n * incy] = (s0 + s1) + (s2 + s3);
    }
}

/* ---- x86: AVX2+FMA and AVX-512 ---------------------------------------------------------------------------- */
#if defined(RLX__GEMM_X86)

/* Stores the first n (1..8) lanes of v at p. */
RLX__TARGET_AVX2
static void rlx__store_first_avx2(float* p, __m256 v, int n) {
    __m128 h;
    if (n == 8) { _mm256_storeu_ps(p, v); return; }
    h = _mm256_castps256_ps128(v);
    if (n >= 4) { _mm_storeu_ps(p, h); h = _mm256_extractf128_ps(v, 1); p += 4; n -= 4; }
    if (n >= 2) { _mm_storel_pi((__m64*)(void*)p, h); h = _mm_movehl_ps(h, h); p += 2; n -= 2; }
    if (n) _mm_store_ss(p, h);
}

/* Packer with AVX: lines contiguous in k (row-major A, or a transposed B) go through 8x4 transposes, 8 lines at
   a time (a last group of fewer lines repeats its last line and stores only its own lanes); lines contiguous
   across r (row-major B) are plain vector copies. Anything else uses the portable packer. */
RLX__TARGET_AVX2
static void rlx__sgemm_pack_avx2(int R, int lines, int64_t kc, const float* src, int64_t ls, int64_t ks,
                                 float* dst) {
    int64_t k;
    if (ks == 1 && kc >= 4) {
        int r0, r, q;
        for (r0 = 0; r0 < R; r0 += 8) {
            int nl = lines - r0 < 0 ? 0 : lines - r0 < 8 ? lines - r0 : 8;   /* real lines in this group  */
            int width = R - r0 < 8 ? R - r0 : 8;                              /* lanes stored per k         */
            float* d = dst + r0;
            if (nl == 0) {
                for (k = 0; k < kc; ++k) rlx__store_first_avx2(d + k * R, _mm256_setzero_ps(), width);
            } else {
                const float* s[8];
                __m256 keep = _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(nl),
                                                                     _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)));
                for (q = 0; q < 8; ++q) s[q] = src + (int64_t)(r0 + (q < nl ? q : nl - 1)) * ls;
                for (k = 0; k + 4 <= kc; k += 4) {   /* 8 lines x 4 k: two 4x4 transposes side by side */
                    __m256 v0 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(s[0] + k)), _mm_loadu_ps(s[4] + k), 1);
                    __m256 v1 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(s[1] + k)), _mm_loadu_ps(s[5] + k), 1);
                    __m256 v2 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(s[2] + k)), _mm_loadu_ps(s[6] + k), 1);
                    __m256 v3 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(s[3] + k)), _mm_loadu_ps(s[7] + k), 1);
                    __m256 t0 = _mm256_unpacklo_ps(v0, v1), t1 = _mm256_unpackhi_ps(v0, v1);
                    __m256 t2 = _mm256_unpacklo_ps(v2, v3), t3 = _mm256_unpackhi_ps(v2, v3);
                    float* dk = d + k * R;
                    v0 = _mm256_shuffle_ps(t0, t2, 0x44); v1 = _mm256_shuffle_ps(t0, t2, 0xEE);
                    v2 = _mm256_shuffle_ps(t1, t3, 0x44); v3 = _mm256_shuffle_ps(t1, t3, 0xEE);
                    if (nl == 8 && width == 8) {
                        _mm256_storeu_ps(dk, v0); _mm256_storeu_ps(dk + R, v1);
                        _mm256_storeu_ps(dk + 2 * R, v2); _mm256_storeu_ps(dk + 3 * R, v3);
                    } else if (width == 8) {   /* lanes past the real lines become the zero padding */
                        _mm256_storeu_ps(dk, _mm256_and_ps(v0, keep));
                        _mm256_storeu_ps(dk + R, _mm256_and_ps(v1, keep));
                        _mm256_storeu_ps(dk + 2 * R, _mm256_and_ps(v2, keep));
                        _mm256_storeu_ps(dk + 3 * R, _mm256_and_ps(v3, keep));
                    } else if (width == 4) {
                        _mm_storeu_ps(dk, _mm256_castps256_ps128(_mm256_and_ps(v0, keep)));
                        _mm_storeu_ps(dk + R, _mm256_castps256_ps128(_mm256_and_ps(v1, keep)));
                        _mm_storeu_ps(dk + 2 * R, _mm256_castps256_ps128(_mm256_and_ps(v2, keep)));
                        _mm_storeu_ps(dk + 3 * R, _mm256_castps256_ps128(_mm256_and_ps(v3, keep)));
                    } else if (width == 6) {
#define RLX__PACK_STORE6(p, v) _mm_storeu_ps(p, _mm256_castps256_ps128(v));                                        \
                               _mm_storel_pi((__m64*)(void*)((p) + 4), _mm256_extractf128_ps(v, 1));
                        RLX__PACK_STORE6(dk, _mm256_and_ps(v0, keep))
                        RLX__PACK_STORE6(dk + R, _mm256_and_ps(v1, keep))
                        RLX__PACK_STORE6(dk + 2 * R, _mm256_and_ps(v2, keep))
                        RLX__PACK_STORE6(dk + 3 * R, _mm256_and_ps(v3, keep))
#undef RLX__PACK_STORE6
                    } else {
                        rlx__store_first_avx2(dk, _mm256_and_ps(v0, keep), width);
                        rlx__store_first_avx2(dk + R, _mm256_and_ps(v1, keep), width);
                        rlx__store_first_avx2(dk + 2 * R, _mm256_and_ps(v2, keep), width);
                        rlx__store_first_avx2(dk + 3 * R, _mm256_and_ps(v3, keep), width);
                    }
                }
                for (; k < kc; ++k)
                    for (r = 0; r < width; ++r) d[k * R + r] = r < nl ? s[r][k] : 0.0f;
            }
        }
        return;
    }
    if (lines == R && ls == 1 && R % 8 == 0) {
        for (k = 0; k < kc; ++k) {
            const float* s = src + k * ks;
            float* d = dst + k * R;
            int r;
            for (r = 0; r < R; r += 8) _mm256_storeu_ps(d + r, _mm256_loadu_ps(s + r));
        }
        return;
    }
    rlx__sgemm_pack_c(R, lines, kc, src, ls, ks, dst);
}

/* Row lists for the register tiles: X(i) once per row of the microkernel. */
#define RLX__ROWS6(X) X(0) X(1) X(2) X(3) X(4) X(5)
#define RLX__ROWS8(X) RLX__ROWS6(X) X(6) X(7)

/* AVX2+FMA 6 x 16 microkernel: 12 ymm accumulators, 2 ymm of B and one broadcast of A per row and k. */
#define RLX__Y_MR 6
#define RLX__Y_NR 16
#define RLX__Y_ZERO(i) __m256 c##i##_0 = _mm256_setzero_ps(), c##i##_1 = _mm256_setzero_ps();
#define RLX__Y_FMA(i) { __m256 t_ = _mm256_broadcast_ss(ak + (i));                                                  \
                        c##i##_0 = _mm256_fmadd_ps(t_, b0, c##i##_0); c##i##_1 = _mm256_fmadd_ps(t_, b1, c##i##_1); }
#define RLX__Y_STEP(u) { const float* ak = a + (u) * RLX__Y_MR;                                                     \
                         __m256 b0 = _mm256_loadu_ps(b + (u) * RLX__Y_NR), b1 = _mm256_loadu_ps(b + (u) * RLX__Y_NR + 8); \
                         RLX__ROWS6(RLX__Y_FMA) }
#define RLX__Y_STORE(i) { float* r_ = c + (i) * ldc;                                                              \
                          if (acc) { c##i##_0 = _mm256_add_ps(c##i##_0, _mm256_loadu_ps(r_));                      \
                                     c##i##_1 = _mm256_add_ps(c##i##_1, _mm256_loadu_ps(r_ + 8)); }                 \
                          _mm256_storeu_ps(r_, c##i##_0); _mm256_storeu_ps(r_ + 8, c##i##_1); }
#define RLX__Y_SPILL(i) _mm256_storeu_ps(t + (i) * RLX__Y_NR, c##i##_0); _mm256_storeu_ps(t + (i) * RLX__Y_NR + 8, c##i##_1);
#define RLX__Y_PREFETCH(i) _mm_prefetch((const char*)(c + (i) * ldc), _MM_HINT_T0);                                 \
                           _mm_prefetch((const char*)(c + (i) * ldc + RLX__Y_NR - 1), _MM_HINT_T0);

RLX__TARGET_AVX2
static void rlx__sgemm_kernel_avx2(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, int acc,
                                   int mr, int nr) {
    int64_t k;
    RLX__ROWS6(RLX__Y_ZERO)
    if (mr == RLX__Y_MR && nr == RLX__Y_NR) { RLX__ROWS6(RLX__Y_PREFETCH) }
    for (k = 0; k + 4 <= kc; k += 4) {
        RLX__Y_STEP(0) RLX__Y_STEP(1) RLX__Y_STEP(2) RLX__Y_STEP(3)
        a += 4 * RLX__Y_MR;
        b += 4 * RLX__Y_NR;
    }
    for (; k < kc; ++k) {
        RLX__Y_STEP(0)
        a += RLX__Y_MR;
        b += RLX__Y_NR;
    }
    if (mr == RLX__Y_MR && nr == RLX__Y_NR) {
        RLX__ROWS6(RLX__Y_STORE)
    } else {                                   /* edge tile: through a scratch tile */
        float t[RLX__Y_MR * RLX__Y_NR];
        int i, j;
        RLX__ROWS6(RLX__Y_SPILL)
        for (i = 0; i < mr; ++i) {
            float* ci = c + i * ldc;
            const float* ti = t + i * RLX__Y_NR;
            if (acc)
                for (j = 0; j < nr; ++j) ci[j] += ti[j];
            else
                for (j = 0; j < nr; ++j) ci[j] = ti[j];
        }
    }
}

/* Sum of the 8 lanes of v. */
RLX__TARGET_AVX2
static float rlx__hsum_avx2(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

/* GEMV with rows of w contiguous (see rlx__sgemv_rows_c): 8 rows of W per step, 32 columns in 4 ymm sums. */
#define RLX__GV8(OP) OP(0) OP(1) OP(2) OP(3) OP(4) OP(5) OP(6) OP(7)
#define RLX__GVY_X(r) __m256 x##r = _mm256_broadcast_ss(x + (k + r) * incx);
#define RLX__GVY_ROW(r) { const float* wr = w0 + (r) * rsw + j;                                                    \
        a0 = _mm256_fmadd_ps(x##r, _mm256_loadu_ps(wr), a0); a1 = _mm256_fmadd_ps(x##r, _mm256_loadu_ps(wr + 8), a1); \
        a2 = _mm256_fmadd_ps(x##r, _mm256_loadu_ps(wr + 16), a2); a3 = _mm256_fmadd_ps(x##r, _mm256_loadu_ps(wr + 24), a3); }
#define RLX__GVY_ROW1(r) a0 = _mm256_fmadd_ps(x##r, _mm256_loadu_ps(w0 + (r) * rsw + j), a0);
RLX__TARGET_AVX2
static void rlx__sgemv_rows_avx2(int64_t N, int64_t K, const float* x, int64_t incx, const float* w, int64_t rsw,
                                 int64_t csw, float* y, int64_t incy) {
    float t[RLX__GEMV_NB_STRIDED];
    int64_t n0, k, j, r, step = incy == 1 ? RLX__GEMV_NB : RLX__GEMV_NB_STRIDED;
    (void)csw;
    for (n0 = 0; n0 < N; n0 += step) {
        int64_t nb = rlx__gemm_min(step, N - n0), nv = nb & ~(int64_t)7;
        float* acc = incy == 1 ? y + n0 : t;
        for (j = 0; j < nb; ++j) acc[j] = 0.0f;
        for (k = 0; k + 8 <= K; k += 8) {
            const float* w0 = w + k * rsw + n0;
            RLX__GV8(RLX__GVY_X)
            for (j = 0; j + 32 <= nv; j += 32) {
                __m256 a0 = _mm256_loadu_ps(acc + j), a1 = _mm256_loadu_ps(acc + j + 8);
                __m256 a2 = _mm256_loadu_ps(acc + j + 16), a3 = _mm256_loadu_ps(acc + j + 24);
                RLX__GV8(RLX__GVY_ROW)
                _mm256_storeu_ps(acc + j, a0); _mm256_storeu_ps(acc + j + 8, a1);
                _mm256_storeu_ps(acc + j + 16, a2); _mm256_storeu_ps(acc + j + 24, a3);
            }
            for (; j < nv; j += 8) {
                __m256 a0 = _mm256_loadu_ps(acc + j);
                RLX__GV8(RLX__GVY_ROW1)
                _mm256_storeu_ps(acc + j, a0);
            }
            for (; j < nb; ++j)
                for (r = 0; r < 8; ++r) acc[j] += x[(k + r) * incx] * w0[r * rsw + j];
        }
        for (; k < K; ++k) {
            const float* w0 = w + k * rsw + n0;
            __m256 x0 = _mm256_broadcast_ss(x + k * incx);
            for (j = 0; j < nv; j += 8) {
                __m256 a0 = _mm256_loadu_ps(acc + j);
                RLX__GVY_ROW1(0)
                _mm256_storeu_ps(acc + j, a0);
            }
            for (; j < nb; ++j) acc[j] += x[k * incx] * w0[j];
        }
        if (incy != 1)
            for (j = 0; j < nb; ++j) y[(n0 + j) * incy] = t[j];
    }
}

/* GEMV with columns of w contiguous and x contiguous: 4 dot products at a time, 8 lanes each. */
RLX__TARGET_AVX2
static void rlx__sgemv_cols_avx2(int64_t N, int64_t K, const float* x, int64_t incx, const float* w, int64_t rsw,
                                 int64_t csw, float* y, int64_t incy) {
    int64_t n = 0, k;
    (void)incx; (void)rsw;
    for (; n + 4 <= N; n += 4) {
        const float* w0 = w + n * csw;
        const float* w1 = w0 + csw;
        const float* w2 = w1 + csw;
        const float* w3 = w2 + csw;
        __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps(), s2 = _mm256_setzero_ps(), s3 = _mm256_setzero_ps();
        float r0, r1, r2, r3;
        for (k = 0; k + 8 <= K; k += 8) {
            __m256 xv = _mm256_loadu_ps(x + k);
            s0 = _mm256_fmadd_ps(xv, _mm256_loadu_ps(w0 + k), s0);
            s1 = _mm256_fmadd_ps(xv, _mm256_loadu_ps(w1 + k), s1);
            s2 = _mm256_fmadd_ps(xv, _mm256_loadu_ps(w2 + k), s2);
            s3 = _mm256_fmadd_ps(xv, _mm256_loadu_ps(w3 + k), s3);
        }
        r0 = rlx__hsum_avx2(s0); r1 = rlx__hsum_avx2(s1); r2 = rlx__hsum_avx2(s2); r3 = rlx__hsum_avx2(s3);
        for (; k < K; ++k) { r0 += x[k] * w0[k]; r1 += x[k] * w1[k]; r2 += x[k] * w2[k]; r3 += x[k] * w3[k]; }
        y[n * incy] = r0; y[(n + 1) * incy] = r1; y[(n + 2) * incy] = r2; y[(n + 3) * incy] = r3;
    }
    if (n < N) rlx__sgemv_cols_c(N - n, K, x, 1, w + n * csw, 1, csw, y + n * incy, incy);
}

/* AVX-512 8 x 32 microkernel: 16 zmm accumulators, 2 zmm of B and one broadcast of A per row and k; edge tiles
   store through lane masks. (8 rows measured faster than 12 or 14 on Zen 4, and wastes less on small M.) */
#define RLX__Z_MR 8
#define RLX__Z_NR 32
#define RLX__Z_ROWS RLX__ROWS8
#define RLX__Z_ZERO(i) __m512 c##i##_0 = _mm512_setzero_ps(), c##i##_1 = _mm512_setzero_ps();
#define RLX__Z_FMA(i) { __m512 t_ = _mm512_set1_ps(ak[i]);                                                          \
                        c##i##_0 = _mm512_fmadd_ps(t_, b0, c##i##_0); c##i##_1 = _mm512_fmadd_ps(t_, b1, c##i##_1); }
#define RLX__Z_STEP(u) { const float* ak = a + (u) * RLX__Z_MR;                                                     \
                         __m512 b0 = _mm512_loadu_ps(b + (u) * RLX__Z_NR), b1 = _mm512_loadu_ps(b + (u) * RLX__Z_NR + 16); \
                         RLX__Z_ROWS(RLX__Z_FMA) }
#define RLX__Z_STORE(i) { float* r_ = c + (i) * ldc;                                                              \
                          if (acc) { c##i##_0 = _mm512_add_ps(c##i##_0, _mm512_loadu_ps(r_));                      \
                                     c##i##_1 = _mm512_add_ps(c##i##_1, _mm512_loadu_ps(r_ + 16)); }                \
                          _mm512_storeu_ps(r_, c##i##_0); _mm512_storeu_ps(r_ + 16, c##i##_1); }
#define RLX__Z_STORE_MASKED(i) if ((i) < mr) { float* r_ = c + (i) * ldc;                                         \
                          if (acc) { c##i##_0 = _mm512_add_ps(c##i##_0, _mm512_maskz_loadu_ps(m0, r_));             \
                                     c##i##_1 = _mm512_add_ps(c##i##_1, _mm512_maskz_loadu_ps(m1, r_ + 16)); }      \
                          _mm512_mask_storeu_ps(r_, m0, c##i##_0); _mm512_mask_storeu_ps(r_ + 16, m1, c##i##_1); }
#define RLX__Z_PREFETCH(i) _mm_prefetch((const char*)(c + (i) * ldc), _MM_HINT_T0);                                 \
                           _mm_prefetch((const char*)(c + (i) * ldc + RLX__Z_NR - 1), _MM_HINT_T0);

RLX__TARGET_AVX512
static void rlx__sgemm_kernel_avx512(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, int acc,
                                     int mr, int nr) {
    int64_t k;
    RLX__Z_ROWS(RLX__Z_ZERO)
    if (mr == RLX__Z_MR && nr == RLX__Z_NR) { RLX__Z_ROWS(RLX__Z_PREFETCH) }
    for (k = 0; k + 4 <= kc; k += 4) {
        RLX__Z_STEP(0) RLX__Z_STEP(1) RLX__Z_STEP(2) RLX__Z_STEP(3)
        a += 4 * RLX__Z_MR;
        b += 4 * RLX__Z_NR;
    }
    for (; k < kc; ++k) {
        RLX__Z_STEP(0)
        a += RLX__Z_MR;
        b += RLX__Z_NR;
    }
    if (mr == RLX__Z_MR && nr == RLX__Z_NR) {
        RLX__Z_ROWS(RLX__Z_STORE)
    } else {
        __mmask16 m0 = (__mmask16)(nr >= 16 ? 0xFFFFu : (1u << nr) - 1u);
        __mmask16 m1 = (__mmask16)(nr >= 32 ? 0xFFFFu : nr > 16 ? (1u << (nr - 16)) - 1u : 0u);
        RLX__Z_ROWS(RLX__Z_STORE_MASKED)
    }
}

/* Packer for the AVX-512 tiles: full 32-wide B panels of a row-major B are two zmm copies per k; everything
   else goes to the AVX packer. */
RLX__TARGET_AVX512
static void rlx__sgemm_pack_avx512(int R, int lines, int64_t kc, const float* src, int64_t ls, int64_t ks,
                                   float* dst) {
    int64_t k;
    if (lines == R && ls == 1 && R == 32) {
        for (k = 0; k < kc; ++k) {
            const float* s = src + k * ks;
            _mm512_storeu_ps(dst + k * 32, _mm512_loadu_ps(s));
            _mm512_storeu_ps(dst + k * 32 + 16, _mm512_loadu_ps(s + 16));
        }
        return;
    }
    rlx__sgemm_pack_avx2(R, lines, kc, src, ls, ks, dst);
}

/* GEMV with rows of w contiguous (see rlx__sgemv_rows_c): 8 rows of W per step, 64 columns in 4 zmm sums, a
   masked vector at the end of a pass. */
#define RLX__GVZ_X(r) __m512 x##r = _mm512_set1_ps(x[(k + r) * incx]);
#define RLX__GVZ_ROW(r) { const float* wr = w0 + (r) * rsw + j;                                                    \
        a0 = _mm512_fmadd_ps(x##r, _mm512_loadu_ps(wr), a0); a1 = _mm512_fmadd_ps(x##r, _mm512_loadu_ps(wr + 16), a1); \
        a2 = _mm512_fmadd_ps(x##r, _mm512_loadu_ps(wr + 32), a2); a3 = _mm512_fmadd_ps(x##r, _mm512_loadu_ps(wr + 48), a3); }
#define RLX__GVZ_ROW1(r) a0 = _mm512_fmadd_ps(x##r, _mm512_maskz_loadu_ps(m, w0 + (r) * rsw + j), a0);
RLX__TARGET_AVX512
static void rlx__sgemv_rows_avx512(int64_t N, int64_t K, const float* x, int64_t incx, const float* w, int64_t rsw,
                                   int64_t csw, float* y, int64_t incy) {
    float t[RLX__GEMV_NB_STRIDED];
    int64_t n0, k, j, step = incy == 1 ? RLX__GEMV_NB : RLX__GEMV_NB_STRIDED;
    (void)csw;
    for (n0 = 0; n0 < N; n0 += step) {
        int64_t nb = rlx__gemm_min(step, N - n0);
        float* acc = incy == 1 ? y + n0 : t;
        for (j = 0; j < nb; ++j) acc[j] = 0.0f;
        for (k = 0; k + 8 <= K; k += 8) {
            const float* w0 = w + k * rsw + n0;
            RLX__GV8(RLX__GVZ_X)
            for (j = 0; j + 64 <= nb; j += 64) {
                __m512 a0 = _mm512_loadu_ps(acc + j), a1 = _mm512_loadu_ps(acc + j + 16);
                __m512 a2 = _mm512_loadu_ps(acc + j + 32), a3 = _mm512_loadu_ps(acc + j + 48);
                RLX__GV8(RLX__GVZ_ROW)
                _mm512_storeu_ps(acc + j, a0); _mm512_storeu_ps(acc + j + 16, a1);
                _mm512_storeu_ps(acc + j + 32, a2); _mm512_storeu_ps(acc + j + 48, a3);
            }
            for (; j < nb; j += 16) {
                __mmask16 m = (__mmask16)(nb - j >= 16 ? 0xFFFFu : (1u << (nb - j)) - 1u);
                __m512 a0 = _mm512_maskz_loadu_ps(m, acc + j);
                RLX__GV8(RLX__GVZ_ROW1)
                _mm512_mask_storeu_ps(acc + j, m, a0);
            }
        }
        for (; k < K; ++k) {
            const float* w0 = w + k * rsw + n0;
            __m512 x0 = _mm512_set1_ps(x[k * incx]);
            for (j = 0; j < nb; j += 16) {
                __mmask16 m = (__mmask16)(nb - j >= 16 ? 0xFFFFu : (1u << (nb - j)) - 1u);
                __m512 a0 = _mm512_maskz_loadu_ps(m, acc + j);
                RLX__GVZ_ROW1(0)
                _mm512_mask_storeu_ps(acc + j, m, a0);
            }
        }
        if (incy != 1)
            for (j = 0; j < nb; ++j) y[(n0 + j) * incy] = t[j];
    }
}

/* Sum of the 16 lanes of v (through memory: g++ 12 warns inside _mm512_reduce_add_ps). */
RLX__TARGET_AVX512
static float rlx__hsum_avx512(__m512 v) {
    float t[16];
    _mm512_storeu_ps(t, v);
    return (((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7]))) +
           (((t[8] + t[9]) + (t[10] + t[11])) + ((t[12] + t[13]) + (t[14] + t[15])));
}

/* GEMV with columns of w contiguous and x contiguous: 4 dot products at a time, 16 lanes each, masked k tail. */
RLX__TARGET_AVX512
static void rlx__sgemv_cols_avx512(int64_t N, int64_t K, const float* x, int64_t incx, const float* w,
                                   int64_t rsw, int64_t csw, float* y, int64_t incy) {
    int64_t n = 0, k;
    int kt = (int)(K % 16);
    __mmask16 mt = (__mmask16)((1u << kt) - 1u);
    (void)incx; (void)rsw;
    for (; n < N; n += 4) {
        int nn = (int)rlx__gemm_min(4, N - n), q;
        const float* w0 = w + n * csw;
        const float* w1 = nn > 1 ? w0 + csw : w0;        /* a short group repeats its first column */
        const float* w2 = nn > 2 ? w0 + 2 * csw : w0;
        const float* w3 = nn > 3 ? w0 + 3 * csw : w0;
        __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps(), s2 = _mm512_setzero_ps(), s3 = _mm512_setzero_ps();
        float r[4];
        for (k = 0; k + 16 <= K; k += 16) {
            __m512 xv = _mm512_loadu_ps(x + k);
            s0 = _mm512_fmadd_ps(xv, _mm512_loadu_ps(w0 + k), s0);
            s1 = _mm512_fmadd_ps(xv, _mm512_loadu_ps(w1 + k), s1);
            s2 = _mm512_fmadd_ps(xv, _mm512_loadu_ps(w2 + k), s2);
            s3 = _mm512_fmadd_ps(xv, _mm512_loadu_ps(w3 + k), s3);
        }
        if (kt) {
            __m512 xv = _mm512_maskz_loadu_ps(mt, x + k);
            s0 = _mm512_fmadd_ps(xv, _mm512_maskz_loadu_ps(mt, w0 + k), s0);
            s1 = _mm512_fmadd_ps(xv, _mm512_maskz_loadu_ps(mt, w1 + k), s1);
            s2 = _mm512_fmadd_ps(xv, _mm512_maskz_loadu_ps(mt, w2 + k), s2);
            s3 = _mm512_fmadd_ps(xv, _mm512_maskz_loadu_ps(mt, w3 + k), s3);
        }
        r[0] = rlx__hsum_avx512(s0); r[1] = rlx__hsum_avx512(s1);
        r[2] = rlx__hsum_avx512(s2); r[3] = rlx__hsum_avx512(s3);
        for (q = 0; q < nn; ++q) y[(n + q) * incy] = r[q];
    }
}

#endif /* RLX__GEMM_X86 */

/* ---- aarch64: NEON ---------------------------------------------------------------------------------------- */
#if defined(RLX__GEMM_NEON)

/* NEON 8 x 8 microkernel: 16 q-register accumulators; per k, 2 vectors of B and 2 of A (used lane by lane). */
#define RLX__N_MR 8
#define RLX__N_NR 8
static void rlx__sgemm_kernel_neon(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, int acc,
                                   int mr, int nr) {
    float32x4_t c0_0 = vdupq_n_f32(0.0f), c0_1 = c0_0, c1_0 = c0_0, c1_1 = c0_0, c2_0 = c0_0, c2_1 = c0_0;
    float32x4_t c3_0 = c0_0, c3_1 = c0_0, c4_0 = c0_0, c4_1 = c0_0, c5_0 = c0_0, c5_1 = c0_0;
    float32x4_t c6_0 = c0_0, c6_1 = c0_0, c7_0 = c0_0, c7_1 = c0_0;
    float t[RLX__N_MR * RLX__N_NR];
    int64_t k;
    int i, j;
    for (k = 0; k < kc; ++k) {
        float32x4_t a0 = vld1q_f32(a), a1 = vld1q_f32(a + 4);
        float32x4_t b0 = vld1q_f32(b), b1 = vld1q_f32(b + 4);
        c0_0 = vfmaq_laneq_f32(c0_0, b0, a0, 0); c0_1 = vfmaq_laneq_f32(c0_1, b1, a0, 0);
        c1_0 = vfmaq_laneq_f32(c1_0, b0, a0, 1); c1_1 = vfmaq_laneq_f32(c1_1, b1, a0, 1);
        c2_0 = vfmaq_laneq_f32(c2_0, b0, a0, 2); c2_1 = vfmaq_laneq_f32(c2_1, b1, a0, 2);
        c3_0 = vfmaq_laneq_f32(c3_0, b0, a0, 3); c3_1 = vfmaq_laneq_f32(c3_1, b1, a0, 3);
        c4_0 = vfmaq_laneq_f32(c4_0, b0, a1, 0); c4_1 = vfmaq_laneq_f32(c4_1, b1, a1, 0);
        c5_0 = vfmaq_laneq_f32(c5_0, b0, a1, 1); c5_1 = vfmaq_laneq_f32(c5_1, b1, a1, 1);
        c6_0 = vfmaq_laneq_f32(c6_0, b0, a1, 2); c6_1 = vfmaq_laneq_f32(c6_1, b1, a1, 2);
        c7_0 = vfmaq_laneq_f32(c7_0, b0, a1, 3); c7_1 = vfmaq_laneq_f32(c7_1, b1, a1, 3);
        a += RLX__N_MR;
        b += RLX__N_NR;
    }
    vst1q_f32(t + 0, c0_0); vst1q_f32(t + 4, c0_1); vst1q_f32(t + 8, c1_0); vst1q_f32(t + 12, c1_1);
    vst1q_f32(t + 16, c2_0); vst1q_f32(t + 20, c2_1); vst1q_f32(t + 24, c3_0); vst1q_f32(t + 28, c3_1);
    vst1q_f32(t + 32, c4_0); vst1q_f32(t + 36, c4_1); vst1q_f32(t + 40, c5_0); vst1q_f32(t + 44, c5_1);
    vst1q_f32(t + 48, c6_0); vst1q_f32(t + 52, c6_1); vst1q_f32(t + 56, c7_0); vst1q_f32(t + 60, c7_1);
    for (i = 0; i < mr; ++i) {
        float* ci = c + i * ldc;
        const float* ti = t + i * RLX__N_NR;
        if (nr == RLX__N_NR) {
            float32x4_t v0 = vld1q_f32(ti), v1 = vld1q_f32(ti + 4);
            if (acc) { v0 = vaddq_f32(v0, vld1q_f32(ci)); v1 = vaddq_f32(v1, vld1q_f32(ci + 4)); }
            vst1q_f32(ci, v0); vst1q_f32(ci + 4, v1);
        } else if (acc) {
            for (j = 0; j < nr; ++j) ci[j] += ti[j];
        } else {
            for (j = 0; j < nr; ++j) ci[j] = ti[j];
        }
    }
}
#endif /* RLX__GEMM_NEON */

/* ---- driver ----------------------------------------------------------------------------------------------- */

/* Fills *im with the kernel family for the given RLX__CPU_* bits (portable C when none applies). */
static void rlx__sgemm_pick(unsigned features, rlx__sgemm_impl* im) {
    im->mr = RLX__SGEMM_C_MR; im->nr = RLX__SGEMM_C_NR; im->kc = 256; im->nc = 512;
    im->kernel = rlx__sgemm_kernel_c;
    im->pack = rlx__sgemm_pack_c;
    im->gemv_rows = rlx__sgemv_rows_c;
    im->gemv_cols = rlx__sgemv_cols_c;
#if defined(RLX__GEMM_X86)
    if (features & RLX__CPU_AVX512) {
        im->mr = RLX__Z_MR; im->nr = RLX__Z_NR; im->kc = 384; im->nc = 512;
        im->kernel = rlx__sgemm_kernel_avx512;
        im->pack = rlx__sgemm_pack_avx512;
        im->gemv_rows = rlx__sgemv_rows_avx512;
        im->gemv_cols = rlx__sgemv_cols_avx512;
    } else if (features & RLX__CPU_AVX2) {
        im->mr = RLX__Y_MR; im->nr = RLX__Y_NR; im->kc = 256; im->nc = 512;
        im->kernel = rlx__sgemm_kernel_avx2;
        im->pack = rlx__sgemm_pack_avx2;
        im->gemv_rows = rlx__sgemv_rows_avx2;
        im->gemv_cols = rlx__sgemv_cols_avx2;
    }
#elif defined(RLX__GEMM_NEON)
    if (features & RLX__CPU_NEON) {
        im->mr = RLX__N_MR; im->nr = RLX__N_NR; im->kc = 256; im->nc = 512;
        im->kernel = rlx__sgemm_kernel_neon;
    }
#else
    (void)features;
#endif
}

/* Floats of one thread's workspace slice: a packed B block, a packed A panel, rounded to 64 bytes. */
static size_t rlx__sgemm_slice_floats(const rlx__sgemm_impl* im) {
    size_t n = (size_t)(im->kc * im->nc + im->kc * im->mr);
    return (n + 15) & ~(size_t)15;
}

/* Workspace rlx__sgemm needs with nthreads threads: one slice per thread, sized for the largest kernel family
   compiled in, so the bound does not depend on the CPU, on M, N or K. */
static size_t rlx__sgemm_workspace_bytes(int nthreads) {
    static const unsigned sets[4] = {0u, RLX__CPU_AVX2, RLX__CPU_AVX2 | RLX__CPU_AVX512, RLX__CPU_NEON};
    size_t most = 0;
    int i;
    for (i = 0; i < 4; ++i) {
        rlx__sgemm_impl im;
        size_t s;
        rlx__sgemm_pick(sets[i], &im);
        s = rlx__sgemm_slice_floats(&im);
        if (s > most) most = s;
    }
    return (size_t)(nthreads < 1 ? 1 : nthreads) * most * sizeof(float);
}

/* One rlx__sgemm call split into tasks: task t computes the C rectangle at grid cell (t / tn, t % tn). */
typedef struct rlx__sgemm_job {
    rlx__sgemm_impl im;
    int64_t M, N, K;
    const float* A;
    int64_t rsa, csa;
    const float* B;
    int64_t rsb, csb;
    float* C;
    int64_t ldc;
    float* ws;
    size_t slice;            /* floats per thread                             */
    int64_t tn;              /* grid columns                                  */
    int64_t mstep, nstep;    /* rows and columns per task (multiples of mr, nr) */
    /* half-float operands (rlx__hgemm_with; hdt 0 for f32): A and B are Ah and Bh, packed through hpack; each
       task rounds its finished rectangle of C (f32) into Ch through hstore */
    int hdt;                 /* 0 = f32, 1 = f16, 2 = bf16 */
    const uint16_t *Ah, *Bh;
    uint16_t* Ch;
    int64_t ldch;
    void (*hpack)(int R, int lines, int64_t kc, const uint16_t* src, int64_t ls, int64_t ks, float* dst, int bf);
    void (*hstore)(int64_t rows, int64_t cols, const float* c, int64_t ldc, uint16_t* o, int64_t ldo, int bf);
} rlx__sgemm_job;

/* C[m0:m1, n0:n1] = A[m0:m1, :] · B[:, n0:n1] with the packed-panel loop nest; bp and ap are this thread's
   packing buffers. */
static void rlx__sgemm_rect(const rlx__sgemm_job* j, int64_t m0, int64_t m1, int64_t n0, int64_t n1, float* bp,
                            float* ap) {
    const rlx__sgemm_impl* im = &j->im;
    const int MR = im->mr, NR = im->nr;
    int64_t nblk = rlx__gemm_cdiv(n1 - n0, im->nc), kblk = rlx__gemm_cdiv(j->K, im->kc);
    int64_t ncs = rlx__gemm_cdiv(rlx__gemm_cdiv(n1 - n0, nblk), NR) * NR;   /* balanced blocks */
    int64_t kcs = rlx__gemm_cdiv(j->K, kblk);
    int64_t jc, pc, ir, jr;
    for (jc = n0; jc < n1; jc += ncs) {
        int64_t nc = rlx__gemm_min(ncs, n1 - jc);
        for (pc = 0; pc < j->K; pc += kcs) {
            int64_t kc = rlx__gemm_min(kcs, j->K - pc);
            for (jr = 0; jr < nc; jr += NR) {
                int lines = (int)rlx__gemm_min(NR, nc - jr);
                int64_t off = pc * j->rsb + (jc + jr) * j->csb;
                if (j->hdt) j->hpack(NR, lines, kc, j->Bh + off, j->csb, j->rsb, bp + jr * kc, j->hdt == 2);
                else im->pack(NR, lines, kc, j->B + off, j->csb, j->rsb, bp + jr * kc);
            }
            for (ir = m0; ir < m1; ir += MR) {
                int mr = (int)rlx__gemm_min(MR, m1 - ir);
                float* crow = j->C + ir * j->ldc + jc;
                if (j->hdt) j->hpack(MR, mr, kc, j->Ah + ir * j->rsa + pc * j->csa, j->rsa, j->csa, ap, j->hdt == 2);
                else im->pack(MR, mr, kc, j->A + ir * j->rsa + pc * j->csa, j->rsa, j->csa, ap);
                for (jr = 0; jr < nc; jr += NR)
                    im->kernel(kc, ap, bp + jr * kc, crow + jr, j->ldc, pc > 0, mr, (int)rlx__gemm_min(NR, nc - jr));
            }
        }
    }
}

/* rlx__task_fn for the packed path: one grid cell, using the calling thread's workspace slice. */
static void rlx__sgemm_task(void* ctx, int64_t task, int thread) {
    const rlx__sgemm_job* j = (const rlx__sgemm_job*)ctx;
    int64_t m0 = (task / j->tn) * j->mstep, n0 = (task % j->tn) * j->nstep;
    float* bp = j->ws + (size_t)thread * j->slice;
    int64_t m1, n1;
    if (m0 >= j->M || n0 >= j->N) return;
    m1 = rlx__gemm_min(j->M, m0 + j->mstep);
    n1 = rlx__gemm_min(j->N, n0 + j->nstep);
    rlx__sgemm_rect(j, m0, m1, n0, n1, bp, bp + j->im.kc * j->im.nc);
    if (j->Ch) j->hstore(m1 - m0, n1 - n0, j->C + m0 * j->ldc + n0, j->ldc, j->Ch + m0 * j->ldch + n0, j->ldch, j->hdt == 2);
}

/* One GEMV split by output columns. */
typedef struct rlx__sgemv_job {
    rlx__sgemv_fn fn;
    int64_t N, K;
    const float* x;
    int64_t incx;
    const float* w;
    int64_t rsw, csw;
    float* y;
    int64_t incy, step;
} rlx__sgemv_job;

/* rlx__task_fn for the GEMV path: output columns [task*step, task*step + step). */
static void rlx__sgemv_task(void* ctx, int64_t task, int thread) {
    const rlx__sgemv_job* j = (const rlx__sgemv_job*)ctx;
    int64_t n0 = task * j->step;
    (void)thread;
    if (n0 >= j->N) return;
    j->fn(rlx__gemm_min(j->step, j->N - n0), j->K, j->x, j->incx, j->w + n0 * j->csw, j->rsw, j->csw,
          j->y + n0 * j->incy, j->incy);
}

/* Picks the task grid for the packed path. A task's cost is its multiply-adds plus its packing work (cycles);
   with more tasks than threads they run in rounds. The cheapest grid with at most nthreads tasks sets the bar;
   a grid of twice as many tasks is taken if it costs at most 4% more, because finer tasks let a thread that is
   slowed down (another process on its core) hand part of its share to the others. */
static void rlx__sgemm_grid(rlx__sgemm_job* j, int nthreads) {
    const rlx__sgemm_impl* im = &j->im;
    int64_t mt = rlx__gemm_cdiv(j->M, im->mr), nt = rlx__gemm_cdiv(j->N, im->nr);   /* tiles */
    double pa = j->csa == 1 ? 0.5 : 1.0, pb = j->csb == 1 ? 0.125 : 1.0;          /* cycles per packed float */
    double rate = im->mr * im->nr >= 64 ? 16.0 : 2.0;                              /* multiply-adds per cycle */
    double best = -1.0, chosen = 0.0;
    int pass, tasks, tm, ntasks = 1;
    j->tn = 1; j->mstep = j->M; j->nstep = j->N;
    for (pass = 0; pass < (nthreads > 1 ? 2 : 1); ++pass) {
        for (tasks = 1; tasks <= 2 * nthreads; ++tasks) {
            if (pass == 0 ? tasks > nthreads : tasks <= nthreads || tasks % nthreads != 0) continue;
            for (tm = 1; tm <= tasks; ++tm) {
                int64_t tn = tasks / tm, ms, ns;
                double cost;
                if (tm * tn != tasks || tm > mt || tn > nt) continue;
                ms = rlx__gemm_cdiv(mt, tm) * im->mr;
                ns = rlx__gemm_cdiv(nt, tn) * im->nr;
                if (rlx__gemm_cdiv(j->M, ms) * rlx__gemm_cdiv(j->N, ns) != tasks) continue;   /* no empty tasks */
                cost = (double)rlx__gemm_cdiv(tasks, nthreads) *
                           ((double)ms * (double)ns * (double)j->K / rate +
                            pa * (double)ms * (double)j->K * (double)rlx__gemm_cdiv(ns, im->nc) +
                            pb * (double)ns * (double)j->K + 2000.0) +
                       (tasks > 1 ? 50000.0 * (double)(rlx__gemm_min(tasks, nthreads) - 1) : 0.0);
                if (pass == 0 ? (best < 0.0 || cost < best)
                              : (cost <= 1.04 * best && (tasks > ntasks || cost < chosen))) {
                    if (pass == 0) best = cost;
                    chosen = cost; ntasks = tasks;
                    j->tn = tn; j->mstep = ms; j->nstep = ns;
                }
            }
        }
    }
}

/* Same contract as rlx__sgemm, with the kernel family chosen by `features` (RLX__CPU_* bits). */
static void rlx__sgemm_with(unsigned features, rlx__pool* pool, void* ws, int64_t M, int64_t N, int64_t K,
                            const float* A, int64_t rsa, int64_t csa, const float* B, int64_t rsb, int64_t csb,
                            float* C, int64_t ldc) {
    rlx__sgemm_job j;
    int nthreads;
    if (M <= 0 || N <= 0) return;
    memset(&j, 0, sizeof j);
    /* vectorised multiply-adds count 1/8 of an element operation: a GEMV splits from 2 MB of W on */
    pool = rlx__pool_if(pool, (double)M * (double)N * (double)K * 0.125);
    nthreads = rlx__pool_threads(pool);
    if (K <= 0) {
        int64_t i, n;
        for (i = 0; i < M; ++i)
            for (n = 0; n < N; ++n) C[i * ldc + n] = 0.0f;
        return;
    }
    rlx__sgemm_pick(features, &j.im);
    if (M == 1 || N == 1) {
        /* y[n*incy] = sum_k x[k*incx] * w[k*rsw + n*csw]: M == 1 is x = A's row and w = B; N == 1 is the
           transposed problem, x = B's column and w = A^T. */
        rlx__sgemv_job g;
        if (M == 1) {
            g.N = N; g.x = A; g.incx = csa; g.w = B; g.rsw = rsb; g.csw = csb; g.y = C; g.incy = 1;
        } else {
            g.N = M; g.x = B; g.incx = rsb; g.w = A; g.rsw = csa; g.csw = rsa; g.y = C; g.incy = ldc;
        }
        g.K = K;
        g.fn = NULL;
        if (g.rsw == 1 && g.incx == 1 && (g.csw != 1 || g.N < 16)) g.fn = j.im.gemv_cols;
        else if (g.csw == 1) g.fn = j.im.gemv_rows;
        if (g.fn) {
            int64_t tasks = nthreads;
            if (g.N < 128) tasks = 1;
            g.step = rlx__gemm_cdiv(rlx__gemm_cdiv(g.N, tasks), 16) * 16;
            tasks = rlx__gemm_cdiv(g.N, g.step);
            if (tasks <= 1) g.fn(g.N, K, g.x, g.incx, g.w, g.rsw, g.csw, g.y, g.incy);
            else rlx__parallel_for(pool, tasks, rlx__sgemv_task, &g);
            return;
        }
    }
    j.M = M; j.N = N; j.K = K;
    j.A = A; j.rsa = rsa; j.csa = csa;
    j.B = B; j.rsb = rsb; j.csb = csb;
    j.C = C; j.ldc = ldc;
    j.ws = (float*)ws;
    j.slice = rlx__sgemm_slice_floats(&j.im);
    rlx__sgemm_grid(&j, nthreads);
    {
        int64_t tasks = rlx__gemm_cdiv(M, j.mstep) * j.tn;
        if (tasks <= 1) rlx__sgemm_task(&j, 0, 0);
        else rlx__parallel_for(pool, tasks, rlx__sgemm_task, &j);
    }
}

/* C[M,N] = A[M,K] · B[K,N] in f32, overwriting C. A(i,k) = A[i*rsa + k*csa], B(k,n) = B[k*rsb + n*csb], C is
   row-major with leading dimension ldc. ws: rlx__sgemm_workspace_bytes(rlx__pool_threads(pool)) bytes,
   64-byte aligned. Never allocates. */
static void rlx__sgemm(rlx__pool* pool, void* ws, int64_t M, int64_t N, int64_t K, const float* A, int64_t rsa,
                       int64_t csa, const float* B, int64_t rsb, int64_t csb, float* C, int64_t ldc) {
    rlx__sgemm_with(rlx__cpu_features(), pool, ws, M, N, K, A, rsa, csa, B, rsb, csb, C, ldc);
}

/* ---- f16 / bf16 GEMM on the f32 kernels -------------------------------------------------------------------
   Both operands f16 (or both bf16), the result in the same dtype, accumulation in f32. The operands are
   converted to f32 while they are packed, so the packed panels and the microkernels are the f32 ones; each task
   rounds its finished rectangle of the f32 result (kept in the workspace) to the output dtype. The conversions
   are the ones of >>convert bit for bit (exact widening, round to nearest even back), through F16C where the
   CPU has it (rlx__cpu_features_half). M == 1 and N == 1 stream the half-float weight through converting GEMVs
   (no packing); other layouts of them go through the packed path. */

/* RLX__CPU_* bits of this CPU plus F16C. gcc 12+ reads it from its feature table like the others; elsewhere
   every AVX-512 CPU has F16C, and an AVX2-only CPU is asked with cpuid (slow in a virtual machine: microseconds,
   once per half-float GEMM call). */
static unsigned rlx__cpu_features_half(void) {
    unsigned f = rlx__cpu_features();
#if defined(RLX__GEMM_X86)
    if (f & RLX__CPU_AVX2) {
#  if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
        if (__builtin_cpu_supports("f16c")) f |= RLX__CPU_F16C;
#  else
        unsigned a, b, c, d;
        if ((f & RLX__CPU_AVX512) || (__get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 29)))) f |= RLX__CPU_F16C;
#  endif
    }
#endif
    return f;
}

static float rlx__hload(const uint16_t* p, int bf) {
    return bf ? rlx__bits_f32((uint32_t)*p << 16) : rlx__f16_bits_to_f32(*p);
}
static uint16_t rlx__hround(float v, int bf) { return bf ? rlx__f32_bits_to_bf16(v) : rlx__f32_bits_to_f16(v); }

/* rlx__sgemm_pack_c reading f16 (bf == 0) or bf16 (bf == 1) elements. */
static void rlx__hpack_c(int R, int lines, int64_t kc, const uint16_t* src, int64_t ls, int64_t ks, float* dst,
                         int bf) {
    int64_t k;
    int r;
    if (ks == 1) {
        for (r = 0; r < lines; ++r) {
            const uint16_t* s = src + r * ls;
            for (k = 0; k < kc; ++k) dst[k * R + r] = rlx__hload(s + k, bf);
        }
    } else {
        for (k = 0; k < kc; ++k) {
            const uint16_t* s = src + k * ks;
            for (r = 0; r < lines; ++r) dst[k * R + r] = rlx__hload(s + r * ls, bf);
        }
    }
    if (lines < R)
        for (k = 0; k < kc; ++k)
            for (r = lines; r < R; ++r) dst[k * R + r] = 0.0f;
}

/* o[i*ldo + n] = c[i*ldc + n] rounded to f16/bf16, i < rows, n < cols. */
static void rlx__hstore_c(int64_t rows, int64_t cols, const float* c, int64_t ldc, uint16_t* o, int64_t ldo, int bf) {
    int64_t i, n;
    for (i = 0; i < rows; ++i)
        for (n = 0; n < cols; ++n) o[i * ldo + n] = rlx__hround(c[i * ldc + n], bf);
}

/* y[n] = sum over k < K of x[k] * w[k*rsw + n*csw] for n < N, w in f16/bf16, x and y f32: rows of w contiguous
   (csw == 1: axpy form, y += x[k] · w[k, :]) or columns (rsw == 1: one dot product each). */
typedef void (*rlx__hgemv_fn)(int64_t N, int64_t K, const float* x, const uint16_t* w, int64_t rsw, int64_t csw,
                              float* y, int bf);
static void rlx__hgemv_c(int64_t N, int64_t K, const float* x, const uint16_t* w, int64_t rsw, int64_t csw, float* y,
                         int bf) {
    int64_t n, k;
    if (csw == 1) {   /* y += x[k] · w[k, :]: w is read in order */
        for (n = 0; n < N; ++n) y[n] = 0.0f;
        for (k = 0; k < K; ++k) {
            const uint16_t* wk = w + k * rsw;
            float xk = x[k];
            for (n = 0; n < N; ++n) y[n] += xk * rlx__hload(wk + n, bf);
        }
        return;
    }
    for (n = 0; n < N; ++n) {
        const uint16_t* wn = w + n * csw;
        float s0 = 0.0f, s1 = 0.0f;
        for (k = 0; k + 2 <= K; k += 2) { s0 += x[k] * rlx__hload(wn + k, bf); s1 += x[k + 1] * rlx__hload(wn + k + 1, bf); }
        for (; k < K; ++k) s0 += x[k] * rlx__hload(wn + k, bf);
        y[n] = s0 + s1;
    }
}

#if defined(RLX__GEMM_X86)
/* 8 f16 (F16C) or bf16 (a shift) values → f32. */
RLX__TARGET_F16C
static __m256 rlx__hload8(const uint16_t* p, int bf) {
    __m128i v = _mm_loadu_si128((const __m128i*)(const void*)p);
    if (bf) return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(v), 16));
    return _mm256_cvtph_ps(v);
}

/* rlx__hpack_c with vector conversion: row-major B panels convert 8 values per step; lines contiguous in k
   (row-major A) are converted 8 k at a time, 8 lines at a time through an 8 x 8 transpose where the panel has
   them. */
RLX__TARGET_F16C
static void rlx__hpack_x86(int R, int lines, int64_t kc, const uint16_t* src, int64_t ls, int64_t ks, float* dst,
                           int bf) {
    int64_t k;
    int r, q;
    if (ls == 1 && lines == R && R % 8 == 0) {
        for (k = 0; k < kc; ++k)
            for (r = 0; r < R; r += 8) _mm256_storeu_ps(dst + k * R + r, rlx__hload8(src + k * ks + r, bf));
        return;
    }
    if (ks == 1) {
        float t[8];
        r = 0;
        if (R == 8 && lines == 8) {
            const uint16_t* s = src;
            for (k = 0; k + 8 <= kc; k += 8) {   /* 8 lines x 8 k, transposed */
                __m256 v0 = rlx__hload8(s + k, bf), v1 = rlx__hload8(s + ls + k, bf);
                __m256 v2 = rlx__hload8(s + 2 * ls + k, bf), v3 = rlx__hload8(s + 3 * ls + k, bf);
                __m256 v4 = rlx__hload8(s + 4 * ls + k, bf), v5 = rlx__hload8(s + 5 * ls + k, bf);
                __m256 v6 = rlx__hload8(s + 6 * ls + k, bf), v7 = rlx__hload8(s + 7 * ls + k, bf);
                __m256 t0 = _mm256_unpacklo_ps(v0, v1), t1 = _mm256_unpackhi_ps(v0, v1);
                __m256 t2 = _mm256_unpacklo_ps(v2, v3), t3 = _mm256_unpackhi_ps(v2, v3);
                __m256 t4 = _mm256_unpacklo_ps(v4, v5), t5 = _mm256_unpackhi_ps(v4, v5);
                __m256 t6 = _mm256_unpacklo_ps(v6, v7), t7 = _mm256_unpackhi_ps(v6, v7);
                __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
                __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
                __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
                __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
                float* d = dst + k * 8;
                _mm256_storeu_ps(d, _mm256_permute2f128_ps(u0, u4, 0x20));
                _mm256_storeu_ps(d + 8, _mm256_permute2f128_ps(u1, u5, 0x20));
                _mm256_storeu_ps(d + 16, _mm256_permute2f128_ps(u2, u6, 0x20));
                _mm256_storeu_ps(d + 24, _mm256_permute2f128_ps(u3, u7, 0x20));
                _mm256_storeu_ps(d + 32, _mm256_permute2f128_ps(u0, u4, 0x31));
                _mm256_storeu_ps(d + 40, _mm256_permute2f128_ps(u1, u5, 0x31));
                _mm256_storeu_ps(d + 48, _mm256_permute2f128_ps(u2, u6, 0x31));
                _mm256_storeu_ps(d + 56, _mm256_permute2f128_ps(u3, u7, 0x31));
            }
            for (; k < kc; ++k)
                for (q = 0; q < 8; ++q) dst[k * 8 + q] = rlx__hload(s + q * ls + k, bf);
            return;
        }
        for (; r < lines; ++r) {
            const uint16_t* s = src + r * ls;
            for (k = 0; k + 8 <= kc; k += 8) {
                _mm256_storeu_ps(t, rlx__hload8(s + k, bf));
                for (q = 0; q < 8; ++q) dst[(k + q) * R + r] = t[q];
            }
            for (; k < kc; ++k) dst[k * R + r] = rlx__hload(s + k, bf);
        }
        if (lines < R)
            for (k = 0; k < kc; ++k)
                for (r = lines; r < R; ++r) dst[k * R + r] = 0.0f;
        return;
    }
    rlx__hpack_c(R, lines, kc, src, ls, ks, dst, bf);
}

/* rlx__hstore_c, 8 values per step: F16C's round-to-nearest-even for f16, the integer rounding of
   rlx__f32_bits_to_bf16 for bf16; a group holding a NaN goes through the scalar rounding (its NaN encoding). */
RLX__TARGET_F16C
static void rlx__hstore_x86(int64_t rows, int64_t cols, const float* c, int64_t ldc, uint16_t* o, int64_t ldo,
                            int bf) {
    int64_t i, n;
    for (i = 0; i < rows; ++i) {
        const float* ci = c + i * ldc;
        uint16_t* oi = o + i * ldo;
        for (n = 0; n + 8 <= cols; n += 8) {
            __m256 v = _mm256_loadu_ps(ci + n);
            __m128i h;
            if (_mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q))) {
                int q;
                for (q = 0; q < 8; ++q) oi[n + q] = rlx__hround(ci[n + q], bf);
                continue;
            }
            if (bf) {
                __m256i u = _mm256_castps_si256(v);
                __m256i odd = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
                u = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7FFF)), odd), 16);
                h = _mm_packus_epi32(_mm256_castsi256_si128(u), _mm256_extracti128_si256(u, 1));
            } else {
                h = _mm256_cvtps_ph(v, 0);   /* 0: round to nearest even */
            }
            _mm_storeu_si128((__m128i*)(void*)(oi + n), h);
        }
        for (; n < cols; ++n) oi[n] = rlx__hround(ci[n], bf);
    }
}

/* rlx__hgemv_c with F16C and FMA: 4 rows of w per pass over y for rows, 2 ymm sums per dot product. */
RLX__TARGET_F16C
static void rlx__hgemv_x86(int64_t N, int64_t K, const float* x, const uint16_t* w, int64_t rsw, int64_t csw,
                           float* y, int bf) {
    int64_t n, k;
    if (csw == 1) {   /* y += x[k] · w[k, :], 4 rows of w per pass over y: w is read in order */
        for (n = 0; n < N; ++n) y[n] = 0.0f;
        for (k = 0; k < K; k += 4) {
            const uint16_t* w0 = w + k * rsw;
            if (k + 4 <= K) {
                const uint16_t *w1 = w0 + rsw, *w2 = w1 + rsw, *w3 = w2 + rsw;
                __m256 x0 = _mm256_broadcast_ss(x + k), x1 = _mm256_broadcast_ss(x + k + 1);
                __m256 x2 = _mm256_broadcast_ss(x + k + 2), x3 = _mm256_broadcast_ss(x + k + 3);
                for (n = 0; n + 8 <= N; n += 8) {
                    __m256 acc = _mm256_fmadd_ps(x0, rlx__hload8(w0 + n, bf), _mm256_loadu_ps(y + n));
                    acc = _mm256_fmadd_ps(x1, rlx__hload8(w1 + n, bf), acc);
                    acc = _mm256_fmadd_ps(x2, rlx__hload8(w2 + n, bf), acc);
                    _mm256_storeu_ps(y + n, _mm256_fmadd_ps(x3, rlx__hload8(w3 + n, bf), acc));
                }
                for (; n < N; ++n)
                    y[n] = (((y[n] + x[k] * rlx__hload(w0 + n, bf)) + x[k + 1] * rlx__hload(w1 + n, bf)) +
                            x[k + 2] * rlx__hload(w2 + n, bf)) + x[k + 3] * rlx__hload(w3 + n, bf);
            } else {
                int64_t q;
                for (q = k; q < K; ++q, w0 += rsw) {
                    __m256 xq = _mm256_broadcast_ss(x + q);
                    for (n = 0; n + 8 <= N; n += 8)
                        _mm256_storeu_ps(y + n, _mm256_fmadd_ps(xq, rlx__hload8(w0 + n, bf), _mm256_loadu_ps(y + n)));
                    for (; n < N; ++n) y[n] += x[q] * rlx__hload(w0 + n, bf);
                }
            }
        }
        return;
    }
    for (n = 0; n < N; ++n) {
        const uint16_t* wn = w + n * csw;
        __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
        __m128 h;
        float s;
        for (k = 0; k + 16 <= K; k += 16) {
            a0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + k), rlx__hload8(wn + k, bf), a0);
            a1 = _mm256_fmadd_ps(_mm256_loadu_ps(x + k + 8), rlx__hload8(wn + k + 8, bf), a1);
        }
        for (; k + 8 <= K; k += 8) a0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + k), rlx__hload8(wn + k, bf), a0);
        a0 = _mm256_add_ps(a0, a1);
        h = _mm_add_ps(_mm256_castps256_ps128(a0), _mm256_extractf128_ps(a0, 1));
        h = _mm_add_ps(h, _mm_movehl_ps(h, h));
        h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));
        s = _mm_cvtss_f32(h);
        for (; k < K; ++k) s += x[k] * rlx__hload(wn + k, bf);
        y[n] = s;
    }
}
#endif /* RLX__GEMM_X86 */

/* Workspace of rlx__hgemm_with: the f32 GEMM's slices, then the f32 result (M*N floats) and a converted vector
   (K floats). Saturates (SIZE_MAX) on overflow. */
static size_t rlx__hgemm_workspace_bytes(int nthreads, int64_t M, int64_t N, int64_t K) {
    size_t fl = rlx__szadd(rlx__szmul((size_t)M, (size_t)N), (size_t)K);
    return rlx__szadd(rlx__sgemm_workspace_bytes(nthreads), rlx__round_up(rlx__szmul(fl, sizeof(float)), 64));
}

/* One converting GEMV split by output columns. */
typedef struct rlx__hgemv_job {
    rlx__hgemv_fn fn;
    int64_t N, K;
    const float* x;
    const uint16_t* w;
    int64_t rsw, csw;
    float* y;
    int64_t step;
    int bf;
} rlx__hgemv_job;

static void rlx__hgemv_task(void* ctx, int64_t task, int thread) {
    const rlx__hgemv_job* j = (const rlx__hgemv_job*)ctx;
    int64_t n0 = task * j->step;
    (void)thread;
    if (n0 >= j->N) return;
    j->fn(rlx__gemm_min(j->step, j->N - n0), j->K, j->x, j->w + n0 * j->csw, j->rsw, j->csw, j->y + n0, j->bf);
}

/* C[M,N] = A[M,K] · B[K,N] with f16 (bf == 0) or bf16 (bf == 1) operands and result, accumulated in f32; strides
   as rlx__sgemm; kernels chosen by `features` (RLX__CPU_* bits, RLX__CPU_F16C for the vector conversions).
   ws: rlx__hgemm_workspace_bytes(rlx__pool_threads(pool), M, N, K) bytes, 64-byte aligned. */
static void rlx__hgemm_with(unsigned features, rlx__pool* pool, void* ws, int64_t M, int64_t N, int64_t K,
                            const uint16_t* A, int64_t rsa, int64_t csa, const uint16_t* B, int64_t rsb, int64_t csb,
                            uint16_t* C, int64_t ldc, int bf) {
    rlx__sgemm_job j;
    /* the inline threshold of rlx__sgemm_with: a multiply-add counts 1/8 of an element operation */
    int nthreads = rlx__pool_threads(pool = rlx__pool_if(pool, (double)M * (double)N * (double)K * 0.125));
    float* cf = (float*)(void*)((char*)ws + rlx__sgemm_workspace_bytes(nthreads));
    rlx__hgemv_fn gemv = rlx__hgemv_c;
    void (*hpack)(int, int, int64_t, const uint16_t*, int64_t, int64_t, float*, int) = rlx__hpack_c;
    void (*hstore)(int64_t, int64_t, const float*, int64_t, uint16_t*, int64_t, int) = rlx__hstore_c;
    if (M <= 0 || N <= 0) return;
    if (K <= 0) {   /* +0 in both formats */
        int64_t i, n;
        for (i = 0; i < M; ++i)
            for (n = 0; n < N; ++n) C[i * ldc + n] = 0;
        return;
    }
#if defined(RLX__GEMM_X86)
    if ((features & RLX__CPU_AVX2) && (features & RLX__CPU_F16C)) {
        gemv = rlx__hgemv_x86;
        hpack = rlx__hpack_x86;
        hstore = rlx__hstore_x86;
    }
#endif
    if (M == 1 || N == 1) {   /* as rlx__sgemm_with: x = A's row and w = B, or x = B's column and w = A^T */
        rlx__hgemv_job g;
        const uint16_t* xs = M == 1 ? A : B;
        int64_t incx = M == 1 ? csa : rsb, k;
        g.N = M == 1 ? N : M;
        g.w = M == 1 ? B : A;
        g.rsw = M == 1 ? rsb : csa;
        g.csw = M == 1 ? csb : rsa;
        if (g.rsw == 1 || g.csw == 1) {
            int64_t tasks = nthreads;
            float* xf = cf + g.N;
            for (k = 0; k < K; ++k) xf[k] = rlx__hload(xs + k * incx, bf);
            g.fn = gemv; g.K = K; g.x = xf; g.y = cf; g.bf = bf;
            if (g.N * K < ((int64_t)1 << 19) || g.N < 128) tasks = 1;
            g.step = rlx__gemm_cdiv(rlx__gemm_cdiv(g.N, tasks), 16) * 16;
            tasks = rlx__gemm_cdiv(g.N, g.step);
            if (tasks <= 1) rlx__hgemv_task(&g, 0, 0);
            else rlx__parallel_for(pool, tasks, rlx__hgemv_task, &g);
            if (M == 1) hstore(1, N, cf, N, C, ldc, bf);
            else hstore(M, 1, cf, 1, C, ldc, bf);
            return;
        }
    }
    memset(&j, 0, sizeof j);
    rlx__sgemm_pick(features, &j.im);
    j.M = M; j.N = N; j.K = K;
    j.rsa = rsa; j.csa = csa; j.rsb = rsb; j.csb = csb;
    j.C = cf; j.ldc = N;
    j.ws = (float*)ws;
    j.slice = rlx__sgemm_slice_floats(&j.im);
    j.hdt = bf ? 2 : 1;
    j.Ah = A; j.Bh = B; j.Ch = C; j.ldch = ldc;
    j.hpack = hpack; j.hstore = hstore;
    rlx__sgemm_grid(&j, nthreads);
    {
        int64_t tasks = rlx__gemm_cdiv(M, j.mstep) * j.tn;
        if (tasks <= 1) rlx__sgemm_task(&j, 0, 0);
        else rlx__parallel_for(pool, tasks, rlx__sgemm_task, &j);
    }
}
/* ---- 8-bit integer GEMM ------------------------------------------------------------------------------------
   C[M,N] (int32) = sum over k of (A[m,k] - za[m]) · (B[k,n] - zb[n]) with A, B each i8 or u8, exact: the sums are
   kept in 32-bit integers, so they wrap modulo 2^32 only where int32 itself cannot hold the result.

   The kernels compute P = A'·B' on packed copies and a last pass per task adds the zero-point terms:
       sum (a - za)(b - zb) = P - ZB·rowsum(A') - ZA·colsum(B') + K·ZA·ZB,  A' = A + oa, B' = B - ob,
       ZA = za + oa, ZB = zb - ob (rowsum(A') = rowsum(A) + K·oa, colsum(B') = colsum(B) - K·ob).
   Two families:
     - u8 x s8 (AVX-512 VNNI: vpdpbusd multiplies unsigned by signed bytes and adds groups of 4 into int32
       without saturation): i8 A is made unsigned (oa = 128, a xor 0x80), u8 B signed (ob = 128). Panels hold
       groups of 4 k per line; 8 x 32 register tile (16 zmm accumulators, one vpdpbusd per row and 16 columns
       per 4 k).
     - int16 pairs (AVX2 vpmaddwd, portable C): values widened to int16 unchanged (oa = ob = 0), groups of 2 k;
       a pair sum is at most 2·255·255, so vpmaddwd never saturates (vpmaddubsw would: it is not used).
       AVX2: 6 x 16 tile; portable C: 4 x 16.
   Blocking and packing follow the f32 GEMM (B block of kc x nc, one A panel per MR rows); padding is zero in
   A' and B', so it adds nothing. rowsum(A) and colsum(B) are computed first, only where a term needs them. */

/* Packs `lines` (<= R) lines of kc 8-bit values (src[r*ls + k*ks], signed if sgn) into a panel of groups of
   G k: int16 values for G == 2 (d[((k/2)*R + r)*2 + k%2]), bytes xor flip for G == 4 (d[((k/4)*R + r)*4 +
   k%4]). Lines past `lines` and k past kc (up to a multiple of G) are zero. */
static void rlx__ipack_c(int G, int R, int lines, int64_t kc, const uint8_t* src, int sgn, int flip, int64_t ls,
                         int64_t ks, void* dst) {
    int64_t kg = rlx__gemm_cdiv(kc, G), p, k;
    int r, q;
    if (G == 4) {
        uint8_t* d = (uint8_t*)dst;
        uint32_t f32 = (uint32_t)flip * 0x01010101u;
        memset(d, 0, (size_t)(kg * R * 4));
        for (r = 0; r < lines; ++r) {
            const uint8_t* s = src + r * ls;
            for (p = 0; p < kg; ++p) {
                uint8_t* o = d + (p * R + r) * 4;
                if (ks == 1 && 4 * p + 4 <= kc) {
                    uint32_t w;
                    memcpy(&w, s + 4 * p, 4);
                    w ^= f32;
                    memcpy(o, &w, 4);
                } else {
                    for (q = 0; q < 4 && 4 * p + q < kc; ++q) o[q] = (uint8_t)(s[(4 * p + q) * ks] ^ flip);
                }
            }
        }
        return;
    }
    {
        int16_t* d = (int16_t*)dst;
        memset(d, 0, (size_t)(kg * R * 2) * sizeof(int16_t));
        for (r = 0; r < lines; ++r) {
            const uint8_t* s = src + r * ls;
            for (k = 0; k < kc; ++k) {
                uint8_t v = s[k * ks];
                d[((k >> 1) * R + r) * 2 + (k & 1)] = sgn ? (int16_t)(int8_t)v : (int16_t)v;
            }
        }
    }
}

#define RLX__IGEMM_C_MR 4
#define RLX__IGEMM_C_NR 16

/* Portable int16-pair microkernel: c[0:mr, 0:nr] (= or += if acc) sum over kg groups of a·b (see
   rlx__sgemm_kernel_fn; sums wrap modulo 2^32). */
static void rlx__igemm_kernel_c(int64_t kg, const void* av, const void* bv, int32_t* c, int64_t ldc, int acc, int mr,
                                int nr) {
    const int16_t* a = (const int16_t*)av;
    const int16_t* b = (const int16_t*)bv;
    uint32_t t[RLX__IGEMM_C_MR][RLX__IGEMM_C_NR];
    int64_t p;
    int i, j;
    for (i = 0; i < RLX__IGEMM_C_MR; ++i)
        for (j = 0; j < RLX__IGEMM_C_NR; ++j) t[i][j] = 0;
    for (p = 0; p < kg; ++p) {
        const int16_t* ap = a + p * RLX__IGEMM_C_MR * 2;
        const int16_t* bp = b + p * RLX__IGEMM_C_NR * 2;
        for (i = 0; i < RLX__IGEMM_C_MR; ++i) {
            int32_t a0 = ap[2 * i], a1 = ap[2 * i + 1];
            for (j = 0; j < RLX__IGEMM_C_NR; ++j) t[i][j] += (uint32_t)(a0 * bp[2 * j] + a1 * bp[2 * j + 1]);
        }
    }
    for (i = 0; i < mr; ++i)
        for (j = 0; j < nr; ++j) {
            uint32_t v = t[i][j] + (acc ? (uint32_t)c[i * ldc + j] : 0u);
            c[i * ldc + j] = (int32_t)v;
        }
}

#if defined(RLX__GEMM_X86)
/* AVX2 int16-pair microkernel, 6 x 16: per group, 2 ymm of B (8 columns x 2 k each) and one broadcast pair of
   A per row into vpmaddwd. */
RLX__TARGET_AVX2
static void rlx__igemm_kernel_avx2(int64_t kg, const void* av, const void* bv, int32_t* c, int64_t ldc, int acc,
                                   int mr, int nr) {
    const int16_t* a = (const int16_t*)av;
    const int16_t* b = (const int16_t*)bv;
    __m256i c0[6], c1[6];
    int64_t p;
    int i, j;
    for (i = 0; i < 6; ++i) { c0[i] = _mm256_setzero_si256(); c1[i] = _mm256_setzero_si256(); }
    for (p = 0; p < kg; ++p) {
        __m256i b0 = _mm256_loadu_si256((const __m256i*)(const void*)(b + p * 32));
        __m256i b1 = _mm256_loadu_si256((const __m256i*)(const void*)(b + p * 32 + 16));
        const int16_t* ap = a + p * 12;
        for (i = 0; i < 6; ++i) {
            int32_t pr;
            __m256i x;
            memcpy(&pr, ap + 2 * i, 4);
            x = _mm256_set1_epi32(pr);
            c0[i] = _mm256_add_epi32(c0[i], _mm256_madd_epi16(x, b0));
            c1[i] = _mm256_add_epi32(c1[i], _mm256_madd_epi16(x, b1));
        }
    }
    if (mr == 6 && nr == 16) {
        for (i = 0; i < 6; ++i) {
            __m256i* r = (__m256i*)(void*)(c + i * ldc);
            if (acc) {
                c0[i] = _mm256_add_epi32(c0[i], _mm256_loadu_si256(r));
                c1[i] = _mm256_add_epi32(c1[i], _mm256_loadu_si256(r + 1));
            }
            _mm256_storeu_si256(r, c0[i]);
            _mm256_storeu_si256(r + 1, c1[i]);
        }
    } else {
        int32_t t[16];
        for (i = 0; i < mr; ++i) {
            _mm256_storeu_si256((__m256i*)(void*)t, c0[i]);
            _mm256_storeu_si256((__m256i*)(void*)(t + 8), c1[i]);
            for (j = 0; j < nr; ++j)
                c[i * ldc + j] = (int32_t)((uint32_t)t[j] + (acc ? (uint32_t)c[i * ldc + j] : 0u));
        }
    }
}

/* AVX-512 VNNI microkernel, 8 x 32: per group of 4 k, 2 zmm of B' (16 columns x 4 signed bytes) and one
   broadcast of 4 unsigned bytes of A' per row into vpdpbusd; masked stores at the edges. */
RLX__TARGET_VNNI
static void rlx__igemm_kernel_vnni(int64_t kg, const void* av, const void* bv, int32_t* c, int64_t ldc, int acc,
                                   int mr, int nr) {
    const uint8_t* a = (const uint8_t*)av;
    const uint8_t* b = (const uint8_t*)bv;
    __m512i c0[8], c1[8];
    __mmask16 m0 = (__mmask16)(nr >= 16 ? 0xFFFFu : (1u << nr) - 1u);
    __mmask16 m1 = (__mmask16)(nr >= 32 ? 0xFFFFu : nr > 16 ? (1u << (nr - 16)) - 1u : 0u);
    int64_t p;
    int i;
    for (i = 0; i < 8; ++i) { c0[i] = _mm512_setzero_si512(); c1[i] = _mm512_setzero_si512(); }
    for (p = 0; p < kg; ++p) {
        __m512i b0 = _mm512_loadu_si512((const void*)(b + p * 128));
        __m512i b1 = _mm512_loadu_si512((const void*)(b + p * 128 + 64));
        const uint8_t* ap = a + p * 32;
        for (i = 0; i < 8; ++i) {
            int32_t q;
            __m512i x;
            memcpy(&q, ap + 4 * i, 4);
            x = _mm512_set1_epi32(q);
            c0[i] = _mm512_dpbusd_epi32(c0[i], x, b0);
            c1[i] = _mm512_dpbusd_epi32(c1[i], x, b1);
        }
    }
    for (i = 0; i < mr; ++i) {
        int32_t* r = c + i * ldc;
        if (acc) {
            c0[i] = _mm512_add_epi32(c0[i], _mm512_maskz_loadu_epi32(m0, r));
            c1[i] = _mm512_add_epi32(c1[i], _mm512_maskz_loadu_epi32(m1, r + 16));
        }
        _mm512_mask_storeu_epi32(r, m0, c0[i]);
        _mm512_mask_storeu_epi32(r + 16, m1, c1[i]);
    }
}

/* rlx__ipack_c for G == 4 with a row-major B panel (lines contiguous across r, 32 of them): 4 rows of 16
   bytes are interleaved into 16 groups of 4 with byte and word unpacks. Anything else: rlx__ipack_c. */
RLX__TARGET_AVX2
static void rlx__ipack_avx2(int G, int R, int lines, int64_t kc, const uint8_t* src, int sgn, int flip, int64_t ls,
                            int64_t ks, void* dst) {
    if (G == 4 && ls == 1 && lines == R && R % 16 == 0 && kc % 4 == 0) {
        __m128i f = _mm_set1_epi8((char)flip);
        uint8_t* d = (uint8_t*)dst;
        int64_t p;
        int r;
        for (p = 0; p < kc / 4; ++p) {
            const uint8_t* s = src + 4 * p * ks;
            for (r = 0; r < R; r += 16) {
                __m128i r0 = _mm_xor_si128(_mm_loadu_si128((const __m128i*)(const void*)(s + r)), f);
                __m128i r1 = _mm_xor_si128(_mm_loadu_si128((const __m128i*)(const void*)(s + ks + r)), f);
                __m128i r2 = _mm_xor_si128(_mm_loadu_si128((const __m128i*)(const void*)(s + 2 * ks + r)), f);
                __m128i r3 = _mm_xor_si128(_mm_loadu_si128((const __m128i*)(const void*)(s + 3 * ks + r)), f);
                __m128i t0 = _mm_unpacklo_epi8(r0, r1), t1 = _mm_unpackhi_epi8(r0, r1);
                __m128i t2 = _mm_unpacklo_epi8(r2, r3), t3 = _mm_unpackhi_epi8(r2, r3);
                __m128i* o = (__m128i*)(void*)(d + (p * R + r) * 4);
                _mm_storeu_si128(o, _mm_unpacklo_epi16(t0, t2));
                _mm_storeu_si128(o + 1, _mm_unpackhi_epi16(t0, t2));
                _mm_storeu_si128(o + 2, _mm_unpacklo_epi16(t1, t3));
                _mm_storeu_si128(o + 3, _mm_unpackhi_epi16(t1, t3));
            }
        }
        return;
    }
    rlx__ipack_c(G, R, lines, kc, src, sgn, flip, ls, ks, dst);
}

/* cs[n] += sum over k < K of B[k*rsb + n] (B rows contiguous), in int16 lanes for up to 128 rows at a time. */
RLX__TARGET_AVX2
static void rlx__igemm_colsum_avx2(int64_t K, int64_t N, const uint8_t* B, int64_t rsb, int bsg, uint32_t* cs) {
    int64_t k0, k, n;
    for (n = 0; n + 16 <= N; n += 16) {
        __m256i lo = _mm256_setzero_si256(), hi = _mm256_setzero_si256();
        for (k0 = 0; k0 < K; k0 += 128) {
            __m256i s = _mm256_setzero_si256();
            int64_t k1 = rlx__gemm_min(K, k0 + 128);
            for (k = k0; k < k1; ++k) {
                __m128i v = _mm_loadu_si128((const __m128i*)(const void*)(B + k * rsb + n));
                s = _mm256_add_epi16(s, bsg ? _mm256_cvtepi8_epi16(v) : _mm256_cvtepu8_epi16(v));
            }
            lo = _mm256_add_epi32(lo, _mm256_cvtepi16_epi32(_mm256_castsi256_si128(s)));
            hi = _mm256_add_epi32(hi, _mm256_cvtepi16_epi32(_mm256_extracti128_si256(s, 1)));
        }
        _mm256_storeu_si256((__m256i*)(void*)(cs + n), _mm256_add_epi32(_mm256_loadu_si256((const __m256i*)(const void*)(cs + n)), lo));
        _mm256_storeu_si256((__m256i*)(void*)(cs + n + 8), _mm256_add_epi32(_mm256_loadu_si256((const __m256i*)(const void*)(cs + n + 8)), hi));
    }
    for (; n < N; ++n)
        for (k = 0; k < K; ++k) cs[n] += bsg ? (uint32_t)(int32_t)(int8_t)B[k * rsb + n] : (uint32_t)B[k * rsb + n];
}

/* c[n] += zb[n] * t - za * cs[n] for n < N, modulo 2^32 (the zero-point terms of one row of C). */
RLX__TARGET_AVX2
static void rlx__igemm_fix_avx2(int64_t N, uint32_t* c, const uint32_t* zb, const uint32_t* cs, uint32_t t, uint32_t za) {
    __m256i vt = _mm256_set1_epi32((int)t), vz = _mm256_set1_epi32((int)za);
    int64_t n;
    for (n = 0; n + 8 <= N; n += 8) {
        __m256i* p = (__m256i*)(void*)(c + n);
        __m256i v = _mm256_add_epi32(_mm256_loadu_si256(p),
                                     _mm256_mullo_epi32(_mm256_loadu_si256((const __m256i*)(const void*)(zb + n)), vt));
        _mm256_storeu_si256(p, _mm256_sub_epi32(v, _mm256_mullo_epi32(_mm256_loadu_si256((const __m256i*)(const void*)(cs + n)), vz)));
    }
    for (; n < N; ++n) c[n] += zb[n] * t - za * cs[n];
}
#endif /* RLX__GEMM_X86 */

/* M == 1: y[n] = sum over k < K of x[k] · B[k*rsb + n] (B rows contiguous), x the row of A minus its zero point
   as int16, B's bytes as they are (signed if bsg); the caller subtracts zb[n] · sum(x). Sums wrap modulo 2^32. */
typedef void (*rlx__igemv_fn)(int64_t N, int64_t K, const int16_t* x, const uint8_t* b, int64_t rsb, int bsg,
                              int32_t* y);
static void rlx__igemv_c(int64_t N, int64_t K, const int16_t* x, const uint8_t* b, int64_t rsb, int bsg, int32_t* y) {
    int64_t n, k;
    uint32_t* u = (uint32_t*)y;
    for (n = 0; n < N; ++n) u[n] = 0;
    for (k = 0; k < K; ++k) {
        const uint8_t* r = b + k * rsb;
        int32_t xk = x[k];
        if (bsg) for (n = 0; n < N; ++n) u[n] += (uint32_t)(xk * (int32_t)(int8_t)r[n]);
        else for (n = 0; n < N; ++n) u[n] += (uint32_t)(xk * (int32_t)r[n]);
    }
}

#if defined(RLX__GEMM_X86)
/* rlx__igemv_c with AVX2: 4 rows of B per pass over y, widened to int16 and interleaved in pairs for vpmaddwd. */
RLX__TARGET_AVX2
static void rlx__igemv_avx2(int64_t N, int64_t K, const int16_t* x, const uint8_t* b, int64_t rsb, int bsg,
                            int32_t* y) {
    int64_t n, k;
    for (k = 0; k + 4 <= K; k += 4) {
        const uint8_t *r0 = b + k * rsb, *r1 = r0 + rsb, *r2 = r1 + rsb, *r3 = r2 + rsb;
        int32_t p01, p23;
        __m256i x01, x23;
        uint32_t* u = (uint32_t*)y;
        memcpy(&p01, x + k, 4);
        memcpy(&p23, x + k + 2, 4);
        x01 = _mm256_set1_epi32(p01);
        x23 = _mm256_set1_epi32(p23);
        for (n = 0; n + 16 <= N; n += 16) {
#define RLX__IW(r) (bsg ? _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i*)(const void*)((r) + n)))            \
                        : _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i*)(const void*)((r) + n))))
            __m256i w0 = RLX__IW(r0), w1 = RLX__IW(r1), w2 = RLX__IW(r2), w3 = RLX__IW(r3);
#undef RLX__IW
            __m256i lo = _mm256_add_epi32(_mm256_madd_epi16(_mm256_unpacklo_epi16(w0, w1), x01),
                                          _mm256_madd_epi16(_mm256_unpacklo_epi16(w2, w3), x23));
            __m256i hi = _mm256_add_epi32(_mm256_madd_epi16(_mm256_unpackhi_epi16(w0, w1), x01),
                                          _mm256_madd_epi16(_mm256_unpackhi_epi16(w2, w3), x23));
            __m256i* o = (__m256i*)(void*)(y + n);
            __m256i a0 = k ? _mm256_loadu_si256(o) : _mm256_setzero_si256();
            __m256i a1 = k ? _mm256_loadu_si256(o + 1) : _mm256_setzero_si256();
            _mm256_storeu_si256(o, _mm256_add_epi32(a0, _mm256_permute2x128_si256(lo, hi, 0x20)));
            _mm256_storeu_si256(o + 1, _mm256_add_epi32(a1, _mm256_permute2x128_si256(lo, hi, 0x31)));
        }
        for (; n < N; ++n) {
            uint32_t s = k ? u[n] : 0u;
            if (bsg)
                s += (uint32_t)(x[k] * (int32_t)(int8_t)r0[n] + x[k + 1] * (int32_t)(int8_t)r1[n] +
                                x[k + 2] * (int32_t)(int8_t)r2[n] + x[k + 3] * (int32_t)(int8_t)r3[n]);
            else
                s += (uint32_t)(x[k] * (int32_t)r0[n] + x[k + 1] * (int32_t)r1[n] + x[k + 2] * (int32_t)r2[n] +
                                x[k + 3] * (int32_t)r3[n]);
            u[n] = s;
        }
    }
    if (k == 0) {
        rlx__igemv_c(N, K, x, b, rsb, bsg, y);
        return;
    }
    for (; k < K; ++k) {
        const uint8_t* r = b + k * rsb;
        uint32_t* u = (uint32_t*)y;
        int32_t xk = x[k];
        for (n = 0; n < N; ++n) u[n] += (uint32_t)(xk * (bsg ? (int32_t)(int8_t)r[n] : (int32_t)r[n]));
    }
}
#endif

/* One integer GEMV split by output columns. */
typedef struct rlx__igemv_job {
    rlx__igemv_fn fn;
    int64_t N, K, rsb, step;
    const int16_t* x;
    const uint8_t* b;
    int bsg;
    int32_t* y;
} rlx__igemv_job;

static void rlx__igemv_task(void* ctx, int64_t task, int thread) {
    const rlx__igemv_job* j = (const rlx__igemv_job*)ctx;
    int64_t n0 = task * j->step;
    (void)thread;
    if (n0 >= j->N) return;
    j->fn(rlx__gemm_min(j->step, j->N - n0), j->K, j->x, j->b + n0, j->rsb, j->bsg, j->y + n0);
}

typedef void (*rlx__igemm_kernel_fn)(int64_t kg, const void* a, const void* b, int32_t* c, int64_t ldc, int acc,
                                     int mr, int nr);
typedef void (*rlx__ipack_fn)(int G, int R, int lines, int64_t kc, const uint8_t* src, int sgn, int flip,
                              int64_t ls, int64_t ks, void* dst);

/* One integer kernel family. */
typedef struct rlx__igemm_impl {
    int mr, nr, G, esz;          /* register tile, k group, bytes per packed value */
    int64_t kc, nc;              /* K block (a multiple of G) and N block (a multiple of nr) */
    int u8s8;                    /* the u8 x s8 family (offsets oa, ob) */
    rlx__igemm_kernel_fn kernel;
    rlx__ipack_fn pack;
} rlx__igemm_impl;

static void rlx__igemm_pick(unsigned features, rlx__igemm_impl* im) {
    im->mr = RLX__IGEMM_C_MR; im->nr = RLX__IGEMM_C_NR; im->G = 2; im->esz = 2; im->kc = 256; im->nc = 512;
    im->u8s8 = 0;
    im->kernel = rlx__igemm_kernel_c;
    im->pack = rlx__ipack_c;
#if defined(RLX__GEMM_X86)
    if (features & RLX__CPU_AVX512VNNI) {
        im->mr = 8; im->nr = 32; im->G = 4; im->esz = 1; im->kc = 512; im->nc = 512; im->u8s8 = 1;
        im->kernel = rlx__igemm_kernel_vnni;
        im->pack = rlx__ipack_avx2;
    } else if (features & RLX__CPU_AVX2) {
        im->mr = 6; im->nr = 16;
        im->kernel = rlx__igemm_kernel_avx2;
    }
#else
    (void)features;
#endif
}

/* Bytes of one thread's slice: a packed B block and a packed A panel, rounded to 64. */
static size_t rlx__igemm_slice_bytes(const rlx__igemm_impl* im) {
    size_t n = (size_t)((im->kc * im->nc + im->kc * im->mr) * im->esz);
    return (n + 63) & ~(size_t)63;
}

/* Workspace of rlx__igemm_with: per-thread slices for the largest family, then four int32 vectors of M or N and
   K int16 (the GEMV's row of A). */
static size_t rlx__igemm_workspace_bytes(int nthreads, int64_t M, int64_t N, int64_t K) {
    static const unsigned sets[3] = {0u, RLX__CPU_AVX2, RLX__CPU_AVX2 | RLX__CPU_AVX512 | RLX__CPU_AVX512VNNI};
    size_t most = 0, v;
    int i;
    for (i = 0; i < 3; ++i) {
        rlx__igemm_impl im;
        size_t s;
        rlx__igemm_pick(sets[i], &im);
        s = rlx__igemm_slice_bytes(&im);
        if (s > most) most = s;
    }
    v = rlx__szmul(rlx__szmul(rlx__szadd((size_t)M, (size_t)N), 2), sizeof(int32_t));
    v = rlx__szadd(v, rlx__szmul((size_t)K, sizeof(int16_t)));
    return rlx__szadd(rlx__szmul((size_t)(nthreads < 1 ? 1 : nthreads), most), rlx__round_up(v, 64));
}

typedef struct rlx__igemm_job {
    rlx__igemm_impl im;
    int64_t M, N, K;
    const uint8_t* A;
    int64_t rsa, csa;
    const uint8_t* B;
    int64_t rsb, csb;
    int asg, bsg;            /* A, B signed (i8) */
    int32_t* C;
    int64_t ldc;
    const int32_t *za, *zb, *rs, *cs;   /* ZA[M], ZB[N], rowsum(A')[M], colsum(B')[N] (see above) */
    int corr;                /* some ZA or ZB is not 0 */
    int avx2;                /* the CPU has AVX2 (for the zero-point pass) */
    char* ws;
    size_t slice;
    int64_t tn, mstep, nstep;
} rlx__igemm_job;

static void rlx__igemm_task(void* ctx, int64_t task, int thread) {
    const rlx__igemm_job* j = (const rlx__igemm_job*)ctx;
    const rlx__igemm_impl* im = &j->im;
    const int MR = im->mr, NR = im->nr, G = im->G;
    int64_t m0 = (task / j->tn) * j->mstep, n0 = (task % j->tn) * j->nstep, m1, n1, jc, pc, ir, jr, i, n;
    char* bp = j->ws + (size_t)thread * j->slice;
    char* ap = bp + im->kc * im->nc * im->esz;
    int fa = im->u8s8 && j->asg ? 0x80 : 0, fb = im->u8s8 && !j->bsg ? 0x80 : 0;
    if (m0 >= j->M || n0 >= j->N) return;
    m1 = rlx__gemm_min(j->M, m0 + j->mstep);
    n1 = rlx__gemm_min(j->N, n0 + j->nstep);
    for (jc = n0; jc < n1; jc += im->nc) {
        int64_t nc = rlx__gemm_min(im->nc, n1 - jc);
        for (pc = 0; pc < j->K; pc += im->kc) {
            int64_t kc = rlx__gemm_min(im->kc, j->K - pc), kg = rlx__gemm_cdiv(kc, G);
            for (jr = 0; jr < nc; jr += NR)
                im->pack(G, NR, (int)rlx__gemm_min(NR, nc - jr), kc, j->B + pc * j->rsb + (jc + jr) * j->csb, j->bsg,
                         fb, j->csb, j->rsb, bp + jr * kg * G * im->esz);
            for (ir = m0; ir < m1; ir += MR) {
                int mr = (int)rlx__gemm_min(MR, m1 - ir);
                im->pack(G, MR, mr, kc, j->A + ir * j->rsa + pc * j->csa, j->asg, fa, j->rsa, j->csa, ap);
                for (jr = 0; jr < nc; jr += NR)
                    im->kernel(kg, ap, bp + jr * kg * G * im->esz, j->C + ir * j->ldc + jc + jr, j->ldc, pc > 0, mr,
                               (int)rlx__gemm_min(NR, nc - jr));
            }
        }
    }
    if (j->corr) {   /* + K·ZA·ZB - ZB·rowsum(A') - ZA·colsum(B'), modulo 2^32 */
        uint32_t K32 = (uint32_t)j->K;
        const uint32_t *zb = (const uint32_t*)j->zb, *cs = (const uint32_t*)j->cs;
        for (i = m0; i < m1; ++i) {
            uint32_t za = (uint32_t)j->za[i], t = K32 * za - (uint32_t)j->rs[i];
            uint32_t* c = (uint32_t*)(j->C + i * j->ldc);
#if defined(RLX__GEMM_X86)
            if (j->avx2) { rlx__igemm_fix_avx2(n1 - n0, c + n0, zb + n0, cs + n0, t, za); continue; }
#endif
            for (n = n0; n < n1; ++n) c[n] += zb[n] * t - za * cs[n];
        }
    }
}

/* C[M,N] = sum_k (A[m,k] - za[m]) (B[k,n] - zb[n]) in int32 (see above). A(m,k) = A[m*rsa + k*csa] and B(k,n) =
   B[k*rsb + n*csb] are bytes, signed where asg / bsg; za, zb: zero points per row / column (NULL = 0), already
   widened to int32; C row-major with leading dimension ldc. ws: rlx__igemm_workspace_bytes(threads, M, N). */
static void rlx__igemm_with(unsigned features, rlx__pool* pool, void* ws, int64_t M, int64_t N, int64_t K,
                            const uint8_t* A, int64_t rsa, int64_t csa, int asg, const uint8_t* B, int64_t rsb,
                            int64_t csb, int bsg, const int32_t* za, const int32_t* zb, int32_t* C, int64_t ldc) {
    rlx__igemm_job j;
    /* the inline threshold of rlx__sgemm_with: a multiply-add counts 1/8 of an element operation */
    int nthreads = rlx__pool_threads(pool = rlx__pool_if(pool, (double)M * (double)N * (double)K * 0.125));
    int32_t *ZA, *ZB, *RS, *CS;
    int64_t i, k, n, mt, nt, tm, tn, tasks;
    int32_t oa, ob;
    int need_rs = 0, need_cs = 0;
    if (M <= 0 || N <= 0) return;
    memset(&j, 0, sizeof j);
    rlx__igemm_pick(features, &j.im);
    j.slice = rlx__igemm_slice_bytes(&j.im);
    {
        size_t most = rlx__igemm_workspace_bytes(nthreads, 0, 0, 0);   /* the slices, for every family */
        ZA = (int32_t*)(void*)((char*)ws + most);
    }
    ZB = ZA + M; RS = ZB + N; CS = RS + M;
    if (M == 1 && csb == 1 && K > 0) {   /* GEMV: x = A's row - za (int16), B streamed by rows */
        rlx__igemv_job g;
        int16_t* x = (int16_t*)(void*)(CS + N);
        uint32_t sx = 0, z0 = (uint32_t)(za ? za[0] : 0);
        int64_t gt = nthreads;
        for (k = 0; k < K; ++k) {
            int32_t v = asg ? (int32_t)(int8_t)A[k * csa] : (int32_t)A[k * csa];
            x[k] = (int16_t)(v - (int32_t)z0);
            sx += (uint32_t)(int32_t)x[k];
        }
        g.fn = rlx__igemv_c;
#if defined(RLX__GEMM_X86)
        if (features & RLX__CPU_AVX2) g.fn = rlx__igemv_avx2;
#endif
        g.N = N; g.K = K; g.rsb = rsb; g.x = x; g.b = B; g.bsg = bsg; g.y = C;
        if (N * K < ((int64_t)1 << 19) || N < 128) gt = 1;
        g.step = rlx__gemm_cdiv(rlx__gemm_cdiv(N, gt), 16) * 16;
        gt = rlx__gemm_cdiv(N, g.step);
        if (gt <= 1) rlx__igemv_task(&g, 0, 0);
        else rlx__parallel_for(pool, gt, rlx__igemv_task, &g);
        if (zb)
            for (n = 0; n < N; ++n) C[n] = (int32_t)((uint32_t)C[n] - (uint32_t)zb[n] * sx);
        return;
    }
    oa = j.im.u8s8 && asg ? 128 : 0;
    ob = j.im.u8s8 && !bsg ? 128 : 0;
    for (i = 0; i < M; ++i) { ZA[i] = (za ? za[i] : 0) + oa; if (ZA[i]) need_cs = 1; }
    for (n = 0; n < N; ++n) { ZB[n] = (zb ? zb[n] : 0) - ob; if (ZB[n]) need_rs = 1; }
    if (K <= 0) {   /* only the zero-point product remains, and it is 0 with K = 0 */
        for (i = 0; i < M; ++i)
            for (n = 0; n < N; ++n) C[i * ldc + n] = 0;
        return;
    }
    if (need_rs)
        for (i = 0; i < M; ++i) {
            uint32_t s = 0;
            const uint8_t* a = A + i * rsa;
            if (csa == 1 && asg) for (k = 0; k < K; ++k) s += (uint32_t)(int32_t)(int8_t)a[k];
            else if (csa == 1) for (k = 0; k < K; ++k) s += a[k];
            else if (asg) for (k = 0; k < K; ++k) s += (uint32_t)(int32_t)(int8_t)a[k * csa];
            else for (k = 0; k < K; ++k) s += a[k * csa];
            RS[i] = (int32_t)(s + (uint32_t)K * (uint32_t)oa);
        }
    if (need_cs) {
        for (n = 0; n < N; ++n) CS[n] = 0;
#if defined(RLX__GEMM_X86)
        if ((features & RLX__CPU_AVX2) && csb == 1) rlx__igemm_colsum_avx2(K, N, B, rsb, bsg, (uint32_t*)CS);
        else
#endif
        for (k = 0; k < K; ++k) {
            const uint8_t* b = B + k * rsb;
            uint32_t* cs = (uint32_t*)CS;
            if (csb == 1 && bsg) for (n = 0; n < N; ++n) cs[n] += (uint32_t)(int32_t)(int8_t)b[n];
            else if (csb == 1) for (n = 0; n < N; ++n) cs[n] += b[n];
            else if (bsg) for (n = 0; n < N; ++n) cs[n] += (uint32_t)(int32_t)(int8_t)b[n * csb];
            else for (n = 0; n < N; ++n) cs[n] += b[n * csb];
        }
        for (n = 0; n < N; ++n) CS[n] = (int32_t)((uint32_t)CS[n] - (uint32_t)K * (uint32_t)ob);
    }
    j.M = M; j.N = N; j.K = K;
    j.A = A; j.rsa = rsa; j.csa = csa; j.asg = asg;
    j.B = B; j.rsb = rsb; j.csb = csb; j.bsg = bsg;
    j.C = C; j.ldc = ldc;
    j.za = ZA; j.zb = ZB; j.rs = RS; j.cs = CS;
    j.corr = need_rs || need_cs;
    j.avx2 = (features & RLX__CPU_AVX2) != 0;
    if (!need_rs) memset(RS, 0, sizeof(int32_t) * (size_t)M);
    if (!need_cs) memset(CS, 0, sizeof(int32_t) * (size_t)N);
    j.ws = (char*)ws;
    /* task grid: columns first (each task packs its own B block), then rows */
    mt = rlx__gemm_cdiv(M, j.im.mr); nt = rlx__gemm_cdiv(N, j.im.nr);
    tasks = (double)M * (double)N * (double)K < 262144.0 ? 1 : nthreads;
    tn = rlx__gemm_min(tasks, nt);
    tm = rlx__gemm_min(mt, tasks / tn);
    if (tm < 1) tm = 1;
    j.nstep = rlx__gemm_cdiv(nt, tn) * j.im.nr;
    j.mstep = rlx__gemm_cdiv(mt, tm) * j.im.mr;
    j.tn = rlx__gemm_cdiv(N, j.nstep);
    tasks = rlx__gemm_cdiv(M, j.mstep) * j.tn;
    if (tasks <= 1) rlx__igemm_task(&j, 0, 0);
    else rlx__parallel_for(pool, tasks, rlx__igemm_task, &j);
}

/* ---- strided iteration shared by elementwise, cast and layout kernels ----
   Operand 0 is the output (contiguous), operands 1.. are inputs with arbitrary element strides (0 for a
   broadcast dim). Dims are collapsed where every operand is contiguous across them; the innermost dim is
   handed to an `inner` function, outer rows are split across threads. */
typedef struct rlx__iter {
    int rank, nops;
    int64_t dims[RLX_MAX_RANK];
    int64_t st[4][RLX_MAX_RANK];
    char* base[4];
    size_t esz[4];
} rlx__iter;

typedef void (*rlx__inner_fn)(const void* ctx, int64_t n, char* const* ptr, const int64_t* st);

/* Set operand k's strides so that input of (rank r, shape s) broadcasts to the iterator's dims; `st` may
   override the natural contiguous strides (transpose, slice). */
static void rlx__iter_operand(rlx__iter* it, int k, void* base, size_t esz, int r, const int64_t* s,
                              const int64_t* st) {
    int i, off = it->rank - r;
    int64_t acc = 1;
    int64_t nat[RLX_MAX_RANK];
    for (i = r - 1; i >= 0; i--) { nat[i] = acc; acc *= s[i]; }
    for (i = 0; i < it->rank; i++) {
        if (i < off) it->st[k][i] = 0;
        else if (s[i - off] == 1 && it->dims[i] != 1) it->st[k][i] = 0;
        else it->st[k][i] = st ? st[i - off] : nat[i - off];
    }
    it->base[k] = (char*)base;
    it->esz[k] = esz;
}

static void rlx__iter_init(rlx__iter* it, int nops, void* out, size_t esz, int rank, const int64_t* dims) {
    memset(it, 0, sizeof *it);
    it->nops = nops;
    it->rank = rank;
    if (rank) memcpy(it->dims, dims, sizeof(int64_t) * (size_t)rank);
    rlx__iter_operand(it, 0, out, esz, rank, dims, NULL);
}

static void rlx__iter_collapse(rlx__iter* it) {
    int i, k, r = 0;
    rlx__iter c = *it;
    /* drop size-1 dims */
    for (i = 0; i < it->rank; i++) {
        if (it->dims[i] == 1) continue;
        c.dims[r] = it->dims[i];
        for (k = 0; k < it->nops; k++) c.st[k][r] = it->st[k][i];
        r++;
    }
    c.rank = r;
    /* merge i into i+1 when contiguous for every operand */
    r = 0;
    for (i = 0; i < c.rank; i++) {
        int can = r > 0;
        for (k = 0; k < c.nops && can; k++)
            if (c.st[k][r - 1] != c.st[k][i] * c.dims[i]) can = 0;
        if (can) {
            c.dims[r - 1] *= c.dims[i];
            for (k = 0; k < c.nops; k++) c.st[k][r - 1] = c.st[k][i];
        } else {
            c.dims[r] = c.dims[i];
            for (k = 0; k < c.nops; k++) c.st[k][r] = c.st[k][i];
            r++;
        }
    }
    if (r == 0) { c.dims[0] = 1; for (k = 0; k < c.nops; k++) c.st[k][0] = 1; r = 1; }
    c.rank = r;
    *it = c;
}

typedef struct rlx__iter_job { const rlx__iter* it; rlx__inner_fn fn; const void* ctx; int64_t rows, per; } rlx__iter_job;

static void rlx__iter_rows(const rlx__iter* it, rlx__inner_fn fn, const void* ctx, int64_t r0, int64_t r1) {
    int64_t idx[RLX_MAX_RANK], rem = r0, row;
    int i, k, outer = it->rank - 1;
    char* ptr[4];
    int64_t ist[4];
    for (i = outer - 1; i >= 0; i--) { idx[i] = rem % it->dims[i]; rem /= it->dims[i]; }
    for (k = 0; k < it->nops; k++) ist[k] = it->st[k][outer];
    for (row = r0; row < r1; row++) {
        for (k = 0; k < it->nops; k++) {
            int64_t o = 0;
            for (i = 0; i < outer; i++) o += idx[i] * it->st[k][i];
            ptr[k] = it->base[k] + o * (int64_t)it->esz[k];
        }
        fn(ctx, it->dims[outer], ptr, ist);
        for (i = outer - 1; i >= 0; i--) {
            if (++idx[i] < it->dims[i]) break;
            idx[i] = 0;
        }
    }
}
static void rlx__iter_task(void* vjob, int64_t t, int thread) {
    const rlx__iter_job* j = (const rlx__iter_job*)vjob;
    int64_t r0 = t * j->per, r1 = RLX__MIN(j->rows, r0 + j->per);
    RLX__UNUSED(thread);
    rlx__iter_rows(j->it, j->fn, j->ctx, r0, r1);
}
static void rlx__iter_run(rlx__iter* it, rlx__inner_fn fn, const void* ctx, rlx__pool* pool) {
    int64_t rows = 1, total, tasks;
    int i;
    rlx__iter_collapse(it);
    for (i = 0; i < it->rank - 1; i++) rows *= it->dims[i];
    total = rows * it->dims[it->rank - 1];
    pool = rlx__pool_if(pool, (double)total);
    tasks = rlx__pool_threads(pool) > 1 ? RLX__MIN(rows, (int64_t)rlx__pool_threads(pool) * 4) : 1;
    if (tasks <= 1) {
        rlx__iter_rows(it, fn, ctx, 0, rows);
    } else {
        rlx__iter_job j;
        j.it = it; j.fn = fn; j.ctx = ctx; j.rows = rows; j.per = (rows + tasks - 1) / tasks;
        rlx__parallel_for(pool, (rows + j.per - 1) / j.per, rlx__iter_task, &j);
    }
}

/* ---- element math (the reference semantics every backend must match) ---- */
static double rlx__gelu_d(double x) { return 0.5 * x * (1.0 + erf(x * 0.70710678118654752440)); }
static double rlx__gelu_tanh_d(double x) {
    return 0.5 * x * (1.0 + tanh(0.79788456080286535588 * (x + 0.044715 * x * x * x)));
}
static double rlx__sigmoid_d(double x) { return 1.0 / (1.0 + exp(-x)); }

static double rlx__unary_d(rlx_op op, double x) {
    switch (op) {
    case RLX_OP_NEG: return -x;
    case RLX_OP_ABS: return fabs(x);
    case RLX_OP_EXP: return exp(x);
    case RLX_OP_LOG: return log(x);
    case RLX_OP_SQRT: return sqrt(x);
    case RLX_OP_RSQRT: return 1.0 / sqrt(x);
    case RLX_OP_SIN: return sin(x);
    case RLX_OP_COS: return cos(x);
    case RLX_OP_TAN: return tan(x);
    case RLX_OP_ATAN: return atan(x);
    case RLX_OP_TANH: return tanh(x);
    case RLX_OP_SIGMOID: return rlx__sigmoid_d(x);
    case RLX_OP_RELU: return x > 0.0 ? x : (x != x ? x : 0.0);
    case RLX_OP_GELU: return rlx__gelu_d(x);
    case RLX_OP_GELU_TANH: return rlx__gelu_tanh_d(x);
    case RLX_OP_SILU: return x * rlx__sigmoid_d(x);
    case RLX_OP_ERF: return erf(x);
    case RLX_OP_ROUND: return nearbyint(x);  /* default rounding mode: half to even */
    case RLX_OP_FLOOR: return floor(x);
    case RLX_OP_CEIL: return ceil(x);
    default: return x;
    }
}
static float rlx__unary_f(rlx_op op, float x) {
    switch (op) {
    case RLX_OP_NEG: return -x;
    case RLX_OP_ABS: return fabsf(x);
    case RLX_OP_EXP: return expf(x);
    case RLX_OP_LOG: return logf(x);
    case RLX_OP_SQRT: return sqrtf(x);
    case RLX_OP_RSQRT: return 1.0f / sqrtf(x);
    case RLX_OP_SIN: return sinf(x);
    case RLX_OP_COS: return cosf(x);
    case RLX_OP_TAN: return tanf(x);
    case RLX_OP_ATAN: return atanf(x);
    case RLX_OP_TANH: return tanhf(x);
    case RLX_OP_SIGMOID: return 1.0f / (1.0f + expf(-x));
    case RLX_OP_RELU: return x > 0.0f ? x : (x != x ? x : 0.0f);
    case RLX_OP_GELU: return 0.5f * x * (1.0f + erff(x * 0.70710678f));
    case RLX_OP_GELU_TANH: return 0.5f * x * (1.0f + tanhf(0.79788456f * (x + 0.044715f * x * x * x)));
    case RLX_OP_SILU: return x / (1.0f + expf(-x));
    case RLX_OP_ERF: return erff(x);
    case RLX_OP_ROUND: return nearbyintf(x);
    case RLX_OP_FLOOR: return floorf(x);
    case RLX_OP_CEIL: return ceilf(x);
    default: return x;
    }
}
static int64_t rlx__unary_i(rlx_op op, int64_t x) {
    switch (op) {
    case RLX_OP_NEG: return (int64_t)(0u - (uint64_t)x);
    case RLX_OP_ABS: return x < 0 ? (int64_t)(0u - (uint64_t)x) : x;
    case RLX_OP_RELU: return x > 0 ? x : 0;
    default: return x;
    }
}

static double rlx__binary_d(rlx_op op, double a, double b) {
    switch (op) {
    case RLX_OP_ADD: return a + b;
    case RLX_OP_SUB: return a - b;
    case RLX_OP_MUL: return a * b;
    case RLX_OP_DIV: return a / b;
    case RLX_OP_POW: return pow(a, b);
    case RLX_OP_MAX: return (a != a || b != b) ? (double)NAN : (a > b ? a : b);
    case RLX_OP_MIN: return (a != a || b != b) ? (double)NAN : (a < b ? a : b);
    case RLX_OP_EQ: return a == b;
    case RLX_OP_NE: return a != b;
    case RLX_OP_LT: return a < b;
    case RLX_OP_LE: return a <= b;
    case RLX_OP_GT: return a > b;
    case RLX_OP_GE: return a >= b;
    default: return 0.0;
    }
}
static int64_t rlx__ipow(int64_t a, int64_t b) {
    uint64_t r = 1, base = (uint64_t)a;
    if (b < 0) return 0;
    while (b) { if (b & 1) r *= base; base *= base; b >>= 1; }
    return (int64_t)r;
}
static int64_t rlx__binary_i(rlx_op op, int64_t a, int64_t b) {
    switch (op) {
    case RLX_OP_ADD: return (int64_t)((uint64_t)a + (uint64_t)b);
    case RLX_OP_SUB: return (int64_t)((uint64_t)a - (uint64_t)b);
    case RLX_OP_MUL: return (int64_t)((uint64_t)a * (uint64_t)b);
    case RLX_OP_DIV: return b == 0 ? 0 : (b == -1 ? (int64_t)(0u - (uint64_t)a) : a / b);
    case RLX_OP_POW: return rlx__ipow(a, b);
    case RLX_OP_MAX: return a > b ? a : b;
    case RLX_OP_MIN: return a < b ? a : b;
    case RLX_OP_EQ: return a == b;
    case RLX_OP_NE: return a != b;
    case RLX_OP_LT: return a < b;
    case RLX_OP_LE: return a <= b;
    case RLX_OP_GT: return a > b;
    case RLX_OP_GE: return a >= b;
    default: return 0;
    }
}
static float rlx__binary_f(rlx_op op, float a, float b) {
    switch (op) {
    case RLX_OP_ADD: return a + b;
    case RLX_OP_SUB: return a - b;
    case RLX_OP_MUL: return a * b;
    case RLX_OP_DIV: return a / b;
    case RLX_OP_POW: return powf(a, b);
    case RLX_OP_MAX: return (a != a || b != b) ? NAN : (a > b ? a : b);
    case RLX_OP_MIN: return (a != a || b != b) ? NAN : (a < b ? a : b);
    default: return 0.0f;
    }
}

/* ---- inner functions for the iterator ---- */
typedef struct rlx__ew_ctx { rlx_op op; rlx_dtype in_dt, out_dt; size_t esz; } rlx__ew_ctx;

static void rlx__inner_unary(const void* vc, int64_t n, char* const* p, const int64_t* st) {
    const rlx__ew_ctx* c = (const rlx__ew_ctx*)vc;
    int64_t i;
    if (c->in_dt == RLX_F32) {
        float* o = (float*)p[0];
        const float* x = (const float*)p[1];
        if (st[1] == 1) {
            switch (c->op) { /* the common activations get a loop of their own */
            case RLX_OP_RELU: for (i = 0; i < n; i++) o[i] = x[i] > 0.0f ? x[i] : (x[i] != x[i] ? x[i] : 0.0f); return;
            case RLX_OP_NEG: for (i = 0; i < n; i++) o[i] = -x[i]; return;
            case RLX_OP_EXP: for (i = 0; i < n; i++) o[i] = expf(x[i]); return;
            case RLX_OP_SILU: for (i = 0; i < n; i++) o[i] = x[i] / (1.0f + expf(-x[i])); return;
            default: for (i = 0; i < n; i++) o[i] = rlx__unary_f(c->op, x[i]); return;
            }
        }
        for (i = 0; i < n; i++) o[i] = rlx__unary_f(c->op, x[i * st[1]]);
        return;
    }
    if (rlx__is_float(c->in_dt)) {
        for (i = 0; i < n; i++) rlx__store_f64(p[0], c->out_dt, i, rlx__unary_d(c->op, rlx__load_f64(p[1], c->in_dt, i * st[1])));
    } else {
        for (i = 0; i < n; i++) rlx__store_i64(p[0], c->out_dt, i, rlx__unary_i(c->op, rlx__load_i64(p[1], c->in_dt, i * st[1])), 0);
    }
}

static void rlx__inner_binary(const void* vc, int64_t n, char* const* p, const int64_t* st) {
    const rlx__ew_ctx* c = (const rlx__ew_ctx*)vc;
    int64_t i, sa = st[1], sb = st[2];
    if (c->in_dt == RLX_F32 && c->out_dt == RLX_F32) {
        float* o = (float*)p[0];
        const float *a = (const float*)p[1], *b = (const float*)p[2];
        if (sa == 1 && sb == 1) {
            switch (c->op) {
            case RLX_OP_ADD: for (i = 0; i < n; i++) o[i] = a[i] + b[i]; return;
            case RLX_OP_SUB: for (i = 0; i < n; i++) o[i] = a[i] - b[i]; return;
            case RLX_OP_MUL: for (i = 0; i < n; i++) o[i] = a[i] * b[i]; return;
            case RLX_OP_DIV: for (i = 0; i < n; i++) o[i] = a[i] / b[i]; return;
            default: break;
            }
        } else if (sa == 1 && sb == 0) {
            float bv = b[0];
            switch (c->op) {
            case RLX_OP_ADD: for (i = 0; i < n; i++) o[i] = a[i] + bv; return;
            case RLX_OP_SUB: for (i = 0; i < n; i++) o[i] = a[i] - bv; return;
            case RLX_OP_MUL: for (i = 0; i < n; i++) o[i] = a[i] * bv; return;
            case RLX_OP_DIV: for (i = 0; i < n; i++) o[i] = a[i] / bv; return;
            default: break;
            }
        } else if (sa == 0 && sb == 1) {
            float av = a[0];
            switch (c->op) {
            case RLX_OP_ADD: for (i = 0; i < n; i++) o[i] = av + b[i]; return;
            case RLX_OP_SUB: for (i = 0; i < n; i++) o[i] = av - b[i]; return;
            case RLX_OP_MUL: for (i = 0; i < n; i++) o[i] = av * b[i]; return;
            case RLX_OP_DIV: for (i = 0; i < n; i++) o[i] = av / b[i]; return;
            default: break;
            }
        }
        for (i = 0; i < n; i++) o[i] = rlx__binary_f(c->op, a[i * sa], b[i * sb]);
        return;
    }
    if (rlx__is_float(c->in_dt)) {
        for (i = 0; i < n; i++) {
            double r = rlx__binary_d(c->op, rlx__load_f64(p[1], c->in_dt, i * sa), rlx__load_f64(p[2], c->in_dt, i * sb));
            rlx__store_f64(p[0], c->out_dt, i, r);
        }
    } else {
        for (i = 0; i < n; i++) {
            int64_t r = rlx__binary_i(c->op, rlx__load_i64(p[1], c->in_dt, i * sa), rlx__load_i64(p[2], c->in_dt, i * sb));
            rlx__store_i64(p[0], c->out_dt, i, r, 0);
        }
    }
}

static void rlx__inner_where(const void* vc, int64_t n, char* const* p, const int64_t* st) {
    const rlx__ew_ctx* c = (const rlx__ew_ctx*)vc;
    int64_t i;
    size_t e = c->esz;
    const uint8_t* cond = (const uint8_t*)p[1];
    for (i = 0; i < n; i++) {
        const char* src = cond[i * st[1]] ? p[2] + i * st[2] * (int64_t)e : p[3] + i * st[3] * (int64_t)e;
        memcpy(p[0] + i * (int64_t)e, src, e);
    }
}

static void rlx__inner_cast(const void* vc, int64_t n, char* const* p, const int64_t* st) {
    const rlx__ew_ctx* c = (const rlx__ew_ctx*)vc;
    int64_t i;
    if (st[1] == 1) { rlx__convert(p[0], c->out_dt, p[1], c->in_dt, n); return; }
    for (i = 0; i < n; i++) rlx__convert_elem(p[0], c->out_dt, i, p[1], c->in_dt, i * st[1]);
}

static void rlx__inner_copy(const void* vc, int64_t n, char* const* p, const int64_t* st) {
    const rlx__ew_ctx* c = (const rlx__ew_ctx*)vc;
    int64_t i;
    size_t e = c->esz;
    if (st[1] == 1) { memcpy(p[0], p[1], (size_t)n * e); return; }
    switch (e) {
    case 4: for (i = 0; i < n; i++) memcpy(p[0] + i * 4, p[1] + i * st[1] * 4, 4); break;
    case 2: for (i = 0; i < n; i++) memcpy(p[0] + i * 2, p[1] + i * st[1] * 2, 2); break;
    default: for (i = 0; i < n; i++) memcpy(p[0] + i * (int64_t)e, p[1] + i * st[1] * (int64_t)e, e); break;
    }
}

/* Copy x (viewed with custom strides `st` and base offset) into a contiguous out of shape (rank, dims). */
static void rlx__strided_copy(void* out, const void* x, size_t esz, int rank, const int64_t* dims,
                              const int64_t* st, rlx__pool* pool) {
    rlx__iter it;
    rlx__ew_ctx c;
    memset(&c, 0, sizeof c);
    c.esz = esz;
    rlx__iter_init(&it, 2, out, esz, rank, dims);
    rlx__iter_operand(&it, 1, (void*)(uintptr_t)x, esz, rank, dims, st);
    rlx__iter_run(&it, rlx__inner_copy, &c, pool);
}

/* ---- kernels ---- */
static void rlx__contig_strides(int rank, const int64_t* s, int64_t* st) {
    int64_t acc = 1;
    int i;
    for (i = rank - 1; i >= 0; i--) { st[i] = acc; acc *= s[i]; }
}

/* matmul f32 through the packed GEMM; generic dtypes through a plain triple loop */
typedef struct rlx__mm_geo {
    int rb;                                       /* batch rank of the output */
    int64_t bdims[RLX_MAX_RANK], ast[RLX_MAX_RANK], bst[RLX_MAX_RANK];
    int64_t M, N, K, nbatch;
} rlx__mm_geo;

static void rlx__mm_geometry(const rlx_graph* g, const rlx__node* nd, rlx__mm_geo* m) {
    const rlx__node *na = rlx__N(g, rlx__in(g, nd, 0)), *nb = rlx__N(g, rlx__in(g, nd, 1));
    int64_t as[RLX_MAX_RANK], bs[RLX_MAX_RANK];
    int ra = na->rank, rb = nb->rank, i, rbatch = 0;
    memcpy(as, na->shape, sizeof(int64_t) * (size_t)ra);
    memcpy(bs, nb->shape, sizeof(int64_t) * (size_t)rb);
    if (ra == 1) { as[1] = as[0]; as[0] = 1; ra = 2; }
    if (rb == 1) { bs[1] = 1; rb = 2; }
    if (nd->ia[3]) { int64_t t = bs[rb - 1]; bs[rb - 1] = bs[rb - 2]; bs[rb - 2] = t; }   /* b stored [..., N, K] */
    m->M = as[ra - 2]; m->K = as[ra - 1]; m->N = bs[rb - 1];
    rlx__broadcast(ra - 2, as, rb - 2, bs, &rbatch, m->bdims);
    m->rb = rbatch;
    m->nbatch = rlx__numel(rbatch, m->bdims);
    {   /* batch strides in matrices (0 where broadcast) */
        int64_t acc = 1;
        for (i = rbatch - 1; i >= 0; i--) {
            int j = i - (rbatch - (ra - 2));
            m->ast[i] = (j < 0 || as[j] == 1) ? 0 : acc;
            if (j >= 0) acc *= as[j];
        }
        acc = 1;
        for (i = rbatch - 1; i >= 0; i--) {
            int j = i - (rbatch - (rb - 2));
            m->bst[i] = (j < 0 || bs[j] == 1) ? 0 : acc;
            if (j >= 0) acc *= bs[j];
        }
    }
}
static void rlx__mm_batch_offsets(const rlx__mm_geo* m, int64_t b, int64_t* ao, int64_t* bo) {
    int i;
    *ao = *bo = 0;
    for (i = m->rb - 1; i >= 0; i--) {
        int64_t idx = b % m->bdims[i];
        b /= m->bdims[i];
        *ao += idx * m->ast[i];
        *bo += idx * m->bst[i];
    }
}

typedef struct rlx__mm_job {
    const rlx__mm_geo* m;
    const char *a, *b;
    char* c;
    rlx_dtype dt;
    int64_t bk, bn;   /* element strides of b along k and n (1, K when b is stored transposed: MATMUL ia[3]) */
} rlx__mm_job;

/* generic matmul: one task per (batch, row) */
static void rlx__mm_generic_task(void* vj, int64_t t, int thread) {
    const rlx__mm_job* j = (const rlx__mm_job*)vj;
    const rlx__mm_geo* m = j->m;
    int64_t b = t / m->M, i = t % m->M, ao, bo, n, k;
    size_t e = rlx_dtype_size(j->dt);
    const char *A, *B;
    char* C;
    RLX__UNUSED(thread);
    rlx__mm_batch_offsets(m, b, &ao, &bo);
    A = j->a + (size_t)(ao * m->M * m->K) * e;
    B = j->b + (size_t)(bo * m->K * m->N) * e;
    C = j->c + (size_t)(b * m->M * m->N) * e;
    if (j->dt == RLX_F64 && j->bn == 1) {   /* row i of C as axpys over the rows of B: contiguous, each sum in k order */
        double* c = (double*)(void*)C + i * m->N;
        const double* a = (const double*)(const void*)A + i * m->K;
        for (n = 0; n < m->N; n++) c[n] = 0.0;
        for (k = 0; k < m->K; k++) {
            const double* bk = (const double*)(const void*)B + k * j->bk;
            double av = a[k];
            for (n = 0; n < m->N; n++) c[n] += av * bk[n];
        }
        return;
    }
    for (n = 0; n < m->N; n++) {
        if (j->dt == RLX_F64) {
            double s = 0;
            for (k = 0; k < m->K; k++) s += ((const double*)A)[i * m->K + k] * ((const double*)B)[k * j->bk + n * j->bn];
            ((double*)C)[i * m->N + n] = s;
        } else if (rlx__is_float(j->dt)) {
            float s = 0;
            for (k = 0; k < m->K; k++)
                s += (float)rlx__load_f64(A, j->dt, i * m->K + k) * (float)rlx__load_f64(B, j->dt, k * j->bk + n * j->bn);
            rlx__store_f64(C, j->dt, i * m->N + n, (double)s);
        } else {
            uint64_t s = 0;
            for (k = 0; k < m->K; k++)
                s += (uint64_t)rlx__load_i64(A, j->dt, i * m->K + k) * (uint64_t)rlx__load_i64(B, j->dt, k * j->bk + n * j->bn);
            rlx__store_i64(C, j->dt, i * m->N + n, (int64_t)s, 0);
        }
    }
}

static void rlx__k_matmul(const rlx_graph* g, const rlx__node* nd, void* const* in, void* out, rlx__pool* pool, void* ws) {
    rlx__mm_geo m;
    int64_t b;
    rlx__mm_geometry(g, nd, &m);
    if (nd->dtype == RLX_F32) {
        for (b = 0; b < m.nbatch; b++) {
            int64_t ao, bo;
            rlx__mm_batch_offsets(&m, b, &ao, &bo);
            rlx__sgemm(pool, ws, m.M, m.N, m.K, (const float*)in[0] + ao * m.M * m.K, m.K, 1,
                       (const float*)in[1] + bo * m.K * m.N, nd->ia[3] ? 1 : m.N, nd->ia[3] ? m.K : 1,
                       (float*)out + b * m.M * m.N, m.N);
        }
    } else if (nd->dtype == RLX_F16 || nd->dtype == RLX_BF16) {
        unsigned f = rlx__cpu_features_half();
        for (b = 0; b < m.nbatch; b++) {
            int64_t ao, bo;
            rlx__mm_batch_offsets(&m, b, &ao, &bo);
            rlx__hgemm_with(f, pool, ws, m.M, m.N, m.K, (const uint16_t*)in[0] + ao * m.M * m.K, m.K, 1,
                            (const uint16_t*)in[1] + bo * m.K * m.N, nd->ia[3] ? 1 : m.N, nd->ia[3] ? m.K : 1,
                            (uint16_t*)out + b * m.M * m.N, m.N, nd->dtype == RLX_BF16);
        }
    } else {
        rlx__mm_job j;
        j.m = &m; j.a = (const char*)in[0]; j.b = (const char*)in[1]; j.c = (char*)out; j.dt = nd->dtype;
        j.bk = nd->ia[3] ? 1 : m.N; j.bn = nd->ia[3] ? m.K : 1;
        rlx__parallel_for(rlx__pool_if(pool, (double)m.M * (double)m.nbatch * (double)m.N * (double)m.K), m.nbatch * m.M,
                          rlx__mm_generic_task, &j);
    }
}

/* matmul_integer: rlx__igemm_with per batch; the zero points widened to int32 per row / column in the workspace
   (after the GEMM's own part) */
static void rlx__k_matmul_integer(const rlx_graph* g, const rlx__node* nd, void* const* in, void* out, rlx__pool* pool,
                                  void* ws) {
    const rlx__node *na = rlx__N(g, rlx__in(g, nd, 0)), *nb = rlx__N(g, rlx__in(g, nd, 1));
    rlx__mm_geo m;
    int32_t *za = NULL, *zb = NULL, *zv;
    int64_t b, i;
    int k = 2;
    unsigned f = rlx__cpu_features();
    rlx__mm_geometry(g, nd, &m);
    zv = (int32_t*)(void*)((char*)ws + rlx__igemm_workspace_bytes(rlx__pool_threads(pool), m.M, m.N, m.K));
    if (nd->ia[4]) {
        const rlx__node* nz = rlx__N(g, rlx__in(g, nd, k));
        int one = rlx__node_numel(nz) == 1;
        za = zv;
        for (i = 0; i < m.M; i++) za[i] = (int32_t)rlx__load_i64(in[k], nz->dtype, one ? 0 : i);
        k++;
    }
    if (nd->ia[5]) {
        const rlx__node* nz = rlx__N(g, rlx__in(g, nd, k));
        int one = rlx__node_numel(nz) == 1;
        zb = zv + m.M;
        for (i = 0; i < m.N; i++) zb[i] = (int32_t)rlx__load_i64(in[k], nz->dtype, one ? 0 : i);
    }
    for (b = 0; b < m.nbatch; b++) {
        int64_t ao, bo;
        rlx__mm_batch_offsets(&m, b, &ao, &bo);
        rlx__igemm_with(f, pool, ws, m.M, m.N, m.K, (const uint8_t*)in[0] + ao * m.M * m.K, m.K, 1, na->dtype == RLX_I8,
                        (const uint8_t*)in[1] + bo * m.K * m.N, m.N, 1, nb->dtype == RLX_I8, za, zb,
                        (int32_t*)out + b * m.M * m.N, m.N);
    }
}

/* reductions: for each output element, walk the reduced sub-tensor */
typedef struct rlx__red_job {
    const rlx__node* nd;
    rlx_dtype in_dt;
    const char* x;
    char* out;
    int nk, nr;                      /* kept / reduced dims */
    int64_t kd[RLX_MAX_RANK], ks[RLX_MAX_RANK], rd[RLX_MAX_RANK], rs[RLX_MAX_RANK];
    int64_t nout, per, count;
} rlx__red_job;

static void rlx__red_task(void* vj, int64_t t, int thread) {
    const rlx__red_job* j = (const rlx__red_job*)vj;
    int64_t o0 = t * j->per, o1 = RLX__MIN(j->nout, o0 + j->per), o;
    rlx_op op = j->nd->op;
    int isf = rlx__is_float(j->in_dt);
    RLX__UNUSED(thread);
    for (o = o0; o < o1; o++) {
        int64_t base = 0, rem = o, idx[RLX_MAX_RANK], e;
        int i;
        double accd = (op == RLX_OP_PROD) ? 1.0 : 0.0;
        uint64_t acci = (op == RLX_OP_PROD) ? 1u : 0u;
        int64_t mi = 0;
        int first = 1, nan = 0;
        for (i = j->nk - 1; i >= 0; i--) { base += (rem % j->kd[i]) * j->ks[i]; rem /= j->kd[i]; }
        memset(idx, 0, sizeof idx);
        for (e = 0; e < j->count; e++) {
            int64_t off = base;
            for (i = 0; i < j->nr; i++) off += idx[i] * j->rs[i];
            if (isf) {
                double v = rlx__load_f64(j->x, j->in_dt, off);
                switch (op) {
                case RLX_OP_SUM: case RLX_OP_MEAN: accd += v; break;
                case RLX_OP_PROD: accd *= v; break;
                case RLX_OP_REDUCE_MAX: if (v != v) nan = 1; else if (first || v > accd) accd = v; break;
                case RLX_OP_REDUCE_MIN: if (v != v) nan = 1; else if (first || v < accd) accd = v; break;
                default: break;
                }
            } else {
                int64_t v = rlx__load_i64(j->x, j->in_dt, off);
                switch (op) {
                case RLX_OP_SUM: acci += (uint64_t)v; break;
                case RLX_OP_PROD: acci *= (uint64_t)v; break;
                case RLX_OP_REDUCE_MAX: if (first || v > mi) mi = v; break;
                case RLX_OP_REDUCE_MIN: if (first || v < mi) mi = v; break;
                default: break;
                }
            }
            first = 0;
            for (i = j->nr - 1; i >= 0; i--) {
                if (++idx[i] < j->rd[i]) break;
                idx[i] = 0;
            }
        }
        if (isf) {
            if (op == RLX_OP_MEAN) accd /= (double)j->count;
            if (nan) accd = (double)NAN;
            rlx__store_f64(j->out, j->nd->dtype, o, accd);
        } else {
            rlx__store_i64(j->out, j->nd->dtype, o,
                           (op == RLX_OP_SUM || op == RLX_OP_PROD) ? (int64_t)acci : mi, 0);
        }
    }
}

static void rlx__k_reduce(const rlx_graph* g, const rlx__node* nd, void* const* in, void* out, rlx__pool* pool) {
    const rlx__node* nx = rlx__N(g, rlx__in(g, nd, 0));
    rlx__red_job j;
    int64_t st[RLX_MAX_RANK];
    int mark[RLX_MAX_RANK], i, tasks;
    memset(&j, 0, sizeof j);
    memset(mark, 0, sizeof mark);
    for (i = 0; i < (int)nd->ia[1]; i++) mark[nd->ia[2 + i]] = 1;
    rlx__contig_strides(nx->rank, nx->shape, st);
    j.count = 1;
    for (i = 0; i < nx->rank; i++) {
        if (mark[i]) { j.rd[j.nr] = nx->shape[i]; j.rs[j.nr++] = st[i]; j.count *= nx->shape[i]; }
        else { j.kd[j.nk] = nx->shape[i]; j.ks[j.nk++] = st[i]; }
    }
    j.nd = nd; j.in_dt = nx->dtype; j.x = (const char*)in[0]; j.out = (char*)out;
    j.nout = rlx__node_numel(nd);
    tasks = rlx__pool_if(pool, (double)j.nout * (double)j.count) ? rlx__pool_threads(pool) * 4 : 1;
    j.per = (j.nout + tasks - 1) / tasks;
    rlx__parallel_for(pool, (j.nout + j.per - 1) / j.per, rlx__red_task, &j);
}

/* Rows along one axis: outer × axis × inner. Used by arg-reductions, softmax, norms. */
typedef struct rlx__row_job {
    const rlx__node* nd;
    rlx_dtype dt;
    const char* x;
    const char *gamma, *beta;
    char* out;
    int64_t outer, len, inner, per;
} rlx__row_job;

static void rlx__arg_task(void* vj, int64_t t, int thread) {
    const rlx__row_job* j = (const rlx__row_job*)vj;
    int64_t r0 = t * j->per, r1 = RLX__MIN(j->outer * j->inner, r0 + j->per), r, k;
    int ismax = j->nd->op == RLX_OP_ARGMAX, isf = rlx__is_float(j->dt);
    RLX__UNUSED(thread);
    for (r = r0; r < r1; r++) {
        int64_t o = r / j->inner, i = r % j->inner, base = o * j->len * j->inner + i, best = 0;
        double bd = 0;
        int64_t bi = 0;
        for (k = 0; k < j->len; k++) {
            int64_t off = base + k * j->inner;
            if (isf) {
                double v = rlx__load_f64(j->x, j->dt, off);
                if (v != v) { best = k; break; }   /* the first NaN wins, as in numpy */
                if (k == 0 || (ismax ? v > bd : v < bd)) { bd = v; best = k; }
            } else {
                int64_t v = rlx__load_i64(j->x, j->dt, off);
                if (k == 0 || (ismax ? v > bi : v < bi)) { bi = v; best = k; }
            }
        }
        ((int64_t*)j->out)[r] = best;
    }
}

static void rlx__softmax_task(void* vj, int64_t t, int thread) {
    const rlx__row_job* j = (const rlx__row_job*)vj;
    int64_t r0 = t * j->per, r1 = RLX__MIN(j->outer * j->inner, r0 + j->per), r, k;
    int islog = j->nd->op == RLX_OP_LOG_SOFTMAX;
    RLX__UNUSED(thread);
    for (r = r0; r < r1; r++) {
        int64_t o = r / j->inner, i = r % j->inner, base = o * j->len * j->inner + i;
        if (j->dt == RLX_F32 && j->inner == 1) {
            const float* x = (const float*)j->x + base;
            float* y = (float*)j->out + base;
            float mx = x[0];
            double s = 0;
            for (k = 1; k < j->len; k++) mx = x[k] > mx ? x[k] : mx;
            if (islog) {
                float ls;
                for (k = 0; k < j->len; k++) s += (double)expf(x[k] - mx);
                ls = (float)log(s);
                for (k = 0; k < j->len; k++) y[k] = x[k] - mx - ls;
            } else {
                float inv;
                for (k = 0; k < j->len; k++) { y[k] = expf(x[k] - mx); s += (double)y[k]; }
                inv = (float)(1.0 / s);
                for (k = 0; k < j->len; k++) y[k] *= inv;
            }
        } else {
            double mx = rlx__load_f64(j->x, j->dt, base), s = 0;
            for (k = 1; k < j->len; k++) {
                double v = rlx__load_f64(j->x, j->dt, base + k * j->inner);
                mx = v > mx ? v : mx;
            }
            for (k = 0; k < j->len; k++) s += exp(rlx__load_f64(j->x, j->dt, base + k * j->inner) - mx);
            for (k = 0; k < j->len; k++) {
                double v = rlx__load_f64(j->x, j->dt, base + k * j->inner) - mx;
                rlx__store_f64(j->out, j->dt, base + k * j->inner, islog ? v - log(s) : exp(v) / s);
            }
        }
    }
}

/* layernorm / rmsnorm over contiguous rows of length len (inner == 1) */
static void rlx__norm_task(void* vj, int64_t t, int thread) {
    const rlx__row_job* j = (const rlx__row_job*)vj;
    int64_t r0 = t * j->per, r1 = RLX__MIN(j->outer, r0 + j->per), r, k;
    int ln = j->nd->op == RLX_OP_LAYERNORM;
    double eps = j->nd->fa[0];
    RLX__UNUSED(thread);
    for (r = r0; r < r1; r++) {
        int64_t base = r * j->len;
        double mean = 0, var = 0, inv;
        if (j->dt == RLX_F32) {
            const float* x = (const float*)j->x + base;
            float* y = (float*)j->out + base;
            const float *gm = (const float*)j->gamma, *bt = (const float*)j->beta;
            if (ln) {
                for (k = 0; k < j->len; k++) mean += (double)x[k];
                mean /= (double)j->len;
            }
            for (k = 0; k < j->len; k++) { double d = (double)x[k] - mean; var += d * d; }
            var /= (double)j->len;
            inv = 1.0 / sqrt(var + eps);
            for (k = 0; k < j->len; k++) {
                float v = (float)(((double)x[k] - mean) * inv);
                if (gm) v *= gm[k];
                if (bt) v += bt[k];
                y[k] = v;
            }
        } else {
            if (ln) {
                for (k = 0; k < j->len; k++) mean += rlx__load_f64(j->x, j->dt, base + k);
                mean /= (double)j->len;
            }
            for (k = 0; k < j->len; k++) { double d = rlx__load_f64(j->x, j->dt, base + k) - mean; var += d * d; }
            var /= (double)j->len;
            inv = 1.0 / sqrt(var + eps);
            for (k = 0; k < j->len; k++) {
                double v = (rlx__load_f64(j->x, j->dt, base + k) - mean) * inv;
                if (j->gamma) v *= rlx__load_f64(j->gamma, j->dt, k);
                if (j->beta) v += rlx__load_f64(j->beta, j->dt, k);
                rlx__store_f64(j->out, j->dt, base + k, v);
            }
        }
    }
}

static void rlx__k_rows(const rlx_graph* g, const rlx__node* nd, void* const* in, void* out, rlx__pool* pool) {
    const rlx__node* nx = rlx__N(g, rlx__in(g, nd, 0));
    rlx__row_job j;
    int axis = (int)nd->ia[0], i, tasks;
    int64_t rows, work;
    rlx__task_fn fn;
    memset(&j, 0, sizeof j);
    j.nd = nd; j.dt = nx->dtype; j.x = (const char*)in[0]; j.out = (char*)out;
    j.outer = 1; j.inner = 1;
    if (nd->op == RLX_OP_LAYERNORM || nd->op == RLX_OP_RMSNORM) {
        int k = 1;
        if (nd->op == RLX_OP_RMSNORM) axis = nx->rank - 1;
        for (i = 0; i < axis; i++) j.outer *= nx->shape[i];
        j.len = rlx__numel(nx->rank - axis, nx->shape + axis);
        if (nd->ia[1]) j.gamma = (const char*)in[k++];
        if (nd->ia[2]) j.beta = (const char*)in[k];
        rows = j.outer;
        fn = rlx__norm_task;
    } else {
        for (i = 0; i < axis; i++) j.outer *= nx->shape[i];
        for (i = axis + 1; i < nx->rank; i++) j.inner *= nx->shape[i];
        j.len = nx->shape[axis];
        rows = j.outer * j.inner;
        fn = (nd->op == RLX_OP_ARGMAX || nd->op == RLX_OP_ARGMIN) ? rlx__arg_task : rlx__softmax_task;
    }
    work = rows * j.len;
    tasks = rlx__pool_if(pool, (double)work) ? rlx__pool_threads(pool) * 4 : 1;
    j.per = (rows + tasks - 1) / tasks;
    rlx__parallel_for(pool, (rows + j.per - 1) / j.per, fn, &j);
}

static void rlx__k_gather(const rlx_graph* g, const rlx__node* nd, void* const* in, void* out) {
    const rlx__node *nx = rlx__N(g, rlx__in(g, nd, 0)), *ni = rlx__N(g, rlx__in(g, nd, 1));
    int axis = (int)nd->ia[0], i;
    int64_t outer = 1, inner = 1, dim = nx->shape[axis], nidx = rlx__node_numel(ni), o, k;
    size_t e = rlx_dtype_size(nd->dtype), row;
    for (i = 0; i < axis; i++) outer *= nx->shape[i];
    for (i = axis + 1; i < nx->rank; i++) inner *= nx->shape[i];
    row = (size_t)inner * e;
    if (rlx__is_quant(nd->dtype)) row = rlx__node_bytes(nd) / (size_t)(outer * nidx);   /* whole rows of blocks */
    for (o = 0; o < outer; o++)
        for (k = 0; k < nidx; k++) {
            int64_t v = rlx__load_i64(in[1], ni->dtype, k);
            char* dst = (char*)out + ((size_t)(o * nidx + k)) * row;
            if (v < 0) v += dim;
            if (v < 0 || v >= dim) memset(dst, 0, row);
            else memcpy(dst, (const char*)in[0] + ((size_t)(o * dim + v)) * row, row);
        }
}

static void rlx__k_concat(const rlx_graph* g, const rlx__node* nd, void* const* in, void* out) {
    int axis = (int)nd->ia[0], i, k;
    int64_t outer = 1, inner = 1, o, pos = 0;
    size_t e = rlx_dtype_size(nd->dtype);
    for (i = 0; i < axis; i++) outer *= nd->shape[i];
    for (i = axis + 1; i < nd->rank; i++) inner *= nd->shape[i];
    for (k = 0; k < nd->nin; k++) {
        const rlx__node* nk = rlx__N(g, rlx__in(g, nd, k));
        size_t chunk = (size_t)(nk->shape[axis] * inner) * e;
        for (o = 0; o < outer; o++)
            memcpy((char*)out + ((size_t)(o * nd->shape[axis] + pos) * (size_t)inner) * e,
                   (const char*)in[k] + (size_t)o * chunk, chunk);
        pos += nk->shape[axis];
    }
}

/* ---- fused ops and state ---- */
static float rlx__act_f(rlx_activation act, float x) {
    switch (act) {
    case RLX_ACT_RELU: return rlx__unary_f(RLX_OP_RELU, x);
    case RLX_ACT_GELU: return rlx__unary_f(RLX_OP_GELU, x);
    case RLX_ACT_GELU_TANH: return rlx__unary_f(RLX_OP_GELU_TANH, x);
    case RLX_ACT_SILU: return rlx__unary_f(RLX_OP_SILU, x);
    default: return x;
    }
}

typedef struct rlx__lin_job {
    float* y;
    const float *bias, *gate;
    int64_t rows, n, per;
    rlx_activation act, gate_act;
} rlx__lin_job;
static void rlx__lin_epilogue(void* vj, int64_t t, int thread) {
    const rlx__lin_job* j = (const rlx__lin_job*)vj;
    int64_t r0 = t * j->per, r1 = RLX__MIN(j->rows, r0 + j->per), r, c;
    RLX__UNUSED(thread);
    for (r = r0; r < r1; r++) {
        float* y = j->y + r * j->n;
        if (j->bias) for (c = 0; c < j->n; c++) y[c] += j->bias[c];
        if (j->act != RLX_ACT_NONE) for (c = 0; c < j->n; c++) y[c] = rlx__act_f(j->act, y[c]);
        if (j->gate) {
            const float* gt = j->gate + r * j->n;
            if (j->gate_act == RLX_ACT_SILU) for (c = 0; c < j->n; c++) y[c] *= gt[c] / (1.0f + expf(-gt[c]));
            else for (c = 0; c < j->n; c++) y[c] *= rlx__act_f(j->gate_act, gt[c]);
        }
    }
}
/* linear: one GEMM over all leading dims, then bias and activation in a parallel epilogue */
static void rlx__k_linear(const rlx_graph* g, const rlx__node* nd, void* const* in, void* out, rlx__pool* pool, void* ws) {
    const rlx__node* nw = rlx__N(g, rlx__in(g, nd, 1));
    const int tw = nd->ia[4] != 0;   /* w stored [N, K] */
    int64_t K = nw->shape[tw], N = nw->shape[1 - tw], M = rlx__node_numel(nd) / N;
    rlx__lin_job j;
    int tasks;
    rlx__sgemm(pool, ws, M, N, K, (const float*)in[0], K, 1, (const float*)in[1], tw ? 1 : N, tw ? K : 1, (float*)out, N);
    j.y = (float*)out; j.bias = nd->ia[1] ? (const float*)in[2] : NULL; j.rows = M; j.n = N;
    j.act = (rlx_activation)nd->ia[0];
    j.gate = nd->ia[2] ? (const float*)in[nd->ia[1] ? 3 : 2] : NULL;
    j.gate_act = (rlx_activation)nd->ia[3];
    if (!j.bias && j.act == RLX_ACT_NONE && !j.gate) return;
    tasks = rlx__pool_if(pool, (double)M * (double)N) ? rlx__pool_threads(pool) * 4 : 1;
    j.per = (M + tasks - 1) / tasks;
    rlx__parallel_for(pool, (M + j.per - 1) / j.per, rlx__lin_epilogue, &j);
}

/* add + norm: rows of the normalised trailing dims; the sum goes to the second half when emitted */
typedef struct rlx__an_job {
    const rlx__node* nd;
    rlx_dtype dt;
    const char *x, *r, *gamma, *beta;
    char *y, *sum;
    int64_t rows, len, per;
} rlx__an_job;
static void rlx__an_task(void* vj, int64_t t, int thread) {
    const rlx__an_job* j = (const rlx__an_job*)vj;
    int64_t r0 = t * j->per, r1 = RLX__MIN(j->rows, r0 + j->per), r, k;
    int ln = j->nd->ia[3] == 1;
    double eps = j->nd->fa[0];
    RLX__UNUSED(thread);
    for (r = r0; r < r1; r++) {
        int64_t base = r * j->len;
        double mean = 0, var = 0, inv;
        if (j->dt == RLX_F32) {
            const float *x = (const float*)j->x + base, *res = (const float*)j->r + base;
            const float *gm = (const float*)j->gamma, *bt = (const float*)j->beta;
            float* y = (float*)j->y + base;
            float* sm = j->sum ? (float*)j->sum + base : y;   /* without a sum output, y holds it first */
            for (k = 0; k < j->len; k++) { sm[k] = x[k] + res[k]; mean += (double)sm[k]; }
            mean = ln ? mean / (double)j->len : 0.0;
            for (k = 0; k < j->len; k++) { double d = (double)sm[k] - mean; var += d * d; }
            inv = 1.0 / sqrt(var / (double)j->len + eps);
            for (k = 0; k < j->len; k++) {
                float v = (float)(((double)sm[k] - mean) * inv);
                if (gm) v *= gm[k];
                if (bt) v += bt[k];
                y[k] = v;
            }
        } else {
            for (k = 0; k < j->len; k++) {
                double s = rlx__load_f64(j->x, j->dt, base + k) + rlx__load_f64(j->r, j->dt, base + k);
                rlx__store_f64(j->sum ? j->sum : j->y, j->dt, base + k, s);
            }
            for (k = 0; k < j->len; k++) mean += rlx__load_f64(j->sum ? j->sum : j->y, j->dt, base + k);
            mean = ln ? mean / (double)j->len : 0.0;
            for (k = 0; k < j->len; k++) { double d = rlx__load_f64(j->sum ? j->sum : j->y, j->dt, base + k) - mean; var += d * d; }
            inv = 1.0 / sqrt(var / (double)j->len + eps);
            for (k = 0; k < j->len; k++) {
                double v = (rlx__load_f64(j->sum ? j->sum : j->y, j->dt, base + k) - mean) * inv;
                if (j->gamma) v *= rlx__load_f64(j->gamma, j->dt, k);
                if (j->beta) v += rlx__load_f64(j->beta, j->dt, k);
                rlx__store_f64(j->y, j->dt, base + k, v);
            }
        }
    }
}
static void rlx__k_add_norm(const rlx_graph* g, const rlx__node* nd, void* const* in, void* out, rlx__pool* pool) {
    const rlx__node* nx = rlx__N(g, rlx__in(g, nd, 0));
    rlx__an_job j;
    int k = 2, tasks;
    int64_t n = rlx__node_numel(nx);
    memset(&j, 0, sizeof j);
    j.nd = nd; j.dt = nd->dtype; j.x = (const char*)in[0]; j.r = (const char*)in[1];
    if (nd->ia[1]) j.gamma = (const char*)in[k++];
    if (nd->ia[2]) j.beta = (const char*)in[k];
    j.y = (char*)out;
    j.sum = nd->ia[4] ? (char*)in[nd->nin] : NULL;   /* the second output (EXTRA), NULL when unused */
    j.len = rlx__numel(nx->rank - (int)nd->ia[0], nx->shape + nd->ia[0]);
    j.rows = n / j.len;
    tasks = rlx__pool_if(pool, (double)n) ? rlx__pool_threads(pool) * 4 : 1;
    j.per = (j.rows + tasks - 1) / tasks;
    rlx__parallel_for(pool, (j.rows + j.per - 1) / j.per, rlx__an_task, &j);
}

/* FUSED_EW: a small register program over f32 inputs (each of the output's size or a single element),
   evaluated in blocks so every instruction is a tight loop over the block */
#define RLX__EW_BLOCK 256
#define RLX__EW_MAXI (RLX__NIA - 1)
typedef struct rlx__few_job { const rlx__node* nd; const float* in[8]; int64_t inn[8]; float* out; int64_t n, per; } rlx__few_job;
static void rlx__few_task(void* vj, int64_t t, int thread) {
    const rlx__few_job* j = (const rlx__few_job*)vj;
    int64_t e0 = t * j->per, e1 = RLX__MIN(j->n, e0 + j->per), b;
    int ninst = (int)j->nd->ia[0], k;
    float reg[RLX__EW_MAXI][RLX__EW_BLOCK];
    RLX__UNUSED(thread);
    for (b = e0; b < e1; b += RLX__EW_BLOCK) {
        int64_t m = RLX__MIN((int64_t)RLX__EW_BLOCK, e1 - b), i;
        for (k = 0; k < ninst; k++) {
            int64_t code = j->nd->ia[1 + k];
            rlx_op op = (rlx_op)(code & 0xFF);
            int ra = (int)((code >> 8) & 0xFF), rb = (int)((code >> 16) & 0xFF);
            float av[RLX__EW_BLOCK], bv[RLX__EW_BLOCK];
            const float *a, *bb = NULL;
            float* o = reg[k];
            if (ra < 8) {
                if (j->inn[ra] == 1) { for (i = 0; i < m; i++) av[i] = j->in[ra][0]; a = av; }
                else a = j->in[ra] + b;
            } else a = reg[ra - 8];
            if (rlx__is_binary(op)) {
                if (rb < 8) {
                    if (j->inn[rb] == 1) { for (i = 0; i < m; i++) bv[i] = j->in[rb][0]; bb = bv; }
                    else bb = j->in[rb] + b;
                } else bb = reg[rb - 8];
                switch (op) {
                case RLX_OP_ADD: for (i = 0; i < m; i++) o[i] = a[i] + bb[i]; break;
                case RLX_OP_SUB: for (i = 0; i < m; i++) o[i] = a[i] - bb[i]; break;
                case RLX_OP_MUL: for (i = 0; i < m; i++) o[i] = a[i] * bb[i]; break;
                case RLX_OP_DIV: for (i = 0; i < m; i++) o[i] = a[i] / bb[i]; break;
                default: for (i = 0; i < m; i++) o[i] = rlx__binary_f(op, a[i], bb[i]); break;
                }
            } else {
                for (i = 0; i < m; i++) o[i] = rlx__unary_f(op, a[i]);
            }
        }
        memcpy(j->out + b, reg[ninst - 1], sizeof(float) * (size_t)m);
    }
}
static void rlx__k_fused_ew(const rlx_graph* g, const rlx__node* nd, void* const* in, void* out, rlx__pool* pool) {
    rlx__few_job j;
    int k, tasks;
    memset(&j, 0, sizeof j);
    j.nd = nd;
    for (k = 0; k < nd->nin; k++) {
        j.in[k] = (const float*)in[k];
        j.inn[k] = rlx__node_numel(rlx__N(g, rlx__in(g, nd, k)));
    }
    j.out = (float*)out;
    j.n = rlx__node_numel(nd);
    tasks = rlx__pool_if(pool, (double)j.n) ? rlx__pool_threads(pool) * 4 : 1;
    j.per = ((j.n + tasks - 1) / tasks + RLX__EW_BLOCK - 1) / RLX__EW_BLOCK * RLX__EW_BLOCK;
    rlx__parallel_for(pool, (j.n + j.per - 1) / j.per, rlx__few_task, &j);
}

static void rlx__k_glu(const rlx_graph* g, const rlx__node* nd, void* const* in, void* out) {
    int64_t n = rlx__node_numel(nd), i;
    int swi = nd->op == RLX_OP_SWIGLU;
    RLX__UNUSED(g);
    if (nd->dtype == RLX_F32) {
        const float *gt = (const float*)in[0], *up = (const float*)in[1];
        float* y = (float*)out;
        if (swi) for (i = 0; i < n; i++) y[i] = gt[i] / (1.0f + expf(-gt[i])) * up[i];
        else for (i = 0; i < n; i++) y[i] = rlx__unary_f(RLX_OP_GELU, gt[i]) * up[i];
        return;
    }
    for (i = 0; i < n; i++) {
        double gv = rlx__load_f64(in[0], nd->dtype, i);
        rlx__store_f64(out, nd->dtype, i, rlx__unary_d(swi ? RLX_OP_SILU : RLX_OP_GELU, gv) * rlx__load_f64(in[1], nd->dtype, i));
    }
}

/* state_write: out aliases the state; copy the update rows of every block whose offset fits */
static void rlx__k_state_write(const rlx_graph* g, const rlx__node* nd, void* const* in, void* out) {
    const rlx__node *nu = rlx__N(g, rlx__in(g, nd, 1)), *no = rlx__N(g, rlx__in(g, nd, 2));
    int a = (int)nd->ia[0], i;
    int64_t outer = 1, inner = 1, dim = nd->shape[a], len = nu->shape[a], per = nd->ia[1], off, o, r;
    size_t e = rlx_dtype_size(nd->dtype);
    for (i = 0; i < a; i++) outer *= nd->shape[i];
    for (i = a + 1; i < nd->rank; i++) inner *= nd->shape[i];
    if (out != in[0]) memcpy(out, in[0], rlx__node_bytes(nd));
    /* rows [off, off + len) must fit in [0, dim) (checked without overflow for any off): a block whose offset
       does not fit is not written (rlx_run reports it); with one offset per batch row, block o reads offset
       o / per */
    for (o = 0; o < outer; o++) {
        off = rlx__load_i64(in[2], no->dtype, per > 0 ? o / per : 0);
        if (!(off >= 0 && off <= dim - len)) continue;
        for (r = 0; r < len; r++) {
            int64_t dr = off + r;
            memcpy((char*)out + (size_t)((o * dim + dr) * inner) * e, (const char*)in[1] + (size_t)((o * len + r) * inner) * e,
                   (size_t)inner * e);
        }
    }
}

/* kernels in later fragments */
static size_t rlx__ws_quant(const rlx_graph* g, const rlx__node* nd, int nthreads);
static void rlx__k_quant(const rlx_graph* g, const rlx__node* nd, void* const* in, void* out, rlx__pool* pool, void* ws);
static size_t rlx__ws_vision(const rlx_graph* g, const rlx__node* nd, int nthreads);
static void rlx__k_vision(const rlx_graph* g, const rlx__node* nd, void* const* in, void* out, rlx__pool* pool, void* ws);
static size_t rlx__ws_attn(const rlx_graph* g, const rlx__node* nd, int nthreads);
static void rlx__k_attn(const rlx_graph* g, const rlx__node* nd, void* const* in, void* out, rlx__pool* pool, void* ws);
static size_t rlx__ws_misc(const rlx_graph* g, const rlx__node* nd, int nthreads);
static void rlx__k_misc(const rlx_graph* g, const rlx__node* nd, void* const* in, void* out, rlx__pool* pool, void* ws);

static size_t rlx__node_workspace(const rlx_graph* g, const rlx__node* nd, int nthreads) {
    switch (nd->op) {
    case RLX_OP_MATMUL:
        if (nd->dtype == RLX_F16 || nd->dtype == RLX_BF16) {
            rlx__mm_geo m;
            rlx__mm_geometry(g, nd, &m);
            return rlx__hgemm_workspace_bytes(nthreads, m.M, m.N, m.K);
        }
        return nd->dtype == RLX_F32 ? rlx__sgemm_workspace_bytes(nthreads) : 0;
    case RLX_OP_MATMUL_INTEGER: {
        rlx__mm_geo m;
        rlx__mm_geometry(g, nd, &m);
        return rlx__szadd(rlx__igemm_workspace_bytes(nthreads, m.M, m.N, m.K),
                          rlx__round_up(rlx__szmul(rlx__szadd((size_t)m.M, (size_t)m.N), sizeof(int32_t)), 64));
    }
    case RLX_OP_LINEAR: return rlx__sgemm_workspace_bytes(nthreads);
    case RLX_OP_MATMUL_QUANT: return rlx__ws_quant(g, nd, nthreads);
    case RLX_OP_CONV: case RLX_OP_CONV_TRANSPOSE: case RLX_OP_POOL: case RLX_OP_GROUP_NORM: case RLX_OP_RESIZE:
    case RLX_OP_PAD:
        return rlx__ws_vision(g, nd, nthreads);
    case RLX_OP_ATTENTION: case RLX_OP_ROPE: return rlx__ws_attn(g, nd, nthreads);
    case RLX_OP_CUMSUM: case RLX_OP_TOPK: case RLX_OP_SAMPLE: return rlx__ws_misc(g, nd, nthreads);
    default: return 0;
    }
}

/* Execute one node: inputs in[k], output out (both in the node's own dtypes, contiguous). */
static void rlx__cpu_exec(const rlx_graph* g, const rlx__node* nd, void* const* in, void* out, rlx__pool* pool, void* ws) {
    rlx__iter it;
    rlx__ew_ctx c;
    const rlx__node* n0 = nd->nin ? rlx__N(g, rlx__in(g, nd, 0)) : NULL;
    size_t e = rlx_dtype_size(nd->dtype);
    int k;
    memset(&c, 0, sizeof c);
    c.op = nd->op;
    c.out_dt = nd->dtype;
    c.esz = e;
    if (nd->op == RLX_OP_MATMUL_QUANT ||
        (nd->op == RLX_OP_CAST && (rlx__is_quant(nd->dtype) || rlx__is_quant(n0->dtype)))) {
        rlx__k_quant(g, nd, in, out, pool, ws);   /* >>quant */
        return;
    }
    if (rlx__is_unary(nd->op) || nd->op == RLX_OP_CAST) {
        c.in_dt = n0->dtype;
        rlx__iter_init(&it, 2, out, e, nd->rank, nd->shape);
        rlx__iter_operand(&it, 1, in[0], rlx_dtype_size(n0->dtype), n0->rank, n0->shape, NULL);
        rlx__iter_run(&it, nd->op == RLX_OP_CAST ? rlx__inner_cast : rlx__inner_unary, &c, pool);
        return;
    }
    if (rlx__is_binary(nd->op) || nd->op == RLX_OP_WHERE) {
        int first = nd->op == RLX_OP_WHERE ? 1 : 0;
        c.in_dt = rlx__N(g, rlx__in(g, nd, first))->dtype;
        rlx__iter_init(&it, nd->nin + 1, out, e, nd->rank, nd->shape);
        for (k = 0; k < nd->nin; k++) {
            const rlx__node* nk = rlx__N(g, rlx__in(g, nd, k));
            rlx__iter_operand(&it, k + 1, in[k], rlx_dtype_size(nk->dtype), nk->rank, nk->shape, NULL);
        }
        rlx__iter_run(&it, nd->op == RLX_OP_WHERE ? rlx__inner_where : rlx__inner_binary, &c, pool);
        return;
    }
    switch (nd->op) {
    case RLX_OP_MATMUL: rlx__k_matmul(g, nd, in, out, pool, ws); return;
    case RLX_OP_MATMUL_INTEGER: rlx__k_matmul_integer(g, nd, in, out, pool, ws); return;
    case RLX_OP_SUM: case RLX_OP_MEAN: case RLX_OP_REDUCE_MAX: case RLX_OP_REDUCE_MIN: case RLX_OP_PROD:
        rlx__k_reduce(g, nd, in, out, pool);
        return;
    case RLX_OP_ARGMAX: case RLX_OP_ARGMIN: case RLX_OP_SOFTMAX: case RLX_OP_LOG_SOFTMAX:
    case RLX_OP_LAYERNORM: case RLX_OP_RMSNORM:
        rlx__k_rows(g, nd, in, out, pool);
        return;
    case RLX_OP_RESHAPE:
        if (out != in[0]) memcpy(out, in[0], rlx__node_bytes(nd));
        return;
    case RLX_OP_EXPAND: {
        rlx__iter_init(&it, 2, out, e, nd->rank, nd->shape);
        rlx__iter_operand(&it, 1, in[0], e, n0->rank, n0->shape, NULL);
        rlx__iter_run(&it, rlx__inner_copy, &c, pool);
        return;
    }
    case RLX_OP_TRANSPOSE: {
        int64_t xs[RLX_MAX_RANK], st[RLX_MAX_RANK];
        rlx__contig_strides(n0->rank, n0->shape, xs);
        for (k = 0; k < nd->rank; k++) st[k] = xs[nd->ia[k]];
        rlx__strided_copy(out, in[0], e, nd->rank, nd->shape, st, pool);
        return;
    }
    case RLX_OP_SLICE: {
        int64_t st[RLX_MAX_RANK];
        int a = (int)nd->ia[0];
        const char* base;
        rlx__contig_strides(n0->rank, n0->shape, st);
        base = (const char*)in[0] + (size_t)(nd->ia[1] * st[a]) * e;
        st[a] *= nd->ia[2];
        rlx__strided_copy(out, base, e, nd->rank, nd->shape, st, pool);
        return;
    }
    case RLX_OP_CONCAT: rlx__k_concat(g, nd, in, out); return;
    case RLX_OP_GATHER: rlx__k_gather(g, nd, in, out); return;
    case RLX_OP_LINEAR: rlx__k_linear(g, nd, in, out, pool, ws); return;
    case RLX_OP_ADD_NORM: rlx__k_add_norm(g, nd, in, out, pool); return;
    case RLX_OP_SWIGLU: case RLX_OP_GEGLU: rlx__k_glu(g, nd, in, out); return;
    case RLX_OP_FUSED_EW: rlx__k_fused_ew(g, nd, in, out, pool); return;
    case RLX_OP_STATE_WRITE: rlx__k_state_write(g, nd, in, out); return;
    case RLX_OP_CONV: case RLX_OP_CONV_TRANSPOSE: case RLX_OP_POOL: case RLX_OP_GROUP_NORM: case RLX_OP_RESIZE:
    case RLX_OP_PAD:
        rlx__k_vision(g, nd, in, out, pool, ws);
        return;
    case RLX_OP_ATTENTION: case RLX_OP_ROPE: rlx__k_attn(g, nd, in, out, pool, ws); return;
    case RLX_OP_CUMSUM: case RLX_OP_TOPK: case RLX_OP_SAMPLE: rlx__k_misc(g, nd, in, out, pool, ws); return;
    default: RLX_ASSERT(0 && "rlx: no CPU kernel for op"); return;
    }
}

/* ------------------------------------------------------------------------------------------------------------
   >>cpu vision kernels: conv, conv_transpose, pool, group_norm, resize, pad
   Layout NCHW; the 1D forms ([N, C, L]) run as 2D with H = 1. f32 convolutions are GEMMs on rlx__sgemm:
   im2col (conv) or col2im (conv_transpose) over chunks of pixels, so the column scratch stays bounded; an f32
   conv with one input channel per group (depthwise) is a direct loop. f16/bf16/f64 convolutions take a direct
   loop in double. pool, group_norm and resize compute in double from any float dtype. pad copies bytes, so
   it takes every dtype. Work is split over planes (or GEMM units) with rlx__parallel_for when it is large.
   ------------------------------------------------------------------------------------------------------------ */

/* Geometry shared by conv, conv_transpose and pool: x [N, C, H, W] → y [N, O, OH, OW], window KH×KW with
   stride, dilation and leading padding. Grouped convs: G groups of Cg input and Og output channels. */
typedef struct rlx__win {
    int64_t N, C, H, W, O, OH, OW;
    int64_t KH, KW, sh, sw, dh, dw, ph, pw;
    int64_t G, Cg, Og;
} rlx__win;

/* Reads a per-spatial-dim attribute pair at ia[base..]: for 1D only the W value exists (H gets `one`). */
static void rlx__win_attr(const int64_t* ia, int base, int two, int64_t one, int64_t* h, int64_t* w) {
    *h = two ? ia[base] : one;
    *w = ia[base + two];
}

static void rlx__win_init(const rlx_graph* g, const rlx__node* nd, rlx__win* v) {
    const rlx__node* x = rlx__N(g, rlx__in(g, nd, 0));
    int two = nd->ia[0] == 2, r = x->rank;
    v->N = x->shape[0]; v->C = x->shape[1]; v->H = two ? x->shape[2] : 1; v->W = x->shape[r - 1];
    v->O = nd->shape[1]; v->OH = two ? nd->shape[2] : 1; v->OW = nd->shape[r - 1];
    if (nd->op == RLX_OP_POOL) {
        rlx__win_attr(nd->ia, 2, two, 1, &v->KH, &v->KW);
        rlx__win_attr(nd->ia, 4, two, 1, &v->sh, &v->sw);
        rlx__win_attr(nd->ia, 6, two, 0, &v->ph, &v->pw);
        v->dh = v->dw = 1;
        v->G = v->C; v->Cg = v->Og = 1;
    } else {
        const rlx__node* w = rlx__N(g, rlx__in(g, nd, 1));
        v->KH = two ? w->shape[2] : 1; v->KW = w->shape[r - 1];
        rlx__win_attr(nd->ia, 1, two, 1, &v->sh, &v->sw);
        rlx__win_attr(nd->ia, 3, two, 1, &v->dh, &v->dw);
        rlx__win_attr(nd->ia, 5, two, 0, &v->ph, &v->pw);
        v->G = nd->ia[9]; v->Cg = v->C / v->G; v->Og = v->O / v->G;
    }
}

/* Output positions o in [0, n_out) whose source o*stride + off lies in [0, n_in): the range [*lo, *hi). */
static void rlx__win_valid(int64_t n_out, int64_t stride, int64_t off, int64_t n_in, int64_t* lo, int64_t* hi) {
    *lo = off >= 0 ? 0 : (-off + stride - 1) / stride;
    *hi = n_in - 1 - off < 0 ? 0 : RLX__MIN((n_in - 1 - off) / stride + 1, n_out);
    if (*lo > n_out) *lo = n_out;
    if (*hi < *lo) *hi = *lo;
}

/* Element i of a float tensor as double (f32 without the dtype switch). */
static double rlx__vld(const void* p, rlx_dtype t, int64_t i) {
    return t == RLX_F32 ? (double)((const float*)p)[i] : rlx__load_f64(p, t, i);
}
static void rlx__vst(void* p, rlx_dtype t, int64_t i, double v) {
    if (t == RLX_F32) ((float*)p)[i] = (float)v;
    else rlx__store_f64(p, t, i, v);
}

/* y[i] += a · x[i]. Written so that gcc and clang vectorise it at -O2 (all loads of a block before its stores). */
static void rlx__vaxpy(float* y, const float* x, float a, int64_t n) {
    int64_t i = 0, k;
    for (; i + 8 <= n; i += 8) {
        float t[8];
        for (k = 0; k < 8; k++) t[k] = y[i + k] + a * x[i + k];
        for (k = 0; k < 8; k++) y[i + k] = t[k];
    }
    for (; i < n; i++) y[i] += a * x[i];
}

/* fn(ctx, i, thread) for every i in [0, n), in contiguous ranges over the pool when `work` (about one unit
   per element operation) is large enough to pay for the threads. pool may be NULL. */
typedef void (*rlx__vfn)(const void* ctx, int64_t i, int thread);
typedef struct rlx__vrange { rlx__vfn fn; const void* ctx; int64_t n, per; } rlx__vrange;

static void rlx__vrange_task(void* c, int64_t t, int thread) {
    const rlx__vrange* r = (const rlx__vrange*)c;
    int64_t i, end = RLX__MIN(r->n, (t + 1) * r->per);
    for (i = t * r->per; i < end; i++) r->fn(r->ctx, i, thread);
}

static void rlx__vfor(rlx__pool* pool, int64_t n, double work, rlx__vfn fn, const void* ctx) {
    rlx__vrange r;
    int64_t T = rlx__pool_threads(pool), tasks = (T > 1 && rlx__pool_if(pool, work)) ? RLX__MIN(n, T * 4) : 1;
    if (n <= 0) return;
    r.fn = fn; r.ctx = ctx; r.n = n;
    r.per = (n + tasks - 1) / tasks;
    rlx__parallel_for(tasks > 1 ? pool : NULL, (n + r.per - 1) / r.per, rlx__vrange_task, &r);
}

/* ---- convolution ------------------------------------------------------------------------------------------ */

#define RLX__VCOL_FLOATS ((int64_t)1 << 19)   /* target size of one thread's column chunk (2 MiB) */

typedef struct rlx__conv_job {
    rlx__win v;
    int transpose;
    rlx_dtype dt;
    const void *x, *w, *b;      /* b NULL without bias */
    void* y;
    /* f32 GEMM path */
    int64_t rows, chunk;        /* column matrix: rows × chunk pixels */
    int direct_b;               /* 1x1 conv without stride or padding: x itself is the column matrix */
    float* col;                 /* one column buffer per thread (col_floats each) */
    size_t col_floats;
    char* gws;                  /* sgemm workspace, one slice (gslice bytes) per thread */
    size_t gslice;
    rlx__pool* inner;           /* pool for the work inside one GEMM unit (NULL when units run in parallel) */
} rlx__conv_job;

static int rlx__conv_is_direct(const rlx__win* v, int transpose) { return !transpose && v->Cg == 1; }

/* Column matrix and chunk of an f32 GEMM conv: conv has rows (c, kh, kw) and output pixels as columns;
   conv_transpose has rows (o, kh, kw) and input pixels as columns. */
static void rlx__conv_cols(const rlx__win* v, int transpose, int64_t* rows, int64_t* chunk, int* direct_b) {
    int64_t pixels = transpose ? v->H * v->W : v->OH * v->OW, c;
    *rows = (transpose ? v->Og : v->Cg) * v->KH * v->KW;
    *direct_b = !transpose && v->KH == 1 && v->KW == 1 && v->sh == 1 && v->sw == 1 && v->ph == 0 && v->pw == 0 &&
                v->OH == v->H && v->OW == v->W;
    c = RLX__MAX(RLX__VCOL_FLOATS / *rows, (int64_t)256);
    *chunk = RLX__MIN(c, pixels);
}


/* im2col row r = (c, kh, kw) of the pixel chunk [p0, p0 + np): col[r][p - p0] = x[c, ih, iw], 0 in the padding. */
typedef struct rlx__im2col_ctx { const rlx__conv_job* j; const float* x; float* col; int64_t p0, np; } rlx__im2col_ctx;

static void rlx__im2col_row(const void* vc, int64_t r, int thread) {
    const rlx__im2col_ctx* c = (const rlx__im2col_ctx*)vc;
    const rlx__win* v = &c->j->v;
    int64_t kw = r % v->KW, kh = (r / v->KW) % v->KH, ci = r / (v->KW * v->KH);
    int64_t p = c->p0, end = c->p0 + c->np, lo, hi, ow;
    const float* xc = c->x + ci * v->H * v->W;
    float* dst = c->col + r * c->np;
    RLX__UNUSED(thread);
    rlx__win_valid(v->OW, v->sw, kw * v->dw - v->pw, v->W, &lo, &hi);
    while (p < end) {
        int64_t oh = p / v->OW, ow0 = p % v->OW, ow1 = RLX__MIN(v->OW, ow0 + (end - p));
        int64_t ih = oh * v->sh - v->ph + kh * v->dh;
        /* zeros, then the valid columns [a, b), then zeros */
        int64_t a = RLX__MIN(RLX__MAX(lo, ow0), ow1), b = RLX__MAX(RLX__MIN(hi, ow1), a);
        if (ih < 0 || ih >= v->H) a = b = ow1;
        for (ow = ow0; ow < a; ow++) *dst++ = 0.0f;
        if (b > a) {
            const float* xr = xc + ih * v->W;
            int64_t off = kw * v->dw - v->pw;
            if (v->sw == 1) memcpy(dst, xr + a + off, (size_t)(b - a) * sizeof(float));
            else
                for (ow = a; ow < b; ow++) dst[ow - a] = xr[ow * v->sw + off];
            dst += b - a;
        }
        for (ow = b; ow < ow1; ow++) *dst++ = 0.0f;
        p += ow1 - ow0;
    }
}

/* col2im for output plane o of the group (Og planes): y[o, oh, ow] += col[(o, kh, kw)][input pixel]. */
typedef struct rlx__col2im_ctx { const rlx__conv_job* j; const float* col; float* y; int64_t p0, np; } rlx__col2im_ctx;

static void rlx__col2im_plane(const void* vc, int64_t o, int thread) {
    const rlx__col2im_ctx* c = (const rlx__col2im_ctx*)vc;
    const rlx__win* v = &c->j->v;
    float* y = c->y + o * v->OH * v->OW;
    int64_t kh, kw;
    RLX__UNUSED(thread);
    for (kh = 0; kh < v->KH; kh++)
        for (kw = 0; kw < v->KW; kw++) {
            const float* src = c->col + ((o * v->KH + kh) * v->KW + kw) * c->np;
            int64_t p = c->p0, end = c->p0 + c->np, lo, hi, iw;
            /* input columns iw whose target ow = iw*sw - pw + kw*dw lies inside the output */
            rlx__win_valid(v->W, v->sw, kw * v->dw - v->pw, v->OW, &lo, &hi);
            while (p < end) {
                int64_t ih = p / v->W, iw0 = p % v->W, iw1 = RLX__MIN(v->W, iw0 + (end - p));
                int64_t oh = ih * v->sh - v->ph + kh * v->dh;
                if (oh >= 0 && oh < v->OH) {
                    float* yr = y + oh * v->OW;
                    int64_t off = kw * v->dw - v->pw, a = RLX__MAX(iw0, lo), b = RLX__MIN(iw1, hi);
                    if (v->sw == 1 && b > a) rlx__vaxpy(yr + a + off, src + (a - iw0), 1.0f, b - a);
                    else
                        for (iw = a; iw < b; iw++) yr[iw * v->sw + off] += src[iw - iw0];
                }
                src += iw1 - iw0;
                p += iw1 - iw0;
            }
        }
}

/* One GEMM unit u = (n, group) of an f32 conv or conv_transpose. */
static void rlx__conv_unit(const void* vj, int64_t u, int thread) {
    const rlx__conv_job* j = (const rlx__conv_job*)vj;
    const rlx__win* v = &j->v;
    int64_t n = u / v->G, gi = u % v->G, HW = v->H * v->W, P = v->OH * v->OW, p0, o, i;
    const float* x = (const float*)j->x + (n * v->C + gi * v->Cg) * HW;
    const float* b = j->b ? (const float*)j->b + gi * v->Og : NULL;
    float* y = (float*)j->y + (n * v->O + gi * v->Og) * P;
    float* col = j->col + (size_t)thread * j->col_floats;
    char* gws = j->gws + (size_t)thread * j->gslice;
    if (!j->transpose) {
        /* y[Og, P] = w_g[Og, Cg·KH·KW] · col[Cg·KH·KW, P] */
        const float* w = (const float*)j->w + gi * v->Og * j->rows;
        for (p0 = 0; p0 < P; p0 += j->chunk) {
            int64_t np = RLX__MIN(j->chunk, P - p0);
            if (j->direct_b) {
                rlx__sgemm(j->inner, gws, v->Og, np, j->rows, w, j->rows, 1, x + p0, HW, 1, y + p0, P);
            } else {
                rlx__im2col_ctx c;
                c.j = j; c.x = x; c.col = col; c.p0 = p0; c.np = np;
                rlx__vfor(j->inner, j->rows, (double)(j->rows * np), rlx__im2col_row, &c);
                rlx__sgemm(j->inner, gws, v->Og, np, j->rows, w, j->rows, 1, col, np, 1, y + p0, P);
            }
        }
        if (b)
            for (o = 0; o < v->Og; o++)
                for (i = 0; i < P; i++) y[o * P + i] += b[o];
    } else {
        /* col[Og·KH·KW, HW] = w_g^T · x_g with w_g [Cg, Og·KH·KW], then scattered into y */
        const float* w = (const float*)j->w + gi * v->Cg * j->rows;
        for (o = 0; o < v->Og; o++)
            for (i = 0; i < P; i++) y[o * P + i] = b ? b[o] : 0.0f;
        for (p0 = 0; p0 < HW; p0 += j->chunk) {
            int64_t np = RLX__MIN(j->chunk, HW - p0);
            rlx__col2im_ctx c;
            rlx__sgemm(j->inner, gws, j->rows, np, v->Cg, w, 1, j->rows, x + p0, HW, 1, col, np);
            c.j = j; c.col = col; c.y = y; c.p0 = p0; c.np = np;
            rlx__vfor(j->inner, v->Og, (double)(j->rows * np), rlx__col2im_plane, &c);
        }
    }
}

/* Direct f32 conv of output plane (n, o) for one input channel per group: y = b + Σ_kh,kw w·shifted x rows. */
static void rlx__conv_direct_plane(const void* vj, int64_t u, int thread) {
    const rlx__conv_job* j = (const rlx__conv_job*)vj;
    const rlx__win* v = &j->v;
    int64_t n = u / v->O, o = u % v->O, P = v->OH * v->OW, i, kh, kw, oh, ow;
    const float* x = (const float*)j->x + (n * v->C + o / v->Og) * v->H * v->W;
    const float* w = (const float*)j->w + o * v->KH * v->KW;
    float* y = (float*)j->y + u * P;
    float b = j->b ? ((const float*)j->b)[o] : 0.0f;
    RLX__UNUSED(thread);
    for (i = 0; i < P; i++) y[i] = b;
    for (kw = 0; kw < v->KW; kw++) {
        int64_t lo, hi, off = kw * v->dw - v->pw;
        rlx__win_valid(v->OW, v->sw, off, v->W, &lo, &hi);
        for (kh = 0; kh < v->KH; kh++) {
            float wv = w[kh * v->KW + kw];
            for (oh = 0; oh < v->OH; oh++) {
                int64_t ih = oh * v->sh - v->ph + kh * v->dh;
                const float* xr;
                float* yr = y + oh * v->OW;
                if (ih < 0 || ih >= v->H) continue;
                xr = x + ih * v->W;
                if (v->sw == 1) {
                    if (hi > lo) rlx__vaxpy(yr + lo, xr + lo + off, wv, hi - lo);
                } else
                    for (ow = lo; ow < hi; ow++) yr[ow] += wv * xr[ow * v->sw + off];
            }
        }
    }
}

/* Source index of output position `o` under kernel tap k, or -1: conv reads o*s - p + k*d; conv_transpose
   gathers from the input position i with i*s - p + k*d == o. */
static int64_t rlx__conv_src(int transpose, int64_t o, int64_t k, int64_t s, int64_t d, int64_t p, int64_t n_in) {
    int64_t i;
    if (!transpose) i = o * s - p + k * d;
    else {
        int64_t t = o + p - k * d;
        if (t < 0 || t % s) return -1;
        i = t / s;
    }
    return i >= 0 && i < n_in ? i : -1;
}

/* Generic (f16, bf16, f64) conv and conv_transpose of output plane (n, o), accumulated in double. */
static void rlx__conv_generic_plane(const void* vj, int64_t u, int thread) {
    const rlx__conv_job* j = (const rlx__conv_job*)vj;
    const rlx__win* v = &j->v;
    int64_t n = u / v->O, o = u % v->O, gi = o / v->Og, oh, ow, ci, kh, kw;
    rlx_dtype dt = j->dt;
    RLX__UNUSED(thread);
    for (oh = 0; oh < v->OH; oh++)
        for (ow = 0; ow < v->OW; ow++) {
            double acc = j->b ? rlx__vld(j->b, dt, o) : 0.0;
            for (ci = 0; ci < v->Cg; ci++) {
                int64_t c = gi * v->Cg + ci;
                /* weight [O, Cg, KH, KW] (conv) or [C, Og, KH, KW] (conv_transpose) */
                int64_t wbase = (j->transpose ? c * v->Og + o % v->Og : o * v->Cg + ci) * v->KH * v->KW;
                for (kh = 0; kh < v->KH; kh++) {
                    int64_t ih = rlx__conv_src(j->transpose, oh, kh, v->sh, v->dh, v->ph, v->H);
                    if (ih < 0) continue;
                    for (kw = 0; kw < v->KW; kw++) {
                        int64_t iw = rlx__conv_src(j->transpose, ow, kw, v->sw, v->dw, v->pw, v->W);
                        if (iw < 0) continue;
                        acc += rlx__vld(j->x, dt, ((n * v->C + c) * v->H + ih) * v->W + iw) *
                               rlx__vld(j->w, dt, wbase + kh * v->KW + kw);
                    }
                }
            }
            rlx__vst(j->y, dt, u * v->OH * v->OW + oh * v->OW + ow, acc);
        }
}

static size_t rlx__conv_ws(const rlx__win* v, int transpose, int nthreads, size_t* col_floats) {
    int64_t rows, chunk;
    int direct_b;
    rlx__conv_cols(v, transpose, &rows, &chunk, &direct_b);
    *col_floats = direct_b ? 0 : rlx__round_up(rlx__szmul(rlx__szmul((size_t)rows, (size_t)chunk), sizeof(float)), 64) / sizeof(float);
    return rlx__szadd(rlx__sgemm_workspace_bytes(nthreads),
                      rlx__szmul(rlx__szmul((size_t)RLX__MAX(nthreads, 1), *col_floats), sizeof(float)));
}

static void rlx__k_conv(const rlx_graph* g, const rlx__node* nd, void* const* in, void* out, rlx__pool* pool, void* ws) {
    rlx__conv_job j;
    const rlx__win* v = &j.v;
    int64_t T = rlx__pool_threads(pool), units;
    double flops;
    memset(&j, 0, sizeof j);
    rlx__win_init(g, nd, &j.v);
    j.transpose = nd->op == RLX_OP_CONV_TRANSPOSE;
    j.dt = nd->dtype;
    j.x = in[0]; j.w = in[1]; j.b = nd->ia[10] ? in[2] : NULL; j.y = out;
    flops = (double)rlx__node_numel(nd) * (double)(v->Cg * v->KH * v->KW);
    if (nd->dtype != RLX_F32) {
        rlx__vfor(pool, v->N * v->O, flops * 4.0, rlx__conv_generic_plane, &j);
        return;
    }
    if (rlx__conv_is_direct(v, j.transpose)) {
        rlx__vfor(pool, v->N * v->O, flops, rlx__conv_direct_plane, &j);
        return;
    }
    rlx__conv_cols(v, j.transpose, &j.rows, &j.chunk, &j.direct_b);
    rlx__conv_ws(v, j.transpose, (int)T, &j.col_floats);
    j.gws = (char*)ws;
    j.gslice = rlx__sgemm_workspace_bytes(1);
    j.col = (float*)(void*)((char*)ws + rlx__sgemm_workspace_bytes((int)T));
    /* Many units: one per thread, each GEMM serial. Few: one unit at a time, each GEMM on all threads. */
    units = v->N * v->G;
    if (T > 1 && (units >= 4 * T || units % T == 0)) {
        j.inner = NULL;
        rlx__vfor(pool, units, flops, rlx__conv_unit, &j);
    } else {
        int64_t u;
        j.inner = pool;
        for (u = 0; u < units; u++) rlx__conv_unit(&j, u, 0);
    }
}

/* ---- pooling ---------------------------------------------------------------------------------------------- */

typedef struct rlx__pool_job { rlx__win v; int is_max, include_pad; rlx_dtype dt; const void* x; void* y; } rlx__pool_job;

/* Max or sum over rows [h0, h1) and columns [w0, w1) of a plane at element offset xo. Max propagates NaN. */
static double rlx__pool_window(const rlx__pool_job* j, int64_t xo, int64_t h0, int64_t h1, int64_t w0, int64_t w1) {
    int64_t W = j->v.W, ih, iw;
    double acc = j->is_max ? -HUGE_VAL : 0.0;
    int saw_nan = 0;
    for (ih = h0; ih < h1; ih++)
        for (iw = w0; iw < w1; iw++) {
            double e = rlx__vld(j->x, j->dt, xo + ih * W + iw);
            if (j->is_max) { saw_nan |= e != e; acc = e > acc ? e : acc; }
            else acc += e;
        }
    return saw_nan ? (double)NAN : acc;
}

/* One plane (n, c): max ignores the padding; avg divides by KH·KW with count_include_pad, else by the real
   elements in the window (never zero: the builder keeps padding below the kernel size). */
static void rlx__pool_plane(const void* vj, int64_t u, int thread) {
    const rlx__pool_job* j = (const rlx__pool_job*)vj;
    const rlx__win* v = &j->v;
    int64_t oh, ow, yo = u * v->OH * v->OW;
    RLX__UNUSED(thread);
    for (oh = 0; oh < v->OH; oh++) {
        int64_t h0 = oh * v->sh - v->ph, h1 = RLX__MIN(h0 + v->KH, v->H);
        h0 = RLX__MAX(h0, (int64_t)0);
        for (ow = 0; ow < v->OW; ow++) {
            int64_t w0 = ow * v->sw - v->pw, w1 = RLX__MIN(w0 + v->KW, v->W);
            double r;
            w0 = RLX__MAX(w0, (int64_t)0);
            r = rlx__pool_window(j, u * v->H * v->W, h0, h1, w0, w1);
            if (!j->is_max) r /= (double)(j->include_pad ? v->KH * v->KW : (h1 - h0) * (w1 - w0));
            rlx__vst(j->y, j->dt, yo + oh * v->OW + ow, r);
        }
    }
}

static void rlx__k_pool(const rlx_graph* g, const rlx__node* nd, void* const* in, void* out, rlx__pool* pool) {
    rlx__pool_job j;
    rlx__win_init(g, nd, &j.v);
    j.is_max = nd->ia[1] == RLX_POOL_MAX;
    j.include_pad = nd->ia[10] != 0;
    j.dt = nd->dtype;
    j.x = in[0]; j.y = out;
    rlx__vfor(pool, j.v.N * j.v.C, (double)rlx__node_numel(nd) * (double)(j.v.KH * j.v.KW), rlx__pool_plane, &j);
}

/* ---- group_norm ------------------------------------------------------------------------------------------- */

typedef struct rlx__gn_job {
    int64_t C, G, S;            /* channels, groups, spatial size */
    rlx_dtype dt;
    const void *x, *gamma, *beta;
    void* y;
    double* stats;              /* mean and 1/std per (n, group) */
    double eps;
} rlx__gn_job;

/* Mean and 1/sqrt(var + eps) (biased variance, two passes) of block (n, group): Cg·S contiguous elements. */
static void rlx__gn_stats(const void* vj, int64_t u, int thread) {
    const rlx__gn_job* j = (const rlx__gn_job*)vj;
    int64_t cnt = (j->C / j->G) * j->S, base = u * cnt, i;
    double mean = 0.0, var = 0.0;
    RLX__UNUSED(thread);
    for (i = 0; i < cnt; i++) mean += rlx__vld(j->x, j->dt, base + i);
    mean /= (double)cnt;
    for (i = 0; i < cnt; i++) {
        double d = rlx__vld(j->x, j->dt, base + i) - mean;
        var += d * d;
    }
    j->stats[2 * u] = mean;
    j->stats[2 * u + 1] = 1.0 / sqrt(var / (double)cnt + j->eps);
}

/* Normalise plane (n, c) with its group's statistics, then scale and shift. */
static void rlx__gn_plane(const void* vj, int64_t u, int thread) {
    const rlx__gn_job* j = (const rlx__gn_job*)vj;
    int64_t n = u / j->C, c = u % j->C, gu = n * j->G + c / (j->C / j->G), i;
    double mean = j->stats[2 * gu], rstd = j->stats[2 * gu + 1];
    double ga = j->gamma ? rlx__vld(j->gamma, j->dt, c) : 1.0, be = j->beta ? rlx__vld(j->beta, j->dt, c) : 0.0;
    RLX__UNUSED(thread);
    for (i = u * j->S; i < (u + 1) * j->S; i++) rlx__vst(j->y, j->dt, i, (rlx__vld(j->x, j->dt, i) - mean) * rstd * ga + be);
}

static void rlx__k_group_norm(const rlx__node* nd, void* const* in, void* out, rlx__pool* pool, void* ws) {
    rlx__gn_job j;
    int k = 1;
    double work = (double)rlx__node_numel(nd);
    j.C = nd->shape[1]; j.G = nd->ia[0]; j.S = rlx__node_numel(nd) / (nd->shape[0] * j.C);
    j.dt = nd->dtype; j.eps = nd->fa[0];
    j.x = in[0];
    j.gamma = nd->ia[1] ? in[k++] : NULL;
    j.beta = nd->ia[2] ? in[k++] : NULL;
    j.y = out;
    j.stats = (double*)ws;
    rlx__vfor(pool, nd->shape[0] * j.G, work * 2.0, rlx__gn_stats, &j);
    rlx__vfor(pool, nd->shape[0] * j.C, work, rlx__gn_plane, &j);
}

/* ---- resize ----------------------------------------------------------------------------------------------- */

/* Source of one output index along an axis: neighbours i0, i1 and the weight t of i1 (nearest: i0 = i1). */
typedef struct rlx__rs_src { int64_t i0, i1; double t; } rlx__rs_src;

/* nearest: floor(d · in / out) in exact integer arithmetic. bilinear: half-pixel centres clamped to [0, in−1]
   (align = 0) or corner to corner (align = 1). */
static rlx__rs_src rlx__rs_coord(int64_t d, int64_t in, int64_t out, int bilinear, int align) {
    rlx__rs_src r;
    double s;
    if (!bilinear) {
        r.i0 = r.i1 = d * in / out;
        r.t = 0.0;
        return r;
    }
    if (align) s = out > 1 ? (double)d * (double)(in - 1) / (double)(out - 1) : 0.0;
    else s = ((double)d + 0.5) * (double)in / (double)out - 0.5;
    if (s < 0.0) s = 0.0;
    if (s > (double)(in - 1)) s = (double)(in - 1);
    r.i0 = (int64_t)s;
    r.i1 = RLX__MIN(r.i0 + 1, in - 1);
    r.t = s - (double)r.i0;
    return r;
}

typedef struct rlx__rs_job {
    int64_t H, W, OH, OW;
    int bilinear, align;
    rlx_dtype dt;
    const void* x;
    void* y;
    const rlx__rs_src* cols;    /* source of every output column, computed once */
} rlx__rs_job;

/* One plane (n, c): blend the two source rows, each blended between its two columns. */
static void rlx__rs_plane(const void* vj, int64_t u, int thread) {
    const rlx__rs_job* j = (const rlx__rs_job*)vj;
    int64_t oh, ow, xo = u * j->H * j->W, yo = u * j->OH * j->OW;
    RLX__UNUSED(thread);
    for (oh = 0; oh < j->OH; oh++) {
        rlx__rs_src r = rlx__rs_coord(oh, j->H, j->OH, j->bilinear, j->align);
        int64_t r0 = xo + r.i0 * j->W, r1 = xo + r.i1 * j->W;
        for (ow = 0; ow < j->OW; ow++) {
            const rlx__rs_src* c = &j->cols[ow];
            double a = rlx__vld(j->x, j->dt, r0 + c->i0), v = a;
            if (j->bilinear) {
                double b = rlx__vld(j->x, j->dt, r0 + c->i1), e = rlx__vld(j->x, j->dt, r1 + c->i0);
                double f = rlx__vld(j->x, j->dt, r1 + c->i1), top = a + (b - a) * c->t, bot = e + (f - e) * c->t;
                v = top + (bot - top) * r.t;
            }
            rlx__vst(j->y, j->dt, yo + oh * j->OW + ow, v);
        }
    }
}

static void rlx__k_resize(const rlx_graph* g, const rlx__node* nd, void* const* in, void* out, rlx__pool* pool, void* ws) {
    const rlx__node* x = rlx__N(g, rlx__in(g, nd, 0));
    rlx__rs_job j;
    rlx__rs_src* cols = (rlx__rs_src*)ws;
    int64_t ow;
    j.H = x->shape[2]; j.W = x->shape[3]; j.OH = nd->shape[2]; j.OW = nd->shape[3];
    j.bilinear = nd->ia[0] == RLX_RESIZE_BILINEAR; j.align = nd->ia[1] != 0;
    j.dt = nd->dtype; j.x = in[0]; j.y = out;
    for (ow = 0; ow < j.OW; ow++) cols[ow] = rlx__rs_coord(ow, j.W, j.OW, j.bilinear, j.align);
    j.cols = cols;
    rlx__vfor(pool, nd->shape[0] * nd->shape[1], (double)rlx__node_numel(nd) * 4.0, rlx__rs_plane, &j);
}

/* ---- pad -------------------------------------------------------------------------------------------------- */

typedef struct rlx__pad_job {
    int rank, mode;
    size_t e;                                 /* element bytes */
    int64_t xs[RLX_MAX_RANK], xst[RLX_MAX_RANK], os[RLX_MAX_RANK], before[RLX_MAX_RANK];
    unsigned char fill[16];                   /* the constant in the tensor's dtype */
    const char* x;
    char* y;
} rlx__pad_job;

/* Source index along an axis of size n for the unpadded position s, or -1 for the constant. */
static int64_t rlx__pad_src(int64_t s, int64_t n, int mode) {
    if (s >= 0 && s < n) return s;
    if (mode == RLX_PAD_CONSTANT) return -1;
    if (mode == RLX_PAD_EDGE) return s < 0 ? 0 : n - 1;
    return s < 0 ? -s : 2 * (n - 1) - s;      /* reflect (the builder keeps the padding below n) */
}

/* Output row `row` (all axes but the last): constant fill, or the source row with its last axis padded. */
static void rlx__pad_row(const void* vj, int64_t row, int thread) {
    const rlx__pad_job* j = (const rlx__pad_job*)vj;
    int last = j->rank - 1, a;
    int64_t rem = row, src = 0, i, n = j->xs[last], b = j->before[last], OL = j->os[last];
    char* dst = j->y + (size_t)(row * OL) * j->e;
    RLX__UNUSED(thread);
    for (a = last - 1; a >= 0; a--) {
        int64_t s = rlx__pad_src(rem % j->os[a] - j->before[a], j->xs[a], j->mode);
        rem /= j->os[a];
        if (s < 0) src = -1;
        if (src >= 0) src += s * j->xst[a];
    }
    for (i = 0; i < OL; i++) {
        int64_t s = src < 0 ? -1 : rlx__pad_src(i - b, n, j->mode);
        if (s < 0) memcpy(dst + (size_t)i * j->e, j->fill, j->e);
        else if (i == b) {                    /* the unpadded middle in one copy */
            memcpy(dst + (size_t)i * j->e, j->x + (size_t)src * j->e, (size_t)n * j->e);
            i += n - 1;
        } else memcpy(dst + (size_t)i * j->e, j->x + (size_t)(src + s) * j->e, j->e);
    }
}

static void rlx__k_pad(const rlx_graph* g, const rlx__node* nd, void* const* in, void* out, rlx__pool* pool) {
    const rlx__node* x = rlx__N(g, rlx__in(g, nd, 0));
    rlx__pad_job j;
    int a;
    int64_t acc = 1;
    memset(&j, 0, sizeof j);
    j.e = rlx_dtype_size(nd->dtype);
    if (nd->rank == 0) { memcpy(out, in[0], j.e); return; }
    j.rank = nd->rank; j.mode = (int)nd->ia[0];
    for (a = j.rank - 1; a >= 0; a--) {
        j.xs[a] = x->shape[a]; j.os[a] = nd->shape[a]; j.before[a] = nd->ia[1 + a];
        j.xst[a] = acc;
        acc *= x->shape[a];
    }
    rlx__store_f64(j.fill, nd->dtype, 0, nd->fa[0]);
    j.x = (const char*)in[0]; j.y = (char*)out;
    rlx__vfor(pool, rlx__node_numel(nd) / j.os[j.rank - 1], (double)rlx__node_bytes(nd) / 4.0, rlx__pad_row, &j);
}

/* ---- entry points ----------------------------------------------------------------------------------------- */

static size_t rlx__ws_vision(const rlx_graph* g, const rlx__node* nd, int nthreads) {
    rlx__win v;
    size_t col;
    switch (nd->op) {
    case RLX_OP_CONV: case RLX_OP_CONV_TRANSPOSE:
        if (nd->dtype != RLX_F32) return 0;
        rlx__win_init(g, nd, &v);
        if (rlx__conv_is_direct(&v, nd->op == RLX_OP_CONV_TRANSPOSE)) return 0;
        return rlx__conv_ws(&v, nd->op == RLX_OP_CONV_TRANSPOSE, nthreads, &col);
    case RLX_OP_GROUP_NORM: return rlx__szmul(rlx__szmul((size_t)nd->shape[0], (size_t)nd->ia[0]), 2 * sizeof(double));
    case RLX_OP_RESIZE: return rlx__szmul((size_t)nd->shape[3], sizeof(rlx__rs_src));
    default: return 0;
    }
}

static void rlx__k_vision(const rlx_graph* g, const rlx__node* nd, void* const* in, void* out, rlx__pool* pool, void* ws) {
    switch (nd->op) {
    case RLX_OP_CONV: case RLX_OP_CONV_TRANSPOSE: rlx__k_conv(g, nd, in, out, pool, ws); return;
    case RLX_OP_POOL: rlx__k_pool(g, nd, in, out, pool); return;
    case RLX_OP_GROUP_NORM: rlx__k_group_norm(nd, in, out, pool, ws); return;
    case RLX_OP_RESIZE: rlx__k_resize(g, nd, in, out, pool, ws); return;
    case RLX_OP_PAD: rlx__k_pad(g, nd, in, out, pool); return;
    default: RLX_ASSERT(0 && "rlx__k_vision: not a vision op"); return;
    }
}

/* ------------------------------------------------------------------------------------------------------------
   CPU kernels: attention, rope
   Attention: a task is a block of M rows that share one kv head: queries of one head, or (a single query per
   head, the decode case) the query heads of one kv head. Each task computes its scores S = Q·K^T over the union
   [lo, hi) of its rows' key ranges with rlx__sgemm (serial, in this thread's workspace slice), turns each row
   into softmax weights in place (masked keys weigh 0, max-subtracted), then O = P·V, scaled by 1 / sum per row.
   f32 reads Q, K and V in place and writes O straight into the output; other dtypes convert Q rows and chunks
   of K/V rows to f32 first and store the result through the rounding helpers. The task split depends on the
   shapes only, so any thread count gives the same bits. A row that sees no key is zeros. Keys at or past kv_len
   are never read; a key hidden by causality, the window or keep_mask inside [lo, hi) still has its V row
   multiplied by a weight of exactly 0 (so only a NaN or inf stored there could show through).
   RoPE: one task per block of rows (a row = one head of one token); f32 computes in f32, other dtypes in double.
   ------------------------------------------------------------------------------------------------------------ */

/* f16 bits → f32 (exact). */
static float rlx__attn_h2f(uint16_t h) {
    uint32_t s = (uint32_t)(h & 0x8000u) << 16, e = (uint32_t)(h >> 10) & 0x1Fu, m = (uint32_t)h & 0x3FFu;
    if (e == 0) {
        float f = (float)m * (1.0f / 16777216.0f); /* subnormal (or zero): m · 2^-24 */
        return s ? -f : f;
    }
    if (e == 31) return rlx__bits_f32(s | 0x7F800000u | (m << 13));
    return rlx__bits_f32(s | ((e + 112u) << 23) | (m << 13));
}

/* n elements of a float tensor starting at element i → f32. */
static void rlx__attn_row_f32(float* dst, const void* src, rlx_dtype t, int64_t i, int64_t n) {
    int64_t k;
    switch (t) {
    case RLX_F32: memcpy(dst, (const float*)src + i, (size_t)n * sizeof(float)); break;
    case RLX_F64: for (k = 0; k < n; k++) dst[k] = (float)((const double*)src)[i + k]; break;
    case RLX_F16: for (k = 0; k < n; k++) dst[k] = rlx__attn_h2f(((const uint16_t*)src)[i + k]); break;
    case RLX_BF16:
        for (k = 0; k < n; k++) dst[k] = rlx__bits_f32((uint32_t)((const uint16_t*)src)[i + k] << 16);
        break;
    default: for (k = 0; k < n; k++) dst[k] = (float)rlx__load_f64(src, t, i + k); break;
    }
}

static float rlx__attn_load1(const void* src, rlx_dtype t, int64_t i) {
    switch (t) {
    case RLX_F32: return ((const float*)src)[i];
    case RLX_F64: return (float)((const double*)src)[i];
    case RLX_F16: return rlx__attn_h2f(((const uint16_t*)src)[i]);
    case RLX_BF16: return rlx__bits_f32((uint32_t)((const uint16_t*)src)[i] << 16);
    default: return (float)rlx__load_f64(src, t, i);
    }
}

#define RLX__ATTN_CHUNK 256   /* keys converted to f32 at a time (non-f32 dtypes) */

typedef struct rlx__attn_job {
    const void *q, *k, *v, *bias;
    const uint8_t* keep;
    void* out;
    rlx_dtype dt;
    int64_t B, H, Hkv, group, D, Dv, Sq, Sk;
    int64_t kv_valid, off, window;
    const void* kv_rows;      /* kv_len per batch row ([B], kv_dt) or NULL: then kv_valid/off hold for every row */
    rlx_dtype kv_dt;
    int causal;
    float scale, softcap;
    /* element strides: batch, head, sequence (the last dim is contiguous) */
    int64_t qb, qh, qs, kb, kh, ks, vb, vh, vs, ob, oh, os;
    int64_t bb, bh, bq, bk;   /* bias strides over [B, H, Sq, Sk]; 0 where broadcast */
    int64_t mb, mq;           /* keep_mask strides over [B, Sq]; the key stride is 1 */
    /* task split: a function of the shapes only, never of the thread count */
    int rows_are_heads;       /* Sq == 1 and H > Hkv: a task takes up to `rows` query heads of one kv head */
    int64_t rows;             /* rows per task */
    int64_t nblk;             /* tasks per (batch, head) or per (batch, kv head) */
    char* ws;
    size_t ws_thread;         /* bytes per thread */
} rlx__attn_job;

/* Most rows one task holds: up to 64, fewer for long keys (a score block of at most 256K floats). */
static int64_t rlx__attn_rows_max(int64_t Sk) {
    int64_t r = ((int64_t)1 << 18) / (Sk > 0 ? Sk : 1);
    return r < 1 ? 1 : (r > 64 ? 64 : r);
}

/* Per-thread workspace slice, in this order: matmul workspace, scores [Rm, Sk], row lo/hi (int64), row 1/sum
   (f32), row state (byte); non-f32 dtypes add Q rows [Rm, D], a chunk of K/V rows, O [Rm, Dv] and a partial O. */
typedef struct rlx__attn_slice { size_t sc, rlo, rhi, inv, state, qf, kv, oacc, otmp, total; } rlx__attn_slice;

static void rlx__attn_layout(rlx_dtype dt, int64_t Sk, int64_t D, int64_t Dv, rlx__attn_slice* L) {
    /* saturating: a layout that does not fit size_t totals SIZE_MAX and fails to allocate */
    const size_t Rm = (size_t)rlx__attn_rows_max(Sk), f = sizeof(float);
    const size_t wide = (size_t)(D > Dv ? D : Dv);
    size_t o = rlx__align_up(rlx__sgemm_workspace_bytes(1));
    L->sc = o;    o = rlx__szadd(o, rlx__align_up(rlx__szmul(Rm * f, (size_t)Sk)));
    L->rlo = o;   o = rlx__szadd(o, rlx__align_up(Rm * sizeof(int64_t)));
    L->rhi = o;   o = rlx__szadd(o, rlx__align_up(Rm * sizeof(int64_t)));
    L->inv = o;   o = rlx__szadd(o, rlx__align_up(Rm * f));
    L->state = o; o = rlx__szadd(o, rlx__align_up(Rm));
    L->qf = L->kv = L->oacc = L->otmp = o;
    if (dt != RLX_F32) {
        L->qf = o;   o = rlx__szadd(o, rlx__align_up(rlx__szmul(Rm * f, (size_t)D)));
        L->kv = o;   o = rlx__szadd(o, rlx__align_up(rlx__szmul((size_t)RLX__ATTN_CHUNK * f, wide)));
        L->oacc = o; o = rlx__szadd(o, rlx__align_up(rlx__szmul(Rm * f, (size_t)Dv)));
        L->otmp = o; o = rlx__szadd(o, rlx__align_up(rlx__szmul(Rm * f, (size_t)Dv)));
    }
    L->total = o;
}

/* kv_len clamped to [0, Sk] */
static int64_t rlx__attn_kv(int64_t kv, int64_t Sk) { return kv < 0 ? 0 : (kv > Sk ? Sk : kv); }

/* Visible keys of query i of batch b are [*lo, *hi) before keep_mask: kv_len, causal and window bounds. */
static void rlx__attn_range(const rlx__attn_job* j, int64_t b, int64_t i, int64_t* lo, int64_t* hi) {
    const int64_t kv = j->kv_rows ? rlx__attn_kv(rlx__load_i64(j->kv_rows, j->kv_dt, b), j->Sk) : j->kv_valid;
    const int64_t pos = i + (j->kv_rows ? kv - j->Sq : j->off);
    *lo = 0;
    *hi = kv;
    if (j->causal && pos + 1 < *hi) *hi = pos + 1;
    if (j->window > 0 && pos - j->window + 1 > *lo) *lo = pos - j->window + 1;
}

static void rlx__attn_task(void* ctx, int64_t task, int thread) {
    const rlx__attn_job* j = (const rlx__attn_job*)ctx;
    rlx__attn_slice L;
    char* slice = j->ws + (size_t)thread * j->ws_thread;
    float *sc, *inv, *qf, *kvf, *oacc, *otmp, *outp = NULL;
    int64_t *rlo, *rhi;
    unsigned char* state; /* per row: 0 normal, 1 no visible key (zeros), 2 NaN logits and no finite one */
    const int f32 = j->dt == RLX_F32;
    const int64_t R = j->rows, D = j->D, Dv = j->Dv;
    int64_t b, hk, h0, dh, i0, di, M, lo = -1, hi = -1, N, r, n, d, c0;
    int64_t qrs, ors, obase;
    rlx__attn_layout(j->dt, j->Sk, D, Dv, &L);
    sc = (float*)(void*)(slice + L.sc);
    rlo = (int64_t*)(void*)(slice + L.rlo);
    rhi = (int64_t*)(void*)(slice + L.rhi);
    inv = (float*)(void*)(slice + L.inv);
    state = (unsigned char*)(slice + L.state);
    qf = (float*)(void*)(slice + L.qf);
    kvf = (float*)(void*)(slice + L.kv);
    oacc = (float*)(void*)(slice + L.oacc);
    otmp = (float*)(void*)(slice + L.otmp);
    if (j->rows_are_heads) {
        const int64_t blk = task % j->nblk, bk = task / j->nblk;
        hk = bk % j->Hkv; b = bk / j->Hkv;
        h0 = hk * j->group + blk * R; dh = 1; i0 = 0; di = 0;
        M = RLX__MIN(R, (hk + 1) * j->group - h0);
    } else {
        const int64_t blk = task % j->nblk, bh_ = task / j->nblk;
        h0 = bh_ % j->H; b = bh_ / j->H; hk = h0 / j->group;
        dh = 0; i0 = blk * R; di = 1;
        M = RLX__MIN(R, j->Sq - i0);
    }
    if (M <= 0) return;
    for (r = 0; r < M; r++) {
        rlx__attn_range(j, b, i0 + r * di, &rlo[r], &rhi[r]);
        if (rlo[r] < rhi[r]) {
            if (lo < 0 || rlo[r] < lo) lo = rlo[r];
            if (rhi[r] > hi) hi = rhi[r];
        }
    }
    ors = dh * j->oh + di * j->os;
    obase = b * j->ob + h0 * j->oh + i0 * j->os;
    if (f32) outp = (float*)j->out + obase;
    if (lo < 0) { /* no row sees a key */
        for (r = 0; r < M; r++)
            for (d = 0; d < Dv; d++) {
                if (f32) outp[r * ors + d] = 0.0f;
                else rlx__store_f64(j->out, j->dt, obase + r * ors + d, 0.0);
            }
        return;
    }
    N = hi - lo;
    /* S = Q·K^T over keys [lo, hi) */
    qrs = dh * j->qh + di * j->qs;
    if (f32) {
        rlx__sgemm(NULL, slice, M, N, D, (const float*)j->q + b * j->qb + h0 * j->qh + i0 * j->qs, qrs, 1,
                   (const float*)j->k + b * j->kb + hk * j->kh + lo * j->ks, 1, j->ks, sc, N);
    } else {
        for (r = 0; r < M; r++) rlx__attn_row_f32(qf + r * D, j->q, j->dt, b * j->qb + h0 * j->qh + i0 * j->qs + r * qrs, D);
        for (c0 = lo; c0 < hi; c0 += RLX__ATTN_CHUNK) {
            const int64_t nb = RLX__MIN((int64_t)RLX__ATTN_CHUNK, hi - c0);
            for (n = 0; n < nb; n++) rlx__attn_row_f32(kvf + n * D, j->k, j->dt, b * j->kb + hk * j->kh + (c0 + n) * j->ks, D);
            rlx__sgemm(NULL, slice, M, nb, D, qf, D, 1, kvf, 1, D, sc + (c0 - lo), N);
        }
    }
    /* rows → softmax weights */
    for (r = 0; r < M; r++) {
        const int64_t h = h0 + r * dh, i = i0 + r * di, bbase = b * j->bb + h * j->bh + i * j->bq;
        const uint8_t* keep = j->keep ? j->keep + b * j->mb + i * j->mq : NULL;
        float* srow = sc + r * N;
        float mx = -INFINITY, sum = 0.0f;
        int nan = 0;
        for (n = 0; n < N; n++) {
            const int64_t key = lo + n;
            float s;
            if (key < rlo[r] || key >= rhi[r] || (keep && !keep[key])) { srow[n] = -INFINITY; continue; }
            s = j->scale * srow[n];
            if (j->softcap > 0.0f) s = j->softcap * tanhf(s / j->softcap);
            if (j->bias) s += rlx__attn_load1(j->bias, j->dt, bbase + key * j->bk);
            srow[n] = s;
            if (s > mx) mx = s;
            else if (s != s) nan = 1;
        }
        if (!(mx > -INFINITY)) {
            state[r] = (unsigned char)(nan ? 2 : 1);
            for (n = 0; n < N; n++) srow[n] = 0.0f;
            continue;
        }
        for (n = 0; n < N; n++) {
            const float p = srow[n] == -INFINITY ? 0.0f : expf(srow[n] - mx);
            srow[n] = p;
            sum += p;
        }
        state[r] = 0;
        inv[r] = 1.0f / sum;
    }
    /* O = P·V, then 1/sum per row */
    if (f32) {
        rlx__sgemm(NULL, slice, M, Dv, N, sc, N, 1, (const float*)j->v + b * j->vb + hk * j->vh + lo * j->vs, j->vs, 1,
                   outp, ors);
        for (r = 0; r < M; r++) {
            float* orow = outp + r * ors;
            if (state[r]) {
                const float fill = state[r] == 2 ? NAN : 0.0f;
                for (d = 0; d < Dv; d++) orow[d] = fill;
            } else {
                const float f = inv[r];
                for (d = 0; d < Dv; d++) orow[d] *= f;
            }
        }
        return;
    }
    for (c0 = lo; c0 < hi; c0 += RLX__ATTN_CHUNK) {
        const int64_t nb = RLX__MIN((int64_t)RLX__ATTN_CHUNK, hi - c0);
        for (n = 0; n < nb; n++) rlx__attn_row_f32(kvf + n * Dv, j->v, j->dt, b * j->vb + hk * j->vh + (c0 + n) * j->vs, Dv);
        rlx__sgemm(NULL, slice, M, Dv, nb, sc + (c0 - lo), N, 1, kvf, Dv, 1, c0 == lo ? oacc : otmp, Dv);
        if (c0 != lo)
            for (n = 0; n < M * Dv; n++) oacc[n] += otmp[n];
    }
    for (r = 0; r < M; r++)
        for (d = 0; d < Dv; d++) {
            const double x = state[r] == 2 ? (double)NAN : (state[r] ? 0.0 : (double)(oacc[r * Dv + d] * inv[r]));
            rlx__store_f64(j->out, j->dt, obase + r * ors + d, x);
        }
}

static void rlx__k_attention(const rlx_graph* g, const rlx__node* nd, void* const* in, void* out, rlx__pool* pool,
                             void* ws) {
    rlx__attn_job j;
    rlx__attn_slice L;
    const int layout = (int)nd->ia[0], has_keep = nd->ia[5] != 0, has_bias = nd->ia[6] != 0, has_kv = nd->ia[7] != 0;
    const int64_t H = nd->ia[1], Hkv = nd->ia[2], D = nd->ia[8], Dv = nd->ia[9], B = nd->ia[10];
    const int64_t Sq = nd->ia[11], Sk = nd->ia[12];
    int slot = 3;
    int64_t ntasks, work;
    memset(&j, 0, sizeof j);
    j.q = in[0]; j.k = in[1]; j.v = in[2]; j.out = out;
    j.dt = nd->dtype;
    j.B = B; j.H = H; j.Hkv = Hkv; j.group = H / Hkv; j.D = D; j.Dv = Dv; j.Sq = Sq; j.Sk = Sk;
    j.causal = nd->ia[3] != 0;
    j.window = nd->ia[4];
    j.scale = (float)nd->fa[0];
    j.softcap = (float)nd->fa[1];
    if (layout == RLX_LAYOUT_BSHD) {
        j.qs = H * D;    j.qh = D;  j.qb = Sq * j.qs;
        j.ks = Hkv * D;  j.kh = D;  j.kb = Sk * j.ks;
        j.vs = Hkv * Dv; j.vh = Dv; j.vb = Sk * j.vs;
        j.os = H * Dv;   j.oh = Dv; j.ob = Sq * j.os;
    } else {
        j.qs = D;  j.qh = Sq * D;  j.qb = H * j.qh;
        j.ks = D;  j.kh = Sk * D;  j.kb = Hkv * j.kh;
        j.vs = Dv; j.vh = Sk * Dv; j.vb = Hkv * j.vh;
        j.os = Dv; j.oh = Sq * Dv; j.ob = H * j.oh;
    }
    if (has_keep) {
        j.keep = (const uint8_t*)in[slot++];
        if (nd->ia[13] == 3) { j.mq = Sk; j.mb = Sq * Sk; }
        else { j.mq = 0; j.mb = Sk; }
    }
    if (has_bias) {
        const rlx__node* nb = rlx__N(g, rlx__in(g, nd, slot));
        int64_t st[4] = {0, 0, 0, 0}, acc = 1;
        int r;
        for (r = nb->rank - 1; r >= 0; r--) {
            const int a = 4 - nb->rank + r;
            st[a] = nb->shape[r] == 1 ? 0 : acc;
            acc *= nb->shape[r];
        }
        j.bias = in[slot++];
        j.bb = st[0]; j.bh = st[1]; j.bq = st[2]; j.bk = st[3];
    }
    j.kv_valid = Sk;
    if (has_kv) {
        const rlx__node* nl = rlx__N(g, rlx__in(g, nd, slot));
        j.kv_valid = rlx__attn_kv(rlx__load_i64(in[slot], nl->dtype, 0), Sk);
        if (nd->ia[7] == 2) { j.kv_rows = in[slot]; j.kv_dt = nl->dtype; }
    }
    j.off = j.kv_valid - Sq;
    j.ws = (char*)ws;
    rlx__attn_layout(j.dt, Sk, D, Dv, &L);
    j.ws_thread = L.total;
    work = B * H * Sq * j.kv_valid * (D + Dv);   /* keys past kv_len cost nothing */
    if (Sq == 1 && j.group > 1) {
        j.rows_are_heads = 1;
        /* up to rows_max heads per task, fewer (down to 4) while there are under 64 tasks */
        j.rows = RLX__MIN(j.group, rlx__attn_rows_max(Sk));
        while (j.rows > 4 && B * Hkv * ((j.group + j.rows - 1) / j.rows) < 64) j.rows = (j.rows + 1) / 2;
        j.nblk = (j.group + j.rows - 1) / j.rows;
        j.rows = (j.group + j.nblk - 1) / j.nblk;
        ntasks = B * Hkv * j.nblk;
    } else {
        /* balanced query blocks of at most rows_max, smaller (down to 16) while there are under 64 tasks */
        j.rows = RLX__MIN(Sq, rlx__attn_rows_max(Sk));
        while (j.rows > 16 && B * H * ((Sq + j.rows - 1) / j.rows) < 64) j.rows = (j.rows + 1) / 2;
        j.nblk = (Sq + j.rows - 1) / j.rows;
        j.rows = (Sq + j.nblk - 1) / j.nblk;
        ntasks = B * H * j.nblk;
    }
    rlx__parallel_for(rlx__pool_if(pool, (double)work), ntasks, rlx__attn_task, &j);
}

typedef struct rlx__rope_job {
    const void *x, *cs, *sn, *pos;
    void* out;
    rlx_dtype dt, pdt;
    int kind, layout, pos_rank;
    int64_t H, D, S, P, nrot, offset, rows, per;
} rlx__rope_job;

static void rlx__rope_task(void* ctx, int64_t task, int thread) {
    const rlx__rope_job* j = (const rlx__rope_job*)ctx;
    const int64_t half = j->nrot / 2, r0 = task * j->per, r1 = RLX__MIN(j->rows, r0 + j->per);
    const size_t e = rlx_dtype_size(j->dt);
    int64_t r, p;
    RLX__UNUSED(thread);
    for (r = r0; r < r1; r++) {
        int64_t b, s, base, t;
        int ok;
        if (j->layout == RLX_LAYOUT_BSHD) { s = (r / j->H) % j->S; b = r / (j->H * j->S); }
        else { s = r % j->S; b = r / (j->S * j->H); }
        base = r * j->D; /* rows are contiguous D-element runs in both layouts */
        if (j->pos) {
            t = rlx__load_i64(j->pos, j->pdt, j->pos_rank == 2 ? b * j->S + s : s);
            ok = t >= 0 && t < j->P;
        } else {
            ok = j->offset >= -s && j->offset < j->P - s;
            t = ok ? j->offset + s : 0;
        }
        if (!ok) {
            memcpy((char*)j->out + (size_t)base * e, (const char*)j->x + (size_t)base * e, (size_t)j->D * e);
            continue;
        }
        if (j->nrot < j->D)
            memcpy((char*)j->out + (size_t)(base + j->nrot) * e, (const char*)j->x + (size_t)(base + j->nrot) * e,
                   (size_t)(j->D - j->nrot) * e);
        for (p = 0; p < half; p++) {
            const int64_t ia = base + (j->kind == RLX_ROPE_NEOX ? p : 2 * p);
            const int64_t ib = base + (j->kind == RLX_ROPE_NEOX ? p + half : 2 * p + 1);
            const int64_t it = t * half + p;
            if (j->dt == RLX_F32) {
                const float a = ((const float*)j->x)[ia], bv = ((const float*)j->x)[ib];
                const float c = ((const float*)j->cs)[it], sn = ((const float*)j->sn)[it];
                ((float*)j->out)[ia] = a * c - bv * sn;
                ((float*)j->out)[ib] = bv * c + a * sn;
            } else {
                const double a = rlx__load_f64(j->x, j->dt, ia), bv = rlx__load_f64(j->x, j->dt, ib);
                const double c = rlx__load_f64(j->cs, j->dt, it), sn = rlx__load_f64(j->sn, j->dt, it);
                rlx__store_f64(j->out, j->dt, ia, a * c - bv * sn);
                rlx__store_f64(j->out, j->dt, ib, bv * c + a * sn);
            }
        }
    }
}

static void rlx__k_rope(const rlx_graph* g, const rlx__node* nd, void* const* in, void* out, rlx__pool* pool) {
    rlx__rope_job j;
    int64_t total, ntasks, nth = rlx__pool_threads(pool);
    memset(&j, 0, sizeof j);
    j.x = in[0]; j.cs = in[1]; j.sn = in[2]; j.out = out;
    j.dt = nd->dtype;
    j.kind = (int)nd->ia[0]; j.layout = (int)nd->ia[1];
    j.H = nd->ia[2]; j.nrot = nd->ia[3]; j.offset = nd->ia[5]; j.D = nd->ia[6]; j.S = nd->ia[8]; j.P = nd->ia[9];
    if (nd->ia[4]) {
        const rlx__node* np = rlx__N(g, rlx__in(g, nd, 3));
        j.pos = in[3]; j.pdt = np->dtype; j.pos_rank = np->rank;
    }
    j.rows = nd->ia[7] * j.H * j.S;
    total = j.rows * j.D;
    ntasks = nth > 1 && rlx__pool_if(pool, (double)total) ? RLX__MIN(j.rows, nth * 4) : 1;
    if (ntasks < 1) ntasks = 1;
    j.per = (j.rows + ntasks - 1) / ntasks;
    if (j.per < 1) j.per = 1;
    rlx__parallel_for(ntasks > 1 ? pool : NULL, (j.rows + j.per - 1) / j.per, rlx__rope_task, &j);
}

static size_t rlx__ws_attn(const rlx_graph* g, const rlx__node* nd, int nthreads) {
    rlx__attn_slice L;
    RLX__UNUSED(g);
    if (nd->op != RLX_OP_ATTENTION) return 0;
    rlx__attn_layout(nd->dtype, nd->ia[12], nd->ia[8], nd->ia[9], &L);
    return rlx__szmul((size_t)(nthreads < 1 ? 1 : nthreads), L.total);
}

static void rlx__k_attn(const rlx_graph* g, const rlx__node* nd, void* const* in, void* out, rlx__pool* pool, void* ws) {
    switch (nd->op) {
    case RLX_OP_ATTENTION: rlx__k_attention(g, nd, in, out, pool, ws); return;
    case RLX_OP_ROPE: rlx__k_rope(g, nd, in, out, pool); return;
    default: RLX_ASSERT(0 && "rlx__k_attn: not an attention op"); return;
    }
}

RLXDEF rlx_result rlx_rope_tables(float* cos_out, float* sin_out, int max_pos, int n_rot, double theta) {
    int t, p, half;
    if (!cos_out || !sin_out || max_pos < 1 || n_rot < 2 || n_rot % 2 || !(theta > 0.0)) return RLX_ERROR_INVALID_ARGUMENT;
    half = n_rot / 2;
    for (p = 0; p < half; p++) {
        const double inv_freq = pow(theta, -2.0 * (double)p / (double)n_rot);
        for (t = 0; t < max_pos; t++) {
            const double a = (double)t * inv_freq;
            cos_out[(size_t)t * (size_t)half + (size_t)p] = (float)cos(a);
            sin_out[(size_t)t * (size_t)half + (size_t)p] = (float)sin(a);
        }
    }
    return RLX_OK;
}

/* ------------------------------------------------------------------------------------------------------------
   >>cpu (misc kernels): cumsum, topk, sample, and the counter-based generator rlx_uniform.

   Exact semantics (every backend must reproduce them bit for bit; the CPU code below is the reference):

   CUMSUM (ia: 0 axis, 1 exclusive, 2 reverse). Along the axis, in order of increasing index (reverse: of
     decreasing index), out[j] = sum of the elements visited before j (exclusive) or up to and including j
     (inclusive); an exclusive sum starts at 0. Integer and bool inputs accumulate in int64 with two's-complement
     wrap-around and give int64. Float inputs (f32, f16, bf16, f64) accumulate sequentially in double; every
     output element is the running double sum rounded once to the output dtype (= the input dtype).

   TOPK (ia: 0 axis, 1 k, 2 largest, 3 which: 0 values, 1 indices). Order on the elements of one row (the n
     elements along the axis): element a is better than element b iff key(a) > key(b), or the keys are equal and
     index(a) < index(b). For largest = 1, key grows with the value; for largest = 0 it shrinks with the value.
     Floats compare by value (f16/bf16/f32 widened to double exactly); -0 equals +0; every NaN is one value
     larger than +inf (so largest = 1 puts NaNs first, largest = 0 puts them last, NaNs among themselves by
     index). Integers compare exactly as int64 (u32 zero-extended). The output holds the k best elements, best
     first, at positions 0..k-1 of the axis: the value node copies the element bits unchanged (x's dtype), the
     index node stores the int64 index along the axis. The order is total, so any correct selection algorithm
     gives the same output.

   rlx_uniform(seed, counter, row). With splitmix64 the output function of the SplitMix64 generator,
         splitmix64(x): z = x + 0x9E3779B97F4A7C15; z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
                        z = (z ^ (z >> 27)) * 0x94D049BB133111EB; return z ^ (z >> 31)
     (all arithmetic mod 2^64), it computes
         h = splitmix64(seed ^ splitmix64((uint64_t)counter ^ splitmix64((uint64_t)row)))
     and returns (float)(h >> 40) * 2^-24: a multiple of 2^-24 in [0, 1 - 2^-24], exact in f32.

   SAMPLE (in: logits [..., V], counter (i32/i64 single element); ia: 0 top_k, 1 seed bits; fa: 0 temperature T,
     1 top_p). Output int64 [...]. Row r is the r-th row of V logits in row-major order of the leading dims.
     All arithmetic is in double (logits widened exactly). For each row:
     1. T <= 0 (greedy): the index of the largest logit, first index on ties; a NaN beats every number (the
        first NaN's index is returned). top_k / top_p / seed are ignored.
     2. Otherwise let l_i be the logits with NaN replaced by -inf. Candidates c_0, c_1, ... are all indices
        sorted by l descending, ties to the smaller index (-0 equals +0). Keep the first m = top_k of them when
        0 < top_k < V, else all m = V.
     3. lmax = l_{c_0}. If lmax == -inf (every logit is -inf or NaN) the result is c_0 (= index 0 when all are
        NaN). Stop.
     4. Weights w_i = 1 if l_{c_i} == lmax, else exp((l_{c_i} - lmax) / T), with T the float temperature widened
        to double. Running sums S_i = S_{i-1} + w_i (S_{-1} = 0), added sequentially in candidate order.
     5. If 0 < top_p < 1 (the float top_p widened to double): m' = 1 + the first i < m with S_i >= top_p * S_{m-1}
        (m' = m if there is none); else m' = m.
     6. u = (double)rlx_uniform(seed, counter, r); t = u * S_{m'-1}. The result is c_i for the first i < m' with
        S_i > t, or c_{m'-1} if there is none (rounding).
   ------------------------------------------------------------------------------------------------------------ */

static uint64_t rlx__splitmix64(uint64_t x) {
    uint64_t z = x + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

RLXDEF float rlx_uniform(uint64_t seed, int64_t counter, int64_t row) {
    uint64_t h = rlx__splitmix64(seed ^ rlx__splitmix64((uint64_t)counter ^ rlx__splitmix64((uint64_t)row)));
    return (float)(h >> 40) * (1.0f / 16777216.0f);
}

/* ---- selection of the k best elements of a row ----
   Two representations, both giving the documented order:
   - packed (every dtype but f64 and i64, rows shorter than 2^32): one uint64 per element,
     (~key32) << 32 | index, where key32 grows with "better"; smaller packed value = better, and equal keys
     fall back to the smaller index by construction;
   - wide (f64, i64): {key64, index}, larger key = better, ties to the smaller index.
   Small k: a heap of the k best (O(n log k)). Large k: a stable LSD radix sort of the whole row on the key
   (rows are filled in index order, so equal keys stay index-ascending). */
typedef struct rlx__kv { uint64_t key; int64_t idx; } rlx__kv;

#define RLX__KV_SIGN 0x8000000000000000ull
#define RLX__RADIX_BITS 11
#define RLX__RADIX_BINS 2048
#define RLX__RADIX_PASSES 6                       /* 6 x 11 bits >= 64 */
#define RLX__RADIX_HIST_BYTES ((size_t)RLX__RADIX_PASSES * RLX__RADIX_BINS * sizeof(int64_t))

/* Monotone maps to unsigned keys (NaN -> nan_key, -0 -> +0). */
static uint64_t rlx__fkey(double v, uint64_t nan_key) {
    uint64_t b;
    if (v != v) return nan_key;
    if (v == 0.0) v = 0.0;
    memcpy(&b, &v, sizeof b);
    return (b >> 63) ? ~b : (b | RLX__KV_SIGN);
}
static uint32_t rlx__fkey32(float v, uint32_t nan_key) {
    uint32_t b;
    if (v != v) return nan_key;
    if (v == 0.0f) v = 0.0f;
    memcpy(&b, &v, sizeof b);
    return (b >> 31) ? ~b : (b | 0x80000000u);
}

static int rlx__sel_packed(rlx_dtype t, int64_t n) { return t != RLX_F64 && t != RLX_I64 && n <= (int64_t)0xFFFFFFFF; }
static int rlx__sel_use_radix(int64_t n, int64_t k) { return n >= 512 && k * 16 > n; }
static size_t rlx__sel_esz(rlx_dtype t, int64_t n) { return rlx__sel_packed(t, n) ? sizeof(uint64_t) : sizeof(rlx__kv); }

/* Scratch of one selection of k out of n: the items, then (radix sort) n more items and the histograms. */
static size_t rlx__sel_scratch(rlx_dtype t, int64_t n, int64_t k) {
    size_t b = rlx__szmul((size_t)n, rlx__sel_esz(t, n));
    if (rlx__sel_use_radix(n, k)) b = rlx__szadd(rlx__szadd(b, b), RLX__RADIX_HIST_BYTES);
    return b;
}

/* ---- packed ---- */
static void rlx__pk_fill(uint64_t* a, const void* base, rlx_dtype t, int64_t off, int64_t stride, int64_t n,
                         uint32_t nan_key, uint32_t flip) {
    int64_t j;
#define RLX__PK_LOOP(KEY) for (j = 0; j < n; j++) a[j] = ((uint64_t)(uint32_t)~((KEY) ^ flip) << 32) | (uint64_t)j
    switch (t) {
    case RLX_F32: { const float* p = (const float*)base + off; RLX__PK_LOOP(rlx__fkey32(p[j * stride], nan_key)); break; }
    case RLX_F16: {
        const uint16_t* p = (const uint16_t*)base + off;
        RLX__PK_LOOP(rlx__fkey32(rlx__f16_to_f32(p[j * stride]), nan_key));
        break;
    }
    case RLX_BF16: {
        const uint16_t* p = (const uint16_t*)base + off;
        RLX__PK_LOOP(rlx__fkey32(rlx__bf16_to_f32(p[j * stride]), nan_key));
        break;
    }
    case RLX_I32: { const int32_t* p = (const int32_t*)base + off; RLX__PK_LOOP((uint32_t)p[j * stride] ^ 0x80000000u); break; }
    case RLX_I16: { const int16_t* p = (const int16_t*)base + off; RLX__PK_LOOP((uint32_t)(int32_t)p[j * stride] ^ 0x80000000u); break; }
    case RLX_I8: { const int8_t* p = (const int8_t*)base + off; RLX__PK_LOOP((uint32_t)(int32_t)p[j * stride] ^ 0x80000000u); break; }
    case RLX_U32: { const uint32_t* p = (const uint32_t*)base + off; RLX__PK_LOOP(p[j * stride]); break; }
    default: { const uint8_t* p = (const uint8_t*)base + off; RLX__PK_LOOP((uint32_t)p[j * stride]); break; } /* u8, bool */
    }
#undef RLX__PK_LOOP
}

/* max-heap (worst = largest at the root) */
static void rlx__pk_sift(uint64_t* h, int64_t m, int64_t i) {
    uint64_t v = h[i];
    for (;;) {
        int64_t c = 2 * i + 1;
        if (c >= m) break;
        if (c + 1 < m && h[c + 1] > h[c]) c++;
        if (h[c] <= v) break;
        h[i] = h[c];
        i = c;
    }
    h[i] = v;
}

static void rlx__pk_heap_select(uint64_t* a, int64_t n, int64_t k) {
    int64_t i, j;
    for (i = k / 2 - 1; i >= 0; i--) rlx__pk_sift(a, k, i);
    for (j = k; j < n; j++)
        if (a[j] < a[0]) { a[0] = a[j]; rlx__pk_sift(a, k, 0); }
    for (i = k - 1; i > 0; i--) {
        uint64_t t = a[0];
        a[0] = a[i];
        a[i] = t;
        rlx__pk_sift(a, i, 0);
    }
}

/* Stable LSD radix sort, ascending on the top 32 bits (3 digits); constant digits are skipped. */
static uint64_t* rlx__pk_radix(uint64_t* a, uint64_t* tmp, int64_t n, int64_t* hist) {
    int p;
    int64_t j;
    memset(hist, 0, 3 * RLX__RADIX_BINS * sizeof(int64_t));
    for (j = 0; j < n; j++)
        for (p = 0; p < 3; p++) hist[p * RLX__RADIX_BINS + (int)((a[j] >> (32 + RLX__RADIX_BITS * p)) & (RLX__RADIX_BINS - 1))]++;
    for (p = 0; p < 3; p++) {
        int64_t* h = hist + p * RLX__RADIX_BINS;
        int sh = 32 + RLX__RADIX_BITS * p, b;
        int64_t s = 0;
        uint64_t* t;
        if (h[(int)((a[0] >> sh) & (RLX__RADIX_BINS - 1))] == n) continue;
        for (b = 0; b < RLX__RADIX_BINS; b++) { int64_t c = h[b]; h[b] = s; s += c; }
        for (j = 0; j < n; j++) tmp[h[(int)((a[j] >> sh) & (RLX__RADIX_BINS - 1))]++] = a[j];
        t = a; a = tmp; tmp = t;
    }
    return a;
}

/* ---- wide ---- */
static int rlx__kv_better(const rlx__kv* a, const rlx__kv* b) {
    return a->key > b->key || (a->key == b->key && a->idx < b->idx);
}

static void rlx__kv_fill(rlx__kv* a, const void* base, rlx_dtype t, int64_t off, int64_t stride, int64_t n,
                         uint64_t nan_key, uint64_t flip) {
    int64_t j;
    switch (t) {
    case RLX_F64: {
        const double* p = (const double*)base + off;
        for (j = 0; j < n; j++) { a[j].key = rlx__fkey(p[j * stride], nan_key) ^ flip; a[j].idx = j; }
        break;
    }
    case RLX_F32: case RLX_F16: case RLX_BF16:   /* only for rows of 2^32 elements or more */
        for (j = 0; j < n; j++) {
            a[j].key = rlx__fkey(rlx__load_f64(base, t, off + j * stride), nan_key) ^ flip;
            a[j].idx = j;
        }
        break;
    default:
        for (j = 0; j < n; j++) {
            a[j].key = ((uint64_t)rlx__load_i64(base, t, off + j * stride) ^ RLX__KV_SIGN) ^ flip;
            a[j].idx = j;
        }
        break;
    }
}

/* heap with the worst element at the root */
static void rlx__kv_sift(rlx__kv* h, int64_t m, int64_t i) {
    rlx__kv v = h[i];
    for (;;) {
        int64_t c = 2 * i + 1;
        if (c >= m) break;
        if (c + 1 < m && rlx__kv_better(&h[c], &h[c + 1])) c++;
        if (!rlx__kv_better(&v, &h[c])) break;
        h[i] = h[c];
        i = c;
    }
    h[i] = v;
}

static void rlx__kv_heap_select(rlx__kv* a, int64_t n, int64_t k) {
    int64_t i, j;
    for (i = k / 2 - 1; i >= 0; i--) rlx__kv_sift(a, k, i);
    for (j = k; j < n; j++)
        if (rlx__kv_better(&a[j], &a[0])) { a[0] = a[j]; rlx__kv_sift(a, k, 0); }
    for (i = k - 1; i > 0; i--) {
        rlx__kv t = a[0];
        a[0] = a[i];
        a[i] = t;
        rlx__kv_sift(a, i, 0);
    }
}

/* Stable LSD radix sort by key descending (ascending on ~key); constant digits are skipped. */
static rlx__kv* rlx__kv_radix(rlx__kv* a, rlx__kv* tmp, int64_t n, int64_t* hist) {
    int p;
    int64_t j;
    memset(hist, 0, RLX__RADIX_HIST_BYTES);
    for (j = 0; j < n; j++) {
        uint64_t k = ~a[j].key;
        for (p = 0; p < RLX__RADIX_PASSES; p++) hist[p * RLX__RADIX_BINS + (int)((k >> (RLX__RADIX_BITS * p)) & (RLX__RADIX_BINS - 1))]++;
    }
    for (p = 0; p < RLX__RADIX_PASSES; p++) {
        int64_t* h = hist + p * RLX__RADIX_BINS;
        int sh = RLX__RADIX_BITS * p, b;
        int64_t s = 0;
        rlx__kv* t;
        if (h[(int)((~a[0].key >> sh) & (RLX__RADIX_BINS - 1))] == n) continue;
        for (b = 0; b < RLX__RADIX_BINS; b++) { int64_t c = h[b]; h[b] = s; s += c; }
        for (j = 0; j < n; j++) tmp[h[(int)((~a[j].key >> sh) & (RLX__RADIX_BINS - 1))]++] = a[j];
        t = a; a = tmp; tmp = t;
    }
    return a;
}

/* ---- one entry point ---- */
/* Selects the k best of the n elements base[off + j*stride] into the scratch `a` (rlx__sel_scratch bytes):
   afterwards rlx__sel_index(a, packed, i) is the index of the i-th best, i < k. nan_low: NaN ranks as -inf
   (else above +inf); smallest: the order is reversed (NaN handling included). */
static void rlx__sel_run(void* a, const void* base, rlx_dtype t, int64_t off, int64_t stride, int64_t n, int64_t k,
                         int nan_low, int smallest) {
    int radix = rlx__sel_use_radix(n, k);
    if (rlx__sel_packed(t, n)) {
        uint64_t* p = (uint64_t*)a;
        rlx__pk_fill(p, base, t, off, stride, n, nan_low ? rlx__fkey32(-INFINITY, 0) : 0xFFFFFFFFu,
                     smallest ? 0xFFFFFFFFu : 0u);
        if (radix) {
            uint64_t* r = rlx__pk_radix(p, p + n, n, (int64_t*)(void*)(p + 2 * n));
            if (r != p) memcpy(p, r, (size_t)k * sizeof(uint64_t));
        } else {
            rlx__pk_heap_select(p, n, k);
        }
    } else {
        rlx__kv* w = (rlx__kv*)a;
        rlx__kv_fill(w, base, t, off, stride, n, nan_low ? rlx__fkey(-(double)INFINITY, 0) : ~(uint64_t)0,
                     smallest ? ~(uint64_t)0 : 0);
        if (radix) {
            rlx__kv* r = rlx__kv_radix(w, w + n, n, (int64_t*)(void*)(w + 2 * n));
            if (r != w) memcpy(w, r, (size_t)k * sizeof(rlx__kv));
        } else {
            rlx__kv_heap_select(w, n, k);
        }
    }
}

static int64_t rlx__sel_index(const void* a, int packed, int64_t i) {
    return packed ? (int64_t)(((const uint64_t*)a)[i] & 0xFFFFFFFFu) : ((const rlx__kv*)a)[i].idx;
}

/* ---- shared helpers ---- */
static void rlx__misc_axis(const rlx__node* x, int a, int64_t* outer, int64_t* n, int64_t* inner) {
    int i;
    *outer = 1; *inner = 1;
    *n = x->rank ? x->shape[a] : 1;
    for (i = 0; i < a; i++) *outer *= x->shape[i];
    for (i = a + 1; i < x->rank; i++) *inner *= x->shape[i];
}

/* Row-parallel split: 1 task (serial, thread 0 only) or up to 4 per thread. */
static int64_t rlx__misc_tasks(int nthreads, int64_t rows, int64_t work) {
    if (nthreads <= 1 || rows < 2 || (double)work < (double)RLX_PARALLEL_MIN_WORK) return 1;
    return RLX__MIN(rows, (int64_t)nthreads * 4);
}

static size_t rlx__misc_slices(int nthreads, int64_t tasks) { return tasks > 1 ? (size_t)nthreads : 1; }

typedef struct rlx__misc_job {
    rlx_op op;
    const void* x;
    rlx_dtype xt, ot;
    void* out;
    int64_t outer, n, inner, rows, per;
    /* cumsum */
    int64_t nblk;
    int excl, rev;
    /* topk */
    int64_t k;
    int which;
    int smallest;
    size_t esz;
    /* sample */
    int64_t top_k, counter;
    uint64_t seed;
    double temp, top_p;
    /* scratch */
    char* ws;
    size_t slice;
} rlx__misc_job;

/* ---- cumsum ---- */
#define RLX__CS_BLOCK 256

static void rlx__cumsum_block(const rlx__misc_job* j, int64_t o, int64_t i0, int64_t m) {
    int64_t s, c, n = j->n, inner = j->inner;
    if (j->ot == RLX_I64) {
        uint64_t acc[RLX__CS_BLOCK];
        uint64_t* y = (uint64_t*)j->out;
        for (c = 0; c < m; c++) acc[c] = 0;
        for (s = 0; s < n; s++) {
            int64_t base = (o * n + (j->rev ? n - 1 - s : s)) * inner + i0;
            for (c = 0; c < m; c++) {
                uint64_t v = (uint64_t)rlx__load_i64(j->x, j->xt, base + c);
                if (j->excl) { y[base + c] = acc[c]; acc[c] += v; }
                else { acc[c] += v; y[base + c] = acc[c]; }
            }
        }
    } else if (j->xt == RLX_F32 && j->ot == RLX_F32 && inner == 1) {  /* contiguous row */
        const float* x = (const float*)j->x + o * n;
        float* y = (float*)j->out + o * n;
        double acc = 0.0;
        int64_t step = j->rev ? -1 : 1, q = j->rev ? n - 1 : 0;
        if (j->excl) {
            for (s = 0; s < n; s++, q += step) { double v = (double)x[q]; y[q] = (float)acc; acc += v; }
        } else {
            for (s = 0; s < n; s++, q += step) { acc += (double)x[q]; y[q] = (float)acc; }
        }
    } else if (j->xt == RLX_F32 && j->ot == RLX_F32) {
        double acc[RLX__CS_BLOCK];
        const float* x = (const float*)j->x;
        float* y = (float*)j->out;
        for (c = 0; c < m; c++) acc[c] = 0.0;
        for (s = 0; s < n; s++) {
            int64_t base = (o * n + (j->rev ? n - 1 - s : s)) * inner + i0;
            if (j->excl) {
                for (c = 0; c < m; c++) { double v = (double)x[base + c]; y[base + c] = (float)acc[c]; acc[c] += v; }
            } else {
                for (c = 0; c < m; c++) { acc[c] += (double)x[base + c]; y[base + c] = (float)acc[c]; }
            }
        }
    } else {
        double acc[RLX__CS_BLOCK];
        for (c = 0; c < m; c++) acc[c] = 0.0;
        for (s = 0; s < n; s++) {
            int64_t base = (o * n + (j->rev ? n - 1 - s : s)) * inner + i0;
            for (c = 0; c < m; c++) {
                double v = rlx__load_f64(j->x, j->xt, base + c);
                if (j->excl) { rlx__store_f64(j->out, j->ot, base + c, acc[c]); acc[c] += v; }
                else { acc[c] += v; rlx__store_f64(j->out, j->ot, base + c, acc[c]); }
            }
        }
    }
}

static void rlx__cumsum_units(const rlx__misc_job* j, int64_t u0, int64_t u1) {
    int64_t u;
    for (u = u0; u < u1; u++) {
        int64_t o = u / j->nblk, i0 = (u % j->nblk) * RLX__CS_BLOCK;
        rlx__cumsum_block(j, o, i0, RLX__MIN((int64_t)RLX__CS_BLOCK, j->inner - i0));
    }
}

/* ---- topk ---- */
static void rlx__topk_rows(const rlx__misc_job* j, int64_t r0, int64_t r1, char* slice) {
    int64_t n = j->n, k = j->k, inner = j->inner, r, s;
    int packed = rlx__sel_packed(j->xt, n);
    for (r = r0; r < r1; r++) {
        int64_t o = r / inner, i = r % inner;
        int64_t off = o * n * inner + i, ooff = o * k * inner + i;
        rlx__sel_run(slice, j->x, j->xt, off, inner, n, k, 0, j->smallest);
        if (j->which) {
            int64_t* y = (int64_t*)j->out;
            for (s = 0; s < k; s++) y[ooff + s * inner] = rlx__sel_index(slice, packed, s);
        } else {
            for (s = 0; s < k; s++)
                memcpy((char*)j->out + (size_t)(ooff + s * inner) * j->esz,
                       (const char*)j->x + (size_t)(off + rlx__sel_index(slice, packed, s) * inner) * j->esz, j->esz);
        }
    }
}

/* ---- sample ---- */
static double rlx__sample_logit(const void* x, rlx_dtype t, int64_t i) {
    double v = t == RLX_F32 ? (double)((const float*)x)[i] : rlx__load_f64(x, t, i);
    return v != v ? -(double)INFINITY : v;
}

static int64_t rlx__sample_row(const rlx__misc_job* j, int64_t r, char* slice) {
    int64_t V = j->n, off = r * V, i, m, mk;
    int packed = rlx__sel_packed(j->xt, V);
    double lmax, S, tgt, *cs;
    if (!(j->temp > 0.0)) {  /* greedy: first maximum, a NaN wins */
        int64_t bi = 0;
        double bv = rlx__load_f64(j->x, j->xt, off);
        if (bv != bv) return 0;
        for (i = 1; i < V; i++) {
            double v = j->xt == RLX_F32 ? (double)((const float*)j->x)[off + i] : rlx__load_f64(j->x, j->xt, off + i);
            if (v != v) return i;
            if (v > bv) { bv = v; bi = i; }
        }
        return bi;
    }
    m = (j->top_k > 0 && j->top_k < V) ? j->top_k : V;
    rlx__sel_run(slice, j->x, j->xt, off, 1, V, m, 1, 0);
    lmax = rlx__sample_logit(j->x, j->xt, off + rlx__sel_index(slice, packed, 0));
    if (lmax == -(double)INFINITY) return rlx__sel_index(slice, packed, 0);
    /* running sums after the items (the radix buffer is free by now) */
    cs = (double*)(void*)(slice + (size_t)V * rlx__sel_esz(j->xt, V));
    S = 0.0;
    for (i = 0; i < m; i++) {
        double l = rlx__sample_logit(j->x, j->xt, off + rlx__sel_index(slice, packed, i));
        S += l == lmax ? 1.0 : exp((l - lmax) / j->temp);
        cs[i] = S;
    }
    mk = m;
    if (j->top_p > 0.0 && j->top_p < 1.0) {
        double thr = j->top_p * cs[m - 1];
        for (i = 0; i < m; i++)
            if (cs[i] >= thr) { mk = i + 1; break; }
    }
    tgt = (double)rlx_uniform(j->seed, j->counter, r) * cs[mk - 1];
    for (i = 0; i < mk; i++)
        if (cs[i] > tgt) return rlx__sel_index(slice, packed, i);
    return rlx__sel_index(slice, packed, mk - 1);
}

static size_t rlx__sample_scratch(const rlx__node* nd, rlx_dtype t, int64_t V) {
    int64_t m;
    size_t b;
    if (!(nd->fa[0] > 0.0)) return 0;
    m = (nd->ia[0] > 0 && nd->ia[0] < V) ? nd->ia[0] : V;
    /* the selection, and room for m running sums after its items */
    b = rlx__sel_scratch(t, V, m);
    return RLX__MAX(b, rlx__szadd(rlx__szmul((size_t)V, rlx__sel_esz(t, V)), rlx__szmul((size_t)m, sizeof(double))));
}

/* ---- dispatch ---- */
static void rlx__misc_task(void* ctx, int64_t task, int thread) {
    const rlx__misc_job* j = (const rlx__misc_job*)ctx;
    int64_t r0 = task * j->per, r1 = RLX__MIN(j->rows, r0 + j->per), r;
    char* slice = j->ws ? j->ws + (size_t)thread * j->slice : NULL;
    switch (j->op) {
    case RLX_OP_CUMSUM: rlx__cumsum_units(j, r0, r1); break;
    case RLX_OP_TOPK: rlx__topk_rows(j, r0, r1, slice); break;
    case RLX_OP_SAMPLE:
        for (r = r0; r < r1; r++) ((int64_t*)j->out)[r] = rlx__sample_row(j, r, slice);
        break;
    default: RLX_ASSERT(0 && "not a misc op"); break;
    }
}

/* Fills the job for nd (everything but the pointers) and returns the bytes of one scratch slice. */
static size_t rlx__misc_setup(const rlx_graph* g, const rlx__node* nd, rlx__misc_job* j) {
    const rlx__node* x = rlx__N(g, rlx__in(g, nd, 0));
    size_t slice = 0;
    memset(j, 0, sizeof *j);
    j->op = nd->op;
    j->xt = x->dtype;
    j->ot = nd->dtype;
    switch (nd->op) {
    case RLX_OP_CUMSUM:
        rlx__misc_axis(x, (int)nd->ia[0], &j->outer, &j->n, &j->inner);
        j->excl = nd->ia[1] != 0;
        j->rev = nd->ia[2] != 0;
        j->nblk = (j->inner + RLX__CS_BLOCK - 1) / RLX__CS_BLOCK;
        j->rows = j->outer * j->nblk;
        break;
    case RLX_OP_TOPK:
        rlx__misc_axis(x, (int)nd->ia[0], &j->outer, &j->n, &j->inner);
        j->k = nd->ia[1];
        j->smallest = nd->ia[2] == 0;
        j->which = nd->ia[3] != 0;
        j->esz = rlx_dtype_size(x->dtype);
        j->rows = j->outer * j->inner;
        slice = rlx__sel_scratch(j->xt, j->n, j->k);
        break;
    case RLX_OP_SAMPLE: {
        uint64_t seed;
        j->n = x->rank ? x->shape[x->rank - 1] : 1;
        j->rows = rlx__node_numel(x) / j->n;
        j->top_k = nd->ia[0];
        memcpy(&seed, &nd->ia[1], sizeof seed);
        j->seed = seed;
        j->temp = nd->fa[0];
        j->top_p = nd->fa[1];
        slice = rlx__sample_scratch(nd, j->xt, j->n);
        break;
    }
    default: RLX_ASSERT(0 && "not a misc op"); break;
    }
    return rlx__align_up(slice);
}

static size_t rlx__ws_misc(const rlx_graph* g, const rlx__node* nd, int nthreads) {
    rlx__misc_job j;
    size_t slice = rlx__misc_setup(g, nd, &j);
    int64_t work = j.rows * (nd->op == RLX_OP_CUMSUM ? j.n * RLX__MIN(j.inner, (int64_t)RLX__CS_BLOCK) : j.n);
    if (!slice) return 0;
    return rlx__szmul(slice, rlx__misc_slices(nthreads, rlx__misc_tasks(nthreads, j.rows, work)));
}

static void rlx__k_misc(const rlx_graph* g, const rlx__node* nd, void* const* in, void* out, rlx__pool* pool, void* ws) {
    rlx__misc_job j;
    int nt = rlx__pool_threads(pool);
    int64_t work, tasks;
    j.slice = rlx__misc_setup(g, nd, &j);
    work = j.rows * (nd->op == RLX_OP_CUMSUM ? j.n * RLX__MIN(j.inner, (int64_t)RLX__CS_BLOCK) : j.n);
    j.x = in[0];
    j.out = out;
    j.ws = (char*)ws;
    if (nd->op == RLX_OP_SAMPLE) {
        const rlx__node* cn = rlx__N(g, rlx__in(g, nd, 1));
        j.counter = rlx__load_i64(in[1], cn->dtype, 0);
    }
    RLX_ASSERT(!j.slice || ws);
    if (j.rows <= 0) return;
    tasks = rlx__misc_tasks(nt, j.rows, work);
    j.per = (j.rows + tasks - 1) / tasks;
    if (tasks <= 1) rlx__misc_task(&j, 0, 0);
    else rlx__parallel_for(pool, (j.rows + j.per - 1) / j.per, rlx__misc_task, &j);
}

/* Vulkan: built in when volk.h is on the include path (Debian: libvulkan-volk-dev, which brings the Vulkan
   headers) or when RLX_VULKAN is defined; RLX_NO_VULKAN leaves it out. volk itself finds the loader at run time.
   rlx.h compiles volk's implementation into the RLX_IMPLEMENTATION translation unit unless RLX_VOLK_EXTERNAL says
   the application builds volk.c itself. */
#if !defined(RLX_NO_VULKAN) && !defined(RLX__HAS_VULKAN)
#  if defined(RLX_VULKAN)
#    define RLX__HAS_VULKAN 1
#  elif defined(__has_include)
#    if __has_include(<volk.h>)
#      define RLX__HAS_VULKAN 1
#    endif
#  endif
#endif
/* The lowering below is shared by CUDA, HIP and Vulkan. */
#if !defined(RLX_NO_CUDA) || !defined(RLX_NO_HIP) || defined(RLX__HAS_VULKAN)

/* ------------------------------------------------------------------------------------------------------------
   >>cuda lowering: graph nodes → launches of the kernels in kernels/cuda (one PTX module per .cu file)
   Every kernel takes one rlx__kargs by value (the mirror of rlx_kargs in kernels/cuda/common.cuh; a test checks
   size and offsets). For each node the host picks the kernel, grid and block once at compile time:
     elementwise.cu  ew_unary ew_binary ew_where ew_cast ew_copy concat gather pad state_write glu fused_ew
     reduce.cu       reduce_thread reduce_block reduce_final arg_reduce softmax norm_rows add_norm group_norm
                     cumsum topk sample
     matmul.cu       matmul_f32 gemv_f32 matmul_generic
     matmul_tc.cu    matmul_tc matmul_tc_big (sm_80 and later)
     attention.cu    attention rope
     conv.cu         conv_direct conv_gemm pool resize
   Elementwise operands use the CPU's iteration (rlx__iter): size-1 dims dropped, dims merged where every
   operand is contiguous across them, broadcast dims with stride 0. The attribute layout each kernel reads from
   ia[]/fa[] is documented at the kernel. Every op the CPU backend executes runs natively, in every dtype its
   builder allows; nothing needs the legalizer.
   ------------------------------------------------------------------------------------------------------------ */
typedef struct rlx__kargs {
    unsigned long long out;
    unsigned long long in[8];
    long long n;
    int op;
    int dt_out;
    int dt_in[8];
    int rank;
    int pad_;
    long long dims[8];
    long long st[4][8];
    long long ia[24];
    double fa[4];
} rlx__kargs;

typedef struct rlx__launch {
    const char* module;      /* PTX module = .cu file base name, e.g. "elementwise" */
    const char* kernel;      /* extern "C" kernel name */
    unsigned grid[3], block[3], shmem;
    rlx__kargs args;
    int node;                /* index of the IR node it computes (set by rlx__gpu_init, for messages) */
} rlx__launch;

/* f32 matrix products on sm_80+ (tensor cores): 0 = three TF32 products per step (measured at least as accurate
   as the f32 SIMT kernel), 1 = one (faster, 10-bit mantissas). */
#ifndef RLX_CUDA_TF32
#  define RLX_CUDA_TF32 0
#endif

#define RLX__CU_THREADS 256u
#define RLX__CU_GRID_CAP (65535u * 16u)  /* grid.x of grid-stride kernels */
#define RLX__CU_SMEM 49152u              /* shared memory a block may use without opting in */
#define RLX__CU_SORT_SMEM 32768u         /* topk/sample sort buffers above this go to scratch */
#define RLX__CU_SORT_BLOCKS 1024u        /* topk/sample blocks when the buffers are in scratch */

/* Launch list under construction. Writes past `max` are counted but dropped; `scratch` sums the device
   scratch the launches use (the same code path computes rlx__cuda_scratch). */
typedef struct rlx__cl {
    rlx__launch* out;
    int max, n;
    size_t scratch;
    uint64_t scratch_addr;
    unsigned smem;           /* dynamic shared memory one block may use */
    rlx__launch spare;
} rlx__cl;

/* `sm`: the CUDA compute capability x 10, or, for the Vulkan backend (which runs this lowering with the Vulkan
   ports of the kernels), minus the dynamic shared memory one workgroup may use. */
static unsigned rlx__cl_smem(int sm) { return sm < 0 ? (unsigned)-sm : RLX__CU_SMEM; }
static int64_t rlx__cl_cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
static unsigned rlx__cl_cap(int64_t v, unsigned cap) { return v < 1 ? 1u : (v > (int64_t)cap ? cap : (unsigned)v); }
static unsigned rlx__cl_pow2(int64_t v, unsigned lo, unsigned hi) {  /* smallest power of two >= v, in [lo, hi] */
    unsigned p = lo;
    while (p < hi && (int64_t)p < v) p <<= 1;
    return p;
}

static rlx__launch* rlx__cl_add(rlx__cl* w, const char* module, const char* kernel, const rlx__node* nd) {
    rlx__launch* L = (w->out && w->n < w->max) ? &w->out[w->n] : &w->spare;
    w->n++;
    memset(L, 0, sizeof *L);
    L->module = module;
    L->kernel = kernel;
    L->grid[0] = L->grid[1] = L->grid[2] = 1;
    L->block[0] = RLX__CU_THREADS;
    L->block[1] = L->block[2] = 1;
    L->args.op = (int)nd->op;
    L->args.dt_out = (int)nd->dtype;
    L->args.n = rlx__node_numel(nd);
    L->args.rank = 1;
    L->args.dims[0] = 1;
    return L;
}
/* grid-stride launch over `work` items, `threads` per block */
static void rlx__cl_flat(rlx__launch* L, int64_t work, unsigned threads) {
    L->block[0] = threads;
    L->grid[0] = rlx__cl_cap(rlx__cl_cdiv(work, threads), RLX__CU_GRID_CAP);
}
/* one block per row (grid-stride over rows) */
static void rlx__cl_rows(rlx__launch* L, int64_t rows, unsigned threads) {
    L->block[0] = threads;
    L->grid[0] = rlx__cl_cap(rows, RLX__CU_GRID_CAP);
}
/* reserve `bytes` of this node's scratch; returns its device address */
static uint64_t rlx__cl_scratch(rlx__cl* w, size_t bytes) {
    uint64_t a = w->scratch_addr ? w->scratch_addr + w->scratch : 0;
    /* saturating: a node whose scratch cannot exist makes the device allocation fail (out of memory) */
    w->scratch = rlx__szadd(w->scratch, rlx__round_up(bytes, 256));
    return a;
}

static const rlx__node* rlx__cl_x(const rlx_graph* g, const rlx__node* nd, int k) { return rlx__N(g, rlx__in(g, nd, k)); }
static uint64_t rlx__cl_addr(const rlx_graph* g, const rlx__node* nd, const uint64_t* addr, int k) {
    return addr ? addr[rlx__in(g, nd, k) - 1] : 0;
}

/* Collapsed iteration of the output over nin inputs into A's rank/dims/st (st[k] = input k). Input k has
   shape (rank[k], shape[k]) broadcast to the output, or the output's shape with explicit strides cst[k]. */
static void rlx__cl_iter(rlx__kargs* A, const rlx__node* nd, int nin, const int* rank, const int64_t* const* shape,
                         const int64_t* const* cst) {
    rlx__iter it;
    int k, i;
    rlx__iter_init(&it, nin + 1, NULL, 1, nd->rank, nd->shape);
    for (k = 0; k < nin; k++) rlx__iter_operand(&it, k + 1, NULL, 1, rank[k], shape[k], cst ? cst[k] : NULL);
    rlx__iter_collapse(&it);
    A->rank = it.rank;
    for (i = 0; i < it.rank; i++) {
        A->dims[i] = it.dims[i];
        for (k = 0; k < nin; k++) A->st[k][i] = it.st[k + 1][i];
    }
}
/* the common case: inputs 0..nin-1 of nd broadcast to its shape */
static void rlx__cl_iter_inputs(rlx__kargs* A, const rlx_graph* g, const rlx__node* nd, int nin) {
    int rank[4], k;
    const int64_t* shape[4];
    for (k = 0; k < nin; k++) {
        const rlx__node* x = rlx__cl_x(g, nd, k);
        rank[k] = x->rank;
        shape[k] = x->shape;
    }
    rlx__cl_iter(A, nd, nin, rank, shape, NULL);
}
/* strided copy of x (element strides cst over nd's shape) starting at byte address src */
static void rlx__cl_strided_copy(rlx__cl* w, const rlx__node* nd, uint64_t src, uint64_t dst, const int64_t* cst) {
    rlx__launch* L = rlx__cl_add(w, "elementwise", "ew_copy", nd);
    int rank = nd->rank;
    const int64_t* shape = nd->shape;
    L->args.in[0] = src;
    L->args.out = dst;
    rlx__cl_iter(&L->args, nd, 1, &rank, &shape, &cst);
    rlx__cl_flat(L, L->args.n, RLX__CU_THREADS);
}

/* outer × len × inner around axis a of x */
static void rlx__cl_axis(const rlx__node* x, int a, int64_t* outer, int64_t* len, int64_t* inner) {
    int i;
    *outer = 1;
    *inner = 1;
    *len = x->rank ? x->shape[a] : 1;
    for (i = 0; i < a; i++) *outer *= x->shape[i];
    for (i = a + 1; i < x->rank; i++) *inner *= x->shape[i];
}

/* ---- matrix products ---- */
static void rlx__cl_matmul(rlx__cl* w, const rlx_graph* g, const rlx__node* nd, const uint64_t* addr, int sm) {
    rlx__launch* L;
    int64_t M, N, K, nb = 1;
    int i, lin = nd->op == RLX_OP_LINEAR, f32 = nd->dtype == RLX_F32;
    const int tb = (lin ? nd->ia[4] : nd->ia[3]) != 0;   /* b stored [..., N, K]: the *_t kernels, generic's ia 9 */
    rlx__kargs A;
    memset(&A, 0, sizeof A);
    A.rank = 1;
    A.dims[0] = 1;
    if (lin) {
        const rlx__node* nw = rlx__cl_x(g, nd, 1);
        K = nw->shape[tb];
        N = nw->shape[1 - tb];
        M = rlx__node_numel(nd) / N;
        A.ia[4] = nd->ia[1];
        A.ia[5] = nd->ia[0];
        A.ia[7] = nd->ia[2];
        A.ia[8] = nd->ia[3];
        if (nd->ia[1]) A.in[2] = rlx__cl_addr(g, nd, addr, 2);
        if (nd->ia[2]) A.in[3] = rlx__cl_addr(g, nd, addr, nd->ia[1] ? 3 : 2);   /* gate [M, N] */
    } else {
        rlx__mm_geo m;
        rlx__mm_geometry(g, nd, &m);
        M = m.M; N = m.N; K = m.K; nb = m.nbatch;
        if (m.rb > 0) {
            A.rank = m.rb;
            for (i = 0; i < m.rb; i++) {
                A.dims[i] = m.bdims[i];
                A.st[0][i] = m.ast[i] * M * K;
                A.st[1][i] = m.bst[i] * K * N;
            }
        }
    }
    A.ia[0] = M; A.ia[1] = N; A.ia[2] = K; A.ia[3] = nb;
    A.ia[6] = RLX_CUDA_TF32 || nd->ia[10];   /* ia[10]: RLX_COMPILE_TF32 (set by rlx_compile) */
    A.ia[9] = tb;
    A.in[0] = rlx__cl_addr(g, nd, addr, 0);
    A.in[1] = rlx__cl_addr(g, nd, addr, 1);
    A.dt_in[0] = A.dt_in[1] = (int)rlx__cl_x(g, nd, 0)->dtype;
    if (f32 && M <= 8 && tb) {   /* a warp per column: row n of b [N, K] is contiguous */
        L = rlx__cl_add(w, "matmul", "gemv_t_f32", nd);
        L->grid[0] = rlx__cl_cap(rlx__cl_cdiv(N, 8), 65535u * 1024u);
    } else if (f32 && M <= 8) {
        L = rlx__cl_add(w, "matmul", "gemv_f32", nd);
        L->grid[0] = rlx__cl_cap(rlx__cl_cdiv(N, 32), 65535u * 1024u);
    } else if ((f32 || (!lin && (nd->dtype == RLX_F16 || nd->dtype == RLX_BF16))) && sm >= 80) {
        /* tensor cores (f32 in 3xTF32 or TF32; f16/bf16 converted to f32 while loading, exact in one TF32
           product), either layout of b; 128x128 tiles once there are enough of them */
        const int big = rlx__cl_cdiv(M, 128) * rlx__cl_cdiv(N, 128) * nb >= 256;
        const int64_t t = big ? 128 : 64;
        L = rlx__cl_add(w, "matmul_tc", big ? "matmul_tc_big" : "matmul_tc", nd);
        L->block[0] = big ? 256 : 128;
        L->grid[0] = rlx__cl_cap(rlx__cl_cdiv(N, t), 65535u * 1024u);
        L->grid[1] = rlx__cl_cap(rlx__cl_cdiv(M, t), 65535u);
    } else if (f32 && tb) {   /* transposed b: the SIMT tiles load b's tile like a's */
        L = rlx__cl_add(w, "matmul", "matmul_f32_t", nd);
        L->grid[0] = rlx__cl_cap(rlx__cl_cdiv(N, 64), 65535u * 1024u);
        L->grid[1] = rlx__cl_cap(rlx__cl_cdiv(M, 64), 65535u);
    } else if (f32 && sm < 0 && rlx__cl_cdiv(M, 128) * rlx__cl_cdiv(N, 128) * nb >= 144 &&
               rlx__cl_smem(sm) >= 32768u) {
        /* Vulkan: 128x128 tiles (32 KiB of static shared memory) once there are enough of them (on an H200 the
           64x64 kernel is faster up to ~144 big tiles) */
        L = rlx__cl_add(w, "matmul", "matmul_f32_big", nd);
        L->block[0] = 256;
        L->grid[0] = rlx__cl_cap(rlx__cl_cdiv(N, 128), 65535u * 1024u);
        L->grid[1] = rlx__cl_cap(rlx__cl_cdiv(M, 128), 65535u);
    } else if (f32) {
        L = rlx__cl_add(w, "matmul", "matmul_f32", nd);
        L->grid[0] = rlx__cl_cap(rlx__cl_cdiv(N, 64), 65535u * 1024u);
        L->grid[1] = rlx__cl_cap(rlx__cl_cdiv(M, 64), 65535u);
    } else {
        L = rlx__cl_add(w, "matmul", "matmul_generic", nd);
        L->grid[0] = rlx__cl_cap(rlx__cl_cdiv(N, 16), 65535u * 1024u);
        L->grid[1] = rlx__cl_cap(rlx__cl_cdiv(M, 16), 65535u);
    }
    L->grid[2] = rlx__cl_cap(nb, 65535u);
    A.op = L->args.op; A.dt_out = L->args.dt_out; A.n = L->args.n;
    A.out = addr ? addr[(nd - g->nodes)] : 0;
    L->args = A;
}

/* ---- reductions over axes ---- */
static void rlx__cl_reduce(rlx__cl* w, const rlx_graph* g, const rlx__node* nd, const uint64_t* addr, uint64_t out) {
    const rlx__node* x = rlx__cl_x(g, nd, 0);
    int64_t xs[RLX_MAX_RANK] = {0}, kd[RLX_MAX_RANK] = {0}, ks[RLX_MAX_RANK] = {0}, rd[RLX_MAX_RANK] = {0},
            rs[RLX_MAX_RANK] = {0};
    int mark[RLX_MAX_RANK], nk = 0, nr = 0, i, block;
    int64_t count = 1, nout = rlx__node_numel(nd), splits = 1, per;
    rlx__launch* L;
    memset(mark, 0, sizeof mark);
    for (i = 0; i < (int)nd->ia[1]; i++) mark[nd->ia[2 + i]] = 1;
    rlx__contig_strides(x->rank, x->shape, xs);
    /* kept and reduced dims in order, size-1 dims dropped, neighbours merged where contiguous */
    for (i = 0; i < x->rank; i++) {
        int64_t d = x->shape[i], s = xs[i];
        int64_t* dd = mark[i] ? rd : kd;
        int64_t* ss = mark[i] ? rs : ks;
        int* cnt = mark[i] ? &nr : &nk;
        if (d == 1) continue;
        if (mark[i]) count *= d;
        if (*cnt > 0 && ss[*cnt - 1] == s * d) { dd[*cnt - 1] *= d; ss[*cnt - 1] = s; }
        else { dd[*cnt] = d; ss[*cnt] = s; (*cnt)++; }
    }
    block = count >= 32 && ((nr > 0 && rs[nr - 1] == 1) || nout < 1024);
    if (block && nout < 64 && count >= 65536) {
        splits = 512 / nout;
        if (splits > rlx__cl_cdiv(count, 8192)) splits = rlx__cl_cdiv(count, 8192);
        if (splits < 1) splits = 1;
    }
    per = rlx__cl_cdiv(count, splits);
    splits = rlx__cl_cdiv(count, per);
    L = rlx__cl_add(w, "reduce", block ? "reduce_block" : "reduce_thread", nd);
    L->args.out = out;
    L->args.in[0] = rlx__cl_addr(g, nd, addr, 0);
    L->args.dt_in[0] = (int)x->dtype;
    if (nk > 0) {
        L->args.rank = nk;
        for (i = 0; i < nk; i++) { L->args.dims[i] = kd[i]; L->args.st[0][i] = ks[i]; }
    }
    for (i = 0; i < nr; i++) { L->args.ia[i] = rd[i]; L->args.ia[8 + i] = rs[i]; }
    L->args.ia[16] = nr;
    L->args.ia[17] = count;
    if (!block) { rlx__cl_flat(L, nout, RLX__CU_THREADS); return; }
    rlx__cl_rows(L, nout * splits, rlx__cl_pow2(count, 32, RLX__CU_THREADS));
    if (splits > 1) {
        rlx__kargs A = L->args;
        L->args.ia[18] = splits;
        L->args.ia[19] = per;
        L->args.in[1] = rlx__cl_scratch(w, rlx__szmul(rlx__szmul((size_t)nout, (size_t)splits), 16));
        A.ia[18] = splits;
        A.in[1] = L->args.in[1];
        L = rlx__cl_add(w, "reduce", "reduce_final", nd);
        L->args = A;
        rlx__cl_flat(L, nout, RLX__CU_THREADS);
    }
}

/* topk / sample: sort buffer of P entries (8-byte keys + 4-byte indices) in shared memory or scratch */
static void rlx__cl_sortbuf(rlx__cl* w, rlx__launch* L, int64_t rows, int64_t P, int ia_global, int ia_slice,
                            int scratch_slot) {
    size_t bytes = rlx__szmul((size_t)P, 12);
    if (bytes <= (w->smem < RLX__CU_SORT_SMEM ? w->smem : RLX__CU_SORT_SMEM)) {
        L->shmem = (unsigned)bytes;
        L->grid[0] = rlx__cl_cap(rows, RLX__CU_GRID_CAP);
    } else {
        size_t slice = rlx__round_up(bytes, 256);
        L->grid[0] = rlx__cl_cap(rows, RLX__CU_SORT_BLOCKS);
        L->args.ia[ia_global] = 1;
        L->args.ia[ia_slice] = (long long)slice;
        L->args.in[scratch_slot] = rlx__cl_scratch(w, rlx__szmul(slice, L->grid[0]));
    }
}

/* ---- attention ---- */
static void rlx__cl_attention(rlx__cl* w, const rlx_graph* g, const rlx__node* nd, const uint64_t* addr, uint64_t out) {
    rlx__launch* L = rlx__cl_add(w, "attention", "attention", nd);
    rlx__kargs* A = &L->args;
    const int64_t H = nd->ia[1], Hkv = nd->ia[2], D = nd->ia[8], Dv = nd->ia[9], B = nd->ia[10], Sq = nd->ia[11];
    const int64_t Sk = nd->ia[12], dvc = Dv < 256 ? Dv : 256;
    int64_t W = Sq < 8 ? Sq : 8, TK = 32, nqb;
    int slot = 3;
    A->out = out;
    A->in[0] = rlx__cl_addr(g, nd, addr, 0);
    A->in[1] = rlx__cl_addr(g, nd, addr, 1);
    A->in[2] = rlx__cl_addr(g, nd, addr, 2);
    A->dt_in[0] = A->dt_in[1] = A->dt_in[2] = (int)nd->dtype;
    if (nd->ia[0] == RLX_LAYOUT_BSHD) {
        A->st[0][0] = Sq * H * D;    A->st[0][1] = D;  A->st[0][2] = H * D;
        A->st[1][0] = Sk * Hkv * D;  A->st[1][1] = D;  A->st[1][2] = Hkv * D;
        A->st[2][0] = Sk * Hkv * Dv; A->st[2][1] = Dv; A->st[2][2] = Hkv * Dv;
        A->st[3][0] = Sq * H * Dv;   A->st[3][1] = Dv; A->st[3][2] = H * Dv;
    } else {
        A->st[0][0] = H * Sq * D;    A->st[0][1] = Sq * D;  A->st[0][2] = D;
        A->st[1][0] = Hkv * Sk * D;  A->st[1][1] = Sk * D;  A->st[1][2] = D;
        A->st[2][0] = Hkv * Sk * Dv; A->st[2][1] = Sk * Dv; A->st[2][2] = Dv;
        A->st[3][0] = H * Sq * Dv;   A->st[3][1] = Sq * Dv; A->st[3][2] = Dv;
    }
    if (nd->ia[5]) {   /* keep_mask [B, Sk] or [B, Sq, Sk] */
        A->in[3] = rlx__cl_addr(g, nd, addr, slot++);
        A->dt_in[3] = RLX_BOOL;
        A->dims[4] = nd->ia[13] == 3 ? Sq * Sk : Sk;
        A->dims[5] = nd->ia[13] == 3 ? Sk : 0;
    }
    if (nd->ia[6]) {   /* bias broadcast to [B, H, Sq, Sk] */
        const rlx__node* nb = rlx__cl_x(g, nd, slot);
        int64_t acc = 1;
        int r;
        for (r = 0; r < 4; r++) A->dims[r] = 0;   /* missing leading dims broadcast */
        for (r = nb->rank - 1; r >= 0; r--) {
            A->dims[4 - nb->rank + r] = nb->shape[r] == 1 ? 0 : acc;
            acc *= nb->shape[r];
        }
        A->in[4] = rlx__cl_addr(g, nd, addr, slot++);
        A->dt_in[4] = (int)nb->dtype;
    }
    if (nd->ia[7]) {   /* kv_len: a scalar (ia[10] = 1) or one per batch row (ia[10] = 2) */
        A->dt_in[5] = (int)rlx__cl_x(g, nd, slot)->dtype;
        A->in[5] = rlx__cl_addr(g, nd, addr, slot++);
    }
    /* W queries per block, TK keys per tile: shrink the tile, then the block, until the rows fit */
    /* (in double: head dims reach 2^60, where the int64 product would overflow) */
#define RLX__ATT_SMEM(W_, TK_) (((double)(W_) * (double)D + (double)(TK_) * ((double)D + (double)dvc)) * 4.0)
    while (TK > 1 && RLX__ATT_SMEM(W, TK) > (double)w->smem) TK /= 2;
    while (W > 1 && RLX__ATT_SMEM(W, TK) > (double)w->smem) W /= 2;
    if (RLX__ATT_SMEM(W, TK) > (double)w->smem) {
#undef RLX__ATT_SMEM
        TK = 32;
        A->ia[15] = 1;
    } else {
        L->shmem = (unsigned)((W * D + TK * D + TK * dvc) * 4);
    }
    nqb = rlx__cl_cdiv(Sq, W);
    A->ia[0] = H; A->ia[1] = H / Hkv; A->ia[2] = D; A->ia[3] = Dv; A->ia[4] = Sq; A->ia[5] = Sk;
    A->ia[6] = nd->ia[3]; A->ia[7] = nd->ia[4]; A->ia[8] = nd->ia[5]; A->ia[9] = nd->ia[6]; A->ia[10] = nd->ia[7];
    A->ia[11] = TK; A->ia[12] = W; A->ia[13] = B; A->ia[14] = nqb;
    A->fa[0] = nd->fa[0];
    A->fa[1] = nd->fa[1];
    L->block[0] = (unsigned)(32 * W);
    L->grid[0] = rlx__cl_cap(nqb * H * B, RLX__CU_GRID_CAP);
}

/* ---- convolution geometry (see conv.cu): x [N, C, (H), W], output [N, O, (OH), OW] ---- */
static void rlx__cl_convgeo(rlx__kargs* A, const rlx_graph* g, const rlx__node* nd) {
    const rlx__node* x = rlx__cl_x(g, nd, 0);
    const rlx__node* wt = rlx__cl_x(g, nd, 1);
    const int two = nd->ia[0] == 2, r = x->rank;
    A->ia[0] = x->shape[0]; A->ia[1] = x->shape[1];
    A->ia[2] = two ? x->shape[2] : 1; A->ia[3] = x->shape[r - 1];
    A->ia[4] = nd->shape[1]; A->ia[5] = two ? nd->shape[2] : 1; A->ia[6] = nd->shape[r - 1];
    A->ia[7] = two ? wt->shape[2] : 1; A->ia[8] = wt->shape[r - 1];
    A->ia[9] = two ? nd->ia[1] : 1;   A->ia[10] = nd->ia[1 + two];
    A->ia[11] = two ? nd->ia[3] : 1;  A->ia[12] = nd->ia[3 + two];
    A->ia[13] = two ? nd->ia[5] : 0;  A->ia[14] = nd->ia[5 + two];
    A->ia[15] = nd->ia[9];
    A->ia[16] = nd->op == RLX_OP_CONV_TRANSPOSE;
    A->ia[17] = nd->ia[10];
}

/* Does the CUDA backend run this node natively? Every op of the CPU backend, in every dtype its builder
   allows (sources, views and EXTRA need no kernel of their own); linear with or without a gate. */
static RLX__MAYBE_UNUSED int rlx__cuda_supports(const rlx_graph* g, const rlx__node* nd, int sm) {
    int q;
    RLX__UNUSED(sm);
    for (q = 0; q < nd->nin; q++)   /* no GPU kernels for block dtypes yet (>>quant) */
        if (rlx__is_quant(rlx__N(g, rlx__in(g, nd, q))->dtype)) return 0;
    if (rlx__is_quant(nd->dtype) && nd->nin) return 0;
    if (rlx__is_unary(nd->op) || rlx__is_binary(nd->op)) return 1;
    switch (nd->op) {
    case RLX_OP_INPUT: case RLX_OP_PARAM: case RLX_OP_CONSTANT: case RLX_OP_STATE:
    case RLX_OP_WHERE: case RLX_OP_CAST: case RLX_OP_MATMUL:
    case RLX_OP_SUM: case RLX_OP_MEAN: case RLX_OP_REDUCE_MAX: case RLX_OP_REDUCE_MIN: case RLX_OP_PROD:
    case RLX_OP_ARGMAX: case RLX_OP_ARGMIN: case RLX_OP_SOFTMAX: case RLX_OP_LOG_SOFTMAX:
    case RLX_OP_LAYERNORM: case RLX_OP_RMSNORM:
    case RLX_OP_RESHAPE: case RLX_OP_TRANSPOSE: case RLX_OP_SLICE: case RLX_OP_CONCAT: case RLX_OP_EXPAND:
    case RLX_OP_GATHER: case RLX_OP_ATTENTION: case RLX_OP_ROPE: case RLX_OP_CUMSUM:
    case RLX_OP_CONV: case RLX_OP_CONV_TRANSPOSE: case RLX_OP_POOL: case RLX_OP_GROUP_NORM: case RLX_OP_RESIZE:
    case RLX_OP_PAD: case RLX_OP_LINEAR: case RLX_OP_ADD_NORM: case RLX_OP_SWIGLU: case RLX_OP_GEGLU:
    case RLX_OP_FUSED_EW: case RLX_OP_STATE_WRITE: case RLX_OP_EXTRA:
        return 1;
    case RLX_OP_TOPK: {   /* 32-bit indices inside the sort */
        const rlx__node* x = rlx__cl_x(g, nd, 0);
        return x->shape[nd->ia[0]] < 0x7FFFFFFF;
    }
    case RLX_OP_SAMPLE: {
        const rlx__node* x = rlx__cl_x(g, nd, 0);
        return x->shape[x->rank - 1] < 0x7FFFFFFF;
    }
    default:
        return 0;
    }
}

/* The launches of one node (addr may be NULL: then only the count and the scratch are computed). */
static void rlx__cl_node(rlx__cl* w, const rlx_graph* g, const rlx__node* nd, const uint64_t* addr, int sm) {
    const uint64_t out = addr ? addr[nd - g->nodes] : 0;
    const rlx__node* x = nd->nin ? rlx__cl_x(g, nd, 0) : NULL;
    const size_t e = rlx_dtype_size(nd->dtype);
    rlx__launch* L;
    int k;
    int64_t outer, len, inner;
    if (rlx__is_unary(nd->op) || rlx__is_binary(nd->op) || nd->op == RLX_OP_WHERE ||
        (nd->op == RLX_OP_CAST && nd->dtype != x->dtype) || nd->op == RLX_OP_EXPAND) {
        const char* kern = rlx__is_unary(nd->op) ? "ew_unary" : rlx__is_binary(nd->op) ? "ew_binary" :
                           nd->op == RLX_OP_WHERE ? "ew_where" : nd->op == RLX_OP_CAST ? "ew_cast" : "ew_copy";
        L = rlx__cl_add(w, "elementwise", kern, nd);
        L->args.out = out;
        for (k = 0; k < nd->nin; k++) {
            L->args.in[k] = rlx__cl_addr(g, nd, addr, k);
            L->args.dt_in[k] = (int)rlx__cl_x(g, nd, k)->dtype;
        }
        rlx__cl_iter_inputs(&L->args, g, nd, nd->nin);
        rlx__cl_flat(L, L->args.n, RLX__CU_THREADS);
        return;
    }
    switch (nd->op) {
    case RLX_OP_INPUT: case RLX_OP_PARAM: case RLX_OP_CONSTANT: case RLX_OP_STATE:
    case RLX_OP_EXTRA:   /* a second output, written by its producer's launch */
        return;
    case RLX_OP_RESHAPE: case RLX_OP_CAST: {   /* views; a copy only if the planner placed them apart */
        const uint64_t src = rlx__cl_addr(g, nd, addr, 0);
        if (addr && src == out) return;
        rlx__cl_strided_copy(w, nd, src, out, NULL);
        return;
    }
    case RLX_OP_TRANSPOSE: {
        int64_t xs[RLX_MAX_RANK] = {0}, st[RLX_MAX_RANK] = {0};
        rlx__contig_strides(x->rank, x->shape, xs);
        for (k = 0; k < nd->rank; k++) st[k] = xs[nd->ia[k]];
        rlx__cl_strided_copy(w, nd, rlx__cl_addr(g, nd, addr, 0), out, st);
        return;
    }
    case RLX_OP_SLICE: {
        int64_t st[RLX_MAX_RANK] = {0};
        const int a = (int)nd->ia[0];
        uint64_t base = rlx__cl_addr(g, nd, addr, 0);
        rlx__contig_strides(x->rank, x->shape, st);
        if (addr) base += (uint64_t)(nd->ia[1] * st[a]) * e;
        st[a] *= nd->ia[2];
        rlx__cl_strided_copy(w, nd, base, out, st);
        return;
    }
    case RLX_OP_CONCAT: {
        const int a = (int)nd->ia[0];
        int64_t pos = 0;
        int k0;
        rlx__cl_axis(nd, a, &outer, &len, &inner);
        for (k0 = 0; k0 < nd->nin; k0 += 8) {
            int cnt = nd->nin - k0 < 8 ? nd->nin - k0 : 8;
            int64_t glen = 0;
            L = rlx__cl_add(w, "elementwise", "concat", nd);
            L->args.out = out;
            for (k = 0; k < cnt; k++) {
                const int64_t lk = rlx__cl_x(g, nd, k0 + k)->shape[a];
                L->args.in[k] = rlx__cl_addr(g, nd, addr, k0 + k);
                L->args.dt_in[k] = (int)nd->dtype;
                L->args.ia[8 + k] = lk;
                glen += lk;
            }
            L->args.ia[0] = outer; L->args.ia[1] = inner; L->args.ia[2] = len; L->args.ia[3] = pos;
            L->args.ia[4] = glen; L->args.ia[5] = cnt;
            L->args.n = outer * glen * inner;
            rlx__cl_flat(L, L->args.n, RLX__CU_THREADS);
            pos += glen;
        }
        return;
    }
    case RLX_OP_GATHER: {
        const rlx__node* ni = rlx__cl_x(g, nd, 1);
        rlx__cl_axis(x, (int)nd->ia[0], &outer, &len, &inner);
        L = rlx__cl_add(w, "elementwise", "gather", nd);
        L->args.out = out;
        L->args.in[0] = rlx__cl_addr(g, nd, addr, 0);
        L->args.in[1] = rlx__cl_addr(g, nd, addr, 1);
        L->args.dt_in[0] = (int)x->dtype;
        L->args.dt_in[1] = (int)ni->dtype;
        L->args.ia[0] = outer; L->args.ia[1] = rlx__node_numel(ni); L->args.ia[2] = inner; L->args.ia[3] = len;
        rlx__cl_flat(L, L->args.n, RLX__CU_THREADS);
        return;
    }
    case RLX_OP_PAD: {
        int64_t xs[RLX_MAX_RANK] = {0};
        unsigned char fill[8];
        uint64_t bits = 0;
        size_t b;
        L = rlx__cl_add(w, "elementwise", "pad", nd);
        L->args.out = out;
        L->args.in[0] = rlx__cl_addr(g, nd, addr, 0);
        L->args.dt_in[0] = (int)x->dtype;
        L->args.ia[0] = nd->ia[0];
        if (nd->rank == 0) {   /* a scalar: one element copied */
            L->args.ia[9] = 1;
            L->args.st[0][0] = 1;
        } else {
            rlx__contig_strides(x->rank, x->shape, xs);
            L->args.rank = nd->rank;
            for (k = 0; k < nd->rank; k++) {
                L->args.dims[k] = nd->shape[k];
                L->args.st[0][k] = xs[k];
                L->args.ia[1 + k] = nd->ia[1 + k];
                L->args.ia[9 + k] = x->shape[k];
            }
        }
        memset(fill, 0, sizeof fill);
        rlx__store_f64(fill, nd->dtype, 0, nd->fa[0]);
        for (b = 0; b < e; b++) bits |= (uint64_t)fill[b] << (8 * b);
        L->args.ia[17] = (long long)bits;
        rlx__cl_flat(L, L->args.n, RLX__CU_THREADS);
        return;
    }
    case RLX_OP_STATE_WRITE: {
        const rlx__node* nu = rlx__cl_x(g, nd, 1);
        const uint64_t st0 = rlx__cl_addr(g, nd, addr, 0);
        if (addr && st0 != out) rlx__cl_strided_copy(w, nd, st0, out, NULL);   /* not in place: copy first */
        rlx__cl_axis(nd, (int)nd->ia[0], &outer, &len, &inner);
        L = rlx__cl_add(w, "elementwise", "state_write", nd);
        L->args.out = out;
        L->args.in[0] = st0;
        L->args.in[1] = rlx__cl_addr(g, nd, addr, 1);
        L->args.in[2] = rlx__cl_addr(g, nd, addr, 2);
        L->args.dt_in[0] = L->args.dt_in[1] = (int)nd->dtype;
        L->args.dt_in[2] = (int)rlx__cl_x(g, nd, 2)->dtype;
        L->args.ia[0] = outer; L->args.ia[1] = nu->shape[nd->ia[0]]; L->args.ia[2] = inner; L->args.ia[3] = len;
        L->args.ia[4] = nd->ia[1];   /* one offset per batch row: state rows per offset element; 0 = scalar */
        L->args.n = outer * nu->shape[nd->ia[0]] * inner;
        rlx__cl_flat(L, L->args.n, RLX__CU_THREADS);
        return;
    }
    case RLX_OP_SWIGLU: case RLX_OP_GEGLU: case RLX_OP_FUSED_EW: {
        L = rlx__cl_add(w, "elementwise", nd->op == RLX_OP_FUSED_EW ? "fused_ew" : "glu", nd);
        L->args.out = out;
        if (nd->op == RLX_OP_FUSED_EW)   /* ia[0] count, ia[1..19] program, ia[20] single-element inputs */
            for (k = 0; k < 20; k++) L->args.ia[k] = nd->ia[k];
        for (k = 0; k < nd->nin && k < 8; k++) {
            const rlx__node* xk = rlx__cl_x(g, nd, k);
            L->args.in[k] = rlx__cl_addr(g, nd, addr, k);
            L->args.dt_in[k] = (int)xk->dtype;
            if (nd->op == RLX_OP_FUSED_EW && rlx__node_numel(xk) == 1) L->args.ia[20] |= 1ll << k;
        }
        rlx__cl_flat(L, L->args.n, RLX__CU_THREADS);
        return;
    }
    case RLX_OP_MATMUL: case RLX_OP_LINEAR:
        rlx__cl_matmul(w, g, nd, addr, sm);
        return;
    case RLX_OP_SUM: case RLX_OP_MEAN: case RLX_OP_REDUCE_MAX: case RLX_OP_REDUCE_MIN: case RLX_OP_PROD:
        rlx__cl_reduce(w, g, nd, addr, out);
        return;
    case RLX_OP_ARGMAX: case RLX_OP_ARGMIN: case RLX_OP_SOFTMAX: case RLX_OP_LOG_SOFTMAX: {
        const int arg = nd->op == RLX_OP_ARGMAX || nd->op == RLX_OP_ARGMIN;
        rlx__cl_axis(x, (int)nd->ia[0], &outer, &len, &inner);
        L = rlx__cl_add(w, "reduce", arg ? "arg_reduce" : "softmax", nd);
        L->args.out = out;
        L->args.in[0] = rlx__cl_addr(g, nd, addr, 0);
        L->args.dt_in[0] = (int)x->dtype;
        L->args.ia[0] = outer * inner; L->args.ia[1] = len; L->args.ia[2] = inner;
        if (arg && !(inner == 1 && len >= 64)) {
            rlx__cl_flat(L, outer * inner, RLX__CU_THREADS);   /* thread per row, the CPU's order */
        } else {
            L->args.ia[3] = 1;
            rlx__cl_rows(L, outer * inner, arg ? RLX__CU_THREADS : rlx__cl_pow2(len, 32, RLX__CU_THREADS));
        }
        return;
    }
    case RLX_OP_LAYERNORM: case RLX_OP_RMSNORM: case RLX_OP_ADD_NORM: {
        const int an = nd->op == RLX_OP_ADD_NORM;
        const int axis = nd->op == RLX_OP_RMSNORM ? x->rank - 1 : (int)nd->ia[0];
        int slot = an ? 2 : 1;
        const int64_t nx = rlx__node_numel(x);
        len = rlx__numel(x->rank - axis, x->shape + axis);
        L = rlx__cl_add(w, "reduce", an ? "add_norm" : "norm_rows", nd);
        L->args.out = out;
        L->args.in[0] = rlx__cl_addr(g, nd, addr, 0);
        if (an) L->args.in[1] = rlx__cl_addr(g, nd, addr, 1);
        if (nd->ia[1]) L->args.in[an ? 2 : 1] = rlx__cl_addr(g, nd, addr, slot++);
        if (nd->ia[2]) L->args.in[an ? 3 : 2] = rlx__cl_addr(g, nd, addr, slot++);
        if (an && nd->ia[4] && addr) {   /* the sum: the buffer of the EXTRA node that stands for it */
            const uint32_t id = (uint32_t)(nd - g->nodes) + 1;
            int i;
            for (i = (int)id; i < g->n; i++)
                if (g->nodes[i].op == RLX_OP_EXTRA && rlx__in(g, &g->nodes[i], 0) == id) { L->args.in[4] = addr[i]; break; }
        }
        for (k = 0; k < 5; k++) L->args.dt_in[k] = (int)nd->dtype;
        L->args.ia[0] = nx / len;
        L->args.ia[1] = len;
        L->args.ia[2] = an ? nd->ia[3] == 1 : nd->op == RLX_OP_LAYERNORM;
        L->args.fa[0] = nd->fa[0];
        rlx__cl_rows(L, nx / len, rlx__cl_pow2(len, 32, RLX__CU_THREADS));
        return;
    }
    case RLX_OP_GROUP_NORM: {
        const int64_t N = nd->shape[0], C = nd->shape[1], G = nd->ia[0], S = rlx__node_numel(nd) / (N * C);
        int slot = 1;
        L = rlx__cl_add(w, "reduce", "group_norm", nd);
        L->args.out = out;
        L->args.in[0] = rlx__cl_addr(g, nd, addr, 0);
        if (nd->ia[1]) L->args.in[1] = rlx__cl_addr(g, nd, addr, slot++);
        if (nd->ia[2]) L->args.in[2] = rlx__cl_addr(g, nd, addr, slot++);
        for (k = 0; k < 3; k++) L->args.dt_in[k] = (int)nd->dtype;
        L->args.ia[0] = N * G; L->args.ia[1] = C; L->args.ia[2] = G; L->args.ia[3] = S;
        L->args.fa[0] = nd->fa[0];
        rlx__cl_rows(L, N * G, rlx__cl_pow2((C / G) * S, 32, RLX__CU_THREADS));
        return;
    }
    case RLX_OP_CUMSUM: {
        rlx__cl_axis(x, (int)nd->ia[0], &outer, &len, &inner);
        L = rlx__cl_add(w, "reduce", "cumsum", nd);
        L->args.out = out;
        L->args.in[0] = rlx__cl_addr(g, nd, addr, 0);
        L->args.dt_in[0] = (int)x->dtype;
        L->args.ia[0] = outer; L->args.ia[1] = len; L->args.ia[2] = inner; L->args.ia[3] = nd->ia[1];
        L->args.ia[4] = nd->ia[2];
        L->args.n = outer * inner;
        rlx__cl_flat(L, outer * inner, RLX__CU_THREADS);
        return;
    }
    case RLX_OP_TOPK: {
        const int64_t kk = nd->ia[1];
        rlx__cl_axis(x, (int)nd->ia[0], &outer, &len, &inner);
        L = rlx__cl_add(w, "reduce", "topk", nd);
        L->args.out = out;
        L->args.in[0] = rlx__cl_addr(g, nd, addr, 0);
        L->args.dt_in[0] = (int)x->dtype;
        L->args.ia[0] = outer * inner; L->args.ia[1] = len; L->args.ia[2] = inner; L->args.ia[3] = kk;
        L->args.ia[4] = nd->ia[2]; L->args.ia[5] = nd->ia[3];
        L->args.ia[6] = rlx__cl_pow2(kk, 1, 0x80000000u);
        rlx__cl_sortbuf(w, L, outer * inner, L->args.ia[6], 7, 8, 1);
        return;
    }
    case RLX_OP_SAMPLE: {
        const int64_t V = x->shape[x->rank - 1], rows = rlx__node_numel(x) / V;
        const int64_t m = (nd->ia[0] > 0 && nd->ia[0] < V) ? nd->ia[0] : V;
        L = rlx__cl_add(w, "reduce", "sample", nd);
        L->args.out = out;
        L->args.in[0] = rlx__cl_addr(g, nd, addr, 0);
        L->args.in[2] = rlx__cl_addr(g, nd, addr, 1);
        L->args.dt_in[0] = (int)x->dtype;
        L->args.dt_in[2] = (int)rlx__cl_x(g, nd, 1)->dtype;
        L->args.ia[0] = rows; L->args.ia[1] = V; L->args.ia[2] = m;
        L->args.ia[3] = rlx__cl_pow2(m, 1, 0x80000000u);
        L->args.ia[6] = nd->ia[1];
        L->args.fa[0] = nd->fa[0];
        L->args.fa[1] = nd->fa[1];
        if (nd->fa[0] > 0.0) rlx__cl_sortbuf(w, L, rows, L->args.ia[3], 4, 5, 1);
        else L->grid[0] = rlx__cl_cap(rows, RLX__CU_GRID_CAP);
        return;
    }
    case RLX_OP_ATTENTION:
        rlx__cl_attention(w, g, nd, addr, out);
        return;
    case RLX_OP_ROPE: {
        const int64_t H = nd->ia[2], nrot = nd->ia[3], D = nd->ia[6], B = nd->ia[7], S = nd->ia[8];
        L = rlx__cl_add(w, "attention", "rope", nd);
        L->args.out = out;
        for (k = 0; k < nd->nin; k++) {
            L->args.in[k] = rlx__cl_addr(g, nd, addr, k);
            L->args.dt_in[k] = (int)rlx__cl_x(g, nd, k)->dtype;
        }
        for (k = 0; k < 10; k++) L->args.ia[k] = nd->ia[k];
        if (nd->ia[4]) L->args.ia[10] = rlx__cl_x(g, nd, 3)->rank;
        L->args.n = B * H * S * (nrot / 2 + D - nrot);
        rlx__cl_flat(L, L->args.n, RLX__CU_THREADS);
        return;
    }
    case RLX_OP_CONV: case RLX_OP_CONV_TRANSPOSE: {
        rlx__kargs A;
        int64_t Og, Kd, NP;
        memset(&A, 0, sizeof A);
        rlx__cl_convgeo(&A, g, nd);
        Og = A.ia[4] / A.ia[15];
        Kd = (A.ia[1] / A.ia[15]) * A.ia[7] * A.ia[8];
        NP = A.ia[0] * A.ia[5] * A.ia[6];
        L = rlx__cl_add(w, "conv", Og >= 16 && Kd >= 16 ? "conv_gemm" : "conv_direct", nd);
        A.op = L->args.op; A.dt_out = L->args.dt_out; A.n = L->args.n; A.rank = 1; A.dims[0] = 1;
        A.out = out;
        for (k = 0; k < nd->nin; k++) {
            A.in[k] = rlx__cl_addr(g, nd, addr, k);
            A.dt_in[k] = (int)nd->dtype;
        }
        L->args = A;
        if (Og >= 16 && Kd >= 16) {
            L->grid[0] = rlx__cl_cap(rlx__cl_cdiv(NP, 64), 65535u * 1024u);
            L->grid[1] = rlx__cl_cap(rlx__cl_cdiv(Og, 64), 65535u);
            L->grid[2] = rlx__cl_cap(A.ia[15], 65535u);
        } else {
            rlx__cl_flat(L, A.n, RLX__CU_THREADS);
        }
        return;
    }
    case RLX_OP_POOL: {
        const int two = nd->ia[0] == 2, r = x->rank;
        L = rlx__cl_add(w, "conv", "pool", nd);
        L->args.out = out;
        L->args.in[0] = rlx__cl_addr(g, nd, addr, 0);
        L->args.dt_in[0] = (int)x->dtype;
        L->args.ia[0] = x->shape[0] * x->shape[1];
        L->args.ia[1] = two ? x->shape[2] : 1; L->args.ia[2] = x->shape[r - 1];
        L->args.ia[3] = two ? nd->shape[2] : 1; L->args.ia[4] = nd->shape[r - 1];
        L->args.ia[5] = two ? nd->ia[2] : 1; L->args.ia[6] = nd->ia[2 + two];
        L->args.ia[7] = two ? nd->ia[4] : 1; L->args.ia[8] = nd->ia[4 + two];
        L->args.ia[9] = two ? nd->ia[6] : 0; L->args.ia[10] = nd->ia[6 + two];
        L->args.ia[11] = nd->ia[1] == RLX_POOL_MAX;
        L->args.ia[12] = nd->ia[10];
        rlx__cl_flat(L, L->args.n, RLX__CU_THREADS);
        return;
    }
    case RLX_OP_RESIZE: {
        L = rlx__cl_add(w, "conv", "resize", nd);
        L->args.out = out;
        L->args.in[0] = rlx__cl_addr(g, nd, addr, 0);
        L->args.dt_in[0] = (int)x->dtype;
        L->args.ia[0] = x->shape[0] * x->shape[1];
        L->args.ia[1] = x->shape[2]; L->args.ia[2] = x->shape[3];
        L->args.ia[3] = nd->shape[2]; L->args.ia[4] = nd->shape[3];
        L->args.ia[5] = nd->ia[0] == RLX_RESIZE_BILINEAR;
        L->args.ia[6] = nd->ia[1];
        rlx__cl_flat(L, L->args.n, RLX__CU_THREADS);
        return;
    }
    default:
        return;
    }
}

/* Device scratch bytes a node needs (0 if none). */
static RLX__MAYBE_UNUSED size_t rlx__cuda_scratch(const rlx_graph* g, const rlx__node* nd, int sm) {
    rlx__cl w;
    memset(&w, 0, sizeof w);
    w.smem = rlx__cl_smem(sm);
    rlx__cl_node(&w, g, nd, NULL, sm);
    return w.scratch;
}

/* Fills up to `max` launches for node nd and returns how many the node needs: 0 for sources, EXTRA nodes and
   views that need no copy, else >= 1 (at most 2, except concat: one launch per 8 inputs). When the result exceeds
   max, only the first max were written: call again with room for all. addr[i] is the device address of node
   id i + 1 (views resolved); scratch the node's rlx__cuda_scratch bytes (0 if none). */
static RLX__MAYBE_UNUSED int rlx__cuda_lower(const rlx_graph* g, const rlx__node* nd, const uint64_t* addr, uint64_t scratch, int sm,
                           rlx__launch* out, int max) {
    rlx__cl w;
    memset(&w, 0, sizeof w);
    w.out = out;
    w.max = max;
    w.scratch_addr = scratch;
    w.smem = rlx__cl_smem(sm);
    rlx__cl_node(&w, g, nd, addr, sm);
    return w.n;
}

#endif /* CUDA, HIP or Vulkan */

/* ------------------------------------------------------------------------------------------------------------
   >>quant  Block-quantized dtypes (ggml's formats) on the CPU: dequantization, quantization, matmul_quant.
   Layouts (bytes, in order; d/dmin are f16, little-endian; QK_K = 256):
     q4_0  [d, qs 16]            q4_1 [d, m, qs 16]        q5_0 [d, qh 4, qs 16]     q5_1 [d, m, qh 4, qs 16]
     q8_0  [d, qs 32 (int8)]     iq4_nl [d, qs 16]         iq4_xs [d, scales_h 2, scales_l 4, qs 128]
     q2_K  [scales 16, qs 64, d, dmin]      q3_K [hmask 32, qs 64, scales 12, d]
     q4_K  [d, dmin, scales 12, qs 128]     q5_K [d, dmin, scales 12, qh 32, qs 128]
     q6_K  [ql 128, qh 64, scales 16 (int8), d]
   Dequantization repeats ggml's dequantize_row_* operation for operation (f16 scales widened exactly, products
   in the same order, so the floats are identical). Quantization repeats ggml's reference quantizers
   (quantize_row_*_ref: the legacy formats and the K-quants, whose searches are deterministic) byte for byte;
   iq4_nl and iq4_xs have no reference quantizer in ggml (theirs searches with weights), so rlx does not
   quantize to them: a cast f32 → iq4_* is refused at the builder. Bit-exactness assumes IEEE f32 arithmetic
   without contraction into FMA (the default without -march flags; not the x87 of 32-bit builds).
   matmul_quant threads over blocks of 16 output columns. For m < 16: q4_0, q8_0, q4_K and q6_K round x to 8
   bits once per call and sum integer block products (see "8-bit activations" below); the other formats, and
   any x with a NaN or an infinity, decode the weight in AVX2 registers against f32 x (see "fast paths"); the
   portable path dequantizes the 16 weight rows into a per-thread f32 tile and takes dot products. From m = 16
   on, dequantized tiles go through the f32 GEMM (x f32).
   ------------------------------------------------------------------------------------------------------------ */
static const signed char rlx__kvalues_iq4nl[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                                   1, 13, 25, 38, 53, 69, 89, 113};
static float rlx__qh2f(const unsigned char* p) { return rlx__f16_bits_to_f32((uint16_t)(p[0] | (p[1] << 8))); }
static void rlx__qf2h(unsigned char* p, float f) {
    uint16_t h = rlx__f32_bits_to_f16(f);
    p[0] = (unsigned char)(h & 0xFFu);
    p[1] = (unsigned char)(h >> 8);
}
static uint32_t rlx__qu32(const unsigned char* p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
/* ggml's nearest_int: round half to even through the 1.5·2^23 trick (|f| ≤ 2^22). */
static int rlx__qnear(float f) {
    float v = f + 12582912.f;
    int32_t i;
    memcpy(&i, &v, 4);
    return (int)((i & 0x007FFFFF) - 0x00400000);
}
/* (int)f, and 0 where C leaves the conversion undefined (NaN, out of int range: inputs with inf or NaN) */
static int rlx__qtrunc(float f) { return f > -2147483648.f && f < 2147483648.f ? (int)f : 0; }
static void rlx__q_scale_min_k4(int j, const unsigned char* q, unsigned char* d, unsigned char* m) {
    if (j < 4) {
        *d = (unsigned char)(q[j] & 63); *m = (unsigned char)(q[j + 4] & 63);
    } else {
        *d = (unsigned char)((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
        *m = (unsigned char)((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
    }
}

/* One block of dtype t at b → y[0 .. block_elems). */
static void rlx__dequant_block(rlx_dtype t, const unsigned char* b, float* y) {
    int j, l;
    switch (t) {
    case RLX_Q4_0: {
        float d = rlx__qh2f(b);
        for (j = 0; j < 16; j++) {
            y[j] = (float)((b[2 + j] & 0x0F) - 8) * d;
            y[j + 16] = (float)((b[2 + j] >> 4) - 8) * d;
        }
        return;
    }
    case RLX_Q4_1: {
        float d = rlx__qh2f(b), m = rlx__qh2f(b + 2);
        for (j = 0; j < 16; j++) {
            float a = (float)(b[4 + j] & 0x0F) * d, c = (float)(b[4 + j] >> 4) * d;
            y[j] = a + m;
            y[j + 16] = c + m;
        }
        return;
    }
    case RLX_Q5_0: case RLX_Q5_1: {
        int one = t == RLX_Q5_1;
        float d = rlx__qh2f(b), m = one ? rlx__qh2f(b + 2) : 0.0f;
        uint32_t qh = rlx__qu32(b + (one ? 4 : 2));
        const unsigned char* qs = b + (one ? 8 : 6);
        for (j = 0; j < 16; j++) {
            int h0 = (int)(((qh >> j) << 4) & 0x10u), h1 = (int)((qh >> (j + 12)) & 0x10u);
            int x0 = (qs[j] & 0x0F) | h0, x1 = (qs[j] >> 4) | h1;
            if (one) {
                float a = (float)x0 * d, c = (float)x1 * d;
                y[j] = a + m;
                y[j + 16] = c + m;
            } else {
                y[j] = (float)(x0 - 16) * d;
                y[j + 16] = (float)(x1 - 16) * d;
            }
        }
        return;
    }
    case RLX_Q8_0: {
        float d = rlx__qh2f(b);
        for (j = 0; j < 32; j++) y[j] = (float)(signed char)b[2 + j] * d;
        return;
    }
    case RLX_IQ4_NL: {
        float d = rlx__qh2f(b);
        for (j = 0; j < 16; j++) {
            y[j] = d * (float)rlx__kvalues_iq4nl[b[2 + j] & 0xF];
            y[j + 16] = d * (float)rlx__kvalues_iq4nl[b[2 + j] >> 4];
        }
        return;
    }
    case RLX_IQ4_XS: {
        float d = rlx__qh2f(b);
        unsigned sh = (unsigned)(b[2] | (b[3] << 8));
        const unsigned char* qs = b + 8;
        int ib;
        for (ib = 0; ib < 8; ib++) {
            int ls = ((b[4 + ib / 2] >> (4 * (ib % 2))) & 0xF) | (int)(((sh >> (2 * ib)) & 3u) << 4);
            float dl = d * (float)(ls - 32);
            for (j = 0; j < 16; j++) {
                y[j] = dl * (float)rlx__kvalues_iq4nl[qs[j] & 0xF];
                y[j + 16] = dl * (float)rlx__kvalues_iq4nl[qs[j] >> 4];
            }
            y += 32;
            qs += 16;
        }
        return;
    }
    case RLX_Q2_K: {
        const unsigned char *sc = b, *q = b + 16;
        float d = rlx__qh2f(b + 80), mn = rlx__qh2f(b + 82);
        int is = 0, n, shift;
        for (n = 0; n < 256; n += 128) {
            for (shift = 0; shift < 8; shift += 2) {
                int h;
                for (h = 0; h < 2; h++) {
                    unsigned char s = sc[is++];
                    float dl = d * (float)(s & 0xF), ml = mn * (float)(s >> 4);
                    for (l = 0; l < 16; l++) *y++ = dl * (float)((q[l + 16 * h] >> shift) & 3) - ml;
                }
            }
            q += 32;
        }
        return;
    }
    case RLX_Q3_K: {
        const unsigned char *hm = b, *q = b + 32, *s12 = b + 96;
        float dall = rlx__qh2f(b + 108);
        signed char sc[16];
        int is = 0, n, shift;
        unsigned char m = 1;
        for (j = 0; j < 16; j++) {
            int lo = j < 8 ? (s12[j] & 0xF) : (s12[j - 8] >> 4);
            int hi = (s12[8 + j % 4] >> (2 * (j / 4))) & 3;
            sc[j] = (signed char)((lo | (hi << 4)) - 32);
        }
        for (n = 0; n < 256; n += 128) {
            for (shift = 0; shift < 8; shift += 2) {
                int h;
                for (h = 0; h < 2; h++) {
                    float dl = dall * (float)sc[is++];
                    for (l = 0; l < 16; l++)
                        *y++ = dl * (float)(((q[l + 16 * h] >> shift) & 3) - ((hm[l + 16 * h] & m) ? 0 : 4));
                }
                m = (unsigned char)(m << 1);
            }
            q += 32;
        }
        return;
    }
    case RLX_Q4_K: case RLX_Q5_K: {
        int five = t == RLX_Q5_K;
        float d = rlx__qh2f(b), mn = rlx__qh2f(b + 2);
        const unsigned char *s12 = b + 4, *qh = b + 16, *q = b + (five ? 48 : 16);
        int is = 0;
        unsigned u1 = 1, u2 = 2;
        unsigned char sc, mm;
        for (j = 0; j < 256; j += 64) {
            float d1, m1, d2, m2;
            rlx__q_scale_min_k4(is, s12, &sc, &mm); d1 = d * (float)sc; m1 = mn * (float)mm;
            rlx__q_scale_min_k4(is + 1, s12, &sc, &mm); d2 = d * (float)sc; m2 = mn * (float)mm;
            for (l = 0; l < 32; l++) *y++ = d1 * (float)((q[l] & 0xF) + (five && (qh[l] & u1) ? 16 : 0)) - m1;
            for (l = 0; l < 32; l++) *y++ = d2 * (float)((q[l] >> 4) + (five && (qh[l] & u2) ? 16 : 0)) - m2;
            q += 32; is += 2; u1 <<= 2; u2 <<= 2;
        }
        return;
    }
    case RLX_Q6_K: {
        const unsigned char *ql = b, *qh = b + 128;
        const signed char* sc = (const signed char*)(b + 192);
        float d = rlx__qh2f(b + 208);
        int n;
        for (n = 0; n < 256; n += 128) {
            for (l = 0; l < 32; l++) {
                int is = l / 16;
                int q1 = ((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
                int q2 = ((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
                int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
                int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
                y[l] = d * (float)sc[is] * (float)q1;
                y[l + 32] = d * (float)sc[is + 2] * (float)q2;
                y[l + 64] = d * (float)sc[is + 4] * (float)q3;
                y[l + 96] = d * (float)sc[is + 6] * (float)q4;
            }
            y += 128; ql += 64; qh += 32; sc += 8;
        }
        return;
    }
    default: return;
    }
}

/* ggml's make_qx_quants with rmse_type 1 and no weights (the q6_K reference). */
static float rlx__q_make_qx(int n, int nmax, const float* x, signed char* L) {
    float max = 0, amax = 0, iscale, sumlx = 0, suml2 = 0, scale, best;
    int i, is;
    for (i = 0; i < n; i++) {
        float ax = fabsf(x[i]);
        if (ax > amax) { amax = ax; max = x[i]; }
    }
    if (amax < 1e-15f) { for (i = 0; i < n; i++) L[i] = 0; return 0.f; }
    iscale = (float)-nmax / max;
    for (i = 0; i < n; i++) {
        int l = rlx__qnear(iscale * x[i]);
        float w = x[i] * x[i];
        l = l < -nmax ? -nmax : l > nmax - 1 ? nmax - 1 : l;
        L[i] = (signed char)(l + nmax);
        sumlx += w * x[i] * (float)l;
        suml2 += w * (float)l * (float)l;
    }
    scale = suml2 != 0.f ? sumlx / suml2 : 0.0f;
    best = scale * sumlx;
    for (is = -9; is <= 9; is++) {
        if (is == 0) continue;
        iscale = -((float)nmax + 0.1f * (float)is) / max;
        sumlx = suml2 = 0;
        for (i = 0; i < n; i++) {
            int l = rlx__qnear(iscale * x[i]);
            float w = x[i] * x[i];
            l = l < -nmax ? -nmax : l > nmax - 1 ? nmax - 1 : l;
            sumlx += w * x[i] * (float)l;
            suml2 += w * (float)l * (float)l;
        }
        if (suml2 > 0 && sumlx * sumlx > best * suml2) {
            for (i = 0; i < n; i++) {
                int l = rlx__qnear(iscale * x[i]);
                l = l < -nmax ? -nmax : l > nmax - 1 ? nmax - 1 : l;
                L[i] = (signed char)(nmax + l);
            }
            scale = sumlx / suml2;
            best = scale * sumlx;
        }
    }
    return scale;
}
/* ggml's make_q3_quants with do_rmse (the q3_K reference). */
static float rlx__q_make_q3(int n, int nmax, const float* x, signed char* L) {
    float max = 0, amax = 0, iscale, sumlx = 0, suml2 = 0;
    int i, itry;
    for (i = 0; i < n; i++) {
        float ax = fabsf(x[i]);
        if (ax > amax) { amax = ax; max = x[i]; }
    }
    if (amax < 1e-15f) { for (i = 0; i < n; i++) L[i] = 0; return 0.f; }
    iscale = (float)-nmax / max;
    for (i = 0; i < n; i++) {
        int l = rlx__qnear(iscale * x[i]);
        float w = x[i] * x[i];
        l = l < -nmax ? -nmax : l > nmax - 1 ? nmax - 1 : l;
        L[i] = (signed char)l;
        sumlx += w * x[i] * (float)l;
        suml2 += w * (float)l * (float)l;
    }
    for (itry = 0; itry < 5; itry++) {
        int changed = 0;
        for (i = 0; i < n; i++) {
            float w = x[i] * x[i];
            float slx = sumlx - w * x[i] * (float)L[i];
            if (slx > 0) {
                float sl2 = suml2 - w * (float)L[i] * (float)L[i];
                int nl = rlx__qnear(x[i] * sl2 / slx);
                nl = nl < -nmax ? -nmax : nl > nmax - 1 ? nmax - 1 : nl;
                if (nl != L[i]) {
                    slx += w * x[i] * (float)nl;
                    sl2 += w * (float)nl * (float)nl;
                    if (sl2 > 0 && slx * slx * suml2 > sumlx * sumlx * sl2) {
                        L[i] = (signed char)nl; sumlx = slx; suml2 = sl2;
                        changed++;
                    }
                }
            }
        }
        if (!changed) break;
    }
    for (i = 0; i < n; i++) L[i] = (signed char)(L[i] + nmax);
    return suml2 > 0.0f ? sumlx / suml2 : 0.0f;
}
/* ggml's make_qkx2_quants (the q2_K, q4_K and q5_K references). */
static float rlx__q_make_qkx2(int n, int nmax, const float* x, const float* w, unsigned char* L, float* the_min,
                              float rmin, float rdelta, int nstep, int use_mad) {
    unsigned char Laux[32];
    float min = x[0], max = x[0], sum_w = w[0], sum_x = sum_w * x[0], iscale, scale, best = 0;
    int i, is;
    for (i = 1; i < n; i++) {
        if (x[i] < min) min = x[i];
        if (x[i] > max) max = x[i];
        sum_w += w[i];
        sum_x += w[i] * x[i];
    }
    if (min > 0) min = 0;
    if (max == min) { for (i = 0; i < n; i++) L[i] = 0; *the_min = -min; return 0.f; }
    iscale = (float)nmax / (max - min);
    scale = 1 / iscale;
    for (i = 0; i < n; i++) {
        int l = rlx__qnear(iscale * (x[i] - min));
        float diff;
        L[i] = (unsigned char)(l < 0 ? 0 : l > nmax ? nmax : l);
        diff = scale * (float)L[i] + min - x[i];
        diff = use_mad ? fabsf(diff) : diff * diff;
        best += w[i] * diff;
    }
    for (is = 0; is <= nstep; is++) {
        float sum_l = 0, sum_l2 = 0, sum_xl = 0, D;
        iscale = (rmin + rdelta * (float)is + (float)nmax) / (max - min);
        for (i = 0; i < n; i++) {
            int l = rlx__qnear(iscale * (x[i] - min));
            l = l < 0 ? 0 : l > nmax ? nmax : l;
            Laux[i] = (unsigned char)l;
            sum_l += w[i] * (float)l;
            sum_l2 += w[i] * (float)l * (float)l;
            sum_xl += w[i] * (float)l * x[i];
        }
        D = sum_w * sum_l2 - sum_l * sum_l;
        if (D > 0) {
            float ts = (sum_w * sum_xl - sum_x * sum_l) / D, tm = (sum_l2 * sum_x - sum_l * sum_xl) / D, cur = 0;
            if (tm > 0) { tm = 0; ts = sum_xl / sum_l2; }
            for (i = 0; i < n; i++) {
                float diff = ts * (float)Laux[i] + tm - x[i];
                diff = use_mad ? fabsf(diff) : diff * diff;
                cur += w[i] * diff;
            }
            if (cur < best) {
                for (i = 0; i < n; i++) L[i] = Laux[i];
                best = cur; scale = ts; min = tm;
            }
        }
    }
    *the_min = -min;
    return scale;
}

/* One block of dtype t from x[0 .. block_elems) into b, as ggml's quantize_row_*_ref. */
static void rlx__quant_block(rlx_dtype t, const float* x, unsigned char* b) {
    int j, l;
    switch (t) {
    case RLX_Q4_0: case RLX_Q5_0: {
        int five = t == RLX_Q5_0;
        float amax = 0, max = 0, d, id;
        uint32_t qh = 0;
        unsigned char* qs = b + (five ? 6 : 2);
        for (j = 0; j < 32; j++)
            if (amax < fabsf(x[j])) { amax = fabsf(x[j]); max = x[j]; }
        d = max / (five ? -16.f : -8.f);
        id = d != 0.f ? 1.0f / d : 0.0f;
        rlx__qf2h(b, d);
        for (j = 0; j < 16; j++) {
            float x0 = x[j] * id, x1 = x[16 + j] * id;
            int a = (int)(signed char)rlx__qtrunc(x0 + (five ? 16.5f : 8.5f));
            int c = (int)(signed char)rlx__qtrunc(x1 + (five ? 16.5f : 8.5f));
            int top = five ? 31 : 15;
            unsigned xi0 = (unsigned)(unsigned char)(a < top ? a : top), xi1 = (unsigned)(unsigned char)(c < top ? c : top);
            qs[j] = (unsigned char)((xi0 & 0x0Fu) | ((xi1 & 0x0Fu) << 4));
            qh |= ((xi0 & 0x10u) >> 4) << j;
            qh |= ((xi1 & 0x10u) >> 4) << (j + 16);
        }
        if (five) for (j = 0; j < 4; j++) b[2 + j] = (unsigned char)(qh >> (8 * j));
        return;
    }
    case RLX_Q4_1: case RLX_Q5_1: {
        int five = t == RLX_Q5_1;
        float min = FLT_MAX, max = -FLT_MAX, d, id;
        uint32_t qh = 0;
        unsigned char* qs = b + (five ? 8 : 4);
        for (j = 0; j < 32; j++) {
            if (x[j] < min) min = x[j];
            if (x[j] > max) max = x[j];
        }
        d = (max - min) / (five ? 31.f : 15.f);
        id = d != 0.f ? 1.0f / d : 0.0f;
        rlx__qf2h(b, d);
        rlx__qf2h(b + 2, min);
        for (j = 0; j < 16; j++) {
            float x0 = (x[j] - min) * id, x1 = (x[16 + j] - min) * id;
            unsigned xi0, xi1;
            if (five) {
                xi0 = (unsigned)(unsigned char)rlx__qtrunc(x0 + 0.5f);
                xi1 = (unsigned)(unsigned char)rlx__qtrunc(x1 + 0.5f);
            } else {
                int a = (int)(signed char)rlx__qtrunc(x0 + 0.5f), c = (int)(signed char)rlx__qtrunc(x1 + 0.5f);
                xi0 = (unsigned)(unsigned char)(a < 15 ? a : 15);
                xi1 = (unsigned)(unsigned char)(c < 15 ? c : 15);
            }
            qs[j] = (unsigned char)((xi0 & 0x0Fu) | ((xi1 & 0x0Fu) << 4));
            qh |= ((xi0 & 0x10u) >> 4) << j;
            qh |= ((xi1 & 0x10u) >> 4) << (j + 16);
        }
        if (five) for (j = 0; j < 4; j++) b[4 + j] = (unsigned char)(qh >> (8 * j));
        return;
    }
    case RLX_Q8_0: {
        float amax = 0, d, id;
        for (j = 0; j < 32; j++) amax = amax > fabsf(x[j]) ? amax : fabsf(x[j]);
        d = amax / 127.f;
        id = d != 0.f ? 1.0f / d : 0.0f;
        rlx__qf2h(b, d);
        for (j = 0; j < 32; j++) b[2 + j] = (unsigned char)(signed char)rlx__qtrunc(roundf(x[j] * id));
        return;
    }
    case RLX_Q2_K: {
        unsigned char L[256];
        float w[16], mins[16], scales[16], max_scale = 0, max_min = 0, dd, dm;
        for (j = 0; j < 16; j++) {
            for (l = 0; l < 16; l++) w[l] = fabsf(x[16 * j + l]);
            scales[j] = rlx__q_make_qkx2(16, 3, x + 16 * j, w, L + 16 * j, &mins[j], -0.5f, 0.1f, 15, 1);
            if (scales[j] > max_scale) max_scale = scales[j];
            if (mins[j] > max_min) max_min = mins[j];
        }
        if (max_scale > 0) {
            float iscale = 15.f / max_scale;
            for (j = 0; j < 16; j++) b[j] = (unsigned char)rlx__qnear(iscale * scales[j]);
            rlx__qf2h(b + 80, max_scale / 15.f);
        } else {
            for (j = 0; j < 16; j++) b[j] = 0;
            rlx__qf2h(b + 80, 0.f);
        }
        if (max_min > 0) {
            float iscale = 15.f / max_min;
            for (j = 0; j < 16; j++) b[j] = (unsigned char)(b[j] | (unsigned)rlx__qnear(iscale * mins[j]) << 4);
            rlx__qf2h(b + 82, max_min / 15.f);
        } else {
            rlx__qf2h(b + 82, 0.f);
        }
        dd = rlx__qh2f(b + 80);
        dm = rlx__qh2f(b + 82);
        for (j = 0; j < 16; j++) {
            float d = dd * (float)(b[j] & 0xF), m;
            int ii;
            if (d == 0.f) continue;
            m = dm * (float)(b[j] >> 4);
            for (ii = 0; ii < 16; ii++) {
                int q = rlx__qnear((x[16 * j + ii] + m) / d);
                L[16 * j + ii] = (unsigned char)(q < 0 ? 0 : q > 3 ? 3 : q);
            }
        }
        for (j = 0; j < 256; j += 128)
            for (l = 0; l < 32; l++)
                b[16 + j / 4 + l] = (unsigned char)(L[j + l] | (L[j + l + 32] << 2) | (L[j + l + 64] << 4) | (L[j + l + 96] << 6));
        return;
    }
    case RLX_Q3_K: {
        signed char L[256];
        float scales[16], max_scale = 0, amax = 0, dd;
        unsigned char *hm = b, *qs = b + 32, *s12 = b + 96;
        int m = 0;
        unsigned char hbit = 1;
        for (j = 0; j < 16; j++) {
            scales[j] = rlx__q_make_q3(16, 4, x + 16 * j, L + 16 * j);
            if (fabsf(scales[j]) > amax) { amax = fabsf(scales[j]); max_scale = scales[j]; }
        }
        memset(s12, 0, 12);
        if (max_scale != 0.f) {
            float iscale = -32.f / max_scale;
            for (j = 0; j < 16; j++) {
                int q = (int)(signed char)rlx__qnear(iscale * scales[j]);
                q = (q < -32 ? -32 : q > 31 ? 31 : q) + 32;
                if (j < 8) s12[j] = (unsigned char)(q & 0xF);
                else s12[j - 8] = (unsigned char)(s12[j - 8] | ((q & 0xF) << 4));
                q >>= 4;
                s12[j % 4 + 8] = (unsigned char)(s12[j % 4 + 8] | (q << (2 * (j / 4))));
            }
            rlx__qf2h(b + 108, 1 / iscale);
        } else {
            rlx__qf2h(b + 108, 0.f);
        }
        dd = rlx__qh2f(b + 108);
        for (j = 0; j < 16; j++) {
            int lo = j < 8 ? (s12[j] & 0xF) : (s12[j - 8] >> 4), ii;
            int sc = (int)(signed char)((lo | (((s12[8 + j % 4] >> (2 * (j / 4))) & 3) << 4)) - 32);
            float d = dd * (float)sc;
            if (d == 0.f) continue;
            for (ii = 0; ii < 16; ii++) {
                int q = rlx__qnear(x[16 * j + ii] / d);
                L[16 * j + ii] = (signed char)((q < -4 ? -4 : q > 3 ? 3 : q) + 4);
            }
        }
        memset(hm, 0, 32);
        for (j = 0; j < 256; j++) {
            if (L[j] > 3) { hm[m] = (unsigned char)(hm[m] | hbit); L[j] = (signed char)(L[j] - 4); }
            if (++m == 32) { m = 0; hbit = (unsigned char)(hbit << 1); }
        }
        for (j = 0; j < 256; j += 128)
            for (l = 0; l < 32; l++)
                qs[j / 4 + l] = (unsigned char)(L[j + l] | (L[j + l + 32] << 2) | (L[j + l + 64] << 4) | (L[j + l + 96] << 6));
        return;
    }
    case RLX_Q4_K: case RLX_Q5_K: {
        int five = t == RLX_Q5_K, nmax = five ? 31 : 15;
        unsigned char L[256], *s12 = b + 4, *q = b + (five ? 48 : 16), *qh = b + 16, sc, mm;
        float w[32], mins[8], scales[8], max_scale = 0, max_min = 0, inv_scale, inv_min, dd, dmn;
        for (j = 0; j < 8; j++) {
            float sum_x2 = 0, av;
            for (l = 0; l < 32; l++) sum_x2 += x[32 * j + l] * x[32 * j + l];
            av = sqrtf(sum_x2 / 32);
            for (l = 0; l < 32; l++) w[l] = av + fabsf(x[32 * j + l]);
            scales[j] = rlx__q_make_qkx2(32, nmax, x + 32 * j, w, L + 32 * j, &mins[j], five ? -0.5f : -1.f, 0.1f,
                                         five ? 15 : 20, 0);
            if (scales[j] > max_scale) max_scale = scales[j];
            if (mins[j] > max_min) max_min = mins[j];
        }
        inv_scale = max_scale > 0 ? 63.f / max_scale : 0.f;
        inv_min = max_min > 0 ? 63.f / max_min : 0.f;
        for (j = 0; j < 8; j++) {
            unsigned char ls = (unsigned char)rlx__qnear(inv_scale * scales[j]);
            unsigned char lm = (unsigned char)rlx__qnear(inv_min * mins[j]);
            ls = ls < 63 ? ls : 63;
            lm = lm < 63 ? lm : 63;
            if (j < 4) {
                s12[j] = ls;
                s12[j + 4] = lm;
            } else {
                s12[j + 4] = (unsigned char)((ls & 0xF) | ((lm & 0xF) << 4));
                s12[j - 4] = (unsigned char)(s12[j - 4] | ((ls >> 4) << 6));
                s12[j] = (unsigned char)(s12[j] | ((lm >> 4) << 6));
            }
        }
        rlx__qf2h(b, max_scale / 63.f);
        rlx__qf2h(b + 2, max_min / 63.f);
        dd = rlx__qh2f(b);
        dmn = rlx__qh2f(b + 2);
        for (j = 0; j < 8; j++) {
            float d, dm;
            int ii;
            rlx__q_scale_min_k4(j, s12, &sc, &mm);
            d = dd * (float)sc;
            if (d == 0.f) continue;
            dm = dmn * (float)mm;
            for (ii = 0; ii < 32; ii++) {
                int v = rlx__qnear((x[32 * j + ii] + dm) / d);
                L[32 * j + ii] = (unsigned char)(v < 0 ? 0 : v > nmax ? nmax : v);
            }
        }
        if (!five) {
            for (j = 0; j < 256; j += 64) {
                for (l = 0; l < 32; l++) q[l] = (unsigned char)(L[j + l] | (L[j + l + 32] << 4));
                q += 32;
            }
        } else {
            unsigned m1 = 1, m2 = 2;
            int n;
            memset(qh, 0, 32);
            for (n = 0; n < 256; n += 64) {
                for (j = 0; j < 32; j++) {
                    int l1 = L[n + j], l2 = L[n + j + 32];
                    if (l1 > 15) { l1 -= 16; qh[j] = (unsigned char)(qh[j] | m1); }
                    if (l2 > 15) { l2 -= 16; qh[j] = (unsigned char)(qh[j] | m2); }
                    q[j] = (unsigned char)(l1 | (l2 << 4));
                }
                m1 <<= 2; m2 <<= 2;
                q += 32;
            }
        }
        return;
    }
    case RLX_Q6_K: {
        signed char L[256];
        float scales[16], max_scale = 0, max_abs = 0, iscale, dd;
        unsigned char *ql = b, *qh = b + 128;
        signed char* sc = (signed char*)(b + 192);
        for (j = 0; j < 16; j++) {
            scales[j] = rlx__q_make_qx(16, 32, x + 16 * j, L + 16 * j);
            if (fabsf(scales[j]) > max_abs) { max_abs = fabsf(scales[j]); max_scale = scales[j]; }
        }
        if (max_abs < 1e-15f) { memset(b, 0, 210); return; }
        iscale = -128.f / max_scale;
        rlx__qf2h(b + 208, 1 / iscale);
        for (j = 0; j < 16; j++) {
            int v = rlx__qnear(iscale * scales[j]);
            sc[j] = (signed char)(v < 127 ? v : 127);
        }
        dd = rlx__qh2f(b + 208);
        for (j = 0; j < 16; j++) {
            float d = dd * (float)sc[j];
            int ii;
            if (d == 0.f) continue;
            for (ii = 0; ii < 16; ii++) {
                int v = rlx__qnear(x[16 * j + ii] / d);
                L[16 * j + ii] = (signed char)((v < -32 ? -32 : v > 31 ? 31 : v) + 32);
            }
        }
        for (j = 0; j < 256; j += 128) {
            for (l = 0; l < 32; l++) {
                int q1 = L[j + l] & 0xF, q2 = L[j + l + 32] & 0xF, q3 = L[j + l + 64] & 0xF, q4 = L[j + l + 96] & 0xF;
                ql[l] = (unsigned char)(q1 | (q3 << 4));
                ql[l + 32] = (unsigned char)(q2 | (q4 << 4));
                qh[l] = (unsigned char)((L[j + l] >> 4) | ((L[j + l + 32] >> 4) << 2) | ((L[j + l + 64] >> 4) << 4) |
                                        ((L[j + l + 96] >> 4) << 6));
            }
            ql += 64;
            qh += 32;
        }
        return;
    }
    default: return;
    }
}

/* Dot product of n floats (n a multiple of 32 here; any n works). */
static float rlx__qdot_c(const float* a, const float* b, int64_t n) {
    float s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t i = 0;
    int j;
    for (; i + 8 <= n; i += 8)
        for (j = 0; j < 8; j++) s[j] += a[i + j] * b[i + j];
    for (; i < n; i++) s[0] += a[i] * b[i];
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}
#if defined(RLX__GEMM_X86)
RLX__TARGET_AVX2 static float rlx__qdot_avx2(const float* a, const float* b, int64_t n) {
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps(), s2 = _mm256_setzero_ps(), s3 = _mm256_setzero_ps();
    __m128 h;
    int64_t i = 0;
    float r;
    for (; i + 32 <= n; i += 32) {
        s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
        s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), s1);
        s2 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 16), _mm256_loadu_ps(b + i + 16), s2);
        s3 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 24), _mm256_loadu_ps(b + i + 24), s3);
    }
    s0 = _mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3));
    h = _mm_add_ps(_mm256_castps256_ps128(s0), _mm256_extractf128_ps(s0, 1));
    h = _mm_add_ps(h, _mm_movehl_ps(h, h));
    h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));
    r = _mm_cvtss_f32(h);
    for (; i < n; i++) r += a[i] * b[i];
    return r;
}
#endif
typedef float (*rlx__qdot_fn)(const float*, const float*, int64_t);

/* ---- fast paths: rows of x against a weight row, the weights decoded to f32 in registers --------------------
   For m < RLX__QMM_GEMM_M the weight row is decoded block by block into 8-float vectors (AVX2) that are
   multiplied into up to 4 rows of x at once (f32 products and sums: the same accuracy as the dequantized
   weight, without 8-bit activations). Every format has such a kernel; without AVX2 and F16C (or with
   RLX_NO_SIMD) whole rows are decoded with rlx__dequant_block. For m ≥ RLX__QMM_GEMM_M, tiles of weight rows are dequantized into the
   workspace and multiplied by the f32 GEMM (>>gemm). */
#define RLX__QMM_GEMM_M 16
#define RLX__QMM_TILE 128   /* weight rows per dequantized tile of the GEMM path */
#if defined(RLX__GEMM_X86)
RLX__TARGET_F16C static inline float rlx__qh2f_f16c(const unsigned char* p) {
    return _cvtsh_ss((unsigned short)(p[0] | (p[1] << 8)));
}
static int rlx__qmm_has_avx2(rlx_dtype t) {
    return t == RLX_Q4_0 || t == RLX_Q8_0 || t == RLX_Q4_K || t == RLX_Q6_K || t == RLX_Q4_1 || t == RLX_Q5_0 ||
           t == RLX_Q5_1 || t == RLX_IQ4_NL || t == RLX_Q5_K || t == RLX_IQ4_XS || t == RLX_Q2_K || t == RLX_Q3_K;
}
/* acc[r][(off/8) % na] += w · x[r*ldx + off .. +8) for r < mr: na independent sums per row hide the FMA latency */
#define RLX__QACC(wv, off)                                                                                       \
    do {                                                                                                         \
        int r_;                                                                                                  \
        __m256 w_ = (wv);                                                                                        \
        for (r_ = 0; r_ < mr; r_++)                                                                              \
            acc[r_ * na + (((off) >> 3) % na)] =                                                                 \
                _mm256_fmadd_ps(w_, _mm256_loadu_ps(x + r_ * ldx + (off)), acc[r_ * na + (((off) >> 3) % na)]);  \
    } while (0)
/* Inlined with a constant mr (rlx__qrow_avx2), so the accumulators stay in registers. */
RLX__TARGET_F16C static inline __attribute__((always_inline)) void rlx__qrow_avx2_mr(
    rlx_dtype t, const unsigned char* w, int64_t K, const float* x, int64_t ldx, const int mr, float* y, int64_t ldy) {
    __m256 acc[8];
    int64_t nb, i;
    int r;
    const int na = mr == 1 ? 4 : 2;
    const __m128i m4 = _mm_set1_epi8(0x0F);
    for (r = 0; r < 8; r++) acc[r] = _mm256_setzero_ps();
    switch (t) {
    case RLX_Q4_0:
        nb = K / 32;
        for (i = 0; i < nb; i++, w += 18, x += 32) {
            __m256 d = _mm256_set1_ps(rlx__qh2f_f16c(w));
            __m128i b = _mm_loadu_si128((const __m128i*)(const void*)(w + 2));
            __m128i lo = _mm_sub_epi8(_mm_and_si128(b, m4), _mm_set1_epi8(8));
            __m128i hi = _mm_sub_epi8(_mm_and_si128(_mm_srli_epi16(b, 4), m4), _mm_set1_epi8(8));
            __m256 q0 = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(lo));
            __m256 q1 = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(lo, 8)));
            __m256 q2 = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(hi));
            __m256 q3 = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(hi, 8)));
            for (r = 0; r < mr; r++) {   /* d · Σ x·q per block: one scale per 32 weights */
                const float* xr = x + r * ldx;
                __m256 s0 = _mm256_fmadd_ps(q1, _mm256_loadu_ps(xr + 8), _mm256_mul_ps(q0, _mm256_loadu_ps(xr)));
                __m256 s1 = _mm256_fmadd_ps(q3, _mm256_loadu_ps(xr + 24), _mm256_mul_ps(q2, _mm256_loadu_ps(xr + 16)));
                acc[r * na + (int)(i & 1) % na] = _mm256_fmadd_ps(d, _mm256_add_ps(s0, s1), acc[r * na + (int)(i & 1) % na]);
            }
        }
        break;
    case RLX_Q8_0:
        nb = K / 32;
        for (i = 0; i < nb; i++, w += 34, x += 32) {
            __m256 d = _mm256_set1_ps(rlx__qh2f_f16c(w));
            __m128i b0 = _mm_loadu_si128((const __m128i*)(const void*)(w + 2));
            __m128i b1 = _mm_loadu_si128((const __m128i*)(const void*)(w + 18));
            __m256 q0 = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(b0));
            __m256 q1 = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(b0, 8)));
            __m256 q2 = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(b1));
            __m256 q3 = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(b1, 8)));
            for (r = 0; r < mr; r++) {
                const float* xr = x + r * ldx;
                __m256 s0 = _mm256_fmadd_ps(q1, _mm256_loadu_ps(xr + 8), _mm256_mul_ps(q0, _mm256_loadu_ps(xr)));
                __m256 s1 = _mm256_fmadd_ps(q3, _mm256_loadu_ps(xr + 24), _mm256_mul_ps(q2, _mm256_loadu_ps(xr + 16)));
                acc[r * na + (int)(i & 1) % na] = _mm256_fmadd_ps(d, _mm256_add_ps(s0, s1), acc[r * na + (int)(i & 1) % na]);
            }
        }
        break;
    case RLX_Q4_K:
        nb = K / 256;
        for (i = 0; i < nb; i++, w += 144) {
            float d = rlx__qh2f_f16c(w), mn = rlx__qh2f_f16c(w + 2);
            const unsigned char* q = w + 16;
            int j;
            for (j = 0; j < 4; j++, q += 32, x += 64) {
                unsigned char sc, mm;
                __m256 d1, m1, d2, m2;
                rlx__q_scale_min_k4(2 * j, w + 4, &sc, &mm);
                d1 = _mm256_set1_ps(d * (float)sc); m1 = _mm256_set1_ps(mn * (float)mm);
                rlx__q_scale_min_k4(2 * j + 1, w + 4, &sc, &mm);
                d2 = _mm256_set1_ps(d * (float)sc); m2 = _mm256_set1_ps(mn * (float)mm);
                {   /* d1·Σx·q − m1·Σx per 32 weights (and d2, m2 for the high nibbles) */
                    __m128i b0 = _mm_loadu_si128((const __m128i*)(const void*)q);
                    __m128i b1 = _mm_loadu_si128((const __m128i*)(const void*)(q + 16));
                    __m128i l0 = _mm_and_si128(b0, m4), l1 = _mm_and_si128(b1, m4);
                    __m128i h0 = _mm_and_si128(_mm_srli_epi16(b0, 4), m4), h1 = _mm_and_si128(_mm_srli_epi16(b1, 4), m4);
                    __m256 a0 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(l0));
                    __m256 a1 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(l0, 8)));
                    __m256 a2 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(l1));
                    __m256 a3 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(l1, 8)));
                    __m256 c0 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(h0));
                    __m256 c1 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(h0, 8)));
                    __m256 c2 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(h1));
                    __m256 c3 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(h1, 8)));
                    for (r = 0; r < mr; r++) {
                        const float* xr = x + r * ldx;
                        __m256 x0 = _mm256_loadu_ps(xr), x1 = _mm256_loadu_ps(xr + 8), x2 = _mm256_loadu_ps(xr + 16),
                               x3 = _mm256_loadu_ps(xr + 24), x4 = _mm256_loadu_ps(xr + 32), x5 = _mm256_loadu_ps(xr + 40),
                               x6 = _mm256_loadu_ps(xr + 48), x7 = _mm256_loadu_ps(xr + 56);
                        __m256 sa = _mm256_fmadd_ps(a3, x3, _mm256_fmadd_ps(a2, x2, _mm256_fmadd_ps(a1, x1, _mm256_mul_ps(a0, x0))));
                        __m256 sc_ = _mm256_fmadd_ps(c3, x7, _mm256_fmadd_ps(c2, x6, _mm256_fmadd_ps(c1, x5, _mm256_mul_ps(c0, x4))));
                        __m256 xa = _mm256_add_ps(_mm256_add_ps(x0, x1), _mm256_add_ps(x2, x3));
                        __m256 xc = _mm256_add_ps(_mm256_add_ps(x4, x5), _mm256_add_ps(x6, x7));
                        __m256 t_ = _mm256_fmadd_ps(d1, sa, _mm256_mul_ps(d2, sc_));
                        t_ = _mm256_fnmadd_ps(m2, xc, _mm256_fnmadd_ps(m1, xa, t_));
                        acc[r * na + j % na] = _mm256_add_ps(acc[r * na + j % na], t_);
                    }
                }
            }
        }
        break;
    case RLX_Q6_K:
        nb = K / 256;
        for (i = 0; i < nb; i++, w += 210) {
            const unsigned char *ql = w, *qh = w + 128;
            const signed char* sc = (const signed char*)(const void*)(w + 192);
            float d = rlx__qh2f_f16c(w + 208);
            int n, l;
            for (n = 0; n < 2; n++, ql += 64, qh += 32, sc += 8, x += 128) {
                for (l = 0; l < 32; l += 16) {   /* 16 values of each quarter: bytes, then 8-float vectors */
                    int is = l / 16, o;
                    const __m128i three = _mm_set1_epi8(3), k32 = _mm_set1_epi8(32);
                    __m128i a = _mm_loadu_si128((const __m128i*)(const void*)(ql + l));
                    __m128i c = _mm_loadu_si128((const __m128i*)(const void*)(ql + l + 32));
                    __m128i e = _mm_loadu_si128((const __m128i*)(const void*)(qh + l));
                    __m128i qv[4];
                    qv[0] = _mm_sub_epi8(_mm_or_si128(_mm_and_si128(a, m4), _mm_slli_epi16(_mm_and_si128(e, three), 4)), k32);
                    qv[1] = _mm_sub_epi8(_mm_or_si128(_mm_and_si128(c, m4), _mm_slli_epi16(_mm_and_si128(_mm_srli_epi16(e, 2), three), 4)), k32);
                    qv[2] = _mm_sub_epi8(_mm_or_si128(_mm_and_si128(_mm_srli_epi16(a, 4), m4), _mm_slli_epi16(_mm_and_si128(_mm_srli_epi16(e, 4), three), 4)), k32);
                    qv[3] = _mm_sub_epi8(_mm_or_si128(_mm_and_si128(_mm_srli_epi16(c, 4), m4), _mm_slli_epi16(_mm_and_si128(_mm_srli_epi16(e, 6), three), 4)), k32);
                    for (o = 0; o < 4; o++) {
                        __m256 ds = _mm256_set1_ps(d * (float)sc[is + 2 * o]);
                        __m256 f0 = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(qv[o]));
                        __m256 f1 = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(qv[o], 8)));
                        for (r = 0; r < mr; r++) {
                            const float* xr = x + r * ldx + l + 32 * o;
                            __m256 s_ = _mm256_fmadd_ps(f1, _mm256_loadu_ps(xr + 8), _mm256_mul_ps(f0, _mm256_loadu_ps(xr)));
                            acc[r * na + o % na] = _mm256_fmadd_ps(ds, s_, acc[r * na + o % na]);
                        }
                    }
                }
            }
        }
        break;
    case RLX_Q4_1: case RLX_Q5_0: case RLX_Q5_1: case RLX_IQ4_NL: {
        /* 32 weights per block: q (int) from nibbles, a 5th bit (q5_*) or the iq4 table; w = d·q + m (q4_1, q5_1),
           d·(q − 16) (q5_0), d·table[q] (iq4_nl) */
        const int bb = t == RLX_Q4_1 ? 20 : t == RLX_Q5_0 ? 22 : t == RLX_Q5_1 ? 24 : 18;
        const int qo = t == RLX_Q4_1 ? 4 : t == RLX_Q5_0 ? 6 : t == RLX_Q5_1 ? 8 : 2;
        const int has_m = t == RLX_Q4_1 || t == RLX_Q5_1;
        const __m128i tab = _mm_loadu_si128((const __m128i*)(const void*)rlx__kvalues_iq4nl);
        const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), one = _mm256_set1_epi32(1);
        nb = K / 32;
        for (i = 0; i < nb; i++, w += bb, x += 32) {
            __m256 d = _mm256_set1_ps(rlx__qh2f_f16c(w)), mm = _mm256_set1_ps(has_m ? rlx__qh2f_f16c(w + 2) : 0.0f);
            __m128i b = _mm_loadu_si128((const __m128i*)(const void*)(w + qo));
            __m128i lo = _mm_and_si128(b, m4), hi = _mm_and_si128(_mm_srli_epi16(b, 4), m4);
            __m256i qi[4];
            __m256 qf[4];
            int g;
            if (t == RLX_IQ4_NL) { lo = _mm_shuffle_epi8(tab, lo); hi = _mm_shuffle_epi8(tab, hi); }
            qi[0] = _mm256_cvtepi8_epi32(lo);
            qi[1] = _mm256_cvtepi8_epi32(_mm_srli_si128(lo, 8));
            qi[2] = _mm256_cvtepi8_epi32(hi);
            qi[3] = _mm256_cvtepi8_epi32(_mm_srli_si128(hi, 8));
            if (t == RLX_Q5_0 || t == RLX_Q5_1) {
                uint32_t qh = rlx__qu32(w + (t == RLX_Q5_1 ? 4 : 2));
                for (g = 0; g < 4; g++) {   /* bit 8g + i of qh is the 5th bit of element 8g + i */
                    __m256i hb = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32((int)(qh >> (8 * g))), idx), one);
                    qi[g] = _mm256_or_si256(qi[g], _mm256_slli_epi32(hb, 4));
                    if (t == RLX_Q5_0) qi[g] = _mm256_sub_epi32(qi[g], _mm256_set1_epi32(16));
                }
            }
            for (g = 0; g < 4; g++) qf[g] = _mm256_cvtepi32_ps(qi[g]);
            for (r = 0; r < mr; r++) {
                const float* xr = x + r * ldx;
                __m256 x0 = _mm256_loadu_ps(xr), x1 = _mm256_loadu_ps(xr + 8), x2 = _mm256_loadu_ps(xr + 16),
                       x3 = _mm256_loadu_ps(xr + 24);
                __m256 s_ = _mm256_fmadd_ps(qf[3], x3, _mm256_fmadd_ps(qf[2], x2, _mm256_fmadd_ps(qf[1], x1, _mm256_mul_ps(qf[0], x0))));
                __m256 a_ = _mm256_fmadd_ps(d, s_, acc[r * na + (int)(i & 1) % na]);
                if (has_m) a_ = _mm256_fmadd_ps(mm, _mm256_add_ps(_mm256_add_ps(x0, x1), _mm256_add_ps(x2, x3)), a_);
                acc[r * na + (int)(i & 1) % na] = a_;
            }
        }
        break;
    }
    case RLX_Q5_K:
        nb = K / 256;
        for (i = 0; i < nb; i++, w += 176) {
            float d = rlx__qh2f_f16c(w), mn = rlx__qh2f_f16c(w + 2);
            const unsigned char* q = w + 48;
            __m128i qh0 = _mm_loadu_si128((const __m128i*)(const void*)(w + 16));
            __m128i qh1 = _mm_loadu_si128((const __m128i*)(const void*)(w + 32));
            const __m128i bit = _mm_set1_epi8(1);
            int j;
            for (j = 0; j < 4; j++, q += 32, x += 64) {   /* bits 2j and 2j+1 of qh: the 5th bits of this chunk */
                unsigned char sc, mm;
                __m256 d1, m1, d2, m2;
                __m128i c1 = _mm_cvtsi32_si128(2 * j), c2 = _mm_cvtsi32_si128(2 * j + 1);
                __m128i b0 = _mm_loadu_si128((const __m128i*)(const void*)q);
                __m128i b1 = _mm_loadu_si128((const __m128i*)(const void*)(q + 16));
                __m128i l0 = _mm_or_si128(_mm_and_si128(b0, m4), _mm_slli_epi16(_mm_and_si128(_mm_srl_epi16(qh0, c1), bit), 4));
                __m128i l1 = _mm_or_si128(_mm_and_si128(b1, m4), _mm_slli_epi16(_mm_and_si128(_mm_srl_epi16(qh1, c1), bit), 4));
                __m128i h0 = _mm_or_si128(_mm_and_si128(_mm_srli_epi16(b0, 4), m4), _mm_slli_epi16(_mm_and_si128(_mm_srl_epi16(qh0, c2), bit), 4));
                __m128i h1 = _mm_or_si128(_mm_and_si128(_mm_srli_epi16(b1, 4), m4), _mm_slli_epi16(_mm_and_si128(_mm_srl_epi16(qh1, c2), bit), 4));
                __m256 a0 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(l0));
                __m256 a1 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(l0, 8)));
                __m256 a2 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(l1));
                __m256 a3 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(l1, 8)));
                __m256 e0 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(h0));
                __m256 e1 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(h0, 8)));
                __m256 e2 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(h1));
                __m256 e3 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(h1, 8)));
                rlx__q_scale_min_k4(2 * j, w + 4, &sc, &mm);
                d1 = _mm256_set1_ps(d * (float)sc); m1 = _mm256_set1_ps(mn * (float)mm);
                rlx__q_scale_min_k4(2 * j + 1, w + 4, &sc, &mm);
                d2 = _mm256_set1_ps(d * (float)sc); m2 = _mm256_set1_ps(mn * (float)mm);
                for (r = 0; r < mr; r++) {
                    const float* xr = x + r * ldx;
                    __m256 x0 = _mm256_loadu_ps(xr), x1 = _mm256_loadu_ps(xr + 8), x2 = _mm256_loadu_ps(xr + 16),
                           x3 = _mm256_loadu_ps(xr + 24), x4 = _mm256_loadu_ps(xr + 32), x5 = _mm256_loadu_ps(xr + 40),
                           x6 = _mm256_loadu_ps(xr + 48), x7 = _mm256_loadu_ps(xr + 56);
                    __m256 sa = _mm256_fmadd_ps(a3, x3, _mm256_fmadd_ps(a2, x2, _mm256_fmadd_ps(a1, x1, _mm256_mul_ps(a0, x0))));
                    __m256 se = _mm256_fmadd_ps(e3, x7, _mm256_fmadd_ps(e2, x6, _mm256_fmadd_ps(e1, x5, _mm256_mul_ps(e0, x4))));
                    __m256 xa = _mm256_add_ps(_mm256_add_ps(x0, x1), _mm256_add_ps(x2, x3));
                    __m256 xc = _mm256_add_ps(_mm256_add_ps(x4, x5), _mm256_add_ps(x6, x7));
                    __m256 t_ = _mm256_fmadd_ps(d1, sa, _mm256_mul_ps(d2, se));
                    t_ = _mm256_fnmadd_ps(m2, xc, _mm256_fnmadd_ps(m1, xa, t_));
                    acc[r * na + j % na] = _mm256_add_ps(acc[r * na + j % na], t_);
                }
            }
        }
        break;
    case RLX_IQ4_XS: {
        const __m128i tab = _mm_loadu_si128((const __m128i*)(const void*)rlx__kvalues_iq4nl);
        nb = K / 256;
        for (i = 0; i < nb; i++, w += 136) {
            float d = rlx__qh2f_f16c(w);
            unsigned sh = (unsigned)(w[2] | (w[3] << 8));
            const unsigned char* qs = w + 8;
            int ib;
            for (ib = 0; ib < 8; ib++, qs += 16, x += 32) {   /* 8 sub-blocks of 32, 6-bit scales */
                int ls = ((w[4 + ib / 2] >> (4 * (ib % 2))) & 0xF) | (int)(((sh >> (2 * ib)) & 3u) << 4);
                __m256 dl = _mm256_set1_ps(d * (float)(ls - 32));
                __m128i b = _mm_loadu_si128((const __m128i*)(const void*)qs);
                __m128i lo = _mm_shuffle_epi8(tab, _mm_and_si128(b, m4));
                __m128i hi = _mm_shuffle_epi8(tab, _mm_and_si128(_mm_srli_epi16(b, 4), m4));
                __m256 q0 = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(lo));
                __m256 q1 = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(lo, 8)));
                __m256 q2 = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(hi));
                __m256 q3 = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(hi, 8)));
                for (r = 0; r < mr; r++) {
                    const float* xr = x + r * ldx;
                    __m256 s0 = _mm256_fmadd_ps(q1, _mm256_loadu_ps(xr + 8), _mm256_mul_ps(q0, _mm256_loadu_ps(xr)));
                    __m256 s1 = _mm256_fmadd_ps(q3, _mm256_loadu_ps(xr + 24), _mm256_mul_ps(q2, _mm256_loadu_ps(xr + 16)));
                    acc[r * na + ib % na] = _mm256_fmadd_ps(dl, _mm256_add_ps(s0, s1), acc[r * na + ib % na]);
                }
            }
        }
        break;
    }
    case RLX_Q2_K: case RLX_Q3_K: {
        /* 16 values per (128-chunk, shift, half): q2_K w = d·(s & 15)·q − dmin·(s >> 4); q3_K w = d·(s − 32)·q with
           q = 2 bits − (hmask bit ? 0 : 4) */
        const int three = t == RLX_Q3_K;
        const __m128i k3 = _mm_set1_epi8(3), k4 = _mm_set1_epi8(4), zero = _mm_setzero_si128();
        nb = K / 256;
        for (i = 0; i < nb; i++, w += three ? 110 : 84) {
            const unsigned char *q = w + (three ? 32 : 16), *hm = w, *s12 = w + 96;
            float d = rlx__qh2f_f16c(w + (three ? 108 : 80)), mn = three ? 0.0f : rlx__qh2f_f16c(w + 82);
            int n, sh, h, is = 0, bitn = 0;
            for (n = 0; n < 2; n++, q += 32)
                for (sh = 0; sh < 8; sh += 2, bitn++)
                    for (h = 0; h < 2; h++, is++, x += 16) {
                        __m128i v = _mm_and_si128(_mm_srl_epi16(_mm_loadu_si128((const __m128i*)(const void*)(q + 16 * h)),
                                                                _mm_cvtsi32_si128(sh)), k3);
                        __m256 f0, f1, dl, ml;
                        if (three) {
                            __m128i hb = _mm_and_si128(_mm_loadu_si128((const __m128i*)(const void*)(hm + 16 * h)),
                                                       _mm_set1_epi8((char)(1 << bitn)));
                            int lo = is < 8 ? (s12[is] & 0xF) : (s12[is - 8] >> 4);
                            int hi = (s12[8 + is % 4] >> (2 * (is / 4))) & 3;
                            v = _mm_sub_epi8(v, _mm_and_si128(_mm_cmpeq_epi8(hb, zero), k4));
                            dl = _mm256_set1_ps(d * (float)((lo | (hi << 4)) - 32));
                            ml = _mm256_setzero_ps();
                        } else {
                            dl = _mm256_set1_ps(d * (float)(w[is] & 0xF));
                            ml = _mm256_set1_ps(mn * (float)(w[is] >> 4));
                        }
                        f0 = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v));
                        f1 = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(v, 8)));
                        for (r = 0; r < mr; r++) {
                            const float* xr = x + r * ldx;
                            __m256 x0 = _mm256_loadu_ps(xr), x1 = _mm256_loadu_ps(xr + 8);
                            __m256 a_ = _mm256_fmadd_ps(dl, _mm256_fmadd_ps(f1, x1, _mm256_mul_ps(f0, x0)), acc[r * na + is % na]);
                            if (!three) a_ = _mm256_fnmadd_ps(ml, _mm256_add_ps(x0, x1), a_);
                            acc[r * na + is % na] = a_;
                        }
                    }
        }
        break;
    }
    default: break;
    }
    for (r = 0; r < mr; r++) {
        __m256 a_ = na == 4 ? _mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3]))
                            : _mm256_add_ps(acc[2 * r], acc[2 * r + 1]);
        __m128 h = _mm_add_ps(_mm256_castps256_ps128(a_), _mm256_extractf128_ps(a_, 1));
        h = _mm_add_ps(h, _mm_movehl_ps(h, h));
        h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));
        y[r * ldy] = _mm_cvtss_f32(h);
    }
}
#undef RLX__QACC
RLX__TARGET_F16C static void rlx__qrow_avx2(rlx_dtype t, const unsigned char* w, int64_t K, const float* x,
                                            int64_t ldx, int mr, float* y, int64_t ldy) {
    switch (mr) {
    case 1: rlx__qrow_avx2_mr(t, w, K, x, ldx, 1, y, ldy); return;
    case 2: rlx__qrow_avx2_mr(t, w, K, x, ldx, 2, y, ldy); return;
    case 3: rlx__qrow_avx2_mr(t, w, K, x, ldx, 3, y, ldy); return;
    default: rlx__qrow_avx2_mr(t, w, K, x, ldx, 4, y, ldy); return;
    }
}
#endif

/* ---- 8-bit activations: integer dot products per block (m < RLX__QMM_GEMM_M, AVX2) -------------------------
   For q4_0, q8_0, q4_K and q6_K the rows of x are quantized once per call to ggml's vec_dot_type of the weight,
   computed as ggml-cpu computes it: q8_0 for the 32-blocks (per 32 values m = max|x|, q = x · (127 / m) rounded
   to nearest even, d = m / 127 rounded to f16), Q8_K for the K-quants (per 256 values the x of largest |x|
   gives iscale = −127 / x, q = min(127, round(iscale · x)), d = 1 / iscale in f32, and Σq per 16 for the
   minimums and q6_K's offset of 32). The weight's integers are multiplied into x's with maddubs/madd (8-bit products, 16-bit pair sums,
   32-bit sums; the K-quants' 6-bit sub-block scales enter the integer sums through madd) and each block's sum
   is scaled by d_w · d_x in f32, in the same lanes and order as ggml's AVX2 vec_dot, so the result is ggml's.
   q4_0 and q8_0 take vpdpbusd (rlx__qrow8_vnni) where the CPU has AVX-512 VNNI and VL: the same lane sums.
   A call whose x holds a NaN or an infinity keeps the f32 path. */
#if defined(RLX__GEMM_X86)
static int rlx__qmm_has_q8(rlx_dtype t) { return t == RLX_Q4_0 || t == RLX_Q8_0 || t == RLX_Q4_K || t == RLX_Q6_K; }
/* 32 floats → 4 × 8 int32 rounded to nearest even after × mul; 0 when one is not finite */
#define RLX__Q8_ROUND(v) _mm256_cvtps_epi32(_mm256_round_ps((v), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC))
/* 4 × 8 int32 in [-127, 127] → 32 int8 in element order */
RLX__TARGET_F16C static inline void rlx__q8_pack(__m256i i0, __m256i i1, __m256i i2, __m256i i3, signed char* q) {
    __m256i t = _mm256_packs_epi16(_mm256_packs_epi32(i0, i1), _mm256_packs_epi32(i2, i3));   /* lanes interleaved */
    t = _mm256_permutevar8x32_epi32(t, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    _mm256_storeu_si256((__m256i*)(void*)q, t);
}
RLX__TARGET_F16C static inline int rlx__q8_hsum(__m256i t) {
    __m128i t4 = _mm_add_epi32(_mm256_castsi256_si128(t), _mm256_extracti128_si256(t, 1));
    t4 = _mm_add_epi32(t4, _mm_shuffle_epi32(t4, 0x4E));
    t4 = _mm_add_epi32(t4, _mm_shuffle_epi32(t4, 0xB1));
    return _mm_cvtsi128_si32(t4);
}
/* x [M, K] → q [M, K] int8 and d; q8_0 (kq = 0): d [M, K/32]; Q8_K (kq = 1): d [M, K/256] and s [M, K/16] = Σq
   per 16. Returns 0 (and nothing usable) when x holds a value that is not finite. */
RLX__TARGET_F16C static int rlx__q8x_quant(const float* x, int64_t M, int64_t K, int kq, signed char* q, float* d,
                                           int16_t* s) {
    const int64_t n = M * K;
    int64_t i;
    int j;
    for (i = 0; i < n; i++)
        if (!(x[i] <= 3.402823466e38f && x[i] >= -3.402823466e38f)) return 0;   /* NaN or ±inf */
    if (!kq) {
        const __m256 sign = _mm256_set1_ps(-0.0f);
        for (i = 0; i < n / 32; i++, x += 32, q += 32) {
            __m256 v0 = _mm256_loadu_ps(x), v1 = _mm256_loadu_ps(x + 8), v2 = _mm256_loadu_ps(x + 16), v3 = _mm256_loadu_ps(x + 24);
            __m256 a = _mm256_max_ps(_mm256_max_ps(_mm256_andnot_ps(sign, v0), _mm256_andnot_ps(sign, v1)),
                                     _mm256_max_ps(_mm256_andnot_ps(sign, v2), _mm256_andnot_ps(sign, v3)));
            __m128 h = _mm_max_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
            __m256 mul;
            float amax;
            h = _mm_max_ps(h, _mm_movehl_ps(h, h));
            h = _mm_max_ss(h, _mm_shuffle_ps(h, h, 1));
            amax = _mm_cvtss_f32(h);
            d[i] = _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtps_ph(_mm_div_ss(h, _mm_set_ss(127.0f)), 0)));   /* via f16 */
            mul = amax != 0.0f ? _mm256_set1_ps(_mm_cvtss_f32(_mm_div_ss(_mm_set_ss(127.0f), h))) : _mm256_setzero_ps();
            rlx__q8_pack(RLX__Q8_ROUND(_mm256_mul_ps(v0, mul)), RLX__Q8_ROUND(_mm256_mul_ps(v1, mul)),
                         RLX__Q8_ROUND(_mm256_mul_ps(v2, mul)), RLX__Q8_ROUND(_mm256_mul_ps(v3, mul)), q);
        }
        return 1;
    }
    /* ggml's nearest_int(iscale · x) as its -march builds compile it: x · iscale + 1.5·2^23 in one FMA */
#define RLX__Q8_NEAR(v)                                                                                          \
    _mm256_sub_epi32(_mm256_and_si256(_mm256_castps_si256(_mm256_fmadd_ps((v), mul, magic)), mant), half)
    const __m256 magic = _mm256_set1_ps(12582912.0f);
    const __m256i mant = _mm256_set1_epi32(0x007FFFFF), half = _mm256_set1_epi32(0x00400000);
    for (i = 0; i < n / 256; i++, x += 256, q += 256, s += 16) {
        float amax = 0.0f, mx = 0.0f;
        __m128 is;
        __m256 mul;
        const __m256i lim = _mm256_set1_epi32(127);
        for (j = 0; j < 256; j++) {   /* the first value of largest magnitude, with its sign */
            float a = x[j] < 0 ? -x[j] : x[j];
            if (a > amax) { amax = a; mx = x[j]; }
        }
        if (amax == 0.0f) {
            d[i] = 0.0f;
            memset(q, 0, 256);
            for (j = 0; j < 16; j++) s[j] = 0;
            continue;
        }
        is = _mm_div_ss(_mm_set_ss(-127.0f), _mm_set_ss(mx));
        d[i] = _mm_cvtss_f32(_mm_div_ss(_mm_set_ss(1.0f), is));
        mul = _mm256_set1_ps(_mm_cvtss_f32(is));
        for (j = 0; j < 8; j++) {
            const float* xj = x + 32 * j;
            __m256i i0 = _mm256_min_epi32(RLX__Q8_NEAR(_mm256_loadu_ps(xj)), lim);
            __m256i i1 = _mm256_min_epi32(RLX__Q8_NEAR(_mm256_loadu_ps(xj + 8)), lim);
            __m256i i2 = _mm256_min_epi32(RLX__Q8_NEAR(_mm256_loadu_ps(xj + 16)), lim);
            __m256i i3 = _mm256_min_epi32(RLX__Q8_NEAR(_mm256_loadu_ps(xj + 24)), lim);
            s[2 * j] = (int16_t)rlx__q8_hsum(_mm256_add_epi32(i0, i1));
            s[2 * j + 1] = (int16_t)rlx__q8_hsum(_mm256_add_epi32(i2, i3));
            rlx__q8_pack(i0, i1, i2, i3, q + 32 * j);
        }
    }
    return 1;
}
#undef RLX__Q8_ROUND
#undef RLX__Q8_NEAR
/* Σ over 32 int8 pairs as 8 int32: |w| · (x with w's sign), the usual maddubs sign trick (x is never -128) */
#define RLX__Q8DOT(wq, xv) _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_sign_epi8((wq), (wq)), _mm256_sign_epi8((xv), (wq))), ones)
RLX__TARGET_F16C static inline __attribute__((always_inline)) void rlx__qrow8_avx2_mr(
    rlx_dtype t, const unsigned char* w, int64_t K, const signed char* xq, const float* xd, const int16_t* xs,
    const int mr, float* y, int64_t ldy) {
    __m256 acc[4];
    __m128 macc[4];
    const int64_t nbx = K / 32;
    const __m256i ones = _mm256_set1_epi16(1), m4 = _mm256_set1_epi8(0x0F);
    int64_t nb, i;
    int r;
    for (r = 0; r < 4; r++) { acc[r] = _mm256_setzero_ps(); macc[r] = _mm_setzero_ps(); }
    switch (t) {
    case RLX_Q4_0:
        for (i = 0; i < nbx; i++, w += 18) {
            float dw = rlx__qh2f_f16c(w);
            __m128i b = _mm_loadu_si128((const __m128i*)(const void*)(w + 2));
            __m256i wq = _mm256_inserti128_si256(_mm256_castsi128_si256(b), _mm_srli_epi16(b, 4), 1);
            wq = _mm256_sub_epi8(_mm256_and_si256(wq, m4), _mm256_set1_epi8(8));
            for (r = 0; r < mr; r++) {
                __m256i xv = _mm256_loadu_si256((const __m256i*)(const void*)(xq + r * K + 32 * i));
                acc[r] = _mm256_fmadd_ps(_mm256_set1_ps(dw * xd[r * nbx + i]), _mm256_cvtepi32_ps(RLX__Q8DOT(wq, xv)), acc[r]);
            }
        }
        break;
    case RLX_Q8_0:
        for (i = 0; i < nbx; i++, w += 34) {
            float dw = rlx__qh2f_f16c(w);
            __m256i wq = _mm256_loadu_si256((const __m256i*)(const void*)(w + 2));
            for (r = 0; r < mr; r++) {
                __m256i xv = _mm256_loadu_si256((const __m256i*)(const void*)(xq + r * K + 32 * i));
                acc[r] = _mm256_fmadd_ps(_mm256_set1_ps(dw * xd[r * nbx + i]), _mm256_cvtepi32_ps(RLX__Q8DOT(wq, xv)), acc[r]);
            }
        }
        break;
    case RLX_Q4_K:   /* x in Q8_K: xd per 256, xs = Σq per 16 */
        nb = K / 256;
        for (i = 0; i < nb; i++, w += 144) {
            float dw = rlx__qh2f_f16c(w), mw = rlx__qh2f_f16c(w + 2);
            /* the 8 6-bit scales and mins of the 12 scale bytes, 4 at a time in 32-bit words */
            uint32_t u0 = rlx__qu32(w + 4), u1 = rlx__qu32(w + 8), u2 = rlx__qu32(w + 12);
            __m128i sm = _mm_cvtepu8_epi16(_mm_setr_epi32(
                (int)(u0 & 0x3F3F3F3Fu), (int)((u2 & 0x0F0F0F0Fu) | (((u0 >> 6) & 0x03030303u) << 4)),
                (int)(u1 & 0x3F3F3F3Fu), (int)(((u2 >> 4) & 0x0F0F0F0Fu) | (((u1 >> 6) & 0x03030303u) << 4))));
            __m128i mins = _mm_cvtepu8_epi16(_mm_srli_si128(_mm_setr_epi32(
                (int)(u0 & 0x3F3F3F3Fu), (int)((u2 & 0x0F0F0F0Fu) | (((u0 >> 6) & 0x03030303u) << 4)),
                (int)(u1 & 0x3F3F3F3Fu), (int)(((u2 >> 4) & 0x0F0F0F0Fu) | (((u1 >> 6) & 0x03030303u) << 4))), 8));
            __m256i scales = _mm256_inserti128_si256(_mm256_castsi128_si256(sm), sm, 1);   /* sc 0..7 as int16 */
            __m256i scl[8];
            int c;
            for (c = 0; c < 8; c++) scl[c] = _mm256_shuffle_epi8(scales, _mm256_set1_epi16((short)(0x0100 + 0x0202 * c)));
            for (r = 0; r < mr; r++) {   /* Σ_j d·sc_j·(q_w · q_x)_j − dmin·Σ_j m_j·Σq_x,j */
                const signed char* xr = xq + r * K + 256 * i;
                float dx = xd[r * nb + i];
                __m256i sumi = _mm256_setzero_si256();
                const int16_t* bs = xs + r * (K / 16) + 16 * i;
                __m128i prod = _mm_madd_epi16(mins, _mm_hadd_epi16(_mm_loadu_si128((const __m128i*)(const void*)bs),
                                                                   _mm_loadu_si128((const __m128i*)(const void*)(bs + 8))));
                macc[r] = _mm_fmadd_ps(_mm_set1_ps(-dx * mw), _mm_cvtepi32_ps(prod), macc[r]);
                for (c = 0; c < 4; c++) {   /* 32 bytes: low nibbles are sub-block 2c, high nibbles 2c + 1 */
                    __m256i b = _mm256_loadu_si256((const __m256i*)(const void*)(w + 16 + 32 * c));
                    __m256i lo = _mm256_and_si256(b, m4), hi = _mm256_and_si256(_mm256_srli_epi16(b, 4), m4);
                    __m256i pl = _mm256_madd_epi16(scl[2 * c],
                                                   _mm256_maddubs_epi16(lo, _mm256_loadu_si256((const __m256i*)(const void*)(xr + 64 * c))));
                    __m256i ph = _mm256_madd_epi16(scl[2 * c + 1],
                                                   _mm256_maddubs_epi16(hi, _mm256_loadu_si256((const __m256i*)(const void*)(xr + 64 * c + 32))));
                    sumi = _mm256_add_epi32(sumi, _mm256_add_epi32(pl, ph));
                }
                acc[r] = _mm256_fmadd_ps(_mm256_set1_ps(dx * dw), _mm256_cvtepi32_ps(sumi), acc[r]);
            }
        }
        break;
    case RLX_Q6_K: {   /* x in Q8_K */
        const __m256i m3 = _mm256_set1_epi8(3);
        nb = K / 256;
        for (i = 0; i < nb; i++, w += 210) {
            const signed char* sc = (const signed char*)(const void*)(w + 192);
            float dw = rlx__qh2f_f16c(w + 208);
            __m256i sumi[4];
            int n, k;
            for (r = 0; r < mr; r++) sumi[r] = _mm256_setzero_si256();
            for (n = 0; n < 2; n++) {
                const unsigned char *ql = w + 64 * n, *qh = w + 128 + 32 * n;
                __m256i l0 = _mm256_loadu_si256((const __m256i*)(const void*)ql);
                __m256i l1 = _mm256_loadu_si256((const __m256i*)(const void*)(ql + 32));
                __m256i h = _mm256_loadu_si256((const __m256i*)(const void*)qh);
                __m256i g[4];   /* the 4 groups of 32 values of this 128-chunk, q in [0, 63] (the 32 comes off at the end) */
                g[0] = _mm256_or_si256(_mm256_and_si256(l0, m4), _mm256_slli_epi16(_mm256_and_si256(h, m3), 4));
                g[1] = _mm256_or_si256(_mm256_and_si256(l1, m4), _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(h, 2), m3), 4));
                g[2] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l0, 4), m4),
                                       _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(h, 4), m3), 4));
                g[3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l1, 4), m4),
                                       _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(h, 6), m3), 4));
                for (k = 0; k < 4; k++) {   /* group k: values 0..15 scaled by sc[2k], 16..31 by sc[2k + 1] */
                    __m256i scv = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_set1_epi16(sc[8 * n + 2 * k])),
                                                          _mm_set1_epi16(sc[8 * n + 2 * k + 1]), 1);
                    for (r = 0; r < mr; r++) {
                        __m256i xv = _mm256_loadu_si256((const __m256i*)(const void*)(xq + r * K + 256 * i + 128 * n + 32 * k));
                        sumi[r] = _mm256_add_epi32(sumi[r], _mm256_madd_epi16(_mm256_maddubs_epi16(g[k], xv), scv));
                    }
                }
            }
            for (r = 0; r < mr; r++) {   /* minus 32 · Σ sc · Σq_x per 16 */
                __m256i off = _mm256_madd_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i*)(const void*)sc)),
                                                _mm256_loadu_si256((const __m256i*)(const void*)(xs + r * (K / 16) + 16 * i)));
                sumi[r] = _mm256_sub_epi32(sumi[r], _mm256_slli_epi32(off, 5));
                acc[r] = _mm256_fmadd_ps(_mm256_set1_ps(xd[r * nb + i] * dw), _mm256_cvtepi32_ps(sumi[r]), acc[r]);
            }
        }
        break;
    }
    default: break;
    }
    for (r = 0; r < mr; r++) {
        __m128 h = _mm_add_ps(_mm256_castps256_ps128(acc[r]), _mm256_extractf128_ps(acc[r], 1));
        h = _mm_add_ps(h, _mm_movehl_ps(h, h));
        h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));
        macc[r] = _mm_add_ps(macc[r], _mm_movehl_ps(macc[r], macc[r]));
        macc[r] = _mm_add_ss(macc[r], _mm_shuffle_ps(macc[r], macc[r], 1));
        y[r * ldy] = _mm_cvtss_f32(h) + _mm_cvtss_f32(macc[r]);
    }
}
#undef RLX__Q8DOT
RLX__TARGET_F16C static void rlx__qrow8_avx2(rlx_dtype t, const unsigned char* w, int64_t K, const signed char* xq,
                                             const float* xd, const int16_t* xs, int mr, float* y, int64_t ldy) {
    switch (mr) {
    case 1: rlx__qrow8_avx2_mr(t, w, K, xq, xd, xs, 1, y, ldy); return;
    case 2: rlx__qrow8_avx2_mr(t, w, K, xq, xd, xs, 2, y, ldy); return;
    case 3: rlx__qrow8_avx2_mr(t, w, K, xq, xd, xs, 3, y, ldy); return;
    default: rlx__qrow8_avx2_mr(t, w, K, xq, xd, xs, 4, y, ldy); return;
    }
}
/* q4_0 and q8_0 with AVX-512 VNNI (and VL): vpdpbusd sums the four u8 · s8 products of each 32-bit lane, the
   lanes that maddubs + madd give (the same integers, one instruction instead of two); the rest as above. */
#define RLX__TARGET_Q8VNNI __attribute__((target("avx2,fma,f16c,avx512f,avx512vl,avx512bw,avx512vnni")))
RLX__TARGET_Q8VNNI static inline __attribute__((always_inline)) void rlx__qrow8_vnni_mr(
    rlx_dtype t, const unsigned char* w, int64_t K, const signed char* xq, const float* xd, const int mr, float* y,
    int64_t ldy) {
    __m256 acc[4];
    const int64_t nbx = K / 32;
    const int q4 = t == RLX_Q4_0;
    const __m256i m4 = _mm256_set1_epi8(0x0F), zero = _mm256_setzero_si256();
    int64_t i;
    int r;
    for (r = 0; r < 4; r++) acc[r] = _mm256_setzero_ps();
    for (i = 0; i < nbx; i++, w += q4 ? 18 : 34) {
        float dw = rlx__qh2f_f16c(w);
        __m256i wq, aw;
        if (q4) {
            __m128i b = _mm_loadu_si128((const __m128i*)(const void*)(w + 2));
            wq = _mm256_inserti128_si256(_mm256_castsi128_si256(b), _mm_srli_epi16(b, 4), 1);
            wq = _mm256_sub_epi8(_mm256_and_si256(wq, m4), _mm256_set1_epi8(8));
        } else {
            wq = _mm256_loadu_si256((const __m256i*)(const void*)(w + 2));
        }
        aw = _mm256_sign_epi8(wq, wq);
        for (r = 0; r < mr; r++) {
            __m256i xv = _mm256_loadu_si256((const __m256i*)(const void*)(xq + r * K + 32 * i));
            __m256i p = _mm256_dpbusd_epi32(zero, aw, _mm256_sign_epi8(xv, wq));
            acc[r] = _mm256_fmadd_ps(_mm256_set1_ps(dw * xd[r * nbx + i]), _mm256_cvtepi32_ps(p), acc[r]);
        }
    }
    for (r = 0; r < mr; r++) {
        __m128 h = _mm_add_ps(_mm256_castps256_ps128(acc[r]), _mm256_extractf128_ps(acc[r], 1));
        h = _mm_add_ps(h, _mm_movehl_ps(h, h));
        h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));
        y[r * ldy] = _mm_cvtss_f32(h);
    }
}
RLX__TARGET_Q8VNNI static void rlx__qrow8_vnni(rlx_dtype t, const unsigned char* w, int64_t K, const signed char* xq,
                                               const float* xd, int mr, float* y, int64_t ldy) {
    switch (mr) {
    case 1: rlx__qrow8_vnni_mr(t, w, K, xq, xd, 1, y, ldy); return;
    case 2: rlx__qrow8_vnni_mr(t, w, K, xq, xd, 2, y, ldy); return;
    case 3: rlx__qrow8_vnni_mr(t, w, K, xq, xd, 3, y, ldy); return;
    default: rlx__qrow8_vnni_mr(t, w, K, xq, xd, 4, y, ldy); return;
    }
}
#undef RLX__TARGET_Q8VNNI
#endif

#define RLX__QMM_ROWS 16   /* weight rows dequantized per task */
typedef struct rlx__qmm_job {
    rlx_dtype wt;
    int64_t M, N, K;
    size_t row_bytes;
    const float* x;
    const unsigned char* w;
    float* y;
    float* ws;   /* RLX__QMM_ROWS × K floats per thread; the GEMM path: the tile */
    rlx__qdot_fn dot;
    int fast;    /* rlx__qrow_avx2 has this format and the CPU has AVX2 */
    int q8;      /* rlx__qrow8_avx2 with x quantized to xq, xd, xs (8-bit activations) */
    int vnni;    /* q8 for q4_0 / q8_0 through rlx__qrow8_vnni (the CPU has AVX-512 VNNI and VL) */
    const signed char* xq;
    const float* xd;
    const int16_t* xs;   /* K-quants: Σq per 16 */
    int64_t n0;  /* GEMM path: first weight row of the tile */
} rlx__qmm_job;

static void rlx__dequant_row(rlx_dtype t, const unsigned char* b, float* y, int64_t n) {
    int64_t be = (int64_t)rlx__qblock[t - RLX_Q4_0][0], bb = (int64_t)rlx__qblock[t - RLX_Q4_0][1], i;
    for (i = 0; i < n / be; i++) rlx__dequant_block(t, b + (size_t)(i * bb), y + i * be);
}

static void rlx__qmm_task(void* ctx, int64_t task, int thread) {
    const rlx__qmm_job* j = (const rlx__qmm_job*)ctx;
    int64_t n0 = task * RLX__QMM_ROWS, nr = j->N - n0 < RLX__QMM_ROWS ? j->N - n0 : RLX__QMM_ROWS, r, m;
    float* tile = j->ws + (size_t)thread * (size_t)RLX__QMM_ROWS * (size_t)j->K;
#if defined(RLX__GEMM_X86)
    if (j->vnni) {
        for (r = 0; r < nr; r++)
            for (m = 0; m < j->M; m += 4)
                rlx__qrow8_vnni(j->wt, j->w + (size_t)(n0 + r) * j->row_bytes, j->K, j->xq + (size_t)(m * j->K),
                                j->xd + (size_t)(m * (j->K / 32)), (int)(j->M - m < 4 ? j->M - m : 4),
                                j->y + (size_t)(m * j->N + n0 + r), j->N);
        return;
    }
    if (j->q8) {
        for (r = 0; r < nr; r++)
            for (m = 0; m < j->M; m += 4)
                rlx__qrow8_avx2(j->wt, j->w + (size_t)(n0 + r) * j->row_bytes, j->K, j->xq + (size_t)(m * j->K),
                                j->xd + (size_t)(m * (j->K / (j->wt == RLX_Q4_K || j->wt == RLX_Q6_K ? 256 : 32))),
                                j->xs + (size_t)(m * (j->K / 16)),
                                (int)(j->M - m < 4 ? j->M - m : 4), j->y + (size_t)(m * j->N + n0 + r), j->N);
        return;
    }
    if (j->fast) {
        for (r = 0; r < nr; r++)
            for (m = 0; m < j->M; m += 4)
                rlx__qrow_avx2(j->wt, j->w + (size_t)(n0 + r) * j->row_bytes, j->K, j->x + (size_t)(m * j->K), j->K,
                               (int)(j->M - m < 4 ? j->M - m : 4), j->y + (size_t)(m * j->N + n0 + r), j->N);
        return;
    }
#endif
    for (r = 0; r < nr; r++)
        rlx__dequant_row(j->wt, j->w + (size_t)(n0 + r) * j->row_bytes, tile + (size_t)(r * j->K), j->K);
    for (m = 0; m < j->M; m++) {
        const float* xr = j->x + (size_t)(m * j->K);
        float* yr = j->y + (size_t)(m * j->N + n0);
        for (r = 0; r < nr; r++) yr[r] = j->dot(xr, tile + (size_t)(r * j->K), j->K);
    }
}

/* GEMM path: dequantize 8 rows of the tile per task */
static void rlx__qmm_tile_task(void* ctx, int64_t task, int thread) {
    const rlx__qmm_job* j = (const rlx__qmm_job*)ctx;
    int64_t r;
    RLX__UNUSED(thread);
    for (r = task * 8; r < task * 8 + 8 && j->n0 + r < j->N && r < RLX__QMM_TILE; r++)
        rlx__dequant_row(j->wt, j->w + (size_t)(j->n0 + r) * j->row_bytes, j->ws + (size_t)(r * j->K), j->K);
}

/* m < RLX__QMM_GEMM_M: bytes of x quantized to 8 bits (q, then d and Σq per 32), 64-aligned */
static size_t rlx__qmm_q8_bytes(int64_t M, int64_t K) {
    return rlx__round_up(rlx__szadd(rlx__round_up(rlx__szmul((size_t)M, (size_t)K), 64),
                                    rlx__szmul(rlx__szmul((size_t)M, (size_t)(K / 32)), 8)), 64);
}
static size_t rlx__ws_quant(const rlx_graph* g, const rlx__node* nd, int nthreads) {
    const rlx__node* w = rlx__N(g, rlx__in(g, nd, 1));
    int64_t M = rlx__node_numel(nd) / w->shape[0];
    if (M >= RLX__QMM_GEMM_M)   /* the tile, then the GEMM's own workspace */
        return rlx__szadd(rlx__round_up(rlx__szmul(RLX__QMM_TILE, rlx__szmul((size_t)w->shape[1], sizeof(float))), 64),
                          rlx__sgemm_workspace_bytes(nthreads));
    return rlx__szadd(rlx__qmm_q8_bytes(M, w->shape[1]),   /* x in 8 bits, then the per-thread f32 rows */
                      rlx__szmul(rlx__szmul((size_t)nthreads, RLX__QMM_ROWS), rlx__szmul((size_t)w->shape[1], sizeof(float))));
}

/* cast to or from a block dtype, and matmul_quant. */
static void rlx__k_quant(const rlx_graph* g, const rlx__node* nd, void* const* in, void* out, rlx__pool* pool, void* ws) {
    const rlx__node* n0 = rlx__N(g, rlx__in(g, nd, 0));
    if (nd->op == RLX_OP_MATMUL_QUANT) {
        const rlx__node* nw = rlx__N(g, rlx__in(g, nd, 1));
        rlx__qmm_job j;
        j.wt = nw->dtype;
        j.N = nw->shape[0];
        j.K = nw->shape[1];
        j.M = rlx__node_numel(n0) / j.K;
        j.row_bytes = (size_t)(j.K / (int64_t)rlx__qblock[j.wt - RLX_Q4_0][0]) * rlx__qblock[j.wt - RLX_Q4_0][1];
        j.x = (const float*)in[0];
        j.w = (const unsigned char*)in[1];
        j.y = (float*)out;
        j.ws = (float*)ws;
        j.dot = rlx__qdot_c;
        j.fast = 0;
        j.n0 = 0;
        j.q8 = 0;
        j.vnni = 0;
        j.xq = NULL;
        j.xd = NULL;
        j.xs = NULL;
#if defined(RLX__GEMM_X86)
        if (rlx__cpu_features() & RLX__CPU_AVX2) {
            j.dot = rlx__qdot_avx2;
            j.fast = (rlx__cpu_features_half() & RLX__CPU_F16C) && rlx__qmm_has_avx2(j.wt);
        }
        if (j.fast && j.M < RLX__QMM_GEMM_M && rlx__qmm_has_q8(j.wt)) {
            size_t qb = rlx__round_up(rlx__szmul((size_t)j.M, (size_t)j.K), 64);
            j.xq = (const signed char*)ws;
            j.xd = (const float*)(const void*)((const char*)ws + qb);
            j.xs = (const int16_t*)(const void*)((const char*)ws + qb + (size_t)(j.M * (j.K / 32)) * sizeof(float));
            j.q8 = rlx__q8x_quant(j.x, j.M, j.K, j.wt == RLX_Q4_K || j.wt == RLX_Q6_K, (signed char*)ws,
                                  (float*)(void*)((char*)ws + qb),
                                  (int16_t*)(void*)((char*)ws + qb + (size_t)(j.M * (j.K / 32)) * sizeof(float)));
            j.vnni = j.q8 && (j.wt == RLX_Q4_0 || j.wt == RLX_Q8_0) && (rlx__cpu_features() & RLX__CPU_AVX512VNNI) &&
                     __builtin_cpu_supports("avx512vl");
        }
#endif
        pool = rlx__pool_if(pool, (double)j.M * (double)j.N * (double)j.K);
        if (j.M >= RLX__QMM_GEMM_M) {
            void* gws = (char*)ws + rlx__round_up(rlx__szmul(RLX__QMM_TILE, rlx__szmul((size_t)j.K, sizeof(float))), 64);
            for (j.n0 = 0; j.n0 < j.N; j.n0 += RLX__QMM_TILE) {
                int64_t nt = j.N - j.n0 < RLX__QMM_TILE ? j.N - j.n0 : RLX__QMM_TILE;
                rlx__parallel_for(pool, (nt + 7) / 8, rlx__qmm_tile_task, &j);
                rlx__sgemm(pool, gws, j.M, nt, j.K, j.x, j.K, 1, j.ws, 1, j.K, j.y + j.n0, j.N);
            }
            return;
        }
        j.ws = (float*)(void*)((char*)ws + rlx__qmm_q8_bytes(j.M, j.K));
        rlx__parallel_for(pool, (j.N + RLX__QMM_ROWS - 1) / RLX__QMM_ROWS, rlx__qmm_task, &j);
        return;
    }
    {   /* cast: block by block along the last axis */
        int quant_out = rlx__is_quant(nd->dtype);
        rlx_dtype qt = quant_out ? nd->dtype : n0->dtype;
        int64_t be = (int64_t)rlx__qblock[qt - RLX_Q4_0][0], nb = rlx__node_numel(nd) / be, i, k;
        size_t bb = rlx__qblock[qt - RLX_Q4_0][1];
        float tmp[256];
        for (i = 0; i < nb; i++) {
            if (quant_out) {
                rlx__quant_block(qt, (const float*)in[0] + i * be, (unsigned char*)out + (size_t)i * bb);
            } else if (nd->dtype == RLX_F32) {
                rlx__dequant_block(qt, (const unsigned char*)in[0] + (size_t)i * bb, (float*)out + i * be);
            } else {
                uint16_t* o = (uint16_t*)out + i * be;
                rlx__dequant_block(qt, (const unsigned char*)in[0] + (size_t)i * bb, tmp);
                for (k = 0; k < be; k++) o[k] = rlx__f32_bits_to_f16(tmp[k]);
            }
        }
    }
}

/* ------------------------------------------------------------------------------------------------------------
   >>runtime
   A program = an immutable compiled core (optimised graph + plan + step list, shared by clones) + weights
   (params and constants; shared or copied by clones) + its own arena, workspace, thread pool and pointers.
   ------------------------------------------------------------------------------------------------------------ */
typedef struct rlx__core {
    rlx_allocator al;
    int refs;
    rlx_graph* ir;          /* optimised graph: the program's nodes, names and outputs */
    rlx__plan plan;
    int* in_off;            /* per step: first entry of its input list in a program's stepin[]; the list has
                               nin + 1 entries: the last is the step's second output (EXTRA) or NULL */
    int nstepin;
    int* extra_of;          /* per node: index of its EXTRA (second output) node, or -1 */
    rlx_store* store;       /* the store params/states are bound to (one reference), or NULL */
    int* sidx;              /* per node: index of its store tensor, or -1 (NULL without a store) */
} rlx__core;

/* >>store helpers used here (defined in the >>store section) */
static void rlx__store_release(rlx_store* s);
static void* rlx__store_host(const rlx_store* s, int idx);
static void rlx__store_retain(rlx_store* s);
static RLX__MAYBE_UNUSED uint64_t rlx__store_dev(const rlx_store* s, int idx);

typedef struct rlx__weights {
    rlx_allocator al;
    int refs;
    void* raw;
    unsigned char* base;
    unsigned char* set;     /* per node: param was set */
    unsigned gen;           /* bumped by every set_param (GPU programs re-upload when it moved) */
} rlx__weights;

struct rlx_program {
    long busy;               /* 1 while a call is inside (rlx__program_enter): a concurrent call gets RLX_ERROR_BUSY */
    rlx_allocator al;
    rlx__core* core;
    rlx__weights* w;
    void *arena_raw, *ws_raw, *state_raw;
    unsigned char* arena;
    unsigned char* state;    /* persistent states, zero after compile */
    void* ws;
    size_t ws_bytes;
    rlx__pool* pool;
    int nthreads;
    void** ptr;              /* per node: where its data lives */
    void** stepin;           /* per step input pointers, resolved once */
    unsigned char* input_set;/* per node */
    int ran;
    void* gpu;               /* rlx__gpu_prog of a CUDA/HIP program, NULL on the CPU */
    rlx_device device;
    char reason[512];
    char msg[512];
    rlx_thread_pool* tp;     /* the shared pool `pool` belongs to (one reference), or NULL: pool is the program's */
    /* profiling (rlx_program_profile_enable): NULL / 0 while it was never turned on */
    int prof_on;
    int prof_runs;           /* profiled runs summed in the totals */
    double* prof;            /* nsteps + 1 marks of the last run (us, any origin), then per step start, dur, total */
    rlx_result prof_status;  /* RLX_OK, or why the device cannot time its steps (prof_why) */
    char prof_why[200];
};

static rlx_result rlx__perr(rlx_program* p, rlx_result r, const char* fmt, ...) {
    va_list ap;
    if (!p) return r;
    va_start(ap, fmt);
    rlx__vfmt(p->msg, sizeof p->msg, fmt, ap);
    va_end(ap);
    return r;
}

/* state_write positions: the update's len rows go to [off, off + len) along the axis, which must lie inside
   the state's dim rows. A batch row (or, with a scalar offset, the whole write) whose offset does not fit is
   not written, and the run reports it with rlx__sw_error. */
static int rlx__sw_fits(int64_t off, int64_t len, int64_t dim) { return off >= 0 && off <= dim - len; }

/* First offset of state_write node nd that does not fit: 1 and *row (batch row, or -1 for a scalar offset)
   and *off set, else 0. offv is the offset tensor's data. */
static int rlx__sw_find_bad(const rlx_graph* ir, const rlx__node* nd, const void* offv, int64_t* row, int64_t* off) {
    const rlx__node *nu = rlx__N(ir, rlx__in(ir, nd, 1)), *no = rlx__N(ir, rlx__in(ir, nd, 2));
    const int a = (int)nd->ia[0];
    const int64_t n = nd->ia[1] > 0 ? rlx__node_numel(no) : 1;
    int64_t k;
    for (k = 0; k < n; k++) {
        const int64_t o = rlx__load_i64(offv, no->dtype, k);
        if (!rlx__sw_fits(o, nu->shape[a], nd->shape[a])) { *row = nd->ia[1] > 0 ? k : -1; *off = o; return 1; }
    }
    return 0;
}

/* The run's error for an offset of state_write node ni (IR index) that does not fit. */
static rlx_result rlx__sw_error(rlx_program* p, const rlx_graph* ir, int ni, int64_t row, int64_t off) {
    const rlx__node *nd = &ir->nodes[ni], *root = nd;
    const int a = (int)nd->ia[0];
    const int64_t len = rlx__N(ir, rlx__in(ir, nd, 1))->shape[a], dim = nd->shape[a];
    char where[64];
    while (root->op == RLX_OP_STATE_WRITE) root = rlx__N(ir, rlx__in(ir, root, 0));
    where[0] = 0;
    if (row >= 0) snprintf(where, sizeof where, " of batch row %lld", (long long)row);
    return rlx__perr(p, RLX_ERROR_OUT_OF_RANGE,
                     "run: state_write into state '%s' (node %d): offset %lld%s puts rows [%lld, %lld + %lld) outside "
                     "the state's %lld along axis %d; %s not written",
                     root->op == RLX_OP_STATE && root->name ? root->name : "?", ni + 1, (long long)off, where,
                     (long long)off, (long long)off, (long long)len, (long long)dim, a,
                     row >= 0 ? "that batch row was" : "the update was");
}

static void rlx__core_release(rlx__core* c) {
    rlx_allocator al;
    if (!c || RLX__ATOMIC_ADD(&c->refs, -1) > 0) return;
    al = c->al;
    rlx__plan_free(&al, &c->plan);
    rlx_graph_destroy(c->ir);
    rlx__free(&al, c->in_off);
    rlx__free(&al, c->extra_of);
    rlx__free(&al, c->sidx);
    rlx__free(&al, c);
}
static void rlx__weights_release(rlx__weights* w) {
    rlx_allocator al;
    if (!w || RLX__ATOMIC_ADD(&w->refs, -1) > 0) return;
    al = w->al;
    rlx__free(&al, w->raw);
    rlx__free(&al, w->set);
    rlx__free(&al, w);
}
static rlx__weights* rlx__weights_new(const rlx_allocator* al, const rlx__core* c) {
    rlx__weights* w = (rlx__weights*)rlx__calloc(al, sizeof *w);
    if (!w) return NULL;
    w->al = *al;
    w->refs = 1;
    w->base = (unsigned char*)rlx__alloc_aligned(al, c->plan.weight_bytes, &w->raw);
    w->set = (unsigned char*)rlx__calloc(al, (size_t)c->ir->n + 1);
    if (!w->base || !w->set) { rlx__weights_release(w); return NULL; }
    return w;
}

static void rlx__gpu_destroy(rlx_program* p);

RLXDEF void rlx_program_destroy(rlx_program* p) {
    rlx_allocator al;
    if (!p) return;
    al = p->al;
    rlx__gpu_destroy(p);
    if (p->tp) rlx__tp_release(p->tp);
    else rlx__pool_destroy(&al, p->pool);
    rlx__weights_release(p->w);
    if (p->core) rlx__store_release(p->core->store);   /* a program holds one reference on its store */
    rlx__core_release(p->core);
    rlx__free(&al, p->arena_raw);
    rlx__free(&al, p->ws_raw);
    rlx__free(&al, p->state_raw);
    rlx__free(&al, p->ptr);
    rlx__free(&al, p->stepin);
    rlx__free(&al, p->input_set);
    rlx__free(&al, p->prof);
    rlx__free(&al, p);
}

/* Make the per-program parts (arena, workspace, pool, pointer tables) for core c with weights w. */
/* Point every node at its memory: weights, states or the arena (views at their root). */
static void rlx__program_bind(rlx_program* p) {
    const rlx__core* c = p->core;
    const rlx_graph* ir = c->ir;
    int i, s, k;
    for (i = 0; i < ir->n; i++) {
        const rlx__buf* b = &c->plan.bufs[i];
        if (b->kind == RLX_BUFFER_VIEW) p->ptr[i] = p->ptr[b->root] ? (char*)p->ptr[b->root] + b->offset : NULL;
        else if (c->sidx && c->sidx[i] >= 0) p->ptr[i] = rlx__store_host(c->store, c->sidx[i]);   /* NULL on a GPU */
        else if (b->kind == RLX_BUFFER_PARAM || b->kind == RLX_BUFFER_CONSTANT) p->ptr[i] = p->w->base + b->offset;
        else if (b->kind == RLX_BUFFER_STATE) p->ptr[i] = p->state + b->offset;
        else p->ptr[i] = p->arena + b->offset;
    }
    for (s = 0; s < c->plan.nsteps; s++) {
        int ni = c->plan.steps[s];
        const rlx__node* nd = &ir->nodes[ni];
        for (k = 0; k < nd->nin; k++) p->stepin[c->in_off[s] + k] = p->ptr[rlx__in(ir, nd, k) - 1];
        p->stepin[c->in_off[s] + nd->nin] = c->extra_of[ni] >= 0 ? p->ptr[c->extra_of[ni]] : NULL;
    }
}

/* nthreads = 0: a GPU program (no CPU pool or workspace; its host memory only mirrors the device's). tp: a
   shared pool for a CPU program (nthreads is then its size), or NULL. */
static rlx_result rlx__program_new(const rlx_allocator* al, rlx__core* c, rlx__weights* w, int nthreads,
                                   rlx_thread_pool* tp, rlx_program** out) {
    rlx_program* p = (rlx_program*)rlx__calloc(al, sizeof *p);
    const rlx_graph* ir = c->ir;
    int s;
    if (!p) return RLX_ERROR_OUT_OF_MEMORY;
    p->al = *al;
    p->core = c;
    p->w = w;
    RLX__ATOMIC_ADD(&c->refs, 1);
    RLX__ATOMIC_ADD(&w->refs, 1);
    if (c->store) rlx__store_retain(c->store);
    p->nthreads = nthreads;
    if (tp && nthreads > 0) {
        p->tp = tp;
        RLX__ATOMIC_ADD(&tp->refs, 1);
        p->pool = tp->pool;
    } else {
        p->pool = nthreads > 1 ? rlx__pool_create(al, nthreads) : NULL;
    }
    p->nthreads = rlx__pool_threads(p->pool);
    p->ws_bytes = 0;
    for (s = 0; s < c->plan.nsteps && nthreads > 0; s++) {
        size_t b = rlx__node_workspace(ir, &ir->nodes[c->plan.steps[s]], p->nthreads);
        if (b > p->ws_bytes) p->ws_bytes = b;
    }
    p->arena = (unsigned char*)rlx__alloc_aligned(al, c->plan.arena_bytes, &p->arena_raw);
    p->ws = p->ws_bytes ? rlx__alloc_aligned(al, p->ws_bytes, &p->ws_raw) : NULL;
    p->state = (unsigned char*)rlx__alloc_aligned(al, c->plan.state_bytes, &p->state_raw);
    if (p->state) memset(p->state, 0, c->plan.state_bytes);
    p->ptr = (void**)rlx__calloc(al, sizeof(void*) * (size_t)(ir->n + 1));
    p->stepin = (void**)rlx__calloc(al, sizeof(void*) * (size_t)(c->nstepin + 1));
    p->input_set = (unsigned char*)rlx__calloc(al, (size_t)ir->n + 1);
    if (!p->arena || (p->ws_bytes && !p->ws) || !p->state || !p->ptr || !p->stepin || !p->input_set) {
        rlx_program_destroy(p);
        return RLX_ERROR_OUT_OF_MEMORY;
    }
    rlx__program_bind(p);
    *out = p;
    return RLX_OK;
}

/* ---- profiling: the host clock and the per-run bookkeeping (the public calls are at the end of the file) ----
   RLX_PROFILE_CLOCK() (a double expression: microseconds of a monotonic clock) replaces the default clock:
   QueryPerformanceCounter on Windows, clock_gettime(CLOCK_MONOTONIC) where <time.h> declares it (POSIX, C++,
   gnu C modes), else gettimeofday (strict ISO C modes on POSIX; not monotonic: negative steps read as 0). */
#if !defined(RLX_PROFILE_CLOCK)
#  include <time.h>
#  if defined(_WIN32)
#    ifndef WIN32_LEAN_AND_MEAN
#      define WIN32_LEAN_AND_MEAN
#    endif
#    include <windows.h>
static double rlx__prof_clock(void) {
    LARGE_INTEGER f, c;
    QueryPerformanceFrequency(&f);
    QueryPerformanceCounter(&c);
    return (double)c.QuadPart * 1e6 / (double)f.QuadPart;
}
#  elif defined(CLOCK_MONOTONIC)
static double rlx__prof_clock(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}
#  else
#    include <sys/time.h>
static double rlx__prof_clock(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec * 1e6 + (double)tv.tv_usec;
}
#  endif
#  define RLX_PROFILE_CLOCK() rlx__prof_clock()
#endif

/* Turns start/dur/total of every step out of the marks of the run that just finished: nsteps + 1 values,
   mark s = start of step s, mark nsteps = end of the last step. */
static void rlx__prof_commit(rlx_program* p) {
    int s, n = p->core->plan.nsteps;
    double *mk = p->prof, *start = mk + n + 1, *dur = start + n, *total = dur + n;
    for (s = 0; s < n; s++) {
        double a = mk[s] - mk[0], d = mk[s + 1] - mk[s];
        start[s] = a == a && a > 0.0 && a < 1e300 ? a : 0.0;   /* NaN, negative or infinite read as 0 */
        dur[s] = d == d && d > 0.0 && d < 1e300 ? d : 0.0;
        total[s] += dur[s];
    }
    p->prof_runs++;
}

/* on: allocate the buffers (once), clear the sums. Off keeps the buffers for a later enable. */
static rlx_result rlx__prof_enable(rlx_program* p, int on) {
    size_t n = (size_t)p->core->plan.nsteps;
    if (!on) { p->prof_on = 0; return RLX_OK; }
    if (!p->prof) {
        p->prof = (double*)rlx__calloc(&p->al, rlx__szmul(rlx__szmul(4, rlx__szadd(n, 1)), sizeof(double)));
        if (!p->prof) return rlx__perr(p, RLX_ERROR_OUT_OF_MEMORY, "profile_enable: out of memory for %zu steps", n);
    }
    memset(p->prof, 0, sizeof(double) * 4 * (n + 1));
    p->prof_runs = 0;
    p->prof_on = 1;
    return RLX_OK;
}



/* ------------------------------------------------------------------------------------------------------------
   >>dl  (run-time loading of GPU drivers; the only process-wide state of rlx.h is what is loaded here)
   ------------------------------------------------------------------------------------------------------------ */
#if defined(RLX__HAS_VULKAN)
#  if !defined(RLX_VOLK_EXTERNAL) && !defined(VOLK_IMPLEMENTATION)
#    define VOLK_IMPLEMENTATION
#  endif
#  if defined(__GNUC__) || defined(__clang__)
#    pragma GCC diagnostic push
#    pragma GCC diagnostic ignored "-Wpedantic"
#    pragma GCC diagnostic ignored "-Wshadow"
#    pragma GCC diagnostic ignored "-Wunused-function"
#  endif
#  include <volk.h>
#  if defined(__GNUC__) || defined(__clang__)
#    pragma GCC diagnostic pop
#  endif
#endif

#if !defined(RLX_NO_CUDA) || !defined(RLX_NO_HIP) || defined(RLX__HAS_VULKAN)
#  define RLX__HAS_GPU 1
#  if defined(_WIN32)
#    ifndef WIN32_LEAN_AND_MEAN
#      define WIN32_LEAN_AND_MEAN
#    endif
#    include <windows.h>
static RLX__MAYBE_UNUSED void* rlx__dlopen(const char* name) { return (void*)LoadLibraryA(name); }
static RLX__MAYBE_UNUSED void* rlx__dlsym_raw(void* lib, const char* name) {
    FARPROC f = GetProcAddress((HMODULE)lib, name);
    void* p;
    memcpy(&p, &f, sizeof p);
    return p;
}
#  else
#    include <dlfcn.h>
static RLX__MAYBE_UNUSED void* rlx__dlopen(const char* name) { return dlopen(name, RTLD_NOW | RTLD_LOCAL); }
static RLX__MAYBE_UNUSED void* rlx__dlsym_raw(void* lib, const char* name) { return dlsym(lib, name); }
#  endif
/* Opens the first library of a NULL-terminated list; `which` receives its name. */
static RLX__MAYBE_UNUSED void* rlx__dlopen_first(const char* const* names, const char** which) {
    int i;
    for (i = 0; names[i]; i++) {
        void* h = rlx__dlopen(names[i]);
        if (h) { if (which) *which = names[i]; return h; }
    }
    return NULL;
}
/* Resolves a symbol into a function pointer variable (object→function pointer through memcpy, which ISO C
   allows where a cast would not). Returns 0 when missing. */
#  define RLX__DLSYM(lib, var, name) \
    (rlx__dl_tmp = rlx__dlsym_raw((lib), (name)), memcpy(&(var), &rlx__dl_tmp, sizeof(var)), rlx__dl_tmp != NULL)

#  if !defined(RLX_NO_THREADS) && !defined(_WIN32)
static RLX__MAYBE_UNUSED pthread_mutex_t rlx__dl_mutex = PTHREAD_MUTEX_INITIALIZER;
#    define RLX__DL_LOCK() pthread_mutex_lock(&rlx__dl_mutex)
#    define RLX__DL_UNLOCK() pthread_mutex_unlock(&rlx__dl_mutex)
#  elif !defined(RLX_NO_THREADS) && defined(_WIN32)
static RLX__MAYBE_UNUSED SRWLOCK rlx__dl_lock = SRWLOCK_INIT;
#    define RLX__DL_LOCK() AcquireSRWLockExclusive(&rlx__dl_lock)
#    define RLX__DL_UNLOCK() ReleaseSRWLockExclusive(&rlx__dl_lock)
#  else
#    define RLX__DL_LOCK() ((void)0)
#    define RLX__DL_UNLOCK() ((void)0)
#  endif
#endif

/* ------------------------------------------------------------------------------------------------------------
   >>gpu  (shared by CUDA and HIP: one device allocation per program laid out like the CPU's memory —
   [weights | states | arena | scratch] — every step lowered once to kernel launches, replayed per run)
   ------------------------------------------------------------------------------------------------------------ */
#if defined(RLX__HAS_GPU)
/* The driver calls a GPU backend needs, as thin wrappers (CUDA driver API or HIP runtime). */
typedef struct rlx__gpuapi {
    rlx_device kind;
    rlx_result (*set_device)(int index, void** ctx);              /* make the device current, retain context */
    void (*release_device)(int index, void* ctx);
    rlx_result (*mem_alloc)(uint64_t* p, size_t n);
    void (*mem_free)(uint64_t p);
    rlx_result (*htod)(uint64_t dst, const void* src, size_t n);
    rlx_result (*dtoh)(void* dst, uint64_t src, size_t n);
    rlx_result (*memset0)(uint64_t dst, size_t n);
    void* (*host_alloc)(size_t n);                                 /* pinned host memory or NULL */
    void (*host_free)(void* p);
    rlx_result (*module_load)(const char* module, int sm, void** mod, char* msg, size_t cap);
    void (*module_unload)(void* mod);
    rlx_result (*function)(void* mod, const char* name, void** fn);
    rlx_result (*launch)(void* fn, const unsigned* grid, const unsigned* block, unsigned shmem, void* stream, void* args);
    rlx_result (*stream_create)(void** s);
    void (*stream_destroy)(void* s);
    rlx_result (*sync)(void* s);
    /* optional: record the launches once as a graph and replay it (NULL where the driver lacks graphs) */
    rlx_result (*graph_begin)(void* s);
    rlx_result (*graph_end)(void* s, void** exec);
    rlx_result (*graph_launch)(void* exec, void* s);
    void (*graph_destroy)(void* exec);
    const char* (*last_error)(void);                               /* message of the last failed call */
    rlx_result (*make_current)(int index, void* ctx);              /* this thread now talks to that device */
    int graph_only;                                                /* launches only inside a recorded graph */
    /* optional (profiling): n timestamps in stream order; NULL where the backend has none */
    rlx_result (*timer_create)(void* s, int n, void** t, char* why, size_t cap);  /* RLX_ERROR_UNSUPPORTED + why */
    void (*timer_destroy)(void* t);
    rlx_result (*timer_stamp)(void* t, int k, void* s);            /* stamp k after the work issued so far */
    rlx_result (*timer_read)(void* t, int n, double* us);          /* after sync: us since stamp 0 */
} rlx__gpuapi;

typedef struct rlx__gpu_prog {
    const rlx__gpuapi* api;
    int index;
    void* ctx;
    void* stream;
    uint64_t dmem;                  /* one device allocation */
    size_t dbytes, off_weights, off_state, off_arena, off_scratch;
    uint64_t* addr;                 /* per node: device address */
    rlx__launch* launches;
    void** fns;                     /* per launch */
    int nlaunch;
    void* mods[16];
    const char* modnames[16];
    int nmods;
    void* graph;                    /* instantiated launch graph, or NULL */
    void* pinned;                   /* pinned host arena mirror (NULL: plain memory) */
    unsigned weights_gen;           /* rlx__weights.gen last uploaded */
    int sm;
    size_t off_err;                 /* state_write error word (RLX__GPU_ERR_BYTES) or 0 when no step writes a state */
    int* step_first;                /* per step: its first launch; [nsteps] = nlaunch (profiling) */
    void* timer;                    /* nsteps + 1 timestamps, made by the first profiled run */
    void* prof_graph;               /* graph_only backends: the launches recorded with the timestamps */
    int failed;                     /* launch that rlx__gpu_launch_all saw fail, -1 if none */
} rlx__gpu_prog;

/* The run-time error word of a GPU program: u32 0 = IR node index + 1 of the first state_write whose offset
   did not fit (set once by atomic compare-and-swap, 0 = none), u32 1 = its batch row + 1 (0 for a scalar
   offset), u32 2-3 = the offset (i64). Read back after every run of a program that writes a state, cleared
   when set. */
#define RLX__GPU_ERR_BYTES 256

static RLX__MAYBE_UNUSED rlx_result rlx__gpu_fail(rlx_program* p, const rlx__gpuapi* api, rlx_result r, const char* what) {
    return rlx__perr(p, r, "%s: %s failed: %s", rlx_device_name(api->kind), what, api->last_error());
}

static RLX__MAYBE_UNUSED void rlx__gpu_destroy(rlx_program* p) {
    rlx__gpu_prog* gp = (rlx__gpu_prog*)p->gpu;
    int i;
    if (!gp) return;
    if (gp->ctx || gp->stream) gp->api->make_current(gp->index, gp->ctx);   /* programs may move between threads */
    if (gp->graph && gp->api->graph_destroy) gp->api->graph_destroy(gp->graph);
    if (gp->prof_graph && gp->api->graph_destroy) gp->api->graph_destroy(gp->prof_graph);
    if (gp->timer) gp->api->timer_destroy(gp->timer);
    for (i = 0; i < gp->nmods; i++) gp->api->module_unload(gp->mods[i]);
    if (gp->dmem) gp->api->mem_free(gp->dmem);
    if (gp->stream) gp->api->stream_destroy(gp->stream);
    if (gp->pinned) gp->api->host_free(gp->pinned);
    if (gp->ctx || gp->api) gp->api->release_device(gp->index, gp->ctx);
    rlx__free(&p->al, gp->addr);
    rlx__free(&p->al, gp->launches);
    rlx__free(&p->al, gp->fns);
    rlx__free(&p->al, gp->step_first);
    rlx__free(&p->al, gp);
    p->gpu = NULL;
}

/* Module handle for `name`, loaded on first use and cached per program. */
/* Kernel modules are loaded once per process and device (JIT of embedded PTX or a hipRTC compile costs far
   more than a program's setup) and stay loaded; the cache holds one extra reference on the device context so
   they outlive every program. */
typedef struct rlx__modcache_entry { rlx_device kind; int index; const char* name; void* mod; } rlx__modcache_entry;
static RLX__MAYBE_UNUSED rlx__modcache_entry rlx__modcache[64];
static RLX__MAYBE_UNUSED int rlx__modcache_n;

static RLX__MAYBE_UNUSED rlx_result rlx__gpu_module(rlx_program* p, rlx__gpu_prog* gp, const char* name, void** mod) {
    int i, have_ctx = 0;
    rlx_result r;
    char msg[256];
    RLX__DL_LOCK();
    for (i = 0; i < rlx__modcache_n; i++) {
        const rlx__modcache_entry* e = &rlx__modcache[i];
        if (e->kind == gp->api->kind && e->index == gp->index) {
            have_ctx = 1;
            if (strcmp(e->name, name) == 0) { *mod = e->mod; RLX__DL_UNLOCK(); return RLX_OK; }
        }
    }
    if (rlx__modcache_n >= 64) { RLX__DL_UNLOCK(); return rlx__perr(p, RLX_ERROR_INTERNAL, "gpu: too many kernel modules"); }
    if (!have_ctx) {   /* the cache's own reference on the context */
        void* ctx = NULL;
        if ((r = gp->api->set_device(gp->index, &ctx)) != RLX_OK) { RLX__DL_UNLOCK(); return rlx__gpu_fail(p, gp->api, r, "selecting the device"); }
    }
    msg[0] = 0;
    r = gp->api->module_load(name, gp->sm, mod, msg, sizeof msg);
    if (r != RLX_OK) {
        RLX__DL_UNLOCK();
        return rlx__perr(p, r, "%s: loading kernel module '%s' failed: %s", rlx_device_name(gp->api->kind), name, msg);
    }
    rlx__modcache[rlx__modcache_n].kind = gp->api->kind;
    rlx__modcache[rlx__modcache_n].index = gp->index;
    rlx__modcache[rlx__modcache_n].name = name;
    rlx__modcache[rlx__modcache_n].mod = *mod;
    rlx__modcache_n++;
    RLX__DL_UNLOCK();
    return RLX_OK;
}

static RLX__MAYBE_UNUSED rlx_result rlx__gpu_launch_all(rlx__gpu_prog* gp) {
    int i;
    gp->failed = -1;
    for (i = 0; i < gp->nlaunch; i++) {
        rlx__launch* L = &gp->launches[i];
        void* args[1];
        rlx_result r;
        args[0] = &L->args;
        r = gp->api->launch(gp->fns[i], L->grid, L->block, L->shmem, gp->stream, args);
        if (r != RLX_OK) { gp->failed = i; return r; }
    }
    return RLX_OK;
}
/* A failed launch names its node and kernel; any other failure is reported as rlx__gpu_fail does. */
static RLX__MAYBE_UNUSED rlx_result rlx__gpu_launch_fail(rlx_program* p, rlx__gpu_prog* gp, rlx_result r, const char* what) {
    char ref[320];
    const rlx__launch* L;
    if (gp->failed < 0 || gp->failed >= gp->nlaunch) return rlx__gpu_fail(p, gp->api, r, what);
    L = &gp->launches[gp->failed];
    rlx__ir_node_ref(ref, sizeof ref, p->core->ir, &p->core->ir->nodes[L->node]);
    return rlx__perr(p, r, "%s: %s failed at %s (kernel '%s'): %s", rlx_device_name(gp->api->kind), what, ref, L->kernel,
                     gp->api->last_error());
}

/* Sets up device memory and lowers every step; p's host structures (mirrors, ptr table) already exist. */
static RLX__MAYBE_UNUSED rlx_result rlx__gpu_init(rlx_program* p, const rlx__gpuapi* api, int index, int sm,
                                size_t (*scratch)(const rlx_graph*, const rlx__node*, int),
                                int (*lower)(const rlx_graph*, const rlx__node*, const uint64_t*, uint64_t, int, rlx__launch*, int)) {
    const rlx__core* c = p->core;
    const rlx_graph* ir = c->ir;
    rlx__gpu_prog* gp = (rlx__gpu_prog*)rlx__calloc(&p->al, sizeof *gp);
    size_t* node_scratch = NULL;
    int i, s, cap;
    rlx_result r;
    if (!gp) return rlx__perr(p, RLX_ERROR_OUT_OF_MEMORY, "gpu: out of memory");
    p->gpu = gp;
    gp->api = api;
    gp->index = index;
    gp->sm = sm;
    gp->failed = -1;
    r = api->set_device(index, &gp->ctx);
    if (r != RLX_OK) return rlx__gpu_fail(p, api, r, "selecting the device");
    if ((r = api->stream_create(&gp->stream)) != RLX_OK) return rlx__gpu_fail(p, api, r, "creating a stream");
    /* layout */
    node_scratch = (size_t*)rlx__calloc(&p->al, sizeof(size_t) * (size_t)(ir->n + 1));
    gp->addr = (uint64_t*)rlx__calloc(&p->al, sizeof(uint64_t) * (size_t)(ir->n + 1));
    if (!node_scratch || !gp->addr) { rlx__free(&p->al, node_scratch); return rlx__perr(p, RLX_ERROR_OUT_OF_MEMORY, "gpu: out of memory"); }
    gp->off_weights = 0;
    gp->off_state = rlx__align_up(c->plan.weight_bytes);
    gp->off_arena = gp->off_state + rlx__align_up(c->plan.state_bytes);
    gp->off_scratch = gp->off_arena + rlx__align_up(c->plan.arena_bytes);
    gp->dbytes = gp->off_scratch;
    for (s = 0; s < c->plan.nsteps; s++) {
        int ni = c->plan.steps[s];
        size_t b = scratch(ir, &ir->nodes[ni], sm);
        node_scratch[ni] = b ? gp->dbytes : 0;   /* scratch is not shared between steps: simple and safe */
        gp->dbytes = rlx__szadd(gp->dbytes, rlx__align_up(b));   /* SIZE_MAX (no allocation) on overflow */
        if (ir->nodes[ni].op == RLX_OP_STATE_WRITE) gp->off_err = 1;
    }
    if (gp->off_err) {   /* the error word goes last */
        gp->off_err = gp->dbytes;
        gp->dbytes = rlx__szadd(gp->dbytes, RLX__GPU_ERR_BYTES);
    }
    r = api->mem_alloc(&gp->dmem, gp->dbytes ? gp->dbytes : 64);
    if (r != RLX_OK) {
        rlx__free(&p->al, node_scratch);
        return rlx__perr(p, RLX_ERROR_OUT_OF_MEMORY, "%s: cannot allocate %zu bytes of device memory: %s",
                         rlx_device_name(api->kind), gp->dbytes, api->last_error());
    }
    for (i = 0; i < ir->n; i++) {
        const rlx__buf* b = &c->plan.bufs[i];
        if (c->sidx && c->sidx[i] >= 0) { gp->addr[i] = rlx__store_dev(c->store, c->sidx[i]); continue; }   /* >>store */
        switch (b->kind) {
        case RLX_BUFFER_VIEW: gp->addr[i] = gp->addr[b->root] + b->offset; break;
        case RLX_BUFFER_PARAM: case RLX_BUFFER_CONSTANT: gp->addr[i] = gp->dmem + gp->off_weights + b->offset; break;
        case RLX_BUFFER_STATE: gp->addr[i] = gp->dmem + gp->off_state + b->offset; break;
        default: gp->addr[i] = gp->dmem + gp->off_arena + b->offset; break;
        }
    }
    /* lower every step */
    cap = c->plan.nsteps * 4 + 128;
    gp->launches = (rlx__launch*)rlx__calloc(&p->al, sizeof(rlx__launch) * (size_t)cap);
    gp->step_first = (int*)rlx__calloc(&p->al, sizeof(int) * (size_t)(c->plan.nsteps + 1));
    if (!gp->launches || !gp->step_first) { rlx__free(&p->al, node_scratch); return rlx__perr(p, RLX_ERROR_OUT_OF_MEMORY, "gpu: out of memory"); }
    for (s = 0; s < c->plan.nsteps; s++) {
        int ni = c->plan.steps[s], n;
        uint64_t scr = node_scratch[ni] ? gp->dmem + node_scratch[ni] : 0;
        if (gp->nlaunch + 96 > cap) {
            rlx__launch* nl = (rlx__launch*)rlx__calloc(&p->al, sizeof(rlx__launch) * (size_t)cap * 2);
            if (!nl) { rlx__free(&p->al, node_scratch); return rlx__perr(p, RLX_ERROR_OUT_OF_MEMORY, "gpu: out of memory"); }
            memcpy(nl, gp->launches, sizeof(rlx__launch) * (size_t)gp->nlaunch);
            rlx__free(&p->al, gp->launches);
            gp->launches = nl;
            cap *= 2;
        }
        gp->step_first[s] = gp->nlaunch;
        n = lower(ir, &ir->nodes[ni], gp->addr, scr, sm, gp->launches + gp->nlaunch, 96);
        if (n > 96 || n <= 0) {
            char ref[320];
            rlx__ir_node_ref(ref, sizeof ref, ir, &ir->nodes[ni]);
            rlx__free(&p->al, node_scratch);
            if (n > 96)
                return rlx__perr(p, RLX_ERROR_UNSUPPORTED, "%s: %s needs %d launches (more than 96)", rlx_device_name(api->kind),
                                 ref, n);
            return rlx__perr(p, RLX_ERROR_UNSUPPORTED, "%s: no kernel for %s (output %s)", rlx_device_name(api->kind), ref,
                             rlx_dtype_name(ir->nodes[ni].dtype));
        }
        if (ir->nodes[ni].op == RLX_OP_STATE_WRITE) {   /* the kernel reports offsets that do not fit */
            int k;
            for (k = 0; k < n; k++) {
                rlx__launch* L = &gp->launches[gp->nlaunch + k];
                if (strcmp(L->kernel, "state_write") != 0) continue;
                L->args.in[3] = gp->dmem + gp->off_err;
                L->args.ia[5] = ni + 1;
            }
        }
        for (i = 0; i < n; i++) gp->launches[gp->nlaunch + i].node = ni;
        gp->nlaunch += n;
    }
    gp->step_first[c->plan.nsteps] = gp->nlaunch;
    rlx__free(&p->al, node_scratch);
    /* modules (loaded lazily: only those this program uses) and functions */
    gp->fns = (void**)rlx__calloc(&p->al, sizeof(void*) * (size_t)(gp->nlaunch + 1));
    if (!gp->fns) return rlx__perr(p, RLX_ERROR_OUT_OF_MEMORY, "gpu: out of memory");
    for (i = 0; i < gp->nlaunch; i++) {
        void* mod;
        if ((r = rlx__gpu_module(p, gp, gp->launches[i].module, &mod)) != RLX_OK) return r;
        if ((r = api->function(mod, gp->launches[i].kernel, &gp->fns[i])) != RLX_OK) {
            char ref[320];
            rlx__ir_node_ref(ref, sizeof ref, ir, &ir->nodes[gp->launches[i].node]);
            return rlx__perr(p, r, "%s: kernel '%s' (for %s) not found in module '%s': %s", rlx_device_name(api->kind),
                             gp->launches[i].kernel, ref, gp->launches[i].module, api->last_error());
        }
    }
    /* zero states, upload constants (params are uploaded when set) */
    if (c->plan.state_bytes && (r = api->memset0(gp->dmem + gp->off_state, c->plan.state_bytes)) != RLX_OK)
        return rlx__gpu_fail(p, api, r, "clearing states");
    if (gp->off_err && (r = api->memset0(gp->dmem + gp->off_err, RLX__GPU_ERR_BYTES)) != RLX_OK)
        return rlx__gpu_fail(p, api, r, "clearing the error word");
    if (c->plan.weight_bytes && (r = api->htod(gp->dmem, p->w->base, c->plan.weight_bytes)) != RLX_OK)
        return rlx__gpu_fail(p, api, r, "uploading weights");
    gp->weights_gen = p->w->gen;
    /* inputs and outputs travel through pinned host memory when the driver gives it */
    if (c->plan.arena_bytes && (gp->pinned = api->host_alloc(c->plan.arena_bytes)) != NULL) {
        memcpy(gp->pinned, p->arena, c->plan.arena_bytes);
        p->arena = (unsigned char*)gp->pinned;
        rlx__program_bind(p);
    }
    /* record the launches once as a graph when the driver can */
    if (api->graph_begin && gp->nlaunch > 0 && (r = api->graph_begin(gp->stream)) == RLX_OK) {
        rlx_result lr = rlx__gpu_launch_all(gp);
        void* exec = NULL;
        rlx_result er = api->graph_end(gp->stream, &exec);
        if (lr == RLX_OK && er == RLX_OK) gp->graph = exec;
        else if (exec) api->graph_destroy(exec);
        if (!gp->graph && api->graph_only) {
            if (lr != RLX_OK) return rlx__gpu_launch_fail(p, gp, lr, "recording the kernels");
            return rlx__gpu_fail(p, api, er, "recording the kernels");
        }
    } else if (gp->nlaunch > 0 && api->graph_only) {
        return rlx__gpu_fail(p, api, r, "recording the kernels");
    }
    return RLX_OK;
}

/* Host mirror of node i ↔ device. */
static RLX__MAYBE_UNUSED rlx_result rlx__gpu_upload(rlx_program* p, int i) {
    rlx__gpu_prog* gp = (rlx__gpu_prog*)p->gpu;
    rlx_result r = gp->api->make_current(gp->index, gp->ctx);
    if (!p->ptr[i]) return rlx__perr(p, RLX_ERROR_INVALID_ARGUMENT, "upload: the tensor lives in the store (rlx_store_set)");
    if (r == RLX_OK) r = gp->api->htod(gp->addr[i], p->ptr[i], p->core->plan.bufs[i].bytes);
    return r == RLX_OK ? r : rlx__gpu_fail(p, gp->api, r, "upload");
}
static RLX__MAYBE_UNUSED rlx_result rlx__gpu_download(rlx_program* p, int i) {
    rlx__gpu_prog* gp = (rlx__gpu_prog*)p->gpu;
    rlx_result r = gp->api->make_current(gp->index, gp->ctx);
    if (!p->ptr[i]) return rlx__perr(p, RLX_ERROR_INVALID_ARGUMENT, "download: the tensor lives in the store (rlx_store_get)");
    if (r == RLX_OK) r = gp->api->dtoh(p->ptr[i], gp->addr[i], rlx__node_bytes(&p->core->ir->nodes[i]));
    return r == RLX_OK ? r : rlx__gpu_fail(p, gp->api, r, "download");
}

/* Reads node i into dst (converted to dtype) when it has no host mirror: an output that is (a view of) a store
   tensor, e.g. the state_write of a store state. */
static RLX__MAYBE_UNUSED rlx_result rlx__gpu_read_store(rlx_program* p, int i, rlx_dtype dtype, void* dst) {
    rlx__gpu_prog* gp = (rlx__gpu_prog*)p->gpu;
    const rlx__node* nd = &p->core->ir->nodes[i];
    void* tmp = rlx__alloc(&p->al, rlx__node_bytes(nd));
    rlx_result r;
    if (!tmp) return rlx__perr(p, RLX_ERROR_OUT_OF_MEMORY, "download: out of memory");
    r = gp->api->make_current(gp->index, gp->ctx);
    if (r == RLX_OK) r = gp->api->dtoh(tmp, gp->addr[i], rlx__node_bytes(nd));
    if (r == RLX_OK) rlx__convert(dst, dtype, tmp, nd->dtype, rlx__node_numel(nd));
    rlx__free(&p->al, tmp);
    return r == RLX_OK ? r : rlx__gpu_fail(p, gp->api, r, "download");
}

static RLX__MAYBE_UNUSED rlx_result rlx__gpu_download_states(rlx_program* p) {
    rlx__gpu_prog* gp = (rlx__gpu_prog*)p->gpu;
    rlx_result r = gp->api->make_current(gp->index, gp->ctx);
    if (r == RLX_OK) r = gp->api->dtoh(p->state, gp->dmem + gp->off_state, p->core->plan.state_bytes);
    return r == RLX_OK ? r : rlx__gpu_fail(p, gp->api, r, "download");
}

/* Profiling: the launches with a timestamp before the first and after each step's launches. */
static RLX__MAYBE_UNUSED rlx_result rlx__gpu_launch_stamped(rlx__gpu_prog* gp, int nsteps) {
    const rlx__gpuapi* api = gp->api;
    int s, i;
    rlx_result r = api->timer_stamp(gp->timer, 0, gp->stream);
    for (s = 0; s < nsteps && r == RLX_OK; s++) {
        for (i = gp->step_first[s]; i < gp->step_first[s + 1] && r == RLX_OK; i++) {
            rlx__launch* L = &gp->launches[i];
            void* args[1];
            args[0] = &L->args;
            r = api->launch(gp->fns[i], L->grid, L->block, L->shmem, gp->stream, args);
        }
        if (r == RLX_OK) r = api->timer_stamp(gp->timer, s + 1, gp->stream);
    }
    return r;
}
/* Makes the timer (and, where launches only run recorded, the stamped recording) on the first profiled run.
   Returns 0 when this device cannot time its steps: p->prof_status and prof_why say why, the run goes on
   untimed. */
static RLX__MAYBE_UNUSED int rlx__gpu_prof_ready(rlx_program* p, rlx__gpu_prog* gp) {
    const rlx__gpuapi* api = gp->api;
    int n = p->core->plan.nsteps;
    rlx_result r;
    if (gp->timer && (!api->graph_only || gp->prof_graph)) return 1;
    if (p->prof_status != RLX_OK) return 0;
    p->prof_why[0] = 0;
    if (!api->timer_create) {
        p->prof_status = RLX_ERROR_UNSUPPORTED;
        snprintf(p->prof_why, sizeof p->prof_why, "%s: no timestamps in this backend", rlx_device_name(api->kind));
        return 0;
    }
    if (!gp->timer && (r = api->timer_create(gp->stream, n + 1, &gp->timer, p->prof_why, sizeof p->prof_why)) != RLX_OK) {
        gp->timer = NULL;
        p->prof_status = r;
        return 0;
    }
    if (api->graph_only) {
        void* exec = NULL;
        rlx_result lr;
        if ((r = api->graph_begin(gp->stream)) == RLX_OK) {
            lr = rlx__gpu_launch_stamped(gp, n);
            r = api->graph_end(gp->stream, &exec);
            if (lr != RLX_OK) r = lr;
        }
        if (r != RLX_OK) {
            if (exec) api->graph_destroy(exec);
            p->prof_status = r;
            snprintf(p->prof_why, sizeof p->prof_why, "%s: recording the timestamps failed: %.120s",
                     rlx_device_name(api->kind), api->last_error());
            return 0;
        }
        gp->prof_graph = exec;
    }
    return 1;
}
static RLX__MAYBE_UNUSED rlx_result rlx__gpu_prof_launch(rlx_program* p, rlx__gpu_prog* gp) {
    if (gp->api->graph_only) return gp->api->graph_launch(gp->prof_graph, gp->stream);
    return rlx__gpu_launch_stamped(gp, p->core->plan.nsteps);
}
static RLX__MAYBE_UNUSED void rlx__gpu_prof_read(rlx_program* p, rlx__gpu_prog* gp) {
    rlx_result r = gp->api->timer_read(gp->timer, p->core->plan.nsteps + 1, p->prof);
    if (r == RLX_OK) { rlx__prof_commit(p); return; }
    p->prof_status = r;
    snprintf(p->prof_why, sizeof p->prof_why, "%s: reading the timestamps failed: %.120s", rlx_device_name(gp->api->kind),
             gp->api->last_error());
}

static RLX__MAYBE_UNUSED rlx_result rlx__gpu_run(rlx_program* p) {
    rlx__gpu_prog* gp = (rlx__gpu_prog*)p->gpu;
    rlx_result r = gp->api->make_current(gp->index, gp->ctx);
    if (r != RLX_OK) return rlx__gpu_fail(p, gp->api, r, "selecting the device");
    if (gp->weights_gen != p->w->gen) {   /* a program sharing these weights changed them */
        if ((r = gp->api->htod(gp->dmem, p->w->base, p->core->plan.weight_bytes)) != RLX_OK) return rlx__gpu_fail(p, gp->api, r, "upload");
        gp->weights_gen = p->w->gen;
    }
    if (p->prof_on && rlx__gpu_prof_ready(p, gp)) r = rlx__gpu_prof_launch(p, gp);
    else r = gp->graph ? gp->api->graph_launch(gp->graph, gp->stream) : gp->api->graph_only ? RLX_OK : rlx__gpu_launch_all(gp);
    if (r != RLX_OK) return gp->graph || p->prof_on ? rlx__gpu_fail(p, gp->api, r, "kernel launch") : rlx__gpu_launch_fail(p, gp, r, "kernel launch");
    if ((r = gp->api->sync(gp->stream)) != RLX_OK) return rlx__gpu_fail(p, gp->api, r, "running the kernels");
    if (p->prof_on && p->prof_status == RLX_OK && gp->timer) rlx__gpu_prof_read(p, gp);
    if (gp->off_err) {   /* a state_write offset that did not fit (see RLX__GPU_ERR_BYTES) */
        uint32_t e[4];
        int64_t off;
        if ((r = gp->api->dtoh(e, gp->dmem + gp->off_err, sizeof e)) != RLX_OK) return rlx__gpu_fail(p, gp->api, r, "download");
        if (e[0] != 0) {
            if ((r = gp->api->memset0(gp->dmem + gp->off_err, sizeof e)) != RLX_OK)
                return rlx__gpu_fail(p, gp->api, r, "clearing the error word");
            memcpy(&off, &e[2], sizeof off);
            if (e[0] > (uint32_t)p->core->ir->n) return rlx__perr(p, RLX_ERROR_INTERNAL, "run: corrupt error word");
            return rlx__sw_error(p, p->core->ir, (int)e[0] - 1, (int64_t)e[1] - 1, off);
        }
    }
    return RLX_OK;
}
#else
static RLX__MAYBE_UNUSED void rlx__gpu_destroy(rlx_program* p) { RLX__UNUSED(p); }
#endif /* RLX__HAS_GPU */

/* ------------------------------------------------------------------------------------------------------------
   >>cuda  (driver API opened at run time; types declared here, no CUDA header needed)
   ------------------------------------------------------------------------------------------------------------ */
#if !defined(RLX_NO_CUDA)
#include "rlx_kernels_ptx.h"
#if !defined(RLX_KERNELS_PTX_VERSION)
#  error "rlx.h: rlx_kernels_ptx.h is not a generated kernel header"
#endif

typedef int rlx__CUresult;
typedef int rlx__CUdevice;
typedef void* rlx__CUhandle;
typedef unsigned long long rlx__CUdeviceptr;
#define RLX__CU_ATTR_CC_MAJOR 75
#define RLX__CU_ATTR_CC_MINOR 76
#define RLX__CU_JIT_INFO_LOG_BUFFER 3
#define RLX__CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES 4
#define RLX__CU_JIT_ERROR_LOG_BUFFER 5
#define RLX__CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES 6
/* The embedded PTX is stamped with this ISA version (tools rewrite nvcc's output to it); drivers older than
   the matching CUDA release cannot JIT it. PTX ISA 7.8 = CUDA 11.8 = driver API version 11080. */
#define RLX__CUDA_MIN_DRIVER 11080

typedef struct rlx__cuda_api {
    void* lib;
    int ok, driver_version, device_count;
    char why[160];
    rlx__CUresult (*cuInit)(unsigned);
    rlx__CUresult (*cuDriverGetVersion)(int*);
    rlx__CUresult (*cuDeviceGetCount)(int*);
    rlx__CUresult (*cuDeviceGet)(rlx__CUdevice*, int);
    rlx__CUresult (*cuDeviceGetName)(char*, int, rlx__CUdevice);
    rlx__CUresult (*cuDeviceGetAttribute)(int*, int, rlx__CUdevice);
    rlx__CUresult (*cuDevicePrimaryCtxRetain)(rlx__CUhandle*, rlx__CUdevice);
    rlx__CUresult (*cuDevicePrimaryCtxRelease)(rlx__CUdevice);
    rlx__CUresult (*cuCtxSetCurrent)(rlx__CUhandle);
    rlx__CUresult (*cuMemAlloc)(rlx__CUdeviceptr*, size_t);
    rlx__CUresult (*cuMemFree)(rlx__CUdeviceptr);
    rlx__CUresult (*cuMemcpyHtoD)(rlx__CUdeviceptr, const void*, size_t);
    rlx__CUresult (*cuMemcpyDtoH)(void*, rlx__CUdeviceptr, size_t);
    rlx__CUresult (*cuMemsetD8)(rlx__CUdeviceptr, unsigned char, size_t);
    rlx__CUresult (*cuMemAllocHost)(void**, size_t);
    rlx__CUresult (*cuMemFreeHost)(void*);
    rlx__CUresult (*cuModuleLoadDataEx)(rlx__CUhandle*, const void*, unsigned, int*, void**);
    rlx__CUresult (*cuModuleUnload)(rlx__CUhandle);
    rlx__CUresult (*cuModuleGetFunction)(rlx__CUhandle*, rlx__CUhandle, const char*);
    rlx__CUresult (*cuLaunchKernel)(rlx__CUhandle, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                    unsigned, rlx__CUhandle, void**, void**);
    rlx__CUresult (*cuStreamCreate)(rlx__CUhandle*, unsigned);
    rlx__CUresult (*cuStreamDestroy)(rlx__CUhandle);
    rlx__CUresult (*cuStreamSynchronize)(rlx__CUhandle);
    rlx__CUresult (*cuGetErrorName)(rlx__CUresult, const char**);
    /* optional (graphs) */
    rlx__CUresult (*cuStreamBeginCapture)(rlx__CUhandle, int);
    rlx__CUresult (*cuStreamEndCapture)(rlx__CUhandle, rlx__CUhandle*);
    rlx__CUresult (*cuGraphInstantiateWithFlags)(rlx__CUhandle*, rlx__CUhandle, unsigned long long);
    rlx__CUresult (*cuGraphLaunch)(rlx__CUhandle, rlx__CUhandle);
    rlx__CUresult (*cuGraphExecDestroy)(rlx__CUhandle);
    rlx__CUresult (*cuGraphDestroy)(rlx__CUhandle);
    rlx__CUresult (*cuDeviceTotalMem)(size_t*, rlx__CUdevice);   /* optional (rlx_devices) */
    /* optional (profiling: events) */
    rlx__CUresult (*cuEventCreate)(rlx__CUhandle*, unsigned);
    rlx__CUresult (*cuEventRecord)(rlx__CUhandle, rlx__CUhandle);
    rlx__CUresult (*cuEventElapsedTime)(float*, rlx__CUhandle, rlx__CUhandle);
    rlx__CUresult (*cuEventDestroy)(rlx__CUhandle);
} rlx__cuda_api;

static rlx__cuda_api rlx__cu;
/* The last error's message, per thread (RLX__NO_TLS: one buffer for the process, a message only). */
static RLX__TLS char rlx__cu_err[192];

static const char* rlx__cu_last_error(void) { return rlx__cu_err; }
static rlx_result rlx__cu_check(rlx__CUresult e, const char* call) {
    const char* name = NULL;
    if (e == 0) return RLX_OK;
    if (rlx__cu.cuGetErrorName) rlx__cu.cuGetErrorName(e, &name);
    snprintf(rlx__cu_err, sizeof rlx__cu_err, "%s returned %s (%d)", call, name ? name : "?", e);
    if (e == 2) return RLX_ERROR_OUT_OF_MEMORY;                         /* CUDA_ERROR_OUT_OF_MEMORY */
    if (e == 100 || e == 101) return RLX_ERROR_DEVICE_UNAVAILABLE;      /* NO_DEVICE, INVALID_DEVICE */
    if (e == 999 || e == 700 || e == 719) return RLX_ERROR_DEVICE_LOST; /* UNKNOWN, ILLEGAL_ADDRESS, LAUNCH_FAILED */
    return RLX_ERROR_LAUNCH;
}

/* Loads libcuda once per process (success is cached; a failure is retried on the next call). */
static int rlx__cuda_load(char* why, size_t cap) {
    static const char* const names[] = {
#if defined(_WIN32)
        "nvcuda.dll",
#else
        "libcuda.so.1", "libcuda.so",
#endif
        NULL};
    const char* which = NULL;
    const char* env = getenv("RLX_CUDA_LIBRARY");
    const char* one[2];
    void* rlx__dl_tmp;
    int ok = 1;
    rlx__cuda_api* a = &rlx__cu;
    RLX__DL_LOCK();
    if (a->ok) { RLX__DL_UNLOCK(); return 1; }
    memset(a, 0, sizeof *a);
    one[0] = env; one[1] = NULL;
    a->lib = rlx__dlopen_first(env && env[0] ? one : names, &which);
    if (!a->lib) {
        snprintf(why, cap, "%s not found", env && env[0] ? env : names[0]);
        RLX__DL_UNLOCK();
        return 0;
    }
#define RLX__CU_REQ(field, sym) ok = ok && RLX__DLSYM(a->lib, a->field, sym)
    RLX__CU_REQ(cuInit, "cuInit");
    RLX__CU_REQ(cuDriverGetVersion, "cuDriverGetVersion");
    RLX__CU_REQ(cuDeviceGetCount, "cuDeviceGetCount");
    RLX__CU_REQ(cuDeviceGet, "cuDeviceGet");
    RLX__CU_REQ(cuDeviceGetName, "cuDeviceGetName");
    RLX__CU_REQ(cuDeviceGetAttribute, "cuDeviceGetAttribute");
    RLX__CU_REQ(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    RLX__CU_REQ(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
    RLX__CU_REQ(cuCtxSetCurrent, "cuCtxSetCurrent");
    RLX__CU_REQ(cuMemAlloc, "cuMemAlloc_v2");
    RLX__CU_REQ(cuMemFree, "cuMemFree_v2");
    RLX__CU_REQ(cuMemcpyHtoD, "cuMemcpyHtoD_v2");
    RLX__CU_REQ(cuMemcpyDtoH, "cuMemcpyDtoH_v2");
    RLX__CU_REQ(cuMemsetD8, "cuMemsetD8_v2");
    RLX__CU_REQ(cuMemAllocHost, "cuMemAllocHost_v2");
    RLX__CU_REQ(cuMemFreeHost, "cuMemFreeHost");
    RLX__CU_REQ(cuModuleLoadDataEx, "cuModuleLoadDataEx");
    RLX__CU_REQ(cuModuleUnload, "cuModuleUnload");
    RLX__CU_REQ(cuModuleGetFunction, "cuModuleGetFunction");
    RLX__CU_REQ(cuLaunchKernel, "cuLaunchKernel");
    RLX__CU_REQ(cuStreamCreate, "cuStreamCreate");
    RLX__CU_REQ(cuStreamDestroy, "cuStreamDestroy_v2");
    RLX__CU_REQ(cuStreamSynchronize, "cuStreamSynchronize");
    RLX__CU_REQ(cuGetErrorName, "cuGetErrorName");
#undef RLX__CU_REQ
    if (!ok) {
        snprintf(why, cap, "%s lacks a required entry point (driver too old?)", which);
        RLX__DL_UNLOCK();
        return 0;
    }
    /* graphs are optional: without them the launches are issued one by one */
    if (!RLX__DLSYM(a->lib, a->cuStreamBeginCapture, "cuStreamBeginCapture_v2") ||
        !RLX__DLSYM(a->lib, a->cuStreamEndCapture, "cuStreamEndCapture") ||
        !RLX__DLSYM(a->lib, a->cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags") ||
        !RLX__DLSYM(a->lib, a->cuGraphLaunch, "cuGraphLaunch") ||
        !RLX__DLSYM(a->lib, a->cuGraphExecDestroy, "cuGraphExecDestroy") ||
        !RLX__DLSYM(a->lib, a->cuGraphDestroy, "cuGraphDestroy"))
        a->cuStreamBeginCapture = NULL;
    if (!RLX__DLSYM(a->lib, a->cuDeviceTotalMem, "cuDeviceTotalMem_v2")) a->cuDeviceTotalMem = NULL;
    /* events are optional: without them profiling reports itself unsupported */
    if (!RLX__DLSYM(a->lib, a->cuEventCreate, "cuEventCreate") || !RLX__DLSYM(a->lib, a->cuEventRecord, "cuEventRecord") ||
        !RLX__DLSYM(a->lib, a->cuEventElapsedTime, "cuEventElapsedTime") ||
        !RLX__DLSYM(a->lib, a->cuEventDestroy, "cuEventDestroy_v2"))
        a->cuEventCreate = NULL;
    {
        rlx__CUresult e = a->cuInit(0);
        if (e != 0) {
            rlx__cu_check(e, "cuInit");
            snprintf(why, cap, "%s", rlx__cu_err);
            RLX__DL_UNLOCK();
            return 0;
        }
    }
    a->cuDriverGetVersion(&a->driver_version);
    if (a->driver_version < RLX__CUDA_MIN_DRIVER) {
        snprintf(why, cap, "driver %d.%d is older than %d.%d, which the embedded PTX needs", a->driver_version / 1000,
                 a->driver_version % 1000 / 10, RLX__CUDA_MIN_DRIVER / 1000, RLX__CUDA_MIN_DRIVER % 1000 / 10);
        RLX__DL_UNLOCK();
        return 0;
    }
    if (a->cuDeviceGetCount(&a->device_count) != 0 || a->device_count < 1) {
        snprintf(why, cap, "no CUDA device");
        RLX__DL_UNLOCK();
        return 0;
    }
    a->ok = 1;
    RLX__DL_UNLOCK();
    return 1;
}

static rlx_result rlx__cu_set_device(int index, void** ctx) {
    rlx__CUdevice dev;
    rlx_result r = rlx__cu_check(rlx__cu.cuDeviceGet(&dev, index), "cuDeviceGet");
    if (r != RLX_OK) return r;
    if ((r = rlx__cu_check(rlx__cu.cuDevicePrimaryCtxRetain(ctx, dev), "cuDevicePrimaryCtxRetain")) != RLX_OK) return r;
    return rlx__cu_check(rlx__cu.cuCtxSetCurrent(*ctx), "cuCtxSetCurrent");
}
static void rlx__cu_release_device(int index, void* ctx) {
    rlx__CUdevice dev;
    if (!ctx) return;
    if (rlx__cu.cuDeviceGet(&dev, index) == 0) rlx__cu.cuDevicePrimaryCtxRelease(dev);
}
static rlx_result rlx__cu_mem_alloc(uint64_t* p, size_t n) {
    rlx__CUdeviceptr d = 0;
    rlx_result r = rlx__cu_check(rlx__cu.cuMemAlloc(&d, n), "cuMemAlloc");
    *p = d;
    return r;
}
static void rlx__cu_mem_free(uint64_t p) { rlx__cu.cuMemFree((rlx__CUdeviceptr)p); }
static rlx_result rlx__cu_htod(uint64_t d, const void* s, size_t n) { return n ? rlx__cu_check(rlx__cu.cuMemcpyHtoD(d, s, n), "cuMemcpyHtoD") : RLX_OK; }
static rlx_result rlx__cu_dtoh(void* d, uint64_t s, size_t n) { return n ? rlx__cu_check(rlx__cu.cuMemcpyDtoH(d, s, n), "cuMemcpyDtoH") : RLX_OK; }
static rlx_result rlx__cu_memset0(uint64_t d, size_t n) { return rlx__cu_check(rlx__cu.cuMemsetD8(d, 0, n), "cuMemsetD8"); }
static void* rlx__cu_host_alloc(size_t n) { void* p = NULL; return rlx__cu.cuMemAllocHost(&p, n ? n : 1) == 0 ? p : NULL; }
static void rlx__cu_host_free(void* p) { rlx__cu.cuMemFreeHost(p); }
static rlx_result rlx__cu_module_load(const char* module, int sm, void** mod, char* msg, size_t cap) {
    int i;
    char log[2048];
    int opts[4];
    void* vals[4];
    rlx__CUresult e;
    const rlx__kernel_blob* blob = NULL;
    RLX__UNUSED(sm);
    for (i = 0; i < rlx__ptx_kernel_count; i++)
        if (strcmp(rlx__ptx_kernels[i].name, module) == 0) blob = &rlx__ptx_kernels[i];
    if (!blob) { snprintf(msg, cap, "no embedded PTX named '%s' (regenerate rlx_kernels_ptx.h)", module); return RLX_ERROR_UNSUPPORTED; }
    log[0] = 0;
    opts[0] = RLX__CU_JIT_ERROR_LOG_BUFFER; vals[0] = log;
    opts[1] = RLX__CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES; vals[1] = (void*)(uintptr_t)sizeof log;
    e = rlx__cu.cuModuleLoadDataEx(mod, blob->data, 2, opts, vals);
    if (e != 0) {
        rlx_result r = rlx__cu_check(e, "cuModuleLoadDataEx");
        snprintf(msg, cap, "%s: %.120s", rlx__cu_err, log);
        return r == RLX_ERROR_OUT_OF_MEMORY ? r : RLX_ERROR_UNSUPPORTED;
    }
    return RLX_OK;
}
static void rlx__cu_module_unload(void* m) { rlx__cu.cuModuleUnload(m); }
static rlx_result rlx__cu_function(void* mod, const char* name, void** fn) {
    return rlx__cu_check(rlx__cu.cuModuleGetFunction(fn, mod, name), "cuModuleGetFunction");
}
static rlx_result rlx__cu_launch(void* fn, const unsigned* g, const unsigned* b, unsigned shmem, void* s, void* args) {
    return rlx__cu_check(rlx__cu.cuLaunchKernel(fn, g[0], g[1], g[2], b[0], b[1], b[2], shmem, s, (void**)args, NULL),
                         "cuLaunchKernel");
}
static rlx_result rlx__cu_stream_create(void** s) { return rlx__cu_check(rlx__cu.cuStreamCreate(s, 1 /* non-blocking */), "cuStreamCreate"); }
static void rlx__cu_stream_destroy(void* s) { rlx__cu.cuStreamDestroy(s); }
static rlx_result rlx__cu_sync(void* s) { return rlx__cu_check(rlx__cu.cuStreamSynchronize(s), "cuStreamSynchronize"); }
static rlx_result rlx__cu_graph_begin(void* s) {
    if (!rlx__cu.cuStreamBeginCapture) return RLX_ERROR_UNSUPPORTED;
    return rlx__cu_check(rlx__cu.cuStreamBeginCapture(s, 2 /* relaxed */), "cuStreamBeginCapture");
}
static rlx_result rlx__cu_graph_end(void* s, void** exec) {
    void* graph = NULL;
    rlx_result r = rlx__cu_check(rlx__cu.cuStreamEndCapture(s, &graph), "cuStreamEndCapture");
    *exec = NULL;
    if (r != RLX_OK) return r;
    r = rlx__cu_check(rlx__cu.cuGraphInstantiateWithFlags(exec, graph, 0), "cuGraphInstantiateWithFlags");
    rlx__cu.cuGraphDestroy(graph);
    return r;
}
static rlx_result rlx__cu_graph_launch(void* exec, void* s) { return rlx__cu_check(rlx__cu.cuGraphLaunch(exec, s), "cuGraphLaunch"); }
static void rlx__cu_graph_destroy(void* exec) { rlx__cu.cuGraphExecDestroy(exec); }
static rlx_result rlx__cu_make_current(int index, void* ctx) {
    RLX__UNUSED(index);
    return rlx__cu_check(rlx__cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
}

/* Profiling timer: n events (default flags: timing on), recorded on the program's stream. */
typedef struct rlx__cu_timer { int n; rlx__CUhandle ev[1]; } rlx__cu_timer;
static void rlx__cu_timer_destroy(void* t) {
    rlx__cu_timer* tm = (rlx__cu_timer*)t;
    int i;
    if (!tm) return;
    for (i = 0; i < tm->n; i++)
        if (tm->ev[i]) rlx__cu.cuEventDestroy(tm->ev[i]);
    free(tm);
}
static rlx_result rlx__cu_timer_create(void* s, int n, void** t, char* why, size_t cap) {
    rlx__cu_timer* tm;
    rlx_result r = RLX_OK;
    int i;
    RLX__UNUSED(s);
    *t = NULL;
    if (!rlx__cu.cuEventCreate) { snprintf(why, cap, "CUDA: the driver lacks the event entry points"); return RLX_ERROR_UNSUPPORTED; }
    tm = (rlx__cu_timer*)calloc(1, sizeof *tm + sizeof(rlx__CUhandle) * (size_t)n);
    if (!tm) { snprintf(why, cap, "CUDA: out of memory for %d events", n); return RLX_ERROR_OUT_OF_MEMORY; }
    for (i = 0; i < n && r == RLX_OK; i++, tm->n++) r = rlx__cu_check(rlx__cu.cuEventCreate(&tm->ev[i], 0), "cuEventCreate");
    if (r != RLX_OK) { snprintf(why, cap, "CUDA: %s", rlx__cu_err); rlx__cu_timer_destroy(tm); return r; }
    *t = tm;
    return RLX_OK;
}
static rlx_result rlx__cu_timer_stamp(void* t, int k, void* s) {
    return rlx__cu_check(rlx__cu.cuEventRecord(((rlx__cu_timer*)t)->ev[k], s), "cuEventRecord");
}
static rlx_result rlx__cu_timer_read(void* t, int n, double* us) {
    rlx__cu_timer* tm = (rlx__cu_timer*)t;
    int i;
    us[0] = 0.0;
    for (i = 1; i < n; i++) {
        float ms = 0.0f;
        rlx_result r = rlx__cu_check(rlx__cu.cuEventElapsedTime(&ms, tm->ev[0], tm->ev[i]), "cuEventElapsedTime");
        if (r != RLX_OK) return r;
        us[i] = (double)ms * 1e3;
    }
    return RLX_OK;
}

static const rlx__gpuapi rlx__cuda_gpuapi = {
    RLX_DEVICE_CUDA, rlx__cu_set_device, rlx__cu_release_device, rlx__cu_mem_alloc, rlx__cu_mem_free, rlx__cu_htod,
    rlx__cu_dtoh, rlx__cu_memset0, rlx__cu_host_alloc, rlx__cu_host_free, rlx__cu_module_load, rlx__cu_module_unload,
    rlx__cu_function, rlx__cu_launch, rlx__cu_stream_create, rlx__cu_stream_destroy, rlx__cu_sync,
    rlx__cu_graph_begin, rlx__cu_graph_end, rlx__cu_graph_launch, rlx__cu_graph_destroy, rlx__cu_last_error,
    rlx__cu_make_current, 0, rlx__cu_timer_create, rlx__cu_timer_destroy, rlx__cu_timer_stamp, rlx__cu_timer_read};

/* Availability of CUDA device `index`: name, reason, compute capability × 10. */
static int rlx__cuda_probe(int index, char* name, size_t ncap, char* reason, size_t rcap, int* sm) {
    rlx__CUdevice dev;
    int major = 0, minor = 0;
    char nm[96];
    snprintf(name, ncap, "cuda device %d", index);
    if (!rlx__cuda_load(reason, rcap)) return 0;
    if (index >= rlx__cu.device_count) {
        snprintf(reason, rcap, "CUDA device %d does not exist (%d found)", index, rlx__cu.device_count);
        return 0;
    }
    if (rlx__cu.cuDeviceGet(&dev, index) != 0 || rlx__cu.cuDeviceGetName(nm, (int)sizeof nm, dev) != 0) {
        snprintf(reason, rcap, "cuDeviceGet/cuDeviceGetName failed for device %d", index);
        return 0;
    }
    rlx__cu.cuDeviceGetAttribute(&major, RLX__CU_ATTR_CC_MAJOR, dev);
    rlx__cu.cuDeviceGetAttribute(&minor, RLX__CU_ATTR_CC_MINOR, dev);
    *sm = major * 10 + minor;
    snprintf(name, ncap, "%.80s (sm_%d)", nm, *sm);
    if (*sm < 75) {
        snprintf(reason, rcap, "%s has compute capability %d.%d; the embedded PTX needs 7.5 or newer", nm, major, minor);
        return 0;
    }
    snprintf(reason, rcap, "driver %d.%d, %d device(s)", rlx__cu.driver_version / 1000, rlx__cu.driver_version % 1000 / 10,
             rlx__cu.device_count);
    return 1;
}

/* For rlx_devices: how many CUDA devices (0 without a usable driver); memory and driver of device `index`. */
static int rlx__cuda_count(void) {
    char why[160];
    return rlx__cuda_load(why, sizeof why) ? rlx__cu.device_count : 0;
}
static void rlx__cuda_details(int index, uint64_t* mem, char* drv, size_t cap) {
    rlx__CUdevice dev;
    size_t b = 0;
    if (!rlx__cu.ok || index < 0 || index >= rlx__cu.device_count) return;
    snprintf(drv, cap, "CUDA driver %d.%d", rlx__cu.driver_version / 1000, rlx__cu.driver_version % 1000 / 10);
    if (rlx__cu.cuDeviceTotalMem && rlx__cu.cuDeviceGet(&dev, index) == 0 && rlx__cu.cuDeviceTotalMem(&b, dev) == 0)
        *mem = (uint64_t)b;
}
#endif /* !RLX_NO_CUDA */

/* ------------------------------------------------------------------------------------------------------------
   >>hip  (HIP runtime opened at run time; the kernels are the CUDA C sources of kernels/cuda, embedded in
   rlx_kernels_ptx.h and compiled with hipRTC for the device's gfx architecture on first use; no HIP header)

   Libraries: libamdhip64.so.7/.6/.5/.so (amdhip64_6.dll / amdhip64.dll on Windows), or the one named by the
   environment variable RLX_HIP_LIBRARY. hipRTC lives inside libamdhip64 up to ROCm 5.x and in libhiprtc from
   ROCm 6 on (RLX_HIPRTC_LIBRARY names it explicitly). A successful load is kept for the process; a failed one
   is retried (reading the environment again) on the next probe.

   Architecture: hipDeviceGetAttribute has no string attributes, so the gfx name (e.g. "gfx90a:sramecc+:xnack-")
   comes from hipGetDeviceProperties. Its struct layout depends on the HIP version, so the call writes into a
   16 KiB zeroed buffer (larger than every layout) and gcnArchName is read at its offset in the R0000 layout of
   ROCm 5.x (396), which ROCm 6 keeps for the unversioned symbol, if a well-formed "gfx..." name is there;
   otherwise the buffer past the 256-byte device name is searched for the one such name (hipDeviceGetAttribute
   is not used at all: its enum values changed between HIP versions).

   hipRTC of ROCm 5.x aborts the process when asked for an architecture its compiler does not know, so the
   requested architecture is first checked against the ISA list of libamd_comgr (the compiler library hipRTC
   uses) where that library can be opened; an unknown architecture makes the device unavailable instead.

   Code objects are cached in memory per (module, architecture) for the process, and on disk under
   $RLX_HIP_CACHE, else $XDG_CACHE_HOME/rlx, else ~/.cache/rlx (%LOCALAPPDATA%\rlx on Windows), keyed by a hash
   of the sources, the architecture, the compile options, the runtime library and the runtime, hipRTC and
   comgr versions; RLX_HIP_CACHE=0 (or defining RLX_NO_HIP_DISK_CACHE) turns the disk cache off. A damaged
   cache file is detected (size and checksum) and recompiled. No graphs: the launches are issued one by one on
   a blocking stream.
   ------------------------------------------------------------------------------------------------------------ */
#if !defined(RLX_NO_HIP)
#include "rlx_kernels_ptx.h"
#if !defined(RLX_KERNELS_PTX_VERSION)
#  error "rlx.h: rlx_kernels_ptx.h is not a generated kernel header"
#endif
#if defined(RLX_KERNELS_HIP_SOURCES)
#  define RLX__HIP_SOURCES rlx__hip_sources
#  define RLX__HIP_SOURCE_COUNT rlx__hip_source_count
#else /* a header generated without --source: the HIP backend reports itself unavailable */
static const rlx__kernel_blob rlx__hip_no_sources[1] = {{NULL, NULL, 0}};
#  define RLX__HIP_SOURCES rlx__hip_no_sources
#  define RLX__HIP_SOURCE_COUNT 0
#endif
#if !defined(RLX_NO_HIP_DISK_CACHE)
#  if defined(_WIN32)
#    include <direct.h>
#    include <process.h>
#    define RLX__HIP_MKDIR(p) _mkdir(p)
#    define RLX__HIP_GETPID() ((long)_getpid())
#  else
#    include <sys/stat.h>
#    include <unistd.h>
#    define RLX__HIP_MKDIR(p) mkdir((p), 0755)
#    define RLX__HIP_GETPID() ((long)getpid())
#  endif
#endif
#if defined(__GNUC__) || defined(__clang__)
#  define RLX__HIP_MAYBE_UNUSED __attribute__((unused))
#else
#  define RLX__HIP_MAYBE_UNUSED
#endif

typedef int rlx__hipError;
typedef int rlx__hiprtcResult;
#define RLX__HIP_MAX_DEVICES 64
#define RLX__HIP_ARCH_CAP 64
#define RLX__HIP_PROPS_BYTES 16384
#define RLX__HIP_PROPS_ARCH_OFFSET 396   /* gcnArchName in hipDeviceProp_t (R0000 layout) */
/* the options every module is compiled with (besides --offload-arch); part of the disk cache key */
#define RLX__HIP_OPTIONS "-O3", "-std=c++14"
#define RLX__HIP_OPTIONS_KEY "-O3 -std=c++14"

typedef struct rlx__hip_api {
    void* lib;
    void* rtclib;                  /* NULL: hipRTC is inside lib */
    void* comgr;                   /* libamd_comgr, for the ISA list (optional) */
    int loaded;                    /* library opened, entry points resolved */
    int ok;                        /* hipInit succeeded and a device exists */
    int comgr_tried;
    int device_count, runtime_version, rtc_major, rtc_minor;
    char libname[160];
    char arch[RLX__HIP_MAX_DEVICES][RLX__HIP_ARCH_CAP]; /* gcnArchName per device ("" until asked) */
    rlx__hipError (*hipInit)(unsigned);
    rlx__hipError (*hipGetDeviceCount)(int*);
    rlx__hipError (*hipDeviceGet)(int*, int);
    rlx__hipError (*hipDeviceGetName)(char*, int, int);
    rlx__hipError (*hipGetDeviceProperties)(void*, int);
    rlx__hipError (*hipRuntimeGetVersion)(int*);
    rlx__hipError (*hipDeviceTotalMem)(size_t*, int);   /* optional (rlx_devices) */
    rlx__hipError (*hipSetDevice)(int);
    rlx__hipError (*hipGetDevice)(int*);
    rlx__hipError (*hipMalloc)(void**, size_t);
    rlx__hipError (*hipFree)(void*);
    rlx__hipError (*hipMemcpyHtoD)(void*, void*, size_t);
    rlx__hipError (*hipMemcpyDtoH)(void*, void*, size_t);
    rlx__hipError (*hipMemset)(void*, int, size_t);
    rlx__hipError (*hipHostMalloc)(void**, size_t, unsigned);
    rlx__hipError (*hipHostFree)(void*);
    rlx__hipError (*hipModuleLoadData)(void**, const void*);
    rlx__hipError (*hipModuleUnload)(void*);
    rlx__hipError (*hipModuleGetFunction)(void**, void*, const char*);
    rlx__hipError (*hipModuleLaunchKernel)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                           void*, void**, void**);
    rlx__hipError (*hipStreamCreateWithFlags)(void**, unsigned);
    rlx__hipError (*hipStreamDestroy)(void*);
    rlx__hipError (*hipStreamSynchronize)(void*);
    rlx__hipError (*hipEventCreate)(void**);                      /* optional (profiling) */
    rlx__hipError (*hipEventRecord)(void*, void*);
    rlx__hipError (*hipEventElapsedTime)(float*, void*, void*);
    rlx__hipError (*hipEventDestroy)(void*);
    const char* (*hipGetErrorName)(rlx__hipError);
    const char* (*hipGetErrorString)(rlx__hipError);
    /* hipRTC */
    rlx__hiprtcResult (*hiprtcCreateProgram)(void**, const char*, const char*, int, const char**, const char**);
    rlx__hiprtcResult (*hiprtcCompileProgram)(void*, int, const char**);
    rlx__hiprtcResult (*hiprtcGetProgramLogSize)(void*, size_t*);
    rlx__hiprtcResult (*hiprtcGetProgramLog)(void*, char*);
    rlx__hiprtcResult (*hiprtcGetCodeSize)(void*, size_t*);
    rlx__hiprtcResult (*hiprtcGetCode)(void*, char*);
    rlx__hiprtcResult (*hiprtcDestroyProgram)(void**);
    const char* (*hiprtcGetErrorString)(rlx__hiprtcResult);
    rlx__hiprtcResult (*hiprtcVersion)(int*, int*);   /* optional */
    /* libamd_comgr (optional) */
    int (*amd_comgr_get_isa_count)(size_t*);
    int (*amd_comgr_get_isa_name)(size_t, const char**);
    void (*amd_comgr_get_version)(size_t*, size_t*);
} rlx__hip_api;

static rlx__hip_api rlx__hip;
/* The last error's message, per thread (RLX__NO_TLS: one buffer for the process, a message only). */
static RLX__TLS char rlx__hip_err[192];
#if !defined(RLX_NO_THREADS) && !defined(_WIN32)
static pthread_mutex_t rlx__hip_code_mutex = PTHREAD_MUTEX_INITIALIZER;
#  define RLX__HIP_CODE_LOCK() pthread_mutex_lock(&rlx__hip_code_mutex)
#  define RLX__HIP_CODE_UNLOCK() pthread_mutex_unlock(&rlx__hip_code_mutex)
#elif !defined(RLX_NO_THREADS) && defined(_WIN32)
static SRWLOCK rlx__hip_code_lock = SRWLOCK_INIT;
#  define RLX__HIP_CODE_LOCK() AcquireSRWLockExclusive(&rlx__hip_code_lock)
#  define RLX__HIP_CODE_UNLOCK() ReleaseSRWLockExclusive(&rlx__hip_code_lock)
#else
#  define RLX__HIP_CODE_LOCK() ((void)0)
#  define RLX__HIP_CODE_UNLOCK() ((void)0)
#endif

static const char* rlx__hip_last_error(void) { return rlx__hip_err; }
static const char* rlx__hiprtc_error(rlx__hiprtcResult e) {
    const char* s = rlx__hip.hiprtcGetErrorString ? rlx__hip.hiprtcGetErrorString(e) : NULL;
    return s ? s : "?";
}
static rlx_result rlx__hip_check(rlx__hipError e, const char* call) {
    const char* name = NULL;
    const char* text = NULL;
    if (e == 0) return RLX_OK;
    if (rlx__hip.hipGetErrorName) name = rlx__hip.hipGetErrorName(e);
    if (rlx__hip.hipGetErrorString) text = rlx__hip.hipGetErrorString(e);
    if (text && name && strcmp(text, name) != 0)
        snprintf(rlx__hip_err, sizeof rlx__hip_err, "%s returned %s (%d: %.80s)", call, name, e, text);
    else
        snprintf(rlx__hip_err, sizeof rlx__hip_err, "%s returned %s (%d)", call, name ? name : "?", e);
    if (e == 2) return RLX_ERROR_OUT_OF_MEMORY;                          /* hipErrorOutOfMemory */
    if (e == 100 || e == 101) return RLX_ERROR_DEVICE_UNAVAILABLE;       /* NoDevice, InvalidDevice */
    if (e == 700 || e == 719 || e == 999) return RLX_ERROR_DEVICE_LOST;  /* IllegalAddress, LaunchFailure, Unknown */
    return RLX_ERROR_LAUNCH;
}

/* Opens `env` when it is set and not empty, else the first of `names` that opens; *which gets the name. */
static void* rlx__hip_open(const char* env, const char* const* names, const char** which) {
    const char* one[2];
    one[0] = env;
    one[1] = NULL;
    return rlx__dlopen_first(env && env[0] ? one : names, which);
}

/* Opens libamdhip64 and resolves the runtime and hipRTC entry points (once per process; a failure is retried
   on the next call). Needs no device: hipRTC compiles without one. */
static int rlx__hip_load_lib(char* why, size_t cap) {
    static const char* const names[] = {
#if defined(_WIN32)
        "amdhip64_6.dll", "amdhip64.dll",
#else
        "libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so",
#endif
        NULL};
    static const char* const rtc_names[] = {
#if defined(_WIN32)
        "hiprtc0605.dll", "hiprtc0604.dll", "hiprtc0603.dll", "hiprtc0602.dll", "hiprtc0601.dll", "hiprtc0600.dll",
        "hiprtc0507.dll", "hiprtc.dll",
#else
        "libhiprtc.so.7", "libhiprtc.so.6", "libhiprtc.so.5", "libhiprtc.so",
#endif
        NULL};
    const char* env = getenv("RLX_HIP_LIBRARY");
    const char* which = NULL;
    void* rlx__dl_tmp;
    void* rtc;
    int ok = 1;
    rlx__hip_api* a = &rlx__hip;
    RLX__DL_LOCK();
    if (a->loaded) { RLX__DL_UNLOCK(); return 1; }
    a->lib = rlx__hip_open(env, names, &which);
    if (!a->lib) {
        if (env && env[0]) snprintf(why, cap, "%.150s not found (RLX_HIP_LIBRARY)", env);
#if defined(_WIN32)
        else snprintf(why, cap, "amdhip64_6.dll / amdhip64.dll not found");
#else
        else snprintf(why, cap, "libamdhip64.so.5 not found (nor .so.7, .so.6, .so)");
#endif
        RLX__DL_UNLOCK();
        return 0;
    }
    rlx__strlcpy(a->libname, sizeof a->libname, which);
#define RLX__HIP_REQ(lib, field, sym) ok = ok && RLX__DLSYM(lib, a->field, sym)
    RLX__HIP_REQ(a->lib, hipInit, "hipInit");
    RLX__HIP_REQ(a->lib, hipGetDeviceCount, "hipGetDeviceCount");
    RLX__HIP_REQ(a->lib, hipDeviceGet, "hipDeviceGet");
    RLX__HIP_REQ(a->lib, hipDeviceGetName, "hipDeviceGetName");
    RLX__HIP_REQ(a->lib, hipRuntimeGetVersion, "hipRuntimeGetVersion");
    RLX__HIP_REQ(a->lib, hipSetDevice, "hipSetDevice");
    RLX__HIP_REQ(a->lib, hipGetDevice, "hipGetDevice");
    RLX__HIP_REQ(a->lib, hipMalloc, "hipMalloc");
    RLX__HIP_REQ(a->lib, hipFree, "hipFree");
    RLX__HIP_REQ(a->lib, hipMemcpyHtoD, "hipMemcpyHtoD");
    RLX__HIP_REQ(a->lib, hipMemcpyDtoH, "hipMemcpyDtoH");
    RLX__HIP_REQ(a->lib, hipMemset, "hipMemset");
    RLX__HIP_REQ(a->lib, hipHostMalloc, "hipHostMalloc");
    RLX__HIP_REQ(a->lib, hipHostFree, "hipHostFree");
    RLX__HIP_REQ(a->lib, hipModuleLoadData, "hipModuleLoadData");
    RLX__HIP_REQ(a->lib, hipModuleUnload, "hipModuleUnload");
    RLX__HIP_REQ(a->lib, hipModuleGetFunction, "hipModuleGetFunction");
    RLX__HIP_REQ(a->lib, hipModuleLaunchKernel, "hipModuleLaunchKernel");
    RLX__HIP_REQ(a->lib, hipStreamCreateWithFlags, "hipStreamCreateWithFlags");
    RLX__HIP_REQ(a->lib, hipStreamDestroy, "hipStreamDestroy");
    RLX__HIP_REQ(a->lib, hipStreamSynchronize, "hipStreamSynchronize");
    RLX__HIP_REQ(a->lib, hipGetErrorName, "hipGetErrorName");
    RLX__HIP_REQ(a->lib, hipGetErrorString, "hipGetErrorString");
    if (!RLX__DLSYM(a->lib, a->hipDeviceTotalMem, "hipDeviceTotalMem")) a->hipDeviceTotalMem = NULL;
    /* the unversioned symbol keeps the R0000 layout; newer runtimes may only have the R0600 one */
    if (!RLX__DLSYM(a->lib, a->hipGetDeviceProperties, "hipGetDeviceProperties"))
        RLX__HIP_REQ(a->lib, hipGetDeviceProperties, "hipGetDevicePropertiesR0600");
    if (!ok) {
        snprintf(why, cap, "%.120s lacks a required entry point (runtime too old?)", which);
        goto fail;
    }
    /* hipRTC: inside libamdhip64 (ROCm <= 5), else libhiprtc */
    rtc = a->lib;
    if (!RLX__DLSYM(rtc, a->hiprtcCreateProgram, "hiprtcCreateProgram")) {
        const char* rtc_env = getenv("RLX_HIPRTC_LIBRARY");
        const char* rtc_which = NULL;
        rtc = a->rtclib = rlx__hip_open(rtc_env, rtc_names, &rtc_which);
        if (!rtc) {
            if (rtc_env && rtc_env[0]) snprintf(why, cap, "hipRTC: %.150s not found (RLX_HIPRTC_LIBRARY)", rtc_env);
            else snprintf(why, cap, "hipRTC not found (%.60s has none; libhiprtc.so.7/.so.6/.so.5/.so not found)", which);
            goto fail;
        }
    }
    RLX__HIP_REQ(rtc, hiprtcCreateProgram, "hiprtcCreateProgram");
    RLX__HIP_REQ(rtc, hiprtcCompileProgram, "hiprtcCompileProgram");
    RLX__HIP_REQ(rtc, hiprtcGetProgramLogSize, "hiprtcGetProgramLogSize");
    RLX__HIP_REQ(rtc, hiprtcGetProgramLog, "hiprtcGetProgramLog");
    RLX__HIP_REQ(rtc, hiprtcGetCodeSize, "hiprtcGetCodeSize");
    RLX__HIP_REQ(rtc, hiprtcGetCode, "hiprtcGetCode");
    RLX__HIP_REQ(rtc, hiprtcDestroyProgram, "hiprtcDestroyProgram");
    RLX__HIP_REQ(rtc, hiprtcGetErrorString, "hiprtcGetErrorString");
#undef RLX__HIP_REQ
    if (!ok) {
        snprintf(why, cap, "the hipRTC of %.100s lacks a required entry point", which);
        goto fail;
    }
    if (RLX__DLSYM(rtc, a->hiprtcVersion, "hiprtcVersion")) a->hiprtcVersion(&a->rtc_major, &a->rtc_minor);
    if (!RLX__DLSYM(a->lib, a->hipEventCreate, "hipEventCreate") || !RLX__DLSYM(a->lib, a->hipEventRecord, "hipEventRecord") ||
        !RLX__DLSYM(a->lib, a->hipEventElapsedTime, "hipEventElapsedTime") ||
        !RLX__DLSYM(a->lib, a->hipEventDestroy, "hipEventDestroy"))
        a->hipEventCreate = NULL;   /* events are optional: profiling reports itself unsupported */
    if (a->hipRuntimeGetVersion(&a->runtime_version) != 0) a->runtime_version = 0;
    a->loaded = 1;
    RLX__DL_UNLOCK();
    return 1;
fail:
    /* the handles stay open (unloading a half-initialised runtime is not safe); the next call tries again */
    a->lib = a->rtclib = NULL;
    RLX__DL_UNLOCK();
    return 0;
}

/* The library, hipInit and at least one device (success is cached; a failure is retried). */
static int rlx__hip_load(char* why, size_t cap) {
    rlx__hip_api* a = &rlx__hip;
    rlx__hipError e;
    if (!rlx__hip_load_lib(why, cap)) return 0;
    RLX__DL_LOCK();
    if (a->ok) { RLX__DL_UNLOCK(); return 1; }
    if ((e = a->hipInit(0)) != 0) {
        rlx__hip_check(e, "hipInit");
        snprintf(why, cap, "%s", rlx__hip_err);
        RLX__DL_UNLOCK();
        return 0;
    }
    a->device_count = 0;
    if ((e = a->hipGetDeviceCount(&a->device_count)) != 0) {
        rlx__hip_check(e, "hipGetDeviceCount");
        snprintf(why, cap, "%s", rlx__hip_err);
        RLX__DL_UNLOCK();
        return 0;
    }
    if (a->device_count < 1) {
        snprintf(why, cap, "no HIP device (hipGetDeviceCount found none)");
        RLX__DL_UNLOCK();
        return 0;
    }
    a->ok = 1;
    RLX__DL_UNLOCK();
    return 1;
}

/* Is s a target name like "gfx90a" or "gfx90a:sramecc+:xnack-" (at most cap-1 characters)? */
static int rlx__hip_arch_ok(const char* s, size_t cap) {
    size_t i;
    if (strncmp(s, "gfx", 3) != 0 || !(s[3] >= '0' && s[3] <= '9')) return 0;
    for (i = 3; i < cap && s[i]; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'z') || s[i] == ':' || s[i] == '+' ||
              s[i] == '-' || s[i] == '_'))
            return 0;
    return i < cap;
}

/* gcnArchName of device `dev` into out (see the top of this section); 0 when it cannot be read. */
static int rlx__hip_device_arch(int dev, char* out, size_t cap) {
    unsigned char* props;
    size_t o, at;
    int found = 0;
    out[0] = 0;
    if (dev >= 0 && dev < RLX__HIP_MAX_DEVICES) {
        RLX__DL_LOCK();
        rlx__strlcpy(out, cap, rlx__hip.arch[dev]);
        RLX__DL_UNLOCK();
        if (out[0]) return 1;
    }
    props = (unsigned char*)calloc(1, RLX__HIP_PROPS_BYTES);
    if (!props) return 0;
    if (rlx__hip.hipGetDeviceProperties(props, dev) == 0) {
        at = RLX__HIP_PROPS_ARCH_OFFSET;
        found = rlx__hip_arch_ok((const char*)props + at, RLX__HIP_ARCH_CAP);
        for (o = 256; !found && o + RLX__HIP_ARCH_CAP < RLX__HIP_PROPS_BYTES; o++) {
            unsigned char prev = props[o - 1];
            int start = !((prev >= '0' && prev <= '9') || (prev >= 'a' && prev <= 'z') || (prev >= 'A' && prev <= 'Z'));
            if (props[o] == 'g' && start && rlx__hip_arch_ok((const char*)props + o, RLX__HIP_ARCH_CAP)) {
                found = 1;
                at = o;
            }
        }
        if (found) rlx__strlcpy(out, cap, (const char*)props + at);
    }
    free(props);
    if (found && dev >= 0 && dev < RLX__HIP_MAX_DEVICES) {
        RLX__DL_LOCK();
        rlx__strlcpy(rlx__hip.arch[dev], sizeof rlx__hip.arch[dev], out);
        RLX__DL_UNLOCK();
    }
    return found;
}

/* Does the compiler behind hipRTC know `arch` (features after ':' ignored)? 1 yes, 0 no, -1 cannot tell
   (libamd_comgr not found). */
static int rlx__hip_arch_known(const char* arch) {
    static const char* const names[] = {
#if defined(_WIN32)
        "amd_comgr_3.dll", "amd_comgr_2.dll", "amd_comgr.dll",
#else
        "libamd_comgr.so.3", "libamd_comgr.so.2", "libamd_comgr.so",
#endif
        NULL};
    rlx__hip_api* a = &rlx__hip;
    size_t n = 0, i, base = strcspn(arch, ":");
    int known = 0;
    void* rlx__dl_tmp;
    RLX__DL_LOCK();
    if (!a->comgr_tried) {
        char path[256];
        const char* slash = strrchr(a->libname, '/');
        a->comgr_tried = 1;
        /* the comgr next to an explicitly named runtime first: that is the one its hipRTC loads */
        for (i = 0; slash && names[i] && !a->comgr; i++) {
            snprintf(path, sizeof path, "%.*s/%s", (int)(slash - a->libname), a->libname, names[i]);
            a->comgr = rlx__dlopen(path);
        }
        if (!a->comgr) a->comgr = rlx__dlopen_first(names, NULL);
        if (a->comgr && (!RLX__DLSYM(a->comgr, a->amd_comgr_get_isa_count, "amd_comgr_get_isa_count") ||
                         !RLX__DLSYM(a->comgr, a->amd_comgr_get_isa_name, "amd_comgr_get_isa_name")))
            a->comgr = NULL;
        if (a->comgr) (void)RLX__DLSYM(a->comgr, a->amd_comgr_get_version, "amd_comgr_get_version");
    }
    if (!a->comgr || a->amd_comgr_get_isa_count(&n) != 0) { RLX__DL_UNLOCK(); return -1; }
    for (i = 0; i < n && !known; i++) {
        const char* isa = NULL;
        const char* t;
        if (a->amd_comgr_get_isa_name(i, &isa) != 0 || !isa) continue;
        t = strstr(isa, "--");   /* "amdgcn-amd-amdhsa--gfx90a" */
        t = t ? t + 2 : isa;
        known = strncmp(t, arch, base) == 0 && (t[base] == 0 || t[base] == ':');
    }
    RLX__DL_UNLOCK();
    return known;
}

/* hipRTC logs name the sources by temporary paths ("/tmp/comgr-1a2b3c/input/CompileSource:12:3",
   "/tmp/comgr-1a2b3c/include/common.cuh:4:1"); shorten them to "MODULE.cu:12:3" and "common.cuh:4:1". */
static void rlx__hip_tidy_log(char* log, const char* module) {
    char* p = log;
    while ((p = strstr(p, "comgr-")) != NULL) {
        char* start = p;
        char* seg;
        char* nl;
        while (start > log && start[-1] != ' ' && start[-1] != '\n' && start[-1] != '\t') start--;
        nl = strchr(p, '\n');
        seg = strchr(p, '/');
        if (!seg || (nl && nl < seg)) { p += 6; continue; }
        seg = strchr(seg + 1, '/');   /* after "input" or "include" */
        if (!seg) break;
        seg++;
        if (strncmp(seg, "CompileSource", 13) == 0) {
            char name[48];
            size_t len;
            snprintf(name, sizeof name, "%.40s.cu", module);
            len = strlen(name);
            seg += 13;
            if ((size_t)(seg - start) >= len) {
                memcpy(start, name, len);
                memmove(start + len, seg, strlen(seg) + 1);
                p = start + len;
                continue;
            }
        }
        memmove(start, seg, strlen(seg) + 1);
        p = start;
    }
}

/* Compiles CUDA C source `src` (named `module`; every embedded header can be #included) with hipRTC for
   `arch`. On success *code (RLX_MALLOC'ed, the caller frees it with RLX_FREE) holds the code object and `log`
   the compiler's messages (normally empty). Errors: RLX_ERROR_DEVICE_UNAVAILABLE (no runtime), RLX_ERROR_UNSUPPORTED
   (an architecture the compiler does not know), RLX_ERROR_KERNEL_COMPILE (the log says why), out of memory. */
static rlx_result rlx__hip_compile_source(const char* module, const char* src, const char* arch, void** code,
                                          size_t* size, char* log, size_t cap) {
    const char* hdrs[8];
    const char* hnames[8];
    static const char* const fixed[] = {RLX__HIP_OPTIONS};
    const char* opts[3];
    char archopt[96];
    void* prog = NULL;
    size_t lsize = 0, csize = 0;
    int nh = 0, i, known;
    rlx__hiprtcResult e;
    rlx_result r = RLX_OK;
    *code = NULL;
    *size = 0;
    if (cap) log[0] = 0;
    if (!rlx__hip_load_lib(log, cap)) return RLX_ERROR_DEVICE_UNAVAILABLE;
    if (!rlx__hip_arch_ok(arch, RLX__HIP_ARCH_CAP)) {
        snprintf(log, cap, "'%.64s' is not a gfx target name", arch);
        return RLX_ERROR_INVALID_ARGUMENT;
    }
    known = rlx__hip_arch_known(arch);
    if (known == 0) {
        snprintf(log, cap, "the hipRTC of %s (runtime %d.%d) cannot compile for %.64s (its compiler does not know it)",
                 rlx__hip.libname, rlx__hip.runtime_version / 10000000, rlx__hip.runtime_version / 100000 % 100, arch);
        return RLX_ERROR_UNSUPPORTED;
    }
    for (i = 0; i < RLX__HIP_SOURCE_COUNT && nh < 8; i++)
        if (strchr(RLX__HIP_SOURCES[i].name, '.')) {
            hdrs[nh] = (const char*)RLX__HIP_SOURCES[i].data;
            hnames[nh++] = RLX__HIP_SOURCES[i].name;
        }
    snprintf(archopt, sizeof archopt, "--offload-arch=%s", arch);
    opts[0] = archopt;
    opts[1] = fixed[0];
    opts[2] = fixed[1];
    RLX__HIP_CODE_LOCK();   /* hipRTC is not reliably thread-safe in older runtimes: one compile at a time */
    e = rlx__hip.hiprtcCreateProgram(&prog, src, module, nh, nh ? hdrs : NULL, nh ? hnames : NULL);
    if (e != 0) {
        snprintf(log, cap, "hiprtcCreateProgram returned %s (%d)", rlx__hiprtc_error(e), e);
        RLX__HIP_CODE_UNLOCK();
        return e == 1 ? RLX_ERROR_OUT_OF_MEMORY : RLX_ERROR_KERNEL_COMPILE;
    }
    e = rlx__hip.hiprtcCompileProgram(prog, 3, opts);
    if (rlx__hip.hiprtcGetProgramLogSize(prog, &lsize) == 0 && lsize > 1) {
        char* full = (char*)RLX_MALLOC(lsize + 1);
        if (full && rlx__hip.hiprtcGetProgramLog(prog, full) == 0) {
            full[lsize] = 0;
            rlx__hip_tidy_log(full, module);
            if (e != 0) snprintf(log, cap, "hipRTC (%s): %s", arch, full);
            else rlx__strlcpy(log, cap, full);
        }
        RLX_FREE(full);
    }
    if (e != 0) {
        if (!cap || !log[0])
            snprintf(log, cap, "hiprtcCompileProgram returned %s (%d)", rlx__hiprtc_error(e), e);
        r = e == 1 ? RLX_ERROR_OUT_OF_MEMORY : RLX_ERROR_KERNEL_COMPILE;
    } else if (rlx__hip.hiprtcGetCodeSize(prog, &csize) != 0 || csize == 0) {
        snprintf(log, cap, "hipRTC produced no code object for %s", arch);
        r = RLX_ERROR_KERNEL_COMPILE;
    } else if (!(*code = RLX_MALLOC(csize))) {
        r = RLX_ERROR_OUT_OF_MEMORY;
    } else if ((e = rlx__hip.hiprtcGetCode(prog, (char*)*code)) != 0) {
        snprintf(log, cap, "hiprtcGetCode returned %s (%d)", rlx__hiprtc_error(e), e);
        RLX_FREE(*code);
        *code = NULL;
        r = RLX_ERROR_KERNEL_COMPILE;
    } else {
        *size = csize;
    }
    rlx__hip.hiprtcDestroyProgram(&prog);
    RLX__HIP_CODE_UNLOCK();
    return r;
}

/* The embedded source of `module` (NULL if there is none). */
static const rlx__kernel_blob* rlx__hip_source(const char* module) {
    int i;
    for (i = 0; i < RLX__HIP_SOURCE_COUNT; i++)
        if (!strchr(RLX__HIP_SOURCES[i].name, '.') && strcmp(RLX__HIP_SOURCES[i].name, module) == 0)
            return &RLX__HIP_SOURCES[i];
    return NULL;
}

/* Compiles the embedded kernel module `module` (e.g. "elementwise") for `arch`, without any cache. */
static rlx_result rlx__hip_compile(const char* module, const char* arch, void** code, size_t* size, char* log,
                                   size_t cap) {
    const rlx__kernel_blob* s = rlx__hip_source(module);
    if (!s) {
        *code = NULL;
        *size = 0;
        snprintf(log, cap, "no embedded HIP source for kernel module '%.40s' (regenerate rlx_kernels_ptx.h with `make kernels`)", module);
        return RLX_ERROR_UNSUPPORTED;
    }
    return rlx__hip_compile_source(module, (const char*)s->data, arch, code, size, log, cap);
}

/* ---- code objects cached for the process (memory) and across processes (disk) ---- */
typedef struct rlx__hip_code {
    struct rlx__hip_code* next;
    char module[48];
    char arch[RLX__HIP_ARCH_CAP];
    void* code;
    size_t size;
} rlx__hip_code;
static rlx__hip_code* rlx__hip_codes;   /* kept for the life of the process */

#if !defined(RLX_NO_HIP_DISK_CACHE)
static uint64_t rlx__hip_fnv(uint64_t h, const void* p, size_t n) {
    const unsigned char* s = (const unsigned char*)p;
    size_t i;
    for (i = 0; i < n; i++) { h ^= s[i]; h *= 0x100000001B3ull; }
    return h;
}

/* Cache file of (module, arch) with the key of everything that determines its code; 0 when caching is off. */
static int rlx__hip_cache_file(const char* module, const char* arch, char* path, size_t cap, uint64_t* key) {
    const char* env = getenv("RLX_HIP_CACHE");
    const rlx__kernel_blob* s = rlx__hip_source(module);
    char dir[400], a[RLX__HIP_ARCH_CAP];
    uint64_t h = 0xCBF29CE484222325ull;
    int i, v[3];
    size_t k, cv[2] = {0, 0};
    if (!s || (env && strcmp(env, "0") == 0)) return 0;
    if (env && env[0]) {
        snprintf(dir, sizeof dir, "%s", env);
        RLX__HIP_MKDIR(dir);
    } else {
#if defined(_WIN32)
        const char* base = getenv("LOCALAPPDATA");
        if (!base || !base[0]) return 0;
        snprintf(dir, sizeof dir, "%s\\rlx", base);
#else
        const char* xdg = getenv("XDG_CACHE_HOME");
        const char* home = getenv("HOME");
        if (xdg && xdg[0] == '/') {
            snprintf(dir, sizeof dir, "%s", xdg);
        } else if (home && home[0]) {
            snprintf(dir, sizeof dir, "%s/.cache", home);
        } else {
            return 0;
        }
        RLX__HIP_MKDIR(dir);
        k = strlen(dir);
        snprintf(dir + k, sizeof dir - k, "/rlx");
#endif
        RLX__HIP_MKDIR(dir);
    }
    /* key: format tag, sources (module and every header), arch, options, runtime and hipRTC versions */
    h = rlx__hip_fnv(h, "rlx-hip-code-1", 15);
    h = rlx__hip_fnv(h, s->data, s->size + 1);
    for (i = 0; i < RLX__HIP_SOURCE_COUNT; i++)
        if (strchr(RLX__HIP_SOURCES[i].name, '.')) {
            h = rlx__hip_fnv(h, RLX__HIP_SOURCES[i].name, strlen(RLX__HIP_SOURCES[i].name) + 1);
            h = rlx__hip_fnv(h, RLX__HIP_SOURCES[i].data, RLX__HIP_SOURCES[i].size + 1);
        }
    h = rlx__hip_fnv(h, arch, strlen(arch) + 1);
    h = rlx__hip_fnv(h, RLX__HIP_OPTIONS_KEY, sizeof RLX__HIP_OPTIONS_KEY);
    v[0] = rlx__hip.runtime_version;
    v[1] = rlx__hip.rtc_major;
    v[2] = rlx__hip.rtc_minor;
    h = rlx__hip_fnv(h, v, sizeof v);
    if (rlx__hip_arch_known(arch) >= 0 && rlx__hip.amd_comgr_get_version) rlx__hip.amd_comgr_get_version(&cv[0], &cv[1]);
    h = rlx__hip_fnv(h, cv, sizeof cv);
    h = rlx__hip_fnv(h, rlx__hip.libname, strlen(rlx__hip.libname) + 1);
    for (k = 0; arch[k] && k + 1 < sizeof a; k++) a[k] = arch[k] == ':' ? '_' : arch[k];
    a[k] = 0;
    *key = h;
    k = (size_t)snprintf(path, cap, "%s%c%.40s-%s-%016llx.hsaco", dir,
#if defined(_WIN32)
                         '\\',
#else
                         '/',
#endif
                         module, a, (unsigned long long)h);
    return k < cap;
}

static void rlx__hip_put64(unsigned char* p, uint64_t v) {
    int i;
    for (i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static uint64_t rlx__hip_get64(const unsigned char* p) {
    uint64_t v = 0;
    int i;
    for (i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

/* File: "RLXHSACO", key, size, FNV-1a of the code (8 bytes each, little endian), then the code object. */
static int rlx__hip_cache_read(const char* path, uint64_t key, void** code, size_t* size) {
    unsigned char hdr[32];
    FILE* f = fopen(path, "rb");
    uint64_t n;
    void* buf;
    if (!f) return 0;
    if (fread(hdr, 1, 32, f) != 32 || memcmp(hdr, "RLXHSACO", 8) != 0 || rlx__hip_get64(hdr + 8) != key ||
        (n = rlx__hip_get64(hdr + 16)) == 0 || n > ((uint64_t)1 << 31) || !(buf = RLX_MALLOC((size_t)n))) {
        fclose(f);
        return 0;
    }
    if (fread(buf, 1, (size_t)n, f) != (size_t)n || fgetc(f) != EOF ||
        rlx__hip_fnv(0xCBF29CE484222325ull, buf, (size_t)n) != rlx__hip_get64(hdr + 24)) {
        RLX_FREE(buf);
        fclose(f);
        return 0;
    }
    fclose(f);
    *code = buf;
    *size = (size_t)n;
    return 1;
}

static void rlx__hip_cache_write(const char* path, uint64_t key, const void* code, size_t size) {
    unsigned char hdr[32];
    char tmp[560];
    FILE* f;
    int ok;
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, RLX__HIP_GETPID());
    if (!(f = fopen(tmp, "wb"))) return;
    memcpy(hdr, "RLXHSACO", 8);
    rlx__hip_put64(hdr + 8, key);
    rlx__hip_put64(hdr + 16, (uint64_t)size);
    rlx__hip_put64(hdr + 24, rlx__hip_fnv(0xCBF29CE484222325ull, code, size));
    ok = fwrite(hdr, 1, 32, f) == 32 && fwrite(code, 1, size, f) == size;
    ok = fclose(f) == 0 && ok;
    if (ok && rename(tmp, path) != 0) {   /* Windows does not replace an existing file */
        remove(path);
        ok = rename(tmp, path) == 0;
    }
    if (!ok) remove(tmp);
}
#endif /* !RLX_NO_HIP_DISK_CACHE */

/* The code object of `module` for `arch`: from the process cache, else the disk cache, else compiled (and
   stored in both). The returned code belongs to the cache. */
static rlx_result rlx__hip_code_get(const char* module, const char* arch, const void** code, size_t* size, char* log,
                                    size_t cap) {
    rlx__hip_code* c;
    void* buf = NULL;
    size_t n = 0;
    rlx_result r = RLX_OK;
#if !defined(RLX_NO_HIP_DISK_CACHE)
    char path[512];
    uint64_t key = 0;
    int disk;
#endif
    if (cap) log[0] = 0;
    RLX__DL_LOCK();
    for (c = rlx__hip_codes; c; c = c->next)
        if (strcmp(c->module, module) == 0 && strcmp(c->arch, arch) == 0) break;
    RLX__DL_UNLOCK();
    if (c) { *code = c->code; *size = c->size; return RLX_OK; }
    if (strlen(module) >= sizeof c->module || strlen(arch) >= sizeof c->arch) {
        snprintf(log, cap, "kernel module or target name too long");
        return RLX_ERROR_INVALID_ARGUMENT;
    }
    if (!rlx__hip_load_lib(log, cap)) return RLX_ERROR_DEVICE_UNAVAILABLE;
#if !defined(RLX_NO_HIP_DISK_CACHE)
    disk = rlx__hip_cache_file(module, arch, path, sizeof path, &key);
    if (!disk || !rlx__hip_cache_read(path, key, &buf, &n)) {
        r = rlx__hip_compile(module, arch, &buf, &n, log, cap);
        if (r == RLX_OK && disk) rlx__hip_cache_write(path, key, buf, n);
    }
#else
    r = rlx__hip_compile(module, arch, &buf, &n, log, cap);
#endif
    if (r != RLX_OK) return r;
    c = (rlx__hip_code*)RLX_MALLOC(sizeof *c);
    if (!c) { RLX_FREE(buf); return RLX_ERROR_OUT_OF_MEMORY; }
    memset(c, 0, sizeof *c);
    rlx__strlcpy(c->module, sizeof c->module, module);
    rlx__strlcpy(c->arch, sizeof c->arch, arch);
    c->code = buf;
    c->size = n;
    RLX__DL_LOCK();
    {
        rlx__hip_code* d;   /* another thread may have added it meanwhile: keep the first */
        for (d = rlx__hip_codes; d; d = d->next)
            if (strcmp(d->module, module) == 0 && strcmp(d->arch, arch) == 0) break;
        if (!d) { c->next = rlx__hip_codes; rlx__hip_codes = c; d = c; }
        *code = d->code;
        *size = d->size;
        RLX__DL_UNLOCK();
        if (d != c) { RLX_FREE(c->code); RLX_FREE(c); }
    }
    return RLX_OK;
}

/* Drops the process cache of code objects (loaded modules keep working: the driver copied the code). */
static RLX__HIP_MAYBE_UNUSED void rlx__hip_code_clear(void) {
    rlx__hip_code* c;
    RLX__DL_LOCK();
    c = rlx__hip_codes;
    rlx__hip_codes = NULL;
    RLX__DL_UNLOCK();
    while (c) {
        rlx__hip_code* next = c->next;
        RLX_FREE(c->code);
        RLX_FREE(c);
        c = next;
    }
}

/* ---- the rlx__gpuapi table ---- */
static rlx_result rlx__hip_set_device(int index, void** ctx) {
    *ctx = NULL;   /* HIP has no context to retain: the device is current per thread */
    return rlx__hip_check(rlx__hip.hipSetDevice(index), "hipSetDevice");
}
static void rlx__hip_release_device(int index, void* ctx) { RLX__UNUSED(index); RLX__UNUSED(ctx); }
static rlx_result rlx__hip_make_current(int index, void* ctx) {
    RLX__UNUSED(ctx);
    return rlx__hip_check(rlx__hip.hipSetDevice(index), "hipSetDevice");
}
static rlx_result rlx__hip_mem_alloc(uint64_t* p, size_t n) {
    void* d = NULL;
    rlx_result r = rlx__hip_check(rlx__hip.hipMalloc(&d, n), "hipMalloc");
    *p = (uint64_t)(uintptr_t)d;
    return r;
}
static void rlx__hip_mem_free(uint64_t p) { rlx__hip.hipFree((void*)(uintptr_t)p); }
static rlx_result rlx__hip_htod(uint64_t d, const void* s, size_t n) {
    return n ? rlx__hip_check(rlx__hip.hipMemcpyHtoD((void*)(uintptr_t)d, (void*)(uintptr_t)s, n), "hipMemcpyHtoD") : RLX_OK;
}
static rlx_result rlx__hip_dtoh(void* d, uint64_t s, size_t n) {
    return n ? rlx__hip_check(rlx__hip.hipMemcpyDtoH(d, (void*)(uintptr_t)s, n), "hipMemcpyDtoH") : RLX_OK;
}
static rlx_result rlx__hip_memset0(uint64_t d, size_t n) {
    return rlx__hip_check(rlx__hip.hipMemset((void*)(uintptr_t)d, 0, n), "hipMemset");
}
static void* rlx__hip_host_alloc(size_t n) {
    void* p = NULL;
    return rlx__hip.hipHostMalloc(&p, n ? n : 1, 0 /* hipHostMallocDefault */) == 0 ? p : NULL;
}
static void rlx__hip_host_free(void* p) { rlx__hip.hipHostFree(p); }
/* Compiles (or finds cached) the module for the architecture of the current device, then loads it. */
static rlx_result rlx__hip_module_load(const char* module, int sm, void** mod, char* msg, size_t cap) {
    char arch[RLX__HIP_ARCH_CAP];
    const void* code = NULL;
    size_t size = 0;
    int dev = 0;
    rlx_result r;
    RLX__UNUSED(sm);
    if ((r = rlx__hip_check(rlx__hip.hipGetDevice(&dev), "hipGetDevice")) != RLX_OK) {
        snprintf(msg, cap, "%s", rlx__hip_err);
        return r;
    }
    if (!rlx__hip_device_arch(dev, arch, sizeof arch)) {
        snprintf(msg, cap, "cannot read the gfx architecture of HIP device %d", dev);
        return RLX_ERROR_UNSUPPORTED;
    }
    if ((r = rlx__hip_code_get(module, arch, &code, &size, msg, cap)) != RLX_OK) return r;
    if ((r = rlx__hip_check(rlx__hip.hipModuleLoadData(mod, code), "hipModuleLoadData")) != RLX_OK) {
        snprintf(msg, cap, "%s (%s code object, %zu bytes)", rlx__hip_err, arch, size);
        return r == RLX_ERROR_OUT_OF_MEMORY ? r : RLX_ERROR_KERNEL_COMPILE;
    }
    return RLX_OK;
}
static void rlx__hip_module_unload(void* m) { rlx__hip.hipModuleUnload(m); }
static rlx_result rlx__hip_function(void* mod, const char* name, void** fn) {
    return rlx__hip_check(rlx__hip.hipModuleGetFunction(fn, mod, name), "hipModuleGetFunction");
}
static rlx_result rlx__hip_launch(void* fn, const unsigned* g, const unsigned* b, unsigned shmem, void* s, void* args) {
    return rlx__hip_check(rlx__hip.hipModuleLaunchKernel(fn, g[0], g[1], g[2], b[0], b[1], b[2], shmem, s, (void**)args, NULL),
                          "hipModuleLaunchKernel");
}
static rlx_result rlx__hip_stream_create(void** s) {
    /* a blocking stream (hipStreamDefault): ordered with the null-stream copies and memsets of the wrappers above */
    return rlx__hip_check(rlx__hip.hipStreamCreateWithFlags(s, 0), "hipStreamCreateWithFlags");
}
static void rlx__hip_stream_destroy(void* s) { rlx__hip.hipStreamDestroy(s); }
static rlx_result rlx__hip_sync(void* s) { return rlx__hip_check(rlx__hip.hipStreamSynchronize(s), "hipStreamSynchronize"); }

/* Profiling timer: n events recorded on the program's stream. */
typedef struct rlx__hip_timer { int n; void* ev[1]; } rlx__hip_timer;
static void rlx__hip_timer_destroy(void* t) {
    rlx__hip_timer* tm = (rlx__hip_timer*)t;
    int i;
    if (!tm) return;
    for (i = 0; i < tm->n; i++)
        if (tm->ev[i]) rlx__hip.hipEventDestroy(tm->ev[i]);
    free(tm);
}
static rlx_result rlx__hip_timer_create(void* s, int n, void** t, char* why, size_t cap) {
    rlx__hip_timer* tm;
    rlx_result r = RLX_OK;
    int i;
    RLX__UNUSED(s);
    *t = NULL;
    if (!rlx__hip.hipEventCreate) { snprintf(why, cap, "HIP: the runtime lacks the event entry points"); return RLX_ERROR_UNSUPPORTED; }
    tm = (rlx__hip_timer*)calloc(1, sizeof *tm + sizeof(void*) * (size_t)n);
    if (!tm) { snprintf(why, cap, "HIP: out of memory for %d events", n); return RLX_ERROR_OUT_OF_MEMORY; }
    for (i = 0; i < n && r == RLX_OK; i++, tm->n++) r = rlx__hip_check(rlx__hip.hipEventCreate(&tm->ev[i]), "hipEventCreate");
    if (r != RLX_OK) { snprintf(why, cap, "HIP: %s", rlx__hip_err); rlx__hip_timer_destroy(tm); return r; }
    *t = tm;
    return RLX_OK;
}
static rlx_result rlx__hip_timer_stamp(void* t, int k, void* s) {
    return rlx__hip_check(rlx__hip.hipEventRecord(((rlx__hip_timer*)t)->ev[k], s), "hipEventRecord");
}
static rlx_result rlx__hip_timer_read(void* t, int n, double* us) {
    rlx__hip_timer* tm = (rlx__hip_timer*)t;
    int i;
    us[0] = 0.0;
    for (i = 1; i < n; i++) {
        float ms = 0.0f;
        rlx_result r = rlx__hip_check(rlx__hip.hipEventElapsedTime(&ms, tm->ev[0], tm->ev[i]), "hipEventElapsedTime");
        if (r != RLX_OK) return r;
        us[i] = (double)ms * 1e3;
    }
    return RLX_OK;
}

/* No graphs: stream capture of hipModuleLaunchKernel is missing or unreliable in the runtimes this supports,
   so the launches are issued one by one. */
static const rlx__gpuapi rlx__hip_gpuapi = {
    RLX_DEVICE_HIP, rlx__hip_set_device, rlx__hip_release_device, rlx__hip_mem_alloc, rlx__hip_mem_free, rlx__hip_htod,
    rlx__hip_dtoh, rlx__hip_memset0, rlx__hip_host_alloc, rlx__hip_host_free, rlx__hip_module_load,
    rlx__hip_module_unload, rlx__hip_function, rlx__hip_launch, rlx__hip_stream_create, rlx__hip_stream_destroy,
    rlx__hip_sync, NULL, NULL, NULL, NULL, rlx__hip_last_error, rlx__hip_make_current, 0, rlx__hip_timer_create,
    rlx__hip_timer_destroy, rlx__hip_timer_stamp, rlx__hip_timer_read};

/* Availability of HIP device `index`: name "NAME (gfxARCH)", a reason; *sm is 0 (the architecture is kept in
   the per-process HIP state and used when the kernels are compiled). */
static int rlx__hip_probe(int index, char* name, size_t ncap, char* reason, size_t rcap, int* sm) {
    char nm[96], arch[RLX__HIP_ARCH_CAP];
    int dev = 0, v;
    *sm = 0;
    snprintf(name, ncap, "hip device %d", index);
    if (!rlx__hip_load(reason, rcap)) return 0;
    v = rlx__hip.runtime_version;
    if (index >= rlx__hip.device_count) {
        snprintf(reason, rcap, "HIP device %d does not exist (%d found)", index, rlx__hip.device_count);
        return 0;
    }
    if (rlx__hip.hipDeviceGet(&dev, index) != 0 || rlx__hip.hipDeviceGetName(nm, (int)sizeof nm, dev) != 0) {
        snprintf(reason, rcap, "hipDeviceGet/hipDeviceGetName failed for device %d", index);
        return 0;
    }
    nm[sizeof nm - 1] = 0;
    if (!rlx__hip_device_arch(index, arch, sizeof arch)) {
        snprintf(name, ncap, "%.80s", nm);
        snprintf(reason, rcap, "cannot read the gfx architecture of %.80s (hipGetDeviceProperties)", nm);
        return 0;
    }
    snprintf(name, ncap, "%.60s (%.30s)", nm, arch);
    if (RLX__HIP_SOURCE_COUNT == 0) {
        snprintf(reason, rcap, "rlx_kernels_ptx.h has no HIP kernel sources (regenerate it with `make kernels`)");
        return 0;
    }
    if (rlx__hip_arch_known(arch) == 0) {
        snprintf(reason, rcap, "the hipRTC of HIP runtime %d.%d cannot compile for %s", v / 10000000, v / 100000 % 100, arch);
        return 0;
    }
    snprintf(reason, rcap, "HIP runtime %d.%d, %d device(s), kernels compiled by hipRTC", v / 10000000,
             v / 100000 % 100, rlx__hip.device_count);
    return 1;
}

/* For rlx_devices: how many HIP devices (0 without a usable runtime); memory and runtime of device `index`. */
static int rlx__hip_count(void) {
    char why[200];
    return rlx__hip_load(why, sizeof why) ? rlx__hip.device_count : 0;
}
static void rlx__hip_details(int index, uint64_t* mem, char* drv, size_t cap) {
    size_t b = 0;
    int v = rlx__hip.runtime_version;
    if (!rlx__hip.ok || index < 0 || index >= rlx__hip.device_count) return;
    snprintf(drv, cap, "HIP runtime %d.%d", v / 10000000, v / 100000 % 100);
    if (rlx__hip.hipDeviceTotalMem && rlx__hip.hipDeviceTotalMem(&b, index) == 0) *mem = (uint64_t)b;
}
#endif /* !RLX_NO_HIP */
/* ------------------------------------------------------------------------------------------------------------
   >>vulkan  (through volk: the loader is found at run time; rlx owns its instance, device and a VolkDeviceTable)

   The Vulkan backend runs the same lowering as CUDA (rlx__cuda_lower, every node -> launches with one rlx__kargs)
   with the GLSL ports of the kernels (kernels/vulkan, SPIR-V in rlx_kernels_spv.h). Memory is reached by buffer
   device address, so a tensor is a 64-bit address exactly as in CUDA; each launch's kargs live in device memory
   and its push constant is their address. At compile time every launch is recorded once into one command
   buffer (global memory barrier between dispatches), replayed by each run and waited for with a timeout.
   Requirements: Vulkan 1.2 and the features bufferDeviceAddress, shaderInt64, shaderFloat64, shaderInt16,
   shaderInt8, storageBuffer8BitAccess, storageBuffer16BitAccess. Devices are ordered discrete GPUs first, then
   integrated, virtual and CPU implementations; rlx_compile_desc.device_index picks one of that order.
   RLX_DEVICE_AUTO does not pick a CPU implementation (lavapipe, SwiftShader): the CPU backend is faster.
   ------------------------------------------------------------------------------------------------------------ */
#if defined(RLX__HAS_VULKAN)
#include "rlx_kernels_spv.h"
#if !defined(RLX_KERNELS_SPV_VERSION)
#  error "rlx.h: rlx_kernels_spv.h is not a generated kernel header"
#endif

#ifndef RLX_VULKAN_TIMEOUT_MS
#  define RLX_VULKAN_TIMEOUT_MS 60000   /* a run that takes longer is reported as a lost device */
#endif
/* The fence timeout in nanoseconds: RLX_VULKAN_TIMEOUT_MS, or the environment variable of the same name. */
static uint64_t rlx__vk_timeout_ns(void) {
    const char* e = getenv("RLX_VULKAN_TIMEOUT_MS");
    long v = e && e[0] ? strtol(e, NULL, 10) : 0;
    return (uint64_t)(v > 0 ? v : RLX_VULKAN_TIMEOUT_MS) * 1000000ull;
}
#define RLX__VK_MAX_DEVICES 16
#define RLX__VK_KARGS_PER_CHUNK 256

#  if !defined(RLX_NO_THREADS) && !defined(_WIN32)
static pthread_mutex_t rlx__vk_mutex = PTHREAD_MUTEX_INITIALIZER;
#    define RLX__VK_LOCK() pthread_mutex_lock(&rlx__vk_mutex)
#    define RLX__VK_UNLOCK() pthread_mutex_unlock(&rlx__vk_mutex)
#  elif !defined(RLX_NO_THREADS) && defined(_WIN32)
static SRWLOCK rlx__vk_lock = SRWLOCK_INIT;
#    define RLX__VK_LOCK() AcquireSRWLockExclusive(&rlx__vk_lock)
#    define RLX__VK_UNLOCK() ReleaseSRWLockExclusive(&rlx__vk_lock)
#  else
#    define RLX__VK_LOCK() ((void)0)
#    define RLX__VK_UNLOCK() ((void)0)
#  endif

typedef struct rlx__vkalloc {     /* one device allocation: a buffer with its own memory */
    uint64_t addr;
    size_t size;
    VkBuffer buf;
    VkDeviceMemory mem;
    void* map;                    /* host pointer when the memory is host-visible and coherent */
} rlx__vkalloc;

typedef struct rlx__vkpipe { unsigned block, smem_words; VkPipeline pipe; } rlx__vkpipe;
typedef struct rlx__vkfn {        /* a kernel: its shader module and pipelines per (block size, shared memory) */
    char name[64];
    VkShaderModule shader;
    rlx__vkpipe* pipes;
    int npipes, cap;
} rlx__vkfn;

typedef struct rlx__vkdev {
    int refs, index;
    VkPhysicalDevice pd;
    VkDevice dev;
    VkQueue queue;
    uint32_t qfam;
    struct VolkDeviceTable vk;
    VkPhysicalDeviceMemoryProperties memprops;
    VkPhysicalDeviceType type;
    uint32_t max_groups[3], smem;
    uint64_t max_alloc;
    VkPipelineLayout layout;
    VkCommandPool pool;
    VkCommandBuffer xfer;         /* uploads, downloads and fills (one at a time, under the lock) */
    VkFence xfer_fence;
    rlx__vkalloc staging;
    rlx__vkalloc* allocs;
    int nallocs, cap_allocs;
    rlx__vkfn* fns[128];
    int nfns;
    int lost;                     /* a fence timed out or the device was lost: no more waiting on it */
    uint64_t timeout_ns;          /* fence timeout (rlx__vk_timeout_ns, read when the device opens) */
    uint32_t ts_bits;             /* timestampValidBits of the queue family (0: no timestamps) */
    float ts_period;              /* nanoseconds per timestamp tick */
} rlx__vkdev;

typedef struct rlx__vkstream {    /* per program: its command buffer while recording, its fence */
    rlx__vkdev* d;
    VkCommandBuffer cmd;
    VkFence fence;
    int recording, pending, ndispatch;
    uint64_t* chunks;             /* kargs chunks (device addresses) of the recording */
    unsigned char** chunk_host;   /* their contents until the recording ends */
    int nchunks, used;            /* kargs used in the last chunk */
} rlx__vkstream;

typedef struct rlx__vkexec { VkCommandBuffer cmd; uint64_t* chunks; int nchunks; rlx__vkdev* d; } rlx__vkexec;

typedef struct rlx__vkmod { rlx__vkdev* d; char name[32]; } rlx__vkmod;

/* process-wide: the loader, rlx's own instance and the devices it opened */
static struct {
    int tried, ok;
    char why[200];
    void* lib;                    /* loader opened through RLX_VULKAN_LOADER */
    VkInstance inst;
    uint32_t api;
    PFN_vkDestroyInstance DestroyInstance;
    PFN_vkEnumeratePhysicalDevices EnumeratePhysicalDevices;
    PFN_vkGetPhysicalDeviceProperties GetPhysicalDeviceProperties;
    PFN_vkGetPhysicalDeviceProperties2 GetPhysicalDeviceProperties2;
    PFN_vkGetPhysicalDeviceFeatures2 GetPhysicalDeviceFeatures2;
    PFN_vkGetPhysicalDeviceQueueFamilyProperties GetPhysicalDeviceQueueFamilyProperties;
    PFN_vkGetPhysicalDeviceMemoryProperties GetPhysicalDeviceMemoryProperties;
    PFN_vkCreateDevice CreateDevice;
    PFN_vkGetDeviceProcAddr GetDeviceProcAddr;
    VkPhysicalDevice pds[RLX__VK_MAX_DEVICES];   /* usable or not, in rlx's order */
    int npds;
    rlx__vkdev* devs[RLX__VK_MAX_DEVICES];
} rlx__vk;
/* The device this thread talks to (make_current). Without thread-local storage (RLX__NO_TLS: tcc) it is kept
   under a pthread key. */
#if !defined(RLX__NO_TLS)
static RLX__TLS rlx__vkdev* rlx__vk_cur;
static rlx__vkdev* rlx__vk_get_cur(void) { return rlx__vk_cur; }
static void rlx__vk_set_cur(rlx__vkdev* d) { rlx__vk_cur = d; }
#elif !defined(_WIN32)
static pthread_key_t rlx__vk_cur_key;
static pthread_once_t rlx__vk_cur_once = PTHREAD_ONCE_INIT;
static void rlx__vk_cur_key_create(void) { pthread_key_create(&rlx__vk_cur_key, NULL); }
static rlx__vkdev* rlx__vk_get_cur(void) {
    pthread_once(&rlx__vk_cur_once, rlx__vk_cur_key_create);
    return (rlx__vkdev*)pthread_getspecific(rlx__vk_cur_key);
}
static void rlx__vk_set_cur(rlx__vkdev* d) {
    pthread_once(&rlx__vk_cur_once, rlx__vk_cur_key_create);
    pthread_setspecific(rlx__vk_cur_key, d);
}
#else
#  error "rlx.h: the Vulkan backend needs thread-local storage on Windows; define RLX_NO_VULKAN or RLX_NO_THREADS"
#endif
static RLX__TLS char rlx__vk_err[256];

static rlx_result rlx__vk_check(VkResult v, const char* what) {
    if (v == VK_SUCCESS) return RLX_OK;
    snprintf(rlx__vk_err, sizeof rlx__vk_err, "%s returned VkResult %d%s", what, (int)v,
             v == VK_ERROR_DEVICE_LOST ? " (device lost)" : v == VK_ERROR_OUT_OF_DEVICE_MEMORY ? " (out of device memory)" :
             v == VK_ERROR_OUT_OF_HOST_MEMORY ? " (out of host memory)" : v == VK_TIMEOUT ? " (timed out)" : "");
    if (v == VK_ERROR_OUT_OF_DEVICE_MEMORY || v == VK_ERROR_OUT_OF_HOST_MEMORY) return RLX_ERROR_OUT_OF_MEMORY;
    if (v == VK_ERROR_DEVICE_LOST || v == VK_TIMEOUT) return RLX_ERROR_DEVICE_LOST;
    return RLX_ERROR_LAUNCH;
}
static const char* rlx__vk_last_error(void) { return rlx__vk_err[0] ? rlx__vk_err : "unknown Vulkan error"; }

/* An empty features chain: Vulkan 1.0 features -> 1.1 -> 1.2. */
static void rlx__vk_feature_chain(VkPhysicalDeviceFeatures2* f, VkPhysicalDeviceVulkan11Features* f11,
                                  VkPhysicalDeviceVulkan12Features* f12) {
    memset(f, 0, sizeof *f);
    memset(f11, 0, sizeof *f11);
    memset(f12, 0, sizeof *f12);
    f->sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    f11->sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
    f12->sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    f->pNext = f11;
    f11->pNext = f12;
}

/* What a device lacks of rlx's requirements ("" if nothing). */
static void rlx__vk_missing(VkPhysicalDevice pd, char* out, size_t cap) {
    VkPhysicalDeviceProperties pr;
    VkPhysicalDeviceFeatures2 f;
    VkPhysicalDeviceVulkan11Features f11;
    VkPhysicalDeviceVulkan12Features f12;
    size_t n = 0;
    out[0] = 0;
    rlx__vk.GetPhysicalDeviceProperties(pd, &pr);
    if (pr.apiVersion < VK_API_VERSION_1_2 || rlx__vk.api < VK_API_VERSION_1_2) {
        snprintf(out, cap, "Vulkan 1.2 (the device has %u.%u, the instance %u.%u)", VK_VERSION_MAJOR(pr.apiVersion),
                 VK_VERSION_MINOR(pr.apiVersion), VK_VERSION_MAJOR(rlx__vk.api), VK_VERSION_MINOR(rlx__vk.api));
        return;
    }
    rlx__vk_feature_chain(&f, &f11, &f12);
    rlx__vk.GetPhysicalDeviceFeatures2(pd, &f);
#define RLX__VK_NEED(cond, nm) \
    if (!(cond)) n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%s%s", n ? ", " : "", nm); \
    if (n >= cap) n = cap - 1
    RLX__VK_NEED(f12.bufferDeviceAddress, "bufferDeviceAddress");
    RLX__VK_NEED(f.features.shaderInt64, "shaderInt64");
    RLX__VK_NEED(f.features.shaderFloat64, "shaderFloat64");
    RLX__VK_NEED(f.features.shaderInt16, "shaderInt16");
    RLX__VK_NEED(f12.shaderInt8, "shaderInt8");
    RLX__VK_NEED(f12.storageBuffer8BitAccess, "storageBuffer8BitAccess");
    RLX__VK_NEED(f11.storageBuffer16BitAccess, "storageBuffer16BitAccess");
#undef RLX__VK_NEED
}

static int rlx__vk_type_rank(VkPhysicalDeviceType t) {
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 3;
    default: return 4;
    }
}

/* Loads the Vulkan loader (once per process) and creates rlx's instance; 0 with a reason when impossible. */
static int rlx__vk_load(char* reason, size_t rcap) {
    RLX__VK_LOCK();
    if (!rlx__vk.tried) {
        const char* env = getenv("RLX_VULKAN_LOADER");
        VkApplicationInfo app;
        VkInstanceCreateInfo ci;
        VkResult v;
        uint32_t n = RLX__VK_MAX_DEVICES, i, j;
        VkPhysicalDevice pds[RLX__VK_MAX_DEVICES];
        rlx__vk.tried = 1;
        if (env && env[0]) {   /* an explicit loader library (also how the tests simulate a missing loader) */
            PFN_vkGetInstanceProcAddr gipa = NULL;
            void* tmp;
            rlx__vk.lib = rlx__dlopen(env);
            tmp = rlx__vk.lib ? rlx__dlsym_raw(rlx__vk.lib, "vkGetInstanceProcAddr") : NULL;
            memcpy(&gipa, &tmp, sizeof gipa);
            if (!gipa) {
                snprintf(rlx__vk.why, sizeof rlx__vk.why, "cannot load the Vulkan loader '%.120s' (RLX_VULKAN_LOADER)", env);
                goto done;
            }
            volkInitializeCustom(gipa);
        } else if (!vkGetInstanceProcAddr && volkInitialize() != VK_SUCCESS) {
            /* (a host application that initialised volk itself keeps its loader) */
            snprintf(rlx__vk.why, sizeof rlx__vk.why, "no Vulkan loader found (libvulkan.so.1 / vulkan-1.dll / libvulkan.dylib)");
            goto done;
        }
        rlx__vk.api = volkGetInstanceVersion();
        if (rlx__vk.api < VK_API_VERSION_1_1) {
            snprintf(rlx__vk.why, sizeof rlx__vk.why, "the Vulkan loader is older than 1.1");
            goto done;
        }
        if (rlx__vk.api > VK_API_VERSION_1_2) rlx__vk.api = VK_API_VERSION_1_2;
        memset(&app, 0, sizeof app);
        app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
        app.pApplicationName = "rlx.h";
        app.pEngineName = "rlx.h";
        app.apiVersion = rlx__vk.api;
        memset(&ci, 0, sizeof ci);
        ci.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
        ci.pApplicationInfo = &app;
        v = vkCreateInstance(&ci, NULL, &rlx__vk.inst);
        if (v != VK_SUCCESS) {
            snprintf(rlx__vk.why, sizeof rlx__vk.why, "vkCreateInstance failed (VkResult %d): no Vulkan driver installed?", (int)v);
            goto done;
        }
        /* rlx's own instance functions: volk's globals (which a host application may use) stay untouched */
#define RLX__VK_IFN(name) \
    do { PFN_vkVoidFunction f_ = vkGetInstanceProcAddr(rlx__vk.inst, "vk" #name); memcpy(&rlx__vk.name, &f_, sizeof f_); } while (0)
        RLX__VK_IFN(DestroyInstance);
        RLX__VK_IFN(EnumeratePhysicalDevices);
        RLX__VK_IFN(GetPhysicalDeviceProperties);
        RLX__VK_IFN(GetPhysicalDeviceProperties2);
        RLX__VK_IFN(GetPhysicalDeviceFeatures2);
        RLX__VK_IFN(GetPhysicalDeviceQueueFamilyProperties);
        RLX__VK_IFN(GetPhysicalDeviceMemoryProperties);
        RLX__VK_IFN(CreateDevice);
        RLX__VK_IFN(GetDeviceProcAddr);
#undef RLX__VK_IFN
        if (!rlx__vk.EnumeratePhysicalDevices || !rlx__vk.GetPhysicalDeviceFeatures2 || !rlx__vk.CreateDevice ||
            !rlx__vk.GetDeviceProcAddr || !rlx__vk.GetPhysicalDeviceProperties2) {
            snprintf(rlx__vk.why, sizeof rlx__vk.why, "the Vulkan loader lacks Vulkan 1.1 instance functions");
            goto done;
        }
        /* volkLoadDeviceTable resolves through volk's global vkGetDeviceProcAddr: set it only if nobody has */
        if (!vkGetDeviceProcAddr) vkGetDeviceProcAddr = rlx__vk.GetDeviceProcAddr;
        v = rlx__vk.EnumeratePhysicalDevices(rlx__vk.inst, &n, pds);
        if ((v != VK_SUCCESS && v != VK_INCOMPLETE) || n == 0) {
            snprintf(rlx__vk.why, sizeof rlx__vk.why, "no Vulkan device found (vkEnumeratePhysicalDevices: %d, %u devices)", (int)v, n);
            goto done;
        }
        for (j = 0; j < 5; j++)   /* discrete, integrated, virtual, CPU, other; stable within a kind */
            for (i = 0; i < n; i++) {
                VkPhysicalDeviceProperties pr;
                rlx__vk.GetPhysicalDeviceProperties(pds[i], &pr);
                if (rlx__vk_type_rank(pr.deviceType) == (int)j) rlx__vk.pds[rlx__vk.npds++] = pds[i];
            }
        rlx__vk.ok = 1;
    }
done:
    if (!rlx__vk.ok) snprintf(reason, rcap, "%s", rlx__vk.why);
    RLX__VK_UNLOCK();
    return rlx__vk.ok;
}

/* Availability of Vulkan device `index` (rlx's order). *sm receives minus the dynamic shared memory the lowering
   may give one workgroup (the CUDA lowering reads a negative "sm" as that limit). for_auto: the question comes
   from RLX_DEVICE_AUTO, which does not take a CPU implementation (the CPU backend is faster). */
static int rlx__vk_probe(int index, int for_auto, char* name, size_t ncap, char* reason, size_t rcap, int* sm) {
    VkPhysicalDeviceProperties pr;
    char miss[200];
    snprintf(name, ncap, "vulkan device %d", index);
    if (rlx__spv_kernel_count == 0) {
        snprintf(reason, rcap, "rlx_kernels_spv.h has no kernels (regenerate it with `make kernels`)");
        return 0;
    }
    if (!rlx__vk_load(reason, rcap)) return 0;
    if (index >= rlx__vk.npds) {
        snprintf(reason, rcap, "Vulkan device %d does not exist (%d found)", index, rlx__vk.npds);
        return 0;
    }
    rlx__vk.GetPhysicalDeviceProperties(rlx__vk.pds[index], &pr);
    snprintf(name, ncap, "%.80s", pr.deviceName);
    rlx__vk_missing(rlx__vk.pds[index], miss, sizeof miss);
    if (miss[0]) {
        snprintf(reason, rcap, "%.60s lacks %.130s", pr.deviceName, miss);
        return 0;
    }
    if (for_auto && pr.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU) {
        snprintf(reason, rcap, "%.90s is a CPU implementation (the CPU backend is faster)", pr.deviceName);
        return 0;
    }
    {
        unsigned smem = pr.limits.maxComputeSharedMemorySize;
        smem = smem > 8192 ? smem - 4096 : smem / 2;   /* room for the kernels' static shared arrays */
        if (smem > 49152) smem = 49152;
        *sm = -(int)smem;
    }
    snprintf(reason, rcap, "Vulkan %u.%u, %s, %d device(s)", VK_VERSION_MAJOR(pr.apiVersion), VK_VERSION_MINOR(pr.apiVersion),
             pr.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ? "discrete GPU" :
             pr.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU ? "integrated GPU" :
             pr.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ? "CPU implementation" : "other",
             rlx__vk.npds);
    return 1;
}

/* For rlx_devices: how many Vulkan devices (0 without a loader or device); the largest device-local heap and the
   driver's name and version of device `index` (rlx's order). */
static int rlx__vk_count(void) {
    char why[200];
    return rlx__vk_load(why, sizeof why) ? rlx__vk.npds : 0;
}
static void rlx__vk_details(int index, uint64_t* mem, char* drv, size_t cap) {
    VkPhysicalDeviceProperties pr;
    VkPhysicalDeviceMemoryProperties mp;
    uint32_t i;
    if (!rlx__vk.ok || index < 0 || index >= rlx__vk.npds) return;
    if (rlx__vk.GetPhysicalDeviceMemoryProperties) {
        memset(&mp, 0, sizeof mp);
        rlx__vk.GetPhysicalDeviceMemoryProperties(rlx__vk.pds[index], &mp);
        for (i = 0; i < mp.memoryHeapCount && i < VK_MAX_MEMORY_HEAPS; i++)
            if ((mp.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) && mp.memoryHeaps[i].size > *mem)
                *mem = (uint64_t)mp.memoryHeaps[i].size;
    }
    rlx__vk.GetPhysicalDeviceProperties(rlx__vk.pds[index], &pr);
    if (rlx__vk.api >= VK_API_VERSION_1_2 && pr.apiVersion >= VK_API_VERSION_1_2) {
        VkPhysicalDeviceDriverProperties dp;
        VkPhysicalDeviceProperties2 p2;
        memset(&dp, 0, sizeof dp);
        memset(&p2, 0, sizeof p2);
        dp.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
        p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
        p2.pNext = &dp;
        rlx__vk.GetPhysicalDeviceProperties2(rlx__vk.pds[index], &p2);
        dp.driverName[sizeof dp.driverName - 1] = 0;
        dp.driverInfo[sizeof dp.driverInfo - 1] = 0;
        snprintf(drv, cap, "%.24s%s%.38s", dp.driverName, dp.driverInfo[0] ? " " : "", dp.driverInfo);
    } else {
        snprintf(drv, cap, "driver version 0x%x", (unsigned)pr.driverVersion);
    }
}

static uint32_t rlx__vk_memtype(const rlx__vkdev* d, uint32_t bits, VkMemoryPropertyFlags want, VkMemoryPropertyFlags avoid) {
    uint32_t i;
    for (i = 0; i < d->memprops.memoryTypeCount; i++) {
        VkMemoryPropertyFlags f = d->memprops.memoryTypes[i].propertyFlags;
        if ((bits & (1u << i)) && (f & want) == want && !(f & avoid)) return i;
    }
    return UINT32_MAX;
}

/* A buffer of `size` bytes with its own memory: device-local (host-visible too on unified-memory devices) or, for
   staging, host-visible. */
static rlx_result rlx__vk_buffer(rlx__vkdev* d, size_t size, int staging, rlx__vkalloc* a) {
    VkBufferCreateInfo bi;
    VkMemoryRequirements req;
    VkMemoryAllocateInfo ai;
    VkMemoryAllocateFlagsInfo fi;
    VkBufferDeviceAddressInfo di;
    const VkMemoryPropertyFlags hv = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    uint32_t t = UINT32_MAX;
    rlx_result r;
    memset(a, 0, sizeof *a);
    if ((uint64_t)size > d->max_alloc) {
        snprintf(rlx__vk_err, sizeof rlx__vk_err, "%zu bytes is more than one allocation of this device may hold (%llu)",
                 size, (unsigned long long)d->max_alloc);
        return RLX_ERROR_OUT_OF_MEMORY;
    }
    memset(&bi, 0, sizeof bi);
    bi.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    bi.size = size;
    bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
               VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
    bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    if ((r = rlx__vk_check(d->vk.vkCreateBuffer(d->dev, &bi, NULL, &a->buf), "vkCreateBuffer")) != RLX_OK) return r;
    d->vk.vkGetBufferMemoryRequirements(d->dev, a->buf, &req);
    if (staging) {
        t = rlx__vk_memtype(d, req.memoryTypeBits, hv | VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 0);
        if (t == UINT32_MAX) t = rlx__vk_memtype(d, req.memoryTypeBits, hv, 0);
    } else if (d->type == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU) {
        t = rlx__vk_memtype(d, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
    } else {
        t = rlx__vk_memtype(d, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | hv, 0);
    }
    if (t == UINT32_MAX && !staging) t = rlx__vk_memtype(d, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
    if (t == UINT32_MAX) t = rlx__vk_memtype(d, req.memoryTypeBits, staging ? hv : 0, 0);
    if (t == UINT32_MAX) {
        d->vk.vkDestroyBuffer(d->dev, a->buf, NULL);
        a->buf = VK_NULL_HANDLE;
        snprintf(rlx__vk_err, sizeof rlx__vk_err, "no suitable memory type");
        return RLX_ERROR_OUT_OF_MEMORY;
    }
    memset(&fi, 0, sizeof fi);
    fi.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO;
    fi.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
    memset(&ai, 0, sizeof ai);
    ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    ai.pNext = &fi;
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = t;
    r = rlx__vk_check(d->vk.vkAllocateMemory(d->dev, &ai, NULL, &a->mem), "vkAllocateMemory");
    if (r == RLX_OK) r = rlx__vk_check(d->vk.vkBindBufferMemory(d->dev, a->buf, a->mem, 0), "vkBindBufferMemory");
    if (r == RLX_OK && (d->memprops.memoryTypes[t].propertyFlags & hv) == hv)
        r = rlx__vk_check(d->vk.vkMapMemory(d->dev, a->mem, 0, VK_WHOLE_SIZE, 0, &a->map), "vkMapMemory");
    if (r != RLX_OK) {
        if (a->mem) d->vk.vkFreeMemory(d->dev, a->mem, NULL);
        d->vk.vkDestroyBuffer(d->dev, a->buf, NULL);
        memset(a, 0, sizeof *a);
        return r;
    }
    memset(&di, 0, sizeof di);
    di.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO;
    di.buffer = a->buf;
    a->addr = (uint64_t)d->vk.vkGetBufferDeviceAddress(d->dev, &di);
    a->size = size;
    return RLX_OK;
}
static void rlx__vk_buffer_free(rlx__vkdev* d, rlx__vkalloc* a) {
    if (a->map) d->vk.vkUnmapMemory(d->dev, a->mem);
    if (a->buf) d->vk.vkDestroyBuffer(d->dev, a->buf, NULL);
    if (a->mem) d->vk.vkFreeMemory(d->dev, a->mem, NULL);
    memset(a, 0, sizeof *a);
}

static void rlx__vk_barrier(rlx__vkdev* d, VkCommandBuffer cb, VkPipelineStageFlags src, VkAccessFlags sa,
                            VkPipelineStageFlags dst, VkAccessFlags da) {
    VkMemoryBarrier mb;
    memset(&mb, 0, sizeof mb);
    mb.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    mb.srcAccessMask = sa;
    mb.dstAccessMask = da;
    d->vk.vkCmdPipelineBarrier(cb, src, dst, 0, 1, &mb, 0, NULL, 0, NULL);
}
#define RLX__VK_ALL_WRITES VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT
#define RLX__VK_ALL_ACCESS VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, (VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT)

/* Submits cb and waits for it (with the timeout). Caller holds the lock for shared command buffers. */
static rlx_result rlx__vk_submit_wait(rlx__vkdev* d, VkCommandBuffer cb, VkFence fence) {
    VkSubmitInfo si;
    rlx_result r;
    memset(&si, 0, sizeof si);
    si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cb;
    if ((r = rlx__vk_check(d->vk.vkQueueSubmit(d->queue, 1, &si, fence), "vkQueueSubmit")) != RLX_OK) return r;
    if (d->lost) { snprintf(rlx__vk_err, sizeof rlx__vk_err, "the device was lost earlier"); return RLX_ERROR_DEVICE_LOST; }
    r = rlx__vk_check(d->vk.vkWaitForFences(d->dev, 1, &fence, VK_TRUE, d->timeout_ns),
                      "vkWaitForFences");
    if (r == RLX_ERROR_DEVICE_LOST) d->lost = 1;
    if (r == RLX_OK) r = rlx__vk_check(d->vk.vkResetFences(d->dev, 1, &fence), "vkResetFences");
    return r;
}

static rlx_result rlx__vk_xfer_begin(rlx__vkdev* d) {
    VkCommandBufferBeginInfo bi;
    rlx_result r = rlx__vk_check(d->vk.vkResetCommandBuffer(d->xfer, 0), "vkResetCommandBuffer");
    memset(&bi, 0, sizeof bi);
    bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    if (r == RLX_OK) r = rlx__vk_check(d->vk.vkBeginCommandBuffer(d->xfer, &bi), "vkBeginCommandBuffer");
    if (r == RLX_OK) rlx__vk_barrier(d, d->xfer, RLX__VK_ALL_WRITES, RLX__VK_ALL_ACCESS);
    return r;
}
static rlx_result rlx__vk_xfer_end(rlx__vkdev* d) {
    rlx__vk_barrier(d, d->xfer, RLX__VK_ALL_WRITES, RLX__VK_ALL_ACCESS);
    {
        rlx_result r = rlx__vk_check(d->vk.vkEndCommandBuffer(d->xfer), "vkEndCommandBuffer");
        return r == RLX_OK ? rlx__vk_submit_wait(d, d->xfer, d->xfer_fence) : r;
    }
}

static void rlx__vk_dev_close(rlx__vkdev* d) {
    int i, k;
    if (!d) return;
    if (d->dev) {
        d->vk.vkDeviceWaitIdle(d->dev);
        for (i = 0; i < d->nfns; i++) {
            for (k = 0; k < d->fns[i]->npipes; k++) d->vk.vkDestroyPipeline(d->dev, d->fns[i]->pipes[k].pipe, NULL);
            if (d->fns[i]->shader) d->vk.vkDestroyShaderModule(d->dev, d->fns[i]->shader, NULL);
            free(d->fns[i]->pipes);
            free(d->fns[i]);
        }
        for (i = 0; i < d->nallocs; i++) rlx__vk_buffer_free(d, &d->allocs[i]);
        rlx__vk_buffer_free(d, &d->staging);
        if (d->xfer_fence) d->vk.vkDestroyFence(d->dev, d->xfer_fence, NULL);
        if (d->pool) d->vk.vkDestroyCommandPool(d->dev, d->pool, NULL);
        if (d->layout) d->vk.vkDestroyPipelineLayout(d->dev, d->layout, NULL);
        d->vk.vkDestroyDevice(d->dev, NULL);
    }
    free(d->allocs);
    free(d);
}

/* Opens device `index` (rlx's order): one compute queue, the required features, a pipeline layout with one
   8-byte push constant (the address of the launch's kargs). */
static rlx_result rlx__vk_dev_open(int index, rlx__vkdev** out) {
    rlx__vkdev* d = (rlx__vkdev*)calloc(1, sizeof *d);
    VkPhysicalDeviceProperties pr;
    VkPhysicalDeviceMaintenance3Properties m3;
    VkPhysicalDeviceProperties2 pr2;
    VkQueueFamilyProperties qf[32];
    uint32_t nq = 32, i;
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qi;
    VkDeviceCreateInfo ci;
    VkPhysicalDeviceFeatures2 f;
    VkPhysicalDeviceVulkan11Features f11;
    VkPhysicalDeviceVulkan12Features f12;
    VkPushConstantRange pc;
    VkPipelineLayoutCreateInfo li;
    VkCommandPoolCreateInfo pi;
    VkCommandBufferAllocateInfo cai;
    VkFenceCreateInfo fci;
    rlx_result r;
    *out = NULL;
    if (!d) { snprintf(rlx__vk_err, sizeof rlx__vk_err, "out of host memory"); return RLX_ERROR_OUT_OF_MEMORY; }
    d->index = index;
    d->pd = rlx__vk.pds[index];
    d->timeout_ns = rlx__vk_timeout_ns();
    rlx__vk.GetPhysicalDeviceProperties(d->pd, &pr);
    memset(&m3, 0, sizeof m3);
    m3.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES;
    memset(&pr2, 0, sizeof pr2);
    pr2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    pr2.pNext = &m3;
    rlx__vk.GetPhysicalDeviceProperties2(d->pd, &pr2);
    d->type = pr.deviceType;
    for (i = 0; i < 3; i++) d->max_groups[i] = pr.limits.maxComputeWorkGroupCount[i];
    d->smem = pr.limits.maxComputeSharedMemorySize;
    d->max_alloc = m3.maxMemoryAllocationSize ? (uint64_t)m3.maxMemoryAllocationSize : (uint64_t)1 << 30;
    rlx__vk.GetPhysicalDeviceMemoryProperties(d->pd, &d->memprops);
    rlx__vk.GetPhysicalDeviceQueueFamilyProperties(d->pd, &nq, NULL);
    if (nq > 32) nq = 32;
    rlx__vk.GetPhysicalDeviceQueueFamilyProperties(d->pd, &nq, qf);
    d->qfam = UINT32_MAX;
    for (i = 0; i < nq && d->qfam == UINT32_MAX; i++)   /* a compute-only family first, then any with compute */
        if ((qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && !(qf[i].queueFlags & VK_QUEUE_GRAPHICS_BIT)) d->qfam = i;
    for (i = 0; i < nq && d->qfam == UINT32_MAX; i++)
        if (qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) d->qfam = i;
    if (d->qfam == UINT32_MAX) {
        snprintf(rlx__vk_err, sizeof rlx__vk_err, "%.80s has no compute queue", pr.deviceName);
        free(d);
        return RLX_ERROR_DEVICE_UNAVAILABLE;
    }
    d->ts_bits = qf[d->qfam].timestampValidBits;
    d->ts_period = pr.limits.timestampPeriod;
    memset(&qi, 0, sizeof qi);
    qi.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    qi.queueFamilyIndex = d->qfam;
    qi.queueCount = 1;
    qi.pQueuePriorities = &prio;
    rlx__vk_feature_chain(&f, &f11, &f12);
    f.features.shaderInt64 = f.features.shaderFloat64 = f.features.shaderInt16 = VK_TRUE;
    f11.storageBuffer16BitAccess = VK_TRUE;
    f12.bufferDeviceAddress = f12.shaderInt8 = f12.storageBuffer8BitAccess = VK_TRUE;
    memset(&ci, 0, sizeof ci);
    ci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    ci.pNext = &f;
    ci.queueCreateInfoCount = 1;
    ci.pQueueCreateInfos = &qi;
    r = rlx__vk_check(rlx__vk.CreateDevice(d->pd, &ci, NULL, &d->dev), "vkCreateDevice");
    if (r != RLX_OK) { free(d); return r; }
    volkLoadDeviceTable(&d->vk, d->dev);
    d->vk.vkGetDeviceQueue(d->dev, d->qfam, 0, &d->queue);
    memset(&pc, 0, sizeof pc);
    pc.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    pc.size = 8;
    memset(&li, 0, sizeof li);
    li.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
    li.pushConstantRangeCount = 1;
    li.pPushConstantRanges = &pc;
    r = rlx__vk_check(d->vk.vkCreatePipelineLayout(d->dev, &li, NULL, &d->layout), "vkCreatePipelineLayout");
    memset(&pi, 0, sizeof pi);
    pi.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pi.queueFamilyIndex = d->qfam;
    if (r == RLX_OK) r = rlx__vk_check(d->vk.vkCreateCommandPool(d->dev, &pi, NULL, &d->pool), "vkCreateCommandPool");
    memset(&cai, 0, sizeof cai);
    cai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    cai.commandPool = d->pool;
    cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cai.commandBufferCount = 1;
    if (r == RLX_OK) r = rlx__vk_check(d->vk.vkAllocateCommandBuffers(d->dev, &cai, &d->xfer), "vkAllocateCommandBuffers");
    memset(&fci, 0, sizeof fci);
    fci.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    if (r == RLX_OK) r = rlx__vk_check(d->vk.vkCreateFence(d->dev, &fci, NULL, &d->xfer_fence), "vkCreateFence");
    if (r != RLX_OK) { rlx__vk_dev_close(d); return r; }
    *out = d;
    return RLX_OK;
}

static rlx_result rlx__vk_set_device(int index, void** ctx) {
    rlx_result r = RLX_OK;
    char why[200];
    if (!rlx__vk_load(why, sizeof why)) { snprintf(rlx__vk_err, sizeof rlx__vk_err, "%s", why); return RLX_ERROR_DEVICE_UNAVAILABLE; }
    if (index < 0 || index >= rlx__vk.npds) {
        snprintf(rlx__vk_err, sizeof rlx__vk_err, "Vulkan device %d does not exist", index);
        return RLX_ERROR_DEVICE_UNAVAILABLE;
    }
    RLX__VK_LOCK();
    if (!rlx__vk.devs[index]) r = rlx__vk_dev_open(index, &rlx__vk.devs[index]);
    if (r == RLX_OK) {
        rlx__vk.devs[index]->refs++;
        *ctx = rlx__vk.devs[index];
        rlx__vk_set_cur(rlx__vk.devs[index]);
    }
    RLX__VK_UNLOCK();
    return r;
}
/* Devices stay open until the process ends (the kernel cache keeps a reference, as for CUDA and HIP). */
static void rlx__vk_release_device(int index, void* ctx) {
    RLX__UNUSED(index);
    RLX__VK_LOCK();
    if (ctx) ((rlx__vkdev*)ctx)->refs--;
    RLX__VK_UNLOCK();
}
static rlx_result rlx__vk_make_current(int index, void* ctx) {
    RLX__UNUSED(index);
    rlx__vk_set_cur((rlx__vkdev*)ctx);
    return ctx ? RLX_OK : RLX_ERROR_INTERNAL;
}

static rlx_result rlx__vk_mem_alloc(uint64_t* p, size_t n) {
    rlx__vkdev* d = rlx__vk_get_cur();
    rlx__vkalloc a;
    rlx_result r;
    *p = 0;
    if ((r = rlx__vk_buffer(d, n, 0, &a)) != RLX_OK) return r;
    RLX__VK_LOCK();
    if (d->nallocs == d->cap_allocs) {
        int nc = d->cap_allocs ? d->cap_allocs * 2 : 16;
        rlx__vkalloc* na = (rlx__vkalloc*)realloc(d->allocs, sizeof *na * (size_t)nc);
        if (!na) {
            RLX__VK_UNLOCK();
            rlx__vk_buffer_free(d, &a);
            snprintf(rlx__vk_err, sizeof rlx__vk_err, "out of host memory");
            return RLX_ERROR_OUT_OF_MEMORY;
        }
        d->allocs = na;
        d->cap_allocs = nc;
    }
    d->allocs[d->nallocs++] = a;
    RLX__VK_UNLOCK();
    *p = a.addr;
    return RLX_OK;
}
static void rlx__vk_mem_free(uint64_t p) {
    rlx__vkdev* d = rlx__vk_get_cur();
    int i;
    if (!d) return;
    RLX__VK_LOCK();
    for (i = 0; i < d->nallocs; i++)
        if (d->allocs[i].addr == p) {
            rlx__vkalloc a = d->allocs[i];
            d->allocs[i] = d->allocs[--d->nallocs];
            if (!d->lost) d->vk.vkQueueWaitIdle(d->queue);   /* nothing in flight may still use it */
            rlx__vk_buffer_free(d, &a);
            RLX__VK_UNLOCK();
            return;
        }
    RLX__VK_UNLOCK();
}
/* The allocation holding [addr, addr + n); caller holds the lock. */
static rlx__vkalloc* rlx__vk_find(rlx__vkdev* d, uint64_t addr, size_t n) {
    int i;
    for (i = 0; i < d->nallocs; i++) {
        rlx__vkalloc* a = &d->allocs[i];
        if (addr >= a->addr && addr - a->addr <= a->size && n <= a->size - (size_t)(addr - a->addr)) return a;
    }
    snprintf(rlx__vk_err, sizeof rlx__vk_err, "address 0x%llx (+%zu bytes) is not in an rlx allocation", (unsigned long long)addr, n);
    return NULL;
}
static rlx_result rlx__vk_staging(rlx__vkdev* d, size_t n) {
    if (d->staging.size >= n) return RLX_OK;
    rlx__vk_buffer_free(d, &d->staging);
    return rlx__vk_buffer(d, n < ((size_t)1 << 20) ? ((size_t)1 << 20) : n, 1, &d->staging);
}

/* Copies between host and device: through the mapping where the memory is host-visible (lavapipe, integrated
   GPUs), else through the staging buffer in pieces of at most 64 MiB. dir 0: host -> device, 1: device -> host,
   2: fill with zeros. */
static rlx_result rlx__vk_copy(uint64_t addr, void* host, size_t n, int dir) {
    rlx__vkdev* d = rlx__vk_get_cur();
    rlx__vkalloc* a;
    rlx_result r = RLX_OK;
    size_t off, done = 0, piece = (size_t)64 << 20;
    if (n == 0) return RLX_OK;
    RLX__VK_LOCK();
    if (!(a = rlx__vk_find(d, addr, n))) { RLX__VK_UNLOCK(); return RLX_ERROR_INTERNAL; }
    off = (size_t)(addr - a->addr);
    if (a->map) {
        if (dir == 0) memcpy((unsigned char*)a->map + off, host, n);
        else if (dir == 1) memcpy(host, (unsigned char*)a->map + off, n);
        else memset((unsigned char*)a->map + off, 0, n);
        RLX__VK_UNLOCK();
        return RLX_OK;
    }
    if (dir == 2) {
        if ((r = rlx__vk_xfer_begin(d)) == RLX_OK) {
            d->vk.vkCmdFillBuffer(d->xfer, a->buf, off, (n + 3) & ~(size_t)3, 0);   /* callers pass 4-byte sizes */
            r = rlx__vk_xfer_end(d);
        }
        RLX__VK_UNLOCK();
        return r;
    }
    if ((r = rlx__vk_staging(d, n < piece ? n : piece)) != RLX_OK) { RLX__VK_UNLOCK(); return r; }
    while (done < n && r == RLX_OK) {
        size_t m = n - done < d->staging.size ? n - done : d->staging.size;
        VkBufferCopy bc;
        memset(&bc, 0, sizeof bc);
        bc.size = m;
        if (dir == 0) { memcpy(d->staging.map, (const unsigned char*)host + done, m); bc.dstOffset = off + done; }
        else bc.srcOffset = off + done;
        if ((r = rlx__vk_xfer_begin(d)) != RLX_OK) break;
        if (dir == 0) d->vk.vkCmdCopyBuffer(d->xfer, d->staging.buf, a->buf, 1, &bc);
        else d->vk.vkCmdCopyBuffer(d->xfer, a->buf, d->staging.buf, 1, &bc);
        if ((r = rlx__vk_xfer_end(d)) != RLX_OK) break;
        if (dir == 1) memcpy((unsigned char*)host + done, d->staging.map, m);
        done += m;
    }
    RLX__VK_UNLOCK();
    return r;
}
static rlx_result rlx__vk_htod(uint64_t dst, const void* src, size_t n) { return rlx__vk_copy(dst, (void*)(uintptr_t)src, n, 0); }
static rlx_result rlx__vk_dtoh(void* dst, uint64_t src, size_t n) { return rlx__vk_copy(src, dst, n, 1); }
static rlx_result rlx__vk_memset0(uint64_t dst, size_t n) { return rlx__vk_copy(dst, NULL, n, 2); }
static void* rlx__vk_host_alloc(size_t n) { RLX__UNUSED(n); return NULL; }
static void rlx__vk_host_free(void* p) { RLX__UNUSED(p); }

/* Embedded SPIR-V of kernel MODULE.KERNEL (table name "MODULE__KERNEL"), by binary search. */
static const rlx__kernel_blob* rlx__vk_blob(const char* module, const char* kernel) {
    char key[96];
    int lo = 0, hi = rlx__spv_kernel_count - 1;
    snprintf(key, sizeof key, "%s__%s", module, kernel);
    while (lo <= hi) {
        int mid = (lo + hi) / 2, c = strcmp(rlx__spv_kernels[mid].name, key);
        if (c == 0) return &rlx__spv_kernels[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid - 1;
    }
    return NULL;
}

static rlx_result rlx__vk_module_load(const char* module, int sm, void** mod, char* msg, size_t cap) {
    rlx__vkmod* m = (rlx__vkmod*)calloc(1, sizeof *m);
    RLX__UNUSED(sm);
    *mod = NULL;
    if (!m) { snprintf(msg, cap, "out of host memory"); return RLX_ERROR_OUT_OF_MEMORY; }
    m->d = rlx__vk_get_cur();
    snprintf(m->name, sizeof m->name, "%s", module);
    *mod = m;
    return RLX_OK;
}
static void rlx__vk_module_unload(void* mod) { free(mod); }

/* A kernel's shader module, created on first use and cached on the device. */
static rlx_result rlx__vk_function(void* mod, const char* name, void** fn) {
    rlx__vkmod* m = (rlx__vkmod*)mod;
    rlx__vkdev* d = m->d;
    const rlx__kernel_blob* b = rlx__vk_blob(m->name, name);
    char full[64];
    int i;
    rlx_result r = RLX_OK;
    *fn = NULL;
    if (!b) {
        snprintf(rlx__vk_err, sizeof rlx__vk_err, "no embedded SPIR-V named '%s__%s' (regenerate rlx_kernels_spv.h)", m->name, name);
        return RLX_ERROR_KERNEL_COMPILE;
    }
    snprintf(full, sizeof full, "%s__%s", m->name, name);
    RLX__VK_LOCK();
    for (i = 0; i < d->nfns; i++)
        if (strcmp(d->fns[i]->name, full) == 0) { *fn = d->fns[i]; RLX__VK_UNLOCK(); return RLX_OK; }
    if (d->nfns < (int)(sizeof d->fns / sizeof d->fns[0])) {
        rlx__vkfn* f = (rlx__vkfn*)calloc(1, sizeof *f);
        VkShaderModuleCreateInfo si;
        if (!f) { RLX__VK_UNLOCK(); return RLX_ERROR_OUT_OF_MEMORY; }
        snprintf(f->name, sizeof f->name, "%s", full);
        memset(&si, 0, sizeof si);
        si.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
        si.codeSize = b->size;
        si.pCode = (const uint32_t*)b->data;
        r = rlx__vk_check(d->vk.vkCreateShaderModule(d->dev, &si, NULL, &f->shader), "vkCreateShaderModule");
        if (r == RLX_OK) { d->fns[d->nfns++] = f; *fn = f; }
        else { free(f); r = RLX_ERROR_KERNEL_COMPILE; }
    } else {
        snprintf(rlx__vk_err, sizeof rlx__vk_err, "too many kernels");
        r = RLX_ERROR_INTERNAL;
    }
    RLX__VK_UNLOCK();
    return r;
}

/* The pipeline of kernel f for a block size and a shared-memory size (specialization constants 0 and 1). */
static rlx_result rlx__vk_pipeline(rlx__vkdev* d, rlx__vkfn* f, unsigned block, unsigned words, VkPipeline* out) {
    VkSpecializationMapEntry me[2];
    VkSpecializationInfo spi;
    VkComputePipelineCreateInfo ci;
    uint32_t data[2];
    int i;
    rlx_result r;
    for (i = 0; i < f->npipes; i++)
        if (f->pipes[i].block == block && f->pipes[i].smem_words == words) { *out = f->pipes[i].pipe; return RLX_OK; }
    if (f->npipes == f->cap) {
        int nc = f->cap ? f->cap * 2 : 4;
        rlx__vkpipe* np = (rlx__vkpipe*)realloc(f->pipes, sizeof *np * (size_t)nc);
        if (!np) { snprintf(rlx__vk_err, sizeof rlx__vk_err, "out of host memory"); return RLX_ERROR_OUT_OF_MEMORY; }
        f->pipes = np;
        f->cap = nc;
    }
    data[0] = block;
    data[1] = words;
    for (i = 0; i < 2; i++) {
        me[i].constantID = (uint32_t)i;
        me[i].offset = (uint32_t)(i * 4);
        me[i].size = 4;
    }
    memset(&spi, 0, sizeof spi);
    spi.mapEntryCount = 2;
    spi.pMapEntries = me;
    spi.dataSize = sizeof data;
    spi.pData = data;
    memset(&ci, 0, sizeof ci);
    ci.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
    ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    ci.stage.module = f->shader;
    ci.stage.pName = "main";
    ci.stage.pSpecializationInfo = &spi;
    ci.layout = d->layout;
    r = rlx__vk_check(d->vk.vkCreateComputePipelines(d->dev, VK_NULL_HANDLE, 1, &ci, NULL, out), "vkCreateComputePipelines");
    if (r != RLX_OK) return RLX_ERROR_KERNEL_COMPILE;
    f->pipes[f->npipes].block = block;
    f->pipes[f->npipes].smem_words = words;
    f->pipes[f->npipes].pipe = *out;
    f->npipes++;
    return RLX_OK;
}

static rlx_result rlx__vk_stream_create(void** s) {
    rlx__vkstream* st = (rlx__vkstream*)calloc(1, sizeof *st);
    rlx__vkdev* d = rlx__vk_get_cur();
    VkFenceCreateInfo fci;
    rlx_result r;
    *s = NULL;
    if (!st) return RLX_ERROR_OUT_OF_MEMORY;
    st->d = d;
    memset(&fci, 0, sizeof fci);
    fci.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    RLX__VK_LOCK();
    r = rlx__vk_check(d->vk.vkCreateFence(d->dev, &fci, NULL, &st->fence), "vkCreateFence");
    RLX__VK_UNLOCK();
    if (r != RLX_OK) { free(st); return r; }
    *s = st;
    return RLX_OK;
}
static void rlx__vk_chunks_free(rlx__vkdev* d, uint64_t* chunks, int n) {
    int i;
    rlx__vkdev* save = rlx__vk_get_cur();
    rlx__vk_set_cur(d);
    for (i = 0; i < n; i++) rlx__vk_mem_free(chunks[i]);
    rlx__vk_set_cur(save);
    free(chunks);
}
static void rlx__vk_recording_reset(rlx__vkstream* st) {
    int i;
    for (i = 0; i < st->nchunks; i++) free(st->chunk_host[i]);
    free(st->chunk_host);
    st->chunk_host = NULL;
    if (st->chunks) rlx__vk_chunks_free(st->d, st->chunks, st->nchunks);
    st->chunks = NULL;
    st->nchunks = st->used = 0;
    st->recording = 0;
}
static void rlx__vk_stream_destroy(void* s) {
    rlx__vkstream* st = (rlx__vkstream*)s;
    if (!st) return;
    if (st->pending && !st->d->lost) st->d->vk.vkWaitForFences(st->d->dev, 1, &st->fence, VK_TRUE, st->d->timeout_ns);
    if (st->cmd) {
        RLX__VK_LOCK();
        st->d->vk.vkFreeCommandBuffers(st->d->dev, st->d->pool, 1, &st->cmd);
        RLX__VK_UNLOCK();
    }
    rlx__vk_recording_reset(st);
    st->d->vk.vkDestroyFence(st->d->dev, st->fence, NULL);
    free(st);
}

static rlx_result rlx__vk_graph_begin(void* s) {
    rlx__vkstream* st = (rlx__vkstream*)s;
    rlx__vkdev* d = st->d;
    VkCommandBufferAllocateInfo cai;
    VkCommandBufferBeginInfo bi;
    rlx_result r;
    memset(&cai, 0, sizeof cai);
    cai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    cai.commandPool = d->pool;
    cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cai.commandBufferCount = 1;
    RLX__VK_LOCK();   /* the command pool is shared by the device's programs */
    r = rlx__vk_check(d->vk.vkAllocateCommandBuffers(d->dev, &cai, &st->cmd), "vkAllocateCommandBuffers");
    memset(&bi, 0, sizeof bi);
    bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    if (r == RLX_OK) r = rlx__vk_check(d->vk.vkBeginCommandBuffer(st->cmd, &bi), "vkBeginCommandBuffer");
    if (r == RLX_OK) rlx__vk_barrier(d, st->cmd, RLX__VK_ALL_WRITES, RLX__VK_ALL_ACCESS);   /* after uploads */
    RLX__VK_UNLOCK();
    st->recording = r == RLX_OK;
    st->ndispatch = 0;
    return r;
}

/* Records one dispatch: kargs copied into the recording's kargs chunk, a barrier after the previous dispatch. */
static rlx_result rlx__vk_launch(void* fn, const unsigned* grid, const unsigned* block, unsigned shmem, void* s, void* args) {
    rlx__vkstream* st = (rlx__vkstream*)s;
    rlx__vkdev* d = st->d;
    rlx__vkfn* f = (rlx__vkfn*)fn;
    const size_t ksz = sizeof(rlx__kargs);
    uint64_t kaddr;
    unsigned g[3];
    VkPipeline pipe;
    rlx_result r;
    int i;
    if (!st->recording) {
        snprintf(rlx__vk_err, sizeof rlx__vk_err, "a launch outside the recorded command buffer");
        return RLX_ERROR_INTERNAL;
    }
    if (block[0] == 0 || block[1] != 1 || block[2] != 1) {
        snprintf(rlx__vk_err, sizeof rlx__vk_err, "%s: workgroup %ux%ux%u (the kernels are one-dimensional)", f->name, block[0], block[1], block[2]);
        return RLX_ERROR_INTERNAL;
    }
    if (shmem > d->smem) {
        snprintf(rlx__vk_err, sizeof rlx__vk_err, "%s needs %u bytes of shared memory, the device has %u", f->name, shmem, d->smem);
        return RLX_ERROR_UNSUPPORTED;
    }
    if (st->nchunks == 0 || st->used == RLX__VK_KARGS_PER_CHUNK) {
        uint64_t* nc = (uint64_t*)realloc(st->chunks, sizeof *nc * (size_t)(st->nchunks + 1));
        unsigned char** nh = nc ? (unsigned char**)realloc(st->chunk_host, sizeof *nh * (size_t)(st->nchunks + 1)) : NULL;
        if (nc) st->chunks = nc;
        if (nh) st->chunk_host = nh;
        if (!nc || !nh) return RLX_ERROR_OUT_OF_MEMORY;
        st->chunk_host[st->nchunks] = (unsigned char*)calloc(RLX__VK_KARGS_PER_CHUNK, ksz);
        if (!st->chunk_host[st->nchunks]) return RLX_ERROR_OUT_OF_MEMORY;
        if ((r = rlx__vk_mem_alloc(&st->chunks[st->nchunks], RLX__VK_KARGS_PER_CHUNK * ksz)) != RLX_OK) {
            free(st->chunk_host[st->nchunks]);
            return r;
        }
        st->nchunks++;
        st->used = 0;
    }
    memcpy(st->chunk_host[st->nchunks - 1] + (size_t)st->used * ksz, ((void**)args)[0], ksz);
    kaddr = st->chunks[st->nchunks - 1] + (uint64_t)st->used * ksz;
    st->used++;
    RLX__VK_LOCK();
    r = rlx__vk_pipeline(d, f, block[0], shmem ? (shmem + 3) / 4 : 1, &pipe);
    RLX__VK_UNLOCK();
    if (r != RLX_OK) return r;
    for (i = 0; i < 3; i++) g[i] = grid[i] < 1 ? 1 : (grid[i] > d->max_groups[i] ? d->max_groups[i] : grid[i]);
    if (st->ndispatch++)
        rlx__vk_barrier(d, st->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    d->vk.vkCmdBindPipeline(st->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
    d->vk.vkCmdPushConstants(st->cmd, d->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 8, &kaddr);
    d->vk.vkCmdDispatch(st->cmd, g[0], g[1], g[2]);
    return RLX_OK;
}

static rlx_result rlx__vk_graph_end(void* s, void** exec) {
    rlx__vkstream* st = (rlx__vkstream*)s;
    rlx__vkdev* d = st->d;
    rlx__vkexec* e;
    rlx_result r = RLX_OK;
    int i;
    *exec = NULL;
    if (!st->recording) return RLX_ERROR_INTERNAL;
    rlx__vk_barrier(d, st->cmd, RLX__VK_ALL_WRITES, RLX__VK_ALL_ACCESS);   /* before downloads */
    r = rlx__vk_check(d->vk.vkEndCommandBuffer(st->cmd), "vkEndCommandBuffer");
    for (i = 0; i < st->nchunks && r == RLX_OK; i++)
        r = rlx__vk_htod(st->chunks[i], st->chunk_host[i], (size_t)RLX__VK_KARGS_PER_CHUNK * sizeof(rlx__kargs));
    e = r == RLX_OK ? (rlx__vkexec*)calloc(1, sizeof *e) : NULL;
    if (!e) {
        RLX__VK_LOCK();
        d->vk.vkFreeCommandBuffers(d->dev, d->pool, 1, &st->cmd);
        RLX__VK_UNLOCK();
        st->cmd = VK_NULL_HANDLE;
        rlx__vk_recording_reset(st);
        return r == RLX_OK ? RLX_ERROR_OUT_OF_MEMORY : r;
    }
    e->cmd = st->cmd;
    e->chunks = st->chunks;
    e->nchunks = st->nchunks;
    e->d = d;
    st->cmd = VK_NULL_HANDLE;
    st->chunks = NULL;   /* now the recording's; the host copies are no longer needed */
    rlx__vk_recording_reset(st);
    *exec = e;
    return RLX_OK;
}
static rlx_result rlx__vk_graph_launch(void* exec, void* s) {
    rlx__vkexec* e = (rlx__vkexec*)exec;
    rlx__vkstream* st = (rlx__vkstream*)s;
    VkSubmitInfo si;
    rlx_result r;
    if (e->d->lost) { snprintf(rlx__vk_err, sizeof rlx__vk_err, "the device was lost earlier (a run timed out or failed)"); return RLX_ERROR_DEVICE_LOST; }
    memset(&si, 0, sizeof si);
    si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    si.commandBufferCount = 1;
    si.pCommandBuffers = &e->cmd;
    RLX__VK_LOCK();   /* one queue per device, shared by its programs */
    r = rlx__vk_check(e->d->vk.vkQueueSubmit(e->d->queue, 1, &si, st->fence), "vkQueueSubmit");
    RLX__VK_UNLOCK();
    st->pending = r == RLX_OK;
    return r;
}
static rlx_result rlx__vk_sync(void* s) {
    rlx__vkstream* st = (rlx__vkstream*)s;
    rlx_result r;
    if (!st->pending) return RLX_OK;
    r = rlx__vk_check(st->d->vk.vkWaitForFences(st->d->dev, 1, &st->fence, VK_TRUE, st->d->timeout_ns),
                      "vkWaitForFences");
    if (r != RLX_OK) {   /* the fence stays pending: the device is treated as lost from now on */
        if (r == RLX_ERROR_DEVICE_LOST) st->d->lost = 1;
        return r;
    }
    st->pending = 0;
    return rlx__vk_check(st->d->vk.vkResetFences(st->d->dev, 1, &st->fence), "vkResetFences");
}
static void rlx__vk_graph_destroy(void* exec) {
    rlx__vkexec* e = (rlx__vkexec*)exec;
    if (!e) return;
    RLX__VK_LOCK();
    if (!e->d->lost) {   /* a lost device may still run it: leak the command buffer rather than wait forever */
        e->d->vk.vkQueueWaitIdle(e->d->queue);
        e->d->vk.vkFreeCommandBuffers(e->d->dev, e->d->pool, 1, &e->cmd);
    }
    RLX__VK_UNLOCK();
    rlx__vk_chunks_free(e->d, e->chunks, e->nchunks);
    free(e);
}

/* Profiling timer: a timestamp query pool. Stamps are written into the command buffer being recorded (stamp 0
   also resets the pool, so every replay starts clean) after all earlier work (bottom of pipe). */
typedef struct rlx__vktimer { rlx__vkdev* d; VkQueryPool pool; int n; uint64_t v[1]; } rlx__vktimer;
static void rlx__vk_timer_destroy(void* t) {
    rlx__vktimer* tm = (rlx__vktimer*)t;
    if (!tm) return;
    if (tm->pool) tm->d->vk.vkDestroyQueryPool(tm->d->dev, tm->pool, NULL);
    free(tm);
}
static rlx_result rlx__vk_timer_create(void* s, int n, void** t, char* why, size_t cap) {
    rlx__vkstream* st = (rlx__vkstream*)s;
    rlx__vkdev* d = st->d;
    rlx__vktimer* tm;
    VkQueryPoolCreateInfo qi;
    rlx_result r;
    *t = NULL;
    if (d->ts_bits == 0 || !(d->ts_period > 0.0f)) {
        snprintf(why, cap, "Vulkan device %d does not support timestamps on its compute queue (timestampValidBits %u, "
                 "timestampPeriod %g)", d->index, (unsigned)d->ts_bits, (double)d->ts_period);
        return RLX_ERROR_UNSUPPORTED;
    }
    tm = (rlx__vktimer*)calloc(1, sizeof *tm + sizeof(uint64_t) * (size_t)n);
    if (!tm) { snprintf(why, cap, "Vulkan: out of memory for %d timestamps", n); return RLX_ERROR_OUT_OF_MEMORY; }
    tm->d = d;
    tm->n = n;
    memset(&qi, 0, sizeof qi);
    qi.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
    qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qi.queryCount = (uint32_t)n;
    RLX__VK_LOCK();
    r = rlx__vk_check(d->vk.vkCreateQueryPool(d->dev, &qi, NULL, &tm->pool), "vkCreateQueryPool");
    RLX__VK_UNLOCK();
    if (r != RLX_OK) { snprintf(why, cap, "Vulkan: %s", rlx__vk_err); free(tm); return r; }
    *t = tm;
    return RLX_OK;
}
static rlx_result rlx__vk_timer_stamp(void* t, int k, void* s) {
    rlx__vktimer* tm = (rlx__vktimer*)t;
    rlx__vkstream* st = (rlx__vkstream*)s;
    if (!st->recording || k < 0 || k >= tm->n) {
        snprintf(rlx__vk_err, sizeof rlx__vk_err, "a timestamp outside the recorded command buffer");
        return RLX_ERROR_INTERNAL;
    }
    if (k == 0) tm->d->vk.vkCmdResetQueryPool(st->cmd, tm->pool, 0, (uint32_t)tm->n);
    tm->d->vk.vkCmdWriteTimestamp(st->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, tm->pool, (uint32_t)k);
    return RLX_OK;
}
static rlx_result rlx__vk_timer_read(void* t, int n, double* us) {
    rlx__vktimer* tm = (rlx__vktimer*)t;
    uint64_t mask = tm->d->ts_bits >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << tm->d->ts_bits) - 1);
    rlx_result r;
    int i;
    if (n > tm->n) return RLX_ERROR_INTERNAL;
    r = rlx__vk_check(tm->d->vk.vkGetQueryPoolResults(tm->d->dev, tm->pool, 0, (uint32_t)n, sizeof(uint64_t) * (size_t)n,
                                                      tm->v, sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
                      "vkGetQueryPoolResults");
    if (r != RLX_OK) return r;
    for (i = 0; i < n; i++)   /* ticks since stamp 0, modulo the valid bits (a counter may wrap) */
        us[i] = (double)((tm->v[i] - tm->v[0]) & mask) * (double)tm->d->ts_period * 1e-3;
    return RLX_OK;
}

static const rlx__gpuapi rlx__vulkan_gpuapi = {
    RLX_DEVICE_VULKAN, rlx__vk_set_device, rlx__vk_release_device, rlx__vk_mem_alloc, rlx__vk_mem_free, rlx__vk_htod,
    rlx__vk_dtoh, rlx__vk_memset0, rlx__vk_host_alloc, rlx__vk_host_free, rlx__vk_module_load, rlx__vk_module_unload,
    rlx__vk_function, rlx__vk_launch, rlx__vk_stream_create, rlx__vk_stream_destroy, rlx__vk_sync,
    rlx__vk_graph_begin, rlx__vk_graph_end, rlx__vk_graph_launch, rlx__vk_graph_destroy, rlx__vk_last_error,
    rlx__vk_make_current, 1, rlx__vk_timer_create, rlx__vk_timer_destroy, rlx__vk_timer_stamp, rlx__vk_timer_read};
#endif /* RLX__HAS_VULKAN */

/* ------------------------------------------------------------------------------------------------------------
   >>store  (weight set / state store: named tensors on one device that programs bind to by name)
   CPU: every tensor is its own 64-byte aligned host block, or the caller's memory (borrowed). GPU (CUDA, HIP,
   Vulkan): every tensor is its own device allocation made through the backend's rlx__gpuapi and uploaded once;
   a bound program's launches carry these addresses (on Vulkan buffer device addresses, like every tensor
   there). rlx__store_bind, called by rlx__compile_for, matches a graph's params and states to the store by name
   and takes them out of the program's weight and state blocks. References: one for the caller's handle and one
   per program bound to the store; borrowed memory is released with the last one.
   ------------------------------------------------------------------------------------------------------------ */
static int rlx__device_probe(rlx_device d, int index, int for_auto, char* name, size_t ncap, char* reason, size_t rcap,
                             int* sm);

typedef struct rlx__stensor {
    char* name;
    rlx_dtype dtype;
    int rank;
    int64_t shape[RLX_MAX_RANK];
    int64_t numel;
    size_t bytes;
    int is_state, borrowed;
    void* host;                  /* CPU: the elements (an owned block or the caller's memory); GPU: NULL */
    void* raw;                   /* the owned host block to free */
    uint64_t dev;                /* GPU: the device allocation */
    void (*release)(void* user); /* borrowed in place: called once when the store is freed */
    void* user;
} rlx__stensor;

struct rlx_store {
    rlx_allocator al;
    int refs;                    /* the caller's handle + one per bound program */
    rlx_device device;
    int index;
    const void* api;             /* the rlx__gpuapi of a GPU store, NULL on the CPU */
    void* ctx;                   /* its device context reference */
    rlx__stensor* t;
    int n, cap;
    size_t bytes, borrowed_bytes, state_bytes;
    uint64_t uploads;
    char msg[512];
};

static rlx_result rlx__serr(rlx_store* s, rlx_result r, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    rlx__vfmt(s->msg, sizeof s->msg, fmt, ap);
    va_end(ap);
    return r;
}

#if defined(RLX__HAS_GPU)
static const rlx__gpuapi* rlx__store_gpuapi(rlx_device d) {
#  if !defined(RLX_NO_CUDA)
    if (d == RLX_DEVICE_CUDA) return &rlx__cuda_gpuapi;
#  endif
#  if !defined(RLX_NO_HIP)
    if (d == RLX_DEVICE_HIP) return &rlx__hip_gpuapi;
#  endif
#  if defined(RLX__HAS_VULKAN)
    if (d == RLX_DEVICE_VULKAN) return &rlx__vulkan_gpuapi;
#  endif
    RLX__UNUSED(d);
    return NULL;
}
#endif

static void* rlx__store_host(const rlx_store* s, int idx) { return s->t[idx].host; }
static void rlx__store_retain(rlx_store* s) { RLX__ATOMIC_ADD(&s->refs, 1); }
static RLX__MAYBE_UNUSED uint64_t rlx__store_dev(const rlx_store* s, int idx) { return s->t[idx].dev; }

static void rlx__store_release(rlx_store* s) {
    rlx_allocator al;
    int i;
    if (!s || RLX__ATOMIC_ADD(&s->refs, -1) > 0) return;
    al = s->al;
#if defined(RLX__HAS_GPU)
    if (s->api) {
        const rlx__gpuapi* api = (const rlx__gpuapi*)s->api;
        api->make_current(s->index, s->ctx);
        for (i = 0; i < s->n; i++)
            if (s->t[i].dev) api->mem_free(s->t[i].dev);
        api->release_device(s->index, s->ctx);
    }
#endif
    for (i = 0; i < s->n; i++) {
        rlx__stensor* e = &s->t[i];
        if (e->borrowed && e->release) e->release(e->user);
        rlx__free(&al, e->raw);
        rlx__free(&al, e->name);
    }
    rlx__free(&al, s->t);
    rlx__free(&al, s);
}

RLXDEF rlx_result rlx_store_create(const rlx_store_desc* desc, rlx_store** out) {
    rlx_store_desc d;
    rlx_store* s;
    rlx_device cand[RLX_DEVICE_COUNT];
    int ncand = 0, k;
    if (!out) return RLX_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    memset(&d, 0, sizeof d);
    if (desc) d = *desc;
    if ((int)d.device < 0 || (int)d.device >= (int)RLX_DEVICE_COUNT || d.device_index < 0) return RLX_ERROR_INVALID_ARGUMENT;
    if ((d.allocator.alloc == NULL) != (d.allocator.free == NULL)) return RLX_ERROR_INVALID_ARGUMENT;
    if (d.device == RLX_DEVICE_AUTO) {   /* the order rlx_compile tries */
        cand[ncand++] = RLX_DEVICE_CUDA;
        cand[ncand++] = RLX_DEVICE_HIP;
        cand[ncand++] = RLX_DEVICE_VULKAN;
        cand[ncand++] = RLX_DEVICE_CPU;
    } else {
        cand[ncand++] = d.device;
    }
    s = (rlx_store*)rlx__calloc(&d.allocator, sizeof *s);
    if (!s) return RLX_ERROR_OUT_OF_MEMORY;
    s->al = d.allocator;
    s->refs = 1;
    for (k = 0; k < ncand; k++) {
        char name[96], reason[200];
        int sm = 0, index = d.device == RLX_DEVICE_AUTO ? 0 : d.device_index;
        if (!rlx__device_probe(cand[k], index, d.device == RLX_DEVICE_AUTO, name, sizeof name, reason, sizeof reason, &sm))
            continue;
        if (cand[k] != RLX_DEVICE_CPU) {
#if defined(RLX__HAS_GPU)
            const rlx__gpuapi* api = rlx__store_gpuapi(cand[k]);
            void* ctx = NULL;
            if (!api || api->set_device(index, &ctx) != RLX_OK) continue;
            s->api = api;
            s->ctx = ctx;
#else
            continue;
#endif
        }
        s->device = cand[k];
        s->index = index;
        *out = s;
        return RLX_OK;
    }
    rlx__free(&s->al, s);
    return RLX_ERROR_DEVICE_UNAVAILABLE;
}

RLXDEF void rlx_store_destroy(rlx_store* s) { rlx__store_release(s); }
RLXDEF const char* rlx_store_error(const rlx_store* s) { return s ? s->msg : "store is NULL"; }
RLXDEF rlx_device rlx_store_device(const rlx_store* s) { return s ? s->device : RLX_DEVICE_AUTO; }

static int rlx__store_find(const rlx_store* s, const char* name) {
    int i;
    for (i = 0; i < s->n; i++)
        if (strcmp(s->t[i].name, name) == 0) return i;
    return -1;
}

/* Validates a new entry and fills *e (name copied); the caller allocates its memory and appends it. */
static rlx_result rlx__store_entry(rlx_store* s, const char* what, const char* name, rlx_dtype dtype, int rank,
                                   const int64_t* shape, rlx__stensor* e) {
    int i;
    memset(e, 0, sizeof *e);
    if (!name || !name[0]) return rlx__serr(s, RLX_ERROR_INVALID_ARGUMENT, "%s: the name is NULL or empty", what);
    if (!rlx__dtype_ok(dtype)) return rlx__serr(s, RLX_ERROR_DTYPE, "%s '%s': invalid dtype %d", what, name, (int)dtype);
    if (rank < 0 || rank > RLX_MAX_RANK) return rlx__serr(s, RLX_ERROR_SHAPE, "%s '%s': rank %d is not in 0..%d", what, name, rank, RLX_MAX_RANK);
    if (rank > 0 && !shape) return rlx__serr(s, RLX_ERROR_INVALID_ARGUMENT, "%s '%s': shape is NULL", what, name);
    if (!rlx__numel_chk(rank, shape, &e->numel))
        return rlx__serr(s, RLX_ERROR_SHAPE, "%s '%s': dims must be >= 1 and the element count at most RLX_MAX_ELEMENTS", what, name);
    switch (rlx__bytes_chk(dtype, rank, shape, &e->bytes)) {
    case 1: break;
    case -1: return rlx__serr(s, RLX_ERROR_SHAPE, "%s '%s': a %s tensor needs a last dim that is a multiple of %d", what,
                              name, rlx_dtype_name(dtype), (int)rlx__qblock[dtype - RLX_Q4_0][0]);
    default: return rlx__serr(s, RLX_ERROR_SHAPE, "%s '%s': the byte size overflows size_t", what, name);
    }
    if (rlx__store_find(s, name) >= 0) return rlx__serr(s, RLX_ERROR_DUPLICATE, "%s: the store already has a tensor named '%s'", what, name);
    if (!rlx__grow(&s->al, (void**)&s->t, &s->cap, s->n + 1, sizeof(rlx__stensor)))
        return rlx__serr(s, RLX_ERROR_OUT_OF_MEMORY, "%s '%s': out of memory", what, name);
    e->name = rlx__strdup(&s->al, name);
    if (!e->name) return rlx__serr(s, RLX_ERROR_OUT_OF_MEMORY, "%s '%s': out of memory", what, name);
    e->dtype = dtype;
    e->rank = rank;
    for (i = 0; i < rank; i++) e->shape[i] = shape[i];
    return RLX_OK;
}

/* Gives e its own memory holding `data` (NULL: zeros): a host block on the CPU, a device allocation on a GPU. */
static rlx_result rlx__store_fill(rlx_store* s, const char* what, rlx__stensor* e, const void* data) {
#if defined(RLX__HAS_GPU)
    if (s->api) {
        const rlx__gpuapi* api = (const rlx__gpuapi*)s->api;
        rlx_result r = api->make_current(s->index, s->ctx);
        if (r == RLX_OK) r = api->mem_alloc(&e->dev, rlx__align_up(e->bytes));
        if (r != RLX_OK) {
            e->dev = 0;
            return rlx__serr(s, RLX_ERROR_OUT_OF_MEMORY, "%s '%s': cannot allocate %zu bytes on %s: %s", what, e->name,
                             e->bytes, rlx_device_name(s->device), api->last_error());
        }
        r = data ? api->htod(e->dev, data, e->bytes) : api->memset0(e->dev, rlx__align_up(e->bytes));
        if (r != RLX_OK)
            return rlx__serr(s, r, "%s '%s': %s failed on %s: %s", what, e->name, data ? "upload" : "clear",
                             rlx_device_name(s->device), api->last_error());
        if (data) s->uploads++;
        s->bytes = rlx__szadd(s->bytes, rlx__align_up(e->bytes));
        return RLX_OK;
    }
#endif
    e->host = rlx__alloc_aligned(&s->al, e->bytes, &e->raw);
    if (!e->host) return rlx__serr(s, RLX_ERROR_OUT_OF_MEMORY, "%s '%s': out of memory for %zu bytes", what, e->name, e->bytes);
    if (data) memcpy(e->host, data, e->bytes);
    else memset(e->host, 0, e->bytes);
    s->bytes = rlx__szadd(s->bytes, rlx__align_up(e->bytes));
    return RLX_OK;
}

static void rlx__store_drop(rlx_store* s, rlx__stensor* e) {   /* undo a half-made entry */
#if defined(RLX__HAS_GPU)
    if (s->api && e->dev) {
        const rlx__gpuapi* api = (const rlx__gpuapi*)s->api;
        api->make_current(s->index, s->ctx);
        api->mem_free(e->dev);
    }
#endif
    rlx__free(&s->al, e->raw);
    rlx__free(&s->al, e->name);
}

static rlx_result rlx__store_add(rlx_store* s, const char* what, const char* name, rlx_dtype dtype, int rank,
                                 const int64_t* shape, const void* data, int state, void (*release)(void*), void* user,
                                 int borrow) {
    rlx__stensor e;
    rlx_result r;
    if (!s) return RLX_ERROR_INVALID_ARGUMENT;
    if ((r = rlx__store_entry(s, what, name, dtype, rank, shape, &e)) != RLX_OK) return r;
    if (!state && !data) { rlx__store_drop(s, &e); return rlx__serr(s, RLX_ERROR_INVALID_ARGUMENT, "%s '%s': data is NULL", what, name); }
    e.is_state = state;
    if (borrow && !s->api && (uintptr_t)data % (rlx__is_quant(dtype) ? 1u : rlx_dtype_size(dtype)) == 0) {   /* in place */
        e.host = (void*)(uintptr_t)data;
        e.borrowed = 1;
        e.release = release;
        e.user = user;
        s->borrowed_bytes = rlx__szadd(s->borrowed_bytes, e.bytes);
    } else if ((r = rlx__store_fill(s, what, &e, data)) != RLX_OK) {
        rlx__store_drop(s, &e);
        return r;
    } else if (borrow && release) {
        release(user);   /* copied (a GPU, or misaligned data): the caller's memory is no longer needed */
    }
    if (state) s->state_bytes = rlx__szadd(s->state_bytes, rlx__align_up(e.bytes));
    s->t[s->n++] = e;
    return RLX_OK;
}

RLXDEF rlx_result rlx_store_add(rlx_store* s, const char* name, rlx_dtype dtype, int rank, const int64_t* shape,
                                const void* data) {
    return rlx__store_add(s, "store_add", name, dtype, rank, shape, data, 0, NULL, NULL, 0);
}
RLXDEF rlx_result rlx_store_borrow(rlx_store* s, const char* name, rlx_dtype dtype, int rank, const int64_t* shape,
                                   const void* data, void (*release)(void* user), void* user) {
    return rlx__store_add(s, "store_borrow", name, dtype, rank, shape, data, 0, release, user, 1);
}
RLXDEF rlx_result rlx_store_add_state(rlx_store* s, const char* name, rlx_dtype dtype, int rank, const int64_t* shape) {
    return rlx__store_add(s, "store_add_state", name, dtype, rank, shape, NULL, 1, NULL, NULL, 0);
}

/* Host write (dir 0) or read (dir 1) of entry `name`, converting between `dtype` and the entry's dtype. */
static rlx_result rlx__store_io(rlx_store* s, const char* what, const char* name, rlx_dtype dtype, void* buf,
                                size_t bytes, int dir) {
    rlx__stensor* e;
    size_t want = SIZE_MAX;
    int i;
    if (!s) return RLX_ERROR_INVALID_ARGUMENT;
    if (!name) return rlx__serr(s, RLX_ERROR_INVALID_ARGUMENT, "%s: name is NULL", what);
    if ((i = rlx__store_find(s, name)) < 0) return rlx__serr(s, RLX_ERROR_NOT_FOUND, "%s: the store has no tensor named '%s'", what, name);
    e = &s->t[i];
    if (!rlx__dtype_ok(dtype)) return rlx__serr(s, RLX_ERROR_INVALID_ARGUMENT, "%s '%s': invalid dtype %d", what, name, (int)dtype);
    if (!buf) return rlx__serr(s, RLX_ERROR_INVALID_ARGUMENT, "%s '%s': data is NULL", what, name);
    if ((rlx__is_quant(dtype) || rlx__is_quant(e->dtype)) && dtype != e->dtype)
        return rlx__serr(s, RLX_ERROR_DTYPE, "%s '%s': the tensor is %s and the data %s; block dtypes are read and "
                         "written only as their own packed bytes", what, name, rlx_dtype_name(e->dtype), rlx_dtype_name(dtype));
    if (rlx__is_quant(dtype)) want = e->bytes;
    else if (!rlx__mul_sz((size_t)e->numel, rlx_dtype_size(dtype), &want)) want = SIZE_MAX;
    if (bytes != want)
        return rlx__serr(s, RLX_ERROR_SIZE, "%s '%s': got %zu bytes, expected %zu (%lld elements of %s)", what, name, bytes,
                         want, (long long)e->numel, rlx_dtype_name(dtype));
    if (dir == 0 && e->borrowed)
        return rlx__serr(s, RLX_ERROR_INVALID_ARGUMENT, "%s '%s': the tensor is borrowed (the caller's memory, read-only here)", what, name);
#if defined(RLX__HAS_GPU)
    if (s->api) {
        const rlx__gpuapi* api = (const rlx__gpuapi*)s->api;
        void* tmp = rlx__alloc(&s->al, e->bytes);
        rlx_result r;
        if (!tmp) return rlx__serr(s, RLX_ERROR_OUT_OF_MEMORY, "%s '%s': out of memory", what, name);
        r = api->make_current(s->index, s->ctx);
        if (dir == 0) {
            rlx__convert(tmp, e->dtype, buf, dtype, e->numel);
            if (r == RLX_OK) r = api->htod(e->dev, tmp, e->bytes);
            if (r == RLX_OK) s->uploads++;
        } else {
            if (r == RLX_OK) r = api->dtoh(tmp, e->dev, e->bytes);
            if (r == RLX_OK) rlx__convert(buf, dtype, tmp, e->dtype, e->numel);
        }
        rlx__free(&s->al, tmp);
        if (r != RLX_OK)
            return rlx__serr(s, r, "%s '%s': %s failed on %s: %s", what, name, dir ? "download" : "upload",
                             rlx_device_name(s->device), api->last_error());
        return RLX_OK;
    }
#endif
    if (dir == 0) rlx__convert(e->host, e->dtype, buf, dtype, e->numel);
    else rlx__convert(buf, dtype, e->host, e->dtype, e->numel);
    return RLX_OK;
}
RLXDEF rlx_result rlx_store_set(rlx_store* s, const char* name, rlx_dtype dtype, const void* data, size_t bytes) {
    return rlx__store_io(s, "store_set", name, dtype, (void*)(uintptr_t)data, bytes, 0);
}
RLXDEF rlx_result rlx_store_get(rlx_store* s, const char* name, rlx_dtype dtype, void* dst, size_t bytes) {
    return rlx__store_io(s, "store_get", name, dtype, dst, bytes, 1);
}

RLXDEF rlx_result rlx_store_info(const rlx_store* s, rlx_store_stats* stats) {
    if (!s || !stats) return RLX_ERROR_INVALID_ARGUMENT;
    memset(stats, 0, sizeof *stats);
    stats->device = s->device;
    stats->device_index = s->index;
    stats->count = s->n;
    stats->bytes = s->bytes;
    stats->borrowed_bytes = s->borrowed_bytes;
    stats->state_bytes = s->state_bytes;
    stats->uploads = s->uploads;
    stats->programs = s->refs - 1;
    return RLX_OK;
}

RLXDEF rlx_result rlx_store_tensor(const rlx_store* s, int index, rlx_store_tensor_info* info) {
    const rlx__stensor* e;
    int i;
    if (!s || !info || index < 0 || index >= s->n) return RLX_ERROR_INVALID_ARGUMENT;
    e = &s->t[index];
    memset(info, 0, sizeof *info);
    info->name = e->name;
    info->dtype = e->dtype;
    info->rank = e->rank;
    for (i = 0; i < e->rank; i++) info->shape[i] = e->shape[i];
    info->bytes = e->bytes;
    info->is_state = e->is_state;
    info->borrowed = e->borrowed;
    info->host = e->host;
    return RLX_OK;
}

/* Binds the params and states of core c to store s by name (see rlx_store in >>program) and lays out the
   program's weight and state blocks again without them. Fails with a message naming the first mismatch. */
static rlx_result rlx__store_bind(rlx__core* c, rlx_store* s, char* msg, size_t cap) {
    const rlx_graph* ir = c->ir;
    size_t woff = 0, soff = 0;
    int i;
    c->sidx = (int*)rlx__calloc(&c->al, sizeof(int) * (size_t)(ir->n + 1));
    if (!c->sidx) { snprintf(msg, cap, "out of memory"); return RLX_ERROR_OUT_OF_MEMORY; }
    for (i = 0; i < ir->n; i++) {
        const rlx__node* nd = &ir->nodes[i];
        const rlx__stensor* e;
        int k, j, same = 1;
        c->sidx[i] = -1;
        if ((nd->op != RLX_OP_PARAM && nd->op != RLX_OP_STATE) || !nd->name || (k = rlx__store_find(s, nd->name)) < 0) continue;
        e = &s->t[k];
        if (nd->op == RLX_OP_STATE && !e->is_state) {
            snprintf(msg, cap, "state '%s' is a weight in the store; a state binds only to a store state (rlx_store_add_state)", nd->name);
            return RLX_ERROR_INVALID_ARGUMENT;
        }
        if (e->rank != nd->rank) same = 0;
        for (j = 0; same && j < nd->rank; j++) same = e->shape[j] == nd->shape[j];
        if (!same || e->dtype != nd->dtype) {
            char gs[160], ss[160];
            rlx__shape_str(gs, sizeof gs, nd->rank, nd->shape);
            rlx__shape_str(ss, sizeof ss, e->rank, e->shape);
            snprintf(msg, cap, "%s '%s': the graph expects %s %s, the store has %s %s", rlx_op_name(nd->op), nd->name,
                     rlx_dtype_name(nd->dtype), gs, rlx_dtype_name(e->dtype), ss);
            return same ? RLX_ERROR_DTYPE : RLX_ERROR_SHAPE;
        }
        c->sidx[i] = k;
    }
    for (i = 0; i < ir->n; i++) {   /* the program's own blocks keep only what is not in the store */
        rlx__buf* b = &c->plan.bufs[i];
        if (b->kind != RLX_BUFFER_PARAM && b->kind != RLX_BUFFER_CONSTANT && b->kind != RLX_BUFFER_STATE) continue;
        if (c->sidx[i] >= 0) { b->offset = 0; continue; }
        if (b->kind == RLX_BUFFER_STATE) { b->offset = soff; soff = rlx__szadd(soff, rlx__align_up(b->bytes)); }
        else { b->offset = woff; woff = rlx__szadd(woff, rlx__align_up(b->bytes)); }
    }
    c->plan.weight_bytes = woff;
    c->plan.state_bytes = soff;
    c->store = s;
    return RLX_OK;
}

/* Runs the pass pipeline; returns the optimised graph or NULL with a message in g.
   verify (before) → legalize → constant folding → CSE → DCE → fusion → DCE. */
static rlx_graph* rlx__optimize(rlx_graph* g, uint32_t flags, const rlx__target* t, rlx_result* why) {
    rlx_graph *cur = g, *next;
    int stage, last = 0;
    static const char* const names[] = {"legalize", "constant folding", "CSE", "DCE", "fusion", "DCE"};
    if (!(flags & RLX_COMPILE_NO_OPTIMIZE))
        last = ((flags & (RLX_COMPILE_NO_FUSION | RLX_COMPILE_DECOMPOSE)) || !t->fuse) ? 3 : 5;
    for (stage = 0; stage <= last; stage++) {
        uint32_t* remap = (uint32_t*)rlx__calloc(&g->al, sizeof(uint32_t) * ((size_t)cur->n + 1));
        if (!remap) next = NULL;
        else if (stage == 0) next = rlx__legalize(cur, t, (flags & RLX_COMPILE_DECOMPOSE) != 0, remap);
        else if (stage == 1) next = rlx__fold(cur, remap);
        else if (stage == 2) next = rlx__cse(cur, remap);
        else if (stage == 4) next = rlx__fuse(cur, t, remap);
        else next = rlx__dce(cur, remap);
        rlx__free(&g->al, remap);
        if (!next || next->status != RLX_OK) {
            rlx__gmsg(g, "compile: %s failed: %s", names[stage], next ? next->msg : "out of memory");
            *why = next ? next->status : RLX_ERROR_OUT_OF_MEMORY;   /* e.g. a decomposition's intermediate too large */
            rlx_graph_destroy(next);
            if (cur != g) rlx_graph_destroy(cur);
            return NULL;
        }
        if (cur != g) rlx_graph_destroy(cur);
        cur = next;
    }
    return cur;
}

/* Is device kind d (device `index`) usable? Fills a display name, a reason and the GPU generation. for_auto: asked
   for RLX_DEVICE_AUTO (which skips devices slower than the CPU backend). */
static int rlx__device_probe(rlx_device d, int index, int for_auto, char* name, size_t ncap, char* reason, size_t rcap,
                             int* sm) {
    RLX__UNUSED(for_auto);   /* only the Vulkan probe uses it */
    *sm = 0;
    name[0] = 0;
    switch (d) {
    case RLX_DEVICE_CPU:
        snprintf(name, ncap, "CPU (%s, %d threads)", rlx__cpu_simd_name(), rlx__cpu_count());
        if (index != 0) { snprintf(reason, rcap, "the CPU is device 0; device %d does not exist", index); return 0; }
        snprintf(reason, rcap, "always available");
        return 1;
    case RLX_DEVICE_CUDA:
#if !defined(RLX_NO_CUDA)
        return rlx__cuda_probe(index, name, ncap, reason, rcap, sm);
#else
        snprintf(name, ncap, "cuda");
        snprintf(reason, rcap, "disabled at build time (RLX_NO_CUDA)");
        return 0;
#endif
    case RLX_DEVICE_HIP:
#if !defined(RLX_NO_HIP)
        return rlx__hip_probe(index, name, ncap, reason, rcap, sm);
#else
        snprintf(name, ncap, "hip");
        snprintf(reason, rcap, "disabled at build time (RLX_NO_HIP)");
        return 0;
#endif
    case RLX_DEVICE_VULKAN:
#if defined(RLX__HAS_VULKAN)
        return rlx__vk_probe(index, for_auto, name, ncap, reason, rcap, sm);
#else
        snprintf(name, ncap, "vulkan");
#  if defined(RLX_NO_VULKAN)
        snprintf(reason, rcap, "disabled at build time (RLX_NO_VULKAN)");
#  else
        snprintf(reason, rcap, "built without volk.h (install libvulkan-volk-dev, or put volk on the include path and define RLX_VULKAN)");
#  endif
        return 0;
#endif
    default:
        snprintf(name, ncap, "%s", rlx_device_name(d));
        snprintf(reason, rcap, "this version of rlx.h has no %s backend yet", rlx_device_name(d));
        return 0;
    }
}

/* For rlx_devices: how many devices of kind d exist (0: no driver or none; the CPU is one), and the memory and
   driver of device `index` of that kind. */
static int rlx__device_count(rlx_device d) {
    switch (d) {
    case RLX_DEVICE_CPU: return 1;
#if !defined(RLX_NO_CUDA)
    case RLX_DEVICE_CUDA: return rlx__cuda_count();
#endif
#if !defined(RLX_NO_HIP)
    case RLX_DEVICE_HIP: return rlx__hip_count();
#endif
#if defined(RLX__HAS_VULKAN)
    case RLX_DEVICE_VULKAN: return rlx__vk_count();
#endif
    default: return 0;
    }
}
static void rlx__device_details(rlx_device d, int index, uint64_t* mem, char* drv, size_t cap) {
    *mem = 0;
    drv[0] = 0;
    RLX__UNUSED(index);
    RLX__UNUSED(cap);
    switch (d) {
    case RLX_DEVICE_CPU:
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE) && !defined(_WIN32)
        {
            long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
            if (pages > 0 && size > 0) *mem = (uint64_t)pages * (uint64_t)size;
        }
#endif
        return;
#if !defined(RLX_NO_CUDA)
    case RLX_DEVICE_CUDA: rlx__cuda_details(index, mem, drv, cap); return;
#endif
#if !defined(RLX_NO_HIP)
    case RLX_DEVICE_HIP: rlx__hip_details(index, mem, drv, cap); return;
#endif
#if defined(RLX__HAS_VULKAN)
    case RLX_DEVICE_VULKAN: rlx__vk_details(index, mem, drv, cap); return;
#endif
    default: return;
    }
}

/* Optimise, plan and instantiate g for one device. On failure *msg says why. */
/* A program of core c (compiled for dev): its weight block (store-bound params marked set; constants moved out of
   the nodes, or copied from `consts`, the constants of c's graph in node order, when given), arena, threads and
   GPU set-up, and profiling when the desc asks for it. The program takes its own reference on c. Shared by
   rlx__compile_for and the symbolic-dims cache (rlx__dims_instantiate). */
static rlx_result rlx__program_from_core(rlx__core* c, const unsigned char* consts, const rlx_compile_desc* d,
                                         const rlx_allocator* al, rlx_device dev, int sm, int nthreads,
                                         rlx_program** out, char* msg, size_t cap) {
    rlx__weights* w;
    rlx_program* p = NULL;
    rlx_result r;
    size_t o = 0;
    int i;
    w = rlx__weights_new(al, c);
    if (!w) { snprintf(msg, cap, "out of memory for %zu weight bytes", c->plan.weight_bytes); return RLX_ERROR_OUT_OF_MEMORY; }
    for (i = 0; c->sidx && i < c->ir->n; i++)
        if (c->sidx[i] >= 0) w->set[i] = 1;   /* store tensors are always set */
    for (i = 0; i < c->ir->n; i++) {   /* constants move into the weight block */
        rlx__node* nd = &c->ir->nodes[i];
        size_t b;
        if (nd->op != RLX_OP_CONSTANT) continue;
        b = rlx__node_bytes(nd);
        if (consts) {
            memcpy(w->base + c->plan.bufs[i].offset, consts + o, b);
            o += b;
        } else {
            memcpy(w->base + c->plan.bufs[i].offset, nd->data, b);
            rlx__free(al, nd->data);
            nd->data = NULL;
        }
    }
    r = rlx__program_new(al, c, w, dev == RLX_DEVICE_CPU ? nthreads : 0, d->pool, &p);
    rlx__weights_release(w);
    if (r != RLX_OK) { snprintf(msg, cap, "out of memory for the arena"); return r; }
    p->device = dev;
#if defined(RLX__HAS_GPU)
    r = RLX_OK;
#  if !defined(RLX_NO_CUDA)
    if (dev == RLX_DEVICE_CUDA) r = rlx__gpu_init(p, &rlx__cuda_gpuapi, d->device_index, sm, rlx__cuda_scratch, rlx__cuda_lower);
#  endif
#  if !defined(RLX_NO_HIP)
    if (dev == RLX_DEVICE_HIP) r = rlx__gpu_init(p, &rlx__hip_gpuapi, d->device_index, sm, rlx__cuda_scratch, rlx__cuda_lower);
#  endif
#  if defined(RLX__HAS_VULKAN)
    if (dev == RLX_DEVICE_VULKAN)
        r = rlx__gpu_init(p, &rlx__vulkan_gpuapi, d->device_index, sm, rlx__cuda_scratch, rlx__cuda_lower);
#  endif
    if (r != RLX_OK) {
        rlx__strlcpy(msg, cap, p->msg);
        rlx_program_destroy(p);
        return r;
    }
#else
    RLX__UNUSED(sm);
#endif
    if ((d->flags & RLX_COMPILE_PROFILE) && (r = rlx__prof_enable(p, 1)) != RLX_OK) {
        rlx__strlcpy(msg, cap, p->msg);
        rlx_program_destroy(p);
        return r;
    }
    *out = p;
    return RLX_OK;
}

static rlx_result rlx__compile_for(rlx_graph* g, const rlx_compile_desc* d, const rlx_allocator* al, rlx_device dev,
                                   int sm, int nthreads, rlx_program** out, char* msg, size_t cap) {
    rlx__core* c;
    rlx__target t;
    rlx_result r = RLX_ERROR_OUT_OF_MEMORY;
    int i, s;
    memset(&t, 0, sizeof t);
    t.fuse = 1;
    t.fuse_gated = 1;   /* the CPU and the CUDA/HIP kernels run gated linears */
    t.fuse_transpose = 1;   /* every backend reads a transposed f32 b in place (CPU strides, GPU *_t kernels) */
    t.sm = sm;
#if !defined(RLX_NO_CUDA)
    if (dev == RLX_DEVICE_CUDA) t.supports = rlx__cuda_supports;
#endif
#if !defined(RLX_NO_HIP)
    if (dev == RLX_DEVICE_HIP) t.supports = rlx__cuda_supports;   /* the same kernels, compiled by hipRTC */
#endif
#if defined(RLX__HAS_VULKAN)
    if (dev == RLX_DEVICE_VULKAN) t.supports = rlx__cuda_supports;   /* the same lowering, GLSL ports of the kernels */
#endif
    c = (rlx__core*)rlx__calloc(al, sizeof *c);
    if (!c) { snprintf(msg, cap, "out of memory"); return RLX_ERROR_OUT_OF_MEMORY; }
    c->al = *al;
    c->refs = 1;
    {
        rlx_allocator gal = g->al;   /* passes allocate with the program's allocator */
        g->al = *al;
        c->ir = rlx__optimize(g, d->flags, &t, &r);
        g->al = gal;
    }
    if (!c->ir) { rlx__strlcpy(msg, cap, g->msg); rlx__core_release(c); return r; }
    for (i = 0; t.supports && i < c->ir->n; i++) {   /* what the legalizer could not rewrite */
        const rlx__node* nd = &c->ir->nodes[i];
        if (nd->nin == 0 || nd->op == RLX_OP_STATE || rlx__target_has(&t, c->ir, nd)) continue;
        {
            size_t off;
            if (rlx__view_offset(c->ir, nd, &off)) continue;   /* views cost nothing on any device */
        }
        {
            char ref[320];
            rlx__ir_node_ref(ref, sizeof ref, c->ir, nd);
            snprintf(msg, cap, "%s cannot run %s (output %s)", rlx_device_name(dev), ref, rlx_dtype_name(nd->dtype));
            rlx__utf8_clip(msg, strlen(msg));
        }
        rlx__core_release(c);
        return RLX_ERROR_UNSUPPORTED;
    }
    if (d->flags & RLX_COMPILE_TF32)   /* the GPU lowering reads this per node */
        for (i = 0; i < c->ir->n; i++)
            if (c->ir->nodes[i].op == RLX_OP_MATMUL || c->ir->nodes[i].op == RLX_OP_LINEAR) c->ir->nodes[i].ia[10] = 1;
    r = rlx__plan_build(c->ir, (d->flags & RLX_COMPILE_NO_REUSE) != 0, &c->plan);
    c->in_off = (int*)rlx__calloc(al, sizeof(int) * (size_t)(c->plan.nsteps + 1));
    c->extra_of = (int*)rlx__calloc(al, sizeof(int) * (size_t)(c->ir->n + 1));
    if (r != RLX_OK || !c->in_off || !c->extra_of) {
        snprintf(msg, cap, r == RLX_ERROR_SIZE ? "out of memory: the program's buffers add up to more than size_t can hold"
                                               : "out of memory while planning");
        rlx__core_release(c);
        return RLX_ERROR_OUT_OF_MEMORY;
    }
    for (s = 0; s < c->plan.nsteps; s++) {
        c->in_off[s] = c->nstepin;
        c->nstepin += c->ir->nodes[c->plan.steps[s]].nin + 1;
    }
    for (i = 0; i < c->ir->n; i++) c->extra_of[i] = -1;
    for (i = 0; i < c->ir->n; i++)
        if (c->ir->nodes[i].op == RLX_OP_EXTRA) c->extra_of[rlx__in(c->ir, &c->ir->nodes[i], 0) - 1] = i;
    if (d->store && (r = rlx__store_bind(c, d->store, msg, cap)) != RLX_OK) { rlx__core_release(c); return r; }
    r = rlx__program_from_core(c, NULL, d, al, dev, sm, nthreads, out, msg, cap);
    rlx__core_release(c);
    return r;
}

/* ---- >>shapes (compile cache): compiled cores of a graph with symbolic dims, per (values, device, flags, allocator) */
typedef struct rlx__dimcache {
    rlx__core* core;        /* NULL: empty slot                                                          */
    int64_t vals[RLX_MAX_DIMS];
    rlx_device dev;
    int sm;
    uint32_t flags;
    int n, nouts;           /* the graph's size when compiled: a graph that grew since never matches      */
    rlx_allocator al;       /* the allocator the core was made with (programs of another allocator miss)  */
    unsigned char* consts;  /* the constants' bytes in node order (the core's ir no longer holds them)    */
    uint64_t used;          /* LRU clock                                                                  */
} rlx__dimcache;

static void rlx__dims_free(rlx_graph* g) {
    int k;
    for (k = 0; k < g->ndims; k++) rlx__free(&g->al, g->dim_names[k]);
    rlx__free(&g->al, g->syms);
    rlx_graph_destroy(g->spec);
    if (g->dcache) {
        for (k = 0; k < RLX_DIM_CACHE; k++) {
            rlx__core_release(g->dcache[k].core);
            rlx__free(&g->al, g->dcache[k].consts);
        }
        rlx__free(&g->al, g->dcache);
    }
}

/* The values of g's dims for compile desc d (unbound dims: their example value). */
static rlx_result rlx__dims_bind(rlx_graph* g, const rlx_compile_desc* d, int64_t* vals) {
    int i, k, seen[RLX_MAX_DIMS];
    char names[200];
    if (d->num_dims < 0 || (d->num_dims > 0 && !d->dims)) {
        rlx__gmsg(g, "compile: num_dims is %d and dims %s", d->num_dims, d->dims ? "is set" : "is NULL");
        return RLX_ERROR_INVALID_ARGUMENT;
    }
    if (d->num_dims > 0 && g->ndims == 0) {
        rlx__gmsg(g, "compile: %d dim value(s) given but the graph declares no symbolic dims (see rlx_dim)", d->num_dims);
        return RLX_ERROR_INVALID_ARGUMENT;
    }
    for (k = 0; k < g->ndims; k++) { vals[k] = g->dim_ex[k]; seen[k] = 0; }
    for (i = 0; i < d->num_dims; i++) {
        const char* nm = d->dims[i].name;
        int64_t v = d->dims[i].value;
        if (!nm || !nm[0]) { rlx__gmsg(g, "compile: dims[%d].name is NULL or empty", i); return RLX_ERROR_INVALID_ARGUMENT; }
        for (k = 0; k < g->ndims && strcmp(g->dim_names[k], nm) != 0; k++) {}
        if (k == g->ndims) {
            size_t o = 0;
            names[0] = 0;
            for (k = 0; k < g->ndims && o < sizeof names; k++)
                o += (size_t)snprintf(names + o, sizeof names - o, "%s%s", k ? ", " : "", g->dim_names[k]);
            rlx__gmsg(g, "compile: dims[%d]: '%.100s' is not a dim of this graph (its dims: %s)", i, nm, names);
            return RLX_ERROR_NOT_FOUND;
        }
        if (seen[k]) { rlx__gmsg(g, "compile: dims[%d]: '%.100s' is given twice", i, nm); return RLX_ERROR_DUPLICATE; }
        seen[k] = 1;
        if (v < 1 || v > RLX_MAX_ELEMENTS) {
            rlx__gmsg(g, "compile: dim '%.100s' = %lld is invalid: a dim must be in 1..RLX_MAX_ELEMENTS (%lld)", nm,
                      (long long)v, (long long)RLX_MAX_ELEMENTS);
            return RLX_ERROR_SHAPE;
        }
        vals[k] = v;
    }
    return RLX_OK;
}

/* A new program of cached entry e (fresh weights with the constants filled in, its own arena and threads). This
   is the tail of rlx__compile_for (weights, rlx__program_new, GPU set-up) for a core that already exists: what
   changes there for every new program must change here too. */
static rlx_result rlx__dims_instantiate(const rlx__dimcache* e, const rlx_compile_desc* d, const rlx_allocator* al,
                                        int nthreads, rlx_program** out, char* msg, size_t cap) {
    return rlx__program_from_core(e->core, e->consts, d, al, e->dev, e->sm, nthreads, out, msg, cap);
}

/* Keeps the core of the just compiled program p in g's cache (dropping the least recently used entry). Out of
   memory only means nothing is cached. */
static void rlx__dims_insert(rlx_graph* g, const int64_t* vals, rlx_device dev, int sm, uint32_t flags,
                             const rlx_allocator* al, const rlx_program* p) {
    const rlx__core* c = p->core;
    rlx__dimcache* e;
    size_t bytes = 0, o = 0;
    int i, k, pick = 0;
    if (RLX_DIM_CACHE < 1) return;
    if (!g->dcache) {
        g->dcache = (rlx__dimcache*)rlx__calloc(&g->al, sizeof(rlx__dimcache) * (size_t)RLX_DIM_CACHE);
        if (!g->dcache) return;
    }
    for (k = 0; k < RLX_DIM_CACHE; k++) {
        if (!g->dcache[k].core) { pick = k; break; }
        if (g->dcache[k].used < g->dcache[pick].used) pick = k;
    }
    e = &g->dcache[pick];
    rlx__core_release(e->core);
    rlx__free(&g->al, e->consts);
    memset(e, 0, sizeof *e);
    for (i = 0; i < c->ir->n; i++)
        if (c->ir->nodes[i].op == RLX_OP_CONSTANT) bytes += rlx__node_bytes(&c->ir->nodes[i]);
    e->consts = (unsigned char*)rlx__alloc(&g->al, bytes ? bytes : 1);
    if (!e->consts) return;
    for (i = 0; i < c->ir->n; i++) {
        const rlx__node* nd = &c->ir->nodes[i];
        if (nd->op != RLX_OP_CONSTANT) continue;
        memcpy(e->consts + o, p->w->base + c->plan.bufs[i].offset, rlx__node_bytes(nd));
        o += rlx__node_bytes(nd);
    }
    memcpy(e->vals, vals, sizeof(int64_t) * (size_t)g->ndims);
    e->dev = dev;
    e->sm = sm;
    e->flags = flags;
    e->n = g->n;
    e->nouts = g->nouts;
    e->al = *al;
    e->used = ++g->dclock;
    e->core = p->core;
    RLX__ATOMIC_ADD(&e->core->refs, 1);
}

/* rlx__compile_for for a graph with symbolic dims: a cached core for (vals, dev, sm, flags, allocator) gives a
   new program at once; otherwise the graph is specialised (the last specialisation is kept for the next device
   or call), verified and compiled, and the result cached. */
static rlx_result rlx__dims_compile(rlx_graph* g, const int64_t* vals, const rlx_compile_desc* d,
                                    const rlx_allocator* al, rlx_device dev, int sm, int nthreads, rlx_program** out,
                                    char* msg, size_t cap) {
    size_t vb = sizeof(int64_t) * (size_t)g->ndims;
    rlx_result r;
    int k;
    for (k = 0; g->dcache && !d->store && k < RLX_DIM_CACHE; k++) {   /* a store-bound core is not cached */
        rlx__dimcache* e = &g->dcache[k];
        if (e->core && e->dev == dev && e->sm == sm && e->flags == d->flags && e->n == g->n &&
            e->nouts == g->nouts && memcmp(e->vals, vals, vb) == 0 && e->al.alloc == al->alloc &&
            e->al.free == al->free && e->al.user_data == al->user_data) {
            e->used = ++g->dclock;
            return rlx__dims_instantiate(e, d, al, nthreads, out, msg, cap);
        }
    }
    if (!g->spec || g->spec_n != g->n || g->spec_nouts != g->nouts || memcmp(g->spec_vals, vals, vb) != 0) {
        rlx_graph* sg;
        rlx_graph_destroy(g->spec);
        g->spec = NULL;
        sg = rlx__specialize(g, vals, &r, msg, cap);
        if (!sg) return r;
        r = rlx__verify(sg, msg, cap);
        if (r != RLX_OK) { rlx_graph_destroy(sg); return r; }
        g->spec = sg;
        memcpy(g->spec_vals, vals, vb);
        g->spec_n = g->n;
        g->spec_nouts = g->nouts;
    }
    r = rlx__compile_for(g->spec, d, al, dev, sm, nthreads, out, msg, cap);
    /* a core bound to a store refers to that store's tensors (and the store may change or go): not cached */
    if (r == RLX_OK && !d->store) rlx__dims_insert(g, vals, dev, sm, d->flags, al, *out);
    return r;
}

RLXDEF rlx_result rlx_compile(rlx_graph* g, const rlx_compile_desc* desc, rlx_program** out) {
    rlx_compile_desc d;
    rlx_allocator al;
    rlx_result r, last = RLX_ERROR_DEVICE_UNAVAILABLE;
    rlx_device cand[RLX_DEVICE_COUNT];
    int64_t vals[RLX_MAX_DIMS];
    char notes[480], name[96], reason[200], msg[400];
    int ncand = 0, k, nthreads;
    size_t nl = 0;
    if (out) *out = NULL;
    if (!g) return RLX_ERROR_INVALID_ARGUMENT;
    if (!out) { rlx__gmsg(g, "compile: out is NULL"); return RLX_ERROR_INVALID_ARGUMENT; }
    memset(&d, 0, sizeof d);
    if (desc) d = *desc;
    if (g->status != RLX_OK) {
        char first[512];
        memcpy(first, g->msg, sizeof first);
        first[sizeof first - 1] = 0;
        if (strlen(first) > 400) rlx__utf8_clip(first, 400);   /* (names in it may be UTF-8) */
        snprintf(g->msg, sizeof g->msg, "compile: the graph has a builder error: %.400s", first);   /* clipped above */
        return RLX_ERROR_BAD_GRAPH;
    }
    if (g->n == 0) { rlx__gmsg(g, "compile: the graph is empty"); return RLX_ERROR_BAD_GRAPH; }
    if (g->nouts == 0) { rlx__gmsg(g, "compile: the graph has no outputs (call rlx_output)"); return RLX_ERROR_BAD_GRAPH; }
    if ((int)d.device < 0 || (int)d.device >= (int)RLX_DEVICE_COUNT) {
        rlx__gmsg(g, "compile: invalid device %d", (int)d.device);
        return RLX_ERROR_INVALID_ARGUMENT;
    }
    if (d.num_threads < 0 || d.device_index < 0) {
        rlx__gmsg(g, "compile: num_threads and device_index must be >= 0");
        return RLX_ERROR_INVALID_ARGUMENT;
    }
    if (d.device == RLX_DEVICE_AUTO && d.device_index != 0) {
        rlx__gmsg(g, "compile: device_index %d needs a device kind (RLX_DEVICE_AUTO tries device 0 of each kind)",
                  d.device_index);
        return RLX_ERROR_INVALID_ARGUMENT;
    }
    if ((d.allocator.alloc == NULL) != (d.allocator.free == NULL)) {
        rlx__gmsg(g, "compile: allocator needs both alloc and free, or neither");
        return RLX_ERROR_INVALID_ARGUMENT;
    }
    if (d.store) {   /* the program runs where the store lives */
        if (d.device == RLX_DEVICE_AUTO) {
            d.device = d.store->device;
            d.device_index = d.store->index;
        } else if (d.device != d.store->device || d.device_index != d.store->index) {
            rlx__gmsg(g, "compile: the store lives on %s %d but the program asks for %s %d (use RLX_DEVICE_AUTO or the store's device)",
                      rlx_device_name(d.store->device), d.store->index, rlx_device_name(d.device), d.device_index);
            return RLX_ERROR_INVALID_ARGUMENT;
        }
        d.flags |= RLX_COMPILE_NO_FALLBACK;   /* a program on another device could not reach the store's memory */
    }
    al = d.allocator.alloc ? d.allocator : g->al;
    if (g->ndims || d.num_dims) {
        r = rlx__dims_bind(g, &d, vals);
        if (r != RLX_OK) return r;
    }
    nthreads = d.num_threads ? d.num_threads : rlx__cpu_count();
    if (nthreads > RLX_MAX_THREADS) nthreads = RLX_MAX_THREADS;
    if (d.pool) {
        if (d.num_threads != 0 && d.num_threads != d.pool->n) {
            rlx__gmsg(g, "compile: num_threads is %d but the pool has %d threads (leave num_threads 0 with a pool)",
                      d.num_threads, d.pool->n);
            return RLX_ERROR_INVALID_ARGUMENT;
        }
        nthreads = d.pool->n;
    }
    {
        char vmsg[256];
        r = rlx__verify(g, vmsg, sizeof vmsg);
        if (r != RLX_OK) { rlx__gmsg(g, "compile: %s", vmsg); return r; }
    }
    /* candidates, best first: AUTO tries the GPUs, then the CPU; a named device falls back to the CPU
       unless RLX_COMPILE_NO_FALLBACK */
    if (d.device == RLX_DEVICE_AUTO) {
        cand[ncand++] = RLX_DEVICE_CUDA;
        cand[ncand++] = RLX_DEVICE_HIP;
        cand[ncand++] = RLX_DEVICE_VULKAN;
        cand[ncand++] = RLX_DEVICE_CPU;
    } else {
        cand[ncand++] = d.device;
        if (d.device != RLX_DEVICE_CPU && !(d.flags & RLX_COMPILE_NO_FALLBACK)) cand[ncand++] = RLX_DEVICE_CPU;
    }
    notes[0] = 0;
    for (k = 0; k < ncand; k++) {
        rlx_device dev = cand[k];
        int sm = 0, index = dev == d.device ? d.device_index : 0;
        rlx_program* p = NULL;
        if (!rlx__device_probe(dev, index, d.device == RLX_DEVICE_AUTO, name, sizeof name, reason, sizeof reason, &sm)) {
            nl += (size_t)snprintf(notes + nl, nl < sizeof notes ? sizeof notes - nl : 0, "%s%s: %s", nl ? "; " : "",
                                   rlx_device_name(dev), reason);
            if (nl >= sizeof notes) nl = sizeof notes - 1;
            last = RLX_ERROR_DEVICE_UNAVAILABLE;
            continue;
        }
        msg[0] = 0;
        {
            rlx_compile_desc dk = d;   /* the device compiled for is the one probed */
            dk.device_index = index;
            r = g->ndims ? rlx__dims_compile(g, vals, &dk, &al, dev, sm, nthreads, &p, msg, sizeof msg)
                         : rlx__compile_for(g, &dk, &al, dev, sm, nthreads, &p, msg, sizeof msg);
        }
        if (r == RLX_OK) {
            char nt[301];   /* the notes, clipped on a UTF-8 boundary (they may quote node names) */
            rlx__strlcpy(nt, d.device == RLX_DEVICE_AUTO ? 251 : 301, notes);
            if (d.device == RLX_DEVICE_AUTO)
                snprintf(p->reason, sizeof p->reason, "auto: %.90s, %.120s%s%.250s%s", name, reason, nl ? " (skipped: " : "",
                         nt, nl ? ")" : "");
            else if (dev != d.device)
                snprintf(p->reason, sizeof p->reason, "%s requested but unusable (%.300s); fell back to %.90s",
                         rlx_device_name(d.device), nt, name);
            else
                snprintf(p->reason, sizeof p->reason, "%s: requested, %.90s, %.150s", rlx_device_name(dev), name, reason);
            *out = p;
            return RLX_OK;
        }
        if (dev == RLX_DEVICE_CPU) { rlx__gmsg(g, "compile: %s", msg); return r; }   /* the last resort: its error is final */
        nl += (size_t)snprintf(notes + nl, nl < sizeof notes ? sizeof notes - nl : 0, "%s%s: %s", nl ? "; " : "",
                               rlx_device_name(dev), msg);
        if (nl >= sizeof notes) { rlx__utf8_clip(notes, sizeof notes - 1); nl = strlen(notes); }
        last = r;
    }
    rlx__gmsg(g, "compile: no usable device (%s)%s", notes,
              (d.flags & RLX_COMPILE_NO_FALLBACK) ? "; RLX_COMPILE_NO_FALLBACK forbids the CPU fallback" : "");
    return last == RLX_ERROR_OUT_OF_MEMORY ? last : (last == RLX_ERROR_UNSUPPORTED ? last : RLX_ERROR_DEVICE_UNAVAILABLE);
}

RLXDEF const char* rlx_program_error(const rlx_program* p) { return p ? p->msg : "program is NULL"; }
RLXDEF rlx_device rlx_program_device(const rlx_program* p) { return p ? p->device : RLX_DEVICE_AUTO; }
RLXDEF const char* rlx_program_device_reason(const rlx_program* p) { return p ? p->reason : "program is NULL"; }

/* A program is used by one thread at a time. Every call that reads or writes its memory enters first; a second
   thread that calls at the same time gets RLX_ERROR_BUSY (and the program's message is left to the call that
   is inside). Without atomics in the compiler this is a best-effort check. */
static int rlx__program_enter(rlx_program* p) {
#if defined(__GNUC__) || defined(__clang__)
    long expect = 0;
    return __atomic_compare_exchange_n(&p->busy, &expect, 1L, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
#elif defined(_WIN32) && !defined(RLX_NO_THREADS)
    return InterlockedCompareExchange((volatile LONG*)&p->busy, 1, 0) == 0;
#elif defined(RLX__ATOMIC_MUTEX)
    int ok;
    pthread_mutex_lock(&rlx__atomic_mutex);
    ok = p->busy == 0;
    if (ok) p->busy = 1;
    pthread_mutex_unlock(&rlx__atomic_mutex);
    return ok;
#else
    if (p->busy) return 0;   /* RLX_NO_THREADS: the caller's threads are unknown to rlx.h; a best-effort check */
    p->busy = 1;
    return 1;
#endif
}
static void rlx__program_leave(rlx_program* p) {
#if defined(__GNUC__) || defined(__clang__)
    __atomic_store_n(&p->busy, 0L, __ATOMIC_RELEASE);
#elif defined(_WIN32) && !defined(RLX_NO_THREADS)
    InterlockedExchange((volatile LONG*)&p->busy, 0);
#elif defined(RLX__ATOMIC_MUTEX)
    pthread_mutex_lock(&rlx__atomic_mutex);
    p->busy = 0;
    pthread_mutex_unlock(&rlx__atomic_mutex);
#else
    p->busy = 0;
#endif
}
#define RLX__GUARDED(p, call)                                 \
    do {                                                      \
        rlx_result r_;                                        \
        if (!(p)) return RLX_ERROR_INVALID_ARGUMENT;          \
        if (!rlx__program_enter(p)) return RLX_ERROR_BUSY;    \
        r_ = (call);                                          \
        rlx__program_leave(p);                                \
        return r_;                                            \
    } while (0)

static rlx_result rlx__program_clone(rlx_program* p, int share_weights, rlx_program** out);
RLXDEF rlx_result rlx_program_clone(rlx_program* p, int share_weights, rlx_program** out) {
    if (out) *out = NULL;
    RLX__GUARDED(p, rlx__program_clone(p, share_weights, out));
}
static rlx_result rlx__program_clone(rlx_program* p, int share_weights, rlx_program** out) {
    rlx__weights* w;
    rlx_program* q = NULL;
    rlx_result r;
    int i;
    if (out) *out = NULL;
    if (!p) return RLX_ERROR_INVALID_ARGUMENT;
    if (!out) return rlx__perr(p, RLX_ERROR_INVALID_ARGUMENT, "clone: out is NULL");
    if (share_weights) {
        w = p->w;
        RLX__ATOMIC_ADD(&w->refs, 1);
    } else {
        w = rlx__weights_new(&p->al, p->core);
        if (!w) return rlx__perr(p, RLX_ERROR_OUT_OF_MEMORY, "clone: out of memory for weights");
        memcpy(w->base, p->w->base, p->core->plan.weight_bytes);
        memcpy(w->set, p->w->set, (size_t)p->core->ir->n + 1);
    }
    r = rlx__program_new(&p->al, p->core, w, p->gpu ? 0 : p->nthreads, p->tp, &q);
    rlx__weights_release(w);
    if (r != RLX_OK) return rlx__perr(p, r, "clone: out of memory");
    q->device = p->device;
#if defined(RLX__HAS_GPU)
    if (p->gpu) {
        const rlx__gpu_prog* gp = (const rlx__gpu_prog*)p->gpu;
        RLX__UNUSED(gp);
#  if !defined(RLX_NO_CUDA)
        if (p->device == RLX_DEVICE_CUDA) r = rlx__gpu_init(q, gp->api, gp->index, gp->sm, rlx__cuda_scratch, rlx__cuda_lower);
#  endif
#  if !defined(RLX_NO_HIP)
        if (p->device == RLX_DEVICE_HIP) r = rlx__gpu_init(q, gp->api, gp->index, gp->sm, rlx__cuda_scratch, rlx__cuda_lower);
#  endif
#  if defined(RLX__HAS_VULKAN)
        if (p->device == RLX_DEVICE_VULKAN) r = rlx__gpu_init(q, gp->api, gp->index, gp->sm, rlx__cuda_scratch, rlx__cuda_lower);
#  endif
        if (r == RLX_OK) r = rlx__gpu_download_states(p);
        if (r == RLX_OK) memcpy(q->state, p->state, p->core->plan.state_bytes);
        if (r != RLX_OK) {
            rlx__perr(p, r, "clone: %s", q->msg);
            rlx_program_destroy(q);
            return r;
        }
    }
#endif
    memcpy(q->state, p->state, p->core->plan.state_bytes);
    /* inputs and states carry over, so the clone can run at once */
    for (i = 0; i < p->core->ir->n; i++) {
        const rlx__buf* b = &p->core->plan.bufs[i];
        int copy_in = b->kind == RLX_BUFFER_INPUT && p->input_set[i];
        if (copy_in) { memcpy(q->ptr[i], p->ptr[i], b->bytes); q->input_set[i] = 1; }
#if defined(RLX__HAS_GPU)
        if (q->gpu && (copy_in || (b->kind == RLX_BUFFER_STATE && q->ptr[i])) && (r = rlx__gpu_upload(q, i)) != RLX_OK) {
            rlx__perr(p, r, "clone: %s", q->msg);
            rlx_program_destroy(q);
            return r;
        }
#endif
    }
    memcpy(q->reason, p->reason, sizeof q->reason);
    if (p->prof_on && (r = rlx__prof_enable(q, 1)) != RLX_OK) {   /* a clone profiles too (its own sums) */
        rlx__perr(p, r, "clone: out of memory");
        rlx_program_destroy(q);
        return r;
    }
    *out = q;
    return RLX_OK;
}

/* Find a source node (input or param) by name; 0-based index or -1. */
static int rlx__find_source(const rlx_program* p, rlx_op op, const char* name) {
    const rlx_graph* ir = p->core->ir;
    int i;
    for (i = 0; i < ir->n; i++)
        if (ir->nodes[i].op == op && ir->nodes[i].name && strcmp(ir->nodes[i].name, name) == 0) return i;
    return -1;
}

/* Shared checks of set_param / set_input / get_output: arguments, byte size. */
static rlx_result rlx__io_check(rlx_program* p, const char* what, const char* name, rlx_dtype dtype,
                                const void* data, size_t bytes, const rlx__node* nd) {
    size_t want;
    if (!rlx__dtype_ok(dtype)) return rlx__perr(p, RLX_ERROR_INVALID_ARGUMENT, "%s '%s': invalid dtype %d", what, name, (int)dtype);
    if (!data) return rlx__perr(p, RLX_ERROR_INVALID_ARGUMENT, "%s '%s': data is NULL", what, name);
    if ((rlx__is_quant(dtype) || rlx__is_quant(nd->dtype)) && dtype != nd->dtype)
        return rlx__perr(p, RLX_ERROR_DTYPE, "%s '%s': the tensor is %s and the data %s; block dtypes are read and "
                         "written only as their own packed bytes (the _raw calls)", what, name, rlx_dtype_name(nd->dtype),
                         rlx_dtype_name(dtype));
    if (rlx__bytes_chk(dtype, nd->rank, nd->shape, &want) != 1) want = SIZE_MAX;
    if (bytes != want)
        return rlx__perr(p, RLX_ERROR_SIZE, "%s '%s': got %zu bytes, expected %zu (%lld elements of %s)", what, name,
                         bytes, want, (long long)rlx__node_numel(nd), rlx_dtype_name(dtype));
    return RLX_OK;
}

static rlx_result rlx__set_source(rlx_program* p, rlx_op op, const char* name, rlx_dtype dtype, const void* data,
                                  size_t bytes, int raw) {
    const char* what = op == RLX_OP_PARAM ? "set_param" : op == RLX_OP_STATE ? "set_state" : "set_input";
    const rlx__node* nd;
    int i;
    rlx_result r;
    if (!p) return RLX_ERROR_INVALID_ARGUMENT;
    if (!name) return rlx__perr(p, RLX_ERROR_INVALID_ARGUMENT, "%s: name is NULL", what);
    i = rlx__find_source(p, op, name);
    if (i < 0)
        return rlx__perr(p, RLX_ERROR_NOT_FOUND, "%s: the program has no %s named '%s'", what,
                         op == RLX_OP_PARAM ? "param" : op == RLX_OP_STATE ? "state" : "input", name);
    nd = &p->core->ir->nodes[i];
    if (raw) dtype = nd->dtype;
    if (p->core->sidx && p->core->sidx[i] >= 0) {   /* a store tensor: write through to the store */
        rlx_store* st = p->core->store;
        r = rlx__store_io(st, what, name, dtype, (void*)(uintptr_t)data, bytes, 0);
        return r == RLX_OK ? r : rlx__perr(p, r, "%s", st->msg);
    }
    r = rlx__io_check(p, what, name, dtype, data, bytes, nd);
    if (r != RLX_OK) return r;
    rlx__convert(p->ptr[i], nd->dtype, data, dtype, rlx__node_numel(nd));
    if (op == RLX_OP_PARAM) { p->w->set[i] = 1; p->w->gen++; }
    else if (op == RLX_OP_INPUT) p->input_set[i] = 1;
#if defined(RLX__HAS_GPU)
    if (p->gpu) {
        r = rlx__gpu_upload(p, i);
        if (r != RLX_OK) return r;
        if (op == RLX_OP_PARAM && ((rlx__gpu_prog*)p->gpu)->weights_gen + 1 == p->w->gen)
            ((rlx__gpu_prog*)p->gpu)->weights_gen = p->w->gen;   /* only this param changed: already uploaded */
    }
#endif
    return RLX_OK;
}

RLXDEF rlx_result rlx_set_param(rlx_program* p, const char* name, rlx_dtype dtype, const void* data, size_t bytes) {
    RLX__GUARDED(p, rlx__set_source(p, RLX_OP_PARAM, name, dtype, data, bytes, 0));
}
RLXDEF rlx_result rlx_set_param_raw(rlx_program* p, const char* name, const void* data, size_t bytes) {
    RLX__GUARDED(p, rlx__set_source(p, RLX_OP_PARAM, name, RLX_DTYPE_INVALID, data, bytes, 1));
}
#define RLX__COUNT_BYTES(count, T) ((count) > SIZE_MAX / sizeof(T) ? SIZE_MAX : (count) * sizeof(T))
RLXDEF rlx_result rlx_set_param_f32(rlx_program* p, const char* n, const float* d, size_t c) { return rlx_set_param(p, n, RLX_F32, d, RLX__COUNT_BYTES(c, float)); }
RLXDEF rlx_result rlx_set_param_f64(rlx_program* p, const char* n, const double* d, size_t c) { return rlx_set_param(p, n, RLX_F64, d, RLX__COUNT_BYTES(c, double)); }
RLXDEF rlx_result rlx_set_param_f16(rlx_program* p, const char* n, const uint16_t* d, size_t c) { return rlx_set_param(p, n, RLX_F16, d, RLX__COUNT_BYTES(c, uint16_t)); }
RLXDEF rlx_result rlx_set_param_bf16(rlx_program* p, const char* n, const uint16_t* d, size_t c) { return rlx_set_param(p, n, RLX_BF16, d, RLX__COUNT_BYTES(c, uint16_t)); }
RLXDEF rlx_result rlx_set_param_i32(rlx_program* p, const char* n, const int32_t* d, size_t c) { return rlx_set_param(p, n, RLX_I32, d, RLX__COUNT_BYTES(c, int32_t)); }
RLXDEF rlx_result rlx_set_param_i64(rlx_program* p, const char* n, const int64_t* d, size_t c) { return rlx_set_param(p, n, RLX_I64, d, RLX__COUNT_BYTES(c, int64_t)); }
RLXDEF rlx_result rlx_set_input(rlx_program* p, const char* name, rlx_dtype dtype, const void* data, size_t bytes) {
    RLX__GUARDED(p, rlx__set_source(p, RLX_OP_INPUT, name, dtype, data, bytes, 0));
}
RLXDEF rlx_result rlx_set_input_f32(rlx_program* p, const char* n, const float* d, size_t c) { return rlx_set_input(p, n, RLX_F32, d, RLX__COUNT_BYTES(c, float)); }
RLXDEF rlx_result rlx_set_input_i32(rlx_program* p, const char* n, const int32_t* d, size_t c) { return rlx_set_input(p, n, RLX_I32, d, RLX__COUNT_BYTES(c, int32_t)); }
RLXDEF rlx_result rlx_set_input_i64(rlx_program* p, const char* n, const int64_t* d, size_t c) { return rlx_set_input(p, n, RLX_I64, d, RLX__COUNT_BYTES(c, int64_t)); }

RLXDEF rlx_result rlx_set_state(rlx_program* p, const char* name, rlx_dtype dtype, const void* data, size_t bytes) {
    RLX__GUARDED(p, rlx__set_source(p, RLX_OP_STATE, name, dtype, data, bytes, 0));
}
static rlx_result rlx__get_state(rlx_program* p, const char* name, rlx_dtype dtype, void* dst, size_t bytes);
RLXDEF rlx_result rlx_get_state(rlx_program* p, const char* name, rlx_dtype dtype, void* dst, size_t bytes) {
    RLX__GUARDED(p, rlx__get_state(p, name, dtype, dst, bytes));
}
static rlx_result rlx__get_state(rlx_program* p, const char* name, rlx_dtype dtype, void* dst, size_t bytes) {
    int i;
    rlx_result r;
    const rlx__node* nd;
    if (!p) return RLX_ERROR_INVALID_ARGUMENT;
    if (!name) return rlx__perr(p, RLX_ERROR_INVALID_ARGUMENT, "get_state: name is NULL");
    i = rlx__find_source(p, RLX_OP_STATE, name);
    if (i < 0) return rlx__perr(p, RLX_ERROR_NOT_FOUND, "get_state: the program has no state named '%s'", name);
    nd = &p->core->ir->nodes[i];
    if (p->core->sidx && p->core->sidx[i] >= 0) {   /* a store state: read the store */
        rlx_store* st = p->core->store;
        r = rlx__store_io(st, "get_state", name, dtype, dst, bytes, 1);
        return r == RLX_OK ? r : rlx__perr(p, r, "%s", st->msg);
    }
    r = rlx__io_check(p, "get_state", name, dtype, dst, bytes, nd);
    if (r != RLX_OK) return r;
#if defined(RLX__HAS_GPU)
    if (p->gpu && (r = rlx__gpu_download(p, i)) != RLX_OK) return r;
#endif
    rlx__convert(dst, dtype, p->ptr[i], nd->dtype, rlx__node_numel(nd));
    return RLX_OK;
}

static rlx_result rlx__run(rlx_program* p);
RLXDEF rlx_result rlx_run(rlx_program* p) { RLX__GUARDED(p, rlx__run(p)); }
static rlx_result rlx__run(rlx_program* p) {
    const rlx__core* c;
    const rlx_graph* ir;
    int i, s, bad_node = -1;
    int64_t bad_row = -1, bad_off = 0;
    double* mk;
    if (!p) return RLX_ERROR_INVALID_ARGUMENT;
    c = p->core;
    ir = c->ir;
    for (i = 0; i < ir->n; i++) {
        const rlx__node* nd = &ir->nodes[i];
        if (nd->op == RLX_OP_PARAM && !p->w->set[i])
            return rlx__perr(p, RLX_ERROR_NOT_SET, "run: param '%s' was never set (rlx_set_param)", nd->name);
        if (nd->op == RLX_OP_INPUT && !p->input_set[i])
            return rlx__perr(p, RLX_ERROR_NOT_SET, "run: input '%s' was never set (rlx_set_input)", nd->name);
    }
#if defined(RLX__HAS_GPU)
    if (p->gpu) {
        rlx_result r = rlx__gpu_run(p);
        if (r == RLX_ERROR_OUT_OF_RANGE) p->ran = 1;   /* every step ran; one state write was refused */
        if (r != RLX_OK) return r;
        p->ran = 1;
        return RLX_OK;
    }
#endif
    mk = p->prof_on ? p->prof : NULL;   /* profiling: one clock read per step and one at the end */
    for (s = 0; s < c->plan.nsteps; s++) {
        int ni = c->plan.steps[s];
        if (mk) mk[s] = RLX_PROFILE_CLOCK();
        if (ir->nodes[ni].op == RLX_OP_STATE_WRITE && bad_node < 0 &&
            rlx__sw_find_bad(ir, &ir->nodes[ni], p->stepin[c->in_off[s] + 2], &bad_row, &bad_off))
            bad_node = ni;   /* the kernel skips that row; the other steps still run, as on a GPU */
        rlx__cpu_exec(ir, &ir->nodes[ni], p->stepin + c->in_off[s], p->ptr[ni], p->pool, p->ws);
    }
    if (mk) { mk[s] = RLX_PROFILE_CLOCK(); rlx__prof_commit(p); }
    p->ran = 1;
    if (bad_node >= 0) return rlx__sw_error(p, ir, bad_node, bad_row, bad_off);
    return RLX_OK;
}

static int rlx__find_output(rlx_program* p, const char* what, const char* name, int* node) {
    const rlx_graph* ir = p->core->ir;
    int i;
    if (!name) { rlx__perr(p, RLX_ERROR_INVALID_ARGUMENT, "%s: name is NULL", what); return 0; }
    for (i = 0; i < ir->nouts; i++)
        if (strcmp(ir->outs[i].name, name) == 0) { *node = (int)ir->outs[i].id - 1; return 1; }
    rlx__perr(p, RLX_ERROR_NOT_FOUND, "%s: the program has no output named '%s'", what, name);
    return 0;
}

static rlx_result rlx__get_output(rlx_program* p, const char* name, rlx_dtype dtype, void* dst, size_t bytes);
RLXDEF rlx_result rlx_get_output(rlx_program* p, const char* name, rlx_dtype dtype, void* dst, size_t bytes) {
    RLX__GUARDED(p, rlx__get_output(p, name, dtype, dst, bytes));
}
static rlx_result rlx__get_output(rlx_program* p, const char* name, rlx_dtype dtype, void* dst, size_t bytes) {
    int i;
    rlx_result r;
    const rlx__node* nd;
    if (!p) return RLX_ERROR_INVALID_ARGUMENT;
    if (!rlx__find_output(p, "get_output", name, &i)) return name ? RLX_ERROR_NOT_FOUND : RLX_ERROR_INVALID_ARGUMENT;
    nd = &p->core->ir->nodes[i];
    r = rlx__io_check(p, "get_output", name, dtype, dst, bytes, nd);
    if (r != RLX_OK) return r;
    if (!p->ran) return rlx__perr(p, RLX_ERROR_NOT_SET, "get_output '%s': the program has not run yet", name);
#if defined(RLX__HAS_GPU)
    if (p->gpu && !p->ptr[i]) return rlx__gpu_read_store(p, i, dtype, dst);   /* an output in the store */
    if (p->gpu && (r = rlx__gpu_download(p, i)) != RLX_OK) return r;
#endif
    rlx__convert(dst, dtype, p->ptr[i], nd->dtype, rlx__node_numel(nd));
    return RLX_OK;
}
RLXDEF rlx_result rlx_get_output_f32(rlx_program* p, const char* n, float* d, size_t c) { return rlx_get_output(p, n, RLX_F32, d, RLX__COUNT_BYTES(c, float)); }
RLXDEF rlx_result rlx_get_output_i64(rlx_program* p, const char* n, int64_t* d, size_t c) { return rlx_get_output(p, n, RLX_I64, d, RLX__COUNT_BYTES(c, int64_t)); }

static rlx_result rlx__output_ptr(rlx_program* p, const char* name, const void** data, rlx_dtype* dtype, int* rank,
                                  int64_t* shape);
RLXDEF rlx_result rlx_output_ptr(rlx_program* p, const char* name, const void** data, rlx_dtype* dtype, int* rank,
                                 int64_t* shape) {
    RLX__GUARDED(p, rlx__output_ptr(p, name, data, dtype, rank, shape));
}
static rlx_result rlx__output_ptr(rlx_program* p, const char* name, const void** data, rlx_dtype* dtype, int* rank,
                                  int64_t* shape) {
    int i;
    const rlx__node* nd;
    if (!p) return RLX_ERROR_INVALID_ARGUMENT;
    if (!data) return rlx__perr(p, RLX_ERROR_INVALID_ARGUMENT, "output_ptr: data is NULL");
    *data = NULL;
    if (!rlx__find_output(p, "output_ptr", name, &i)) return name ? RLX_ERROR_NOT_FOUND : RLX_ERROR_INVALID_ARGUMENT;
    if (!p->ran) return rlx__perr(p, RLX_ERROR_NOT_SET, "output_ptr '%s': the program has not run yet", name);
#if defined(RLX__HAS_GPU)
    if (p->gpu) {
        rlx_result r = rlx__gpu_download(p, i);
        if (r != RLX_OK) return r;
    }
#endif
    nd = &p->core->ir->nodes[i];
    *data = p->ptr[i];
    if (dtype) *dtype = nd->dtype;
    if (rank) *rank = nd->rank;
    if (shape) memcpy(shape, nd->shape, sizeof(int64_t) * (size_t)nd->rank);
    return RLX_OK;
}

/* ---- thread pools ---- */
RLXDEF rlx_result rlx_thread_pool_create(const rlx_thread_pool_desc* desc, rlx_thread_pool** out) {
    rlx_thread_pool_desc d;
    rlx_thread_pool* tp;
    rlx_allocator al;
    int n;
    if (out) *out = NULL;
    if (!out) return RLX_ERROR_INVALID_ARGUMENT;
    memset(&d, 0, sizeof d);
    if (desc) d = *desc;
    if (d.num_threads < 0 || d.num_threads > RLX_MAX_THREADS) return RLX_ERROR_INVALID_ARGUMENT;
    if ((d.allocator.alloc == NULL) != (d.allocator.free == NULL)) return RLX_ERROR_INVALID_ARGUMENT;
    al = d.allocator;
    n = d.num_threads ? d.num_threads : rlx__cpu_count();
    if (n > RLX_MAX_THREADS) n = RLX_MAX_THREADS;
    tp = (rlx_thread_pool*)rlx__calloc(&al, sizeof *tp);
    if (!tp) return RLX_ERROR_OUT_OF_MEMORY;
    tp->al = al;
    tp->refs = 1;
    if (n > 1) {
        tp->pool = d.parallel_for ? rlx__pool_hooked(&al, n, d.parallel_for, d.user_data) : rlx__pool_create(&al, n);
#if !defined(RLX_NO_THREADS)
        if (!tp->pool) { rlx__free(&al, tp); return RLX_ERROR_OUT_OF_MEMORY; }
#endif
    }
    tp->n = rlx__pool_threads(tp->pool);
    *out = tp;
    return RLX_OK;
}
RLXDEF void rlx_thread_pool_destroy(rlx_thread_pool* pool) { rlx__tp_release(pool); }
RLXDEF int rlx_thread_pool_threads(const rlx_thread_pool* pool) { return pool ? pool->n : 0; }

/* ---- devices and introspection ---- */
RLXDEF int rlx_devices(rlx_device_info* out, int cap) {
    int n = 0, d, i;
    for (d = RLX_DEVICE_CPU; d < RLX_DEVICE_COUNT; d++) {
        int count = RLX__MAX(1, rlx__device_count((rlx_device)d));   /* no device: one entry that says why */
        for (i = 0; i < count; i++, n++) {
            rlx_device_info info;
            int sm;
            char reason[200];
            if (!out || n >= cap) continue;
            memset(&info, 0, sizeof info);
            info.device = (rlx_device)d;
            info.index = i;
            info.available = rlx__device_probe((rlx_device)d, i, 0, info.name, sizeof info.name, reason, sizeof reason, &sm);
            rlx__strlcpy(info.reason, sizeof info.reason, reason);
            rlx__device_details((rlx_device)d, i, &info.memory_bytes, info.driver, sizeof info.driver);
            out[n] = info;
        }
    }
    return n;
}

RLXDEF rlx_result rlx_program_plan(const rlx_program* p, rlx_plan_info* info) {
    if (!p || !info) return RLX_ERROR_INVALID_ARGUMENT;
    memset(info, 0, sizeof *info);
    info->arena_bytes = p->core->plan.arena_bytes;
    info->no_reuse_bytes = p->core->plan.no_reuse_bytes;
    info->lower_bound_bytes = p->core->plan.lower_bound_bytes;
    info->weight_bytes = p->core->plan.weight_bytes;
    info->workspace_bytes = p->ws_bytes;
    info->state_bytes = p->core->plan.state_bytes;
    info->num_steps = p->core->plan.nsteps;
    info->num_buffers = p->core->ir->n;
    info->num_threads = p->nthreads;
    return RLX_OK;
}

RLXDEF rlx_result rlx_program_buffer(const rlx_program* p, int index, rlx_buffer_info* info) {
    const rlx_graph* ir;
    const rlx__buf* b;
    const rlx__node* nd;
    int i;
    if (!p || !info) return RLX_ERROR_INVALID_ARGUMENT;
    ir = p->core->ir;
    if (index < 0 || index >= ir->n) return RLX_ERROR_INVALID_ARGUMENT;
    b = &p->core->plan.bufs[index];
    nd = &ir->nodes[index];
    memset(info, 0, sizeof *info);
    info->kind = b->kind;
    info->parent = b->kind == RLX_BUFFER_VIEW ? b->root : -1;
    info->offset = b->offset;
    info->bytes = b->bytes;
    info->first_step = b->first;
    info->last_step = b->last;
    snprintf(info->name, sizeof info->name, "%s", nd->name ? nd->name : rlx_op_name(nd->op));
    for (i = 0; i < ir->nouts; i++)
        if ((int)ir->outs[i].id - 1 == index) { snprintf(info->name, sizeof info->name, "%s", ir->outs[i].name); break; }
    return RLX_OK;
}

RLXDEF size_t rlx_program_report(const rlx_program* p, char* buf, size_t cap) {
    rlx__sb sb;
    int s;
    static const char* const kinds[] = {"?", "input", "param", "constant", "intermediate", "output", "view", "state"};
    sb.buf = buf; sb.cap = cap; sb.len = 0;
    if (!p) { rlx__sbf(&sb, "(null program)\n"); return rlx__sb_done(&sb); }
    rlx__sbf(&sb, "device: %s (%s), %d thread(s)\n", rlx_device_name(p->device), p->reason, p->nthreads);
    for (s = 0; s < p->core->plan.nsteps; s++) {
        int ni = p->core->plan.steps[s];
        const rlx__node* nd = &p->core->ir->nodes[ni];
        const rlx__buf* b = &p->core->plan.bufs[ni];
        rlx__sbf(&sb, "step %3d: %%%d %-12s ", s, ni + 1, rlx_op_name(nd->op));
        rlx__sb_type(&sb, nd);
        rlx__sbf(&sb, " -> %s @%zu (%zu B) live %d..%d", kinds[b->kind], b->offset, b->bytes, b->first, b->last);
        if (nd->origin && nd->label) rlx__sbf(&sb, " (node %u, '%s')", (unsigned)nd->origin, nd->label);
        else if (nd->origin) rlx__sbf(&sb, " (node %u)", (unsigned)nd->origin);
        rlx__sbf(&sb, "\n");
    }
    rlx__sbf(&sb, "steps %d, arena %zu B (no reuse %zu B, lower bound %zu B), weights %zu B, workspace %zu B\n",
             p->core->plan.nsteps, p->core->plan.arena_bytes, p->core->plan.no_reuse_bytes,
             p->core->plan.lower_bound_bytes, p->core->plan.weight_bytes, p->ws_bytes);
    return rlx__sb_done(&sb);
}

/* ---- profiling (see rlx_program_profile; the clock and the per-run bookkeeping are in >>runtime) ---- */
RLXDEF rlx_result rlx_program_profile_enable(rlx_program* p, int on) { RLX__GUARDED(p, rlx__prof_enable(p, on)); }

/* RLX_OK when there is a profile to read, else the reason (recorded as p's message). */
static rlx_result rlx__prof_check(rlx_program* p, const char* what) {
    if (!p->prof_on)
        return rlx__perr(p, RLX_ERROR_NOT_SET, "%s: profiling is not enabled (compile with RLX_COMPILE_PROFILE or call "
                         "rlx_program_profile_enable)", what);
    if (p->prof_status != RLX_OK) return rlx__perr(p, p->prof_status, "%s: %s", what, p->prof_why);
    if (p->prof_runs == 0) return rlx__perr(p, RLX_ERROR_NOT_SET, "%s: no run has been profiled yet (call rlx_run)", what);
    return RLX_OK;
}

/* The node part of a step's name: the output name, else the input/param/state name, else "%id". */
static void rlx__prof_node_label(const rlx_program* p, int ni, char* buf, size_t cap) {
    const rlx_graph* ir = p->core->ir;
    int i;
    for (i = 0; i < ir->nouts; i++)
        if ((int)ir->outs[i].id - 1 == ni) { snprintf(buf, cap, "%s", ir->outs[i].name); return; }
    if (ir->nodes[ni].name) snprintf(buf, cap, "%s", ir->nodes[ni].name);
    else snprintf(buf, cap, "%%%d", ni + 1);
}

static void rlx__prof_entry(const rlx_program* p, int s, rlx_profile_entry* e) {
    int n = p->core->plan.nsteps, ni = p->core->plan.steps[s];
    const rlx__node* nd = &p->core->ir->nodes[ni];
    const double* start = p->prof + n + 1;
    char label[48];
    rlx__sb sb;
    memset(e, 0, sizeof *e);
    e->step = s;
    e->node = ni;
    e->op = nd->op;
    rlx__prof_node_label(p, ni, label, sizeof label);
    snprintf(e->name, sizeof e->name, "%s %s", rlx_op_name(nd->op), label);
    sb.buf = e->shape; sb.cap = sizeof e->shape; sb.len = 0;
    rlx__sb_type(&sb, nd);
    rlx__sb_done(&sb);
    e->start_us = start[s];
    e->dur_us = start[n + s];
    e->total_us = start[2 * n + s];
    e->runs = p->prof_runs;
}

static rlx_result rlx__program_profile(rlx_program* p, rlx_profile_entry* out, int cap, int* count) {
    rlx_result r;
    int s;
    if (!count) return rlx__perr(p, RLX_ERROR_INVALID_ARGUMENT, "profile: count is NULL");
    *count = 0;
    if (cap < 0) return rlx__perr(p, RLX_ERROR_INVALID_ARGUMENT, "profile: cap is negative (%d)", cap);
    if (cap > 0 && !out) return rlx__perr(p, RLX_ERROR_INVALID_ARGUMENT, "profile: out is NULL but cap is %d", cap);
    if ((r = rlx__prof_check(p, "profile")) != RLX_OK) return r;
    for (s = 0; s < p->core->plan.nsteps && s < cap; s++) rlx__prof_entry(p, s, &out[s]);
    *count = p->core->plan.nsteps;
    return RLX_OK;
}
RLXDEF rlx_result rlx_program_profile(rlx_program* p, rlx_profile_entry* out, int cap, int* count) {
    if (count) *count = 0;
    RLX__GUARDED(p, rlx__program_profile(p, out, cap, count));
}

/* A JSON string: quotes, backslashes and control characters escaped; other bytes as they are (UTF-8). */
static void rlx__sb_json_str(rlx__sb* sb, const char* str) {
    const unsigned char* c;
    rlx__sbf(sb, "\"");
    for (c = (const unsigned char*)str; *c; c++) {
        if (*c == '"' || *c == '\\') rlx__sbf(sb, "\\%c", *c);
        else if (*c < 0x20) rlx__sbf(sb, "\\u%04x", (unsigned)*c);
        else rlx__sbf(sb, "%c", *c);
    }
    rlx__sbf(sb, "\"");
}

static size_t rlx__profile_json(rlx_program* p, char* buf, size_t cap) {
    rlx__sb sb;
    int s, n = p->core->plan.nsteps;
    const char* dev = rlx_device_name(p->device);
    sb.buf = buf; sb.cap = cap; sb.len = 0;
    if (rlx__prof_check(p, "profile_json") != RLX_OK) return rlx__sb_done(&sb);
    rlx__sbf(&sb, "{\"traceEvents\":[\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":{\"name\":");
    {
        char title[64];
        snprintf(title, sizeof title, "rlx %s", dev);
        rlx__sb_json_str(&sb, title);
    }
    rlx__sbf(&sb, "}}");
    for (s = 0; s < n; s++) {
        rlx_profile_entry e;
        rlx__prof_entry(p, s, &e);
        rlx__sbf(&sb, ",\n{\"name\":");
        rlx__sb_json_str(&sb, e.name);
        rlx__sbf(&sb, ",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":1,\"tid\":1,\"args\":{\"step\":%d,"
                 "\"node\":%d,\"op\":\"%s\",\"shape\":", dev, e.start_us, e.dur_us, s, e.node, rlx_op_name(e.op));
        rlx__sb_json_str(&sb, e.shape);
        rlx__sbf(&sb, ",\"total_us\":%.3f,\"runs\":%d}}", e.total_us, e.runs);
    }
    rlx__sbf(&sb, "\n],\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":\"rlx.h %s\",\"device\":\"%s\","
             "\"steps\":%d,\"runs\":%d}}\n", RLX_VERSION_STRING, dev, n, p->prof_runs);
    return rlx__sb_done(&sb);
}
RLXDEF size_t rlx_program_profile_json(rlx_program* p, char* buf, size_t cap) {
    size_t len;
    if (buf && cap) buf[0] = 0;
    if (!p || !rlx__program_enter(p)) return 0;
    len = rlx__profile_json(p, buf, cap);
    rlx__program_leave(p);
    return len;
}

static size_t rlx__profile_table(rlx_program* p, char* buf, size_t cap, int top) {
    rlx__sb sb;
    int n = p->core->plan.nsteps, s, k, shown;
    const double* total;
    double sum = 0.0, op_total[RLX_OP_COUNT];
    int op_steps[RLX_OP_COUNT], op_done[RLX_OP_COUNT];
    int* order;
    sb.buf = buf; sb.cap = cap; sb.len = 0;
    if (rlx__prof_check(p, "profile_table") != RLX_OK) return rlx__sb_done(&sb);
    total = p->prof + n + 1 + 2 * n;
    if (top < 0) { rlx__perr(p, RLX_ERROR_INVALID_ARGUMENT, "profile_table: top is negative (%d)", top); return rlx__sb_done(&sb); }
    order = (int*)rlx__alloc(&p->al, sizeof(int) * (size_t)(n + 1));
    if (!order) { rlx__perr(p, RLX_ERROR_OUT_OF_MEMORY, "profile_table: out of memory"); return rlx__sb_done(&sb); }
    for (s = 0; s < n; s++) {   /* insertion sort by total time, slowest first (ties: step order) */
        for (k = s; k > 0 && total[order[k - 1]] < total[s]; k--) order[k] = order[k - 1];
        order[k] = s;
        sum += total[s];
    }
    shown = top == 0 || top > n ? n : top;
    rlx__sbf(&sb, "profile: %s, %d steps, %d profiled run(s), %.3f us per run (sum of the steps)\n", rlx_device_name(p->device),
             n, p->prof_runs, p->prof_runs ? sum / p->prof_runs : 0.0);
    rlx__sbf(&sb, "%s %d of %d steps by total time:\n", shown < n ? "slowest" : "all", shown, n);
    rlx__sbf(&sb, "  %5s  %-14s %-20s %-22s %12s %6s %7s\n", "step", "op", "node", "shape", "total us", "runs", "%");
    for (k = 0; k < shown; k++) {
        rlx_profile_entry e;
        char label[48];
        char* ch;
        rlx__prof_entry(p, order[k], &e);
        rlx__prof_node_label(p, e.node, label, sizeof label);
        for (ch = label; *ch; ch++)
            if ((unsigned char)*ch < 0x20) *ch = '?';   /* one line per row, whatever the names hold */
        rlx__sbf(&sb, "  %5d  %-14s %-20.20s %-22.22s %12.3f %6d %6.1f%%\n", e.step, rlx_op_name(e.op), label, e.shape,
                 e.total_us, e.runs, sum > 0.0 ? 100.0 * e.total_us / sum : 0.0);
    }
    rlx__free(&p->al, order);
    for (k = 0; k < (int)RLX_OP_COUNT; k++) { op_total[k] = 0.0; op_steps[k] = 0; op_done[k] = 0; }
    for (s = 0; s < n; s++) {
        rlx_op op = p->core->ir->nodes[p->core->plan.steps[s]].op;
        op_total[op] += total[s];
        op_steps[op]++;
    }
    rlx__sbf(&sb, "by op:\n");
    for (;;) {   /* op kinds, slowest first */
        int best = -1;
        for (k = 0; k < (int)RLX_OP_COUNT; k++)
            if (op_steps[k] && !op_done[k] && (best < 0 || op_total[k] > op_total[best])) best = k;
        if (best < 0) break;
        op_done[best] = 1;
        rlx__sbf(&sb, "  %-14s %5d step(s) %12.3f us %6.1f%%\n", rlx_op_name((rlx_op)best), op_steps[best], op_total[best],
                 sum > 0.0 ? 100.0 * op_total[best] / sum : 0.0);
    }
    return rlx__sb_done(&sb);
}
RLXDEF size_t rlx_program_profile_table(rlx_program* p, char* buf, size_t cap, int top) {
    size_t len;
    if (buf && cap) buf[0] = 0;
    if (!p || !rlx__program_enter(p)) return 0;
    len = rlx__profile_table(p, buf, cap, top);
    rlx__program_leave(p);
    return len;
}

#endif /* RLX_IMPLEMENTATION */

/*
------------------------------------------------------------------------------------------------------------------
This software is available under 2 licenses -- choose whichever you prefer.
------------------------------------------------------------------------------------------------------------------
ALTERNATIVE A - MIT License
Copyright (c) 2026 the rlx.h authors
Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated
documentation files (the "Software"), to deal in the Software without restriction, including without limitation the
rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the Software, and to permit
persons to whom the Software is furnished to do so, subject to the following conditions:
The above copyright notice and this permission notice shall be included in all copies or substantial portions of the
Software.
THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE
WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR
COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR
OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
------------------------------------------------------------------------------------------------------------------
ALTERNATIVE B - Public Domain (www.unlicense.org)
This is free and unencumbered software released into the public domain.
Anyone is free to copy, modify, publish, use, compile, sell, or distribute this software, either in source code form or
as a compiled binary, for any purpose, commercial or non-commercial, and by any means.
In jurisdictions that recognize copyright laws, the author or authors of this software dedicate any and all copyright
interest in the software to the public domain. We make this dedication for the benefit of the public at large and to
the detriment of our heirs and successors. We intend this dedication to be an overt act of relinquishment in
perpetuity of all present and future rights to this software under copyright law.
THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE
WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS BE
LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT
OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
------------------------------------------------------------------------------------------------------------------
*/
