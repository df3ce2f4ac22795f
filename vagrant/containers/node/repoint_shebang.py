"""Point a Python zipapp's #! line at /usr/bin/python3, keeping the line's length.

    python3 repoint_shebang.py /usr/sbin/cephadm

sid's cephadm package names sid's interpreter (#!/usr/bin/python3.14), which the trixie node
image of Tentacle's nodes lacks; the zipapp runs under trixie's python3. The new line is padded
with spaces to the old one's length (the kernel drops trailing blanks), so the zip archive after
it stays at the same offsets.
"""
import sys

NEW = b"#!/usr/bin/python3"

path = sys.argv[1]
data = open(path, "rb").read()
end = data.index(b"\n")
if not data.startswith(NEW) or end < len(NEW):
    sys.exit(f"{path}: not a python3 #! line: {data[:end]!r}")
with open(path, "wb") as f:
    f.write(NEW.ljust(end) + data[end:])
print(f"{path}: {data[:end].decode()} -> {NEW.decode()}")
