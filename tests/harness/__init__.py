"""The shared test harness: cassette replay, golden files, request validity, provider kits.

Every adapter's cassette and golden tests use the same pieces, in the same way:

- :mod:`tests.scenarios` -- the provider-neutral conversations;
- :mod:`tests.harness.kit` -- what a provider adds (endpoint, clients, echo state, options);
  one module per provider under :mod:`tests.harness.providers`;
- :mod:`tests.harness.replay` -- vcrpy, replay only, matching requests on their JSON body and
  never recording a credential;
- :mod:`tests.harness.cassettes` -- cassettes written from a golden request and a hand-written
  response (``tests/harness/responses/<provider>/``);
- :mod:`tests.harness.golden` -- golden files and ``--update-golden``;
- :mod:`tests.harness.validity` -- requests checked against the SDK's own request types;
- :mod:`tests.harness.compare` -- the neutral and the comparable view of an answer.
"""
