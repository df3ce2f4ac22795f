"""vagrant/provision/services.yml against cephadm's own schema: Debian's python3-ceph-common
(ceph.deployment.service_spec, Ceph 16.2.15) parses and validates each service as
`ceph orch apply -i` would."""
import copy

import pytest
import yaml

from .conftest import VAGRANT_DIR

service_spec = pytest.importorskip(
    "ceph.deployment.service_spec",
    reason="python3-ceph-common is not installed: sudo apt-get install python3-ceph-common")
ServiceSpec = service_spec.ServiceSpec

SERVICES = list(yaml.safe_load_all((VAGRANT_DIR / "provision" / "services.yml").read_text()))


def parsed(doc):
    spec = ServiceSpec.from_json(copy.deepcopy(doc))
    spec.validate()
    return spec


def test_every_service_validates():
    specs = {s.service_name(): s for s in map(parsed, SERVICES)}
    assert sorted(specs) == ["mgr", "mon", "osd.all-extra-disks"]
    assert specs["mon"].placement.count == 3          # a majority survives one of 3 hosts
    assert specs["mgr"].placement.count == 2


def test_osds_on_every_empty_disk_of_every_host():
    osd = parsed(next(d for d in SERVICES if d["service_type"] == "osd"))
    assert type(osd).__name__ == "DriveGroupSpec"
    assert osd.placement.host_pattern == "*"
    assert osd.data_devices.all is True
    assert osd.objectstore == "bluestore"


@pytest.mark.parametrize("change, message", [
    ({"spec": {"data_devices": {"all": True, "rotational": 1}}}, "mutually exclusive"),
    ({"spec": {"objectstore": "bluestore"}}, "data_devices"),
    ({"spec": {"data_devices": {"all": True}, "objectstore": "filestorex"}}, "not supported"),
])
def test_schema_rejects_broken_osd_specs(change, message):
    """Negative control: the validator is strict, so the passing checks above mean something."""
    doc = {**next(d for d in SERVICES if d["service_type"] == "osd"), **change}
    with pytest.raises(Exception, match=message):
        parsed(doc)
