# What the external engines (gromacs, amber, command) share: walker directories, the segment
# program, the frames it wrote, read with trajio (TRR/XTC/DCD).
trails_engine(external DEPS trails_trajio PRIVATE spdlog::spdlog)
