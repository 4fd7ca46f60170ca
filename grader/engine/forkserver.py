"""Sandboxed kernels forked from a warm interpreter: start-up in milliseconds, not a second.

A plain kernel start costs about a second of CPU: Python, ipykernel, then the
notebook's `import numpy` and `import matplotlib.pyplot`. Grading a class pays it
once per notebook. Here one *zygote* per grading worker pays it once:

    grader ──pipe──▶ zygote (inside one bubblewrap sandbox, numpy/matplotlib/ipykernel imported)
                        └─ fork ─▶ kernel of student A (uid 2000012345, own /tmp, rlimits, cgroup)
                        └─ fork ─▶ kernel of student B (another fresh uid) ...

The zygote lives in the same sandbox as grader/engine/sandbox.py builds for a single
kernel (no network, nothing of the course, read-only system), started as root
with only CAP_SETUID/SETGID/SETPCAP/CHOWN/SYS_ADMIN. It runs no student code.
Each forked kernel, before it runs anything:

* enters a mount namespace of its own with its own tmpfs's on /tmp/k<uid> (its
  HOME and TMPDIR) and /dev/shm, bounded in size and in files; it sees no other
  kernel's files, and what it writes there (undeletable files included) goes
  with its namespace; /tmp itself is root's and read-only to it;
* gets its socket directory, /run/kernel/k<uid>, as a 1 MiB tmpfs of its own,
  which the zygote unmounts when the kernel is released;
* drops the capability bounding set, switches to a fresh unprivileged uid (so
  RLIMIT_NPROC is per kernel, and kernels cannot signal, ptrace or read each
  other), sets no_new_privs and its rlimits;
* is put by the grader in a cgroup of its own, limited to `cpu_limit` cores
  (grader/engine/cgroup.py), where the machine offers one.

When the kernel is done, a process running as that uid kills every process of
the uid (setsid'd and double-forked ones too: nothing the student started
survives). A zygote that stops answering, or cannot fork a kernel, is replaced
before the next notebook.

What a forked kernel still shares with its siblings, unlike a one-sandbox-per-
kernel start: the zygote's pid namespace (/proc lists the other kernels'
processes, owned by other uids, which it cannot signal or read) and the read-only
files of the sandbox. Needs the grader to run as root; otherwise use
SandboxedKernelManager (one bubblewrap per kernel).

Use: ``ForkedExecute`` (nbgrader's Execute); each process gets its own zygote on
first use. ``python -m grader.engine.sandbox_check`` times a forked kernel's start-up too.
"""
import inspect
import json
import os
import subprocess
import sys
import threading

from jupyter_client.manager import AsyncKernelManager
from nbgrader.preprocessors import Execute

from . import cgroup
from .sandbox import SandboxedKernelManager, _children, bounded_client, lock_free_uid
from .sandbox_policy import KERNEL_RUN_DIR

# The zygote's program. It reads one JSON request per line on fd 0 and answers one
# JSON line on fd 1; its kernels must never write there, so it moves both away first.
ZYGOTE = r'''
import ctypes, json, os, resource, signal, sys, time
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
libc.mount.argtypes = (ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p)
libc.umount2.argtypes = (ctypes.c_char_p, ctypes.c_int)
PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_SET_DUMPABLE = 24, 38, 4
CLONE_NEWNS, MS_NOSUID, MS_NODEV, MS_REC, MS_PRIVATE, MNT_DETACH = 0x20000, 2, 4, 1 << 14, 1 << 18, 2
LAST_CAP = int(open("/proc/sys/kernel/cap_last_cap").read())
RUN = config["run_dir"]

def run_dir(uid):
    return f"{RUN}/k{uid}"

def home_dir(uid):
    # Under /tmp, not /tmp itself: a tmpfs over /tmp would hide a Python installed below it (a venv in /tmp).
    return f"/tmp/k{uid}"

def check(result, what):
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")

def mount_tmpfs(path, options):
    """A fresh tmpfs: its size and inode count bounded, and freed whole when it is unmounted."""
    check(libc.mount(b"tmpfs", path.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, options.encode()), f"mount {path}")

def own_mounts(uid):
    """This kernel's home (/tmp/k<uid>, also its TMPDIR) and /dev/shm: tmpfs's of its own, in a mount
    namespace of its own.

    Nothing it writes there is seen by, or takes space from, any other kernel (each sees the others'
    homes as empty mount points); the namespace and its tmpfs's go when its last process does,
    whatever it left (files it made undeletable included). /tmp itself is the zygote's, root's and
    read-only to kernels.
    """
    check(libc.unshare(CLONE_NEWNS), "unshare")
    check(libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "make mounts private")
    mount_tmpfs(home_dir(uid), f"size={config['tmp_size']},nr_inodes={config['inodes']},mode=0700,uid={uid},gid={uid}")
    mount_tmpfs("/dev/shm", f"size={config['shm_size']},nr_inodes={config['inodes']},mode=1777")

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
    own_mounts(uid)
    become(uid)
    home = home_dir(uid)
    os.chdir(home)
    os.environ.update(HOME=home, TMPDIR=home, MPLCONFIGDIR=home)
    numpy.random.seed()  # the global generator was seeded in the zygote: reseed per kernel
    sys.argv = ["ipykernel_launcher", "-f", connection_file] + config["kernel_args"]
    app = ipykernel.kernelapp.IPKernelApp.instance()
    app.initialize(sys.argv[1:])
    limit_output(app.shell, config["output_limit"], config["display_limit"])
    python_cells_untokenized(app.shell.input_transformer_manager)
    app.start()

def limit_output(shell, limit, display_limit):
    """At most `limit` characters of stdout and of stderr per cell, and `display_limit` in one display or
    result; the rest is dropped, with a note.

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

    # One display or result larger than the limit is replaced by a note: the grader refuses a message
    # past its own limit (zmq's MAXMSGSIZE) and loses the kernel's output from there on.
    def size(data):
        return sum(len(v) if isinstance(v, (str, bytes)) else len(json.dumps(v)) for v in data.values())

    def note(data):
        return {"text/plain": f"[output cut: a display of {size(data)} characters, "
                              f"more than {display_limit} in one piece]"}

    publish = shell.display_pub.publish

    def capped_publish(data, *args, **kwargs):
        if isinstance(data, dict) and size(data) > display_limit:
            data = note(data)
            kwargs.pop("metadata", None)
        return publish(data, *args, **kwargs)
    shell.display_pub.publish = capped_publish
    write_format_data = shell.displayhook.write_format_data

    def capped_result(format_dict, md_dict=None):
        if isinstance(format_dict, dict) and size(format_dict) > display_limit:
            format_dict, md_dict = note(format_dict), None
        return write_format_data(format_dict, md_dict)
    shell.displayhook.write_format_data = capped_result

# python_cells_untokenized (its source is put here from the function of that name below)

def spawn(uid, connection):
    # The kernel's sockets: a tiny tmpfs of its own here, in the zygote's mount namespace,
    # where the grader reaches them through /proc/<sandbox init>/root.
    os.mkdir(home_dir(uid), 0o755)  # where the kernel mounts its home, in its own namespace
    run = run_dir(uid)
    os.mkdir(run, 0o755)
    mount_tmpfs(run, "size=1m,nr_inodes=64,mode=0755")
    connection_file = f"{run}/connection.json"
    with open(connection_file, "w") as f:
        json.dump(dict(connection, ip=f"{run}/ipc"), f)
    os.chmod(connection_file, 0o444)
    os.chmod(run, 0o700)
    os.chown(run, uid, uid)
    pid = os.fork()
    if pid == 0:
        try:
            kernel(uid, connection_file)
        finally:
            os._exit(1)
    return pid

def killall(uid):
    """As the kernel's uid: kill every process of it (setsid'd and double-forked ones too); unmount its sockets.

    Its /tmp and /dev/shm go with its mount namespace, when the last of its processes is gone.
    """
    pid = os.fork()
    if pid == 0:
        try:
            become(uid)
            for _ in range(100):  # a fork bomb may fork between two kill(-1)s
                try:
                    os.kill(-1, signal.SIGKILL)
                except ProcessLookupError:
                    break
                # kill(-1) succeeds while any other process is in the namespace (the zygote is), so it
                # never says when the uid has none left: /proc does. A killed process is a zombie, and
                # forks no more. (Looping the full 100 cost 0.11 s a release, twice a notebook.)
                if not living(uid):
                    break
                time.sleep(0.001)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    run = run_dir(uid)
    if os.path.isdir(run):
        libc.umount2(run.encode(), MNT_DETACH)  # whatever is in it, however its modes were set
        os.rmdir(run)
    try:
        os.rmdir(home_dir(uid))  # an empty mount point here: its tmpfs was the kernel's namespace's
    except OSError:
        pass

# living (its source is put here from the function of that name below)

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
        elif req["op"] == "ping":
            reply = {"pong": os.getpid()}
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


def python_cells_untokenized(manager):
    """Skip IPython's search for its own syntax in a cell that compiles as Python: it cannot change it.

    Before running a cell, IPython tokenizes it with Python's pure-Python tokenizer to find %magics,
    !shell commands, `obj?` help and the like: 0.1 s for the 94 KB cell of reference values that
    `grader build` writes in notebook 05, more for a probe, whose inputs travel in its source.
    Compiling the cell takes a quarter of that (benchmarks/transforms.py: 0.09 CPU-s saved a notebook
    on a graded class). Every form that search rewrites (a line starting with one of
    ``! ? % , ; /``, ``x = %magic``, ``x = !cmd``, a line ending in ``?``) is a syntax error in
    Python, so a cell that compiles holds none of them and the search would return it unchanged; a
    cell that does not compile is searched as before. IPython's cleanup (prompts, common indent) and
    %%cell magics run before this, unchanged. Runs in the zygote's kernels (its source is copied
    into ZYGOTE), on the shell's `input_transformer_manager`, and where the grader asks which cells do
    not compile (nbgrader_plugin.syntax_errors); tests/test_engine.py checks it transforms every cell as
    IPython does.
    """
    import ast
    import warnings
    search = manager.do_token_transforms
    silenced = ("ignore", None, Warning, None, 0)

    def compiles(source):
        # This compile's own warnings (an invalid escape, `is` with a literal) are dropped: IPython's
        # compile of the cell shows them. The filter goes in and out of the list in place:
        # warnings.catch_warnings() would reset every module's record of the warnings already shown, and
        # show them again in later cells.
        filters = warnings.filters
        try:
            filters.insert(0, silenced)
        except Exception:  # noqa: BLE001 (the cells replaced the list: IPython searches, as it would)
            return False
        try:
            compile(source, "<>", "exec", ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
            return True
        except Exception:  # noqa: BLE001 (SyntaxError, ValueError for a null byte, MemoryError, RecursionError)
            return False
        finally:
            filters.remove(silenced)

    def do_token_transforms(lines):
        return lines if compiles("".join(lines)) else search(lines)
    manager.do_token_transforms = do_token_transforms


def living(uid):
    """Whether a process of `uid` other than this one is not yet dead (its /proc status; zombies are dead)."""
    me = str(os.getpid())
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or entry == me:
            continue
        try:
            with open(f"/proc/{entry}/status") as f:
                fields = dict(line.split(":", 1) for line in f if line.startswith(("State:", "Uid:")))
        except (OSError, ValueError):
            continue  # gone meanwhile
        state, uids = fields.get("State", "").split(), fields.get("Uid", "").split()
        if str(uid) in uids and state and state[0] not in "ZX":
            return True
    return False


for _function in (python_cells_untokenized, living):
    _placeholder = f"# {_function.__name__} (its source is put here from the function of that name below)\n"
    assert ZYGOTE.count(_placeholder) == 1, _function.__name__
    ZYGOTE = ZYGOTE.replace(_placeholder, inspect.getsource(_function))


class Zygote:
    """One sandboxed, warm interpreter that forks kernels; talk to it with spawn/poll/release."""

    def __init__(self, **sandbox_config):
        self.sandbox = SandboxedKernelManager(**sandbox_config)
        if not self.sandbox.privileged:
            raise RuntimeError("forked kernels each get their own uid: the grader must run as root")
        self.sandbox._make_sandbox_dir()  # its generated /etc files, and its kernels' connection files
        rlimits = {"RLIMIT_AS": self.sandbox.memory_limit, "RLIMIT_NPROC": self.sandbox.max_processes,
                   "RLIMIT_CPU": self.sandbox.cpu_time_limit, "RLIMIT_FSIZE": self.sandbox.file_size_limit,
                   "RLIMIT_NOFILE": self.sandbox.open_files_limit, "RLIMIT_CORE": 0}
        config = {"rlimits": {k: v for k, v in rlimits.items() if v or k == "RLIMIT_CORE"},
                  "run_dir": KERNEL_RUN_DIR,
                  "tmp_size": self.sandbox.tmp_size, "shm_size": self.sandbox.shm_size,
                  "inodes": INODES,
                  "output_limit": 1_000_000,
                  # a figure is well under it; the grader refuses messages past max_message_size
                  "display_limit": min(8 * 2**20, self.sandbox.max_message_size // 2 or 8 * 2**20),
                  # as nbgrader's Execute starts kernels: no history database
                  "kernel_args": ["--HistoryManager.hist_file=:memory:"]}
        cmd = self.sandbox.sandbox_command([sys.executable, "-c", ZYGOTE, json.dumps(config)], zygote=True)
        self.process = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                        cwd=self.sandbox._sandbox_dir, env={"PATH": os.defpath})
        self._lock = threading.Lock()
        ready = self._read()
        if "ready" not in ready:
            raise RuntimeError(f"the zygote did not start: {ready}")
        init = _children().get(self.process.pid, [])
        if not init:
            raise RuntimeError("the zygote's sandbox has no init process")
        self.root = f"/proc/{init[0]}/root"  # the sandbox's files, seen from the grader
        self.host_pid = next(iter(_children().get(init[0], [])), None)  # the zygote's own python
        self._uids = {}  # uid -> the lock that holds it

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

    def healthy(self):
        """Alive and answering: what a notebook needs before its kernel is forked here."""
        if self.process.poll() is not None:
            return False
        try:
            return "pong" in self.request(op="ping")
        except (RuntimeError, OSError, ValueError):
            return False

    def new_uid(self):
        """A uid no other kernel on this machine has, held until release().

        Every worker process has a zygote of its own, and a uid shared by two kernels would
        let one kill the other (release() kills every process of the uid).
        """
        uid, lock = lock_free_uid(self.sandbox.uid_range_start, self.sandbox.uid_range_size)
        self._uids[uid] = lock
        return uid

    def spawn(self, uid, connection):
        return self.request(op="spawn", uid=uid, connection=connection)["pid"]

    def kernel_host_pid(self, pid):
        """The grader's pid for a kernel the zygote knows as `pid` (they live in the sandbox's pid namespace)."""
        for child in _children().get(self.host_pid, []):
            try:
                with open(f"/proc/{child}/status") as f:
                    nspid = next(line.split()[1:] for line in f if line.startswith("NSpid:"))
            except (OSError, StopIteration):
                continue
            if int(nspid[-1]) == pid:
                return child
        return None

    def poll(self, pid):
        return self.request(op="poll", pid=pid)["status"]

    def release(self, uid, pid=None):
        status = self.request(op="release", uid=uid, pid=pid)["status"]
        lock = self._uids.pop(uid, None)
        if lock is not None:
            lock.close()  # the uid has no process left
        return status

    def close(self):
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for lock in self._uids.values():
            lock.close()
        self._uids.clear()
        self.sandbox._remove_sandbox_dir()


_zygote = None
_zygote_lock = threading.Lock()
INODES = 65536  # files a kernel's /tmp or /dev/shm may hold (each costs kernel memory, outside its size)


def zygote(replace=None):
    """This process's zygote: started on first use, and again if it died, stopped answering or is `replace`."""
    global _zygote
    with _zygote_lock:
        if _zygote is not None and (_zygote is replace or not _zygote.healthy()):
            _zygote.close()
            _zygote = None
        if _zygote is None:
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
        self._cgroup = None
        self._host_pid = None

    def client(self, **kwargs):
        return bounded_client(super().client(**kwargs), self._sandbox_config().max_message_size)

    def _sandbox_config(self):
        return self._zygote.sandbox if getattr(self, "_zygote", None) else SandboxedKernelManager()

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
        # jupyter_client writes this file for the grader's side; beside the zygote's, not in /tmp
        self.connection_file = os.path.join(self._zygote.sandbox._sandbox_dir, f"kernel-{self._uid}.json")
        return await super()._async_pre_start_kernel(**kw)

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        info = self.get_connection_info()
        connection = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in info.items()}
        try:
            pid = self._zygote.spawn(self._uid, connection)
        except RuntimeError:  # a zygote that cannot fork a kernel any more is replaced, never inherited
            lock = self._zygote._uids.pop(self._uid)  # the uid stays this kernel's
            self._zygote = zygote(replace=self._zygote)
            self._zygote._uids[self._uid] = lock
            pid = self._zygote.spawn(self._uid, connection)
        self.provisioner.process = _ForkedProcess(self._zygote, self._uid, pid)
        self.provisioner.pid, self.provisioner.pgid = pid, None
        self.ip = f"{self._zygote.root}{KERNEL_RUN_DIR}/k{self._uid}/ipc"
        # Its CPU and memory limits, before it runs any of the notebook: everything it starts inherits them.
        self._cgroup = cgroup.kernel_cgroup(f"k{self._uid}", self._zygote.sandbox.cpu_limit,
                                            self._zygote.sandbox.kernel_memory)
        if self._cgroup is not None and self.kernel_host_pid() is not None:
            self._cgroup.add(self._host_pid)

    def kernel_host_pid(self):
        """The kernel's process as the grader sees it (the zygote knows it by its sandbox's pid), or None."""
        if self._host_pid is None and self._uid is not None and getattr(self.provisioner, "pid", None):
            self._host_pid = self._zygote.kernel_host_pid(self.provisioner.pid)
        return self._host_pid

    async def _async_cleanup_resources(self, restart=False):
        await super()._async_cleanup_resources(restart=restart)
        if self._uid is not None and not restart:
            self._zygote.release(self._uid)  # whatever the kernel left running goes too
            self._uid = None
            self._host_pid = None
            group, self._cgroup = self._cgroup, None
            if group is not None:
                group.close()


class ForkedExecute(Execute):
    """nbgrader's Execute with the kernel forked from the zygote, shut down at once when done."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("kernel_manager_class", ForkedKernelManager)
        kwargs.setdefault("shutdown_kernel", "immediate")
        super().__init__(*args, **kwargs)
