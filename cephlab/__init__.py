"""The lab machinery: the mini Ceph cluster, the API notebooks measure with, the `cephlab` CLI.

    from cephlab import Cluster
    c = Cluster.connect()        # the running lab cluster (start one with `cephlab up`)
    c.health()
"""


def __getattr__(name):
    # Imported lazily so `import cephlab` stays cheap for model-only notebooks.
    if name in ("Cluster", "ClusterError", "ClusterFull", "ClusterNotRunning"):
        from cephlab.cluster import api
        return getattr(api, name)
    if name == "CephLabError":              # the root of every error the lab raises
        from cephlab.core import errors
        return errors.CephLabError
    raise AttributeError(name)
