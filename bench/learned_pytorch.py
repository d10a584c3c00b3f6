#!/usr/bin/python3
"""The training of Trails' learned models (docs/cvs.md, "Learned models") written in PyTorch from
Python, step for step: the same modules built in the same order from the same seed (so the same
initial weights), the same batches, losses and Adam steps. Used two ways:
  - tests/learned (PyTorchReplay): the per-epoch loss curve must match Trails' to 1e-6;
  - bench/learned_models.sh: the training time of this script is the denominator of Trails'
    speed ratio (docs/performance.md, "Learned models").
Usage: learned_pytorch.py DIR   (DIR holds options.json, rows.npy, pairs.npy and, for spib,
labels.npy written by Trails); prints {"loss": [...], "seconds": training time} as JSON."""
import json
import sys
import time

import numpy as np
import torch


def mlp(n_in, hidden, n_out, relu, batch_norm, dropout):
    layers, width = [], n_in
    for h in hidden:
        layers.append(torch.nn.Linear(width, h))
        if batch_norm:
            layers.append(torch.nn.BatchNorm1d(h))
        layers.append(torch.nn.ReLU() if relu else torch.nn.SiLU())
        if dropout > 0:
            layers.append(torch.nn.Dropout(dropout))
        width = h
    if n_out is not None:
        layers.append(torch.nn.Linear(width, n_out))
    return torch.nn.Sequential(*layers)


def epoch_batches(n, batch_size, shuffle):
    order = torch.randperm(n, dtype=torch.int64) if shuffle else torch.arange(n, dtype=torch.int64)
    b = min(batch_size, n) if batch_size else n
    batches, start = [], 0
    while start < n:
        end = min(start + b, n)
        if n - end == 1:
            end = n
        batches.append(order[start:end])
        if end == n:
            break
        start += b
    return batches


def inverse_sqrt(c, eps):
    values, vectors = torch.linalg.eigh(c + eps * torch.eye(c.shape[0], dtype=c.dtype))
    return vectors.mm(torch.diag(values.abs().rsqrt())).mm(vectors.t())


def vamp2_score(x, y, eps=1e-6):
    norm = 1.0 / (x.shape[0] - 1)
    xc, yc = x - x.mean(0, keepdim=True), y - y.mean(0, keepdim=True)
    c00, c0t, ctt = xc.t().mm(xc) * norm, xc.t().mm(yc) * norm, yc.t().mm(yc) * norm
    k = inverse_sqrt(c00, eps).mm(c0t).mm(inverse_sqrt(ctt, eps))
    return 1 + k.pow(2).sum()


def tica_eigenvalues(x, y, eps=1e-6):
    norm = 1.0 / (2.0 * x.shape[0])
    mean = 0.5 * (x.mean(0, keepdim=True) + y.mean(0, keepdim=True))
    xc, yc = x - mean, y - mean
    c0 = (xc.t().mm(xc) + yc.t().mm(yc)) * norm
    ct = (xc.t().mm(yc) + yc.t().mm(xc)) * norm
    l = torch.linalg.cholesky(c0 + eps * torch.eye(c0.shape[0], dtype=c0.dtype))
    a = torch.linalg.solve_triangular(l, ct, upper=False)
    b = torch.linalg.solve_triangular(l, a.t(), upper=False)
    return torch.linalg.eigvalsh(0.5 * (b + b.t()))


def kl(mean, logvar):
    return -0.5 * (1 + logvar - mean.pow(2) - logvar.exp()).sum(1).mean()


def run_epochs(o, n_pairs, shuffle, params, step_loss, losses):
    optimiser = torch.optim.Adam(params, lr=o["learning_rate"])
    for _ in range(o["epochs"]):
        total = 0.0
        for batch in epoch_batches(n_pairs, o["batch_size"], shuffle):
            loss = step_loss(batch)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            total += loss.item() * float(batch.shape[0])
        losses.append(total / float(n_pairs))


def train(o, x, t, lag, labels):
    losses, n, d = [], t.shape[0], x.shape[1]
    if o["kind"] == "tvae":
        last = o["encoder_hidden_dims"][-1] if o["encoder_hidden_dims"] else d
        enc = mlp(d, o["encoder_hidden_dims"], None, False, True, o["dropout_rate"])
        mean, logvar = torch.nn.Linear(last, o["latent_dim"]), torch.nn.Linear(last, o["latent_dim"])
        dec = mlp(o["latent_dim"], o["decoder_hidden_dims"], d, False, True, o["dropout_rate"])
        modules = [enc, mean, logvar, dec]
        for m in modules:
            m.train()

        def step(batch):
            h = enc(x.index_select(0, t.index_select(0, batch)))
            mu, lv = mean(h), logvar(h)
            z = mu + torch.randn_like(mu) * torch.exp(0.5 * lv)
            rec = torch.nn.functional.mse_loss(dec(z), x.index_select(0, lag.index_select(0, batch)))
            return rec + o["tvae_beta"] * kl(mu, lv) / float(d)
        run_epochs(o, n, False, [p for m in modules for p in m.parameters()], step, losses)
    elif o["kind"] in ("vampnet", "deep-tica"):
        deep = o["kind"] == "deep-tica"
        net = mlp(d, o["deep_tica_hidden_dims" if deep else "encoder_hidden_dims"],
                  o["latent_dim"], deep, False, 0.0)
        net.train()

        def step(batch):
            y0 = net(x.index_select(0, t.index_select(0, batch)))
            yt = net(x.index_select(0, lag.index_select(0, batch)))
            return -tica_eigenvalues(y0, yt).pow(2).sum() if deep else -vamp2_score(y0, yt)
        run_epochs(o, n, True, list(net.parameters()), step, losses)
    else:  # spib
        last = o["encoder_hidden_dims"][-1] if o["encoder_hidden_dims"] else d
        body = mlp(d, o["encoder_hidden_dims"], None, False, False, o["dropout_rate"])
        mean, logvar = torch.nn.Linear(last, o["latent_dim"]), torch.nn.Linear(last, o["latent_dim"])
        encoder = [body, mean, logvar]

        def predictor(k):
            return torch.nn.Sequential(torch.nn.Linear(o["latent_dim"], 64), torch.nn.SiLU(),
                                       torch.nn.Linear(64, k))

        def renumber(lab):
            ids = {v: i for i, v in enumerate(sorted(set(lab.tolist())))}
            return torch.tensor([ids[v] for v in lab.tolist()], dtype=torch.int64), len(ids)

        labels, k = renumber(labels)

        def train_round(pred, labels):
            targets = labels.index_select(0, lag)
            for m in encoder:
                m.train()
            pred.train()

            def step(batch):
                h = body(x.index_select(0, t.index_select(0, batch)))
                mu, lv = mean(h), logvar(h)
                z = mu + torch.randn_like(mu) * torch.exp(0.5 * lv)
                return (torch.nn.functional.cross_entropy(pred(z), targets.index_select(0, batch))
                        + o["spib_beta"] * kl(mu, lv))
            params = [p for m in encoder for p in m.parameters()] + list(pred.parameters())
            run_epochs(o, n, True, params, step, losses)

        pred = predictor(k)
        train_round(pred, labels)
        for _ in range(o["spib_refine_rounds"]):
            for m in encoder:
                m.eval()
            pred.eval()
            with torch.no_grad():
                new = pred(mean(body(x))).argmax(1)
            change = float((new != labels).sum().item()) / float(x.shape[0])
            labels, k = renumber(new)
            if change < 0.01 or k < 2:
                break
            pred = predictor(k)
            train_round(pred, labels)
    return losses


def main():
    folder = sys.argv[1]
    with open(f"{folder}/options.json") as f:
        o = json.load(f)
    torch.set_num_threads(o["threads"])
    torch.use_deterministic_algorithms(True)
    x = torch.from_numpy(np.load(f"{folder}/rows.npy")).to(torch.float32)
    pairs = torch.from_numpy(np.load(f"{folder}/pairs.npy").astype(np.int64))
    labels = (torch.from_numpy(np.load(f"{folder}/labels.npy").astype(np.int64))
              if o["kind"] == "spib" else None)
    start = time.perf_counter()
    torch.manual_seed(o["seed"])
    losses = train(o, x, pairs[:, 0].contiguous(), pairs[:, 1].contiguous(), labels)
    seconds = time.perf_counter() - start
    print(json.dumps({"loss": losses, "seconds": seconds}))


if __name__ == "__main__":
    main()
