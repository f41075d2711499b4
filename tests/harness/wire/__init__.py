"""Each provider's half of the shared wire laws (``tests/laws/test_wire_laws.py``).

One module per adapter, named like it, holding ``LAWS``: the strategies for the wire shapes only
that API has.
"""
