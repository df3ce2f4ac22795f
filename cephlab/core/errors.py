"""The exceptions the lab raises; each message says what went wrong and what to do."""


class ClusterError(Exception):
    """A cluster operation failed."""


class ClusterNotRunning(ClusterError):
    """No lab cluster runs under that name/folder."""


class SetupError(ClusterError):
    """The machine cannot run a lab cluster as asked (Ceph missing, port busy, no space...)."""
