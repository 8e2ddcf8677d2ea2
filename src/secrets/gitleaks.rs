//! Rules in the gitleaks configuration format (TOML `[[rules]]` and `[allowlist]`).
