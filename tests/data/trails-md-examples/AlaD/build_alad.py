#!/usr/bin/python3
"""Builds the AlaD example's GROMACS inputs (start.gro, topol.top) once; the outputs are committed.

Alanine dipeptide (ACE-ALA-NME, ../alanine_dipeptide/structure.pdb) in a cubic box of TIP3P water,
with the Amber99SB force field as Debian's gromacs-data installs it (/usr/share/gromacs/top). The
topology is written the way pdb2gmx writes one: atoms, charges and bonds from amber99sb.ff's
aminoacids.rtp, every angle and proper dihedral of the bond graph (parameters come from the force
field's bonded types when the file is read), the 1-4 pairs, the residues' impropers, and
`#include`s of amber99sb.ff/forcefield.itp and amber99sb.ff/tip3p.itp, which a reader resolves
through its include directory (engine.gromacs_include_dir). Water is placed on a lattice around
the peptide, then the whole system is energy-minimised and relaxed for 2 ps at 300 K with OpenMM
(CPU platform, one thread, fixed seed) so the walkers start from a sensible structure.

Usage: /usr/bin/python3 build_alad.py   (run in this directory; needs python3-openmm, gromacs-data)
"""
import itertools
import math
import os

import openmm
from openmm import app, unit

FF = "/usr/share/gromacs/top"
HERE = os.path.dirname(os.path.abspath(__file__))
PEPTIDE = os.path.join(HERE, "..", "alanine_dipeptide", "structure.pdb")
BOX_NM = 2.3        # above twice the 1.0 nm PME cutoff, also after NPT shrinks it a little
SPACING_NM = 0.31   # lattice spacing: liquid water's number density
CLEARANCE_NM = 0.25  # no water oxygen closer than this to a peptide atom


def read_rtp(names):
    """[atoms], [bonds], [impropers] of the residues `names` from amber99sb.ff/aminoacids.rtp."""
    residues, current, section = {}, None, None
    with open(os.path.join(FF, "amber99sb.ff", "aminoacids.rtp")) as f:
        for line in f:
            text = line.split(";")[0].strip()
            if not text:
                continue
            if text.startswith("[") and not line.startswith(" "):
                name = text.strip("[] ")
                current = residues.setdefault(name, {"atoms": [], "bonds": [], "impropers": []}) \
                    if name in names else None
                continue
            if text.startswith("["):
                section = text.strip("[] ")
                continue
            if current is not None and section in current:
                current[section].append(text.split())
    return residues


def masses():
    out = {}
    with open(os.path.join(FF, "amber99sb.ff", "ffnonbonded.itp")) as f:
        for line in f:
            fields = line.split(";")[0].split()
            if len(fields) == 7 and fields[0] != "[":
                out[fields[0]] = float(fields[2])
    return out


def read_peptide():
    """(residue index, residue name, atom name, position nm) per atom, names as written (OpenMM's
    PDB reader would rename the caps' hydrogens)."""
    out, residues = [], []
    with open(PEPTIDE) as f:
        for line in f:
            if line.startswith(("ATOM", "HETATM")):
                key = (line[21], line[22:27])
                if key not in residues:
                    residues.append(key)
                xyz = [float(line[c:c + 8]) / 10 for c in (30, 38, 46)]
                out.append((residues.index(key), line[17:20].strip(), line[12:16].strip(), xyz))
    return out


def peptide_topology():
    peptide = read_peptide()
    rtp = read_rtp({"ACE", "ALA", "NME"})
    mass = masses()
    atoms, index = [], {}
    for resindex, resname, name, _ in peptide:
        row = next(a for a in rtp[resname]["atoms"] if a[0] == name)
        index[(resindex, name)] = len(atoms)
        atoms.append((row[1], resindex + 1, resname, name, float(row[2])))
    residue_list = sorted({(r, n) for r, n, _, _ in peptide})

    def resolve(resindex, name):
        if name.startswith("-"):
            return index.get((resindex - 1, name[1:]))
        if name.startswith("+"):
            return index.get((resindex + 1, name[1:]))
        return index.get((resindex, name))

    bonds, impropers = set(), []
    for resindex, resname in residue_list:
        entry = rtp[resname]
        for a, b in entry["bonds"]:
            i, j = resolve(resindex, a), resolve(resindex, b)
            if i is not None and j is not None:
                bonds.add((min(i, j), max(i, j)))
        for quad in entry["impropers"]:
            ids = [resolve(resindex, n) for n in quad[:4]]
            if None not in ids:
                impropers.append(ids)
    neighbours = {i: set() for i in range(len(atoms))}
    for i, j in bonds:
        neighbours[i].add(j)
        neighbours[j].add(i)
    angles = sorted({(min(i, k), j, max(i, k)) for j in neighbours
                     for i, k in itertools.combinations(sorted(neighbours[j]), 2)})
    dihedrals = []
    for j, k in sorted(bonds):
        for i in sorted(neighbours[j] - {k}):
            for l in sorted(neighbours[k] - {j}):
                if i != l:
                    dihedrals.append((i, j, k, l))
    close = set(bonds) | {(a, c) for a, _, c in angles}
    pairs = sorted({(min(i, l), max(i, l)) for i, _, _, l in dihedrals} - close)
    return peptide, atoms, mass, sorted(bonds), pairs, angles, dihedrals, impropers


def write_top(path, atoms, mass, bonds, pairs, angles, dihedrals, impropers, n_water):
    one = lambda ids: " ".join(f"{i + 1:5d}" for i in ids)
    with open(path, "w") as f:
        f.write("; Alanine dipeptide in TIP3P water, Amber99SB (written by build_alad.py)\n")
        f.write('#include "amber99sb.ff/forcefield.itp"\n\n')
        f.write("[ moleculetype ]\n; name  nrexcl\nProtein 3\n\n[ atoms ]\n")
        f.write(";   nr type  resnr residue atom  cgnr   charge     mass\n")
        for n, (typ, resnr, resname, name, charge) in enumerate(atoms, 1):
            f.write(f"{n:6d} {typ:4s} {resnr:6d} {resname:5s} {name:5s} {n:5d} {charge:9.5f} "
                    f"{mass[typ]:8.3f}\n")
        for title, rows, func in (("bonds", bonds, 1), ("pairs", pairs, 1), ("angles", angles, 1),
                                  ("dihedrals", dihedrals, 9), ("dihedrals", impropers, 4)):
            f.write(f"\n[ {title} ]\n")
            for ids in rows:
                f.write(f"{one(ids)} {func:5d}\n")
        f.write('\n#include "amber99sb.ff/tip3p.itp"\n\n')
        f.write("[ system ]\nAlanine dipeptide in water\n\n[ molecules ]\n")
        f.write(f"Protein 1\nSOL {n_water}\n")


def water_sites(peptide_nm):
    """Oxygen positions on a lattice filling the box, clear of the (centred) peptide."""
    n = int(BOX_NM / SPACING_NM)
    step = BOX_NM / n
    sites = []
    for x, y, z in itertools.product(range(n), repeat=3):
        o = ((x + 0.5) * step, (y + 0.5) * step, (z + 0.5) * step)
        if all(math.dist(o, p) >= CLEARANCE_NM for p in peptide_nm):
            sites.append(o)
    return sites


def main():
    peptide_atoms, atoms, mass, bonds, pairs, angles, dihedrals, impropers = peptide_topology()
    xyz = [a[3] for a in peptide_atoms]
    centre = [sum(c) / len(xyz) for c in zip(*xyz)]
    peptide = [tuple(p[i] - centre[i] + BOX_NM / 2 for i in range(3)) for p in xyz]
    sites = water_sites(peptide)
    # TIP3P geometry: O-H 0.09572 nm, H-O-H 104.52 degrees; one orientation for every molecule.
    half = math.radians(104.52) / 2
    h1 = (0.09572 * math.sin(half), 0.09572 * math.cos(half), 0.0)
    h2 = (-h1[0], h1[1], 0.0)
    positions = list(peptide)
    for o in sites:
        positions += [o, tuple(o[i] + h1[i] for i in range(3)), tuple(o[i] + h2[i] for i in range(3))]
    write_top(os.path.join(HERE, "topol.top"), atoms, mass, bonds, pairs, angles, dihedrals,
              impropers, len(sites))

    box = openmm.Vec3(BOX_NM, 0, 0), openmm.Vec3(0, BOX_NM, 0), openmm.Vec3(0, 0, BOX_NM)
    top = app.GromacsTopFile(os.path.join(HERE, "topol.top"), periodicBoxVectors=box, includeDir=FF)
    system = top.createSystem(nonbondedMethod=app.PME, nonbondedCutoff=1.0 * unit.nanometer,
                              constraints=app.HBonds, rigidWater=True)
    integrator = openmm.LangevinMiddleIntegrator(300 * unit.kelvin, 1 / unit.picosecond,
                                                 0.001 * unit.picoseconds)
    integrator.setRandomNumberSeed(2024)
    sim = app.Simulation(top.topology, system, integrator,
                         openmm.Platform.getPlatformByName("CPU"), {"Threads": "1"})
    sim.context.setPositions([openmm.Vec3(*p) for p in positions] * unit.nanometer)
    sim.minimizeEnergy()
    sim.context.setVelocitiesToTemperature(300 * unit.kelvin, 2024)
    sim.step(2000)
    state = sim.context.getState(getPositions=True)
    # The names of topol.top (OpenMM's topology renames water and cap atoms).
    names = [(resnr, resname, name) for _, resnr, resname, name, _ in atoms]
    for w in range(len(sites)):
        names += [(atoms[-1][1] + 1 + w, "SOL", n) for n in ("OW", "HW1", "HW2")]
    with open(os.path.join(HERE, "start.gro"), "w") as f:
        f.write("Alanine dipeptide in TIP3P water (build_alad.py)\n")
        f.write(f"{len(names)}\n")
        for n, ((resnr, resname, name), p) in enumerate(zip(names, state.getPositions()), 1):
            x, y, z = p.value_in_unit(unit.nanometer)
            f.write(f"{resnr % 100000:5d}{resname:<5s}{name:>5s}{n % 100000:5d}"
                    f"{x:8.3f}{y:8.3f}{z:8.3f}\n")
        f.write(f"{BOX_NM:10.5f}{BOX_NM:10.5f}{BOX_NM:10.5f}\n")
    print(f"wrote topol.top and start.gro: 22 peptide atoms + {len(sites)} waters")


if __name__ == "__main__":
    main()
