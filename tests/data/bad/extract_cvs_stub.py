"""A project file for the bad-config corpus: it must exist for the configs to load."""


def extract_cvs(trajectories, top_file, conf_file):
    raise NotImplementedError("never called: these configs are rejected when loaded")
