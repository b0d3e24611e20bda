"""On Windows: put the app in a Job Object that kills every process in it when the app ends.

Windows has no ``prctl(PR_SET_PDEATHSIG)``. A job with ``JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE``
kills all its processes when its last handle closes, and the only handle is the app's own,
which the kernel closes however the app ends (a crash or Task Manager's "End task" included).
Processes the app starts afterwards are in the job too (jobs are inherited), so its workers
end with it without running any code. Elsewhere this does nothing: see ``pool``.

This cannot run on the Linux machine the suite runs on; it is written from the Win32
documentation (CreateJobObjectW, SetInformationJobObject, AssignProcessToJobObject).
"""

from __future__ import annotations

import ctypes
import sys
from ctypes import wintypes

_JOB_OBJECT_EXTENDED_LIMIT_INFORMATION = 9  # JOBOBJECTINFOCLASS value
_JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE = 0x2000

_job: int | None = None  # the job's handle, kept open (and so the job alive) for the app's life


# Fixed-width fields (a DWORD is 32 bits on Windows; ctypes.c_ulong is 64 on Linux), so that
# the layout, and so its size, can be checked here too.
class _IoCounters(ctypes.Structure):
    _fields_ = [(name, ctypes.c_ulonglong) for name in (
        "ReadOperationCount", "WriteOperationCount", "OtherOperationCount",
        "ReadTransferCount", "WriteTransferCount", "OtherTransferCount")]


class _BasicLimits(ctypes.Structure):
    _fields_ = [("PerProcessUserTimeLimit", ctypes.c_longlong),
                ("PerJobUserTimeLimit", ctypes.c_longlong),
                ("LimitFlags", ctypes.c_uint32),
                ("MinimumWorkingSetSize", ctypes.c_size_t),
                ("MaximumWorkingSetSize", ctypes.c_size_t),
                ("ActiveProcessLimit", ctypes.c_uint32),
                ("Affinity", ctypes.c_size_t),
                ("PriorityClass", ctypes.c_uint32),
                ("SchedulingClass", ctypes.c_uint32)]


class _ExtendedLimits(ctypes.Structure):
    _fields_ = [("BasicLimitInformation", _BasicLimits),
                ("IoInfo", _IoCounters),
                ("ProcessMemoryLimit", ctypes.c_size_t),
                ("JobMemoryLimit", ctypes.c_size_t),
                ("PeakProcessMemoryUsed", ctypes.c_size_t),
                ("PeakJobMemoryUsed", ctypes.c_size_t)]


def kill_children_with_app() -> bool:
    """Put this process in a kill-on-close job (once); whether it is in one now.

    False (and nothing done) anywhere but Windows, or when Windows refuses (e.g. an old
    Windows and a job the app was started in that does not allow nested jobs): workers then
    fall back on the watcher thread every worker starts (``pool._watch_app``).
    """
    global _job
    if sys.platform != "win32":
        return False
    if _job is not None:
        return True
    kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
    kernel32.CreateJobObjectW.restype = wintypes.HANDLE
    kernel32.GetCurrentProcess.restype = wintypes.HANDLE
    job = kernel32.CreateJobObjectW(None, None)
    if not job:
        return False
    limits = _ExtendedLimits()
    limits.BasicLimitInformation.LimitFlags = _JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
    if not (kernel32.SetInformationJobObject(wintypes.HANDLE(job), _JOB_OBJECT_EXTENDED_LIMIT_INFORMATION,
                                             ctypes.byref(limits), ctypes.sizeof(limits))
            and kernel32.AssignProcessToJobObject(wintypes.HANDLE(job), kernel32.GetCurrentProcess())):
        kernel32.CloseHandle(wintypes.HANDLE(job))
        return False
    _job = int(job)
    return True
