"""The sandbox policy: what a student's kernel may see and do, as bubblewrap arguments, files and limits.

grader/engine/sandbox.py's kernel manager applies it (makes the kernel's directory, picks its uid, launches,
cleans up); grader/engine/forkserver.py's zygote gets the same sandbox from it. Everything here is a fact
about the sandbox, not about a kernel's lifetime: given the kernel's directory, connection file and
uid, `SandboxPolicy.sandbox_command_for` is the whole command line. What the policy defends against,
and what it does not, is said at the top of grader/engine/sandbox.py.
"""
import os
import shutil
import sys

from traitlets import Bool, Dict, Float, Integer, List, Unicode, default
from traitlets.config import Configurable

MiB = 1024 ** 2
GiB = 1024 ** 3

RUNTIME_FOLDER = ".sandbox"
RUNTIME_VARIABLE = "COURSE_SANDBOX_DIR"

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


def runtime_root():
    """Where kernels' host-side files go: $COURSE_SANDBOX_DIR, else ./.sandbox (see runtime_root)."""
    return os.environ.get(RUNTIME_VARIABLE) or os.path.join(os.getcwd(), RUNTIME_FOLDER)


class SandboxPolicy(Configurable):
    """The sandbox's settings and the command line they make. Configure them as
    ``c.SandboxPolicy.memory_limit = ...`` (or under ``c.SandboxedKernelManager``, which is one)."""

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
             "where the machine offers one: grader/engine/cgroup.py); 0: no limit. One core is what a "
             "notebook of the course uses; a submission that starts many busy processes then "
             "slows only itself, never its neighbours.",
    ).tag(config=True)
    kernel_memory = Integer(
        5 * GiB,
        help="RAM a kernel may use, everything it starts counted together (a cgroup per kernel: memory.max, "
             "or memory.limit_in_bytes under cgroup v1, where the machine offers one: grader/engine/cgroup.py); "
             "0: none. memory_limit bounds one process's address space; this bounds the kernel as a whole, so "
             "forked children cannot add up to the machine's memory. Keep it above memory_limit plus the "
             "tmpfs sizes: one process then meets MemoryError in its cell first, as without the cgroup, and "
             "only several together reach this budget, past which the largest is killed (a notebook whose "
             "kernel died that way says so). Three grading workers hold 15 GiB at most.",
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
        return [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]  # the grader package, course and all

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

    def etc_files(self, uid, gid):
        """The generated /etc files, {name: text}: the sandbox user only, names resolve from files only."""
        return {
            "passwd": f"root:x:0:0:root:/root:/usr/sbin/nologin\n"
                      f"{SANDBOX_USER}:x:{uid}:{gid}:{SANDBOX_USER}:{SANDBOX_HOME}:/bin/sh\n"
                      f"nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
            "group": f"root:x:0:\n{SANDBOX_USER}:x:{gid}:\nnogroup:x:65534:\n",
            "hosts": f"127.0.0.1 localhost {SANDBOX_HOSTNAME}\n::1 localhost\n",
            "nsswitch.conf": "passwd: files\ngroup: files\nshadow: files\nhosts: files dns\n",
        }

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
        # The BLAS kernel the grading process computes with (OpenBLAS picks one for the CPU; this variable
        # overrides it): the same in the student's kernel, so a value that depends on the library's choices,
        # an SVD's signs, is the same on both sides of the verdict (`OPENBLAS_CORETYPE=Haswell make test` grades so).
        if os.environ.get("OPENBLAS_CORETYPE"):
            env["OPENBLAS_CORETYPE"] = os.environ["OPENBLAS_CORETYPE"]
        env.update({str(k): str(v) for k, v in self.extra_env.items()})
        return env

    def rlimit_args(self):
        """prlimit options; each sets soft = hard, so the kernel cannot raise it back."""
        limits = [("--as", self.memory_limit), ("--nproc", self.max_processes),
                  ("--cpu", self.cpu_time_limit), ("--fsize", self.file_size_limit),
                  ("--nofile", self.open_files_limit), ("--core", 0)]
        return [f"{opt}={value}" for opt, value in limits if value or opt == "--core"]

    def sandbox_command_for(self, kernel_cmd, sandbox_dir, connection_file, uid, privileged, zygote=False):
        """The full command line: bwrap [sandbox] -- prlimit [limits] -- [setpriv uid] -- kernel_cmd, the
        sandbox's options in the file sandbox_dir/bwrap.args (see the end).

        sandbox_dir holds the generated etc/ files (etc_files); connection_file is bound read-only as the
        kernel's; uid is the one the kernel runs as when privileged (the grader runs as root).

        zygote=True (root only): the same sandbox for grader/engine/forkserver.py's zygote, which
        forks many kernels and gives each its own uid, limits, /tmp, /dev/shm and socket
        directory itself. It keeps CAP_CHOWN (to hand the socket directory over) and
        CAP_SYS_ADMIN (to mount each kernel's own tmpfs's, in a mount namespace of the
        kernel's own) besides setuid/setgid/setpcap; the kernel drops them all before it
        runs anything. /tmp and /run/kernel are root's (0755), no connection file is
        bound and nothing wraps the command.
        """
        if zygote and not privileged:
            raise RuntimeError("a zygote gives each kernel its own uid: it needs the grader to run as root")
        bwrap = shutil.which(self.bwrap_path)
        if bwrap is None:
            raise RuntimeError(f"bubblewrap ({self.bwrap_path}) is not installed")
        b = _Bwrap()

        # Namespaces: no network, own pids/ipc/hostname/cgroup view.
        args = ["--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
                "--hostname", SANDBOX_HOSTNAME, "--unshare-cgroup-try",
                "--die-with-parent",  # the grader dies -> the sandbox dies
                "--new-session"]      # no controlling terminal: no TIOCSTI into the grader's tty
        if privileged:
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
            b.ro_bind(os.path.join(sandbox_dir, "etc", name), f"/etc/{name}")
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
            b.ro_bind(connection_file, inside_connection_file)
            kernel_cmd = [arg.replace(connection_file, inside_connection_file) for arg in kernel_cmd]
        b.tmpfs(self.scratch_dir, self.scratch_size)
        # Read-only from here: the root and /dev are tmpfs's bwrap made (owned by the kernel's
        # user in a user namespace, and unbounded); writes to device nodes still work.
        b.args += ["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", self.scratch_dir, "--clearenv"]
        for path in hidden:
            b.args += ["--remount-ro", path]
        for k, v in self.sandbox_env().items():
            b.args += ["--setenv", k, v]

        # bwrap's options go in through a file it reads and closes (--args FD), not on its command line:
        # bwrap is pid 1 in the sandbox, and /proc/1/cmdline would show the host's paths to the kernel.
        # What stays there is the command, which the kernel can learn of itself anyway (sys.executable,
        # resource.getrlimit).
        options = os.path.join(sandbox_dir, "bwrap.args")
        with open(os.open(options, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as f:
            f.write(b"".join(arg.encode() + b"\0" for arg in b.args))
        launch = [sys.executable, "-S", "-c", _WITH_OPTIONS_FILE, options, bwrap]
        if zygote:
            return [*launch, "--", *kernel_cmd]
        inner = [shutil.which("prlimit") or "/usr/bin/prlimit", *self.rlimit_args(), "--"]
        if privileged:
            inner += [shutil.which("setpriv") or "/usr/bin/setpriv", f"--reuid={uid}", f"--regid={uid}",
                      "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]
        return [*launch, "--", *inner, *kernel_cmd]


# Runs bwrap (argv[2]) with its options read from the file argv[1] (`bwrap --args FD`), then the rest of argv.
_WITH_OPTIONS_FILE = ("import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); os.set_inheritable(fd, True); "
                      "os.execv(sys.argv[2], [sys.argv[2], '--args', str(fd)] + sys.argv[3:])")



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
