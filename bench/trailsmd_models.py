"""The same training as Trails' learned models, through the library code Trails-MD itself calls
(docs/performance.md, "Learned models"): deeptime's TVAE and VAMPNet, mlcolvar's DeepTICA.
Same data and pairs (TimeLaggedDataset of the rows at each pair), same networks (Trails-MD's
modules: Linear → BatchNorm1d → SiLU → Dropout blocks for the TVAE, one SiLU MLP lobe for the
VAMPNet, mlcolvar's FeedForward for Deep-TICA), learning rate, batch size, epochs and threads.
Run by bench_learned_models with the project .venv's python (make bench-deps); it is not a test.
Usage: trailsmd_models.py DIR (the inputs bench/learned_pytorch.py reads); prints
{"seconds": training time} as JSON, or {"unavailable": why} when the library is missing or
the model has no Trails-MD library code (SPIB is Trails-MD's own loop, as in learned_pytorch.py).
The clock covers building the model and the epochs, not Python's start, imports or data loading.
"""
import json
import logging
import re
import subprocess
import sys
import time

import numpy as np
import torch


def tell_lightning_debian_torch_release():
    """Debian's python3-torch 1.13.1 is built outside PyTorch's release process, so it calls
    itself a pre-release: torch.__version__ is "1.13.0a0" (its pip metadata
    "1.13.0a0+gitunknown"), older than 1.13.0. lightning decides its torch code path from
    torch.__version__ and, reading it as torch < 1.13, reaches for torch._UntypedStorage, which
    1.13 renamed (AttributeError at `import lightning`). Before lightning is imported, this sets
    torch.__version__ to the release the installed Debian package is (dpkg's upstream version,
    1.13.1 of 1.13.1+dfsg-4) when it has the same major.minor; nothing else changes (the library,
    and so the computation, is the same). Any other torch is left as it is."""
    version = str(torch.__version__)
    if not re.fullmatch(r"\d+\.\d+\.0a0(\+gitunknown)?", version):
        return
    try:
        package = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "python3-torch"],
                                 capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return
    release = re.match(r"(\d+)\.(\d+)\.(\d+)", package)
    if release and version.startswith(f"{release.group(1)}.{release.group(2)}."):
        torch.__version__ = torch.torch_version.TorchVersion(release.group(0))


def skip_sharded_tensor_hooks(lightning):
    """Every LightningModule registers state-dict hooks for torch's distributed ShardedTensor
    (checkpoints of models sharded across processes), importing torch.distributed._shard, which
    torch 1.13 cannot import on Python 3.11 (a dataclass with a mutable default: ValueError).
    Nothing here is sharded or distributed (one process, CPU), so the registration is skipped;
    lightning itself skips it on torch >= 2.1 and where torch.distributed is unavailable."""
    module = lightning.pytorch.core.module.LightningModule
    module._register_sharded_tensor_state_dict_hooks_if_available = lambda self: None


def blocks(n_in, hidden, batch_norm, dropout):
    layers, width = [], n_in
    for h in hidden:
        layers.append(torch.nn.Linear(width, h))
        if batch_norm:
            layers.append(torch.nn.BatchNorm1d(h))
        layers.append(torch.nn.SiLU())
        if dropout > 0:
            layers.append(torch.nn.Dropout(dropout))
        width = h
    return layers, width


class TvaeEncoder(torch.nn.Module):
    def __init__(self, d, o):
        super().__init__()
        layers, width = blocks(d, o["encoder_hidden_dims"], True, o["dropout_rate"])
        self.body = torch.nn.Sequential(*layers)
        self.mean = torch.nn.Linear(width, o["latent_dim"])
        self.logvar = torch.nn.Linear(width, o["latent_dim"])

    def forward(self, x):
        h = self.body(x)
        return self.mean(h), self.logvar(h)


def loader(dataset, o, n, shuffle):
    return torch.utils.data.DataLoader(dataset, batch_size=o["batch_size"] or n, shuffle=shuffle)


def train(o, x0, xt):
    n, d = x0.shape
    if o["kind"] == "tvae":
        from deeptime.decomposition.deep import TVAE
        from deeptime.util.data import TimeLaggedDataset
        layers, width = blocks(o["latent_dim"], o["decoder_hidden_dims"], True, o["dropout_rate"])
        decoder = torch.nn.Sequential(*layers, torch.nn.Linear(width, d))
        model = TVAE(TvaeEncoder(d, o), decoder, learning_rate=o["learning_rate"],
                     beta=o["tvae_beta"])
        model.fit(loader(TimeLaggedDataset(x0, xt), o, n, False), n_epochs=o["epochs"])
    elif o["kind"] == "vampnet":
        from deeptime.decomposition.deep import VAMPNet
        from deeptime.util.data import TimeLaggedDataset
        layers, width = blocks(d, o["encoder_hidden_dims"], False, 0.0)
        lobe = torch.nn.Sequential(*layers, torch.nn.Linear(width, o["latent_dim"]))
        model = VAMPNet(lobe=lobe, learning_rate=o["learning_rate"])
        model.fit(loader(TimeLaggedDataset(x0, xt), o, n, True), n_epochs=o["epochs"])
    elif o["kind"] == "deep-tica":
        try:
            tell_lightning_debian_torch_release()
            import lightning
            from mlcolvar.cvs import DeepTICA
            from mlcolvar.data import DictDataset, DictModule
        except Exception as e:  # noqa: BLE001: any import failure means "cannot run here"
            raise LookupError(f"mlcolvar does not import: {type(e).__name__}: {e}") from e
        skip_sharded_tensor_hooks(lightning)
        logging.getLogger("lightning.pytorch").setLevel(logging.ERROR)  # as Trails-MD does
        model = DeepTICA(layers=[d, *o["deep_tica_hidden_dims"], o["latent_dim"]],
                         options={"optimizer": {"lr": o["learning_rate"]}})
        data = DictDataset({"data": torch.from_numpy(x0), "data_lag": torch.from_numpy(xt),
                            "weights": torch.ones(n), "weights_lag": torch.ones(n)})
        module = DictModule(data, lengths=[1.0], batch_size=o["batch_size"] or n, shuffle=True)
        trainer = lightning.Trainer(max_epochs=o["epochs"], accelerator="cpu", logger=False,
                                    enable_checkpointing=False, enable_progress_bar=False,
                                    enable_model_summary=False, limit_val_batches=0)
        trainer.fit(model, module)
    else:
        raise LookupError(f"{o['kind']}: no Trails-MD library code (Trails-MD's own loop)")


def main():
    folder = sys.argv[1]
    with open(f"{folder}/options.json") as f:
        o = json.load(f)
    torch.set_num_threads(o["threads"])
    rows = np.load(f"{folder}/rows.npy").astype(np.float32)
    pairs = np.load(f"{folder}/pairs.npy").astype(np.int64)
    x0, xt = rows[pairs[:, 0]], rows[pairs[:, 1]]
    torch.manual_seed(o["seed"])
    try:
        start = time.perf_counter()
        train(o, x0, xt)
        print(json.dumps({"seconds": time.perf_counter() - start}))
    except (ImportError, LookupError) as e:
        print(json.dumps({"unavailable": str(e)}))


if __name__ == "__main__":
    main()
