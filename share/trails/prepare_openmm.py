#!/usr/bin/python3
"""Prepare an OpenMM System for a Trails campaign (runs once per campaign, before any MD).

Reads the campaign's structure inputs with OpenMM's Python application layer and writes, into
--out (a fresh directory):
  system.xml      the serialized System (XmlSerializer)
  integrator.xml  only when a custom make_system() module returned its own integrator
  topology.pdb    the topology with the start positions (and CRYST1 box when periodic)
  prepare.json    atom count, positions (nm, full precision), box (nm, rows a,b,c), inputs
Inputs follow Trails-MD: GRO+TOP, PDB/inpcrd+prmtop, PDB + force-field XML files, a serialized
System XML (with conf_file for positions), or a Python module defining make_system(topology, ...)
or exposing `simulation`, an openmm.app.Simulation (PathGennie's system.py: its System and
integrator are used);
a PDB may serve as top_file with a system_file (or force field). A GROMACS .top reads its #includes
from its own directory, then --include-dir, else the installed GROMACS force fields
(/usr/share/gromacs/top, Debian's gromacs-data; docs/engines.md).
createSystem parameters are Trails-MD's: PME 1.0 nm (NoCutoff without a box), ewaldErrorTolerance
5e-4, HBonds constraints, rigid water, hydrogen mass 1.5 amu.

Exit status: 0 success; 2 bad input (message on stderr, first line "KEY: message").
"""
import argparse
import glob
import inspect
import json
import os
import re
import sys


class InputProblem(Exception):
    def __init__(self, key, message):
        super().__init__(message)
        self.key = key


def fail(key, message):
    raise InputProblem(key, message)


def version_tuple(v):
    return tuple(int("".join(c for c in part if c.isdigit()) or 0) for part in v.split("."))


def unreadable_xml(path, text, error, mine):
    """Why this OpenMM cannot read a System XML: a file written by a newer OpenMM (8's
    CustomNonbondedForce, for one, is a version 7.7 rejects) says who wrote it and what to do."""
    m = re.search(r'<System\b[^>]*\bopenmmVersion="([^"]+)"', text[:4096])
    if m and version_tuple(m.group(1)) > version_tuple(mine):
        return (f"{path}: written by OpenMM {m.group(1)} (its openmmVersion), which this Python's "
                f"OpenMM {mine} ({sys.executable}) cannot read ({error}). Run a Trails built "
                f"against OpenMM {m.group(1)} or newer (cmake -DOpenMM_ROOT=PREFIX; `make deps` "
                f"installs OpenMM 8 in .venv/: docs/engines.md, \"OpenMM 7.7 or 8\"), or "
                f"serialize the System again with OpenMM {mine}")
    return f"{path}: not a serialized OpenMM System: {error}"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--conf", required=True)
    p.add_argument("--top")
    p.add_argument("--system-file")
    p.add_argument("--forcefield", action="append", default=[])
    p.add_argument("--include-dir")
    p.add_argument("--temperature", type=float, default=300.0)
    p.add_argument("--dt", type=float, default=0.002)
    p.add_argument("--pressure", type=float, default=1.0)
    p.add_argument("--out", required=True)
    a = p.parse_args()

    import openmm
    from openmm import app, unit

    conf = a.conf
    if not os.path.isfile(conf):
        fail("system.conf_file", f"{conf}: no such file")
    ext = os.path.splitext(conf)[1].lower()
    top_ext = os.path.splitext(a.top)[1].lower() if a.top else None
    if a.top and not os.path.isfile(a.top):
        fail("system.top_file", f"{a.top}: no such file")
    if a.system_file and not os.path.isfile(a.system_file):
        fail("system.system_file", f"{a.system_file}: no such file")

    # --- structure: topology, positions, box ---
    try:
        if ext == ".gro":
            structure = app.GromacsGroFile(conf)
            topology = None
        elif ext == ".pdb":
            structure = app.PDBFile(conf)
            topology = structure.topology
        elif ext in (".crd", ".rst7", ".ncrst", ".inpcrd"):
            structure = app.AmberInpcrdFile(conf)
            topology = None
        else:
            fail("system.conf_file",
                 f"{conf}: unsupported structure format '{ext}' (use .pdb, .gro, .inpcrd/.rst7/.crd)")
    except InputProblem:
        raise
    except Exception as e:  # parser errors
        fail("system.conf_file", f"{conf}: cannot read: {e}")
    positions = structure.getPositions(asNumpy=False)
    box = structure.getPeriodicBoxVectors() if hasattr(structure, "getPeriodicBoxVectors") else None
    if box is None and topology is not None:
        box = topology.getPeriodicBoxVectors()

    periodic = box is not None
    params = dict(constraints=app.HBonds, rigidWater=True, hydrogenMass=1.5 * unit.amu)
    if periodic:
        params.update(nonbondedMethod=app.PME, nonbondedCutoff=1.0 * unit.nanometer,
                      ewaldErrorTolerance=5e-4)
    else:
        params.update(nonbondedMethod=app.NoCutoff)

    integrator = None
    source = None
    sysf = a.system_file
    if sysf and sysf.lower().endswith(".xml"):
        with open(sysf) as f:
            text = f.read()
        try:
            system = openmm.XmlSerializer.deserialize(text)
        except Exception as e:
            fail("system.system_file", unreadable_xml(sysf, text, e, openmm.__version__))
        if not isinstance(system, openmm.System):
            fail("system.system_file", f"{sysf}: holds a {type(system).__name__}, not a System")
        if topology is None and a.top:
            topology = load_topology(app, a, box)[0]
        source = "system_xml"
    elif a.top:
        topology, maker = load_topology(app, a, box)
        if maker is None and box is None and topology.getPeriodicBoxVectors() is not None:
            box = topology.getPeriodicBoxVectors()  # the PDB topology's CRYST1
            periodic = True
            params.update(nonbondedMethod=app.PME, nonbondedCutoff=1.0 * unit.nanometer,
                          ewaldErrorTolerance=5e-4)
        if sysf:
            system, integrator = custom_system(sysf, topology, a, unit)
            source = "make_system"
        elif maker is None:  # a PDB as topology: parameters from system.forcefield
            if not a.forcefield:
                fail("system.top_file",
                     f"{a.top} is a PDB topology without a force field; set system.system_file "
                     "(make_system module or System XML) or system.forcefield")
            system = forcefield_system(app, a, topology, params)
            source = "forcefield"
        else:
            try:
                system = maker(**params)
            except Exception as e:
                fail("system.top_file", f"{a.top}: createSystem failed: {e}")
            source = top_ext.lstrip(".")
    elif topology is None and sysf and simulation_of(sysf) is not None:
        topology = simulation_of(sysf).topology  # e.g. a .gro start and PathGennie's system.py
        system, integrator = custom_system(sysf, topology, a, unit)
        source = "simulation"
    elif topology is None:
        fail("system.top_file",
             f"{conf} holds no topology; set system.top_file (.top or .prmtop/.parm7)")
    elif sysf:
        system, integrator = custom_system(sysf, topology, a, unit)
        source = "make_system"
    elif a.forcefield:
        system = forcefield_system(app, a, topology, params)
        source = "forcefield"
    else:
        fail("system.top_file",
             f"{conf} is a PDB without parameters; set system.top_file (.prmtop/.parm7), "
             "system.system_file (System XML or make_system module) or system.forcefield")

    n = system.getNumParticles()
    if n != len(positions):
        fail("system.conf_file",
             f"{conf} has {len(positions)} atoms but the System has {n} particles")
    if box is None and system.usesPeriodicBoundaryConditions():
        box = system.getDefaultPeriodicBoxVectors()
        periodic = True

    out = a.out
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "system.xml"), "w") as f:
        f.write(openmm.XmlSerializer.serialize(system))
    if integrator is not None:
        with open(os.path.join(out, "integrator.xml"), "w") as f:
            f.write(openmm.XmlSerializer.serialize(integrator))
    if topology is not None:
        if box is not None:
            topology.setPeriodicBoxVectors(box)
        with open(os.path.join(out, "topology.pdb"), "w") as f:
            app.PDBFile.writeFile(topology, positions, f, keepIds=True)
    xyz = [c for v in positions for c in v.value_in_unit(unit.nanometer)]
    box_nm = None
    if box is not None:
        box_nm = [c for v in box for c in v.value_in_unit(unit.nanometer)]
    info = {
        "format": "trails-openmm-prepared", "version": 1,
        "openmm_version": openmm.__version__,
        "n_atoms": n, "periodic": periodic, "source": source,
        "forcefield": a.forcefield if source == "forcefield" else [],
        "inputs": {"conf_file": conf, "top_file": a.top, "system_file": sysf},
        "has_topology": topology is not None,
        "has_integrator": integrator is not None,
        "positions": xyz, "box": box_nm,
    }
    with open(os.path.join(out, "prepare.json"), "w") as f:
        json.dump(info, f)


def forcefield_system(app, a, topology, params):
    try:
        ff = app.ForceField(*a.forcefield)
    except Exception as e:
        fail("system.forcefield", f"cannot load force field {a.forcefield}: {e}")
    try:
        return ff.createSystem(topology, **params)
    except Exception as e:
        fail("system.forcefield", f"{a.conf} does not match force field {a.forcefield}: {e}")


# Where Debian's gromacs-data installs the GROMACS force fields (`dpkg -L gromacs-data`).
DEBIAN_GROMACS_TOP = "/usr/share/gromacs/top"


def gromacs_include_dir(a):
    """engine.gromacs_include_dir, else the installed GROMACS force-field folder."""
    if a.include_dir:
        return a.include_dir
    return DEBIAN_GROMACS_TOP if os.path.isdir(DEBIAN_GROMACS_TOP) else None


def missing_include(top, name, include):
    """The message for an #include OpenMM could not find: the including line, the search path."""
    where = top
    for path in [top] + sorted(glob.glob(os.path.join(os.path.dirname(top), "*.itp"))):
        try:
            with open(path, errors="replace") as f:
                for number, line in enumerate(f, 1):
                    stripped = line.strip()
                    if stripped.startswith("#include") and name in stripped:
                        where = f"{path}:{number}: {stripped}"
                        break
                else:
                    continue
                break
        except OSError:
            continue
    searched = [os.path.dirname(os.path.abspath(top))] + ([include] if include else [])
    return (f"{where}: include file {name} not found (searched {', '.join(searched)}); set "
            "engine.gromacs_include_dir to the GROMACS force-field folder that holds it "
            "(share/gromacs/top of a GROMACS installation; Debian: install gromacs-data)")


def load_topology(app, a, box):
    top_ext = os.path.splitext(a.top)[1].lower()
    include = None
    try:
        if top_ext == ".top":
            include = gromacs_include_dir(a)
            kwargs = {"includeDir": include or os.path.dirname(os.path.abspath(a.top))}
            if box is not None:
                kwargs["periodicBoxVectors"] = box
            top = app.GromacsTopFile(a.top, **kwargs)
            return top.topology, top.createSystem
        if top_ext in (".prmtop", ".parm7"):
            top = app.AmberPrmtopFile(a.top)
            return top.topology, top.createSystem
        if top_ext in (".pdb", ".ent"):  # PDB as topology (Trails-MD: needs a system_file)
            return app.PDBFile(a.top).topology, None
    except Exception as e:
        text = str(e)
        marker = "Could not locate #include file: "
        if top_ext == ".top" and text.startswith(marker):
            fail("engine.gromacs_include_dir", missing_include(a.top, text[len(marker):], include))
        fail("system.top_file", f"{a.top}: cannot read: {e}")
    fail("system.top_file",
         f"{a.top}: unsupported topology format '{top_ext}' (use .top, .prmtop, .parm7, or a .pdb "
         "with system.system_file)")


_user_modules = {}


def user_module(path):
    """The system_file module, imported once, in its own directory (PathGennie's system.py opens
    its input files by relative names and may import its neighbours)."""
    if path in _user_modules:
        return _user_modules[path]
    if not path.endswith(".py"):
        fail("system.system_file", f"{path}: expected a System XML (.xml) or a Python module (.py)")
    from pathgennie_system import import_in_folder
    try:
        module = import_in_folder(path)
    except ValueError as e:
        fail("system.system_file", str(e))
    _user_modules[path] = module
    return module


_simulations = {}


def simulation_of(path):
    """PathGennie's system.py: `simulation`, or `Simulation_obj().simulation`, an
    openmm.app.Simulation (share/trails/pathgennie_system.py; docs/swarm.md, "PathGennie's
    system.py"); None for a make_system module. Built once."""
    if path in _simulations:
        return _simulations[path]
    module = user_module(path)
    sim = None
    if not hasattr(module, "make_system"):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from pathgennie_system import pathgennie_simulation
        try:
            sim = pathgennie_simulation(module, path, os.path.dirname(os.path.abspath(path)))
        except ValueError as e:
            fail("system.system_file", str(e))
    _simulations[path] = sim
    return sim


def custom_system(path, topology, a, unit):
    import openmm
    sim = simulation_of(path)
    if sim is not None:  # its System and integrator: time step and thermostat must agree
        integrator = sim.integrator
        dt = integrator.getStepSize().value_in_unit(unit.picosecond)
        if abs(dt - a.dt) > 1e-12:
            fail("system.system_file",
                 f"{path}: the Simulation's integrator steps {dt} ps but engine.dt is {a.dt} ps; "
                 f"set engine.dt: {dt} (path times are counted in it)")
        if hasattr(integrator, "getTemperature"):
            t = integrator.getTemperature().value_in_unit(unit.kelvin)
            if abs(t - a.temperature) > 1e-9:
                fail("system.system_file",
                     f"{path}: the Simulation's thermostat is at {t} K but engine.temperature is "
                     f"{a.temperature} K; set engine.temperature: {t} (pathgennie.temperature "
                     "beside it sets the trials' velocity draws only)")
        return sim.system, integrator
    module = user_module(path)
    if not hasattr(module, "make_system"):
        fail("system.system_file",
             f"{path}: defines no make_system(topology, ...), simulation (an "
             "openmm.app.Simulation) nor PathGennie's class Simulation_obj")
    offered = {"temp": a.temperature, "dt": a.dt, "pressure": a.pressure}
    sig = inspect.signature(module.make_system)
    accepts_all = any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values())
    kwargs = {k: v for k, v in offered.items() if accepts_all or k in sig.parameters}
    try:
        made = module.make_system(topology, **kwargs)
    except Exception as e:
        fail("system.system_file", f"{path}: make_system failed: {e}")
    system, integrator = (made if isinstance(made, tuple) else (made, None))
    if not isinstance(system, openmm.System):
        fail("system.system_file", f"{path}: make_system returned {type(system).__name__}, not a System")
    return system, integrator


if __name__ == "__main__":
    try:
        main()
    except InputProblem as e:
        print(f"{e.key}: {e}", file=sys.stderr)
        sys.exit(2)
