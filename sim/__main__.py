"""`python -m sim`: the command line (sim.cli). The cycle collector is off from the start (sim.cli.main says why):
importing the simulator makes tens of thousands of objects, none of them garbage, that its passes would walk."""
import gc

gc.disable()

from sim.cli import exit_with, main  # noqa: E402 (after the collector is off)

exit_with(main())
