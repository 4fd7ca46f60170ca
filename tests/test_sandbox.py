"""The sandboxed kernel (grader/engine/sandbox.py): student code sees nothing of the course,
has no network, and cannot take the machine down.

Nothing here is skipped: if the sandbox is unavailable, every test fails with the
reason (CI machines have bubblewrap). Each notebook runs through nbclient with
kernel_manager_class=SandboxedKernelManager, as nbgrader's Execute does; cells
report what they saw as one JSON line on stdout.
"""
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError

import grader
from grader.engine.sandbox import SandboxedExecute, SandboxedKernelManager, run_in_sandbox, sandbox_available

REPO = Path(grader.__file__).resolve().parents[1]
COURSE_FILE = REPO / "grader" / "course" / "shared" / "reference.py"  # a file of the course the sandbox must hide

# Defined in the first cell of every notebook: run f, say how it went.
PRELUDE = """
import json, os, sys
def attempt(f):
    try:
        f()
        return "ok"
    except BaseException as e:
        return type(e).__name__
def report(**kw):
    print(json.dumps(kw))
"""


@pytest.fixture(scope="module", autouse=True)
def sandbox():
    ok, why = sandbox_available()
    if not ok:
        pytest.fail(f"the sandbox is not available on this machine: {why}")


def notebook(*cells):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(PRELUDE)] + [nbformat.v4.new_code_cell(c) for c in cells]
    return nb


class Run:
    """Execute cells in a sandboxed kernel; remember the sandbox's host pids while it ran."""

    def __init__(self, *cells, timeout=30, **client_kwargs):
        self.nb = notebook(*cells)
        self.pids = {}  # host pid: its start time (so a reused pid is not taken for a survivor)
        self.sandbox_dirs = set()
        self.client = NotebookClient(
            self.nb, kernel_manager_class=SandboxedKernelManager, kernel_name="python3",
            timeout=timeout, allow_errors=True, on_cell_start=self._record,
            on_cell_executed=self._record, **client_kwargs)

    def _record(self, **_):
        for pid in self.client.km.sandbox_pids():
            stat = _stat(pid)
            if stat is not None:
                self.pids.setdefault(pid, stat)
        self.sandbox_dirs.add(self.client.km._sandbox_dir)

    def execute(self):
        self.client.execute()
        return self

    def outputs(self, i):
        return self.nb.cells[i + 1].outputs  # +1: the prelude

    def stdout(self, i):
        return "".join(o.get("text", "") for o in self.outputs(i) if o.output_type == "stream")

    def report(self, i):
        lines = [line for line in self.stdout(i).splitlines() if line.startswith("{")]
        assert lines, f"cell {i} reported nothing: {self.outputs(i)}"
        return json.loads(lines[-1])

    def errors(self, i):
        return [o.ename for o in self.outputs(i) if o.output_type == "error"]


def _stat(pid):
    """(state, start time) of a process, or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return fields[0], fields[19]


def live(pids):
    """The recorded processes that still run (not zombies waiting to be reaped, not reused pids)."""
    alive = []
    for pid, (_, started) in pids.items():
        now = _stat(pid)
        if now is not None and now[1] == started and now[0] != "Z":
            alive.append(pid)
    return alive


def wait_gone(pids, seconds=5):
    deadline = time.monotonic() + seconds
    while live(pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return live(pids)


@pytest.fixture(scope="module")
def listener():
    """A TCP server on the host's loopback: reachable from here, not from the sandbox."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen()
    yield srv.getsockname()[1]
    srv.close()


@pytest.fixture(scope="module")
def main_run(listener):
    os.environ["SANDBOX_TEST_SECRET"] = "must-not-leak"
    try:
        run = Run(
            # 0 plotting
            "import numpy as np, matplotlib, matplotlib.pyplot as plt\n"
            "plt.plot(np.arange(10) ** 2); plt.show()\n"
            "report(numpy=np.__version__, backend=matplotlib.get_backend())",
            # 1 who and where
            "import resource\n"
            "report(uid=os.getuid(), cwd=os.getcwd(), home=os.environ.get('HOME'), env=sorted(os.environ),\n"
            "       root=sorted(os.listdir('/')), nproc=resource.getrlimit(resource.RLIMIT_NPROC),\n"
            "       mem=resource.getrlimit(resource.RLIMIT_AS), cpu=resource.getrlimit(resource.RLIMIT_CPU),\n"
            "       fsize=resource.getrlimit(resource.RLIMIT_FSIZE), nofile=resource.getrlimit(resource.RLIMIT_NOFILE),\n"
            "       vm=[l for l in open('/proc/self/status') if l.startswith('VmPeak')][0].split()[1],\n"
            "       caps={l.split(':')[0]: l.split()[1] for l in open('/proc/self/status')\n"
            "             if l.startswith(('Cap', 'NoNewPrivs'))})",
            # 2 reading outside the sandbox
            f"paths = ['/work/main/README.md', {str(REPO / 'README.md')!r}, {str(COURSE_FILE)!r},\n"
            f"         {str(REPO / 'solutions')!r}, {str(REPO / 'source')!r}, '/etc/shadow', '/home', '/etc/ssh',\n"
            f"         '/root/.bash_history', '/root/.ssh', '/root/.pyenv/version', '/var', '/sys', '/run/user']\n"
            "prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix)} | {sys.prefix, sys.base_prefix}\n"
            "def seen(top):  # everything under top, without going into the interpreter's prefixes\n"
            "    found = []\n"
            "    for d, dirs, files in os.walk(top):\n"
            "        dirs[:] = [x for x in dirs if os.path.join(d, x) not in prefixes]\n"
            "        found += [os.path.join(d, x) for x in dirs + files]\n"
            "    return found\n"
            "report(read={p: attempt(lambda p=p: open(p).read() if os.path.isfile(p) else os.listdir(p))\n"
            "             for p in paths},\n"
            f"       seen=seen('/root') + seen('/work') + seen('/home') + seen({str(REPO)!r}),\n"
            "       passwd=open('/etc/passwd').read())",
            # 3 writing
            "targets = ['/x', '/usr/x', '/etc/x', '/root/x', sys.prefix + '/x', sys.base_prefix + '/x',\n"
            "           '/proc/x', '/dev/x', '/run/x', '/tmp/written-by-the-kernel', '/scratch/x', 'here.txt', '/dev/shm/x',\n"
            "           '/run/kernel/x']\n"
            "def fill(paths, mib):  # write mib MiB to each path, then remove them\n"
            "    try:\n"
            "        for path in paths:\n"
            "            with open(path, 'wb') as f:\n"
            "                for _ in range(mib): f.write(bytes(2**20))\n"
            "    finally:\n"
            "        for path in paths:\n"
            "            if os.path.exists(path): os.remove(path)\n"
            "report(write={t: attempt(lambda t=t: open(t, 'w').write('x')) for t in targets},\n"
            "       big_file=attempt(lambda: fill(['/tmp/big'], 300)), fill_run=attempt(lambda: fill(['/run/kernel/big'], 2)),\n"
            "       fill_scratch=attempt(lambda: fill([f'/scratch/big{i}' for i in range(3)], 200)))",
            # 4 the grader's code
            "import grader",
            # 5 network
            f"import socket\n"
            f"def connect(port):\n"
            f"    s = socket.socket(); s.settimeout(2)\n"
            f"    try: s.connect(('127.0.0.1', port))\n"
            f"    finally: s.close()\n"
            f"report(local=attempt(lambda: connect({listener})), dns=attempt(lambda: socket.getaddrinfo('pypi.org', 443)),\n"
            f"       interfaces=[n for _, n in socket.if_nameindex()])",
            # 6 memory bomb
            "import numpy as np\nbig = np.ones(10 * 2**30, dtype=np.uint8)",
            # 7 still alive after it
            "report(alive=True, sum=int(np.ones(1000).sum()))",
            # 8 fork bomb, bounded: stops at the first failure, every child exits
            "r, w = os.pipe()\n"
            "children, error = [], None\n"
            "for _ in range(500):\n"
            "    try:\n"
            "        pid = os.fork()\n"
            "    except OSError as e:\n"
            "        error = type(e).__name__\n"
            "        break\n"
            "    if pid == 0:\n"
            "        os.close(w); os.read(r, 1); os._exit(0)\n"
            "    children.append(pid)\n"
            "os.close(w)\n"
            "reaped = sum(os.waitpid(p, 0)[0] == p for p in children)\n"
            "os.close(r)\n"
            "report(forked=len(children), error=error, reaped=reaped)",
            # 9 processes that try to outlive the kernel: a new session and a double fork
            "import subprocess\n"
            "subprocess.Popen(['sleep', '300'], start_new_session=True)\n"
            "subprocess.Popen(['sh', '-c', '(setsid sleep 301 &) ; exit 0']).wait()\n"
            "import time; time.sleep(0.3)\n"
            "report(procs=len([p for p in os.listdir('/proc') if p.isdigit()]))",
        )
        run.execute()
    finally:
        del os.environ["SANDBOX_TEST_SECRET"]
    return run


def test_numpy_and_matplotlib_work_and_a_plot_renders(main_run):
    assert main_run.report(0)["backend"].endswith("backend_inline")
    assert any("image/png" in o.get("data", {}) for o in main_run.outputs(0))


def test_kernel_runs_unprivileged_in_an_empty_scratch_dir_with_a_clean_env_and_limits(main_run):
    r = main_run.report(1)
    km = SandboxedKernelManager()
    if os.getuid() == 0:  # a fresh unprivileged uid of the kernel's own
        assert km.uid_range_start <= r["uid"] < km.uid_range_start + km.uid_range_size
    else:  # the grader's own uid, in a user namespace of the kernel's own
        assert r["uid"] == os.getuid() != 0
    assert r["cwd"] == km.scratch_dir and r["home"] == "/tmp"
    assert r["caps"].pop("NoNewPrivs") == "1"  # no setuid binary can give anything back
    assert set(r["caps"].values()) == {"0000000000000000"}, r["caps"]  # no capabilities at all
    assert "SANDBOX_TEST_SECRET" not in r["env"]
    assert not [k for k in r["env"] if k.startswith(("COURSE_", "JUPYTER_TOKEN", "AWS_", "GITHUB_"))]
    # the top of the sandbox: system dirs, the interpreter's prefixes' first component, nothing else
    system = {"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc", "proc", "dev", "tmp", "run", "scratch"}
    assert set(r["root"]) <= system | {p.split("/")[1] for p in (sys.prefix, sys.base_prefix)}, r["root"]
    assert r["nproc"] == [km.max_processes] * 2
    assert r["mem"] == [km.memory_limit] * 2
    assert r["cpu"] == [km.cpu_time_limit] * 2
    assert r["fsize"] == [km.file_size_limit] * 2
    assert r["nofile"] == [km.open_files_limit] * 2
    print(f"\nsandboxed kernel: uid {r['uid']}, peak address space {int(r['vm']) / 1024:.0f} MiB "
          f"with numpy and matplotlib loaded (limit {km.memory_limit / 2**30:.0f} GiB)")


def test_nothing_outside_the_sandbox_can_be_read(main_run):
    r = main_run.report(2)
    assert all(outcome != "ok" for outcome in r["read"].values()), r["read"]
    assert r["read"]["/work/main/README.md"] == "FileNotFoundError"
    assert "student" in r["passwd"] and "$" not in r["passwd"]  # the generated passwd, no hashes
    # /root, /work, /home and the repository hold at most the empty directories leading to the
    # interpreter's prefixes (/root/.pyenv/versions/X here, or e.g. <repo>/.venv), and those.
    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix)} | {sys.prefix, sys.base_prefix}
    for path in r["seen"]:
        assert any(path == p or p.startswith(path + "/") for p in prefixes), path


def test_writes_go_only_to_tmp_and_the_scratch_dir(main_run):
    r = main_run.report(3)
    w = r["write"]
    # and two small tmpfs's: /dev/shm (for multiprocessing) and the kernel's socket dir. (/tmp's file is not named
    # /tmp/x: a checkout at /tmp/x, whose .venv the sandbox mounts read-only, would stand in its place.)
    allowed = {"/tmp/written-by-the-kernel", "/scratch/x", "here.txt", "/dev/shm/x", "/run/kernel/x"}
    assert all(w[t] == "ok" for t in allowed), w
    assert all(w[t] != "ok" for t in w if t not in allowed), w
    # all of them are bounded: RLIMIT_FSIZE per file, the tmpfs size in all
    assert r["big_file"] == "OSError" and r["fill_run"] == "OSError" and r["fill_scratch"] == "OSError", r


def test_the_grader_cannot_be_imported(main_run):
    assert main_run.errors(4) == ["ModuleNotFoundError"]


def test_no_network(main_run, listener):
    # the same connection works from the grader's side: it is the namespace that blocks it
    socket.create_connection(("127.0.0.1", listener), timeout=2).close()
    r = main_run.report(5)
    assert r["local"] != "ok" and r["dns"] != "ok", r
    assert r["interfaces"] == ["lo"]


def test_a_memory_bomb_raises_memory_error_and_the_kernel_survives(main_run):
    assert main_run.errors(6) == ["MemoryError"]
    assert main_run.report(7) == {"alive": True, "sum": 1000}


def test_a_fork_bomb_is_contained(main_run):
    r = main_run.report(8)
    km = SandboxedKernelManager()
    assert r["error"] == "BlockingIOError", r  # EAGAIN: RLIMIT_NPROC reached
    assert r["forked"] < km.max_processes < 500, r
    assert r["reaped"] == r["forked"]
    print(f"\nfork bomb: stopped after {r['forked']} children (max_processes {km.max_processes})")


def test_every_process_of_the_kernel_is_gone_after_shutdown(main_run):
    assert main_run.report(9)["procs"] >= 3  # the sleeps were running inside
    assert len(main_run.pids) >= 4  # bwrap, its init, the kernel, the sleeps
    assert wait_gone(main_run.pids) == []
    assert not [d for d in main_run.sandbox_dirs if os.path.exists(d)]  # sockets, connection file


def test_an_infinite_loop_is_stopped_by_the_timeout_and_the_kernel_cleaned_up():
    run = Run("import subprocess; subprocess.Popen(['sleep', '300'])\nreport(started=True)",
              "while True:\n    pass", timeout=3)
    t0 = time.monotonic()
    with pytest.raises(CellTimeoutError):
        run.execute()
    assert time.monotonic() - t0 < 20
    assert run.pids and wait_gone(run.pids) == []
    assert not [d for d in run.sandbox_dirs if os.path.exists(d)]


def test_a_timeout_interrupts_the_cell_and_the_notebook_goes_on():
    # nbgrader's Execute interrupts on timeout: the interrupt must reach the sandboxed kernel.
    run = Run("while True:\n    pass", "report(after=True)", timeout=3, interrupt_on_timeout=True)
    run.execute()
    assert run.errors(0) == ["KeyboardInterrupt"]
    assert run.report(1) == {"after": True}
    assert wait_gone(run.pids) == []


def test_nbgrader_execute_wiring():
    # nbgrader's Execute passes kernel_manager_class to its constructor, which beats
    # c.Execute.kernel_manager_class: SandboxedExecute is how to get the sandbox in nbgrader.
    from traitlets.config import Config
    config = Config()
    config.Execute.timeout = 17
    ex = SandboxedExecute(config=config)
    assert ex.kernel_manager_class is SandboxedKernelManager and ex.timeout == 17


def test_a_sandbox_that_cannot_start_fails_fast_and_leaves_nothing_behind():
    import asyncio
    km = SandboxedKernelManager(kernel_name="python3", bwrap_path="false")  # exits at once, like a broken bwrap

    async def start():
        t0 = time.monotonic()
        with pytest.raises(RuntimeError, match="bubblewrap exited"):
            await km.start_kernel()
        return time.monotonic() - t0
    assert asyncio.run(start()) < 10
    assert km._sandbox_dir is None and not km.has_kernel


def test_the_grader_stays_hidden_even_where_the_sandbox_shows_it():
    # e.g. a plain (not editable) install puts the grader in site-packages, which is bound:
    # here the whole repository is shown, and its grader/ must still be unreadable.
    code = ("import os, sys\n"
            f"print(len(open({str(REPO / 'README.md')!r}).read()) > 0)\n"
            f"sys.path.insert(0, {str(REPO)!r})\n"
            "for f in (lambda: open(" + repr(str(COURSE_FILE)) + ").read(),\n"
            "          lambda: os.listdir(" + repr(str(REPO / 'grader')) + "),\n"
            "          lambda: __import__('grader.course.shared.reference')):\n"
            "    try:\n"
            "        f(); print('visible')\n"
            "    except Exception as e:\n"
            "        print(type(e).__name__)\n")
    assert COURSE_FILE.is_file()  # outside the sandbox it is there
    run = run_in_sandbox(code, extra_ro_binds=[str(REPO)])
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["True", "PermissionError", "PermissionError", "ModuleNotFoundError"], run.stdout


BLAS_IN_USE = ("import numpy; from threadpoolctl import threadpool_info; "
               "print([i.get('architecture') for i in threadpool_info()])")


def test_the_kernel_computes_with_the_blas_kernel_the_grading_process_was_told_to_use(monkeypatch):
    """A named mistake is reproduced on the grading side: it must come out of the same BLAS kernel as the
    student's result (an SVD's signs depend on it). Nothing else of the grader's environment goes in."""
    monkeypatch.setenv("OPENBLAS_CORETYPE", "Prescott")
    outside = subprocess.run([sys.executable, "-c", BLAS_IN_USE], capture_output=True, text=True, timeout=60)
    inside = run_in_sandbox(BLAS_IN_USE)
    assert inside.returncode == 0, inside.stderr
    assert inside.stdout == outside.stdout, (inside.stdout, outside.stdout)


@pytest.mark.skipif(os.geteuid() != 0, reason="a kernel's cgroup needs the grader to run as root")
def test_the_kernel_joins_its_cgroup_even_if_it_was_forked_while_the_sandbox_was_read(monkeypatch):
    """The sandbox's init forks the kernel while the grader reads /proc to put the sandbox in its cgroup: a
    kernel missed by that read must still join (it would otherwise run without its CPU and memory limits).
    The first read is made to miss it, as it does when the fork comes just after the read."""
    import asyncio
    from grader.engine import cgroup
    if cgroup.hierarchy() is None:
        pytest.skip("this machine offers no cgroup to the grader")
    real = SandboxedKernelManager.sandbox_pids
    reads = []

    def late_read(self):
        pids = real(self)
        while len(pids) < 3:  # bwrap, its init, the kernel: wait for the kernel, then leave it out once
            time.sleep(0.01)
            pids = real(self)
        reads.append(pids)
        return pids[:2] if len(reads) == 1 else pids
    monkeypatch.setattr(SandboxedKernelManager, "sandbox_pids", late_read)

    async def kernel_in_its_group():
        km = SandboxedKernelManager(kernel_name="python3")
        await km.start_kernel()
        try:
            return km.kernel_host_pid(), km._cgroup.pids()
        finally:
            await km.shutdown_kernel(now=True)
    kernel, group = asyncio.run(kernel_in_its_group())
    assert kernel is not None and kernel in group, (kernel, group, reads)
