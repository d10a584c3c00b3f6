"""PathGennie's system.py contract, for share/trails/prepare_openmm.py (docs/swarm.md,
"PathGennie's system.py").

A system.py gives its openmm.app.Simulation either as a module attribute `simulation` or, as
every public PathGennie example does, as `Simulation_obj(device_idx=0).simulation`. Only the
Simulation's System, integrator and topology are used: Trails creates its own Context per device
slot. So the platform the class hard-codes (often CUDA) and the properties it passes
(DeviceIndex, Precision) only decide where this one describing Simulation is built: a platform
that is not available here falls back, with the engine's warning, and properties that platform
does not know are dropped with a warning.
"""
import contextlib
import inspect
import os
import sys
import types


def warn(text):
    print(f"warning: {text}", file=sys.stderr, flush=True)


def _available_platforms(openmm):
    return [openmm.Platform.getPlatform(i).getName()
            for i in range(openmm.Platform.getNumPlatforms())]


@contextlib.contextmanager
def portable_platforms():
    """While a Simulation_obj is built: Platform.getPlatformByName falls back to CPU (or
    Reference) for a platform this machine lacks, and Simulation drops platform properties the
    platform does not accept, each with a warning."""
    import openmm
    from openmm import app

    by_name = openmm.Platform.getPlatformByName
    sim_init = app.Simulation.__init__

    def get_platform(name):
        try:
            return by_name(name)
        except Exception as e:  # OpenMMException: "There is no registered Platform called ..."
            available = _available_platforms(openmm)
            fallback = "CPU" if "CPU" in available else "Reference"
            warn(f"OpenMM {name} platform unusable here ({str(e).strip()}); falling back to "
                 f"the {fallback} platform (system.py's Simulation is only read for its System "
                 "and integrator)")
            return by_name(fallback)

    def init(self, topology, system, integrator, platform=None, platformProperties=None,
             *args, **kwargs):
        if platform is not None and platformProperties:
            known = set(platform.getPropertyNames())
            dropped = sorted(k for k in platformProperties if k not in known)
            if dropped:
                warn(f"OpenMM {platform.getName()} platform rejected the properties "
                     f"({', '.join(dropped)}); retrying with defaults")
                platformProperties = {k: v for k, v in platformProperties.items() if k in known}
        sim_init(self, topology, system, integrator, platform, platformProperties, *args, **kwargs)

    openmm.Platform.getPlatformByName = staticmethod(get_platform)
    app.Simulation.__init__ = init
    try:
        yield
    finally:
        openmm.Platform.getPlatformByName = by_name
        app.Simulation.__init__ = sim_init


def _constructor_arguments(cls, path):
    """Simulation_obj's required arguments: a device index (any parameter whose name says
    device or gpu) gets 0; anything else required is an error naming it."""
    args = {}
    for name, p in inspect.signature(cls.__init__).parameters.items():
        if name == "self" or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if p.default is not p.empty:
            continue
        if "device" in name.lower() or "gpu" in name.lower():
            args[name] = 0
        else:
            raise ValueError(f"{path}: Simulation_obj requires the argument '{name}', which "
                             "Trails cannot supply; give it a default value")
    return args


def pathgennie_simulation(module, path, folder):
    """The module's openmm.app.Simulation, or None when it gives none (a make_system module).
    Raises ValueError with a readable message when what it gives is not one."""
    from openmm import app

    sim = getattr(module, "simulation", None)
    if isinstance(sim, app.Simulation):
        return sim
    cls = getattr(module, "Simulation_obj", None)
    if cls is not None:
        if not inspect.isclass(cls):
            raise ValueError(f"{path}: Simulation_obj is a {type(cls).__name__}, not a class")
        kwargs = _constructor_arguments(cls, path)
        here = os.getcwd()
        try:
            os.chdir(folder)  # PathGennie's classes open their inputs by relative names
            with portable_platforms():
                obj = cls(**kwargs)
        except ValueError:
            raise
        except Exception as e:
            raise ValueError(f"{path}: Simulation_obj() failed: {type(e).__name__}: {e}")
        finally:
            os.chdir(here)
        sim = getattr(obj, "simulation", None)
        if not isinstance(sim, app.Simulation):
            raise ValueError(f"{path}: Simulation_obj().simulation is a {type(sim).__name__}, "
                             "not an openmm.app.Simulation")
        return sim
    if isinstance(sim, types.ModuleType):
        # `from openmm.app import *` binds the submodule openmm.app.simulation to this name.
        raise ValueError(
            f"{path}: defines no Simulation: its name `simulation` is the module {sim.__name__} "
            "(brought in by `from openmm.app import *`); define `simulation = Simulation(...)` "
            "or PathGennie's `class Simulation_obj` whose instance has .simulation")
    if sim is not None:
        raise ValueError(f"{path}: `simulation` is a {type(sim).__name__}, not an "
                         "openmm.app.Simulation")
    return None


def import_in_folder(path):
    """The Python file at path imported in its own directory, which is also put on sys.path
    (PathGennie's system.py opens its input files by relative names and may import its
    neighbours); ValueError naming the file when the import fails."""
    import importlib.util
    folder = os.path.dirname(os.path.abspath(path))
    here = os.getcwd()
    sys.path.insert(0, folder)
    try:
        os.chdir(folder)
        spec = importlib.util.spec_from_file_location("trails_user_system", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except Exception as e:
        raise ValueError(f"{path}: import failed: {type(e).__name__}: {e}")
    finally:
        os.chdir(here)
    return module


def describe(path):
    """{"dt_ps", "temperature_K"} of the system.py's integrator (temperature None without a
    thermostat), for `trails unbind/unfold/fold` to set engine.dt and engine.temperature."""
    from openmm import unit
    folder = os.path.dirname(os.path.abspath(path))
    module = import_in_folder(path)
    sim = pathgennie_simulation(module, path, folder)
    if sim is None:
        raise ValueError(f"{path}: defines no simulation nor PathGennie's class Simulation_obj")
    integrator = sim.integrator
    temperature = None
    if hasattr(integrator, "getTemperature"):
        temperature = integrator.getTemperature().value_in_unit(unit.kelvin)
    return {"dt_ps": integrator.getStepSize().value_in_unit(unit.picosecond),
            "temperature_K": temperature}


if __name__ == "__main__":
    import json
    reply = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # what system.py prints goes to stderr; stdout holds the JSON only
    sys.stdout = sys.stderr
    try:
        reply.write(json.dumps(describe(os.path.abspath(sys.argv[1]))) + "\n")
        reply.flush()
    except ValueError as e:
        print(e, file=sys.stderr)
        sys.exit(2)
