"""Pure analytic models of Ceph for the teaching lab.

Every function takes numbers (or numpy arrays, where a slider sweeps them) and returns numbers.
Nothing here plots or talks to a cluster. Each function's docstring gives its formula, units,
source and a provenance label:

- measured: a number someone measured (seed or reference measurement)
- Ceph code, <release>: what Ceph's source computes, for the named release
- docs: Ceph's documentation
- paper: a published paper or vendor study
- course-defined: a simplification this course makes, said as such
- historical: true of a Ceph release that is gone
"""
