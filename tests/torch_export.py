#!/usr/bin/python3
"""Writes the PyTorch-exported ONNX models of tests/test_onnx_torch.c and PyTorch's outputs for them.

Run with Debian's python3-torch (1.13) and python3-onnx:  /usr/bin/python3 tests/torch_export.py [OUT_DIR [NAME...]]
(default tests/data/torch, every model). For each model and opset (13 and 17) it writes OUT_DIR/NAME_opsetN/ with
  model.onnx     torch.onnx.export of the model in eval mode
  input.bin      the input, float32 little-endian, row-major
  output.bin     PyTorch's output for it (the model's first output), float32
  shapes.txt     line 1: the input's shape, line 2: the output's shape (space-separated)
Weights and inputs come from fixed seeds; every model's weights are random (PyTorch's initialisers, batch-norm
statistics set to random non-trivial values)."""
import os
import sys

import numpy as np
import torch
import torch.nn as nn


class Cnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, padding=1)
        self.b1 = nn.BatchNorm2d(8)
        self.c2 = nn.Conv2d(8, 16, 3, stride=2, padding=1, groups=2)
        self.b2 = nn.BatchNorm2d(16)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = torch.relu(self.b1(self.c1(x)))
        x = nn.functional.max_pool2d(x, 2)
        x = nn.functional.hardswish(self.b2(self.c2(x)))
        x = nn.functional.adaptive_avg_pool2d(x, 1).flatten(1)
        return torch.log_softmax(self.fc(x), dim=1)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, dropout=0.0, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        self.head = nn.Linear(32, 8)

    def forward(self, x):
        return self.head(self.enc(x))


class Lstm(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(input_size=12, hidden_size=16, num_layers=2, batch_first=True, bidirectional=True)
        self.head = nn.Linear(32, 5)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.head(y)


class Gru(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(input_size=12, hidden_size=16, num_layers=1, batch_first=True, bidirectional=True)
        self.head = nn.Linear(32, 5)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.head(y)


class Control(nn.Module):
    """Scripted control flow: a loop over the first dim of x (an ONNX Loop whose trip count comes from Shape;
    x's dim 0 is exported as the dynamic dim "T") and a branch on the sign of a value computed at run time (an
    If whose branches read the outer graph's weights). thr puts the run-time condition on one side or the other."""

    def __init__(self, thr: float):
        super().__init__()
        self.fc = nn.Linear(16, 16)
        self.out = nn.Linear(16, 4)
        self.thr = thr

    def forward(self, x):
        h = torch.zeros(x.size(1), x.size(2))
        for i in range(x.size(0)):
            h = torch.tanh(self.fc(h + x[i])) + h * 0.5
        if bool(h.sum() > self.thr):
            y = self.out(h)
        else:
            y = self.out(-h) + 1.0
        return y


MODELS = {
    "cnn_bn": (Cnn, (2, 3, 16, 16)),
    "transformer_encoder": (Encoder, (2, 7, 32)),
    "lstm": (Lstm, (2, 9, 12)),
    "gru": (Gru, (2, 9, 12)),
    # h.sum() is about 0.70 for this input: -5 takes the then branch, 10 the else branch
    "control_then": (lambda: Control(-5.0), (5, 2, 16)),
    "control_else": (lambda: Control(10.0), (5, 2, 16)),
}


def main():
    out_root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "data", "torch")
    only = sys.argv[2:]   # optional: the models to write (default all)
    for name, (cls, shape) in MODELS.items():
        if only and name not in only:
            continue
        torch.manual_seed(1234)
        model = cls()
        for m in model.modules():   # batch-norm statistics that do something
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 2.0)
                m.weight.data.uniform_(0.5, 1.5)
                m.bias.data.uniform_(-0.2, 0.2)
        model.eval()
        gen = torch.Generator().manual_seed(99)
        x = torch.randn(*shape, generator=gen)
        with torch.no_grad():
            y = model(x)
        dyn = None
        if name.startswith("control"):   # scripted, so that the loop and the branch stay in the graph
            model = torch.jit.script(model)
            dyn = {"x": {0: "T"}}
        for opset in (13, 17):
            d = os.path.join(out_root, f"{name}_opset{opset}")
            os.makedirs(d, exist_ok=True)
            # with gradients on: under no_grad, nn.TransformerEncoder takes its fused fast path, which does not export
            torch.onnx.export(model, (x,), os.path.join(d, "model.onnx"), opset_version=opset,
                              input_names=["x"], output_names=["y"], do_constant_folding=True, dynamic_axes=dyn)
            x.numpy().astype("<f4").tofile(os.path.join(d, "input.bin"))
            y.numpy().astype("<f4").tofile(os.path.join(d, "output.bin"))
            with open(os.path.join(d, "shapes.txt"), "w") as f:
                f.write(" ".join(str(v) for v in x.shape) + "\n" + " ".join(str(v) for v in y.shape) + "\n")
            print(f"{d}: input {tuple(x.shape)} output {tuple(y.shape)}")


if __name__ == "__main__":
    main()
