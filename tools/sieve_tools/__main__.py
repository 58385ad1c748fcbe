"""`python -m sieve_tools ...` is `sieve-export ...`."""
import sys

from sieve_tools.cli import main

sys.exit(main())
