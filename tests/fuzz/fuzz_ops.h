/* Bytecode of the API fuzzer (tests/fuzz/fuzz_api.c), shared with the seed generator (make_seeds.c).

   An input is a list of instructions. Each instruction is one opcode byte (taken modulo FZ_OP_COUNT) followed by
   the bytes its operands need; reading past the end of the input gives zero bytes. A graph ends at FZ_END, at the
   end of the input, at its first builder error or after FZ_MAX_INSTR instructions; it is then compiled on the
   CPU and run (the bytes after the graph's last instruction steer that phase, see fz_program in fuzz_api.c),
   and the next instructions build a fresh graph (at most FZ_MAX_GRAPHS per input).

   Operand encodings (decoders in fuzz_api.c, encoders in make_seeds.c):
     tensor  T   b < 0xF0: the (b % n)-th most recently created tensor (0 = the last one); else an invalid or
                 foreign handle (0, huge ids, n + 1, a handle of the previous graph)
     opt. tensor b < 0x20: none ({0}); else as T with b - 0x20
     dim     D   b < 0xC0: 1 + (b & 7); b < 0xE0: (b - 0xC0) * 16; else an extreme value (0, -1, INT64_MAX, ...)
     int     I   b < 0xE0: b - 16 (-16..207); else an extreme value (INT_MAX, INT_MIN, -1, 1 << 30, ...)
     int64   L   b < 0xE0: b - 16; else an extreme value (INT64_MAX, INT64_MIN, INT64_MAX - 1, 1 << 40, ...)
     axis    A   b < 0xF0: (b % 20) - 10; else an extreme value
     dtype   Y   b < 0x80: f32; b < 0xF8: b % 12 (0 = invalid); else an out-of-range value
     shape   S   first byte m: m < 0x80: fresh rank m % 9 then rank dims D; m < 0xF0: the shape of tensor T
                 (next byte), then one byte c: c >= 0x80 replaces dim (c % rank) with a D; else a bad rank
     float   F   b < 0x80: the op's default (eps 1e-5, scale 0, ...); else an entry of a table of special values
     double  V   b < 0xC0: b - 0x40; else an extreme value (NaN, inf, 1e308, 2^63, ...)
     name    N   b < 0xF0: a fresh unique name; else NULL, "", a name already used, or a long name
     flag    B   one byte, used as is (0 / non-zero, or b & 1)

   FZ_DIM declares a symbolic dim and uses its token once: byte u picks the use (u & 3: an input shaped like
   tensor T, named by one more N byte; a reshape of T with a -1; an expand of T; a slice of T of the token's
   length; at axis (u >> 2) % rank, start -1 for the slice if u & 0x40; u & 0x80: the token of
   dim (u >> 4) & 7 instead, which may be undeclared). A graph with dims reads one more byte before compiling:
   bit k binds dim k (k < 4) to a value read from the next byte (b < 0xF0: 1 + (b & 15), else an extreme value),
   bit 6 compiles twice (the second from the cache), bit 7 adds an unknown dim name. A program compiled for
   values other than the examples is only inspected, not run (the fuzzer sizes its I/O from the graph). */
#ifndef FZ_OPS_H
#define FZ_OPS_H

#define FZ_MAX_INSTR 64
#define FZ_MAX_GRAPHS 4

enum {
    FZ_INPUT,          /* N Y S */
    FZ_PARAM,          /* N Y S */
    FZ_CONSTANT,       /* Y S */
    FZ_SCALAR,         /* Y V */
    FZ_OUTPUT,         /* N T */
    FZ_UNARY,          /* op-byte T            rlx_unary with any op code */
    FZ_UNARY_FN,       /* idx T                one of the 20 named unary builders */
    FZ_BINARY,         /* op-byte T T */
    FZ_BINARY_FN,      /* idx T T              one of the 14 named binary builders */
    FZ_WHERE,          /* T T T */
    FZ_CAST,           /* T Y */
    FZ_MATMUL,         /* T T */
    FZ_REDUCE,         /* op-byte T naxes axes... keep */
    FZ_REDUCE_FN,      /* idx T naxes axes... keep */
    FZ_ARG,            /* which T A keep */
    FZ_SOFTMAX,        /* which T A */
    FZ_LAYERNORM,      /* T opt opt A F */
    FZ_RMSNORM,        /* T opt opt F */
    FZ_RESHAPE,        /* T S */
    FZ_TRANSPOSE,      /* T mode perm... */
    FZ_SLICE,          /* T A L L L */
    FZ_NARROW,         /* T A L L */
    FZ_CONCAT,         /* n T... A */
    FZ_EXPAND,         /* T S */
    FZ_GATHER,         /* T T A */
    FZ_ATTENTION,      /* T T T nulldesc layout I I B I opt opt opt F F */
    FZ_ROPE,           /* T T T nulldesc kind layout I I opt L */
    FZ_ROPE_TABLES,    /* I I V */
    FZ_CUMSUM,         /* T A B B */
    FZ_TOPK,           /* T I A B outs */
    FZ_SAMPLE,         /* T T nulldesc F I F seed */
    FZ_UNIFORM,        /* seed L L */
    FZ_CONV,           /* T T opt nulldesc 11 x I */
    FZ_CONV_TRANSPOSE, /* T T opt nulldesc 11 x I */
    FZ_POOL,           /* T nulldesc kind 8 x I B B */
    FZ_GROUP_NORM,     /* T I opt opt F */
    FZ_RESIZE,         /* T L L mode B */
    FZ_PAD,            /* T nullarrays 8 x L 8 x L mode V */
    FZ_LINEAR,         /* T T opt act */
    FZ_ADD_RMSNORM,    /* T T opt opt F B */
    FZ_ADD_LAYERNORM,  /* T T opt opt A F B */
    FZ_GLU,            /* which T T */
    FZ_STATE,          /* N Y S */
    FZ_STATE_WRITE,    /* T T A T          the offset may be a scalar or one per batch row ([B]) */
    FZ_DUMP,           /* which cap */
    FZ_INFO,           /* T */
    FZ_MISC,           /* I: names of ops, dtypes, results, devices */
    FZ_END,            /* compile and run this graph, start a new one */
    FZ_MATMUL_INTEGER, /* T T opt opt */
    FZ_DIM,            /* N D u T [N]  rlx_dim and one use of a token (N: the input's name when u & 3 == 0);
                          appended, so that older inputs keep their meaning */
    FZ_SCATTER,        /* T T T A red      rlx_scatter (appended) */
    FZ_OP_COUNT
};

#endif
