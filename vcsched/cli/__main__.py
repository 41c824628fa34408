import sys

from vcsched.cli import main

sys.exit(main())
