"""`python -m sim`: the command line (sim.cli)."""
from sim.cli import exit_with, main

exit_with(main())
