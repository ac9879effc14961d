#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Known answers for the fscrypt-nokey-name KUnit suite (fs/crypto/fname_kunit.c).

A no-key name is the base64url (no padding) of struct fscrypt_nokey_name
(include/linux/fscrypt.h): the dirhash (two u32, here 0), then up to 149 bytes
of the ciphertext name, and for longer names the SHA-256 of the rest.  The
ciphertext name is C[i] = (i * 7 + 3) & 0xff.

Print them:         /usr/bin/python3 tools/nokey-kat.py
Check a test file:  /usr/bin/python3 tools/nokey-kat.py --check FILE.c
"""

import base64
import hashlib
import re
import sys

PREFIX = 149


def nokey_name(name):
    body = name if len(name) <= PREFIX else \
        name[:PREFIX] + hashlib.sha256(name[PREFIX:]).digest()
    raw = bytes(8) + body
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def known_answers():
    name = bytes((i * 7 + 3) & 0xff for i in range(255))
    return {"fn_kat_32": nokey_name(name[:32]),
            "fn_kat_200": nokey_name(name[:200])}


def c_strings(text):
    """{name: str} for every `static const char NAME[] = "..." "...";`."""
    found = {}
    for name, body in re.findall(r"static\s+const\s+char\s+(\w+)\s*\[\]\s*="
                                 r"\s*((?:\"[^\"]*\"\s*)+);", text):
        found[name] = "".join(re.findall(r"\"([^\"]*)\"", body))
    return found


def main(argv):
    answers = known_answers()
    if len(argv) == 1:
        for name, value in answers.items():
            print("%s = %s" % (name, value))
        return 0
    if len(argv) != 3 or argv[1] != "--check":
        print("usage: %s [--check FILE]" % argv[0], file=sys.stderr)
        return 2
    with open(argv[2], encoding="utf-8") as f:
        found = c_strings(f.read())
    bad = [n for n, v in answers.items() if found.get(n) != v]
    for name in bad:
        print("%s: %s: %s" % (argv[2], name, "differs from the computed value"
                              if name in found else "missing"), file=sys.stderr)
    if bad:
        return 1
    print("%s: all %d known answers match" % (argv[2], len(answers)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
