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
What the sandbox is (paths, limits, the bubblewrap command) is grader/engine/sandbox_policy.py; this module
applies it to a kernel. ``python -m grader.engine.sandbox_check`` checks the sandbox on this machine and
measures the kernel start-up time with and without it.

Linux only; needs bubblewrap (apt-get install bubblewrap) and util-linux
(prlimit, setpriv).

Not covered (known limits of this design):

* RLIMIT_AS is per process; a kernel as a whole is bounded by its memory
  cgroup (kernel_memory, grader/engine/cgroup.py) where the machine offers
  one to the grader (as root). Elsewhere its total memory is bounded only by
  max_processes x memory_limit (plus its tmpfs's).
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
from traitlets import default

from . import cgroup
from .sandbox_policy import KERNEL_RUN_DIR, SandboxPolicy


class SandboxedKernelManager(SandboxPolicy, AsyncKernelManager):
    """An AsyncKernelManager that starts the kernel inside bubblewrap, as its SandboxPolicy says.

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
        """The policy's /etc files, in this kernel's directory (bound read-only into the sandbox)."""
        etc = os.path.join(self._sandbox_dir, "etc")
        os.mkdir(etc, 0o755)
        uid = self._sandbox_uid if self.privileged else os.getuid()
        gid = self._sandbox_uid if self.privileged else os.getgid()
        for name, text in self.etc_files(uid, gid).items():
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
        self._init_pid, self._kernel_pid = init, None
        # Its CPU and memory limits, before it runs any of the notebook: everything it starts inherits them.
        self._cgroup = cgroup.kernel_cgroup(f"s{self._sandbox_uid or init}", self.cpu_limit, self.kernel_memory)
        if self._cgroup is not None:
            # A process forked before its parent joined stays outside: the kernel, forked by the sandbox's
            # init while /proc was read, would run without its limits. Scan until a scan finds no one new.
            added = set()
            while True:
                new = set(self.sandbox_pids()) - added
                if not new:
                    break
                for pid in new:
                    try:
                        self._cgroup.add(pid)
                    except OSError:
                        pass
                added |= new
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

    _init_pid = _kernel_pid = None

    def kernel_host_pid(self):
        """The kernel's own process (the child of the sandbox's init) as the grader sees it, or None."""
        if self._kernel_pid is None and self._init_pid is not None:
            self._kernel_pid = next(iter(_children().get(self._init_pid, [])), None)
        return self._kernel_pid

    def sandbox_pids(self):
        """Host pids of every process of this kernel's sandbox (bwrap and all below it)."""
        if not self.has_kernel or self.provisioner.pid is None:
            return []
        return _descendants(self.provisioner.pid)

    # ------------------------------------------------------------------ command

    def sandbox_command(self, kernel_cmd, zygote=False):
        """The policy's command line for this kernel (its directory, connection file and uid)."""
        if self._sandbox_dir is None:
            raise RuntimeError("no sandbox directory: start the kernel through start_kernel()")
        return self.sandbox_command_for(kernel_cmd, self._sandbox_dir, self.connection_file, self._sandbox_uid,
                                        self.privileged, zygote=zygote)


def bounded_client(client, max_message_size):
    """A kernel client whose sockets refuse messages larger than max_message_size (see max_message_size)."""
    if max_message_size:
        client.context.setsockopt(zmq.MAXMSGSIZE, max_message_size)  # for every socket it makes from now on
    return client


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
    """pid and all its descendants (host pids). A scan of /proc, not parallel.below's reads of
    /proc/<pid>/task/*/children: those need a kernel built with CONFIG_PROC_CHILDREN, and a process missed
    here would run outside its cgroup."""
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
