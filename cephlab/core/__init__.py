"""The bottom layer: the one subprocess runner, the one poller, /proc readers, errors, the Ceph
command client and small utilities. Nothing here imports from the rest of cephlab."""
