"""The cephadm container backend: cephadm hosts as privileged systemd containers (vagrant/containers/)."""
