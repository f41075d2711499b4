"""The ``partwire`` command: print the example, show, validate and rewrite history files, print the schema.

Every FILE argument takes ``-`` for stdin (and ``rewrite``'s OUT takes ``-`` for stdout). Input
that cannot be used, or a bad command line, ends with one ``partwire: error: FILE[:LINE]: what was
wrong`` line on stderr and exit status 2, never a traceback; ``validate`` and ``show`` exit 1 when
lines have problems. The status survives a reader that closes the pipe early
(``partwire validate FILE | head -1``). Lines and bodies above ``--max-line-bytes`` or nested
deeper than ``--max-depth`` are refused without being read whole or parsed.
"""

from partwire.cli._convert import BRIDGES, FORMATS
from partwire.cli._main import main

__all__ = ["BRIDGES", "FORMATS", "main"]
