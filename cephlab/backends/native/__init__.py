"""The native backend: Ceph's own packages as processes of this user on 127.0.0.1 (no root)."""
