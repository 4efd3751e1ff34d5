"""transformer_torch.py - the peer of bench/transformer.c on a GPU: the same decoder block in PyTorch.

One layer of examples/transformer_model.h at d_model 512: 8 query heads / 2 kv heads of 64, SwiGLU 1408, RoPE
NeoX, pre-norm rmsnorm (eps 1e-5), f32, a KV cache of 256 positions. Times (median of 200 replays, ms):
  prefill  S = 128 at pos 0 (causal)
  decode   S = 1 at pos 128 (attention over 129 keys)
both as eager PyTorch and as the same eager step captured in a CUDA graph (the fair peer of rlx's recorded
CUDA launches). TF32 is off (rlx computes these matmuls in f32). Usage: python3 bench/transformer_torch.py
"""
import math
import statistics
import torch

D, H, HKV, HD, FF, CTX, PRE = 512, 8, 2, 64, 1408, 256, 128


def rope(x, pos0):
    s = x.shape[2]
    inv = 1.0 / (10000.0 ** (torch.arange(0, HD, 2, device=x.device, dtype=torch.float32) / HD))
    t = (torch.arange(s, device=x.device, dtype=torch.float32) + pos0)[:, None] * inv[None, :]
    cos, sin = torch.cos(t), torch.sin(t)
    x1, x2 = x[..., : HD // 2], x[..., HD // 2:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)


def rms(x, g):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * g


class Block:
    def __init__(self, dev):
        torch.manual_seed(0)
        w = lambda i, o: torch.randn(i, o, device=dev) / math.sqrt(i)
        self.wq, self.wk, self.wv, self.wo = w(D, H * HD), w(D, HKV * HD), w(D, HKV * HD), w(H * HD, D)
        self.wg, self.wu, self.wd = w(D, FF), w(D, FF), w(FF, D)
        self.g1, self.g2 = torch.ones(D, device=dev), torch.ones(D, device=dev)
        self.kc = torch.zeros(1, HKV, CTX, HD, device=dev)
        self.vc = torch.zeros(1, HKV, CTX, HD, device=dev)

    def __call__(self, x, pos):
        s = x.shape[1]
        h = rms(x, self.g1)
        q = (h @ self.wq).view(1, s, H, HD).transpose(1, 2)
        k = (h @ self.wk).view(1, s, HKV, HD).transpose(1, 2)
        v = (h @ self.wv).view(1, s, HKV, HD).transpose(1, 2)
        q, k = rope(q, pos), rope(k, pos)
        self.kc[:, :, pos:pos + s] = k
        self.vc[:, :, pos:pos + s] = v
        kk = self.kc[:, :, :pos + s].repeat_interleave(H // HKV, dim=1)
        vv = self.vc[:, :, :pos + s].repeat_interleave(H // HKV, dim=1)
        a = torch.nn.functional.scaled_dot_product_attention(q, kk, vv, is_causal=(s > 1))
        x = x + a.transpose(1, 2).reshape(1, s, H * HD) @ self.wo
        h = rms(x, self.g2)
        return x + (torch.nn.functional.silu(h @ self.wg) * (h @ self.wu)) @ self.wd


def median_ms(fn, reps=200):
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b))
    return statistics.median(ts), min(ts)


def main():
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = "cuda"
    blk = Block(dev)
    xp = torch.randn(1, PRE, D, device=dev)
    xd = torch.randn(1, 1, D, device=dev)
    print("torch %s on %s" % (torch.__version__, torch.cuda.get_device_name()))
    for name, x, pos in (("prefill S=128", xp, 0), ("decode pos 128", xd, PRE)):
        eager = median_ms(lambda: blk(x, pos))
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                blk(x, pos)
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            blk(x, pos)
        graph = median_ms(g.replay)
        print("%-15s eager %.3f ms [%.3f]   cuda graph %.3f ms [%.3f]" % (name, eager[0], eager[1], graph[0], graph[1]))


if __name__ == "__main__":
    main()
