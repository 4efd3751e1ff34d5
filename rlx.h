/* rlx.h v0.1.0 - a machine-learning compiler and runtime in one C header. Public domain or MIT (see end).

   Do this:
       #define RLX_IMPLEMENTATION
   before you include this file in *one* C or C++ file to create the implementation.

       // i.e. it should look like this:
       #include ...
       #define RLX_IMPLEMENTATION
       #include "rlx.h"

   Link with: -lm -lpthread (and -ldl on older glibc). Nothing else: no BLAS, no GPU SDK.

   rlx.h builds a graph of tensor operations, optimises it (constant folding, common subexpressions, dead code),
   plans every intermediate buffer into one arena by liveness, lowers the graph once to a flat list of steps,
   and runs those steps on a device as often as you like.

   EXAMPLE (a linear layer followed by a ReLU, error checks folded into one):

       rlx_graph* g = rlx_graph_create(NULL);
       int64_t xs[2] = {1, 4}, ws[2] = {4, 3};
       rlx_tensor x = rlx_input(g, "x", RLX_F32, 2, xs);
       rlx_tensor w = rlx_param(g, "w", RLX_F32, 2, ws);
       rlx_output(g, "y", rlx_relu(g, rlx_matmul(g, x, w)));   // builder errors are sticky
       rlx_program* p = NULL;
       rlx_compile_desc cd = {0};                              // zero means default: AUTO device
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

   CONTENTS
       1. Types, results, dtypes                     >>types
       2. Graph builder and ops                      >>builder
       3. Compile, run, I/O                          >>program
       4. Devices and introspection                  >>devices
       --- implementation (RLX_IMPLEMENTATION) ---
       5. Config, allocation, utilities              >>config >>alloc
       6. IR, shape inference                        >>ir >>infer
       7. Passes                                     >>passes
       8. Memory planner                             >>planner
       9. CPU backend (threads, SIMD, kernels)       >>cpu
      10. Runtime (compile, run, I/O)                >>runtime

   ERRORS
       Every fallible function returns rlx_result (RLX_OK = 0, negative on failure) and the object involved keeps a
       readable message: rlx_graph_error(g) for builder and compile failures, rlx_program_error(p) for everything
       done with a program. Builder functions return a tensor handle; an invalid call records a *sticky* error in
       the graph and returns an invalid handle (id 0), and every later builder call that receives it is a no-op,
       so one check at the end (rlx_graph_status or rlx_compile) is enough. rlx.h never calls exit() or abort()
       on user input.

   THREADING
       A graph or a program is used by one thread at a time. Different programs (including clones) may run on
       different threads at once. A program owns its worker threads (created by rlx_compile, joined by
       rlx_program_destroy); rlx_run blocks until all steps are done. The device list is computed on every call
       and touches no global state.

   SECURITY
       Graphs built through this API are validated: shapes, dtypes, axes, byte sizes. There is no file loader yet.

   rlx.h does NOT: train (no autodiff yet), load model files (yet), run on a GPU (yet), use BLAS.
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
    /* devices */
    RLX_ERROR_DEVICE_UNAVAILABLE = -30,
    RLX_ERROR_UNSUPPORTED = -31,       /* the device cannot run an op                                        */
    RLX_RESULT_FORCE_I32 = 0x7FFFFFFF
} rlx_result;

typedef enum rlx_dtype {
    RLX_DTYPE_INVALID = 0,
    RLX_F32, RLX_F16, RLX_BF16, RLX_F64,
    RLX_I8, RLX_I16, RLX_I32, RLX_I64,
    RLX_U8, RLX_U32, RLX_BOOL,
    RLX_DTYPE_COUNT,
    RLX_DTYPE_FORCE_U32 = 0x7FFFFFFF
} rlx_dtype;

/* A tensor handle: a node of one graph. id 0 is the invalid handle (so `rlx_tensor t = {0};` is "none"). */
typedef struct rlx_tensor { uint32_t id; } rlx_tensor;

typedef struct rlx_graph rlx_graph;
typedef struct rlx_program rlx_program;

/* Optional allocator. Zero-initialised = use RLX_MALLOC/RLX_FREE. alloc must return memory aligned to at least
   16 bytes; rlx.h aligns its large buffers itself. */
typedef struct rlx_allocator {
    void* (*alloc)(size_t size, void* user_data);
    void (*free)(void* ptr, void* user_data);
    void* user_data;
} rlx_allocator;

RLXDEF const char* rlx_result_string(rlx_result r);
RLXDEF const char* rlx_dtype_name(rlx_dtype t);
RLXDEF size_t rlx_dtype_size(rlx_dtype t);           /* bytes per element, 0 for an invalid dtype */
RLXDEF const char* rlx_version(void);

/* ============================================================================================================
   >>builder
   Every builder validates its inputs and infers the output shape and dtype. Shapes are arrays of int64_t of
   length `rank` (0 ≤ rank ≤ 8); every dim must be ≥ 1 and the element count must fit in int64 and size_t.
   ============================================================================================================ */

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
    X(EXPAND, "expand") X(GATHER, "gather")

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
   accumulate in f32; integers accumulate in int64 and wrap to the output type. */
RLXDEF rlx_tensor rlx_matmul(rlx_graph* g, rlx_tensor a, rlx_tensor b);

/* Reductions over a set of axes (negative axes count from the end; naxes = 0 means all axes). sum/prod of an
   integer or bool tensor give int64 (numpy's default), otherwise the input dtype; mean needs a float dtype.
   argmax/argmin give int64 indices along one axis; ties go to the first index; NaN counts as the maximum. */
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

/* Dumps. Write into buf (always NUL-terminated when cap > 0) and return the length the full text needs (not
   counting the NUL), like snprintf: call with buf = NULL, cap = 0 to size the buffer. */
RLXDEF size_t rlx_graph_dump(const rlx_graph* g, char* buf, size_t cap);
RLXDEF size_t rlx_graph_dump_dot(const rlx_graph* g, char* buf, size_t cap);

/* ============================================================================================================
   >>program
   ============================================================================================================ */

typedef enum rlx_device {
    RLX_DEVICE_AUTO = 0,   /* best available; today that is the CPU */
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
    RLX_COMPILE_NO_REUSE = 1u << 2      /* give every buffer its own memory (for debugging the planner) */
};

/* Zero-initialise and set what you need. */
typedef struct rlx_compile_desc {
    rlx_device device;       /* 0 = AUTO                                                   */
    int device_index;        /* which device of that kind (0 = first)                       */
    int num_threads;         /* CPU worker threads incl. the caller; 0 = one per core      */
    uint32_t flags;          /* RLX_COMPILE_*                                               */
    rlx_allocator allocator; /* zero = the graph's allocator                                */
} rlx_compile_desc;

/* Compiles g into *out. On failure *out is NULL and rlx_graph_error(g) says why. The program does not refer to
   the graph afterwards. A graph with a sticky builder error, no nodes or no outputs fails with
   RLX_ERROR_BAD_GRAPH. */
RLXDEF rlx_result rlx_compile(rlx_graph* g, const rlx_compile_desc* desc, rlx_program** out);
RLXDEF void rlx_program_destroy(rlx_program* p);             /* NULL is fine; joins worker threads */
RLXDEF const char* rlx_program_error(const rlx_program* p);  /* message of the last failure on p ("" if none) */
RLXDEF rlx_device rlx_program_device(const rlx_program* p);
RLXDEF const char* rlx_program_device_reason(const rlx_program* p); /* why this device was chosen */

/* Clone: a new program with the same steps, its own arena, inputs and threads. share_weights != 0 makes the
   clone use the same param storage as p (set_param on either is seen by both; the storage lives until the
   last sharer is destroyed); 0 copies the current param values. Constants are always shared (read-only). */
RLXDEF rlx_result rlx_program_clone(rlx_program* p, int share_weights, rlx_program** out);

/* Params. `dtype` is the dtype of *your* buffer; values are converted to the param's dtype with the rules of
   rlx_cast. `bytes` must equal element count × rlx_dtype_size(dtype). rlx_set_param_raw copies bytes as they
   are and needs bytes == the param's own byte size. Every param must be set before the first rlx_run
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

/* ============================================================================================================
   >>devices
   ============================================================================================================ */

typedef struct rlx_device_info {
    rlx_device device;
    int index;
    int available;        /* 1 if rlx_compile can use it                     */
    char name[96];        /* e.g. "CPU (AVX-512, 16 threads)"                 */
    char reason[160];     /* why it is (not) available                        */
} rlx_device_info;

/* Fills up to `cap` entries (one per device kind rlx.h knows, available or not) and returns how many exist. */
RLXDEF int rlx_devices(rlx_device_info* out, int cap);
RLXDEF const char* rlx_device_name(rlx_device d);

typedef struct rlx_plan_info {
    size_t arena_bytes;        /* per-run memory: inputs + intermediates + outputs, after reuse        */
    size_t no_reuse_bytes;     /* the same buffers laid end to end (each aligned)                       */
    size_t lower_bound_bytes;  /* max over steps of the bytes live at that step: no plan can beat it    */
    size_t weight_bytes;       /* params + constants                                                    */
    size_t workspace_bytes;    /* kernel scratch (matmul packing)                                       */
    int num_steps;             /* steps executed per run (views are free and not counted)               */
    int num_buffers;           /* entries readable with rlx_program_buffer                              */
    int num_threads;
} rlx_plan_info;

RLXDEF rlx_result rlx_program_plan(const rlx_program* p, rlx_plan_info* info);

typedef enum rlx_buffer_kind {
    RLX_BUFFER_INVALID = 0,
    RLX_BUFFER_INPUT, RLX_BUFFER_PARAM, RLX_BUFFER_CONSTANT, RLX_BUFFER_INTERMEDIATE, RLX_BUFFER_OUTPUT,
    RLX_BUFFER_VIEW,              /* aliases `parent` at byte `offset` relative to the parent's start */
    RLX_BUFFER_KIND_COUNT,
    RLX_BUFFER_KIND_FORCE_U32 = 0x7FFFFFFF
} rlx_buffer_kind;

/* One planned buffer (for tests and tools). Arena buffers (input/intermediate/output) have an offset into the
   arena; param/constant buffers an offset into weight memory; views an offset into their parent. Live range:
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

#ifdef __cplusplus
}
#endif
#endif /* RLX_H */
