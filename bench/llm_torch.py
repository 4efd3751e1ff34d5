"""llm_torch.py - the PyTorch peer of bench/llm.c on a GPU: the same TinyLlama-shaped model in plain PyTorch.

d 2048, 22 layers (argv[1] overrides), 32 query / 4 kv heads of 64, SwiGLU 5632, vocabulary 32000, RoPE
(theta 10000), rmsnorm eps 1e-5; random weights in f16 (matmuls in f16 with f32 accumulation, cuBLAS), a static
KV cache of 1024 positions in f16. The same measurements as bench/llm.c:
  prompt   one 512-token prompt at position 0 (causal attention): tokens/s
  decode   32 greedy tokens one at a time after it (attention over the whole static cache with a mask, so every
           step has the same shapes): tokens/s, eager and with each step captured once in a CUDA graph and
           replayed (the token and the position are device tensors updated in place).
No transformers package is needed. Usage: python3 bench/llm_torch.py [layers]
"""
import math
import sys
import time
import torch

V, D, H, HKV, HD, FF, CTX, PROMPT, GEN = 32000, 2048, 32, 4, 64, 5632, 1024, 512, 32
LAYERS = int(sys.argv[1]) if len(sys.argv) > 1 else 22
dev, dt = "cuda", torch.float16


def rms(x, g):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-5)).to(dt) * g


class Model:
    def __init__(self):
        torch.manual_seed(0)
        w = lambda o, i: (torch.randn(o, i, device=dev) / math.sqrt(i)).to(dt)
        self.emb = torch.randn(V, D, device=dev).to(dt)
        self.layers = []
        for _ in range(LAYERS):
            self.layers.append(dict(wqkv=w((H + 2 * HKV) * HD, D), wo=w(D, H * HD), wgu=w(2 * FF, D), wd=w(D, FF),
                                    g1=torch.ones(D, device=dev, dtype=dt), g2=torch.ones(D, device=dev, dtype=dt),
                                    kc=torch.zeros(1, HKV, CTX, HD, device=dev, dtype=dt),
                                    vc=torch.zeros(1, HKV, CTX, HD, device=dev, dtype=dt)))
        self.gout = torch.ones(D, device=dev, dtype=dt)
        self.wout = w(V, D)
        inv = 1.0 / (10000.0 ** (torch.arange(0, HD, 2, device=dev, dtype=torch.float32) / HD))
        t = torch.arange(CTX, device=dev, dtype=torch.float32)[:, None] * inv[None, :]
        self.cos, self.sin = torch.cos(t).to(dt), torch.sin(t).to(dt)
        self.keys = torch.arange(CTX, device=dev)

    def rope(self, x, pos):   # x [1, h, s, HD], pos [s] (device)
        c, s = self.cos[pos], self.sin[pos]
        x1, x2 = x[..., : HD // 2], x[..., HD // 2:]
        return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1)

    def forward(self, tok, pos):   # tok [s], pos [s] (device): logits of the last row
        s = tok.shape[0]
        x = self.emb[tok].view(1, s, D)
        mask = self.keys[None, :] <= pos[:, None]            # [s, CTX]: key j visible to row i when j <= pos_i
        for L in self.layers:
            h = rms(x, L["g1"])
            qkv = h @ L["wqkv"].t()
            q = qkv[..., : H * HD].view(1, s, H, HD).transpose(1, 2)
            k = qkv[..., H * HD: (H + HKV) * HD].view(1, s, HKV, HD).transpose(1, 2)
            v = qkv[..., (H + HKV) * HD:].view(1, s, HKV, HD).transpose(1, 2)
            q, k = self.rope(q, pos), self.rope(k, pos)
            L["kc"].index_copy_(2, pos, k)
            L["vc"].index_copy_(2, pos, v)
            kk = L["kc"].repeat_interleave(H // HKV, dim=1)
            vv = L["vc"].repeat_interleave(H // HKV, dim=1)
            a = torch.nn.functional.scaled_dot_product_attention(q, kk, vv, attn_mask=mask)
            x = x + a.transpose(1, 2).reshape(1, s, H * HD) @ L["wo"].t()
            h = rms(x, L["g2"])
            gu = h @ L["wgu"].t()
            x = x + (torch.nn.functional.silu(gu[..., :FF]) * gu[..., FF:]) @ L["wd"].t()
        return rms(x[:, -1], self.gout) @ self.wout.t()


def main():
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    m = Model()
    g = torch.Generator().manual_seed(1)
    prompt = torch.randint(3, V, (PROMPT,), generator=g).to(dev)
    ppos = torch.arange(PROMPT, device=dev)
    with torch.no_grad():
        for _ in range(2):                                   # warm-up (cuBLAS handles, kernels)
            m.forward(prompt, ppos)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        lg = m.forward(prompt, ppos)
        torch.cuda.synchronize()
        pp = PROMPT / (time.perf_counter() - t0)

        tok = lg.argmax(-1).view(1)
        pos = torch.tensor([PROMPT], device=dev)
        for _ in range(3):
            m.forward(tok, pos)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for i in range(GEN):
            tok = m.forward(tok, pos).argmax(-1).view(1)
            pos += 1
        torch.cuda.synchronize()
        tg = GEN / (time.perf_counter() - t0)

        stok, spos = tok.clone(), torch.tensor([PROMPT], device=dev)
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                m.forward(stok, spos)
        torch.cuda.current_stream().wait_stream(s)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            out = m.forward(stok, spos).argmax(-1).view(1)
            stok.copy_(out)
            spos.add_(1)
        spos.fill_(PROMPT)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for i in range(GEN):
            graph.replay()
        torch.cuda.synchronize()
        tgg = GEN / (time.perf_counter() - t0)
    name = torch.cuda.get_device_name(0)
    print(f"PyTorch {torch.__version__} on {name}: TinyLlama-shaped f16 model, {LAYERS} layers, static KV cache {CTX}")
    print(f"prompt {PROMPT} tok/s {pp:10.1f}")
    print(f"decode tok/s eager {tg:8.2f}   CUDA graph {tgg:8.2f}")
    print(f"peak memory {torch.cuda.max_memory_allocated() / 2**20:.0f} MiB")


if __name__ == "__main__":
    main()
