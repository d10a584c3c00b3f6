#!/usr/bin/python3
"""A stand-in for pmemd in tests (pmemd/sander are not in Debian): parses the command line
Trails gives (-O -i -o -p -c -r -x -inf), reads nstlim/ntwx/ioutfm from the mdin and the start
restart, and writes nstlim // ntwx frames (the start shifted by 0.01 Å per frame, in Amber's
trajectory conventions) and the end restart with the start's velocities. FAKE_PMEMD_FAIL=1
makes it fail as pmemd does: a message in mdout and exit status 1."""
import os
import re
import sys

import numpy as np
from netCDF4 import Dataset

args = dict(zip(sys.argv[1::2], sys.argv[2::2])) if sys.argv[1] != "-O" else \
    dict(zip(sys.argv[2::2], sys.argv[3::2]))
mdin = open(args["-i"]).read()
with open(args["-o"], "w") as mdout:
    mdout.write("fake pmemd\n" + mdin)
    if os.environ.get("FAKE_PMEMD_FAIL"):
        mdout.write("vlimit exceeded for step 7; vmax = 513.2\n")
        sys.exit(1)
value = lambda name: re.search(name + r"\s*=\s*([^,\s/]+)", mdin).group(1)
steps, stride, netcdf = int(value("nstlim")), int(value("ntwx")), value("ioutfm") == "1"
start = Dataset(args["-c"])
x = np.array(start["coordinates"][:], dtype=float)
v = np.array(start["velocities"][:], dtype=float) if "velocities" in start.variables else None
box = "cell_lengths" in start.variables
n = steps // stride
frames = [x + 0.01 * (k + 1) for k in range(n)]
if netcdf:
    t = Dataset(args["-x"], "w", format="NETCDF3_64BIT_OFFSET")
    t.Conventions, t.ConventionVersion = "AMBER", "1.0"
    t.createDimension("frame", None)
    t.createDimension("spatial", 3)
    t.createDimension("atom", x.shape[0])
    c = t.createVariable("coordinates", "f4", ("frame", "atom", "spatial"))
    c[:] = np.array(frames)
    if box:
        t.createDimension("cell_spatial", 3)
        t.createDimension("cell_angular", 3)
        t.createVariable("cell_lengths", "f8", ("frame", "cell_spatial"))[:] = \
            np.array([start["cell_lengths"][:]] * n)
        t.createVariable("cell_angles", "f8", ("frame", "cell_angular"))[:] = \
            np.array([start["cell_angles"][:]] * n)
    t.close()
else:
    with open(args["-x"], "w") as out:
        out.write("fake pmemd trajectory\n")
        for f in frames:
            vals = f.reshape(-1)
            for i in range(0, len(vals), 10):
                out.write("".join("%8.3f" % a for a in vals[i:i + 10]) + "\n")
            if box:
                out.write("".join("%8.3f" % a for a in start["cell_lengths"][:]) + "\n")
end = Dataset(args["-r"], "w", format="NETCDF3_64BIT_OFFSET")
end.Conventions = "AMBERRESTART"
end.createDimension("spatial", 3)
end.createDimension("atom", x.shape[0])
end.createVariable("coordinates", "f8", ("atom", "spatial"))[:] = frames[-1]
if v is not None:
    vel = end.createVariable("velocities", "f8", ("atom", "spatial"))
    vel.scale_factor = 20.455
    vel[:] = v  # netCDF4 packs it: stored = v / scale_factor
end.close()
