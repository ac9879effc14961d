#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A raw send stream (btrfs send --raw, version 3), made by hand, for the
progs series' parser and "btrfs receive --dump" (stage P1 of
docs/raw-send-plan.md).

The stream is what a raw send of two subvolumes looks like: no-key paths,
and the fscrypt attributes (36-44 of progs' kernel-shared/send.h) on SUBVOL,
SNAPSHOT, MKFILE, MKDIR, SYMLINK (a stored target with NUL bytes), RENAME,
LINK and ENCODED_WRITE. Names, contexts and ciphertext are made-up bytes.

Write it:           /usr/bin/python3 tools/send-stream-gen.py FILE
Check a btrfs:      /usr/bin/python3 tools/send-stream-gen.py --check BTRFS
(--check compares "BTRFS receive --dump" of the stream with EXPECTED, and
checks that malformed fscrypt attributes are refused.)
"""

import base64
import difflib
import os
import struct
import subprocess
import sys
import tempfile

# kernel-shared/send.h
C_SUBVOL, C_SNAPSHOT, C_MKFILE, C_MKDIR = 1, 2, 3, 4
C_SYMLINK, C_RENAME, C_LINK = 8, 9, 10
C_CHMOD, C_END, C_ENCODED_WRITE = 18, 21, 25
A_UUID, A_CTRANSID, A_INO, A_MODE, A_PATH, A_PATH_TO, A_PATH_LINK = \
    1, 2, 3, 5, 15, 16, 17
A_FILE_OFFSET, A_DATA, A_CLONE_UUID, A_CLONE_CTRANSID = 18, 19, 20, 21
A_UNENCODED_FILE_LEN, A_UNENCODED_LEN, A_UNENCODED_OFFSET = 27, 28, 29
A_ENCRYPTION = 31
(A_FSCRYPT_FLAGS, A_FSCRYPT_CONTEXT, A_FSCRYPT_NAME, A_FSCRYPT_NAME_TO,
 A_FSCRYPT_PARENT_CONTEXT, A_FSCRYPT_SYMLINK, A_FSCRYPT_EXTENT_CONTEXT,
 A_FSCRYPT_FIRST_DU, A_FSCRYPT_INLINE, A_FSCRYPT_DATA_UNIT_SIZE) = range(36, 46)


def crc32c(data, crc=0):
    """btrfs's crc32c: Castagnoli, reflected, no inversion."""
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc


def u32(v):
    return struct.pack("<I", v)


def u64(v):
    return struct.pack("<Q", v)


def tlv(attr, data):
    if attr == A_DATA:
        return struct.pack("<H", attr) + data
    return struct.pack("<HH", attr, len(data)) + data


def cmd(number, *attrs):
    payload = b"".join(tlv(a, d) for a, d in attrs)
    hdr = struct.pack("<IHI", len(payload), number, 0)
    crc = crc32c(hdr + payload)
    return struct.pack("<IHI", len(payload), number, crc) + payload


def stream(version, *cmds):
    return b"btrfs-stream\0" + u32(version) + b"".join(cmds)


def made_up(seed, length):
    return bytes((seed + i * 37) & 0xff for i in range(length))


def nokey(name):
    """fscrypt's no-key name: base64url of dirhash, minor hash 0, name."""
    raw = u32(crc32c(name, 0xfffffffe)) + u32(0) + name
    return base64.urlsafe_b64encode(raw).decode().rstrip("=").encode()


def context(nonce_seed):
    """A v2 inode context: AES-256-XTS, AES-256-CTS, pad 32."""
    return bytes([2, 1, 4, 3]) + bytes(4) + bytes([0x11] * 16) + \
        made_up(nonce_seed, 16)


FILE, LNK, NEW, LINK = (made_up(s, 16) for s in (2, 4, 5, 6))
SNAP = made_up(1, 32) + b"/\0"   # stored names may hold '/' and NUL
ORPHAN = b"o257-9-0".ljust(63, b"_")   # in an encrypted root dir
TARGET = struct.pack("<H", 16) + made_up(7, 15) + b"\0"   # le16 len, text


def raw_stream():
    """Two subvolumes: "vol" with an encrypted dir "enc", then a snapshot
    of an encrypted subvolume, in an encrypted dir of the source."""
    enc = b"enc/"
    return stream(
        3,
        cmd(C_SUBVOL, (A_PATH, b"vol"), (A_UUID, made_up(8, 16)),
            (A_CTRANSID, u64(7)), (A_FSCRYPT_FLAGS, u32(1))),
        cmd(C_MKDIR, (A_PATH, b"o257-7-0"), (A_INO, u64(257)),
            (A_FSCRYPT_CONTEXT, context(9))),
        cmd(C_RENAME, (A_PATH, b"o257-7-0"), (A_PATH_TO, b"enc")),
        cmd(C_MKFILE, (A_PATH, enc + nokey(FILE)), (A_INO, u64(258)),
            (A_FSCRYPT_CONTEXT, context(10)), (A_FSCRYPT_NAME, FILE)),
        cmd(C_SYMLINK, (A_PATH, enc + nokey(LNK)), (A_INO, u64(259)),
            (A_FSCRYPT_CONTEXT, context(11)), (A_FSCRYPT_NAME, LNK),
            (A_FSCRYPT_SYMLINK, TARGET)),
        cmd(C_RENAME, (A_PATH, enc + nokey(FILE)),
            (A_PATH_TO, enc + nokey(NEW)), (A_FSCRYPT_NAME_TO, NEW)),
        cmd(C_LINK, (A_PATH, enc + nokey(LINK)),
            (A_PATH_LINK, enc + nokey(NEW)), (A_FSCRYPT_NAME, LINK)),
        cmd(C_ENCODED_WRITE, (A_PATH, enc + nokey(NEW)),
            (A_FILE_OFFSET, u64(0)), (A_UNENCODED_FILE_LEN, u64(100)),
            (A_UNENCODED_LEN, u64(100)), (A_UNENCODED_OFFSET, u64(0)),
            (A_ENCRYPTION, u32(1)),
            (A_FSCRYPT_EXTENT_CONTEXT, bytes([1, 1, 0]) + made_up(12, 32)),
            (A_FSCRYPT_FIRST_DU, u64(3)), (A_FSCRYPT_INLINE, u32(1)),
            (A_FSCRYPT_DATA_UNIT_SIZE, u32(4096)),
            (A_DATA, made_up(13, 112))),
        cmd(C_CHMOD, (A_PATH, enc + nokey(NEW)), (A_MODE, u64(0o600))),
        cmd(C_SNAPSHOT, (A_PATH, nokey(SNAP)), (A_UUID, made_up(14, 16)),
            (A_CTRANSID, u64(9)), (A_CLONE_UUID, made_up(15, 16)),
            (A_CLONE_CTRANSID, u64(8)), (A_FSCRYPT_FLAGS, u32(1)),
            (A_FSCRYPT_NAME, SNAP), (A_FSCRYPT_PARENT_CONTEXT, context(16))),
        cmd(C_MKFILE, (A_PATH, nokey(ORPHAN)), (A_INO, u64(257)),
            (A_FSCRYPT_CONTEXT, context(17)), (A_FSCRYPT_NAME, ORPHAN)),
        cmd(C_END))


def bad_stream(version, attr, data):
    return stream(version, cmd(C_MKFILE, (A_PATH, b"f"), (A_INO, u64(257)),
                               (attr, data)), cmd(C_END))


# Malformed streams and the error "receive --dump" must give.
BAD = [
    (bad_stream(3, 46, b"x"), "invalid tlv in cmd tlv_type = 46"),
    (bad_stream(2, A_FSCRYPT_NAME, FILE),
     "invalid tlv in cmd tlv_type = 38 for stream version 2"),
    (bad_stream(3, A_FSCRYPT_CONTEXT, bytes(41)),
     "invalid size for attribute 37, expected 1 to 40, got 41"),
    (bad_stream(3, A_FSCRYPT_NAME, b""),
     "invalid size for attribute 38, expected 1 to 255, got 0"),
    (bad_stream(3, A_FSCRYPT_FLAGS, bytes(8)),
     "invalid size for attribute, expected = 4, got = 8"),
]

EXPECTED = """\
subvol          ./vol                           uuid=082d5277-9cc1-e60b-3055-7a9fc4e90e33 transid=7 fscrypt_flags=0x1(raw)
mkdir           ./vol/o257-7-0                  fscrypt_context=020104030000000011111111111111111111111111111111092e53789dc2e70c31567ba0c5ea0f34
rename          ./vol/o257-7-0                  dest=./vol/enc
mkfile          ./vol/enc/a3DWwQAAAAACJ0xxlrvgBSpPdJm-4wgt fscrypt_context=0201040300000000111111111111111111111111111111110a2f54799ec3e80d32577ca1c6eb1035 fscrypt_name_len=16 fscrypt_name=02274c7196bbe0052a4f7499bee3082d
symlink         ./vol/enc/fh7wbAAAAAAEKU5zmL3iByxRdpvA5Qov fscrypt_context=0201040300000000111111111111111111111111111111110b30557a9fc4e90e33587da2c7ec1136 fscrypt_name_len=16 fscrypt_name=04294e7398bde2072c51769bc0e50a2f fscrypt_symlink_len=18 fscrypt_symlink=1000072c51769bc0e50a2f54799ec3e80d00
rename          ./vol/enc/a3DWwQAAAAACJ0xxlrvgBSpPdJm-4wgt dest=./vol/enc/gXHnFQAAAAAFKk90mb7jCC1Sd5zB5gsw fscrypt_name_to_len=16 fscrypt_name_to=052a4f7499bee3082d52779cc1e60b30
link            ./vol/enc/TBWraAAAAAAGK1B1mr_kCS5TeJ3C5wwx dest=enc/gXHnFQAAAAAFKk90mb7jCC1Sd5zB5gsw fscrypt_name_len=16 fscrypt_name=062b50759abfe4092e53789dc2e70c31
encoded_write   ./vol/enc/gXHnFQAAAAAFKk90mb7jCC1Sd5zB5gsw offset=0 len=112, unencoded_file_len=100, unencoded_len=100, unencoded_offset=0, compression=0, encryption=1 fscrypt_extent_context=0101000c31567ba0c5ea0f34597ea3c8ed12375c81a6cbf0153a5f84a9cef3183d6287 fscrypt_first_du=3 fscrypt_inline=1 fscrypt_data_unit_size=4096
chmod           ./vol/enc/gXHnFQAAAAAFKk90mb7jCC1Sd5zB5gsw mode=600
snapshot        ./FLiI4wAAAAABJktwlbrfBClOc5i94gcsUXabwOUKL1R5nsPoDTJXfC8A uuid=0e33587d-a2c7-ec11-365b-80a5caef1439 transid=9 parent_uuid=0f34597e-a3c8-ed12-375c-81a6cbf0153a parent_transid=8 fscrypt_flags=0x1(raw) fscrypt_name_len=34 fscrypt_name=01264b7095badf04294e7398bde2072c51769bc0e50a2f54799ec3e80d32577c2f00 fscrypt_parent_context=02010403000000001111111111111111111111111111111110355a7fa4c9ee13385d82a7ccf1163b
mkfile          ./FLiI4wAAAAABJktwlbrfBClOc5i94gcsUXabwOUKL1R5nsPoDTJXfC8A/9yHs8gAAAABvMjU3LTktMF9fX19fX19fX19fX19fX19fX19fX19fX19fX19fX19fX19fX19fX19fX19fX19fX19fX19fX18 fscrypt_context=02010403000000001111111111111111111111111111111111365b80a5caef14395e83a8cdf2173c fscrypt_name_len=63 fscrypt_name=6f3235372d392d305f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f
"""


def check(btrfs):
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "stream")
        with open(path, "wb") as f:
            f.write(raw_stream())
        res = subprocess.run([btrfs, "receive", "--dump", "-f", path],
                             capture_output=True, text=True, check=False)
        if res.returncode != 0 or res.stdout != EXPECTED:
            diff = difflib.unified_diff(EXPECTED.splitlines(True),
                                        res.stdout.splitlines(True),
                                        "expected", "receive --dump")
            print("send-stream-gen: receive --dump (exit %d):\n%s%s" %
                  (res.returncode, "".join(diff), res.stderr),
                  file=sys.stderr)
            ok = False
        for data, message in BAD:
            with open(path, "wb") as f:
                f.write(data)
            res = subprocess.run([btrfs, "receive", "--dump", "-f", path],
                                 capture_output=True, text=True, check=False)
            if res.returncode == 0 or message not in res.stderr:
                print("send-stream-gen: expected \"%s\", got (exit %d):\n%s" %
                      (message, res.returncode, res.stderr), file=sys.stderr)
                ok = False
    return ok


def main(argv):
    if len(argv) == 3 and argv[1] == "--check":
        return 0 if check(argv[2]) else 1
    if len(argv) == 2 and not argv[1].startswith("-"):
        with open(argv[1], "wb") as f:
            f.write(raw_stream())
        return 0
    print("usage: %s FILE | --check BTRFS" % argv[0], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
