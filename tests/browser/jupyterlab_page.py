"""Open a lab in a JupyterLab page, run it through the UI, close it again (tests and bench/)."""
from __future__ import annotations

CURRENT_IS = """path => { const w = window.jupyterapp.shell.currentWidget;
  return !!(w && w.context && w.context.path === path && w.context.isReady && w.sessionContext
            && w.sessionContext.session && w.sessionContext.session.kernel); }"""

# null while cells still run; {error} for the first error output; {done} when all ran and the
# kernel is idle. Reads JupyterLab's own notebook model, so it does not depend on rendering.
RUN_STATE = """() => { const w = window.jupyterapp.shell.currentWidget, cells = w.content.model.cells;
  let pending = 0;
  for (let i = 0; i < cells.length; i++) {
    const c = cells.get(i);
    if (c.type !== 'code') continue;
    for (let j = 0; j < c.outputs.length; j++) {
      const o = c.outputs.get(j).toJSON();
      if (o.output_type === 'error') return {error: `cell ${i}: ${o.ename}: ${o.evalue}`};
    }
    if (c.executionCount === null) pending++;
  }
  const k = w.sessionContext.session && w.sessionContext.session.kernel;
  return pending === 0 && k && k.status === 'idle' ? {done: w.id} : null; }"""


def open_and_run(page, path: str) -> dict:
    """Open the notebook at path (relative to the server's root), Run > Run All Cells, wait until
    every cell ran; returns {done: the notebook panel's DOM id} or {error: the first error}."""
    page.evaluate("async path => { await window.jupyterapp.commands.execute('docmanager:open', {path}); }", path)
    page.wait_for_function(CURRENT_IS, arg=path)
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_text("Run All Cells", exact=True).click()
    return page.wait_for_function(RUN_STATE, polling=250).json_value()


def close_everything(page, server):
    """Save (the executed copy stays for the artifacts; closing asks nothing), close all tabs, and
    end every kernel (one lab's kernel must not slow the next)."""
    page.evaluate("""async () => { const cmd = window.jupyterapp.commands;
        try { await cmd.execute('docmanager:save'); } catch (e) {}
        await cmd.execute('application:close-all'); }""")
    server.shutdown_kernels()
