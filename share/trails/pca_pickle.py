"""PathGennie's pca_model.pkl (pcagen.py: a scikit-learn PCA saved with joblib) as plain arrays,
for the worker's mode "pca_pickle" (share/trails/project_file_worker.py; docs/swarm.md,
"PathGennie's pca_model.pkl").

joblib.load reads the file with the pickle's sklearn classes rebuilt as plain attribute
holders (a pickled estimator is its class name plus its __dict__), so scikit-learn is not
needed and its version does not matter; only the fitted arrays are read. No estimator code
runs: the projection is z = (f - mean_) . components_^T, which Trails computes itself. Names of
numpy 2 (numpy._core) are mapped to numpy 1's.
"""
import importlib.abc
import importlib.machinery
import sys
import types


class _Fitted:
    """An estimator's pickled state: its attributes, nothing else."""

    def __setstate__(self, state):
        self.__dict__.update(state if isinstance(state, dict) else {"state": state})


class _HolderModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        holder = type(name, (_Fitted,), {"__module__": self.__name__})
        setattr(self, name, holder)
        return holder


class _HolderFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Resolves sklearn.* (absent here) to modules of attribute holders."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == "sklearn" or fullname.startswith("sklearn."):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        module = _HolderModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        pass


def _numpy2_names():
    """Pickles written under numpy 2 name numpy._core.*, which numpy 1 calls numpy.core.*:
    alias them (PathGennie's public models were saved under numpy 2)."""
    import numpy
    try:
        import numpy._core  # noqa: F401
        return
    except ImportError:
        pass
    import numpy.core.multiarray  # noqa: F401
    import numpy.core.numeric  # noqa: F401
    for name, module in list(sys.modules.items()):
        if name == "numpy.core" or name.startswith("numpy.core."):
            sys.modules.setdefault("numpy._core" + name[len("numpy.core"):], module)
    numpy._core = numpy.core


def _load(path):
    """joblib.load with the pickle's sklearn classes as attribute holders, whether or not
    scikit-learn is installed: a model saved by another scikit-learn version reads the same."""
    import joblib
    _numpy2_names()
    hidden = {n: m for n, m in sys.modules.items() if n == "sklearn" or n.startswith("sklearn.")}
    for name in hidden:
        del sys.modules[name]
    finder = _HolderFinder()
    sys.meta_path.insert(0, finder)
    try:
        return joblib.load(path)
    finally:
        sys.meta_path.remove(finder)
        for name in [n for n in sys.modules if n == "sklearn" or n.startswith("sklearn.")]:
            del sys.modules[name]
        sys.modules.update(hidden)


def read_pca_pickle(path):
    """{"mean", "components", "explained_variance", "explained_variance_ratio", "n_samples",
    "estimator"} of the PCA in `path`; ValueError with a readable message otherwise."""
    import numpy as np
    try:
        model = _load(path)
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file")
    except Exception as e:
        raise ValueError(f"{path}: not a joblib pickle of a PCA ({type(e).__name__}: {e})")
    attrs = getattr(model, "__dict__", {})
    name = type(model).__name__
    if "mean_" not in attrs or "components_" not in attrs:
        raise ValueError(f"{path}: holds a {name} without mean_ and components_; expected the "
                         "fitted scikit-learn PCA that PathGennie's pcagen.py writes")
    mean = np.asarray(attrs["mean_"], dtype=np.float64)
    components = np.asarray(attrs["components_"], dtype=np.float64)
    if mean.ndim != 1 or components.ndim != 2 or components.shape[1] != mean.shape[0]:
        raise ValueError(f"{path}: mean_ has shape {mean.shape} and components_ {components.shape};"
                         " expected (F,) and (k, F)")
    if attrs.get("whiten", False):
        raise ValueError(f"{path}: a whitened PCA (whiten=True); PathGennie's CV is the plain "
                         "projection, which Trails computes")
    if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(components))):
        raise ValueError(f"{path}: mean_ or components_ holds a non-finite value")

    def floats(key):
        v = attrs.get(key)
        return [] if v is None else [float(x) for x in np.asarray(v, dtype=np.float64).ravel()]

    return {
        "estimator": f"{type(model).__module__}.{name}",
        "mean": mean.tolist(),
        "components": components.tolist(),
        "explained_variance": floats("explained_variance_"),
        "explained_variance_ratio": floats("explained_variance_ratio_"),
        "n_samples": int(attrs.get("n_samples_", attrs.get("n_samples_seen_", 0)) or 0),
    }


if __name__ == "__main__":
    import json
    try:
        print(json.dumps(read_pca_pickle(sys.argv[1])))
    except ValueError as e:
        print(e, file=sys.stderr)
        sys.exit(2)
