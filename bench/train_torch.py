# train_torch.py - the PyTorch CPU peer of bench/train.c: training steps/s of the same models, same shapes,
# same optimizer (AdamW, weight decay 0.01, clipping by the global norm 1.0), same thread count.
#
# Usage: python3 bench/train_torch.py mlp|transformer THREADS SECONDS [cpu|cuda]
# Prints one line: "steps/s MEDIAN REP1 REP2 REP3" (three repetitions of SECONDS each after a warm-up); on cuda
# also "peak_bytes N" (torch.cuda.max_memory_allocated over the whole run: params, gradients, AdamW states and
# activations). Exits without output where the device is missing.
# The shapes must stay those of bench/train.c.
import sys
import time

import torch
import torch.nn.functional as F

MLP = dict(batch=128, nin=784, nhid=256, ncls=10)
TF = dict(batch=16, ctx=64, d=128, heads=4, layers=2, ff=512, vocab=96)


DEV = "cpu"


def mlp_model():
    torch.manual_seed(0)
    p = dict(
        w1=torch.randn(MLP["nin"], MLP["nhid"]) * 0.05,
        b1=torch.zeros(MLP["nhid"]),
        w2=torch.randn(MLP["nhid"], MLP["ncls"]) * 0.05,
        b2=torch.zeros(MLP["ncls"]),
    )
    p = {k: t.to(DEV).requires_grad_(True) for k, t in p.items()}
    x = torch.rand(MLP["batch"], MLP["nin"]).to(DEV)
    y = torch.randint(0, MLP["ncls"], (MLP["batch"],)).to(DEV)

    def loss_fn():
        h = torch.relu(x @ p["w1"] + p["b1"])
        return F.cross_entropy(h @ p["w2"] + p["b2"], y)

    return list(p.values()), loss_fn


def tf_model():
    torch.manual_seed(0)
    d, ff, v, c = TF["d"], TF["ff"], TF["vocab"], TF["ctx"]
    ps = []

    def P(*shape, std=0.02, fill=None):
        t = torch.full(shape, fill) if fill is not None else torch.randn(*shape) * std
        t = t.to(DEV)
        t.requires_grad_(True)
        ps.append(t)
        return t

    tok, pos = P(v, d), P(c, d)
    blocks = []
    for _ in range(TF["layers"]):
        blocks.append(dict(g1=P(d, fill=1.0), b1=P(d, fill=0.0), wq=P(d, d), wk=P(d, d), wv=P(d, d), wo=P(d, d),
                           g2=P(d, fill=1.0), b2=P(d, fill=0.0), w1=P(d, ff), c1=P(ff, fill=0.0), w2=P(ff, d),
                           c2=P(d, fill=0.0)))
    gf, bf, head = P(d, fill=1.0), P(d, fill=0.0), P(d, v)
    B, H = TF["batch"], TF["heads"]
    tokens = torch.randint(0, v, (B, c)).to(DEV)
    targets = torch.randint(0, v, (B, c)).to(DEV)
    mask = torch.triu(torch.full((c, c), float("-inf")), diagonal=1).to(DEV)

    def heads(t):
        return t.view(B, c, H, d // H).transpose(1, 2)

    def loss_fn():
        x = tok[tokens] + pos
        for w in blocks:
            h = F.layer_norm(x, (d,), w["g1"], w["b1"])
            q, k, vv = heads(h @ w["wq"]), heads(h @ w["wk"]), heads(h @ w["wv"])
            a = torch.softmax(q @ k.transpose(-1, -2) * (1.0 / (d // H) ** 0.5) + mask, dim=-1) @ vv
            x = x + a.transpose(1, 2).reshape(B, c, d) @ w["wo"]
            h = F.layer_norm(x, (d,), w["g2"], w["b2"])
            x = x + F.gelu(h @ w["w1"] + w["c1"]) @ w["w2"] + w["c2"]
        logits = F.layer_norm(x, (d,), gf, bf) @ head
        return F.cross_entropy(logits.view(B * c, v), targets.view(B * c))

    return ps, loss_fn


def main():
    global DEV
    which, threads, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    DEV = sys.argv[4] if len(sys.argv) > 4 else "cpu"
    if DEV == "cuda" and not torch.cuda.is_available():
        return
    torch.set_num_threads(threads)
    params, loss_fn = mlp_model() if which == "mlp" else tf_model()
    opt = torch.optim.AdamW(params, lr=1e-3, weight_decay=0.01)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = loss_fn()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        return loss.item()

    for _ in range(3):
        step()
    reps = []
    for _ in range(3):
        n, t0 = 0, time.perf_counter()
        while True:
            step()
            n += 1
            t = time.perf_counter() - t0
            if t >= seconds and n >= 3:
                break
        reps.append(n / t)
    print("steps/s %.3f %s" % (sorted(reps)[1], " ".join("%.3f" % r for r in reps)))
    if DEV == "cuda":
        print("peak_bytes %d" % torch.cuda.max_memory_allocated())


if __name__ == "__main__":
    main()
