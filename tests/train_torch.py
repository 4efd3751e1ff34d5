#!/usr/bin/env python3
"""Reference training runs for tests/test_train.c, written by PyTorch (Debian python3-torch 1.13).

Writes tests/data/train/mlp.safetensors (the data, the initial weights, and for each optimizer PyTorch's loss
at every step and its final weights). Regenerate with:  python3 tests/train_torch.py
Weights are stored as the rlx graph uses them: a linear layer's weight is [in, out] (x @ w + b).

  python3 tests/train_torch.py cnn   (only the named references: mlp, transformer, cnn)

  MLP: x [64, 8] -> linear 32 -> relu -> linear 4 -> cross-entropy with integer labels, 200 steps over 4
  batches of 16 (step s uses batch s % 4), f32, torch.use_deterministic_algorithms, one thread.
  adamw: torch.optim.AdamW(lr=1e-2, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01) after
         torch.nn.utils.clip_grad_norm_(params, 1.0)
  sgd:   torch.optim.SGD(lr=0.1, momentum=0.9, weight_decay=1e-3)

Also writes tests/data/train/transformer.safetensors: a 2-layer pre-norm decoder (vocab 16, context 8, width 16,
2 heads of 8, MLP 32 with exact gelu, learned position embeddings, untied head; attention written as matmul +
additive causal mask (-1e9) + softmax, as the rlx graph builds it) on 4 sequences, next-token cross-entropy,
AdamW(lr=3e-3, weight_decay=0.01) after clip_grad_norm_(1.0), 200 steps on the same batch.

Also writes tests/data/train/cnn.safetensors: a CNN with group norm in place of batch statistics on 32 images
1x12x12 of 4 classes (a bright 4x4 square in one quadrant, noise everywhere), 2 batches of 16 (step s uses batch
s % 2): conv 3x3 (8, padding 1) -> group_norm(2 groups, affine) -> relu -> max pool 2x2 -> conv 3x3 (16,
padding 1) -> group_norm(4 groups, affine) -> relu -> global mean -> linear 4 -> cross-entropy,
AdamW(lr=3e-3, weight_decay=0.01) after clip_grad_norm_(1.0), 200 steps. The convolutions have no bias (the group
norm after them takes it away) and the learning rate is small because this run must be well conditioned: with
conv biases or lr 1e-2, the same PyTorch run in f32 and in f64 already differ by more than 1e-4 within 200 steps;
as written they agree within 5e-6.
"""
import json, os, struct
import torch

torch.set_num_threads(1)
torch.use_deterministic_algorithms(True)
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "train", "mlp.safetensors")
STEPS, BATCH, NB = 200, 16, 4

def save(path, tensors):
    """A safetensors file (8-byte header length, JSON header, little-endian data), as rlx_safetensors reads it."""
    header, blobs, off = {}, [], 0
    for name, t in tensors.items():
        t = t.contiguous()
        dt = {torch.float32: "F32", torch.int64: "I64"}[t.dtype]
        b = t.numpy().tobytes()
        header[name] = {"dtype": dt, "shape": list(t.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))

def main():
    g = torch.Generator().manual_seed(1234)
    x = torch.randn(NB * BATCH, 8, generator=g)
    wt = torch.randn(8, 4, generator=g)
    y = (x @ wt + 0.5 * torch.randn(NB * BATCH, 4, generator=g)).argmax(1)     # learnable, not separable
    init = {
        "w1": torch.randn(8, 32, generator=g) * (1 / 8 ** 0.5),
        "b1": torch.randn(32, generator=g) * 0.1,
        "w2": torch.randn(32, 4, generator=g) * (1 / 32 ** 0.5),
        "b2": torch.randn(4, generator=g) * 0.1,
    }
    out = {"x": x, "y": y}
    out.update({"init." + k: v for k, v in init.items()})
    for opt_name in ("adamw", "sgd"):
        p = {k: v.clone().requires_grad_(True) for k, v in init.items()}
        params = [p["w1"], p["b1"], p["w2"], p["b2"]]
        if opt_name == "adamw":
            opt = torch.optim.AdamW(params, lr=1e-2, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01)
        else:
            opt = torch.optim.SGD(params, lr=0.1, momentum=0.9, weight_decay=1e-3)
        losses = []
        for s in range(STEPS):
            b = s % NB
            xb, yb = x[b * BATCH:(b + 1) * BATCH], y[b * BATCH:(b + 1) * BATCH]
            h = torch.relu(xb @ p["w1"] + p["b1"])
            loss = torch.nn.functional.cross_entropy(h @ p["w2"] + p["b2"], yb)
            opt.zero_grad()
            loss.backward()
            if opt_name == "adamw":
                torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            losses.append(loss.item())
        out[opt_name + ".losses"] = torch.tensor(losses, dtype=torch.float32)
        out.update({opt_name + ".final." + k: v.detach() for k, v in p.items()})
        print(opt_name, "loss", losses[0], "->", losses[-1])
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    save(OUT, out)
    print("wrote", OUT, os.path.getsize(OUT), "bytes")

V, T, D, H, F, B, L = 16, 8, 16, 2, 32, 4, 2

def tf_param_shapes():
    s = {"tok": (V, D), "pos": (T, D)}
    for l in range(L):
        for n, sh in (("ln1.g", (D,)), ("ln1.b", (D,)), ("wq", (D, D)), ("wk", (D, D)), ("wv", (D, D)),
                      ("wo", (D, D)), ("ln2.g", (D,)), ("ln2.b", (D,)), ("w1", (D, F)), ("b1", (F,)),
                      ("w2", (F, D)), ("b2", (D,))):
            s["l%d.%s" % (l, n)] = sh
    s["lnf.g"], s["lnf.b"], s["head"] = (D,), (D,), (D, V)
    return s

def tf_forward(p, tok, mask):
    ln = torch.nn.functional.layer_norm
    x = p["tok"][tok] + p["pos"]
    for l in range(L):
        q = lambda n: p["l%d.%s" % (l, n)]
        h = ln(x, (D,), q("ln1.g"), q("ln1.b"), 1e-5)
        def heads(t):
            return t.reshape(B, T, H, D // H).transpose(1, 2)
        qh, kh, vh = heads(h @ q("wq")), heads(h @ q("wk")), heads(h @ q("wv"))
        att = torch.softmax(qh @ kh.transpose(2, 3) * (1.0 / (D // H) ** 0.5) + mask, -1)
        x = x + (att @ vh).transpose(1, 2).reshape(B, T, D) @ q("wo")
        h = ln(x, (D,), q("ln2.g"), q("ln2.b"), 1e-5)
        x = x + torch.nn.functional.gelu(h @ q("w1") + q("b1")) @ q("w2") + q("b2")
    return ln(x, (D,), p["lnf.g"], p["lnf.b"], 1e-5) @ p["head"]

def transformer():
    g = torch.Generator().manual_seed(99)
    start = torch.randint(0, V, (B, 1), generator=g)
    seq = (start * 5 + 3 * torch.arange(T + 1)) % V                     # a pattern per sequence
    noise = torch.rand(B, T + 1, generator=g) < 0.1
    seq = torch.where(noise, torch.randint(0, V, (B, T + 1), generator=g), seq)
    tok, tgt = seq[:, :T].contiguous(), seq[:, 1:].contiguous()
    init = {}
    for n, sh in tf_param_shapes().items():
        if n.endswith(".g"):
            init[n] = 1.0 + 0.1 * torch.randn(sh, generator=g)
        elif n.endswith(".b") or n.endswith("b1") or n.endswith("b2"):
            init[n] = 0.05 * torch.randn(sh, generator=g)
        else:
            init[n] = torch.randn(sh, generator=g) * (0.5 / sh[0] ** 0.5 if len(sh) == 2 and n not in ("tok", "pos") else 0.3)
    mask = torch.triu(torch.full((T, T), -1e9), 1)
    p = {k: v.clone().requires_grad_(True) for k, v in init.items()}
    params = list(p.values())
    opt = torch.optim.AdamW(params, lr=3e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01)
    losses = []
    for s in range(STEPS):
        loss = torch.nn.functional.cross_entropy(tf_forward(p, tok, mask).reshape(B * T, V), tgt.reshape(B * T))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        losses.append(loss.item())
    out = {"tok": tok, "tgt": tgt, "losses": torch.tensor(losses, dtype=torch.float32)}
    out.update({"init." + k: v for k, v in init.items()})
    out.update({"final." + k: v.detach() for k, v in p.items()})
    path = os.path.join(os.path.dirname(OUT), "transformer.safetensors")
    save(path, out)
    print("transformer loss", losses[0], "->", losses[-1], "; wrote", path, os.path.getsize(path), "bytes")

CNN_SHAPES = {"c1.w": (8, 1, 3, 3), "gn1.g": (8,), "gn1.b": (8,),
              "c2.w": (16, 8, 3, 3), "gn2.g": (16,), "gn2.b": (16,), "fc.w": (16, 4), "fc.b": (4,)}

def cnn_forward(p, x):
    F = torch.nn.functional
    h = F.conv2d(x, p["c1.w"], padding=1)
    h = F.max_pool2d(torch.relu(F.group_norm(h, 2, p["gn1.g"], p["gn1.b"], 1e-5)), 2)
    h = F.conv2d(h, p["c2.w"], padding=1)
    h = torch.relu(F.group_norm(h, 4, p["gn2.g"], p["gn2.b"], 1e-5)).mean((2, 3))
    return h @ p["fc.w"] + p["fc.b"]

def cnn():
    g = torch.Generator().manual_seed(7)
    n, nb = 2 * BATCH, 2
    y = torch.randint(0, 4, (n,), generator=g)
    x = 0.5 * torch.randn(n, 1, 12, 12, generator=g)
    for i in range(n):
        r, c = 6 * (int(y[i]) // 2) + 1, 6 * (int(y[i]) % 2) + 1
        x[i, 0, r:r + 4, c:c + 4] += 1.0
    init = {}
    for k, sh in CNN_SHAPES.items():
        if k.startswith("gn") and k.endswith(".g"):
            init[k] = 1.0 + 0.1 * torch.randn(sh, generator=g)
        elif len(sh) == 1:
            init[k] = 0.1 * torch.randn(sh, generator=g)
        else:
            fan_in = sh[0] if len(sh) == 2 else sh[1] * sh[2] * sh[3]
            init[k] = torch.randn(sh, generator=g) * (1 / fan_in ** 0.5)
    p = {k: v.clone().requires_grad_(True) for k, v in init.items()}
    params = list(p.values())
    opt = torch.optim.AdamW(params, lr=3e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01)
    losses = []
    for s in range(STEPS):
        b = s % nb
        loss = torch.nn.functional.cross_entropy(cnn_forward(p, x[b * BATCH:(b + 1) * BATCH]), y[b * BATCH:(b + 1) * BATCH])
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        losses.append(loss.item())
    out = {"x": x, "y": y, "losses": torch.tensor(losses, dtype=torch.float32)}
    out.update({"init." + k: v for k, v in init.items()})
    out.update({"final." + k: v.detach() for k, v in p.items()})
    path = os.path.join(os.path.dirname(OUT), "cnn.safetensors")
    save(path, out)
    print("cnn loss", losses[0], "->", losses[-1], "; wrote", path, os.path.getsize(path), "bytes")

if __name__ == "__main__":
    import sys
    only = sys.argv[1:]   # e.g. "cnn": write only that reference
    if not only or "mlp" in only:
        main()
    if not only or "transformer" in only:
        transformer()
    if not only or "cnn" in only:
        cnn()
