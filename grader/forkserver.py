"""Sandboxed kernels forked from a warm interpreter: start-up in milliseconds, not a second.

A plain kernel start costs about a second of CPU: Python, ipykernel, then the
notebook's `import numpy` and `import matplotlib.pyplot`. Grading a class pays it
once per notebook. Here one *zygote* per grading worker pays it once:

    grader ──pipe──▶ zygote (inside one bubblewrap sandbox, numpy/matplotlib/ipykernel imported)
                        └─ fork ─▶ kernel of student A (uid 2000012345, own /tmp dir, rlimits)
                        └─ fork ─▶ kernel of student B (another fresh uid) ...

The zygote lives in the same sandbox as grader/sandbox.py builds for a single
kernel (no network, nothing of the course, read-only system), started as root
with only CAP_SETUID/SETGID/SETPCAP/CHOWN. It runs no student code. Each forked
kernel, before it runs anything, drops the capability bounding set, switches to
a fresh unprivileged uid (so RLIMIT_NPROC is per kernel, and kernels cannot
signal, ptrace or read each other), sets no_new_privs and its rlimits, and gets
a 0700 home under /tmp and a 0700 socket directory under /run/kernel. When the
kernel is done, a process running as that uid kills every process of the uid
(nothing the student started survives) and empties its directories.

What a forked kernel shares with its siblings, unlike a one-sandbox-per-kernel
start: the sandbox's /tmp tmpfs (size-limited as a whole; each kernel sees only
its own directory) and its pid namespace (/proc lists the other kernels'
processes, owned by other uids). Needs the grader to run as root; otherwise use
SandboxedKernelManager (one bubblewrap per kernel).

Use: ``ForkedExecute`` (nbgrader's Execute); each process gets its own zygote on
first use. ``python -m grader.sandbox`` times a forked kernel's start-up too.
"""
import fcntl
import json
import os
import secrets
import subprocess
import sys
import tempfile
import threading

from jupyter_client.manager import AsyncKernelManager
from nbgrader.preprocessors import Execute

from .sandbox import KERNEL_RUN_DIR, SandboxedKernelManager, _children, uids_running

# The zygote's program. It reads one JSON request per line on fd 0 and answers one
# JSON line on fd 1; its kernels must never write there, so it moves both away first.
ZYGOTE = r'''
import ctypes, json, os, resource, shutil, signal, sys, time
ctrl_in = os.fdopen(os.dup(0), "r")
ctrl_out = os.fdopen(os.dup(1), "w")
null = os.open("/dev/null", os.O_RDWR)
os.dup2(null, 0)
os.dup2(2, 1)  # the zygote's own messages go to the grader's stderr; each kernel's go to /dev/null

# What every notebook imports, imported once. Not matplotlib.pyplot: importing it
# in a kernel is what wires the inline backend into that kernel's shell.
import numpy, numpy.random, matplotlib, matplotlib.figure, matplotlib.colors, matplotlib.font_manager
import matplotlib.backends.backend_agg, PIL.Image
import IPython, ipykernel.kernelapp, ipykernel.ipkernel, ipykernel.iostream, ipykernel.zmqshell, zmq, tornado
# ...and what a kernel's start-up imports (0.1 s of CPU a kernel otherwise; most of it debugpy).
os.environ["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"  # as jupyter_client starts kernels: no frozen-modules note
import ipykernel.debugger, IPython.core.completerlib, IPython.core.debugger, IPython.extensions.storemagic
import sqlite3, tornado.gen, tornado.locks, tornado.queues, tornado.platform.asyncio, pdb, pydoc, http.server
import matplotlib.style

config = json.loads(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_SET_DUMPABLE = 24, 38, 4
LAST_CAP = int(open("/proc/sys/kernel/cap_last_cap").read())
RUN = config["run_dir"]

def dirs(uid):
    return f"/tmp/k{uid}", f"{RUN}/k{uid}"

def become(uid):
    """This process: fresh uid, no capabilities left, no way to regain any."""
    for cap in range(LAST_CAP + 1):
        libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        os._exit(70)

def kernel(uid, connection_file):
    os.setsid()
    ctrl_in.close(); ctrl_out.close()
    # What a kernel writes at fd level (os.write, C code, its own start-up) goes nowhere: never to the
    # grader's terminal, where a submission could clear the screen or print a fake grade table.
    os.dup2(null, 1)
    os.dup2(null, 2)
    for name, value in config["rlimits"].items():
        resource.setrlimit(getattr(resource, name), (value, value))
    become(uid)
    home, _ = dirs(uid)
    os.chdir(home)
    os.environ.update(HOME=home, TMPDIR=home, MPLCONFIGDIR=home)
    numpy.random.seed()  # the global generator was seeded in the zygote: reseed per kernel
    sys.argv = ["ipykernel_launcher", "-f", connection_file] + config["kernel_args"]
    app = ipykernel.kernelapp.IPKernelApp.instance()
    app.initialize(sys.argv[1:])
    limit_output(app.shell, config["output_limit"])
    app.start()

def limit_output(shell, limit):
    """At most `limit` characters of stdout and of stderr per cell; the rest is dropped, with a note.

    100 MB of prints would otherwise cost the grader seconds of messages for output nbgrader
    truncates anyway, long enough on a busy machine for the cell to time out. (Not a
    security boundary: the kernel is the student's. It keeps honest floods cheap.)
    """
    streams = [s for s in (sys.stdout, sys.stderr) if isinstance(s, ipykernel.iostream.OutStream)]
    for stream in streams:
        stream.course_written = 0
        write = stream.write

        def capped(text, stream=stream, write=write):
            room = limit - stream.course_written
            stream.course_written += len(text)
            if room <= 0:
                return len(text)
            if len(text) > room:
                write(text[:room])
                return write(f"\n[output cut: more than {limit} characters in one cell]\n")
            return write(text)
        stream.write = capped

    def reset():
        for stream in streams:
            stream.course_written = 0
    shell.events.register("pre_execute", reset)

def spawn(uid, connection):
    home, run = dirs(uid)
    os.mkdir(home, 0o700)
    os.chown(home, uid, uid)
    os.mkdir(run, 0o700)
    connection_file = f"{run}/connection.json"
    with open(connection_file, "w") as f:
        json.dump(dict(connection, ip=f"{run}/ipc"), f)
    os.chmod(connection_file, 0o444)
    os.chown(run, uid, uid)
    pid = os.fork()
    if pid == 0:
        try:
            kernel(uid, connection_file)
        finally:
            os._exit(1)
    return pid

def killall(uid):
    """As the kernel's uid: kill every process of it, then empty its directories."""
    pid = os.fork()
    if pid == 0:
        try:
            become(uid)
            for _ in range(100):  # a fork bomb may fork between two kill(-1)s
                try:
                    os.kill(-1, signal.SIGKILL)
                except ProcessLookupError:
                    break
                time.sleep(0.001)
            for d in dirs(uid):
                shutil.rmtree(d, ignore_errors=True)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    for d in dirs(uid):
        try:
            os.rmdir(d)
        except OSError:
            pass

def status(pid):
    try:
        done, code = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return -1
    if done == 0:
        return None
    return os.waitstatus_to_exitcode(code)

ctrl_out.write(json.dumps({"ready": os.getpid()}) + "\n"); ctrl_out.flush()
for line in ctrl_in:
    req = json.loads(line)
    try:
        if req["op"] == "spawn":
            reply = {"pid": spawn(req["uid"], req["connection"])}
        elif req["op"] == "poll":
            reply = {"status": status(req["pid"])}
        elif req["op"] == "release":
            killall(req["uid"])
            reply = {"status": status(req["pid"]) if req.get("pid") else None}
        else:
            reply = {"error": f"unknown request {req['op']!r}"}
    except Exception as e:
        reply = {"error": f"{type(e).__name__}: {e}"}
    ctrl_out.write(json.dumps(reply) + "\n"); ctrl_out.flush()
'''


class Zygote:
    """One sandboxed, warm interpreter that forks kernels; talk to it with spawn/poll/release."""

    def __init__(self, **sandbox_config):
        self.sandbox = SandboxedKernelManager(**sandbox_config)
        if not self.sandbox.privileged:
            raise RuntimeError("forked kernels each get their own uid: the grader must run as root")
        self.sandbox._make_sandbox_dir()  # its generated /etc files
        rlimits = {"RLIMIT_AS": self.sandbox.memory_limit, "RLIMIT_NPROC": self.sandbox.max_processes,
                   "RLIMIT_CPU": self.sandbox.cpu_time_limit, "RLIMIT_FSIZE": self.sandbox.file_size_limit,
                   "RLIMIT_NOFILE": self.sandbox.open_files_limit, "RLIMIT_CORE": 0}
        config = {"rlimits": {k: v for k, v in rlimits.items() if v or k == "RLIMIT_CORE"},
                  "run_dir": KERNEL_RUN_DIR,
                  "output_limit": 1_000_000,
                  # as nbgrader's Execute starts kernels: no history database
                  "kernel_args": ["--HistoryManager.hist_file=:memory:"]}
        cmd = self.sandbox.sandbox_command([sys.executable, "-c", ZYGOTE, json.dumps(config)], zygote=True)
        self.process = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                        cwd=self.sandbox._sandbox_dir, env={"PATH": os.defpath})
        self._lock = threading.Lock()
        ready = self._read()
        if "ready" not in ready:
            raise RuntimeError(f"the zygote did not start: {ready}")
        children = _children().get(self.process.pid, [])
        if not children:
            raise RuntimeError("the zygote's sandbox has no init process")
        self.root = f"/proc/{children[0]}/root"  # the sandbox's files, seen from the grader
        self._uids = {}  # uid -> its lock file's descriptor

    def _read(self):
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the zygote exited (status {self.process.poll()})")
        return json.loads(line)

    def request(self, **req):
        with self._lock:
            self.process.stdin.write(json.dumps(req) + "\n")
            self.process.stdin.flush()
            reply = self._read()
        if "error" in reply:
            raise RuntimeError(f"zygote: {reply['error']}")
        return reply

    def new_uid(self):
        """A uid no other kernel on this machine has: held by a lock file until release().

        Every worker process has a zygote of its own, and a uid shared by two kernels would
        let one kill the other (release() kills every process of the uid).
        """
        sandbox = self.sandbox
        os.makedirs(UID_LOCKS, mode=0o700, exist_ok=True)
        for _ in range(1000):
            uid = sandbox.uid_range_start + secrets.randbelow(sandbox.uid_range_size)
            path = os.path.join(UID_LOCKS, str(uid))
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            try:
                current = os.stat(path).st_ino
            except FileNotFoundError:
                current = None
            if current != os.fstat(fd).st_ino:  # released (and its file removed) while this one opened it
                os.close(fd)
                continue
            if uid in uids_running():  # left over from a grader that died: not this one
                os.close(fd)
                continue
            self._uids[uid] = fd
            return uid
        raise RuntimeError("no free uid for a kernel")

    def spawn(self, uid, connection):
        return self.request(op="spawn", uid=uid, connection=connection)["pid"]

    def poll(self, pid):
        return self.request(op="poll", pid=pid)["status"]

    def release(self, uid, pid=None):
        status = self.request(op="release", uid=uid, pid=pid)["status"]
        fd = self._uids.pop(uid, None)
        if fd is not None:
            try:  # removed while still locked, so no lock file outlives its kernel
                os.unlink(os.path.join(UID_LOCKS, str(uid)))
            except FileNotFoundError:
                pass
            os.close(fd)  # drops the lock: the uid has no process left
        return status

    def close(self):
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.sandbox._remove_sandbox_dir()


_zygote = None
_zygote_lock = threading.Lock()
UID_LOCKS = os.path.join(tempfile.gettempdir(), "course-kernel-uids")  # one lock file per uid in use


def zygote():
    """This process's zygote, started on first use (and again if it died)."""
    global _zygote
    with _zygote_lock:
        if _zygote is None or _zygote.process.poll() is not None:
            _zygote = Zygote()
            import atexit
            atexit.register(_zygote.close)
        return _zygote


class _ForkedProcess:
    """What jupyter_client's LocalProvisioner expects of a Popen, for a forked kernel."""

    stdin = stdout = stderr = None

    def __init__(self, zyg, uid, pid):
        self.zygote, self.uid, self.pid = zyg, uid, pid
        self.returncode = None

    def poll(self):
        if self.returncode is None:
            self.returncode = self.zygote.poll(self.pid)
        return self.returncode

    def wait(self, timeout=None):
        while self.poll() is None:
            import time
            time.sleep(0.01)
        return self.returncode

    def kill(self):
        if self.returncode is None:
            self.zygote.release(self.uid, self.pid)
            self.poll()

    terminate = kill

    def send_signal(self, signum):
        self.kill()  # interrupts go as messages; any other signal ends the kernel


class ForkedKernelManager(AsyncKernelManager):
    """A kernel forked by this process's zygote (see the module doc); ipc sockets, message interrupts."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.transport = "ipc"
        self._uid = None

    @property
    def kernel_spec(self):
        spec = super().kernel_spec
        if spec is not None:
            spec.interrupt_mode = "message"
        return spec

    async def _async_pre_start_kernel(self, **kw):
        self._zygote = zygote()
        self._uid = self._zygote.new_uid()
        self.ip = f"{KERNEL_RUN_DIR}/k{self._uid}/ipc"  # what the kernel binds; the grader's path below
        return await super()._async_pre_start_kernel(**kw)

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        info = self.get_connection_info()
        connection = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in info.items()}
        pid = self._zygote.spawn(self._uid, connection)
        self.provisioner.process = _ForkedProcess(self._zygote, self._uid, pid)
        self.provisioner.pid, self.provisioner.pgid = pid, None
        self.ip = f"{self._zygote.root}{KERNEL_RUN_DIR}/k{self._uid}/ipc"

    async def _async_cleanup_resources(self, restart=False):
        await super()._async_cleanup_resources(restart=restart)
        if self._uid is not None and not restart:
            self._zygote.release(self._uid)  # whatever the kernel left running goes too
            self._uid = None


class ForkedExecute(Execute):
    """nbgrader's Execute with the kernel forked from the zygote, shut down at once when done."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("kernel_manager_class", ForkedKernelManager)
        kwargs.setdefault("shutdown_kernel", "immediate")
        super().__init__(*args, **kwargs)
