"""Run students' notebooks in a sandboxed kernel: bubblewrap, no network, resource limits.

Student code is untrusted. nbgrader's Execute starts an ordinary Jupyter kernel
as the grading user, so a notebook could read the course directory (source/,
solutions/, the gradebook, other students' submissions), import the grader and
read its references, talk to the network, or take the machine down. Here the
kernel is started inside bubblewrap (``bwrap``) instead:

* **Files**: the sandbox root is an empty tmpfs, read-only once set up. It
  holds only ``/usr`` (and the ``/bin``, ``/lib*`` links or binds), a few files
  of ``/etc`` (the dynamic linker's cache, the time zone, fontconfig) plus a
  generated ``passwd``/``group``/``hosts``/``nsswitch.conf``, the running
  interpreter's own prefixes read-only (``sys.prefix``, ``sys.base_prefix``,
  ...: numpy, matplotlib and ipykernel import; nothing else of the home
  directory they live in), a fresh ``/proc`` and a minimal read-only ``/dev``.
  Writable, and all size-limited tmpfs's (memory, gone with the kernel): a
  private ``/tmp`` (HOME), an empty scratch directory (the kernel's working
  directory), ``/dev/shm`` and ``/run/kernel`` (its sockets). No host
  directory is writable from inside. ``/work``, ``/root``, the course, the
  gradebook and the grader's code (installed editable: its .pth entry points at
  a path that is not there, so ``import grader`` fails) are simply not there.
* **Network**: a new, empty network namespace (only a down loopback). The
  kernel talks to the grader over unix domain sockets (jupyter_client's "ipc"
  transport): it binds them in its ``/run/kernel``, and the grader reaches them
  as ``/proc/<sandbox init pid>/root/run/kernel/...``.
* **Processes**: a new pid namespace whose init is bubblewrap; when the kernel
  exits or is killed, the kernel tears the whole namespace down, so nothing the
  student started (daemons, ``setsid`` children) survives. ``--die-with-parent``
  covers the grader dying.
* **Identity and limits**: see ``SandboxedKernelManager``. In short, as root the
  kernel runs as a fresh unprivileged uid per kernel (so RLIMIT_NPROC, which the
  kernel counts per uid, is a per-kernel process limit); as an ordinary user it
  runs in its own user namespace (where the kernel also counts processes per
  namespace). rlimits bound address space, processes, CPU time, file size and
  open files; the tmpfs sizes bound what can be written.
* **Environment**: built from scratch (``--clearenv``); nothing of the grader's
  environment (tokens, COURSE_GRADING_SEED, ...) reaches the student.

Use it from nbgrader with ``SandboxedExecute`` (see the module's end), or with
nbclient: ``NotebookClient(nb, kernel_manager_class=SandboxedKernelManager)``.
``python -m grader.sandbox`` checks the sandbox on this machine and measures the
kernel start-up time with and without it.

Linux only; needs bubblewrap (apt-get install bubblewrap) and util-linux
(prlimit, setpriv).

Not covered (known limits of this design):

* RLIMIT_AS is per process: a kernel's total memory is bounded only by
  max_processes x memory_limit (plus its tmpfs's). A cgroup (memory.max,
  pids.max) would bound a kernel as a whole; it needs a delegated cgroup v2
  tree, which is not set up here.
* No seccomp filter. As root the kernel (an unprivileged uid) may still create
  user namespaces of its own; that gives it nothing of the host's files or
  network, but it is kernel attack surface (as an ordinary user,
  ``--disable-userns`` forbids it). ``sysctl user.max_user_namespaces=0`` on
  a grading-only machine closes it.
* The kernel owns its socket directory, so it could replace a socket by a
  symlink to some other unix socket of the host, which the grader would then
  connect to. The grader only completes a ZMQ handshake and accepts messages
  signed with this kernel's key, so this gets nothing back.
* ``/proc`` shows host-wide figures (meminfo, cpuinfo, loadavg), not processes.
"""
import asyncio
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile

import zmq
from jupyter_client.manager import AsyncKernelManager
from jupyter_client.provisioning import LocalProvisioner
from traitlets import Bool, Dict, Float, Integer, List, Unicode, default

from . import cgroup

MiB = 1024 ** 2
GiB = 1024 ** 3

# Where things live inside the sandbox.
SANDBOX_HOME = "/tmp"
SANDBOX_USER = "student"
SANDBOX_HOSTNAME = "sandbox"
KERNEL_RUN_DIR = "/run/kernel"  # the kernel's sockets (a 1 MiB tmpfs) and connection file

# Top-level system paths: replicated as symlinks when they are symlinks on the host
# (merged /usr: /bin -> usr/bin), bound read-only otherwise.
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32")

# The only host files of /etc the kernel needs: the dynamic linker finds
# /usr/lib/<multiarch> libraries through its cache; localtime gives time.localtime
# the host's zone; matplotlib asks fontconfig (fc-list) for the system fonts.
# Everything else of /etc (ssl keys, ssh, password hashes, ...) stays out.
HOST_ETC_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/fonts")


def _is_within(path, parent):
    path, parent = os.path.normpath(path), os.path.normpath(parent)
    return path == parent or path.startswith(parent.rstrip("/") + "/")


def _ancestors(path):
    """'/a/b/c' -> ['/a', '/a/b'] (not '/' and not the path itself)."""
    parts = os.path.normpath(path).strip("/").split("/")[:-1]
    return ["/" + "/".join(parts[:i + 1]) for i in range(len(parts))]


def _interpreter_prefixes():
    """The running interpreter's installation: the venv and the Python it was made from.

    Only these directories are bound, never the home directory around them (e.g.
    /root/.pyenv/versions/3.11.7, not /root). Paths are used as they are spelled
    (sys.executable in a venv is a symlink into base_prefix, which is bound too)
    and resolved, in case a prefix is itself reached through a symlink.
    """
    found = []
    for p in (sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix):
        for q in (os.path.abspath(p), os.path.realpath(p)):
            if q not in found and os.path.isdir(q):
                found.append(q)
    return found


class SandboxedKernelManager(AsyncKernelManager):
    """An AsyncKernelManager that starts the kernel inside bubblewrap.

    Works with nbclient/nbconvert/nbgrader (``kernel_manager_class``). Only a
    local Python kernel is supported: the sandbox contains this interpreter only.

    Who the kernel runs as (and why):

    * grader running as root (the usual grading server): bubblewrap runs
      privileged to build the sandbox (it can read the interpreter even when it
      sits under a 0700 home such as /root/.pyenv), keeps only the capabilities
      setpriv needs, and the kernel is then started (no capabilities, no new
      privileges, empty bounding set) as a *fresh unprivileged uid per
      kernel*, drawn at random from [uid_range_start, uid_range_start +
      uid_range_size) and not used by any running process. Rationale: the Linux
      kernel does not enforce RLIMIT_NPROC for root (uid 0 is exempt), and counts
      it per uid; one uid per kernel makes ``max_processes`` a per-kernel limit,
      so one student's fork bomb cannot use up another kernel's budget or the
      machine's. The uid owns no file on the host but its connection file, so
      everything the sandbox shows is "other" to it.
      (bwrap's ``--unshare-user`` is not used as root: its uid would map to root
      outside, where RLIMIT_NPROC is not enforced.)
    * grader running as an ordinary user: bubblewrap runs unprivileged with
      ``--unshare-user`` (and ``--disable-userns``), so the kernel runs as the
      same user inside its own user namespace. Since Linux 5.14 processes are
      counted per user namespace as well, so ``max_processes`` is still per
      kernel (and bounded overall by the user's own limit).

    Interrupts are sent as messages on the control channel (``interrupt_mode =
    "message"``): the kernel is in its own session inside the pid namespace, so
    a SIGINT to the process group jupyter_client knows (bubblewrap's) would kill
    the sandbox instead of interrupting the cell. nbgrader's Execute interrupts a
    cell on timeout and goes on with the next cells, so this matters.
    """

    # ---- limits (rlimits of the kernel and everything it starts) ----
    memory_limit = Integer(
        4 * GiB,
        help="Address-space limit (RLIMIT_AS) per process, in bytes; 0: none. "
             "A sandboxed kernel with numpy and matplotlib loaded peaks at about 0.9 GiB of "
             "address space (libraries, thread stacks, malloc arenas), so 4 GiB leaves "
             "~3 GiB for arrays: plenty for the course, far below the machine. "
             "An allocation beyond it raises MemoryError in the student's cell instead "
             "of waking the OOM killer. It is per process: a forked child has its own.",
    ).tag(config=True)
    max_processes = Integer(
        256,
        help="RLIMIT_NPROC: processes *and threads* the kernel may have at once "
             "(per kernel, see the class doc). The kernel itself uses ~10 threads; "
             "256 leaves room for multiprocessing and stops a fork bomb early.",
    ).tag(config=True)
    cpu_time_limit = Integer(
        900,
        help="RLIMIT_CPU per process, in CPU seconds; 0: none. A backstop for CPU "
             "burnt outside a cell's timeout (background threads, forked children); the "
             "per-cell timeout of nbgrader's Execute is what stops a busy cell.",
    ).tag(config=True)
    cpu_limit = Float(
        1.0,
        help="Cores a kernel may use at once, everything it starts included (a cgroup per kernel, "
             "where the machine offers one: grader/cgroup.py); 0: no limit. One core is what a "
             "notebook of the course uses; a submission that starts many busy processes then "
             "slows only itself, never its neighbours.",
    ).tag(config=True)
    max_message_size = Integer(
        64 * MiB,
        help="Largest message the grader takes from the kernel, in bytes (zmq's MAXMSGSIZE on the "
             "grader's sockets); 0: none. A larger one (a 450 MB display in one piece) is dropped "
             "before it is read, so the grading process's memory stays bounded whatever the "
             "kernel sends; what the notebook shows is capped per cell anyway.",
    ).tag(config=True)
    file_size_limit = Integer(
        256 * MiB, help="RLIMIT_FSIZE: largest file the kernel may write, in bytes; 0: none.",
    ).tag(config=True)
    open_files_limit = Integer(
        1024, help="RLIMIT_NOFILE: open file descriptors per process (a kernel uses a few dozen).",
    ).tag(config=True)
    tmp_size = Integer(
        512 * MiB,
        help="Size of the private /tmp (a tmpfs, so it is memory: it must be bounded).",
    ).tag(config=True)
    scratch_size = Integer(512 * MiB, help="Size of the scratch working directory (tmpfs).").tag(config=True)
    shm_size = Integer(64 * MiB, help="Size of /dev/shm (multiprocessing's semaphores live there).").tag(config=True)

    # ---- identity ----
    uid_range_start = Integer(
        2_000_000_000,
        help="First uid of the range the per-kernel uids are drawn from (grader running as "
             "root only). Far above what distributions, systemd's DynamicUser and "
             "/etc/subuid hand out, so no real account shares a uid with a kernel.",
    ).tag(config=True)
    uid_range_size = Integer(65536, help="How many uids the range holds.").tag(config=True)

    # ---- files ----
    scratch_dir = Unicode(
        "/scratch",
        help="The kernel's working directory inside the sandbox: an empty tmpfs. The "
             "notebook's own directory on the host (which nbclient asks for) is not "
             "shown: it may hold other files of the course.",
    ).tag(config=True)
    hidden_paths = List(
        Unicode(),
        help="Host paths to hide even when they lie inside what the sandbox shows: an empty, "
             "unreadable directory (or /dev/null for a file) is put over them. By default the "
             "grader package itself: installed editable it is not in the sandbox anyway, but "
             "a plain `pip install .` puts it (references, probes) in site-packages, next to "
             "numpy.",
    ).tag(config=True)

    @default("hidden_paths")
    def _default_hidden_paths(self):
        return [os.path.dirname(os.path.abspath(__file__))]

    extra_ro_binds = List(
        Unicode(),
        help="More host paths to show read-only at the same path (e.g. a data set the "
             "notebooks read). Never the course directory.",
    ).tag(config=True)
    runtime_root = Unicode(
        help="Host directory under which each kernel (or zygote) gets its own 0700 directory: its "
             "connection file and generated /etc files, which the sandbox sees read-only. Default: "
             "$COURSE_SANDBOX_DIR, else .sandbox in the working directory (nbgrader's is the course "
             "directory), so a run leaves nothing outside it; what a killed run left there is "
             "removed by the next.",
    ).tag(config=True)

    @default("runtime_root")
    def _default_runtime_root(self):
        return runtime_root()

    # ---- environment ----
    extra_env = Dict(
        help="More environment variables for the kernel (the environment is otherwise "
             "built from scratch: no variable of the grader's reaches the student).",
    ).tag(config=True)
    blas_threads = Integer(
        1,
        help="OMP/OPENBLAS/MKL_NUM_THREADS: one BLAS thread per kernel. Grading runs several "
             "kernels side by side, every thread counts against max_processes, and results "
             "do not depend on the number of cores of the grading machine.",
    ).tag(config=True)
    message_interrupts = Bool(
        True, help="Interrupt the kernel with a control-channel message (see the class doc).",
    ).tag(config=True)

    bwrap_path = Unicode("bwrap", help="The bubblewrap executable.").tag(config=True)

    # The kernel talks to the grader over unix sockets: the sandbox has no network.
    @default("transport")
    def _default_transport(self):
        return "ipc"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._sandbox_dir = None
        self._sandbox_uid = None
        self._uid_lock = None  # holds _sandbox_uid (see lock_free_uid)
        self._cgroup = None

    @property
    def kernel_spec(self):
        spec = super().kernel_spec
        if spec is not None and self.message_interrupts:
            spec.interrupt_mode = "message"
        return spec

    def client(self, **kwargs):
        return bounded_client(super().client(**kwargs), self.max_message_size)

    @property
    def privileged(self):
        """True when the grader runs as root: bwrap builds the sandbox, a per-kernel uid runs it."""
        return os.geteuid() == 0

    # ---------------------------------------------------------------- lifecycle

    # How the sockets are reached. The kernel binds its unix sockets in KERNEL_RUN_DIR, a
    # tiny tmpfs of its own, and the connection file it reads says so. Once it is launched,
    # the grader reaches the same sockets through /proc/<pid>/root/run/kernel, <pid> being
    # the sandbox's init. So no host directory is writable from inside the sandbox (a bound
    # host directory would let a student fill the host's disk, RLIMIT_FSIZE at a time).

    async def _async_pre_start_kernel(self, **kw):
        if self.transport != "ipc":
            raise RuntimeError("SandboxedKernelManager needs transport='ipc': the sandbox has no network")
        if self._sandbox_dir is None:  # a restart keeps the directory and connection file
            self._make_sandbox_dir()
        # what the connection file says (and, on a restart, what it already said)
        self.ip = f"{KERNEL_RUN_DIR}/ipc"
        return await super()._async_pre_start_kernel(**kw)

    def _make_sandbox_dir(self):
        """Host directory of this kernel: its connection file and generated /etc files.

        0700 and never bound writable: bwrap reads it, the kernel gets read-only copies.
        """
        os.makedirs(self.runtime_root, mode=0o700, exist_ok=True)
        remove_stale(self.runtime_root)
        self._sandbox_dir = tempfile.mkdtemp(prefix=f"sbk-{os.getpid()}-", dir=self.runtime_root)
        if self.privileged:
            self._sandbox_uid = self._pick_uid()
        self.connection_file = os.path.join(self._sandbox_dir, "kernel.json")
        self._write_etc()

    def _pick_uid(self):
        """A uid from the range that no running process and no other kernel on this machine uses."""
        uid, self._uid_lock = lock_free_uid(self.uid_range_start, self.uid_range_size)
        return uid

    def _write_etc(self):
        """Generated /etc files: the sandbox user only, names resolve from files only."""
        etc = os.path.join(self._sandbox_dir, "etc")
        os.mkdir(etc, 0o755)
        uid = self._sandbox_uid if self.privileged else os.getuid()
        gid = self._sandbox_uid if self.privileged else os.getgid()
        files = {
            "passwd": f"root:x:0:0:root:/root:/usr/sbin/nologin\n"
                      f"{SANDBOX_USER}:x:{uid}:{gid}:{SANDBOX_USER}:{SANDBOX_HOME}:/bin/sh\n"
                      f"nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
            "group": f"root:x:0:\n{SANDBOX_USER}:x:{gid}:\nnogroup:x:65534:\n",
            "hosts": f"127.0.0.1 localhost {SANDBOX_HOSTNAME}\n::1 localhost\n",
            "nsswitch.conf": "passwd: files\ngroup: files\nshadow: files\nhosts: files dns\n",
        }
        for name, text in files.items():
            with open(os.path.join(etc, name), "w") as f:
                f.write(text)
            os.chmod(os.path.join(etc, name), 0o644)

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        if not isinstance(self.provisioner, LocalProvisioner):
            raise RuntimeError("SandboxedKernelManager only launches local kernels")
        cmd = self.sandbox_command(kernel_cmd)
        if self.privileged:  # jupyter_client wrote it 0600 for root; the kernel's uid reads it
            os.chown(self.connection_file, self._sandbox_uid, self._sandbox_uid)
        kw["cwd"] = self._sandbox_dir  # the host cwd of bwrap itself; inside it is scratch_dir
        kw["env"] = {"PATH": os.defpath, "LANG": "C.UTF-8"}  # for bwrap; the kernel's is set by --setenv
        self.log.debug("Starting sandboxed kernel: %s", cmd)
        await super()._async_launch_kernel(cmd, **kw)
        try:
            init = await self._sandbox_init_pid()
        except BaseException:
            if self.has_kernel:
                await self.provisioner.kill()
                await self.provisioner.wait()
            self._remove_sandbox_dir()
            raise
        # Its CPU limit, before it runs any of the notebook: everything it starts inherits it.
        self._cgroup = cgroup.kernel_cgroup(f"s{self._sandbox_uid or init}", self.cpu_limit)
        if self._cgroup is not None:
            for pid in self.sandbox_pids():
                try:
                    self._cgroup.add(pid)
                except OSError:
                    pass
        # From now on the grader's side (control socket, clients) connects through the
        # sandbox's root; zmq retries until the kernel has bound its sockets.
        self.ip = f"/proc/{init}/root{KERNEL_RUN_DIR}/ipc"

    async def _sandbox_init_pid(self, timeout=10.0):
        """The pid of bwrap's child: pid 1 of the sandbox, it lives as long as the sandbox."""
        outer = self.provisioner.pid
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            children = _children().get(outer)
            if children:
                return children[0]
            if self.provisioner.process.poll() is not None:
                raise RuntimeError(f"bubblewrap exited with status {self.provisioner.process.returncode} "
                                   "before starting the kernel (its message is on the grader's stderr)")
            if loop.time() > deadline:
                raise RuntimeError("bubblewrap did not start the sandbox")
            await asyncio.sleep(0.005)

    async def _async_cleanup_resources(self, restart=False):
        await super()._async_cleanup_resources(restart=restart)
        if not restart:
            self._remove_sandbox_dir()

    def _remove_sandbox_dir(self):
        group, self._cgroup = self._cgroup, None
        if group is not None:
            group.close()
        if self._sandbox_dir is not None:
            shutil.rmtree(self._sandbox_dir, ignore_errors=True)
            self._sandbox_dir = None
        lock, self._uid_lock = self._uid_lock, None
        if lock is not None:
            lock.close()
        self._sandbox_uid = None

    def sandbox_pids(self):
        """Host pids of every process of this kernel's sandbox (bwrap and all below it)."""
        if not self.has_kernel or self.provisioner.pid is None:
            return []
        return _descendants(self.provisioner.pid)

    # ------------------------------------------------------------------ command

    def sandbox_env(self):
        prefix_bin = os.path.dirname(os.path.abspath(sys.executable))
        env = {
            "PATH": f"{prefix_bin}:/usr/local/bin:/usr/bin:/bin",
            "HOME": SANDBOX_HOME,
            "TMPDIR": "/tmp",
            "USER": SANDBOX_USER,
            "LOGNAME": SANDBOX_USER,
            "LANG": "C.UTF-8",
            "MPLCONFIGDIR": "/tmp",
            "MPLBACKEND": "module://matplotlib_inline.backend_inline",
            "PYTHONNOUSERSITE": "1",          # no ~/.local packages, even ones the student wrote to /tmp
            "PYTHONDONTWRITEBYTECODE": "1",   # the prefixes are read-only anyway
            "OMP_NUM_THREADS": str(self.blas_threads),
            "OPENBLAS_NUM_THREADS": str(self.blas_threads),
            "MKL_NUM_THREADS": str(self.blas_threads),
            # ipykernel's parent poller would take bwrap's init (pid 1 in the sandbox) for a dead
            # parent; "1" turns it off (and the banner it prints). --die-with-parent does its job.
            "JPY_PARENT_PID": "1",
        }
        env.update({str(k): str(v) for k, v in self.extra_env.items()})
        return env

    def rlimit_args(self):
        """prlimit options; each sets soft = hard, so the kernel cannot raise it back."""
        limits = [("--as", self.memory_limit), ("--nproc", self.max_processes),
                  ("--cpu", self.cpu_time_limit), ("--fsize", self.file_size_limit),
                  ("--nofile", self.open_files_limit), ("--core", 0)]
        return [f"{opt}={value}" for opt, value in limits if value or opt == "--core"]

    def sandbox_command(self, kernel_cmd, zygote=False):
        """The full command line: bwrap [sandbox] -- prlimit [limits] -- [setpriv uid] -- kernel_cmd.

        zygote=True (root only): the same sandbox for grader/forkserver.py's zygote, which
        forks many kernels and gives each its own uid, limits, /tmp, /dev/shm and socket
        directory itself. It keeps CAP_CHOWN (to hand the socket directory over) and
        CAP_SYS_ADMIN (to mount each kernel's own tmpfs's, in a mount namespace of the
        kernel's own) besides setuid/setgid/setpcap; the kernel drops them all before it
        runs anything. /tmp and /run/kernel are root's (0755), no connection file is
        bound and nothing wraps the command.
        """
        if zygote and not self.privileged:
            raise RuntimeError("a zygote gives each kernel its own uid: it needs the grader to run as root")
        if self._sandbox_dir is None:
            raise RuntimeError("no sandbox directory: start the kernel through start_kernel()")
        bwrap = shutil.which(self.bwrap_path)
        if bwrap is None:
            raise RuntimeError(f"bubblewrap ({self.bwrap_path}) is not installed")
        b = _Bwrap()

        # Namespaces: no network, own pids/ipc/hostname/cgroup view.
        args = ["--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
                "--hostname", SANDBOX_HOSTNAME, "--unshare-cgroup-try",
                "--die-with-parent",  # the grader dies -> the sandbox dies
                "--new-session"]      # no controlling terminal: no TIOCSTI into the grader's tty
        if self.privileged:
            # keep only what setpriv needs to switch to the kernel's uid and empty the bounding set
            args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID",
                     "--cap-add", "CAP_SETPCAP"]
            if zygote:
                args += ["--cap-add", "CAP_CHOWN", "--cap-add", "CAP_SYS_ADMIN"]
        else:
            args += ["--unshare-user", "--disable-userns"]
        b.args += args

        # System: /usr and the merged-/usr links, read-only.
        for path in SYSTEM_PATHS:
            if os.path.islink(path):
                b.symlink(os.readlink(path), path)
            elif os.path.isdir(path):
                b.ro_bind(path, path)
        b.dir("/etc")
        for path in HOST_ETC_FILES:
            if os.path.islink(path):
                b.symlink(os.readlink(path), path)
            elif os.path.exists(path):
                b.ro_bind(path, path)
        for name in ("passwd", "group", "hosts", "nsswitch.conf"):
            b.ro_bind(os.path.join(self._sandbox_dir, "etc", name), f"/etc/{name}")
        b.args += ["--proc", "/proc", "--dev", "/dev"]
        b.tmpfs("/dev/shm", self.shm_size)
        b.tmpfs("/tmp", self.tmp_size, perms="0755" if zygote else "1777")

        # The interpreter, read-only (after /tmp: a venv may live under /tmp).
        visible = list(SYSTEM_PATHS)
        for path in sorted(_interpreter_prefixes() + [os.path.abspath(p) for p in self.extra_ro_binds], key=len):
            if not os.path.exists(path) or any(_is_within(path, v) for v in visible):
                continue
            b.ro_bind(path, path)
            visible.append(path)
        hidden = []
        for path in (os.path.abspath(p) for p in self.hidden_paths):
            if not any(_is_within(path, v) for v in visible):
                continue  # not shown anyway
            if os.path.isdir(path):
                b.args += ["--perms", "0000", "--size", str(64 * 1024), "--tmpfs", path]
                hidden.append(path)
            elif os.path.exists(path):
                b.args += ["--ro-bind", "/dev/null", path]
        exe = kernel_cmd[0]
        for p in (exe, os.path.realpath(exe)):
            if not any(_is_within(p, v) for v in visible):
                raise RuntimeError(f"the kernel's interpreter {p} would not be visible in the sandbox; "
                                   "only this Python's prefixes are bound (see extra_ro_binds)")

        # The kernel's sockets and (read-only) connection file.
        if zygote:
            b.tmpfs(KERNEL_RUN_DIR, 4 * MiB, perms="0755")
        else:
            b.tmpfs(KERNEL_RUN_DIR, 1 * MiB)
            inside_connection_file = f"{KERNEL_RUN_DIR}/connection.json"
            b.ro_bind(self.connection_file, inside_connection_file)
            kernel_cmd = [arg.replace(self.connection_file, inside_connection_file) for arg in kernel_cmd]
        b.tmpfs(self.scratch_dir, self.scratch_size)
        # Read-only from here: the root and /dev are tmpfs's bwrap made (owned by the kernel's
        # user in a user namespace, and unbounded); writes to device nodes still work.
        b.args += ["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", self.scratch_dir, "--clearenv"]
        for path in hidden:
            b.args += ["--remount-ro", path]
        for k, v in self.sandbox_env().items():
            b.args += ["--setenv", k, v]

        if zygote:
            return [bwrap, *b.args, "--", *kernel_cmd]
        inner = [shutil.which("prlimit") or "/usr/bin/prlimit", *self.rlimit_args(), "--"]
        if self.privileged:
            uid = self._sandbox_uid
            inner += [shutil.which("setpriv") or "/usr/bin/setpriv", f"--reuid={uid}", f"--regid={uid}",
                      "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]
        return [bwrap, *b.args, "--", *inner, *kernel_cmd]


class _Bwrap:
    """bwrap arguments; creates parent directories 0755 (bwrap's default is 0700)."""

    def __init__(self):
        self.args = []
        self._dirs = {"/"}

    def _parents(self, dest):
        for d in _ancestors(dest):
            if d not in self._dirs:
                self.args += ["--perms", "0755", "--dir", d]
                self._dirs.add(d)

    def dir(self, dest):
        self._parents(dest + "/x")

    def ro_bind(self, src, dest):
        self._parents(dest)
        self.args += ["--ro-bind", src, dest]
        self._dirs.add(dest)

    def bind(self, src, dest):
        self._parents(dest)
        self.args += ["--bind", src, dest]
        self._dirs.add(dest)

    def symlink(self, target, dest):
        self._parents(dest)
        self.args += ["--symlink", target, dest]

    def tmpfs(self, dest, size, perms="1777"):
        self._parents(dest)
        if size:
            self.args += ["--size", str(size)]
        self.args += ["--perms", perms, "--tmpfs", dest]
        self._dirs.add(dest)


def bounded_client(client, max_message_size):
    """A kernel client whose sockets refuse messages larger than max_message_size (see max_message_size)."""
    if max_message_size:
        client.context.setsockopt(zmq.MAXMSGSIZE, max_message_size)  # for every socket it makes from now on
    return client


RUNTIME_FOLDER = ".sandbox"
RUNTIME_VARIABLE = "COURSE_SANDBOX_DIR"


def runtime_root():
    """Where kernels' host-side files go: $COURSE_SANDBOX_DIR, else ./.sandbox (see runtime_root)."""
    return os.environ.get(RUNTIME_VARIABLE) or os.path.join(os.getcwd(), RUNTIME_FOLDER)


def remove_stale(root):
    """Remove the directories of graders that were killed: their pid (in the name) no longer runs."""
    for name in os.listdir(root):
        parts = name.split("-")
        if len(parts) >= 3 and parts[0] == "sbk" and parts[1].isdigit() and not os.path.exists(f"/proc/{parts[1]}"):
            shutil.rmtree(os.path.join(root, name), ignore_errors=True)


def lock_free_uid(start, size):
    """(uid, lock): a uid of [start, start + size) that no process runs as and no other kernel holds.

    The lock is a unix socket bound in the abstract namespace (no file: nothing to clean up,
    and the kernel frees it when the holder dies, however it dies); close it to release the uid.
    Every grading process on the machine shares the namespace, so two never hand out one uid.
    """
    busy = uids_running()
    for _ in range(1000):
        uid = start + secrets.randbelow(size)
        if uid in busy:
            continue
        lock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            lock.bind(f"\0course-kernel-uid-{uid}")
        except OSError:  # held by another kernel
            lock.close()
            continue
        if uid in uids_running():  # left over from a grader that died: not this one
            lock.close()
            continue
        return uid, lock
    raise RuntimeError("no free uid for a kernel")


def uids_running():
    """The uids of every running process, from /proc."""
    uids = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                uids.add(os.stat(f"/proc/{entry}").st_uid)
            except OSError:
                pass
    return uids


def _children():
    """{ppid: [pid, ...]} of every process, from /proc."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    return children


def _descendants(pid):
    """pid and all its descendants (host pids)."""
    children = _children()
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        todo.extend(children.get(p, []))
    return found if os.path.exists(f"/proc/{pid}") else []


def run_in_sandbox(code, timeout=30, **config):
    """Run ``python -c code`` in a kernel's sandbox (no kernel); config: SandboxedKernelManager traits.

    Returns the CompletedProcess (text stdout/stderr). For checks and tests.
    """
    km = SandboxedKernelManager(**config)
    try:
        km._make_sandbox_dir()
        with open(km.connection_file, "w") as f:
            f.write("{}")
        if km.privileged:
            os.chown(km.connection_file, km._sandbox_uid, km._sandbox_uid)
        cmd = km.sandbox_command([sys.executable, "-c", code, km.connection_file])
        return subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=timeout, cwd=km._sandbox_dir, env={"PATH": os.defpath})
    finally:
        km._remove_sandbox_dir()


def sandbox_available():
    """(True, description) if kernels can be sandboxed here, else (False, why not).

    Runs the interpreter once through the same bubblewrap command the kernels get,
    so a missing tool, disabled user namespaces, or an unreadable prefix shows up
    here, before grading starts.
    """
    if not sys.platform.startswith("linux"):
        return False, f"the sandbox needs Linux (bubblewrap); this is {sys.platform}"
    km = SandboxedKernelManager()
    if shutil.which(km.bwrap_path) is None:
        return False, "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    tools = ["prlimit"] + (["setpriv"] if km.privileged else [])
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        return False, f"{', '.join(missing)} not found (Debian/Ubuntu: apt-get install util-linux)"
    try:
        # the interpreter starts, reads its connection file, sees its scratch dir
        run = run_in_sandbox(f"import os; open({KERNEL_RUN_DIR + '/connection.json'!r}).read(); "
                             f"os.listdir({km.scratch_dir!r})")
    except (OSError, RuntimeError, subprocess.TimeoutExpired) as e:
        return False, f"bubblewrap could not start a sandbox: {e}"
    if run.returncode != 0:
        why = run.stderr.strip() or f"exit status {run.returncode}"
        hint = ""
        if "namespace" in why.lower() or "permission" in why.lower():
            hint = (" (user namespaces may be disabled: check sysctl user.max_user_namespaces and "
                    "kernel.unprivileged_userns_clone / kernel.apparmor_restrict_unprivileged_userns, "
                    "or run the grader as root)")
        return False, f"bubblewrap failed: {why}{hint}"
    version = subprocess.run([shutil.which(km.bwrap_path), "--version"], capture_output=True,
                             text=True).stdout.strip()
    mode = ("as root: one unprivileged uid per kernel" if km.privileged
            else "as an ordinary user: one user namespace per kernel")
    return True, f"{version or 'bubblewrap'}, {mode}"


# ---------------------------------------------------------------- nbgrader

try:
    from nbgrader.preprocessors import Execute as _Execute
except ImportError:  # pragma: no cover - nbgrader is a dependency of the course
    _Execute = None

if _Execute is not None:
    class SandboxedExecute(_Execute):
        """nbgrader's Execute, with every notebook run in a SandboxedKernelManager.

        Needed because nbgrader's Execute passes ``kernel_manager_class`` as a
        constructor argument, which overrides ``c.Execute.kernel_manager_class``
        from the config file: that setting alone is silently ignored. Configure
        it as Execute (``c.Execute.timeout`` applies) and the kernel manager as
        ``c.SandboxedKernelManager.memory_limit = ...``.

        Refuses to run (RuntimeError with the reason) when the sandbox is not
        available; grade unsandboxed only by choosing nbgrader's plain Execute.
        """

        _checked = None

        def __init__(self, *args, **kwargs):
            kwargs.setdefault("kernel_manager_class", SandboxedKernelManager)
            super().__init__(*args, **kwargs)

        def preprocess(self, nb, resources, *args, **kwargs):
            if SandboxedExecute._checked is None:
                SandboxedExecute._checked = sandbox_available()
            ok, why = SandboxedExecute._checked
            if not ok:
                raise RuntimeError(f"cannot sandbox the student's kernel: {why}. To grade without a "
                                   "sandbox anyway (trusted code only), set COURSE_UNSANDBOXED=1 "
                                   "(python -m grader grade --unsandboxed)")
            return super().preprocess(nb, resources, *args, **kwargs)


# ------------------------------------------------------------ self-check

async def _time_start(kernel_manager_class, rounds, **options):
    """Seconds from start_kernel to the first kernel_info reply, per round."""
    import time
    times = []
    for _ in range(rounds):
        km = kernel_manager_class(kernel_name="python3", **options)
        t0 = time.perf_counter()
        await km.start_kernel()
        kc = km.client()
        kc.start_channels()
        try:
            await kc.wait_for_ready(timeout=60)
            times.append(time.perf_counter() - t0)
        finally:
            kc.stop_channels()
            await km.shutdown_kernel(now=True)
    return times


def main():
    ok, why = sandbox_available()
    print(f"sandbox available: {ok} ({why})")
    if not ok:
        return 1
    rounds = 5
    med = lambda ts: sorted(ts)[len(ts) // 2]  # noqa: E731
    # The plain kernel over local sockets too (ipc), as every kernel this project starts: over TCP,
    # ipykernel warns that the connection is unencrypted.
    with tempfile.TemporaryDirectory(prefix="course-kernel-") as sockets:
        plain = med(asyncio.run(_time_start(AsyncKernelManager, rounds, transport="ipc",
                                            ip=os.path.join(sockets, "kernel"))))
    boxed = med(asyncio.run(_time_start(SandboxedKernelManager, rounds)))
    print(f"kernel start-up to first reply, median of {rounds}: "
          f"plain {plain:.2f} s, sandboxed {boxed:.2f} s (overhead {boxed - plain:+.2f} s)")
    if SandboxedKernelManager().privileged:
        from .forkserver import ForkedKernelManager
        forked = asyncio.run(_time_start(ForkedKernelManager, rounds + 1))[1:]  # the first starts the zygote
        print(f"forked from the warm zygote (grader/forkserver.py): {med(forked):.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
