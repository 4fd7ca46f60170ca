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
import asyncio
import concurrent.futures
import json
import multiprocessing
import os
import resource
import signal
import sys
import threading
import time

import nbformat
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbclient.util import ensure_async

from . import protocol
from .sandbox_policy import RUNTIME_VARIABLE

# How a worker starts kernels. SANDBOXED is decided on the worker itself (a Dask worker
# may not run as root): FORKED there if it can, else a bubblewrap per kernel (BWRAP).
SANDBOXED, FORKED, BWRAP, UNSANDBOXED = "sandboxed", "forked", "bwrap", "unsandboxed"


def kernel_mode(unsandboxed=False):
    return UNSANDBOXED if unsandboxed else SANDBOXED


def executor_class(mode):
    """nbgrader's Execute for this mode, where a dying kernel ends the notebook's run, not its grading."""
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

    Returns {"notebook": executed JSON text} or {"error": one line}, "seconds": how long
    it took here, and "kernel_cpu": the CPU seconds its kernel used, where this process can
    tell (grading starts the longest assignments first by it). A notebook that runs past
    notebook_timeout has its kernel killed; it is then an error, like a kernel that died.
    """
    start, before = time.monotonic(), _kernels_cpu()
    result = _execute(task)
    after = _kernels_cpu()
    result["seconds"] = time.monotonic() - start
    if before is not None and after is not None and after[0] == before[0]:
        result["kernel_cpu"] = after[1] - before[1]
    return result


def _kernels_cpu():
    """(zygote, CPU seconds of the kernels this process has run and that are gone), or None if unknown.

    A kernel's CPU is added to its parent's when the parent reaps it: this process's, for a kernel it
    started (bubblewrap, plain), or the zygote's, for a forked one. Unlike the wall time, it hardly
    depends on what else the machine runs meanwhile."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    mine = usage.ru_utime + usage.ru_stime
    forkserver = sys.modules.get(f"{__package__}.forkserver")  # imported where kernels are forked
    pid = getattr(getattr(forkserver, "_zygote", None), "host_pid", None)
    if pid is None:
        return None, mine
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return pid, mine + (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")  # cutime + cstime


def _execute(task):
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
    """workers processes here, or a Dask cluster; submit(task) -> concurrent.futures.Future.

    slots: how many notebooks it runs at once (grading keeps about that many submitted, and picks the next)."""

    def __init__(self, workers, mode, scheduler=None, runtime=None):
        """runtime: where local workers' sandboxes keep their host-side files (the course's .sandbox)."""
        self.workers, self.mode, self.scheduler = workers, mode, scheduler
        self._client = self._cluster = None
        if scheduler is None:
            self.executor = concurrent.futures.ProcessPoolExecutor(
                max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                initializer=_warm_up, initargs=(mode, runtime))
            self.where = f"{workers} local worker processes"
            self.slots = workers
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
            info = self._client.scheduler_info()["workers"]
            n = len(info)
            self.where = f"Dask at {self._client.scheduler.address} ({n} workers)"
            # Notebooks the cluster runs at once, as it is now (a worker that joins later gets work as others do).
            self.slots = max(sum(w.get("nthreads", 1) for w in info.values()), workers or 1)

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


# ------------------------------------------------------------------ one notebook's run survives its kernel

MAX_OUTPUT_DEPTH = 64  # levels of JSON in one output message; a figure or a table needs a handful


def _nested_deeper(value, limit):
    """True when lists and dicts nest more than `limit` deep in value (looked at without recursion)."""
    todo = [(value, 0)]
    while todo:
        item, depth = todo.pop()
        if depth > limit:
            return True
        if isinstance(item, dict):
            todo.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            todo.extend((v, depth + 1) for v in item)
    return False


def waited_for_a_core(pid):
    """Seconds the process's main thread has spent ready to run but waiting for a core (Linux's
    /proc/<pid>/schedstat), or None where that cannot be read."""
    try:
        with open(f"/proc/{pid}/schedstat") as f:
            return int(f.read().split()[1]) / 1e9
    except (OSError, ValueError, IndexError, TypeError):
        return None


def below(pid):
    """Pids of every process below pid, from Linux's /proc/<pid>/task/<tid>/children (a few reads, not a
    scan of /proc); empty where that cannot be read."""
    found, todo = set(), [pid]
    while todo:
        parent = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                with open(f"/proc/{parent}/task/{tid}/children") as f:
                    children = [int(c) for c in f.read().split()]
            except (OSError, ValueError):
                continue
            todo.extend(c for c in children if c not in found)
            found.update(children)
    return found


def kernel_pid(km):
    """The kernel's own process as this process sees it (not bubblewrap's, nor the zygote's), or None."""
    find = getattr(km, "kernel_host_pid", None)
    if find is not None:
        return find()
    return getattr(getattr(getattr(km, "provisioner", None), "process", None), "pid", None)


class SurviveKernelDeath:
    """Mixin for Execute: a kernel that dies or hangs ends the notebook's run, not its grading; a cell's
    time limit does not count the time the machine kept its kernel waiting.

    nbclient raises DeadKernelError (os._exit, a segfault) or CellTimeoutError (a cell that
    ignores the interrupt), and nbgrader then records nothing for the notebook. Here that
    cell gets an error output saying so, the cells after it are left unrun (their probes
    report nothing: zero), and what ran before counts.

    The time limit: grading runs notebooks side by side, beside nbgrader's own work and the
    verdicts' judgement kernels, so a kernel may get a fraction of a core for a while. nbclient
    stops a cell at its limit of wall time; here, when that limit comes, the time the kernel spent
    ready to run but waiting for a core (schedstat) is given back, and the cell is stopped once it
    has had its limit of running (or sleeping) time, and at the latest at STARVED_LIMIT times its
    limit. On a machine with cores to spare nothing waits, and a cell stops exactly as nbclient stops it.

    A cell stopped at its limit is stopped with every process it started: they are killed before the
    kernel is interrupted. An interrupt reaches the kernel alone (it comes as a message), and children
    that fill the kernel's memory budget would leave the kernel too starved of memory to answer it in
    time, which would end the notebook. Processes an earlier cell started are left running.
    """

    # Characters of output one cell keeps, of every type (streams, displays, results, errors): past it the
    # grading process drops what comes, with a note. A probe's report is far smaller.
    output_limit = 10 * 2**20
    STARVED_LIMIT = 3  # a cell's wall time at most, in multiples of its time limit, however long it waited

    def preprocess(self, nb, resources, *args, **kwargs):
        self._kernel_stopped = None  # or why the kernel stopped, in words for the cells after it
        self._output_kept = {}
        self._kernel_pid = None
        return super().preprocess(nb, resources, *args, **kwargs)

    def _waited(self):
        """Seconds the kernel has waited for a core so far, or None."""
        if getattr(self, "_kernel_pid", None) is None:
            self._kernel_pid = kernel_pid(getattr(self, "km", None))
        return waited_for_a_core(self._kernel_pid) if self._kernel_pid is not None else None

    def _started(self):
        """The processes the notebook's kernel has started and that still run (everything in the kernel's
        cgroup, or below its sandbox's init or the kernel), the kernel itself aside."""
        km = getattr(self, "km", None)
        pid = kernel_pid(km)
        group = getattr(km, "_cgroup", None)
        found = set(group.pids()) if group is not None else below(getattr(km, "_init_pid", None) or pid)
        found.discard(pid)
        return found

    def _stop_started_by_cell(self):
        """Kill what the running cell started (see the class doc). A pid is signalled through a pidfd, and
        only if it still belongs to the kernel once that pidfd is open: never a process that reused it."""
        before = getattr(self, "_running_before_cell", None)
        if before is None:
            return
        handles = {}
        for pid in self._started() - before:
            try:
                handles[pid] = os.pidfd_open(pid)
            except OSError:
                pass
        try:
            still = self._started()
            for pid, fd in handles.items():
                if pid in still:
                    try:
                        signal.pidfd_send_signal(fd, signal.SIGKILL)
                    except OSError:
                        pass
        finally:
            for fd in handles.values():
                os.close(fd)

    def _get_timeout(self, cell):
        # nbclient asks for the cell's limit just after it sends the cell: the cell's clocks start here
        self._cell_clock = (time.monotonic(), self._waited())
        return super()._get_timeout(cell)

    async def _async_handle_timeout(self, timeout, cell=None):
        """nbclient's, once the cell has had `timeout` seconds of wall time less the time its kernel waited
        for a core (or STARVED_LIMIT times `timeout` of wall time); until then, the cell's reply is waited for."""
        start, waited_before = getattr(self, "_cell_clock", (None, None))
        while waited_before is not None:
            waited = self._waited()
            elapsed = time.monotonic() - start
            if waited is None or elapsed >= self.STARVED_LIMIT * timeout:
                break
            left = timeout - (elapsed - (waited - waited_before))
            if left <= 0:
                break
            if await ensure_async(self.kc.shell_channel.msg_ready()):
                return None  # the reply came: nbclient reads it (and comes back here if it was another message)
            await self._async_check_alive()
            await asyncio.sleep(min(left, 1.0))
        self._stop_started_by_cell()
        return await super()._async_handle_timeout(timeout, cell)

    def output(self, outs, msg, display_id, cell_index):
        content = msg.get("content") or {}
        if _nested_deeper(content, MAX_OUTPUT_DEPTH):
            # nbformat builds and writes notebooks recursively: 800 levels of JSON would take the whole
            # notebook down with a RecursionError, not this output alone
            outs.append(nbformat.v4.new_output(
                "stream", name="stdout", text=f"\n[output dropped: nested more than {MAX_OUTPUT_DEPTH} deep]\n"))
            return None
        size = sum(len(v) if isinstance(v, str) else len(json.dumps(v)) for v in (content.get("data") or {}).values())
        size += len(str(content.get("text") or "")) + sum(len(str(line)) for line in content.get("traceback") or [])
        kept = self._output_kept.get(cell_index, 0)
        self._output_kept[cell_index] = kept + size
        if kept + size > self.output_limit:
            if kept <= self.output_limit:
                outs.append(nbformat.v4.new_output(
                    "stream", name="stdout", text=f"\n[output cut: more than {self.output_limit} characters in one cell]\n"))
            return None
        return super().output(outs, msg, display_id, cell_index)

    def preprocess_cell(self, cell, resources, index):
        if self._kernel_stopped:
            if cell.cell_type == "code":  # said in the cell, so that a part it grades is not blamed on its code
                cell.outputs = [nbformat.v4.new_output("error", ename="KernelStopped", evalue=self._kernel_stopped,
                                                       traceback=[f"KernelStopped: {self._kernel_stopped}"])]
            return cell, resources
        # what runs already, before the cell is sent: nothing the cell starts can be in it
        self._running_before_cell = self._started() if cell.cell_type == "code" else None
        try:
            if cell.cell_type == "code" and cell.source.startswith(protocol.PROBE_HEADER):
                # A probe runs outside the kernel's history: its source, which holds its inputs, never
                # enters In, _ih or Out, where a later cell could print it into the feedback.
                self._check_assign_resources(resources)
                return self.execute_cell(cell, index, store_history=False), self.resources
            return super().preprocess_cell(cell, resources, index)
        except (DeadKernelError, CellTimeoutError) as e:
            # the words are protocol's, which verdicts read
            died, stuck, over, after_died, after_stuck, after_over = protocol.KERNEL_STOPPED
            what, self._kernel_stopped = (died, after_died) if isinstance(e, DeadKernelError) else (stuck, after_stuck)
            group = getattr(getattr(self, "km", None), "_cgroup", None)
            if isinstance(e, DeadKernelError) and group is not None and group.oom_kills() and group.memory:
                gib = f"{group.memory / 2**30:.3g}"
                what, self._kernel_stopped = over.format(gib=gib), after_over.format(gib=gib)
            cell.outputs.append(nbformat.v4.new_output(
                "error", ename="KernelStopped", evalue=what,
                traceback=[f"KernelStopped: {what}; nothing after it ran"]))
            return cell, resources
