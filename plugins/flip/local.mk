# Plugin `flip` — its module, tests, benchmark and scenes.
# (Filled in by the issue that builds it.)
