"""A CPU limit per kernel: each kernel in a cgroup of its own, allowed `cpus` cores at most.

RLIMIT_CPU bounds one process's CPU time, not how many processes burn it at once:
a submission that starts 200 busy children (setsid'd or not) would take every core
from the other kernels of the class while its notebook runs. In a cgroup of its
own, everything a kernel starts shares its quota, and the other notebooks run at
the speed they run alone.

Where the machine offers it, as root: cgroup v2 (cpu.max) if the unified
hierarchy has the cpu controller, else cgroup v1's cpu controller
(cpu.cfs_quota_us). Neither (not root, no cgroup file system, a container that
does not delegate one): `kernel_cgroup` returns None and a kernel is bounded by
RLIMIT_CPU per process and killed, with everything it started, when its notebook
ends or runs past its time limit.

Cgroups are named after the grading process (course-kernels/g<pid>-<kernel>): the
next run removes those a killed grader left.
"""
import os
import time

PERIOD_US = 100_000
PARENT = "course-kernels"


def _mounts():
    """(file system type, mount point, super options) of every cgroup mount, from /proc/self/mountinfo."""
    found = []
    try:
        with open("/proc/self/mountinfo") as f:
            for line in f:
                left, right = line.split(" - ", 1)
                fstype, _, options = right.split()[:3]
                if fstype in ("cgroup", "cgroup2"):
                    found.append((fstype, left.split()[4], options.split(",")))
    except OSError:
        pass
    return found


def _write(path, text):
    with open(path, "w") as f:
        f.write(text)


def _cpu_hierarchy():
    """(version, directory under which kernels' cgroups go), or None where no cpu controller is ours."""
    if os.geteuid() != 0:
        return None
    for fstype, point, options in _mounts():
        if fstype == "cgroup2":
            try:
                with open(os.path.join(point, "cgroup.controllers")) as f:
                    if "cpu" not in f.read().split():
                        continue
                _write(os.path.join(point, "cgroup.subtree_control"), "+cpu")
                parent = os.path.join(point, PARENT)
                os.makedirs(parent, exist_ok=True)
                _write(os.path.join(parent, "cgroup.subtree_control"), "+cpu")
                return 2, parent
            except OSError:
                continue
    for fstype, point, options in _mounts():
        if fstype == "cgroup" and "cpu" in options:
            parent = os.path.join(point, PARENT)
            try:
                os.makedirs(parent, exist_ok=True)
                return 1, parent
            except OSError:
                continue
    return None


_hierarchy = False  # not looked for yet


def hierarchy():
    global _hierarchy
    if _hierarchy is False:
        _hierarchy = _cpu_hierarchy()
        if _hierarchy is not None:
            _remove_stale(_hierarchy[1])
    return _hierarchy


def _remove_stale(parent):
    for name in os.listdir(parent):
        pid = name[1:].split("-", 1)[0]
        if name.startswith("g") and pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            try:
                os.rmdir(os.path.join(parent, name))
            except OSError:
                pass


class KernelCgroup:
    """One kernel's cgroup: add(pid) puts a process (and so all it will start) in it; close() removes it."""

    def __init__(self, version, parent, name, cpus):
        self.version = version
        self.path = os.path.join(parent, f"g{os.getpid()}-{name}")
        os.mkdir(self.path)
        quota = max(1000, int(cpus * PERIOD_US))
        if version == 2:
            _write(os.path.join(self.path, "cpu.max"), f"{quota} {PERIOD_US}")
        else:
            _write(os.path.join(self.path, "cpu.cfs_period_us"), str(PERIOD_US))
            _write(os.path.join(self.path, "cpu.cfs_quota_us"), str(quota))

    def add(self, pid):
        _write(os.path.join(self.path, "cgroup.procs"), str(pid))

    def pids(self):
        try:
            with open(os.path.join(self.path, "cgroup.procs")) as f:
                return [int(p) for p in f.read().split()]
        except OSError:
            return []

    def close(self, wait=2.0):
        """Remove the cgroup once its processes are gone (they were killed just before)."""
        deadline = time.monotonic() + wait
        while True:
            try:
                os.rmdir(self.path)
                return
            except FileNotFoundError:
                return
            except OSError:
                if time.monotonic() > deadline:
                    return  # a process still exiting: the next run removes it
                time.sleep(0.01)


def kernel_cgroup(name, cpus):
    """A cgroup of `cpus` cores for one kernel, or None (see the module doc); cpus <= 0: no limit."""
    found = hierarchy() if cpus and cpus > 0 else None
    if found is None:
        return None
    try:
        return KernelCgroup(*found, name, cpus)
    except OSError:
        return None
