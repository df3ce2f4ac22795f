"""cephlab.core.report: the library logs, the program the user runs chooses where it shows."""
import io
import logging

from cephlab.core import report

log = logging.getLogger("cephlab.helpers.example")


def ours():
    return [h for h in logging.getLogger(report.LOGGER).handlers if isinstance(h, report._Lines)]


def test_a_notebook_sees_info_on_stdout_and_warnings_on_stderr(capsys):
    report.show_messages(None)          # what LabSession / Cluster.connect install first
    log.info("deleted 2 pool(s)/image(s): a, b")
    log.warning("cephlab: could not unmount /x; continuing")
    log.debug("not shown")
    out, err = capsys.readouterr()
    assert (out, err) == ("deleted 2 pool(s)/image(s): a, b\n", "cephlab: could not unmount /x; continuing\n")


def test_the_cli_shows_everything_on_stderr_and_keeps_stdout_for_its_output(capsys):
    report.show_messages("stderr")
    log.info("progress")
    log.warning("a warning")
    assert capsys.readouterr() == ("", "progress\na warning\n")


def test_calling_again_replaces_and_the_default_keeps_an_earlier_choice(capsys):
    report.show_messages("stderr")
    report.show_messages("stderr")
    assert len(ours()) == 1                                  # never shown twice
    report.show_messages_by_default()                        # e.g. the CLI calls Cluster.connect
    assert len(ours()) == 1 and ours()[0].target == "stderr"
    log.info("once")
    assert capsys.readouterr().err == "once\n"


def test_a_file_and_a_level():
    buf = io.StringIO()
    report.show_messages(buf, level=logging.WARNING)
    log.info("hidden")
    log.warning("shown")
    assert buf.getvalue() == "shown\n"


def test_the_default_installs_when_nothing_was_chosen(capsys):
    logger = logging.getLogger(report.LOGGER)
    for h in ours():
        logger.removeHandler(h)
    report.show_messages_by_default()
    log.info("undid an unfinished earlier run of lab07")
    assert capsys.readouterr().out == "undid an unfinished earlier run of lab07\n"
