#!/bin/sh
# A command-engine segment program that runs Trails' own built-in engine on the task file
# (`trails integrate`), so a command-engine campaign is bitwise the built-in one on the same
# seeds (tests/scripts/command_engine.sh). TRAILS_BUILTIN_CONFIG names a campaign YAML with
# `engine.md_engine: builtin` (the potential and kT); TRAILS_EXECUTABLE the trails binary.
exec "${TRAILS_EXECUTABLE:-trails}" integrate "$TRAILS_BUILTIN_CONFIG" "$TRAILS_TASK_FILE"
