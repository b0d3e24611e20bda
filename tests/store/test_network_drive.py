"""Telling a project on a network drive, from each system's own account of its mounts."""

from __future__ import annotations

import pytest

from workbench.store.safety import network_drive
from workbench.store.safety.network_drive import (
    DRIVE_REMOTE,
    is_network_type,
    linux_fs_type,
    mac_fs_type,
    network_place,
    windows_network_place,
)

# /proc/self/mountinfo of a machine with a few network shares (one mount point with a
# space, written \040 there) and a local disk mounted below an NFS share.
MOUNTINFO = """\
22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
25 22 0:23 / /proc rw,nosuid - proc proc rw
40 22 0:35 / /mnt/nas rw,relatime shared:20 - nfs4 nas:/export rw,vers=4.2
41 40 8:17 / /mnt/nas/local rw,relatime shared:21 - ext4 /dev/sdb1 rw
42 22 0:36 / /mnt/team\\040share rw,relatime shared:22 - cifs //srv/team rw,vers=3.1.1
43 22 0:37 / /home/ann/remote rw,nosuid,nodev shared:23 - fuse.sshfs ann@host:/data rw
44 22 0:38 / /mnt/c rw,noatime - 9p drvfs rw,dirsync
45 22 0:39 / /mnt/nfsold rw - nfs old:/x rw
46 22 0:40 / /mnt/stack rw - ext4 /dev/sdc1 rw
47 46 0:41 / /mnt/stack rw - nfs over:/y rw
"""


@pytest.mark.parametrize("path, fstype", [
    ("/home/ann/study.wbproj", "ext4"),
    ("/mnt/nas/study.wbproj", "nfs4"),
    ("/mnt/nas", "nfs4"),
    ("/mnt/nas/local/study.wbproj", "ext4"),  # a local disk mounted inside the share
    ("/mnt/nasty/study.wbproj", "ext4"),  # a name that only starts like a mount point
    ("/mnt/team share/p.wbproj", "cifs"),
    ("/home/ann/remote/p.wbproj", "fuse.sshfs"),
    ("/mnt/c/Users/ann/p.wbproj", "9p"),  # a Windows drive seen from WSL
    ("/mnt/stack/p.wbproj", "nfs"),  # mounted over: the later mount is what is seen
])
def test_linux_mountinfo(path, fstype):
    assert linux_fs_type(path, MOUNTINFO) == fstype


def test_garbled_mountinfo_lines_are_passed_over():
    assert linux_fs_type("/x", "garbage\n1 2 3\n\n" + MOUNTINFO) == "ext4"
    assert linux_fs_type("/x", "") is None


MAC_MOUNT = """\
/dev/disk3s1s1 on / (apfs, sealed, local, read-only, journaled)
/dev/disk3s5 on /System/Volumes/Data (apfs, local, journaled, nobrowse, protect)
//ann@fileserver/Team%20Share on /Volumes/Team Share (smbfs, nodev, nosuid, mounted by ann)
nas:/export on /Volumes/nas (nfs, asynchronous)
afp_0TQ5PA0a8bkC-1.2d000009 on /Volumes/old (afpfs, nodev, nosuid, mounted by ann)
https://dav.example.org/remote.php on /Volumes/dav (webdav, nodev, noexec, nosuid)
/dev/disk4s1 on /Volumes/USB Stick (msdos, local, nodev, nosuid, noowners)
"""


@pytest.mark.parametrize("path, fstype", [
    ("/Users/ann/study.wbproj", "apfs"),
    ("/System/Volumes/Data/Users/ann/p.wbproj", "apfs"),
    ("/Volumes/Team Share/p.wbproj", "smbfs"),
    ("/Volumes/nas/p.wbproj", "nfs"),
    ("/Volumes/old/p.wbproj", "afpfs"),
    ("/Volumes/dav/p.wbproj", "webdav"),
    ("/Volumes/USB Stick/p.wbproj", "msdos"),
])
def test_mac_mount_output(path, fstype):
    assert mac_fs_type(path, MAC_MOUNT) == fstype


@pytest.mark.parametrize("fstype, network", [
    ("nfs4", True), ("cifs", True), ("smb3", True), ("fuse.sshfs", True), ("9p", True),
    ("smbfs", True), ("afpfs", True), ("webdav", True), ("NFS", True),
    ("ext4", False), ("apfs", False), ("msdos", False), ("fuse", False), ("tmpfs", False),
    ("overlay", False), (None, False),
])
def test_which_types_are_network_file_systems(fstype, network):
    assert is_network_type(fstype) is network


def _drives(remote: set[str]):
    return lambda root: DRIVE_REMOTE if root[0] in remote else 3  # 3: DRIVE_FIXED


@pytest.mark.parametrize("path, place", [
    ("\\\\fileserver\\team\\study.wbproj", "\\\\fileserver\\team"),
    ("//fileserver/team/study.wbproj", "\\\\fileserver\\team"),
    ("\\\\?\\UNC\\fileserver\\team\\deep\\study.wbproj", "\\\\fileserver\\team"),
    ("Z:\\study.wbproj", "Z:"),
    ("z:\\coding\\study.wbproj", "Z:"),
    ("\\\\?\\Z:\\study.wbproj", "Z:"),
    ("C:\\Users\\ann\\study.wbproj", None),
    ("\\\\?\\C:\\Users\\ann\\study.wbproj", None),
])
def test_windows_unc_paths_and_network_drive_letters(path, place):
    assert windows_network_place(path, _drives({"Z", "z"})) == place


def test_this_machines_temporary_folder_is_local(tmp_path):
    assert network_place(tmp_path / "study.wbproj") is None


def test_a_path_on_a_network_mount_is_found(monkeypatch, tmp_path):
    # The real lookup, on this machine's path, with a mountinfo that has it on NFS.
    fake = f"1 0 0:1 / / rw - ext4 /dev/sda1 rw\n2 1 0:2 / {tmp_path} rw - nfs4 nas:/x rw\n"
    real_read = network_drive.Path.read_text

    def read_text(self, *args, **kwargs):
        if str(self) == "/proc/self/mountinfo":
            return fake
        return real_read(self, *args, **kwargs)

    monkeypatch.setattr(network_drive.Path, "read_text", read_text)
    assert network_place(tmp_path / "study.wbproj", "linux") == "nfs4"


def test_what_cannot_be_told_counts_as_local(monkeypatch, tmp_path):
    def unreadable(self, *args, **kwargs):
        raise PermissionError("no /proc here")

    monkeypatch.setattr(network_drive.Path, "read_text", unreadable)
    assert network_place(tmp_path / "study.wbproj", "linux") is None
    # The drive type cannot be asked (off Windows): local.
    monkeypatch.setattr(network_drive.os.path, "realpath", lambda p: "Z:\\study.wbproj")
    assert network_place("Z:\\study.wbproj", "win32") is None
