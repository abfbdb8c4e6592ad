"""The session layer: engine and validation assembled once, for both front ends (cli, tui).

Bottom up: engine -> validate -> session -> cli | tui (the contracts in pyproject.toml)."""
