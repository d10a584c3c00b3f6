# The Amber engine's room (docs/engines.md, "The Amber engine"): pmemd or sander per walker
# through the external rooms' walker directories; NetCDF (Debian libnetcdf-dev) for its
# trajectories and restarts, PRIVATE. The NETCDF target is also linked by the tests that write
# NetCDF files themselves.
pkg_check_modules(NETCDF REQUIRED IMPORTED_TARGET netcdf)
trails_engine(amber DEPS trails_engine_external PRIVATE PkgConfig::NETCDF)
