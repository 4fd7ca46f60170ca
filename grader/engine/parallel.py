"""Run many students' notebooks side by side: a local process pool, or a Dask cluster.

The unit of work is ``execute(task)``: one notebook, probes already injected,
run top to bottom in a sandboxed kernel with nbgrader's Execute semantics; it
returns the executed notebook. It needs nothing of the course (no gradebook, no
files), so it runs the same in a local worker process or on a Dask worker on
another machine. Grading decisions (probes in, verdicts out, scores into the
gradebook) stay in the grading process: see grader/engine/grade.py.

    local (default)   concurrent.futures.ProcessPoolExecutor, `workers` processes
    Dask              a distributed.Client's executor: "local" starts a LocalCluster on
                      this machine, any other string is a scheduler address (tcp://host:8786)

Each worker process keeps one zygote (grader/engine/forkserver.py), so a kernel costs a
fork, not an interpreter start. Where the grader does not run as root, each
kernel gets its own bubblewrap instead (grader/engine/sandbox.py); --unsandboxed runs
plain kernels.
"""
import concurrent.futures
import json
import multiprocessing
import os
import threading

import nbformat

from .sandbox_policy import RUNTIME_VARIABLE

# How a worker starts kernels. SANDBOXED is decided on the worker itself (a Dask worker
# may not run as root): FORKED there if it can, else a bubblewrap per kernel (BWRAP).
SANDBOXED, FORKED, BWRAP, UNSANDBOXED = "sandboxed", "forked", "bwrap", "unsandboxed"


def kernel_mode(unsandboxed=False):
    return UNSANDBOXED if unsandboxed else SANDBOXED


def executor_class(mode):
    """nbgrader's Execute for this mode, where a dying kernel ends the notebook's run, not its grading."""
    from .nbgrader_plugin import SurviveKernelDeath
    base = _execute_class(mode)
    return type(base.__name__, (SurviveKernelDeath, base), {})


def _execute_class(mode):
    if mode == SANDBOXED:
        mode = FORKED if os.geteuid() == 0 else BWRAP
    if mode == FORKED:
        from .forkserver import ForkedExecute
        return ForkedExecute
    if mode == BWRAP:
        from .sandbox import SandboxedExecute
        return SandboxedExecute
    from nbgrader.preprocessors import Execute
    return Execute


def execute(task):
    """Run one notebook; task: notebook (JSON text), timeout (s per cell), notebook_timeout (s), mode.

    Returns {"notebook": executed JSON text} or {"error": one line}. A notebook that
    runs past notebook_timeout has its kernel killed; it is then an error, like a
    kernel that died.
    """
    nb = nbformat.v4.reads(task["notebook"])  # version 4 JSON text; not validated again
    ep = executor_class(task["mode"])(timeout=task["timeout"])
    expired = threading.Event()

    def stop():
        expired.set()
        km = getattr(ep, "km", None)
        process = getattr(getattr(km, "provisioner", None), "process", None)
        if process is not None:
            process.kill()

    watchdog = threading.Timer(task["notebook_timeout"], stop)
    watchdog.daemon = True
    watchdog.start()
    try:
        nb, _ = ep.preprocess(nb, {"metadata": {"path": "."}})
    except Exception as e:  # the kernel died, or never started
        if expired.is_set():
            return {"error": f"the notebook ran past its limit of {task['notebook_timeout']} s and was stopped"}
        return {"error": f"{type(e).__name__}: {str(e).strip().splitlines()[-1] if str(e).strip() else ''}"}
    finally:
        watchdog.cancel()
    return {"notebook": json.dumps(nb, ensure_ascii=False)}  # compact: nbformat.writes' indent costs 0.04 s


def _warm_up(mode, runtime=None):
    """Start the worker's zygote before the first notebook arrives; its host-side files go to `runtime`."""
    if runtime:
        os.environ[RUNTIME_VARIABLE] = runtime
    if _execute_class(mode).__name__ == "ForkedExecute":
        from .forkserver import zygote
        zygote()


class Pool:
    """workers processes here, or a Dask cluster; submit(task) -> concurrent.futures.Future."""

    def __init__(self, workers, mode, scheduler=None, runtime=None):
        """runtime: where local workers' sandboxes keep their host-side files (the course's .sandbox)."""
        self.workers, self.mode, self.scheduler = workers, mode, scheduler
        self._client = self._cluster = None
        if scheduler is None:
            self.executor = concurrent.futures.ProcessPoolExecutor(
                max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                initializer=_warm_up, initargs=(mode, runtime))
            self.where = f"{workers} local worker processes"
        else:
            from distributed import Client, LocalCluster
            if scheduler == "local":
                where = {} if not runtime else dict(
                    local_directory=runtime, env={RUNTIME_VARIABLE: runtime})  # not /tmp: the course's
                self._cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                             dashboard_address=None, **where)
                self._client = Client(self._cluster)
            else:
                self._client = Client(scheduler)
            self.executor = self._client.get_executor(pure=False)
            n = len(self._client.scheduler_info()["workers"])
            self.where = f"Dask at {self._client.scheduler.address} ({n} workers)"

    def submit(self, task):
        return self.executor.submit(execute, task)

    def close(self):
        if self._client is not None:
            self._client.close()
            if self._cluster is not None:
                self._cluster.close()
        else:
            self.executor.shutdown(wait=True, cancel_futures=True)


def default_workers():
    """One more than the cores: a notebook waits on its kernel now and then, and another fills the gap."""
    return (os.cpu_count() or 1) + 1
