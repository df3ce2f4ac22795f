"""container/z2jh-values.yaml (a class on Kubernetes with Zero to JupyterHub) is what the chart
accepts: merged into the chart's defaults as `helm install -f` does, it validates against the
chart's own schema (tests/fixtures/z2jh/, copied from the chart), and it agrees with the image."""
import copy
import json
import re
from pathlib import Path

import jsonschema
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
CHART = ROOT / "tests" / "fixtures" / "z2jh"
VALUES = ROOT / "container" / "z2jh-values.yaml"
CONTAINERFILE = ROOT / "container" / "Containerfile"


def merged(overrides: dict) -> dict:
    """Helm's merge of a -f file into the chart's values.yaml: maps merge key by key, anything
    else (lists, scalars, null) replaces the default."""
    def merge(base, top):
        if isinstance(base, dict) and isinstance(top, dict):
            return {**base, **{k: merge(base.get(k), v) for k, v in top.items()}}
        return copy.deepcopy(top)
    return merge(yaml.safe_load((CHART / "values.yaml").read_text()), overrides)


def problems(values: dict) -> list[str]:
    schema = json.loads((CHART / "values.schema.json").read_text())
    validator = jsonschema.Draft7Validator(schema)
    return [f"{'.'.join(map(str, e.path))}: {e.message}" for e in validator.iter_errors(values)]


def ours() -> dict:
    return yaml.safe_load(VALUES.read_text())


def test_the_values_pass_the_charts_schema():
    assert problems(merged(ours())) == []


@pytest.mark.parametrize("path, value", [
    (("singleuser", "memroy"), {"limit": "4G"}),             # a typo the chart would not read
    (("singleuser", "cpu", "limit"), "two"),                # not a number
    (("singleuser", "storage", "type"), "nfs"),             # not one of the chart's storage types
    (("cull", "timeout"), "1h"),
])
def test_the_schema_rejects_a_plausible_mistake(path, value):
    broken = ours()
    node = broken
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = value
    assert problems(merged(broken)), f"{'.'.join(path)} = {value!r} passed the chart's schema"


def test_the_values_agree_with_the_image():
    image = CONTAINERFILE.read_text()
    single = ours()["singleuser"]
    uid = re.search(r"useradd .*--uid (\d+)", image).group(1)
    assert single["uid"] == int(uid) == single["fsGid"]
    assert f"VOLUME {single['storage']['homeMountPath']}" in image
    assert single["cmd"] == ["jupyterhub-singleuser"] and "jupyterhub==" in image
    hub = re.search(r"JUPYTERHUB_VERSION=(\d+)\.", image).group(1)
    chart = re.search(r"JupyterHub (\d+)\.", (CHART / "README.md").read_text()).group(1)
    assert hub == chart, "jupyterhub-singleuser's major version must be the chart's hub's"
