"""`python -m lighthouse.fuzz --worker-fd N`: a fuzzing worker (the driver
starts it); otherwise the command line (`lh-fuzz`)."""

import sys

if sys.argv[1:2] == ["--worker-fd"]:
    from .worker import worker_main

    worker_main(int(sys.argv[2]))
else:
    from .cli import main

    sys.exit(main())
