"""book/ceph_facts.py: every option default book/ceph-facts.md states is read from its "defaults in"
lists, none is written another way, and each holds on the host's Ceph release (`ceph-conf -D`).

The parser tests are pure (make check). The host's release is an oracle test: `make check` leaves
it out, `make test` runs it after its set-up has installed ceph-common, also in CI after a passing
`make check` (tests/conftest.py keeps oracle tests). The other releases' defaults are checked in
their images by tests/cephadm_releases/test_option_defaults.py, after tests/cephadm_releases'
clusters have built them.
"""
import shutil

import pytest

from book import ceph_facts

TEXT = ceph_facts.FACTS.read_text(encoding="utf-8")
STATED = ceph_facts.defaults(TEXT)
# What book/ceph-facts.md states today (issue 46): a parser that reads fewer has lost some.
AT_LEAST = 76
AT_LEAST_PER_RELEASE = {"P": 65, "R": 58, "T": 65}

SAMPLE = "\n".join([
    "Prose is not read: defaults in P R T: `not_a_fact` = 1.",
    "",
    "| cell | claim | verdict | holds for | source |",
    "|---|---|---|---|---|",
    "| 5 | size 3, `osd_pool_default_size` 3 | correct | P R T | docs/P; defaults in P R T: "
    "`osd_pool_default_size` = 3, `osd_pool_default_min_size` = 0 (= size − size/2) |",
    "| 4 | blobs of 64 KiB | correct | P R T | defaults in P: `bluestore_max_blob_size_hdd` = 64 KiB and "
    "`osd_op_queue` = wpq; defaults in R T: `osd_op_queue` = mclock_scheduler; more text |",
    "| 4 | a Tentacle sleep | added | T | PR 62400; defaults in T: `osd_recovery_sleep_degraded_hdd` = 0.1 s |",
    ""])
# what a release prints for the options of SAMPLE (`ceph-conf -D` lines)
DUMP = ceph_facts.parse_dump("""\
name = client.admin
osd_pool_default_size = 3
osd_pool_default_min_size = 0
bluestore_max_blob_size_hdd = 65536
osd_op_queue = wpq
osd_recovery_sleep_degraded_hdd = 0.100000
admin_socket_mode = \n""")


def test_the_facts_state_every_default_they_did():
    assert len(STATED) >= AT_LEAST, f"{len(STATED)} defaults read from book/ceph-facts.md, {AT_LEAST} expected"
    for letter, n in AT_LEAST_PER_RELEASE.items():
        claimed = [d for d in STATED if letter in d.releases]
        assert len(claimed) >= n, f"{len(claimed)} defaults claimed for {ceph_facts.NAMES[letter]}, {n} expected"


def test_every_default_is_written_in_a_defaults_list():
    loose = ceph_facts.loose_assignments(TEXT)
    assert not loose, ("book/ceph-facts.md writes `option` = value outside a \"defaults in P R T:\" list, "
                       f"where no test reads it: {loose}")


def test_every_default_a_row_quotes_is_in_its_list():
    unlisted = ceph_facts.unlisted_mentions(TEXT)
    assert not unlisted, ("rows of book/ceph-facts.md quote a default of an option that their \"defaults in\" "
                          f"list lacks, so no test checks it (line, option, value): {unlisted}")


def test_no_fact_states_two_values_for_one_option_and_release():
    seen: dict[tuple[str, str], ceph_facts.Default] = {}
    for d in STATED:
        for letter in d.releases:
            first = seen.setdefault((d.option, letter), d)
            assert ceph_facts.same(first.stated, d.stated), f"{first.where()} and {d.where()} for {letter}"


def test_the_parser_reads_lists_remarks_and_releases():
    got = [(d.line, d.option, d.stated, d.releases, d.remark) for d in ceph_facts.defaults(SAMPLE)]
    assert got == [
        (5, "osd_pool_default_size", "3", ("P", "R", "T"), ""),
        (5, "osd_pool_default_min_size", "0", ("P", "R", "T"), "= size − size/2"),
        (6, "bluestore_max_blob_size_hdd", "64 KiB", ("P",), ""),
        (6, "osd_op_queue", "wpq", ("P",), ""),
        (6, "osd_op_queue", "mclock_scheduler", ("R", "T"), ""),
        (7, "osd_recovery_sleep_degraded_hdd", "0.1 s", ("T",), ""),
    ]
    assert ceph_facts.loose_assignments(SAMPLE) == []
    assert ceph_facts.unlisted_mentions(SAMPLE) == []


@pytest.mark.parametrize("row, problem", [
    ("| 4 | x | y | P | defaults in P R Q: `a_b` = 1 |", "names releases"),
    ("| 4 | x | y | P | defaults in P P: `a_b` = 1 |", "names releases"),
    ("| 4 | x | y | P | defaults in P: a_b = 1 |", "is not followed by"),
    ("| 4 | x | y | P | defaults in P: `a_b` 1 |", "is not followed by"),
])
def test_a_malformed_list_is_an_error(row, problem):
    with pytest.raises(ceph_facts.FormatError, match=problem):
        ceph_facts.defaults(row)


def test_a_default_outside_a_list_is_found():
    text = ("| 4 | `osd_heartbeat_grace` 20 s, `ms_async_op_threads` default 3 | ok | P | defaults in P: "
            "`osd_heartbeat_grace` = 20 s `mon_osd_down_out_interval` = 600 s; `min_size` = 2 |")
    assert ceph_facts.loose_assignments(text) == [(1, "`mon_osd_down_out_interval` = ")]
    assert ceph_facts.unlisted_mentions(text) == [(1, "ms_async_op_threads", "3")]


@pytest.mark.parametrize("written, expected", [
    ("64 KiB", 65536), ("24 MiB", 25165824), ("128 MiB", 134217728), ("1 GiB", 2 ** 30), ("0.1 s", 0.1),
    ("600 s", 600), ("0.90", 0.9), ("0.850000", 0.85), ("-1", -1), ("true", "true"), ("async+posix", "async+posix"),
])
def test_values_convert_their_units(written, expected):
    if isinstance(expected, str):
        assert ceph_facts.value(written) == expected
    else:
        assert ceph_facts.value(written) == pytest.approx(expected)


def test_the_sample_holds_where_it_is_claimed():
    stated = ceph_facts.defaults(SAMPLE)
    assert ceph_facts.mismatches(stated, "P", DUMP) == []
    # Reef's osd_op_queue is mclock_scheduler: against Pacific's dump the R T item fails, the P one not
    assert ceph_facts.mismatches(stated, "R", DUMP) == [
        "book/ceph-facts.md line 6: `osd_op_queue` = mclock_scheduler is claimed for Reef 18.2, whose default is wpq"]


def test_a_wrong_default_fails_the_comparison():
    """The negative control: wrong numbers, a wrong unit, a wrong word and a missing option each
    give a message with the line, the option, the stated and the actual value."""
    wrong = ("| 4 | x | y | P | defaults in P: `osd_pool_default_size` = 4, `bluestore_max_blob_size_hdd` = 64 MiB, "
             "`osd_op_queue` = mclock_scheduler, `osd_no_such_option` = 1, `osd_pool_default_min_size` = 0 |\n"
             "| 4 | x | y | T | defaults in T: `osd_recovery_sleep_degraded_hdd` = 0.2 s |")
    got = ceph_facts.mismatches(ceph_facts.defaults(wrong), "P", DUMP, source="sample")
    assert got == [
        "sample line 1: `osd_pool_default_size` = 4 is claimed for Pacific 16.2, whose default is 3",
        "sample line 1: `bluestore_max_blob_size_hdd` = 64 MiB is claimed for Pacific 16.2, whose default is 65536",
        "sample line 1: `osd_op_queue` = mclock_scheduler is claimed for Pacific 16.2, whose default is wpq",
        "sample line 1: `osd_no_such_option` = 1 is claimed for Pacific 16.2, which has no option `osd_no_such_option`",
    ]
    assert ceph_facts.mismatches(ceph_facts.defaults(wrong), "T", DUMP, source="sample") == [
        "sample line 2: `osd_recovery_sleep_degraded_hdd` = 0.2 s is claimed for Tentacle 20.2, whose default is "
        "0.100000"]


def test_release_of_a_version_line():
    assert ceph_facts.release_of("ceph version 16.2.15 (618f4408) pacific (stable)") == ("P", "16.2.15")
    assert ceph_facts.release_of("ceph version 20.2.4 (7f79373) tentacle (stable - RelWithDebInfo)") == ("T", "20.2.4")
    assert ceph_facts.release_of("ceph version 17.2.7 (b12291d1) quincy (stable)") == ("", "17.2.7")


@pytest.fixture(scope="module")
def host_release():
    if shutil.which("ceph-conf") is None:
        pytest.skip("ceph-conf is missing: apt-get install ceph-common (make setup installs it)")
    version, actual = ceph_facts.host_defaults()
    letter, _ = ceph_facts.release_of(version)
    if not letter:
        pytest.skip(f"the host runs {version}, a release book/ceph-facts.md does not cover")
    return version, letter, actual


@pytest.mark.oracle
def test_the_hosts_release_has_every_default_the_facts_claim_for_it(host_release):
    version, letter, actual = host_release
    assert len(actual) > 1000, f"ceph-conf -D of {version} printed {len(actual)} options"
    claimed = [d for d in STATED if letter in d.releases]
    assert len(claimed) >= AT_LEAST_PER_RELEASE[letter]
    wrong = ceph_facts.mismatches(STATED, letter, actual)
    assert not wrong, f"{len(wrong)} of {len(claimed)} defaults differ from `ceph-conf -D` of {version}:\n" + \
        "\n".join(wrong)


@pytest.mark.oracle
def test_a_wrong_default_fails_against_the_hosts_ceph_conf(host_release):
    version, letter, actual = host_release
    wrong = f"| 4 | x | y | {letter} | defaults in {letter}: `osd_pool_default_size` = 4, `ms_type` = simple |"
    got = ceph_facts.mismatches(ceph_facts.defaults(wrong), letter, actual)
    assert [m.split(": ", 1)[1].split(" is claimed")[0] for m in got] == ["`osd_pool_default_size` = 4",
                                                                           "`ms_type` = simple"], got
